/* Symbolic shape propagation for dynamic axes.
 *
 * Once the dynamic input dims are symbols, every value computed from those
 * inputs ("tainted") gets its shape again from its node's input shapes, as
 * ONNX shape inference computes it, dims being static, symbolic or unknown.
 * Values not computed from a dynamic input keep their traced shapes.
 *
 * Rules (what ONNX shape inference does, opsets 9..17):
 * - a symbol passes through unchanged where the output dim *is* the input
 *   dim (batch through Conv, a broadcast against 1, Reshape's 0, Flatten of
 *   one dim, a Conv/pool spatial dim whose window maps n to n: stride 1 and
 *   pads = dilation * (kernel - 1));
 * - any other dim computed from a symbol or an unknown dim (a strided Conv
 *   of a dynamic height, batch * seq) is unknown, never a new symbol;
 * - small int64 tensors computed from shapes (Shape, Gather, Unsqueeze,
 *   Concat, Slice... as ONNX's data propagation does) carry their values as
 *   dims, so Reshape(x, Concat(Shape(x)[0], -1)) and ConstantOfShape see
 *   the batch symbol.  Reshape's -1 is computed when the other dims leave
 *   exactly one factor: static, or a symbol of the input left over once the
 *   symbols on both sides cancel (ONNX leaves that case unknown);
 * - an op without a rule, or whose inputs are not known well enough, keeps
 *   element type and rank with every dim unknown.
 * A computed rank that disagrees with the traced rank is not trusted
 * (rank kept, dims unknown). */
#include "export/pipeline/shapes-private.h"
#include <string.h>

/* ---- the op table -------------------------------------------------------- */

/* Output element types, for outputs whose traced type did not say. */
/* DT_SAME: input 0's; DT_INPUT1: input 1's (Where's X); DT_RANDOM: the
 * random ops' `dtype` attribute, else input 0's (the *Like ops), else float */
typedef enum { DT_SAME, DT_INPUT1, DT_BOOL, DT_INT64, DT_CAST, DT_RANDOM } DTypeRule;

typedef struct
{
  const char *op;
  ShapeRule   rule;
  DTypeRule   dtype;
} OpRule;

