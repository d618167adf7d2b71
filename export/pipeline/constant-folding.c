/* Constant folding and scalar type analysis on the exported graph.
 *
 * Folding evaluates nodes whose inputs are all onnx::Constant outputs or
 * initializers, and Shape of a value whose shape is fully static (dynamic
 * axes run first: a value downstream of a dynamic input has its symbolic or
 * unknown dims by then, so its Shape stays).  A result computed from weights becomes an initializer; one
 * computed from constants only becomes a Constant node, as torch does. */
#include "export/export.h"
#include "symbolic/translate.h"
#include <string.h>

/* Largest folded tensor, in elements (bad-input guard). */
#define FOLD_MAX_NUMEL (G_GINT64_CONSTANT (1) << 26)

static Tensor *
const_of (GraphValue *v, gboolean *from_weight)
{
  if (v == NULL)
    return NULL;
  Tensor *t = graph_value_get_initializer (v);
  if (t)
    {
      /* An initializer kept as an input may be overridden at run time. */
      if (graph_value_initializer_is_input (v))
        return NULL;
      *from_weight = TRUE;
      return tensor_has_data (t) ? t : NULL;
    }
  t = graph_value_constant_tensor (v);
  return t && tensor_has_data (t) ? t : NULL;
}

static gint64
norm_axis (gint64 a, gint64 rank)
{
  return a < 0 ? a + rank : a;
}

static Tensor *
new_like_bytes (GraphDType dt, guint rank, const gint64 *dims, GError **error)
{
  gint64 numel;
  if (!tensor_shape_numel (rank, dims, &numel) || numel > FOLD_MAX_NUMEL)
    {
      g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH, "folded tensor too large");
      return NULL;
    }
  return tensor_new_zeroed (dt, rank, dims, error);
}

/* Gather along axis with an int index tensor. */
static Tensor *
fold_gather (const Tensor *data, const Tensor *idx, gint64 axis, GError **error)
{
  guint r = tensor_rank (data);
  if (r == 0)
    return NULL;
  axis = norm_axis (axis, r);
  if (axis < 0 || axis >= (gint64) r || !graph_dtype_is_integer (tensor_dtype (idx)))
    return NULL;
  gint64 dims[TENSOR_MAX_RANK];
  guint k = 0;
  for (gint64 i = 0; i < axis; i++)
    dims[k++] = tensor_dim (data, (guint) i);
  for (guint i = 0; i < tensor_rank (idx); i++)
    dims[k++] = tensor_dim (idx, i);
  for (guint i = (guint) axis + 1; i < r; i++)
    dims[k++] = tensor_dim (data, i);
  if (k > TENSOR_MAX_RANK)
    return NULL;
  gsize es = graph_dtype_size (tensor_dtype (data));
  if (es == 0)
    return NULL;
  Tensor *out = new_like_bytes (tensor_dtype (data), k, dims, error);
  if (out == NULL)
    return NULL;
  gint64 outer = 1, inner = 1, n = tensor_dim (data, (guint) axis);
  for (gint64 i = 0; i < axis; i++)
    outer *= tensor_dim (data, (guint) i);
  for (guint i = (guint) axis + 1; i < r; i++)
    inner *= tensor_dim (data, i);
  gint64 ni = tensor_numel (idx);
  const guint8 *src = tensor_data (data);
  guint8 *dst = (guint8 *) tensor_data (out);
  for (gint64 o = 0; o < outer; o++)
    for (gint64 j = 0; j < ni; j++)
      {
        gint64 ix = tensor_get_int64 (idx, j);
        if (ix < 0)
          ix += n;
        if (ix < 0 || ix >= n)
          {
            tensor_unref (out);
            g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH,
                         "Gather index %" G_GINT64_FORMAT " out of range 0..%" G_GINT64_FORMAT,
                         ix, n - 1);
            return NULL;
          }
        memcpy (dst + (gsize) ((o * ni + j) * inner) * es, src + (gsize) ((o * n + ix) * inner) * es,
                (gsize) inner * es);
      }
  return out;
}

