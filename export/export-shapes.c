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
#include "export/export.h"
#include <string.h>

/* Bad-input guards: dims and pads beyond DIM_LIMIT, and kernels, strides
 * and dilations beyond ATTR_LIMIT, are not computed with (no overflow). */
#define DIM_LIMIT  (G_GINT64_CONSTANT (1) << 40)
#define ATTR_LIMIT (G_GINT64_CONSTANT (1) << 20)

static gboolean
small (gint64 v)
{
  return v >= -DIM_LIMIT && v <= DIM_LIMIT;
}

typedef struct
{
  int      rank;                     /* -1: unknown */
  GraphDim d[TENSOR_MAX_RANK];
} Shape;

/* The values of a small integer tensor (rank <= 1), each a dim. */
typedef struct
{
  guint    n;
  gboolean scalar;
  GraphDim v[TENSOR_MAX_RANK];
} DimVec;

typedef struct
{
  Graph      *g;
  int         opset;
  GHashTable *tainted;  /* values computed from a dynamic input */
  GHashTable *shapes;   /* GraphValue* → Shape*: tainted values, and
                           others whose traced type has no rank */
  GHashTable *data;     /* GraphValue* → DimVec* */
} Ctx;

/* ---- dims ---------------------------------------------------------------- */

static GraphDim
dim_static (gint64 v)
{
  return (GraphDim) { GRAPH_DIM_STATIC, v, NULL };
}

static GraphDim
dim_unknown (void)
{
  return (GraphDim) { GRAPH_DIM_UNKNOWN, 0, NULL };
}

static gboolean
is_static (const GraphDim *d, gint64 v)
{
  return d->kind == GRAPH_DIM_STATIC && d->value == v;
}

/* d + k: a symbol only when k == 0. */
static GraphDim
dim_add (GraphDim d, gint64 k)
{
  if (d.kind == GRAPH_DIM_STATIC)
    return small (d.value) && small (k) && d.value + k >= 0 ? dim_static (d.value + k)
                                                           : dim_unknown ();
  return k == 0 ? d : dim_unknown ();
}

static GraphDim
dim_mul (GraphDim a, GraphDim b)
{
  if (is_static (&a, 1))
    return b;
  if (is_static (&b, 1))
    return a;
  if (a.kind == GRAPH_DIM_STATIC && b.kind == GRAPH_DIM_STATIC && a.value >= 0 && b.value >= 0
      && (a.value == 0 || b.value <= G_MAXINT64 / a.value))
    return dim_static (a.value * b.value);
  return dim_unknown ();
}

/* Product of dims [from, to). */
static GraphDim
dims_product (const Shape *s, int from, int to)
{
  GraphDim p = dim_static (1);
  for (int i = from; i < to; i++)
    p = dim_mul (p, s->d[i]);
  return p;
}

/* Two dims that must be equal (Concat's other axes, MatMul's K): the one
 * known best. */
static GraphDim
dim_merge (GraphDim a, GraphDim b)
{
  if (a.kind == GRAPH_DIM_STATIC)
    return a;
  if (b.kind == GRAPH_DIM_STATIC)
    return b;
  return a.kind == GRAPH_DIM_SYMBOLIC ? a : b;
}

/* One broadcast position: a static dim > 1 wins, 1s drop out, and a symbol
 * survives only when every remaining dim is that symbol. */
static GraphDim
dim_broadcast (const GraphDim *ds, guint n)
{
  const GraphDim *sym = NULL;
  gboolean unknown = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (ds[i].kind == GRAPH_DIM_STATIC && ds[i].value != 1)
        return ds[i];
      if (ds[i].kind == GRAPH_DIM_UNKNOWN)
        unknown = TRUE;
      else if (ds[i].kind == GRAPH_DIM_SYMBOLIC)
        {
          if (sym && g_strcmp0 (sym->symbol, ds[i].symbol) != 0)
            unknown = TRUE;
          sym = &ds[i];
        }
    }
  if (unknown)
    return dim_unknown ();
  return sym ? *sym : dim_static (1);
}

/* Output size of a sliding window (Conv, pools): effective kernel `k`, total
 * padding `pad`.  A symbol is kept when the window maps n to n. */
static GraphDim
window_dim (GraphDim in, gint64 k, gint64 pad, gint64 stride, gboolean ceil_mode)
{
  if (stride <= 0 || k <= 0 || !small (pad))
    return dim_unknown ();
  if (in.kind != GRAPH_DIM_STATIC)
    return stride == 1 && pad == k - 1 ? in : dim_unknown ();
  if (!small (in.value))
    return dim_unknown ();
  gint64 span = in.value + pad - k;
  if (span < 0)
    return dim_unknown ();
  return dim_static ((ceil_mode ? (span + stride - 1) / stride : span / stride) + 1);
}

/* ---- values -------------------------------------------------------------- */

/* A value's shape: computed for tainted values, else its type's. */
static gboolean
shape_of (Ctx *c, GraphValue *v, Shape *s)
{
  if (v == NULL)
    return FALSE;
  Shape *known = g_hash_table_lookup (c->shapes, v);
  if (known)
    {
      *s = *known;
      return s->rank >= 0;
    }
  GraphType *t = graph_value_type (v);
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) < 0
      || graph_type_rank (t) > TENSOR_MAX_RANK)
    return FALSE;
  s->rank = graph_type_rank (t);
  for (int i = 0; i < s->rank; i++)
    s->d[i] = *graph_type_dim (t, (guint) i);
  return TRUE;
}

static Tensor *
const_tensor (GraphValue *v)
{
  if (v == NULL)
    return NULL;
  Tensor *t = graph_value_get_initializer (v);
  GraphNode *p = graph_value_node (v);
  if (t == NULL && p && graph_node_is (p, "onnx::Constant"))
    graph_node_get_t (p, "value", &t);
  return t && tensor_has_data (t) && tensor_dtype (t) != GRAPH_DTYPE_STRING ? t : NULL;
}