static const OpRule op_rules[] = {
  /* element-wise unary and shape-preserving ops */
  { "Abs", shape_rule_same, DT_SAME }, { "Acos", shape_rule_same, DT_SAME },
  { "Acosh", shape_rule_same, DT_SAME }, { "Asin", shape_rule_same, DT_SAME },
  { "Asinh", shape_rule_same, DT_SAME }, { "Atan", shape_rule_same, DT_SAME },
  { "Atanh", shape_rule_same, DT_SAME }, { "Ceil", shape_rule_same, DT_SAME },
  { "Celu", shape_rule_same, DT_SAME }, { "Clip", shape_rule_same, DT_SAME },
  { "Cos", shape_rule_same, DT_SAME }, { "Cosh", shape_rule_same, DT_SAME },
  { "CumSum", shape_rule_same, DT_SAME }, { "Elu", shape_rule_same, DT_SAME },
  { "Erf", shape_rule_same, DT_SAME }, { "Exp", shape_rule_same, DT_SAME },
  { "Floor", shape_rule_same, DT_SAME }, { "HardSigmoid", shape_rule_same, DT_SAME },
  { "HardSwish", shape_rule_same, DT_SAME }, { "Hardmax", shape_rule_same, DT_SAME },
  { "IsInf", shape_rule_same, DT_BOOL }, { "IsNaN", shape_rule_same, DT_BOOL },
  { "LeakyRelu", shape_rule_same, DT_SAME }, { "Log", shape_rule_same, DT_SAME },
  { "LogSoftmax", shape_rule_same, DT_SAME }, { "LRN", shape_rule_same, DT_SAME },
  { "MeanVarianceNormalization", shape_rule_same, DT_SAME }, { "Mish", shape_rule_same, DT_SAME },
  { "Neg", shape_rule_same, DT_SAME }, { "Not", shape_rule_same, DT_BOOL },
  { "Reciprocal", shape_rule_same, DT_SAME }, { "Relu", shape_rule_same, DT_SAME },
  { "Round", shape_rule_same, DT_SAME }, { "Selu", shape_rule_same, DT_SAME },
  { "Shrink", shape_rule_same, DT_SAME }, { "Sigmoid", shape_rule_same, DT_SAME },
  { "Sign", shape_rule_same, DT_SAME }, { "Sin", shape_rule_same, DT_SAME },
  { "Sinh", shape_rule_same, DT_SAME }, { "Softmax", shape_rule_same, DT_SAME },
  { "Softplus", shape_rule_same, DT_SAME }, { "Softsign", shape_rule_same, DT_SAME },
  { "Sqrt", shape_rule_same, DT_SAME }, { "Tan", shape_rule_same, DT_SAME },
  { "Tanh", shape_rule_same, DT_SAME }, { "ThresholdedRelu", shape_rule_same, DT_SAME },
  { "Trilu", shape_rule_same, DT_SAME }, { "BatchNormalization", shape_rule_same, DT_SAME },
  { "InstanceNormalization", shape_rule_same, DT_SAME }, { "Dropout", shape_rule_same, DT_SAME },
  { "Identity", shape_rule_same, DT_SAME }, { "Cast", shape_rule_same, DT_CAST },
  { "CastLike", shape_rule_same, DT_SAME },
  /* data written into input 0 (view writes, index_put, masked_scatter) */
  { "ScatterElements", shape_rule_same, DT_SAME }, { "Scatter", shape_rule_same, DT_SAME },
  { "ScatterND", shape_rule_same, DT_SAME }, { "GatherElements", shape_rule_like_input1, DT_SAME },
  { "LayerNormalization", shape_rule_layer_norm, DT_SAME }, { "EyeLike", shape_rule_same, DT_SAME },
  { "RandomNormalLike", shape_rule_same, DT_RANDOM }, { "RandomUniformLike", shape_rule_same, DT_RANDOM },
  { "RandomNormal", shape_rule_shape_attr, DT_RANDOM }, { "RandomUniform", shape_rule_shape_attr, DT_RANDOM },
  { "Bernoulli", shape_rule_same, DT_SAME }, { "ReverseSequence", shape_rule_same, DT_SAME },
  /* broadcasting */
  { "Add", shape_rule_broadcast, DT_SAME }, { "Sub", shape_rule_broadcast, DT_SAME },
  { "Mul", shape_rule_broadcast, DT_SAME }, { "Div", shape_rule_broadcast, DT_SAME },
  { "Pow", shape_rule_broadcast, DT_SAME }, { "Mod", shape_rule_broadcast, DT_SAME },
  { "PRelu", shape_rule_broadcast, DT_SAME }, { "Max", shape_rule_broadcast, DT_SAME },
  { "Min", shape_rule_broadcast, DT_SAME }, { "Sum", shape_rule_broadcast, DT_SAME },
  { "Mean", shape_rule_broadcast, DT_SAME }, { "BitShift", shape_rule_broadcast, DT_SAME },
  { "And", shape_rule_broadcast, DT_BOOL }, { "Or", shape_rule_broadcast, DT_BOOL },
  { "Xor", shape_rule_broadcast, DT_BOOL }, { "Equal", shape_rule_broadcast, DT_BOOL },
  { "Less", shape_rule_broadcast, DT_BOOL }, { "LessOrEqual", shape_rule_broadcast, DT_BOOL },
  { "Greater", shape_rule_broadcast, DT_BOOL }, { "GreaterOrEqual", shape_rule_broadcast, DT_BOOL },
  { "Where", shape_rule_broadcast, DT_INPUT1 },
  /* convolution and pooling */
  { "Conv", shape_rule_conv, DT_SAME }, { "ConvTranspose", shape_rule_conv_transpose, DT_SAME },
  { "MaxPool", shape_rule_pool, DT_SAME }, { "AveragePool", shape_rule_pool, DT_SAME },
  { "LpPool", shape_rule_pool, DT_SAME }, { "GlobalAveragePool", shape_rule_global_pool, DT_SAME },
  { "GlobalMaxPool", shape_rule_global_pool, DT_SAME },
  { "GlobalLpPool", shape_rule_global_pool, DT_SAME },
  /* linear algebra */
  { "Gemm", shape_rule_gemm, DT_SAME }, { "MatMul", shape_rule_matmul, DT_SAME },
  /* shape manipulation */
  { "Flatten", shape_rule_flatten, DT_SAME }, { "Reshape", shape_rule_reshape, DT_SAME },
  { "Transpose", shape_rule_transpose, DT_SAME }, { "Concat", shape_rule_concat, DT_SAME },
  { "Split", shape_rule_split, DT_SAME }, { "Slice", shape_rule_slice, DT_SAME },
  { "Squeeze", shape_rule_squeeze, DT_SAME }, { "Unsqueeze", shape_rule_unsqueeze, DT_SAME },
  { "Gather", shape_rule_gather, DT_SAME }, { "Shape", shape_rule_shape, DT_INT64 },
  { "Size", shape_rule_scalar, DT_INT64 }, { "Range", shape_rule_range, DT_SAME }, { "Pad", shape_rule_pad, DT_SAME },
  { "Resize", shape_rule_resize, DT_SAME }, { "Upsample", shape_rule_resize, DT_SAME },
  { "ConstantOfShape", shape_rule_constant_of_shape, DT_SAME },
  { "Expand", shape_rule_expand, DT_SAME }, { "Tile", shape_rule_tile, DT_SAME },
  /* reductions */
  { "ReduceMean", shape_rule_reduce, DT_SAME }, { "ReduceSum", shape_rule_reduce, DT_SAME },
  { "ReduceMax", shape_rule_reduce, DT_SAME }, { "ReduceMin", shape_rule_reduce, DT_SAME },
  { "ReduceProd", shape_rule_reduce, DT_SAME }, { "ReduceL1", shape_rule_reduce, DT_SAME },
  { "ReduceL2", shape_rule_reduce, DT_SAME }, { "ReduceLogSumExp", shape_rule_reduce, DT_SAME },
  { "ReduceSumSquare", shape_rule_reduce, DT_SAME }, { "ArgMax", shape_rule_reduce, DT_INT64 },
  { "ArgMin", shape_rule_reduce, DT_INT64 }, { "TopK", shape_rule_topk, DT_SAME },
  /* recurrent */
  { "LSTM", shape_rule_rnn, DT_SAME }, { "GRU", shape_rule_rnn, DT_SAME },
  { "RNN", shape_rule_rnn, DT_SAME },
};