static Tensor *
fold_concat (GraphNode *n, Tensor **ins, guint nin, GError **error)
{
  gint64 axis;
  if (!graph_node_get_i (n, "axis", &axis) || nin == 0)
    return NULL;
  guint r = tensor_rank (ins[0]);
  axis = norm_axis (axis, r);
  if (axis < 0 || axis >= (gint64) r)
    return NULL;
  gint64 dims[TENSOR_MAX_RANK];
  memcpy (dims, tensor_dims (ins[0]), r * sizeof (gint64));
  dims[axis] = 0;
  for (guint i = 0; i < nin; i++)
    {
      if (tensor_rank (ins[i]) != r || tensor_dtype (ins[i]) != tensor_dtype (ins[0]))
        return NULL;
      for (guint d = 0; d < r; d++)
        if ((gint64) d != axis && tensor_dim (ins[i], d) != tensor_dim (ins[0], d))
          return NULL;
      dims[axis] += tensor_dim (ins[i], (guint) axis);
    }
  gsize es = graph_dtype_size (tensor_dtype (ins[0]));
  if (es == 0)
    return NULL;
  Tensor *out = new_like_bytes (tensor_dtype (ins[0]), r, dims, error);
  if (out == NULL)
    return NULL;
  gint64 outer = 1, inner = 1;
  for (gint64 i = 0; i < axis; i++)
    outer *= dims[i];
  for (guint i = (guint) axis + 1; i < r; i++)
    inner *= dims[i];
  guint8 *dst = (guint8 *) tensor_data (out);
  for (gint64 o = 0; o < outer; o++)
    for (guint i = 0; i < nin; i++)
      {
        gsize chunk = (gsize) (tensor_dim (ins[i], (guint) axis) * inner) * es;
        memcpy (dst, (const guint8 *) tensor_data (ins[i]) + (gsize) o * chunk, chunk);
        dst += chunk;
      }
  return out;
}

/* Same bytes, new shape. */
static Tensor *
reshaped (const Tensor *t, guint rank, const gint64 *dims, GError **error)
{
  return tensor_new (tensor_dtype (t), rank, dims, tensor_bytes (t), error);
}

static gboolean
axes_of (GraphNode *n, Tensor **ins, guint nin, guint slot, gint64 *axes, gsize *na)
{
  gsize len;
  const gint64 *v;
  if (graph_node_get_is (n, "axes", &len, &v))
    {
      if (len > TENSOR_MAX_RANK)
        return FALSE;
      memcpy (axes, v, len * sizeof (gint64));
      *na = len;
      return TRUE;
    }
  if (nin > slot && ins[slot])
    {
      gint64 k = tensor_numel (ins[slot]);
      if (k > TENSOR_MAX_RANK)
        return FALSE;
      for (gint64 i = 0; i < k; i++)
        axes[i] = tensor_get_int64 (ins[slot], i);
      *na = (gsize) k;
      return TRUE;
    }
  *na = 0;
  return TRUE;
}

static Tensor *
fold_unsqueeze (GraphNode *n, Tensor **ins, guint nin, GError **error)
{
  gint64 axes[TENSOR_MAX_RANK];
  gsize na;
  if (!axes_of (n, ins, nin, 1, axes, &na) || na == 0)
    return NULL;
  guint r = tensor_rank (ins[0]) + (guint) na;
  if (r > TENSOR_MAX_RANK)
    return NULL;
  gboolean is_new[TENSOR_MAX_RANK] = { 0 };
  for (gsize i = 0; i < na; i++)
    {
      gint64 a = norm_axis (axes[i], r);
      if (a < 0 || a >= (gint64) r)
        return NULL;
      is_new[a] = TRUE;
    }
  gint64 dims[TENSOR_MAX_RANK];
  guint k = 0;
  for (guint i = 0; i < r; i++)
    dims[i] = is_new[i] ? 1 : tensor_dim (ins[0], k++);
  return reshaped (ins[0], r, dims, error);
}

static Tensor *
fold_squeeze (GraphNode *n, Tensor **ins, guint nin, GError **error)
{
  gint64 axes[TENSOR_MAX_RANK];
  gsize na;
  guint r = tensor_rank (ins[0]);
  if (!axes_of (n, ins, nin, 1, axes, &na))
    return NULL;
  gboolean drop[TENSOR_MAX_RANK] = { 0 };
  for (guint i = 0; i < r && na == 0; i++)
    drop[i] = tensor_dim (ins[0], i) == 1;
  for (gsize i = 0; i < na; i++)
    {
      gint64 a = norm_axis (axes[i], r);
      if (a < 0 || a >= (gint64) r || tensor_dim (ins[0], (guint) a) != 1)
        return NULL;
      drop[a] = TRUE;
    }
  gint64 dims[TENSOR_MAX_RANK];
  guint k = 0;
  for (guint i = 0; i < r; i++)
    if (!drop[i])
      dims[k++] = tensor_dim (ins[0], i);
  return reshaped (ins[0], k, dims, error);
}