/* The values of a small integer tensor: a constant's, or propagated. */
static gboolean
data_of (Ctx *c, GraphValue *v, DimVec *out)
{
  if (v == NULL)
    return FALSE;
  DimVec *known = g_hash_table_lookup (c->data, v);
  if (known)
    {
      *out = *known;
      return TRUE;
    }
  Tensor *t = const_tensor (v);
  if (t == NULL || !graph_dtype_is_integer (tensor_dtype (t)) || tensor_rank (t) > 1
      || tensor_numel (t) > TENSOR_MAX_RANK)
    return FALSE;
  out->n = (guint) tensor_numel (t);
  out->scalar = tensor_rank (t) == 0;
  for (guint i = 0; i < out->n; i++)
    out->v[i] = dim_static (tensor_get_int64 (t, i));
  return TRUE;
}

/* The values of a constant as static integers (attribute-like inputs). */
static gboolean
ints_of (Ctx *c, GraphValue *v, gint64 *vals, guint *n)
{
  DimVec d;
  if (!data_of (c, v, &d))
    return FALSE;
  for (guint i = 0; i < d.n; i++)
    {
      if (d.v[i].kind != GRAPH_DIM_STATIC)
        return FALSE;
      vals[i] = d.v[i].value;
    }
  *n = d.n;
  return TRUE;
}

static gint64
attr_i (GraphNode *n, const char *name, gint64 dflt)
{
  gint64 v;
  return graph_node_get_i (n, name, &v) ? v : dflt;
}

/* An ints attribute of at most TENSOR_MAX_RANK entries, or `n` copies of
 * `dflt` when absent. */
static gboolean
attr_is (GraphNode *n, const char *name, gint64 *vals, guint want, gint64 dflt)
{
  gsize len = 0;
  const gint64 *v = NULL;
  if (!graph_node_get_is (n, name, &len, &v))
    {
      for (guint i = 0; i < want; i++)
        vals[i] = dflt;
      return TRUE;
    }
  if (len != want)
    return FALSE;
  memcpy (vals, v, len * sizeof (gint64));
  return TRUE;
}

/* Axes from the attribute (older opsets) or input `input` (newer). */
static gboolean
axes_of (Ctx *c, GraphNode *n, guint input, gint64 *axes, guint *n_axes, gboolean *present)
{
  gsize len = 0;
  const gint64 *v = NULL;
  *present = TRUE;
  if (graph_node_get_is (n, "axes", &len, &v))
    {
      if (len > TENSOR_MAX_RANK)
        return FALSE;
      memcpy (axes, v, len * sizeof (gint64));
      *n_axes = (guint) len;
      return TRUE;
    }
  if (input < graph_node_n_inputs (n) && graph_node_input (n, input))
    return ints_of (c, graph_node_input (n, input), axes, n_axes);
  *present = FALSE;
  *n_axes = 0;
  return TRUE;
}

static gboolean
norm_axis (gint64 *axis, int rank)
{
  if (*axis < 0)
    *axis += rank;
  return *axis >= 0 && *axis < rank;
}

/* ---- shape rules: each fills out[0..n_outputs) or returns FALSE ---------- */

typedef gboolean (*ShapeRule) (Ctx *c, GraphNode *n, Shape *out);

static GraphValue *
in_at (GraphNode *n, guint i)
{
  return i < graph_node_n_inputs (n) ? graph_node_input (n, i) : NULL;
}

/* Every output has input 0's shape (unary ops, normalisations, Dropout's
 * output and mask, Identity, Cast). */
static gboolean
rule_same (Ctx *c, GraphNode *n, Shape *out)
{
  if (!shape_of (c, in_at (n, 0), &out[0]))
    return FALSE;
  for (guint i = 1; i < graph_node_n_outputs (n); i++)
    out[i] = out[0];
  return TRUE;
}

static gboolean
rule_broadcast (Ctx *c, GraphNode *n, Shape *out)
{
  guint nin = graph_node_n_inputs (n);
  if (nin == 0 || nin > 8)
    return FALSE;
  Shape s[8];
  int rank = 0;
  for (guint i = 0; i < nin; i++)
    {
      if (!shape_of (c, graph_node_input (n, i), &s[i]))
        return FALSE;
      rank = MAX (rank, s[i].rank);
    }
  out->rank = rank;
  for (int k = 0; k < rank; k++)
    {
      GraphDim ds[8];
      guint m = 0;
      for (guint i = 0; i < nin; i++)
        {
          int j = k - (rank - s[i].rank);
          if (j >= 0)
            ds[m++] = s[i].d[j];
        }
      out->d[k] = dim_broadcast (ds, m);
    }
  return TRUE;
}