static const OpRule *
find_rule (GraphNode *n)
{
  static GHashTable *table;
  if (g_once_init_enter (&table))
    {
      GHashTable *t = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < G_N_ELEMENTS (op_rules); i++)
        {
          g_autofree char *kind = g_strconcat (GRAPH_ONNX_DOMAIN "::", op_rules[i].op, NULL);
          g_hash_table_insert (t, (gpointer) g_intern_string (kind), (gpointer) &op_rules[i]);
        }
      g_once_init_leave (&table, t);
    }
  return g_hash_table_lookup (table, graph_node_kind (n));
}

/* ---- data propagation ---------------------------------------------------- */

/* Elementwise arithmetic on shape values; only static operands combine
 * (and x * 1, x + 0). */
static gboolean
data_arith (const char *op, const DimVec *a, const DimVec *b, DimVec *out)
{
  if (!(a->n == b->n || a->n == 1 || b->n == 1))
    return FALSE;
  out->n = MAX (a->n, b->n);
  out->scalar = a->scalar && b->scalar;
  for (guint i = 0; i < out->n; i++)
    {
      GraphDim x = a->v[a->n == 1 ? 0 : i], y = b->v[b->n == 1 ? 0 : i];
      gboolean st = x.kind == GRAPH_DIM_STATIC && y.kind == GRAPH_DIM_STATIC
                    && shape_small (x.value) && shape_small (y.value);
      GraphDim r = shape_dim_unknown ();
      if (strcmp (op, "Mul") == 0)
        r = shape_dim_mul (x, y);
      else if (strcmp (op, "Add") == 0)
        r = st ? shape_dim_static (x.value + y.value)
            : y.kind == GRAPH_DIM_STATIC ? shape_dim_add (x, y.value)
            : x.kind == GRAPH_DIM_STATIC ? shape_dim_add (y, x.value) : shape_dim_unknown ();
      else if (strcmp (op, "Sub") == 0)
        r = st ? shape_dim_static (x.value - y.value)
            : y.kind == GRAPH_DIM_STATIC && y.value == 0 ? x : shape_dim_unknown ();
      else if (strcmp (op, "Div") == 0)
        /* ONNX integer Div truncates; shape values are non-negative. */
        r = st && y.value != 0 ? shape_dim_static (x.value / y.value)
            : shape_is_static (&y, 1) ? x : shape_dim_unknown ();
      out->v[i] = r;
    }
  return TRUE;
}

/* Integer and boolean ops on values that are all static (the integer
 * arithmetic of torch's floor division and remainder of sizes, a window's
 * padding (W - W % 7) % 7): evaluated, booleans as 0 and 1.  A value that
 * is not static gives no data. */
static gboolean
data_static_op (Ctx *c, GraphNode *n, const char *op, DimVec *out)
{
  static const char *const ops[] = {
    "Mod", "Neg", "Abs", "Max", "Min", "Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual", "Not", "And", "Or", "Xor", "Where",
  };
  guint k = 0;
  while (k < G_N_ELEMENTS (ops) && strcmp (op, ops[k]) != 0)
    k++;
  guint nin = graph_node_n_inputs (n);
  if (k == G_N_ELEMENTS (ops) || nin == 0 || nin > 3)
    return FALSE;
  DimVec in[3];
  guint len = 1;
  gboolean scalar = TRUE;
  for (guint i = 0; i < nin; i++)
    {
      if (!shape_data_of (c, shape_in_at (n, i), &in[i]) || in[i].n == 0)
        return FALSE;
      for (guint j = 0; j < in[i].n; j++)
        if (in[i].v[j].kind != GRAPH_DIM_STATIC || !shape_small (in[i].v[j].value))
          return FALSE;
      if (in[i].n != 1 && len != 1 && in[i].n != len)
        return FALSE;
      len = MAX (len, in[i].n);
      scalar = scalar && in[i].scalar;
    }
  gint64 fmod_attr = shape_attr_i (n, "fmod", 0);
  out->n = len;
  out->scalar = scalar;
  for (guint j = 0; j < len; j++)
    {
      gint64 x[3] = { 0 };
      for (guint i = 0; i < nin; i++)
        x[i] = in[i].v[in[i].n == 1 ? 0 : j].value;
      gint64 a = x[0], b = x[1], r;
      if (strcmp (op, "Mod") == 0)
        {
          if (b == 0)
            return FALSE;
          r = a % b;
          if (!fmod_attr && r != 0 && ((r < 0) != (b < 0)))
            r += b;   /* the sign of the divisor, as ONNX's integer Mod */
        }
      else if (strcmp (op, "Neg") == 0) r = -a;
      else if (strcmp (op, "Abs") == 0) r = a < 0 ? -a : a;
      else if (strcmp (op, "Max") == 0) r = nin == 1 ? a : MAX (a, b);
      else if (strcmp (op, "Min") == 0) r = nin == 1 ? a : MIN (a, b);
      else if (strcmp (op, "Equal") == 0) r = a == b;
      else if (strcmp (op, "Less") == 0) r = a < b;
      else if (strcmp (op, "Greater") == 0) r = a > b;
      else if (strcmp (op, "LessOrEqual") == 0) r = a <= b;
      else if (strcmp (op, "GreaterOrEqual") == 0) r = a >= b;
      else if (strcmp (op, "Not") == 0) r = !a;
      else if (strcmp (op, "And") == 0) r = a && b;
      else if (strcmp (op, "Or") == 0) r = a || b;
      else if (strcmp (op, "Xor") == 0) r = !a != !b;
      else if (nin == 3) r = a ? b : x[2];   /* Where */
      else return FALSE;
      out->v[j] = shape_dim_static (r);
    }
  return TRUE;
}