static Tensor *
fold_reshape (Tensor **ins, guint nin, GError **error)
{
  if (nin < 2 || ins[1] == NULL || tensor_rank (ins[1]) != 1)
    return NULL;
  gint64 k = tensor_numel (ins[1]);
  if (k > TENSOR_MAX_RANK)
    return NULL;
  gint64 dims[TENSOR_MAX_RANK], known = 1;
  int infer = -1;
  for (gint64 i = 0; i < k; i++)
    {
      dims[i] = tensor_get_int64 (ins[1], i);
      if (dims[i] == 0 && i < (gint64) tensor_rank (ins[0]))
        dims[i] = tensor_dim (ins[0], (guint) i);
      if (dims[i] == -1)
        {
          if (infer >= 0)
            return NULL;
          infer = (int) i;
        }
      else if (dims[i] < 0)
        return NULL;
      else
        known *= dims[i];
    }
  if (infer >= 0)
    {
      if (known == 0 || tensor_numel (ins[0]) % known != 0)
        return NULL;
      dims[infer] = tensor_numel (ins[0]) / known;
    }
  return reshaped (ins[0], (guint) k, dims, error);
}

/* A new tensor of shape dims whose element idx is t's element at
 * base + sum (idx[d] * stride[d]): what slicing and transposing are. */
static Tensor *
copy_strided (const Tensor *t, guint r, const gint64 *dims, gint64 base, const gint64 *stride,
              GError **error)
{
  gsize es = graph_dtype_size (tensor_dtype (t));
  if (es == 0)
    return NULL;
  Tensor *out = new_like_bytes (tensor_dtype (t), r, dims, error);
  if (out == NULL)
    return NULL;
  gint64 total = tensor_numel (out), idx[TENSOR_MAX_RANK] = { 0 };
  guint8 *dst = (guint8 *) tensor_data (out);
  const guint8 *src = tensor_data (t);
  /* The trailing axes that are contiguous in t (a unit-stride last axis,
   * and each axis before it whose stride spans the axes after it: slicing
   * weights, as the LSTM gate reordering does) are copied as one run. */
  gint64 run = 1;
  guint outer = r;
  while (outer > 0 && stride[outer - 1] == run)
    run *= dims[--outer];
  for (gint64 e = 0; e < total; e += run)
    {
      gint64 off = base;
      for (guint d = 0; d < outer; d++)
        off += idx[d] * stride[d];
      memcpy (dst + (gsize) e * es, src + (gsize) off * es, (gsize) run * es);
      for (guint d = outer; d-- > 0;)
        {
          if (++idx[d] < dims[d])
            break;
          idx[d] = 0;
        }
    }
  return out;
}

/* Slice with constant starts/ends/axes/steps (attributes before 10). */
static Tensor *
fold_slice (GraphNode *n, Tensor **ins, guint nin, GError **error)
{
  const Tensor *t = ins[0];
  guint r = tensor_rank (t);
  gint64 starts[TENSOR_MAX_RANK], ends[TENSOR_MAX_RANK], axes[TENSOR_MAX_RANK], steps[TENSOR_MAX_RANK];
  gsize ns;
  const gint64 *v;
  if (graph_node_get_is (n, "starts", &ns, &v))
    {
      gsize ne;
      const gint64 *e;
      if (ns > r || !graph_node_get_is (n, "ends", &ne, &e) || ne != ns)
        return NULL;
      memcpy (starts, v, ns * sizeof (gint64));
      memcpy (ends, e, ns * sizeof (gint64));
      gsize na;
      const gint64 *a;
      for (gsize i = 0; i < ns; i++)
        axes[i] = (gint64) i, steps[i] = 1;
      if (graph_node_get_is (n, "axes", &na, &a) && na == ns)
        memcpy (axes, a, ns * sizeof (gint64));
    }
  else
    {
      if (nin < 3 || !ins[1] || !ins[2])
        return NULL;
      ns = (gsize) tensor_numel (ins[1]);
      if (ns > r || (gsize) tensor_numel (ins[2]) != ns)
        return NULL;
      for (gsize i = 0; i < ns; i++)
        {
          starts[i] = tensor_get_int64 (ins[1], (gint64) i);
          ends[i] = tensor_get_int64 (ins[2], (gint64) i);
          axes[i] = nin > 3 && ins[3] && (gsize) tensor_numel (ins[3]) == ns
                      ? tensor_get_int64 (ins[3], (gint64) i) : (gint64) i;
          steps[i] = nin > 4 && ins[4] && (gsize) tensor_numel (ins[4]) == ns
                       ? tensor_get_int64 (ins[4], (gint64) i) : 1;
        }
    }
  gint64 lo[TENSOR_MAX_RANK], st[TENSOR_MAX_RANK], dims[TENSOR_MAX_RANK];
  for (guint d = 0; d < r; d++)
    lo[d] = 0, st[d] = 1, dims[d] = tensor_dim (t, d);
  for (gsize i = 0; i < ns; i++)
    {
      gint64 a = norm_axis (axes[i], r);
      if (a < 0 || a >= (gint64) r || steps[i] == 0)
        return NULL;
      gint64 len = tensor_dim (t, (guint) a);
      gint64 s = starts[i], e = ends[i];
      if (s < 0)
        s += len;
      if (e < 0 && e > G_MININT64 / 2)
        e += len;
      if (steps[i] > 0)
        {
          s = CLAMP (s, 0, len);
          e = CLAMP (e, 0, len);
          dims[a] = e > s ? (e - s + steps[i] - 1) / steps[i] : 0;
        }
      else
        {
          s = CLAMP (s, -1, len - 1);
          e = CLAMP (e, -1, len - 1);
          dims[a] = s > e ? (s - e + (-steps[i]) - 1) / (-steps[i]) : 0;
        }
      lo[a] = s;
      st[a] = steps[i];
    }
  /* element offsets in t: row-major strides times the slice steps */
  gint64 base = 0, stride[TENSOR_MAX_RANK], sstride = 1;
  for (guint d = r; d-- > 0;)
    {
      base += lo[d] * sstride;
      stride[d] = st[d] * sstride;
      sstride *= tensor_dim (t, d);
    }
  return copy_strided (t, r, dims, base, stride, error);
}