/* Conv, and the pools through it (no weight: kernel_shape attribute). */
static gboolean
conv_like (Ctx *c, GraphNode *n, Shape *out, gboolean has_weight, gboolean transposed)
{
  Shape x, w;
  if (!shape_of (c, in_at (n, 0), &x) || x.rank < 3)
    return FALSE;
  guint sp = (guint) x.rank - 2;
  gint64 k[TENSOR_MAX_RANK], st[TENSOR_MAX_RANK], dil[TENSOR_MAX_RANK], pads[2 * TENSOR_MAX_RANK];
  gsize len = 0;
  const gint64 *ks = NULL;
  if (graph_node_get_is (n, "kernel_shape", &len, &ks))
    {
      if (len != sp)
        return FALSE;
      memcpy (k, ks, sp * sizeof (gint64));
    }
  else if (has_weight && shape_of (c, in_at (n, 1), &w) && w.rank == x.rank)
    {
      for (guint i = 0; i < sp; i++)
        {
          if (w.d[i + 2].kind != GRAPH_DIM_STATIC)
            return FALSE;
          k[i] = w.d[i + 2].value;
        }
    }
  else
    return FALSE;
  if (!attr_is (n, "strides", st, sp, 1) || !attr_is (n, "dilations", dil, sp, 1)
      || !attr_is (n, "pads", pads, 2 * sp, 0))
    return FALSE;
  for (guint i = 0; i < sp; i++)
    if (k[i] < 1 || k[i] > ATTR_LIMIT || st[i] < 1 || st[i] > ATTR_LIMIT || dil[i] < 1
        || dil[i] > ATTR_LIMIT || !small (pads[i]) || !small (pads[i + sp]))
      return FALSE;
  const char *auto_pad = "NOTSET";
  graph_node_get_s (n, "auto_pad", &auto_pad, NULL);
  gboolean ceil_mode = attr_i (n, "ceil_mode", 0) != 0;

  out->rank = x.rank;
  out->d[0] = x.d[0];
  out->d[1] = x.d[1];
  if (has_weight)
    {
      if (!shape_of (c, in_at (n, 1), &w) || w.rank != x.rank)
        return FALSE;
      out->d[1] = transposed ? dim_mul (w.d[1], dim_static (attr_i (n, "group", 1))) : w.d[0];
    }
  gsize olen = 0;
  const gint64 *oshape = NULL, *opad = NULL;
  gboolean have_oshape = transposed && graph_node_get_is (n, "output_shape", &olen, &oshape)
                         && olen == sp;
  gsize oplen = 0;
  if (transposed && graph_node_get_is (n, "output_padding", &oplen, &opad) && oplen != sp)
    return FALSE;
  for (guint i = 0; opad && i < sp; i++)
    if (!small (opad[i]))
      return FALSE;
  for (guint i = 0; i < sp; i++)
    {
      GraphDim in = x.d[i + 2];
      gint64 ke = dil[i] * (k[i] - 1) + 1;
      if (have_oshape)
        out->d[i + 2] = dim_static (oshape[i]);
      else if (strcmp (auto_pad, "SAME_UPPER") == 0 || strcmp (auto_pad, "SAME_LOWER") == 0)
        {
          /* ceil(in / stride), in * stride for ConvTranspose. */
          if (in.kind == GRAPH_DIM_STATIC && small (in.value) && in.value >= 0)
            out->d[i + 2] = dim_static (transposed ? in.value * st[i] : (in.value + st[i] - 1) / st[i]);
          else
            out->d[i + 2] = st[i] == 1 ? in : dim_unknown ();
        }
      else if (transposed)
        {
          /* stride * (in - 1) + output_padding + effective kernel - pads */
          gint64 extra = (opad ? opad[i] : 0) + ke - pads[i] - pads[i + sp];
          if (in.kind == GRAPH_DIM_STATIC && small (in.value) && in.value > 0)
            out->d[i + 2] = st[i] * (in.value - 1) + extra >= 0
                              ? dim_static (st[i] * (in.value - 1) + extra) : dim_unknown ();
          else
            out->d[i + 2] = st[i] == 1 && extra == 1 ? in : dim_unknown ();
        }
      else
        {
          gint64 pad = strcmp (auto_pad, "VALID") == 0 ? 0 : pads[i] + pads[i + sp];
          out->d[i + 2] = window_dim (in, ke, pad, st[i], ceil_mode);
        }
    }
  for (guint i = 1; i < graph_node_n_outputs (n); i++)   /* MaxPool's Indices */
    out[i] = out[0];
  return TRUE;
}

static gboolean
rule_conv (Ctx *c, GraphNode *n, Shape *out)
{
  return conv_like (c, n, out, TRUE, FALSE);
}

static gboolean
rule_conv_transpose (Ctx *c, GraphNode *n, Shape *out)
{
  return conv_like (c, n, out, TRUE, TRUE);
}

static gboolean
rule_pool (Ctx *c, GraphNode *n, Shape *out)
{
  return conv_like (c, n, out, FALSE, FALSE);
}

static gboolean
rule_global_pool (Ctx *c, GraphNode *n, Shape *out)
{
  if (!shape_of (c, in_at (n, 0), out) || out->rank < 2)
    return FALSE;
  for (int i = 2; i < out->rank; i++)
    out->d[i] = dim_static (1);
  return TRUE;
}

static gboolean
rule_gemm (Ctx *c, GraphNode *n, Shape *out)
{
  Shape a, b;
  if (!shape_of (c, in_at (n, 0), &a) || !shape_of (c, in_at (n, 1), &b) || a.rank != 2
      || b.rank != 2)
    return FALSE;
  out->rank = 2;
  out->d[0] = a.d[attr_i (n, "transA", 0) ? 1 : 0];
  out->d[1] = b.d[attr_i (n, "transB", 0) ? 0 : 1];
  return TRUE;
}

static gboolean
rule_matmul (Ctx *c, GraphNode *n, Shape *out)
{
  Shape a, b;
  if (!shape_of (c, in_at (n, 0), &a) || !shape_of (c, in_at (n, 1), &b) || a.rank < 1
      || b.rank < 1)
    return FALSE;
  /* numpy: a 1-D operand gets a 1 prepended (a) or appended (b), dropped
   * again from the result. */
  gboolean a1 = a.rank == 1, b1 = b.rank == 1;
  if (a1)
    {
      a.d[1] = a.d[0];
      a.d[0] = dim_static (1);
      a.rank = 2;
    }
  if (b1)
    {
      b.d[1] = dim_static (1);
      b.rank = 2;
    }
  Shape ba = a, bb = b;
  ba.rank -= 2;
  bb.rank -= 2;
  int rank = MAX (ba.rank, bb.rank);
  out->rank = 0;
  for (int k = 0; k < rank; k++)
    {
      GraphDim ds[2];
      guint m = 0;
      if (k - (rank - ba.rank) >= 0)
        ds[m++] = ba.d[k - (rank - ba.rank)];
      if (k - (rank - bb.rank) >= 0)
        ds[m++] = bb.d[k - (rank - bb.rank)];
      out->d[out->rank++] = dim_broadcast (ds, m);
    }
  if (!a1)
    out->d[out->rank++] = a.d[a.rank - 2];
  if (!b1)
    out->d[out->rank++] = b.d[b.rank - 1];
  return TRUE;
}

static gboolean
rule_flatten (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  gint64 axis = attr_i (n, "axis", 1);
  if (axis < 0)
    axis += x.rank;
  if (axis < 0 || axis > x.rank)
    return FALSE;
  out->rank = 2;
  out->d[0] = dims_product (&x, 0, (int) axis);
  out->d[1] = dims_product (&x, (int) axis, x.rank);
  return TRUE;
}

/* -1 of a Reshape: the input's dims divided by the known output dims, when
 * the quotient is one static value or one leftover symbol. */