/* The values of n's output 0 when they are a short integer vector. */
static gboolean
data_rule (Ctx *c, GraphNode *n, DimVec *out)
{
  const char *op = graph_node_op_type (n);
  if (strcmp (graph_node_domain (n), GRAPH_ONNX_DOMAIN) != 0)
    return FALSE;
  if (strcmp (op, "Shape") == 0)
    {
      Shape x;
      if (!shape_of (c, shape_in_at (n, 0), &x))
        return FALSE;
      gint64 start, end;
      shape_range (n, x.rank, &start, &end);
      out->n = (guint) (end - start);
      out->scalar = FALSE;
      memcpy (out->v, x.d + start, out->n * sizeof (GraphDim));
      return TRUE;
    }
  if (strcmp (op, "Size") == 0)
    {
      Shape x;
      if (!shape_of (c, shape_in_at (n, 0), &x))
        return FALSE;
      out->n = 1;
      out->scalar = TRUE;
      out->v[0] = shape_dims_product (&x, 0, x.rank);
      return TRUE;
    }
  DimVec a, b;
  if (!shape_data_of (c, shape_in_at (n, 0), &a))
    return FALSE;
  if (strcmp (op, "Identity") == 0 || strcmp (op, "Cast") == 0)
    {
      gint64 to = shape_attr_i (n, "to", GRAPH_DTYPE_INT64);
      *out = a;
      if (to == GRAPH_DTYPE_BOOL)
        for (guint i = 0; i < out->n; i++)
          {
            if (out->v[i].kind != GRAPH_DIM_STATIC)
              return FALSE;
            out->v[i] = shape_dim_static (out->v[i].value != 0);
          }
      return graph_dtype_is_integer ((GraphDType) to) || to == GRAPH_DTYPE_BOOL;
    }
  if (data_static_op (c, n, op, out))
    return TRUE;
  if (strcmp (op, "Unsqueeze") == 0 || strcmp (op, "Squeeze") == 0 || strcmp (op, "Reshape") == 0
      || strcmp (op, "Flatten") == 0)
    {
      /* Between a scalar and a 1-element vector, or a vector kept flat. */
      Shape s;
      if (!shape_of (c, graph_node_output (n, 0), &s) || s.rank > 1)
        return FALSE;
      *out = a;
      out->scalar = s.rank == 0;
      return !out->scalar || a.n == 1;
    }
  if (strcmp (op, "Gather") == 0)
    {
      gint64 idx[TENSOR_MAX_RANK];
      guint ni = 0;
      DimVec iv;
      if (a.scalar || shape_attr_i (n, "axis", 0) != 0
          || !shape_data_of (c, shape_in_at (n, 1), &iv)
          || !shape_ints_of (c, shape_in_at (n, 1), idx, &ni))
        return FALSE;
      out->n = ni;
      out->scalar = iv.scalar;
      for (guint i = 0; i < ni; i++)
        {
          gint64 k = idx[i] < 0 ? idx[i] + a.n : idx[i];
          if (k < 0 || k >= a.n)
            return FALSE;
          out->v[i] = a.v[k];
        }
      return TRUE;
    }
  if (strcmp (op, "Concat") == 0)
    {
      *out = a;
      out->scalar = FALSE;
      for (guint i = 1; i < graph_node_n_inputs (n); i++)
        {
          if (!shape_data_of (c, graph_node_input (n, i), &b) || out->n + b.n > TENSOR_MAX_RANK)
            return FALSE;
          memcpy (out->v + out->n, b.v, b.n * sizeof (GraphDim));
          out->n += b.n;
        }
      return !a.scalar;
    }
  if (strcmp (op, "Slice") == 0)
    {
      gint64 s[TENSOR_MAX_RANK], e[TENSOR_MAX_RANK], st = 1, ax = 0;
      guint ns = 0, ne = 0, k = 0;
      if (a.scalar || graph_node_n_inputs (n) < 3 || !shape_ints_of (c, shape_in_at (n, 1), s, &ns)
          || !shape_ints_of (c, shape_in_at (n, 2), e, &ne) || ns != 1 || ne != 1
          || (shape_in_at (n, 3) && (!shape_ints_of (c, shape_in_at (n, 3), &ax, &k) || k != 1))
          || (shape_in_at (n, 4) && (!shape_ints_of (c, shape_in_at (n, 4), &st, &k) || k != 1))
          || (ax != 0 && ax != -1) || st == 0)
        return FALSE;
      GraphDim len = shape_slice_dim (shape_dim_static (a.n), s[0], e[0], st);
      gint64 first = s[0] < 0 ? s[0] + a.n : s[0];
      first = st > 0 ? CLAMP (first, 0, (gint64) a.n) : CLAMP (first, 0, (gint64) a.n - 1);
      out->n = (guint) len.value;
      out->scalar = FALSE;
      for (guint i = 0; i < out->n; i++)
        out->v[i] = a.v[first + (gint64) i * st];
      return TRUE;
    }
  if (strcmp (op, "Add") == 0 || strcmp (op, "Sub") == 0 || strcmp (op, "Mul") == 0
      || strcmp (op, "Div") == 0)
    return shape_data_of (c, shape_in_at (n, 1), &b) && data_arith (op, &a, &b, out);
  return FALSE;
}