static Tensor *
fold_transpose (GraphNode *n, const Tensor *t, GError **error)
{
  guint r = tensor_rank (t);
  gint64 perm[TENSOR_MAX_RANK];
  gsize np;
  const gint64 *pv;
  if (graph_node_get_is (n, "perm", &np, &pv))
    {
      if (np != r)
        return NULL;
      memcpy (perm, pv, np * sizeof (gint64));
    }
  else
    for (guint i = 0; i < r; i++)
      perm[i] = r - 1 - i;
  gint64 dims[TENSOR_MAX_RANK], sstride[TENSOR_MAX_RANK], stride[TENSOR_MAX_RANK];
  gint64 s = 1;
  for (guint d = r; d-- > 0;)
    {
      sstride[d] = s;
      s *= tensor_dim (t, d);
    }
  for (guint d = 0; d < r; d++)
    {
      if (perm[d] < 0 || perm[d] >= (gint64) r)
        return NULL;
      dims[d] = tensor_dim (t, (guint) perm[d]);
      stride[d] = sstride[perm[d]];
    }
  return copy_strided (t, r, dims, 0, stride, error);
}

/* Element-wise arithmetic where one side is a single element or both have
 * the same shape (what shape computations produce). */
/* The numpy broadcast of a and b's shapes into dims; FALSE when they do
 * not broadcast (then nothing is folded: the run reports it). */
static gboolean
broadcast_shape (const Tensor *a, const Tensor *b, guint *rank, gint64 *dims)
{
  guint ra = tensor_rank (a), rb = tensor_rank (b), r = MAX (ra, rb);
  for (guint i = 0; i < r; i++)
    {
      gint64 da = i + ra >= r ? tensor_dims (a)[i + ra - r] : 1;
      gint64 db = i + rb >= r ? tensor_dims (b)[i + rb - r] : 1;
      if (da != db && da != 1 && db != 1)
        return FALSE;
      dims[i] = da == 1 ? db : da;
    }
  *rank = r;
  return TRUE;
}

/* The flat index into t of the element at out's flat index i. */
static gint64
broadcast_index (const Tensor *t, guint rank, const gint64 *dims, gint64 i)
{
  guint rt = tensor_rank (t);
  gint64 idx = 0, stride = 1;
  for (guint k = rank; k-- > 0;)
    {
      gint64 coord = i % dims[k];
      i /= dims[k];
      if (k + rt >= rank)
        {
          gint64 d = tensor_dims (t)[k + rt - rank];
          idx += (d == 1 ? 0 : coord) * stride;
          stride *= d;
        }
    }
  return idx;
}

/* Add/Sub/Mul/Div of two constants with numpy broadcasting.  Integers are
 * computed in int64 (wrapping, as the executor and numpy do), floats in
 * double then narrowed. */