static GraphDim
reshape_infer (const Shape *x, const Shape *out, int skip)
{
  gint64 num = 1, den = 1;
  const char *syms[TENSOR_MAX_RANK];
  guint n_syms = 0;
  for (int i = 0; i < x->rank; i++)
    {
      const GraphDim *d = &x->d[i];
      if (d->kind == GRAPH_DIM_UNKNOWN)
        return dim_unknown ();
      if (d->kind == GRAPH_DIM_SYMBOLIC)
        syms[n_syms++] = d->symbol;
      else if (d->value <= 0 || num > G_MAXINT64 / d->value)
        return dim_unknown ();
      else
        num *= d->value;
    }
  for (int i = 0; i < out->rank; i++)
    {
      const GraphDim *d = &out->d[i];
      if (i == skip)
        continue;
      if (d->kind == GRAPH_DIM_UNKNOWN)
        return dim_unknown ();
      if (d->kind == GRAPH_DIM_STATIC)
        {
          if (d->value <= 0 || den > G_MAXINT64 / d->value)
            return dim_unknown ();
          den *= d->value;
          continue;
        }
      guint j = 0;   /* cancel one occurrence of the symbol */
      while (j < n_syms && g_strcmp0 (syms[j], d->symbol) != 0)
        j++;
      if (j == n_syms)
        return dim_unknown ();
      syms[j] = syms[--n_syms];
    }
  if (num % den != 0 || n_syms > 1)
    return dim_unknown ();
  if (n_syms == 0)
    return dim_static (num / den);
  return num == den ? (GraphDim) { GRAPH_DIM_SYMBOLIC, 0, g_intern_string (syms[0]) }
                    : dim_unknown ();
}

static gboolean
rule_reshape (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  DimVec sh;
  if (!shape_of (c, in_at (n, 0), &x) || !data_of (c, in_at (n, 1), &sh) || sh.scalar)
    return FALSE;
  gboolean allowzero = attr_i (n, "allowzero", 0) != 0;
  int infer = -1;
  out->rank = (int) sh.n;
  for (guint i = 0; i < sh.n; i++)
    {
      GraphDim d = sh.v[i];
      if (d.kind == GRAPH_DIM_STATIC && d.value == 0 && !allowzero)
        {
          if ((int) i >= x.rank)
            return FALSE;
          d = x.d[i];
        }
      else if (d.kind == GRAPH_DIM_STATIC && d.value == -1)
        {
          if (infer >= 0)
            return FALSE;
          infer = (int) i;
        }
      else if (d.kind == GRAPH_DIM_STATIC && d.value < 0)
        return FALSE;
      out->d[i] = d;
    }
  if (infer >= 0)
    out->d[infer] = reshape_infer (&x, out, infer);
  return TRUE;
}

static gboolean
rule_transpose (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  gint64 perm[TENSOR_MAX_RANK];
  gsize len = 0;
  const gint64 *p = NULL;
  if (graph_node_get_is (n, "perm", &len, &p))
    {
      if (len != (gsize) x.rank)
        return FALSE;
      memcpy (perm, p, len * sizeof (gint64));
    }
  else
    for (int i = 0; i < x.rank; i++)
      perm[i] = x.rank - 1 - i;
  out->rank = x.rank;
  for (int i = 0; i < x.rank; i++)
    {
      if (perm[i] < 0 || perm[i] >= x.rank)
        return FALSE;
      out->d[i] = x.d[perm[i]];
    }
  return TRUE;
}

static gboolean
rule_concat (Ctx *c, GraphNode *n, Shape *out)
{
  guint nin = graph_node_n_inputs (n);
  if (nin == 0 || !shape_of (c, in_at (n, 0), out))
    return FALSE;
  gint64 axis = attr_i (n, "axis", 0);
  if (!norm_axis (&axis, out->rank))
    return FALSE;
  for (guint i = 1; i < nin; i++)
    {
      Shape s;
      if (!shape_of (c, graph_node_input (n, i), &s) || s.rank != out->rank)
        return FALSE;
      for (int k = 0; k < s.rank; k++)
        {
          if (k != axis)
            out->d[k] = dim_merge (out->d[k], s.d[k]);
          else if (out->d[k].kind == GRAPH_DIM_STATIC && s.d[k].kind == GRAPH_DIM_STATIC)
            out->d[k] = dim_add (out->d[k], s.d[k].value);
          else
            out->d[k] = is_static (&s.d[k], 0) ? out->d[k]
                        : is_static (&out->d[k], 0) ? s.d[k] : dim_unknown ();
        }
    }
  return TRUE;
}

static gboolean
rule_split (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  gint64 axis = attr_i (n, "axis", 0);
  if (!norm_axis (&axis, x.rank))
    return FALSE;
  guint nout = graph_node_n_outputs (n);
  gint64 split[TENSOR_MAX_RANK];
  guint ns = 0;
  gsize len = 0;
  const gint64 *sv = NULL;
  gboolean have = FALSE;
  if (graph_node_get_is (n, "split", &len, &sv) && len == nout && len <= TENSOR_MAX_RANK)
    {
      memcpy (split, sv, len * sizeof (gint64));
      have = TRUE;
    }
  else if (in_at (n, 1) && ints_of (c, in_at (n, 1), split, &ns) && ns == nout)
    have = TRUE;
  else if (in_at (n, 1) || nout > TENSOR_MAX_RANK)
    return FALSE;
  for (guint i = 0; i < nout; i++)
    {
      out[i] = x;
      if (have)
        out[i].d[axis] = dim_static (split[i]);
      else if (x.d[axis].kind == GRAPH_DIM_STATIC && x.d[axis].value % nout == 0)
        out[i].d[axis] = dim_static (x.d[axis].value / nout);
      else
        out[i].d[axis] = nout == 1 ? x.d[axis] : dim_unknown ();
    }
  return TRUE;
}

/* Slice of one dim [start, end) by step, ONNX's clamping. */
static GraphDim
slice_dim (GraphDim d, gint64 start, gint64 end, gint64 step)
{
  const gint64 big = G_MAXINT64 / 4;
  if (d.kind != GRAPH_DIM_STATIC)
    /* The whole dim, forwards: the identity. */
    return step == 1 && start == 0 && end >= big ? d : dim_unknown ();
  gint64 len = d.value;
  if (len < 0 || len > DIM_LIMIT)
    return dim_unknown ();
  /* A step longer than the dim takes one element at most. */
  step = CLAMP (step, -(len + 1), len + 1);
  if (start < 0)
    start += len;
  if (end < 0)
    end += len;
  if (step > 0)
    {
      start = CLAMP (start, 0, len);
      end = CLAMP (end, 0, len);
      return dim_static (end > start ? (end - start - 1) / step + 1 : 0);
    }
  start = CLAMP (start, 0, len - 1);
  end = CLAMP (end, -1, len - 1);
  return dim_static (start > end ? (start - end - 1) / -step + 1 : 0);
}