/* ---- the pass ------------------------------------------------------------ */

/* The type of an output that is not its rule's: Dropout's mask, TopK's
 * indices. */
static GraphDType
second_output_dtype (GraphNode *n, guint i)
{
  if (i == 1 && graph_node_is (n, "onnx::Dropout"))
    return GRAPH_DTYPE_BOOL;
  if (i == 1 && graph_node_is (n, "onnx::TopK"))
    return GRAPH_DTYPE_INT64;
  return GRAPH_DTYPE_UNDEFINED;
}

static GraphDType
output_dtype (GraphNode *n, guint i, const OpRule *r)
{
  GraphDType second = second_output_dtype (n, i);
  if (second != GRAPH_DTYPE_UNDEFINED)
    return second;
  switch (r->dtype)
    {
    case DT_BOOL:
      return GRAPH_DTYPE_BOOL;
    case DT_INT64:
      return GRAPH_DTYPE_INT64;
    case DT_CAST:
      {
        gint64 to = shape_attr_i (n, "to", GRAPH_DTYPE_UNDEFINED);
        return graph_dtype_is_valid ((int) to) ? (GraphDType) to : GRAPH_DTYPE_UNDEFINED;
      }
    case DT_RANDOM:
      {
        gint64 dt = shape_attr_i (n, "dtype", GRAPH_DTYPE_UNDEFINED);
        if (graph_dtype_is_valid ((int) dt) && dt != GRAPH_DTYPE_UNDEFINED)
          return (GraphDType) dt;
        if (shape_in_at (n, 0) == NULL)
          return GRAPH_DTYPE_FLOAT;   /* RandomNormal/RandomUniform's default */
      }
      G_GNUC_FALLTHROUGH;   /* the *Like ops: input 0's */
    case DT_SAME:
    case DT_INPUT1:
    default:
      {
        /* Gather's data, ConstantOfShape's value, else input 0 (1) */
        Tensor *v = NULL;
        if (graph_node_is (n, "onnx::ConstantOfShape"))
          return graph_node_get_t (n, "value", &v) ? tensor_dtype (v) : GRAPH_DTYPE_FLOAT;
        GraphValue *in = shape_in_at (n, r->dtype == DT_INPUT1 ? 1 : 0);
        GraphType *t = in ? graph_value_type (in) : NULL;
        return t && graph_type_is_tensor (t) ? graph_type_dtype (t) : GRAPH_DTYPE_UNDEFINED;
      }
    }
}

/* Writes a computed shape (or the rank-only fallback when s is NULL) as
 * output i's type, and records it. */
static void
set_shape (Ctx *c, GraphNode *n, guint i, const Shape *s, const OpRule *r)
{
  GraphValue *v = graph_node_output (n, i);
  GraphType *t = graph_value_type (v);
  if (t && !graph_type_is_tensor (t))
    {
      g_hash_table_add (c->tainted, v);
      return;
    }
  GraphDType dt = t ? graph_type_dtype (t) : GRAPH_DTYPE_UNDEFINED;
  int rank = t ? graph_type_rank (t) : -1;
  if (dt == GRAPH_DTYPE_UNDEFINED && r)
    dt = output_dtype (n, i, r);
  Shape fallback = { .rank = rank };
  if (s == NULL || (rank >= 0 && s->rank != rank))
    {
      for (int k = 0; k < rank; k++)
        fallback.d[k] = shape_dim_unknown ();
      s = &fallback;
    }
  g_hash_table_add (c->tainted, v);
  g_hash_table_insert (c->shapes, v, g_memdup2 (s, sizeof *s));
  if (dt == GRAPH_DTYPE_UNDEFINED && t == NULL)
    return;
  g_autoptr (GraphType) nt = graph_type_new_tensor (dt, s->rank, s->rank > 0 ? s->d : NULL);
  graph_value_set_type (v, nt);
}