static Tensor *
fold_binary (const char *op, const Tensor *a, const Tensor *b, GError **error)
{
  if (tensor_dtype (a) != tensor_dtype (b))
    return NULL;
  GraphDType dt = tensor_dtype (a);
  if (dt != GRAPH_DTYPE_INT64 && dt != GRAPH_DTYPE_FLOAT && dt != GRAPH_DTYPE_DOUBLE
      && dt != GRAPH_DTYPE_INT32)
    return NULL;
  gint64 dims[TENSOR_MAX_RANK];
  guint rank;
  if (!broadcast_shape (a, b, &rank, dims))
    return NULL;
  gboolean integer = graph_dtype_is_integer (dt);
  g_autoptr (Tensor) d = new_like_bytes (integer ? GRAPH_DTYPE_INT64 : GRAPH_DTYPE_DOUBLE, rank,
                                         dims, error);
  if (d == NULL)
    return NULL;
  gint64 n = tensor_numel (d);
  for (gint64 i = 0; i < n; i++)
    {
      gint64 ia = broadcast_index (a, rank, dims, i), ib = broadcast_index (b, rank, dims, i);
      if (integer)
        {
          guint64 x = (guint64) tensor_get_int64 (a, ia), y = (guint64) tensor_get_int64 (b, ib);
          gint64 *out = (gint64 *) tensor_data (d);
          if (strcmp (op, "Add") == 0) out[i] = (gint64) (x + y);
          else if (strcmp (op, "Sub") == 0) out[i] = (gint64) (x - y);
          else if (strcmp (op, "Mul") == 0) out[i] = (gint64) (x * y);
          else if (strcmp (op, "Div") == 0)
            {
              if (y == 0 || ((gint64) x == G_MININT64 && (gint64) y == -1))
                return NULL;   /* left for the run, which reports or wraps it */
              out[i] = (gint64) x / (gint64) y;
            }
          else
            return NULL;
          continue;
        }
      double x = tensor_get_double (a, ia), y = tensor_get_double (b, ib);
      double *out = (double *) tensor_data (d);
      if (strcmp (op, "Add") == 0) out[i] = x + y;
      else if (strcmp (op, "Sub") == 0) out[i] = x - y;
      else if (strcmp (op, "Mul") == 0) out[i] = x * y;
      else if (strcmp (op, "Div") == 0) out[i] = x / y;
      else
        return NULL;
    }
  return tensor_cast (d, dt, error);
}

/* Evaluates one node; NULL (no error) when it cannot be folded. */
static Tensor *
fold_node (GraphNode *n, Tensor **ins, guint nin, GError **error)
{
  const char *op = graph_node_op_type (n);
  if (strcmp (op, "Identity") == 0)
    return tensor_ref (ins[0]);
  if (strcmp (op, "Gather") == 0 && nin == 2)
    {
      gint64 axis = 0;
      graph_node_get_i (n, "axis", &axis);
      return fold_gather (ins[0], ins[1], axis, error);
    }
  if (strcmp (op, "Concat") == 0)
    return fold_concat (n, ins, nin, error);
  if (strcmp (op, "Unsqueeze") == 0)
    return fold_unsqueeze (n, ins, nin, error);
  if (strcmp (op, "Squeeze") == 0)
    return fold_squeeze (n, ins, nin, error);
  if (strcmp (op, "Reshape") == 0)
    return fold_reshape (ins, nin, error);
  if (strcmp (op, "Slice") == 0)
    return fold_slice (n, ins, nin, error);
  if (strcmp (op, "Transpose") == 0)
    return fold_transpose (n, ins[0], error);
  if (strcmp (op, "Cast") == 0)
    {
      gint64 to;
      if (!graph_node_get_i (n, "to", &to) || !graph_dtype_is_valid ((int) to))
        return NULL;
      g_autoptr (GError) local = NULL;
      return tensor_cast (ins[0], (GraphDType) to, &local);  /* unsupported: not folded */
    }
  if (nin == 2 && (strcmp (op, "Add") == 0 || strcmp (op, "Sub") == 0 || strcmp (op, "Mul") == 0
                   || strcmp (op, "Div") == 0))
    return fold_binary (op, ins[0], ins[1], error);
  return NULL;
}