static gboolean
rule_slice (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  gint64 starts[TENSOR_MAX_RANK], ends[TENSOR_MAX_RANK], axes[TENSOR_MAX_RANK],
    steps[TENSOR_MAX_RANK];
  guint ns = 0, ne = 0, na = 0, nst = 0;
  if (graph_node_n_inputs (n) == 1)   /* opset 9: attributes */
    {
      gsize ls = 0, le = 0, la = 0;
      const gint64 *s = NULL, *e = NULL, *a = NULL;
      if (!graph_node_get_is (n, "starts", &ls, &s) || !graph_node_get_is (n, "ends", &le, &e)
          || ls != le || ls > TENSOR_MAX_RANK)
        return FALSE;
      ns = ne = (guint) ls;
      memcpy (starts, s, ls * sizeof (gint64));
      memcpy (ends, e, le * sizeof (gint64));
      if (graph_node_get_is (n, "axes", &la, &a))
        {
          if (la != ls)
            return FALSE;
          memcpy (axes, a, la * sizeof (gint64));
          na = (guint) la;
        }
    }
  else if (!ints_of (c, in_at (n, 1), starts, &ns) || !ints_of (c, in_at (n, 2), ends, &ne)
           || ns != ne || (in_at (n, 3) && !ints_of (c, in_at (n, 3), axes, &na))
           || (in_at (n, 4) && !ints_of (c, in_at (n, 4), steps, &nst)))
    return FALSE;
  if (na == 0)
    {
      if (ns > (guint) x.rank)
        return FALSE;
      for (guint i = 0; i < ns; i++)
        axes[i] = i;
      na = ns;
    }
  if (nst == 0)
    for (guint i = 0; i < ns; i++)
      steps[i] = 1;
  if (na != ns || (nst != 0 && nst != ns))
    return FALSE;
  *out = x;
  for (guint i = 0; i < ns; i++)
    {
      gint64 axis = axes[i];
      if (!norm_axis (&axis, x.rank) || steps[i] == 0)
        return FALSE;
      out->d[axis] = slice_dim (x.d[axis], starts[i], ends[i], steps[i]);
    }
  return TRUE;
}

static gboolean
rule_squeeze (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 axes[TENSOR_MAX_RANK];
  guint na = 0;
  gboolean present;
  if (!shape_of (c, in_at (n, 0), &x) || !axes_of (c, n, 1, axes, &na, &present))
    return FALSE;
  gboolean drop[TENSOR_MAX_RANK] = { FALSE };
  if (!present)
    for (int i = 0; i < x.rank; i++)
      {
        if (x.d[i].kind != GRAPH_DIM_STATIC)
          return FALSE;   /* whether it is a 1 is not known */
        drop[i] = x.d[i].value == 1;
      }
  for (guint i = 0; i < na; i++)
    {
      if (!norm_axis (&axes[i], x.rank))
        return FALSE;
      drop[axes[i]] = TRUE;
    }
  out->rank = 0;
  for (int i = 0; i < x.rank; i++)
    if (!drop[i])
      out->d[out->rank++] = x.d[i];
  return TRUE;
}

static gboolean
rule_unsqueeze (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 axes[TENSOR_MAX_RANK];
  guint na = 0;
  gboolean present;
  if (!shape_of (c, in_at (n, 0), &x) || !axes_of (c, n, 1, axes, &na, &present) || !present
      || x.rank + (int) na > TENSOR_MAX_RANK)
    return FALSE;
  out->rank = x.rank + (int) na;
  gboolean one[TENSOR_MAX_RANK] = { FALSE };
  for (guint i = 0; i < na; i++)
    {
      if (!norm_axis (&axes[i], out->rank) || one[axes[i]])
        return FALSE;
      one[axes[i]] = TRUE;
    }
  for (int i = 0, k = 0; i < out->rank; i++)
    out->d[i] = one[i] ? dim_static (1) : x.d[k++];
  return TRUE;
}

static gboolean
rule_gather (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x, idx;
  if (!shape_of (c, in_at (n, 0), &x) || !shape_of (c, in_at (n, 1), &idx)
      || x.rank + idx.rank - 1 > TENSOR_MAX_RANK)
    return FALSE;
  gint64 axis = attr_i (n, "axis", 0);
  if (!norm_axis (&axis, x.rank))
    return FALSE;
  out->rank = 0;
  for (int i = 0; i < axis; i++)
    out->d[out->rank++] = x.d[i];
  for (int i = 0; i < idx.rank; i++)
    out->d[out->rank++] = idx.d[i];
  for (int i = (int) axis + 1; i < x.rank; i++)
    out->d[out->rank++] = x.d[i];
  return TRUE;
}

/* Shape's [start, end) (opset 15), clamped as ONNX does. */
static void
shape_range (GraphNode *n, int rank, gint64 *start, gint64 *end)
{
  *start = attr_i (n, "start", 0);
  *end = attr_i (n, "end", rank);
  if (*start < 0)
    *start += rank;
  if (*end < 0)
    *end += rank;
  *start = CLAMP (*start, 0, rank);
  *end = CLAMP (*end, *start, rank);
}

static gboolean
rule_shape (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  gint64 start, end;
  shape_range (n, x.rank, &start, &end);
  out->rank = 1;
  out->d[0] = dim_static (end - start);
  return TRUE;
}

static gboolean
rule_scalar (Ctx *c, GraphNode *n, Shape *out)
{
  (void) c;
  (void) n;
  out->rank = 0;
  return TRUE;
}

static gboolean
rule_pad (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 pads[2 * TENSOR_MAX_RANK];
  guint np = 0;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  gsize len = 0;
  const gint64 *p = NULL;
  if (graph_node_get_is (n, "pads", &len, &p))   /* opset < 11 */
    {
      if (len != 2 * (gsize) x.rank)
        return FALSE;
      memcpy (pads, p, len * sizeof (gint64));
      np = (guint) len;
    }
  else if (!ints_of (c, in_at (n, 1), pads, &np) || in_at (n, 3))
    return FALSE;
  if (np != 2 * (guint) x.rank)
    return FALSE;
  *out = x;
  for (int i = 0; i < x.rank; i++)
    out->d[i] = small (pads[i]) && small (pads[i + x.rank])
                  ? dim_add (x.d[i], pads[i] + pads[i + x.rank]) : dim_unknown ();
  return TRUE;
}