static gboolean
has_rank (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  return t && graph_type_is_tensor (t) && graph_type_rank (t) >= 0;
}

static gboolean
untyped (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  return t == NULL
         || (graph_type_is_tensor (t) && (graph_type_dtype (t) == GRAPH_DTYPE_UNDEFINED
                                          || graph_type_rank (t) < 0));
}

struct _ExportShapeProp
{
  Ctx c;
};

ExportShapeProp *
export_shape_prop_new (Graph *g, GHashTable *dynamic_inputs, gboolean fill_untyped)
{
  ExportShapeProp *p = g_new0 (ExportShapeProp, 1);
  p->c = (Ctx) {
    .g = g,
    .opset = (int) graph_get_opset (g, ""),
    .tainted = g_hash_table_new (NULL, NULL),
    .shapes = g_hash_table_new_full (NULL, NULL, NULL, g_free),
    .data = g_hash_table_new_full (NULL, NULL, NULL, g_free),
    .fill_untyped = fill_untyped,
  };
  if (p->c.opset < 0)
    p->c.opset = SYM_OPSET_DEFAULT;   /* a hand-built graph with no opset yet */
  GHashTableIter it;
  gpointer key;
  if (dynamic_inputs)
    g_hash_table_iter_init (&it, dynamic_inputs);
  while (dynamic_inputs && g_hash_table_iter_next (&it, &key, NULL))
    {
      Shape s;
      g_hash_table_add (p->c.tainted, key);
      if (shape_of (&p->c, key, &s))
        g_hash_table_insert (p->c.shapes, key, g_memdup2 (&s, sizeof s));
    }
  return p;
}

/* One node; first the nodes of its control-flow bodies (a body reads the
 * enclosing graph's values: a dynamic one taints what the body computes
 * from it, and a body that returns a tainted value taints the node's
 * outputs). */
static void
infer_node (Ctx *c, GraphNode *n)
{
  gboolean hit = FALSE;
  for (guint a = 0; a < graph_node_n_attrs (n); a++)
    {
      Graph *one, *const *subs;
      gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
      for (gsize k = 0; k < len; k++)
        {
          graph_foreach_node (subs[k], m)
            infer_node (c, m);
          for (guint i = 0; i < graph_n_outputs (subs[k]); i++)
            hit = hit || g_hash_table_contains (c->tainted, graph_output (subs[k], i));
        }
    }
  for (guint i = 0; i < graph_node_n_inputs (n) && !hit; i++)
    hit = graph_node_input (n, i) && g_hash_table_contains (c->tainted, graph_node_input (n, i));
  guint nout = graph_node_n_outputs (n);
  const OpRule *r = find_rule (n);
  if (hit)
    {
      Shape *out = g_new0 (Shape, MAX (nout, 1));
      gboolean ok = r && nout > 0 && r->rule (c, n, out);
      for (guint i = 0; i < nout; i++)
        set_shape (c, n, i, ok ? &out[i] : NULL, r);
      g_free (out);
    }
  else if (c->fill_untyped && r && nout > 0)
    {
      /* A graph built by hand: write what the rule gives for outputs
       * that have no type; typed ones are the builder's word. */
      Shape *out = g_new0 (Shape, nout);
      gboolean ok = r->rule (c, n, out);
      for (guint i = 0; i < nout; i++)
        if (untyped (graph_node_output (n, i)))
          set_shape (c, n, i, ok ? &out[i] : NULL, r);
      g_free (out);
    }
  else if (r && nout == 1 && !has_rank (graph_node_output (n, 0)))
    {
      /* Not dynamic, but its traced type says too little to feed a
       * dynamic node (a Transpose of a weight): computed, not written. */
      Shape out;
      if (r->rule (c, n, &out))
        g_hash_table_insert (c->shapes, graph_node_output (n, 0), g_memdup2 (&out, sizeof out));
    }
  DimVec d;
  if (nout == 1 && data_rule (c, n, &d))
    g_hash_table_insert (c->data, graph_node_output (n, 0), g_memdup2 (&d, sizeof d));
}

void
export_shape_prop_nodes (ExportShapeProp *p, GraphNode *from)
{
  for (GraphNode *n = from; n; n = graph_node_next (n))
    infer_node (&p->c, n);
}

gboolean
export_shape_prop_is_dynamic (ExportShapeProp *p, GraphValue *v)
{
  return p && v && g_hash_table_contains (p->c.tainted, v);
}

void
export_shape_prop_free (ExportShapeProp *p)
{
  if (p == NULL)
    return;
  g_hash_table_unref (p->c.tainted);
  g_hash_table_unref (p->c.shapes);
  g_hash_table_unref (p->c.data);
  g_free (p);
}

static void
infer (Graph *g, GHashTable *dynamic_inputs, gboolean fill_untyped)
{
  ExportShapeProp *p = export_shape_prop_new (g, dynamic_inputs, fill_untyped);
  export_shape_prop_nodes (p, graph_first_node (g));
  export_shape_prop_free (p);
}