static gboolean
foldable_kind (GraphNode *n)
{
  static const char *const ops[] = { "Identity", "Gather", "Concat", "Unsqueeze", "Squeeze",
                                     "Reshape", "Slice", "Transpose", "Cast", "Add", "Sub",
                                     "Mul", "Div" };
  if (strcmp (graph_node_domain (n), GRAPH_ONNX_DOMAIN) != 0 || graph_node_n_outputs (n) != 1)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (graph_node_op_type (n), ops[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Rewires old's uses to nv; a graph output keeps its name. */
static void
replace_value (GraphValue *old, GraphValue *nv)
{
  gboolean output = graph_value_is_graph_output (old);
  graph_value_replace_all_uses (old, nv);
  if (output && graph_value_get_name (old))
    {
      g_autofree char *name = g_strdup (graph_value_get_name (old));
      graph_value_set_name (old, NULL);
      graph_value_set_name (nv, name);
    }
}

/* Replaces n's output with `t`: a Constant node, or an initializer when it
 * was computed from weights. */
static void
replace_with (Graph *g, GraphNode *n, Tensor *t, gboolean from_weight)
{
  GraphValue *old = graph_node_output (n, 0);
  GraphValue *nv;
  if (from_weight)
    {
      g_autofree char *name = g_strdup_printf ("onnx::%s_%u", graph_node_op_type (n),
                                               graph_value_id (old));
      nv = graph_add_initializer (g, name, t);
    }
  else
    {
      GraphNode *saved = graph_get_insert_point (g);
      graph_set_insert_point (g, n);
      nv = graph_op (g, "Constant", "value_t", t, NULL);
      graph_set_insert_point (g, saved);
      graph_node_set_scope (graph_value_node (nv), graph_node_get_scope (n));
    }
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (tensor_dtype (t), tensor_rank (t),
                                                           tensor_dims (t));
  graph_value_set_type (nv, ty);
  replace_value (old, nv);
}

/* Slice(ConstantOfShape(shape), constant bounds) is ConstantOfShape of the
 * sliced shape (an RNN's per-layer initial states cut from zeros(...)):
 * rewritten so the fill stays a small node rather than a folded tensor.
 * The slice is evaluated on a 1-byte-per-element stand-in for its shape. */
static gboolean
fold_slice_of_fill (Graph *g, GraphNode *n, GError **error, guint *changes)
{
  guint nin = graph_node_n_inputs (n);
  GraphValue *in = graph_node_input (n, 0);
  GraphNode *fill = in ? graph_value_node (in) : NULL;
  if (fill == NULL || !graph_node_is (fill, "onnx::ConstantOfShape") || nin > 8
      || graph_node_n_inputs (fill) != 1)
    return FALSE;
  gboolean from_weight = FALSE;
  Tensor *shape = const_of (graph_node_input (fill, 0), &from_weight);
  if (shape == NULL || tensor_rank (shape) != 1 || tensor_numel (shape) > TENSOR_MAX_RANK
      || tensor_dtype (shape) != GRAPH_DTYPE_INT64)
    return FALSE;
  gint64 dims[TENSOR_MAX_RANK];
  for (gint64 i = 0; i < tensor_numel (shape); i++)
    dims[i] = tensor_get_int64 (shape, i);
  Tensor *ins[8] = { NULL };
  for (guint i = 1; i < nin; i++)
    {
      GraphValue *v = graph_node_input (n, i);
      ins[i] = v ? const_of (v, &from_weight) : NULL;
      if (v && ins[i] == NULL)
        return FALSE;
    }
  g_autoptr (GError) local = NULL;
  g_autoptr (Tensor) standin = new_like_bytes (GRAPH_DTYPE_UINT8, (guint) tensor_numel (shape),
                                               dims, &local);
  if (standin == NULL)
    return FALSE;  /* too large to evaluate: left as it is */
  ins[0] = standin;
  g_autoptr (Tensor) sliced = fold_slice (n, ins, nin, &local);
  if (local)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "constant folding %s: ",
                                  graph_node_kind (n));
      return FALSE;
    }
  if (sliced == NULL)
    return FALSE;
  GraphNode *saved = graph_get_insert_point (g);
  graph_set_insert_point (g, n);
  g_autoptr (Tensor) new_shape = tensor_new_int64_vector (tensor_rank (sliced),
                                                          tensor_dims (sliced));
  GraphValue *sv = graph_op (g, "Constant", "value_t", new_shape, NULL);
  GraphValue *nv = graph_op (g, "ConstantOfShape", sv, NULL);
  graph_set_insert_point (g, saved);
  graph_node_copy_attrs (graph_value_node (nv), fill);
  graph_node_set_scope (graph_value_node (sv), graph_node_get_scope (n));
  graph_node_set_scope (graph_value_node (nv), graph_node_get_scope (n));
  GraphType *old_t = graph_value_type (graph_node_output (n, 0));
  if (old_t)
    graph_value_set_type (nv, old_t);
  replace_value (graph_node_output (n, 0), nv);
  (*changes)++;
  return TRUE;
}

guint
export_fold_constants (Graph *g, GError **error)
{
  guint changes = 0;
  for (GraphNode *n = graph_first_node (g), *next; n; n = next)
    {
      next = graph_node_next (n);
      guint nin = graph_node_n_inputs (n);
      if (graph_node_is (n, "onnx::Shape") && nin == 1 && graph_node_input (n, 0))
        {
          gint64 dims[TENSOR_MAX_RANK];
          GraphValue *in = graph_node_input (n, 0);
          int r = sym_rank (in);
          if (r >= 0 && graph_node_n_attrs (n) == 0 && sym_static_shape (in, dims))
            {
              g_autoptr (Tensor) t = tensor_new_int64_vector ((gsize) r, dims);
              replace_with (g, n, t, FALSE);
              changes++;
            }
          continue;
        }
      if (graph_node_is (n, "onnx::Slice") && fold_slice_of_fill (g, n, error, &changes))
        continue;
      if (error && *error)
        return G_MAXUINT;
      if (!foldable_kind (n) || nin == 0 || nin > 8)
        continue;
      Tensor *ins[8] = { NULL };
      gboolean from_weight = FALSE, ok = TRUE;
      for (guint i = 0; i < nin && ok; i++)
        {
          GraphValue *v = graph_node_input (n, i);
          ins[i] = v ? const_of (v, &from_weight) : NULL;
          ok = v == NULL || ins[i] != NULL;
        }
      if (!ok || ins[0] == NULL)
        continue;
      g_autoptr (GError) local = NULL;
      g_autoptr (Tensor) t = fold_node (n, ins, nin, &local);
      if (local)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "constant folding %s: ",
                                      graph_node_kind (n));
          return G_MAXUINT;
        }
      if (t == NULL)
        continue;
      replace_with (g, n, t, from_weight);
      changes++;
    }
  graph_eliminate_dead_code (g);
  return changes;
}