/* Resize (X, roi, scales, sizes) from opset 11, (X, scales) at 10, and
 * Upsample (X, scales) at 9: constant scales or sizes. */
static gboolean
rule_resize (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  gboolean v11 = graph_node_is (n, "onnx::Resize") && c->opset >= 11;
  GraphValue *scales_v = in_at (n, v11 ? 2 : 1);
  GraphValue *sizes_v = v11 ? in_at (n, 3) : NULL;
  *out = x;
  DimVec sizes;
  if (sizes_v && data_of (c, sizes_v, &sizes) && sizes.n == (guint) x.rank && !sizes.scalar)
    {
      for (int i = 0; i < x.rank; i++)
        out->d[i] = sizes.v[i];
      return TRUE;
    }
  Tensor *s = const_tensor (scales_v);
  if (s == NULL || tensor_numel (s) != x.rank || !graph_dtype_is_floating (tensor_dtype (s)))
    return FALSE;
  for (int i = 0; i < x.rank; i++)
    {
      double f = tensor_get_double (s, i);
      if (f == 1.0)
        continue;
      out->d[i] = x.d[i].kind == GRAPH_DIM_STATIC && f > 0 && f * (double) x.d[i].value < 1e15
                    ? dim_static ((gint64) (f * (double) x.d[i].value)) : dim_unknown ();
    }
  return TRUE;
}

/* LSTM, GRU, RNN: Y [seq, dirs, batch, hidden], Y_h and Y_c [dirs, batch,
 * hidden]; layout=1 puts batch first. */
static gboolean
rule_rnn (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 hidden = attr_i (n, "hidden_size", -1);
  if (!shape_of (c, in_at (n, 0), &x) || x.rank != 3 || hidden <= 0)
    return FALSE;
  const char *dir = "forward";
  graph_node_get_s (n, "direction", &dir, NULL);
  GraphDim dirs = dim_static (strcmp (dir, "bidirectional") == 0 ? 2 : 1);
  gboolean batch_first = attr_i (n, "layout", 0) != 0;
  GraphDim seq = x.d[batch_first ? 1 : 0], batch = x.d[batch_first ? 0 : 1], h = dim_static (hidden);
  out[0].rank = 4;
  GraphDim y[4] = { seq, dirs, batch, h }, yb[4] = { batch, seq, dirs, h };
  memcpy (out[0].d, batch_first ? yb : y, sizeof y);
  GraphDim s[3] = { dirs, batch, h }, sb[3] = { batch, dirs, h };
  for (guint i = 1; i < graph_node_n_outputs (n); i++)
    {
      out[i].rank = 3;
      memcpy (out[i].d, batch_first ? sb : s, sizeof s);
    }
  return TRUE;
}

static gboolean
rule_constant_of_shape (Ctx *c, GraphNode *n, Shape *out)
{
  DimVec sh;
  if (!data_of (c, in_at (n, 0), &sh) || sh.scalar)
    return FALSE;
  out->rank = (int) sh.n;
  for (guint i = 0; i < sh.n; i++)
    out->d[i] = sh.v[i].kind == GRAPH_DIM_STATIC && sh.v[i].value < 0 ? dim_unknown () : sh.v[i];
  return TRUE;
}

static gboolean
rule_expand (Ctx *c, GraphNode *n, Shape *out)
{
  Shape s[2];
  DimVec sh;
  if (!shape_of (c, in_at (n, 0), &s[0]) || !data_of (c, in_at (n, 1), &sh) || sh.scalar)
    return FALSE;
  s[1].rank = (int) sh.n;
  memcpy (s[1].d, sh.v, sh.n * sizeof (GraphDim));
  int rank = MAX (s[0].rank, s[1].rank);
  out->rank = rank;
  for (int k = 0; k < rank; k++)
    {
      GraphDim ds[2];
      guint m = 0;
      for (int i = 0; i < 2; i++)
        if (k - (rank - s[i].rank) >= 0)
          ds[m++] = s[i].d[k - (rank - s[i].rank)];
      out->d[k] = dim_broadcast (ds, m);
    }
  return TRUE;
}

/* Reduce*, ArgMax/ArgMin: axes (attribute, or input 1 for ReduceSum from
 * 13 and the others from 18), keepdims. */
static gboolean
rule_reduce (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 axes[TENSOR_MAX_RANK];
  guint na = 0;
  gboolean present = TRUE;
  if (!shape_of (c, in_at (n, 0), &x))
    return FALSE;
  const char *op = graph_node_op_type (n);
  if (strcmp (op, "ArgMax") == 0 || strcmp (op, "ArgMin") == 0)
    {
      axes[0] = attr_i (n, "axis", 0);
      na = 1;
    }
  else if (!axes_of (c, n, 1, axes, &na, &present))
    return FALSE;
  gboolean keep = attr_i (n, "keepdims", 1) != 0;
  gboolean red[TENSOR_MAX_RANK] = { FALSE };
  if (!present || na == 0)
    {
      if (attr_i (n, "noop_with_empty_axes", 0))
        {
          *out = x;
          return TRUE;
        }
      for (int i = 0; i < x.rank; i++)
        red[i] = TRUE;
    }
  for (guint i = 0; i < na; i++)
    {
      if (!norm_axis (&axes[i], x.rank))
        return FALSE;
      red[axes[i]] = TRUE;
    }
  out->rank = 0;
  for (int i = 0; i < x.rank; i++)
    if (!red[i])
      out->d[out->rank++] = x.d[i];
    else if (keep)
      out->d[out->rank++] = dim_static (1);
  return TRUE;
}

static gboolean
rule_tile (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  DimVec rep;
  if (!shape_of (c, in_at (n, 0), &x) || !data_of (c, in_at (n, 1), &rep)
      || rep.n != (guint) x.rank)
    return FALSE;
  *out = x;
  for (int i = 0; i < x.rank; i++)
    out->d[i] = dim_mul (x.d[i], rep.v[i]);
  return TRUE;
}

/* ---- the op table -------------------------------------------------------- */

/* Output element types, for outputs whose traced type did not say. */
typedef enum { DT_SAME, DT_BOOL, DT_INT64, DT_CAST } DTypeRule;

typedef struct
{
  const char *op;
  ShapeRule   rule;
  DTypeRule   dtype;
} OpRule;