void
export_infer_shapes (Graph *g, GHashTable *dynamic_inputs)
{
  g_return_if_fail (g != NULL);
  infer (g, dynamic_inputs, FALSE);
}

static int rank_from_shape_input (GraphNode *n);

static int
value_rank (GraphValue *v)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  return t && graph_type_is_tensor (t) ? graph_type_rank (t) : -1;
}

/* The rank of an output whose dims the rules cannot compute (a size known
 * only at run time): ConstantOfShape, Reshape and Expand from their shape
 * input's length; ops that keep their input's rank (Resize to computed
 * sizes, Slice, Cast, Pad...) from it; Concat from any input; Gather and
 * broadcasting from their inputs' ranks.  -1 when unknown. */
static int
rank_fallback (GraphNode *n, const OpRule *r)
{
  static const char *const keeps_rank[] = {
    "onnx::Resize", "onnx::Upsample", "onnx::Slice", "onnx::Cast", "onnx::CastLike", "onnx::Pad",
    "onnx::Tile", "onnx::Identity",
  };
  guint nin = graph_node_n_inputs (n);
  for (guint i = 0; i < G_N_ELEMENTS (keeps_rank); i++)
    if (graph_node_is (n, keeps_rank[i]) || r->rule == shape_rule_same)
      return value_rank (shape_in_at (n, 0));
  if (graph_node_is (n, "onnx::Concat"))
    for (guint i = 0; i < nin; i++)
      if (value_rank (shape_in_at (n, i)) >= 0)
        return value_rank (shape_in_at (n, i));
  if (graph_node_is (n, "onnx::Gather"))
    {
      int a = value_rank (shape_in_at (n, 0)), b = value_rank (shape_in_at (n, 1));
      return a >= 1 && b >= 0 ? a + b - 1 : -1;
    }
  if (r->rule == shape_rule_broadcast)
    {
      int m = -1;
      for (guint i = 0; i < nin; i++)
        {
          int k = value_rank (shape_in_at (n, i));
          if (k < 0)
            return -1;
          m = MAX (m, k);
        }
      return m;
    }
  return rank_from_shape_input (n);
}

/* The rank of ConstantOfShape, Reshape and Expand whose shape input's
 * values are not known but its length is (a shape computed at run time). */
static int
rank_from_shape_input (GraphNode *n)
{
  gboolean cos = graph_node_is (n, "onnx::ConstantOfShape");
  if (!cos && !graph_node_is (n, "onnx::Reshape") && !graph_node_is (n, "onnx::Expand"))
    return -1;
  GraphValue *shape = shape_in_at (n, cos ? 0 : 1);
  GraphType *t = shape ? graph_value_type (shape) : NULL;
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) != 1
      || graph_type_dim (t, 0)->kind != GRAPH_DIM_STATIC)
    return -1;
  int r = (int) graph_type_dim (t, 0)->value;
  if (graph_node_is (n, "onnx::Expand"))
    {
      GraphType *ti = graph_value_type (shape_in_at (n, 0));
      int ri = ti && graph_type_is_tensor (ti) ? graph_type_rank (ti) : -1;
      if (ri < 0)
        return -1;
      r = MAX (r, ri);
    }
  return r;
}

void
export_infer_node_types (GraphNode *n, GraphDType default_dtype)
{
  const OpRule *r = n ? find_rule (n) : NULL;
  guint nout = n ? graph_node_n_outputs (n) : 0;
  if (r == NULL || nout == 0)
    return;
  Graph *top = graph_node_graph (n);
  while (graph_get_outer (top))
    top = graph_get_outer (top);
  Ctx c = {
    .g = graph_node_graph (n),
    .opset = (int) graph_get_opset (top, ""),
    .tainted = g_hash_table_new (NULL, NULL),
    .shapes = g_hash_table_new_full (NULL, NULL, NULL, g_free),
    .data = g_hash_table_new_full (NULL, NULL, NULL, g_free),
    .fill_untyped = TRUE,
  };
  if (c.opset < 0)
    c.opset = SYM_OPSET_DEFAULT;
  Shape *out = g_new0 (Shape, nout);
  gboolean ok = r->rule (&c, n, out);
  for (guint i = 0; i < nout; i++)
    {
      GraphValue *v = graph_node_output (n, i);
      GraphType *t = graph_value_type (v);
      if (!untyped (v) || (t && !graph_type_is_tensor (t)))
        continue;
      GraphDType dt = t ? graph_type_dtype (t) : GRAPH_DTYPE_UNDEFINED;
      if (dt == GRAPH_DTYPE_UNDEFINED)
        dt = second_output_dtype (n, i);
      if (dt == GRAPH_DTYPE_UNDEFINED && (r->dtype == DT_SAME || r->dtype == DT_INPUT1))
        dt = export_promoted_dtype (n, default_dtype);   /* int64 + float: the default dtype */
      if (dt == GRAPH_DTYPE_UNDEFINED)
        dt = output_dtype (n, i, r);
      int rank = t && graph_type_rank (t) >= 0 ? graph_type_rank (t) : ok ? out[i].rank
                                                                         : rank_fallback (n, r);
      if (dt == GRAPH_DTYPE_UNDEFINED || rank < 0 || rank > TENSOR_MAX_RANK)
        continue;
      GraphDim dims[TENSOR_MAX_RANK];
      for (int k = 0; k < rank; k++)
        dims[k] = ok && out[i].rank == rank ? out[i].d[k] : shape_dim_unknown ();
      g_autoptr (GraphType) nt = graph_type_new_tensor (dt, rank, rank > 0 ? dims : NULL);
      graph_value_set_type (v, nt);
    }
  g_free (out);
  g_hash_table_unref (c.tainted);
  g_hash_table_unref (c.shapes);
  g_hash_table_unref (c.data);
}