/* ------------------------------------------------------------------------ */
/* Scalar type analysis: ONNX's arithmetic and comparison ops want every
 * input of one element type; traces mix a float tensor with an int or
 * double Python scalar.  Scalar constants take the tensor's type; mixed
 * tensors are cast to the promoted type. */

static gboolean
is_scalar_const (GraphValue *v)
{
  Tensor *t = graph_value_constant_tensor (v);
  return t && tensor_rank (t) == 0;
}

static gboolean standard_op (GraphNode *n, guint *first);

/* A value's element type: a constant's or initializer's, its declared
 * type's, or — for an untyped result (built inside a control-flow body from
 * scripted code, whose trace says only "Tensor") — that of the tensor its
 * arithmetic op or If computes it from. */
static GraphDType
value_dtype_at (GraphValue *v, guint depth)
{
  Tensor *t = graph_value_constant_tensor (v);
  if (t)
    return tensor_dtype (t);
  if (v && graph_value_get_initializer (v))
    return tensor_dtype (graph_value_get_initializer (v));
  GraphDType d = sym_dtype (v);
  GraphNode *p = v ? graph_value_node (v) : NULL;
  if (d != GRAPH_DTYPE_UNDEFINED || p == NULL || depth > 32)
    return d;
  guint first;
  Graph *then_b;
  if (graph_node_is (p, "onnx::If") && graph_node_get_g (p, "then_branch", &then_b))
    {
      for (guint i = 0; i < graph_node_n_outputs (p); i++)
        if (graph_node_output (p, i) == v && i < graph_n_outputs (then_b))
          return value_dtype_at (graph_output (then_b, i), depth + 1);
      return d;
    }
  static const char *const keeps_input0_type[] = {
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
    "Neg", "Abs", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Identity", "Transpose", "Reshape",
    "Squeeze", "Unsqueeze", "Slice", "Gather", "GatherND", "Flatten", "Expand", "Softmax", "LogSoftmax",
    "Floor", "Ceil", "Round", "Clip", "Tile", "Pad", "TopK", "ScatterElements", "ScatterND",
  };
  for (guint i = 0; i < G_N_ELEMENTS (keeps_input0_type); i++)
    if (strcmp (graph_node_domain (p), GRAPH_ONNX_DOMAIN) == 0
        && strcmp (graph_node_op_type (p), keeps_input0_type[i]) == 0 && graph_node_n_inputs (p) > 0
        && graph_node_output (p, 0) == v)
      return value_dtype_at (graph_node_input (p, 0), depth + 1);
  if (standard_op (p, &first) && !graph_node_is (p, "onnx::Equal") && !graph_node_is (p, "onnx::Greater")
      && !graph_node_is (p, "onnx::Less") && !graph_node_is (p, "onnx::GreaterOrEqual")
      && !graph_node_is (p, "onnx::LessOrEqual"))
    for (guint i = first; i < graph_node_n_inputs (p); i++)
      {
        GraphValue *in = graph_node_input (p, i);
        Tensor *c = graph_value_constant_tensor (in);
        if (in && !(c && tensor_rank (c) == 0))
          return value_dtype_at (in, depth + 1);
      }
  return d;
}

static GraphDType
value_dtype (GraphValue *v)
{
  return value_dtype_at (v, 0);
}

static gboolean
standard_op (GraphNode *n, guint *first)
{
  static const char *const ops[] = { "Add", "Sub", "Mul", "Div", "Equal", "Greater", "Less",
                                     "GreaterOrEqual", "LessOrEqual", "Max", "Min", "Sum",
                                     "Mean", "Concat", "Mod", "Where", "Gemm" };
  if (strcmp (graph_node_domain (n), GRAPH_ONNX_DOMAIN) != 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (graph_node_op_type (n), ops[i]) == 0)
      {
        *first = strcmp (ops[i], "Where") == 0 ? 1 : 0;
        return TRUE;
      }
  return FALSE;
}