static const OpRule op_rules[] = {
  /* element-wise unary and shape-preserving ops */
  { "Abs", rule_same, DT_SAME }, { "Acos", rule_same, DT_SAME }, { "Acosh", rule_same, DT_SAME },
  { "Asin", rule_same, DT_SAME }, { "Asinh", rule_same, DT_SAME }, { "Atan", rule_same, DT_SAME },
  { "Atanh", rule_same, DT_SAME }, { "Ceil", rule_same, DT_SAME }, { "Celu", rule_same, DT_SAME },
  { "Clip", rule_same, DT_SAME }, { "Cos", rule_same, DT_SAME }, { "Cosh", rule_same, DT_SAME },
  { "CumSum", rule_same, DT_SAME }, { "Elu", rule_same, DT_SAME }, { "Erf", rule_same, DT_SAME },
  { "Exp", rule_same, DT_SAME }, { "Floor", rule_same, DT_SAME },
  { "HardSigmoid", rule_same, DT_SAME }, { "HardSwish", rule_same, DT_SAME },
  { "Hardmax", rule_same, DT_SAME }, { "IsInf", rule_same, DT_BOOL },
  { "IsNaN", rule_same, DT_BOOL }, { "LeakyRelu", rule_same, DT_SAME },
  { "Log", rule_same, DT_SAME }, { "LogSoftmax", rule_same, DT_SAME },
  { "LRN", rule_same, DT_SAME }, { "MeanVarianceNormalization", rule_same, DT_SAME },
  { "Mish", rule_same, DT_SAME }, { "Neg", rule_same, DT_SAME }, { "Not", rule_same, DT_BOOL },
  { "Reciprocal", rule_same, DT_SAME }, { "Relu", rule_same, DT_SAME },
  { "Round", rule_same, DT_SAME }, { "Selu", rule_same, DT_SAME },
  { "Shrink", rule_same, DT_SAME }, { "Sigmoid", rule_same, DT_SAME },
  { "Sign", rule_same, DT_SAME }, { "Sin", rule_same, DT_SAME }, { "Sinh", rule_same, DT_SAME },
  { "Softmax", rule_same, DT_SAME }, { "Softplus", rule_same, DT_SAME },
  { "Softsign", rule_same, DT_SAME }, { "Sqrt", rule_same, DT_SAME },
  { "Tan", rule_same, DT_SAME }, { "Tanh", rule_same, DT_SAME },
  { "ThresholdedRelu", rule_same, DT_SAME }, { "Trilu", rule_same, DT_SAME },
  { "BatchNormalization", rule_same, DT_SAME }, { "InstanceNormalization", rule_same, DT_SAME },
  { "Dropout", rule_same, DT_SAME }, { "Identity", rule_same, DT_SAME },
  { "Cast", rule_same, DT_CAST }, { "CastLike", rule_same, DT_SAME },
  /* broadcasting */
  { "Add", rule_broadcast, DT_SAME }, { "Sub", rule_broadcast, DT_SAME },
  { "Mul", rule_broadcast, DT_SAME }, { "Div", rule_broadcast, DT_SAME },
  { "Pow", rule_broadcast, DT_SAME }, { "Mod", rule_broadcast, DT_SAME },
  { "PRelu", rule_broadcast, DT_SAME }, { "Max", rule_broadcast, DT_SAME },
  { "Min", rule_broadcast, DT_SAME }, { "Sum", rule_broadcast, DT_SAME },
  { "Mean", rule_broadcast, DT_SAME }, { "BitShift", rule_broadcast, DT_SAME },
  { "And", rule_broadcast, DT_BOOL }, { "Or", rule_broadcast, DT_BOOL },
  { "Xor", rule_broadcast, DT_BOOL }, { "Equal", rule_broadcast, DT_BOOL },
  { "Less", rule_broadcast, DT_BOOL }, { "LessOrEqual", rule_broadcast, DT_BOOL },
  { "Greater", rule_broadcast, DT_BOOL }, { "GreaterOrEqual", rule_broadcast, DT_BOOL },
  /* Where's output type is its input 1's: traced types always say it. */
  { "Where", rule_broadcast, DT_SAME },
  /* convolution and pooling */
  { "Conv", rule_conv, DT_SAME }, { "ConvTranspose", rule_conv_transpose, DT_SAME },
  { "MaxPool", rule_pool, DT_SAME }, { "AveragePool", rule_pool, DT_SAME },
  { "LpPool", rule_pool, DT_SAME }, { "GlobalAveragePool", rule_global_pool, DT_SAME },
  { "GlobalMaxPool", rule_global_pool, DT_SAME }, { "GlobalLpPool", rule_global_pool, DT_SAME },
  /* linear algebra */
  { "Gemm", rule_gemm, DT_SAME }, { "MatMul", rule_matmul, DT_SAME },
  /* shape manipulation */
  { "Flatten", rule_flatten, DT_SAME }, { "Reshape", rule_reshape, DT_SAME },
  { "Transpose", rule_transpose, DT_SAME }, { "Concat", rule_concat, DT_SAME },
  { "Split", rule_split, DT_SAME }, { "Slice", rule_slice, DT_SAME },
  { "Squeeze", rule_squeeze, DT_SAME }, { "Unsqueeze", rule_unsqueeze, DT_SAME },
  { "Gather", rule_gather, DT_SAME }, { "Shape", rule_shape, DT_INT64 },
  { "Size", rule_scalar, DT_INT64 }, { "Pad", rule_pad, DT_SAME },
  { "Resize", rule_resize, DT_SAME }, { "Upsample", rule_resize, DT_SAME },
  { "ConstantOfShape", rule_constant_of_shape, DT_SAME }, { "Expand", rule_expand, DT_SAME },
  { "Tile", rule_tile, DT_SAME },
  /* reductions */
  { "ReduceMean", rule_reduce, DT_SAME }, { "ReduceSum", rule_reduce, DT_SAME },
  { "ReduceMax", rule_reduce, DT_SAME }, { "ReduceMin", rule_reduce, DT_SAME },
  { "ReduceProd", rule_reduce, DT_SAME }, { "ReduceL1", rule_reduce, DT_SAME },
  { "ReduceL2", rule_reduce, DT_SAME }, { "ReduceLogSumExp", rule_reduce, DT_SAME },
  { "ReduceSumSquare", rule_reduce, DT_SAME }, { "ArgMax", rule_reduce, DT_INT64 },
  { "ArgMin", rule_reduce, DT_INT64 },
  /* recurrent */
  { "LSTM", rule_rnn, DT_SAME }, { "GRU", rule_rnn, DT_SAME }, { "RNN", rule_rnn, DT_SAME },
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
      gboolean st = x.kind == GRAPH_DIM_STATIC && y.kind == GRAPH_DIM_STATIC && small (x.value)
                    && small (y.value);
      GraphDim r = dim_unknown ();
      if (strcmp (op, "Mul") == 0)
        r = dim_mul (x, y);
      else if (strcmp (op, "Add") == 0)
        r = st ? dim_static (x.value + y.value)
            : y.kind == GRAPH_DIM_STATIC ? dim_add (x, y.value)
            : x.kind == GRAPH_DIM_STATIC ? dim_add (y, x.value) : dim_unknown ();
      else if (strcmp (op, "Sub") == 0)
        r = st ? dim_static (x.value - y.value)
            : y.kind == GRAPH_DIM_STATIC && y.value == 0 ? x : dim_unknown ();
      else if (strcmp (op, "Div") == 0)
        /* ONNX integer Div truncates; shape values are non-negative. */
        r = st && y.value != 0 ? dim_static (x.value / y.value)
            : is_static (&y, 1) ? x : dim_unknown ();
      out->v[i] = r;
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
      if (!shape_of (c, in_at (n, 0), &x))
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
      if (!shape_of (c, in_at (n, 0), &x))
        return FALSE;
      out->n = 1;
      out->scalar = TRUE;
      out->v[0] = dims_product (&x, 0, x.rank);
      return TRUE;
    }
  DimVec a, b;
  if (!data_of (c, in_at (n, 0), &a))
    return FALSE;
  if (strcmp (op, "Identity") == 0 || strcmp (op, "Cast") == 0)
    {
      gint64 to = attr_i (n, "to", GRAPH_DTYPE_INT64);
      *out = a;
      return graph_dtype_is_integer ((GraphDType) to);
    }
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
      if (a.scalar || attr_i (n, "axis", 0) != 0 || !data_of (c, in_at (n, 1), &iv)
          || !ints_of (c, in_at (n, 1), idx, &ni))
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
          if (!data_of (c, graph_node_input (n, i), &b) || out->n + b.n > TENSOR_MAX_RANK)
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
      if (a.scalar || graph_node_n_inputs (n) < 3 || !ints_of (c, in_at (n, 1), s, &ns)
          || !ints_of (c, in_at (n, 2), e, &ne) || ns != 1 || ne != 1
          || (in_at (n, 3) && (!ints_of (c, in_at (n, 3), &ax, &k) || k != 1))
          || (in_at (n, 4) && (!ints_of (c, in_at (n, 4), &st, &k) || k != 1))
          || (ax != 0 && ax != -1) || st == 0)
        return FALSE;
      GraphDim len = slice_dim (dim_static (a.n), s[0], e[0], st);
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
    return data_of (c, in_at (n, 1), &b) && data_arith (op, &a, &b, out);
  return FALSE;
}