static gboolean
static_type (GraphValue *v, Shape *s)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) < 0 || graph_type_rank (t) > TENSOR_MAX_RANK)
    return FALSE;
  s->rank = graph_type_rank (t);
  for (int k = 0; k < s->rank; k++)
    {
      s->d[k] = *graph_type_dim (t, (guint) k);
      if (s->d[k].kind != GRAPH_DIM_STATIC)
        return FALSE;
    }
  return TRUE;
}

static void
append_dims (GString *s, const Shape *sh)
{
  g_string_append_c (s, '(');
  for (int k = 0; k < sh->rank; k++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, k ? ", " : "", sh->d[k].value);
  g_string_append_c (s, ')');
}

GraphNode *
export_find_declared_shape_conflict (Graph *g, char **detail)
{
  g_return_val_if_fail (g != NULL && detail != NULL, NULL);
  *detail = NULL;
  Ctx c = {
    .g = g,
    .opset = (int) graph_get_opset (g, ""),
    .tainted = g_hash_table_new (NULL, NULL),
    .shapes = g_hash_table_new_full (NULL, NULL, NULL, g_free),
    .data = g_hash_table_new_full (NULL, NULL, NULL, g_free),
  };
  if (c.opset < 0)
    c.opset = SYM_OPSET_DEFAULT;
  GraphNode *found = NULL;
  graph_foreach_node (g, n)
    {
      const OpRule *r = find_rule (n);
      guint nout = graph_node_n_outputs (n);
      Shape declared, s;
      if (r == NULL || nout == 0 || !static_type (graph_node_output (n, 0), &declared))
        continue;
      gboolean inputs_static = TRUE;
      for (guint i = 0; i < graph_node_n_inputs (n) && inputs_static; i++)
        {
          GraphValue *in = shape_in_at (n, i);
          inputs_static = in == NULL || static_type (in, &s);
        }
      if (!inputs_static)
        continue;
      Shape *out = g_new0 (Shape, nout);
      gboolean differs = FALSE;
      if (r->rule (&c, n, out) && out[0].rank >= 0)
        {
          gboolean computed_static = TRUE;
          for (int k = 0; k < out[0].rank; k++)
            computed_static = computed_static && out[0].d[k].kind == GRAPH_DIM_STATIC;
          differs = computed_static && out[0].rank != declared.rank;
          for (int k = 0; computed_static && !differs && k < declared.rank; k++)
            differs = out[0].d[k].value != declared.d[k].value;
        }
      if (differs)
        {
          GString *m = g_string_new ("declared ");
          append_dims (m, &declared);
          g_string_append (m, ", computed ");
          append_dims (m, &out[0]);
          *detail = g_string_free (m, FALSE);
          found = n;
        }
      g_free (out);
      if (found)
        break;
    }
  g_hash_table_unref (c.tainted);
  g_hash_table_unref (c.shapes);
  g_hash_table_unref (c.data);
  return found;
}

static gboolean
require_type (GraphValue *v, const char *what, guint i, GError **error)
{
  if (!untyped (v))
    return TRUE;
  const char *name = graph_value_get_name (v);
  GraphNode *n = graph_value_node (v);
  g_autofree char *label = name ? g_strdup_printf ("'%s'", name)
                                : g_strdup_printf ("%%%u", graph_value_id (v));
  if (n == NULL)
    g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH,
                 "graph %s %u %s has no element type and rank: give graph inputs their types "
                 "(graph_add_input (g, name, type))", what, i, label);
  else
    g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH,
                 "graph %s %u %s (output of %s) has no element type and rank after inference: "
                 "the shape rules do not cover %s or its inputs' types are unknown; set it with "
                 "graph_value_set_type", what, i, label, graph_node_kind (n), graph_node_kind (n));
  return FALSE;
}

gboolean
export_infer_types (Graph *g, GError **error)
{
  if (g == NULL)
    {
      g_set_error_literal (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH, "no graph (NULL) to infer types for");
      return FALSE;
    }
  for (guint i = 0; i < graph_n_inputs (g); i++)
    if (graph_value_get_initializer (graph_input (g, i)) == NULL
        && !require_type (graph_input (g, i), "input", i, error))
      return FALSE;
  infer (g, NULL, TRUE);
  for (guint i = 0; i < graph_n_outputs (g); i++)
    if (!require_type (graph_output (g, i), "output", i, error))
      return FALSE;
  return TRUE;
}