/* The element type a standard op's inputs are cast to (torch's
 * promotion: tensors over scalars, an int tensor with a float scalar is
 * the default dtype); UNDEFINED for other ops or unknown inputs.  A scalar is a 0-d
 * constant, or, beside an operand that is not 0-d, any 0-d value (as
 * torch's scalar type analysis takes them: a scripted forward's `i: int`
 * is a 0-d input, and x_int32 * i is int32 in PyTorch).  *first: the first
 * input it applies to (Where's condition is not). */
static GraphDType
promoted_dtype (GraphNode *n, guint *first, GraphDType default_dtype)
{
  if (!standard_op (n, first))
    return GRAPH_DTYPE_UNDEFINED;
  GraphDType tensor_t = GRAPH_DTYPE_UNDEFINED, scalar_t = GRAPH_DTYPE_UNDEFINED;
  gboolean dimensioned = FALSE;
  for (guint i = *first; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *v = graph_node_input (n, i);
      dimensioned = dimensioned || (v && !is_scalar_const (v) && sym_rank (v) != 0);
    }
  for (guint i = *first; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *v = graph_node_input (n, i);
      GraphDType d = value_dtype (v);
      if (v == NULL || graph_dtype_promotion_rank (d) < 0)
        continue;
      gboolean scalar = is_scalar_const (v) || (dimensioned && sym_rank (v) == 0);
      GraphDType *slot = scalar ? &scalar_t : &tensor_t;
      if (*slot == GRAPH_DTYPE_UNDEFINED || graph_dtype_promotion_rank (d) > graph_dtype_promotion_rank (*slot))
        *slot = d;
    }
  GraphDType target = tensor_t != GRAPH_DTYPE_UNDEFINED ? tensor_t : scalar_t;
  gboolean int_or_bool = graph_dtype_is_integer (tensor_t) || tensor_t == GRAPH_DTYPE_BOOL;
  if (int_or_bool && graph_dtype_is_floating (scalar_t))
    target = graph_dtype_is_floating (default_dtype) ? default_dtype : GRAPH_DTYPE_FLOAT;
  /* a bool tensor with an integer scalar is int64 (bool_t > 2 compares numbers) */
  else if (tensor_t == GRAPH_DTYPE_BOOL && graph_dtype_is_integer (scalar_t))
    target = GRAPH_DTYPE_INT64;
  return target;
}

GraphDType
export_promoted_dtype (GraphNode *n, GraphDType default_dtype)
{
  guint first;
  return n ? promoted_dtype (n, &first, default_dtype) : GRAPH_DTYPE_UNDEFINED;
}

guint
export_scalar_type_analysis (Graph *g, GraphDType default_dtype)
{
  guint changes = 0;
  graph_foreach_node (g, n)
    {
      /* control-flow bodies (If from scripted code) too */
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize b = 0; b < len; b++)
            changes += export_scalar_type_analysis (subs[b], default_dtype);
        }
      guint first;
      GraphDType target = promoted_dtype (n, &first, default_dtype);
      if (target == GRAPH_DTYPE_UNDEFINED)
        continue;
      guint nin = graph_node_n_inputs (n);
      for (guint i = first; i < nin; i++)
        {
          GraphValue *v = graph_node_input (n, i);
          GraphDType d = value_dtype (v);
          if (v == NULL || d == target || graph_dtype_promotion_rank (d) < 0)
            continue;
          GraphNode *p = graph_value_node (v);
          Tensor *t;
          GraphNode *saved = graph_get_insert_point (g);
          graph_set_insert_point (g, n);
          GraphValue *nv;
          if (p && graph_node_is (p, "onnx::Constant") && graph_node_get_t (p, "value", &t))
            {
              g_autoptr (GError) local = NULL;
              g_autoptr (Tensor) ct = tensor_cast (t, target, &local);
              nv = ct ? graph_op (g, "Constant", "value_t", ct, NULL) : NULL;
              if (nv)
                {
                  g_autoptr (GraphType) ty = graph_type_new_tensor_static (target, tensor_rank (ct),
                                                                           tensor_dims (ct));
                  graph_value_set_type (nv, ty);
                }
            }
          else
            {
              nv = graph_op (g, "Cast", v, "to_i", (gint64) target, NULL);
              GraphType *vt = graph_value_type (v);
              if (nv && vt && graph_type_is_tensor (vt))
                {
                  int r = graph_type_rank (vt);
                  GraphDim dims[TENSOR_MAX_RANK];
                  for (int k = 0; k < r; k++)
                    dims[k] = *graph_type_dim (vt, (guint) k);
                  g_autoptr (GraphType) ty = graph_type_new_tensor (target, r, r > 0 ? dims : NULL);
                  graph_value_set_type (nv, ty);
                }
            }
          graph_set_insert_point (g, saved);
          if (nv)
            {
              graph_node_set_scope (graph_value_node (nv), graph_node_get_scope (n));
              graph_node_set_input (n, i, nv);
              changes++;
            }
        }
    }
  return changes;
}