/* ---- the pass ------------------------------------------------------------ */

static GraphDType
output_dtype (GraphNode *n, const OpRule *r)
{
  switch (r->dtype)
    {
    case DT_BOOL:
      return GRAPH_DTYPE_BOOL;
    case DT_INT64:
      return GRAPH_DTYPE_INT64;
    case DT_CAST:
      {
        gint64 to = attr_i (n, "to", GRAPH_DTYPE_UNDEFINED);
        return graph_dtype_is_valid ((int) to) ? (GraphDType) to : GRAPH_DTYPE_UNDEFINED;
      }
    case DT_SAME:
    default:
      {
        /* Gather's data, ConstantOfShape's value, else input 0 */
        Tensor *v = NULL;
        if (graph_node_is (n, "onnx::ConstantOfShape"))
          return graph_node_get_t (n, "value", &v) ? tensor_dtype (v) : GRAPH_DTYPE_FLOAT;
        GraphValue *in = in_at (n, 0);
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
    dt = output_dtype (n, r);
  Shape fallback = { .rank = rank };
  if (s == NULL || (rank >= 0 && s->rank != rank))
    {
      for (int k = 0; k < rank; k++)
        fallback.d[k] = dim_unknown ();
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

void
export_infer_shapes (Graph *g, GHashTable *dynamic_inputs)
{
  Ctx c = {
    .g = g,
    .opset = (int) graph_get_opset (g, ""),
    .tainted = g_hash_table_new (NULL, NULL),
    .shapes = g_hash_table_new_full (NULL, NULL, NULL, g_free),
    .data = g_hash_table_new_full (NULL, NULL, NULL, g_free),
  };
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, dynamic_inputs);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      Shape s;
      g_hash_table_add (c.tainted, key);
      if (shape_of (&c, key, &s))
        g_hash_table_insert (c.shapes, key, g_memdup2 (&s, sizeof s));
    }
  graph_foreach_node (g, n)
    {
      gboolean hit = FALSE;
      for (guint i = 0; i < graph_node_n_inputs (n) && !hit; i++)
        hit = graph_node_input (n, i) && g_hash_table_contains (c.tainted, graph_node_input (n, i));
      guint nout = graph_node_n_outputs (n);
      const OpRule *r = find_rule (n);
      if (hit)
        {
          Shape *out = g_new0 (Shape, MAX (nout, 1));
          gboolean ok = r && nout > 0 && r->rule (&c, n, out);
          for (guint i = 0; i < nout; i++)
            set_shape (&c, n, i, ok ? &out[i] : NULL, r);
          g_free (out);
        }
      else if (r && nout == 1 && !has_rank (graph_node_output (n, 0)))
        {
          /* Not dynamic, but its traced type says too little to feed a
           * dynamic node (a Transpose of a weight): computed, not written. */
          Shape out;
          if (r->rule (&c, n, &out))
            g_hash_table_insert (c.shapes, graph_node_output (n, 0), g_memdup2 (&out, sizeof out));
        }
      DimVec d;
      if (nout == 1 && data_rule (&c, n, &d))
        g_hash_table_insert (c.data, graph_node_output (n, 0), g_memdup2 (&d, sizeof d));
    }
  g_hash_table_unref (c.tainted);
  g_hash_table_unref (c.shapes);
  g_hash_table_unref (c.data);
}
