/* Helpers shared by kernels: attributes, axes, shapes, element access,
 * dtype conversion, errors. */
#include "runtime/kernel.h"
#include <math.h>
#include <string.h>

const char *
rt_node_label (const GraphNode *node)
{
  static GPrivate key = G_PRIVATE_INIT (g_free);
  char *buf = g_private_get (&key);
  if (buf == NULL)
    {
      buf = g_malloc (256);
      g_private_set (&key, buf);
    }
  const char *name = graph_node_get_name (node);
  const char *op = graph_node_op_type (node);
  const char *domain = graph_node_domain (node);
  const char *aten_op = NULL;
  if (strcmp (graph_node_kind (node), GRAPH_KIND_ATEN) == 0)
    graph_node_get_s (node, "operator", &aten_op, NULL);
  g_snprintf (buf, 256, "%s%s%s%s%s%s%s",
              strcmp (domain, "onnx") == 0 ? "" : domain, strcmp (domain, "onnx") == 0 ? "" : "::",
              op, aten_op ? ":" : "", aten_op ? aten_op : "",
              name && *name ? " node '" : "", name && *name ? name : "");
  if (name && *name)
    g_strlcat (buf, "'", 256);
  return buf;
}

static void
node_error_valist (const GraphNode *node, GError **error, RtErrorCode code,
                   const char *fmt, va_list ap)
{
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  g_set_error (error, RT_ERROR, code, "%s: %s", rt_node_label (node), msg);
}

void
rt_node_error (const GraphNode *node, GError **error, RtErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  node_error_valist (node, error, code, fmt, ap);
  va_end (ap);
}

void
rt_call_error (const RtCall *call, GError **error, RtErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  node_error_valist (call->node, error, code, fmt, ap);
  va_end (ap);
}

gint64
rt_attr_i (const GraphNode *n, const char *name, gint64 def)
{
  gint64 v;
  double f;
  if (graph_node_get_i (n, name, &v))
    return v;
  if (graph_node_get_f (n, name, &f))
    return graph_double_to_int64 (f);   /* a float where an int belongs: total (NaN, huge) */
  return def;
}

double
rt_attr_f (const GraphNode *n, const char *name, double def)
{
  double v;
  gint64 i;
  if (graph_node_get_f (n, name, &v))
    return v;
  if (graph_node_get_i (n, name, &i))
    return (double) i;
  return def;
}

const char *
rt_attr_s (const GraphNode *n, const char *name, const char *def)
{
  const char *v;
  if (graph_node_get_s (n, name, &v, NULL))
    return v;
  return def;
}

gboolean
rt_attr_ints (const GraphNode *n, const char *name, gsize *len, const gint64 **v)
{
  return graph_node_get_is (n, name, len, v);
}

gboolean
rt_axis (const RtCall *call, gint64 axis, guint rank, guint *out, GError **error)
{
  gint64 a = axis < 0 ? axis + (gint64) rank : axis;
  if (a < 0 || a >= (gint64) rank)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "axis %" G_GINT64_FORMAT " is out of range for rank %u", axis, rank);
      return FALSE;
    }
  *out = (guint) a;
  return TRUE;
}

gint64
rt_shape_numel (guint rank, const gint64 *dims)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  return n;
}

/* Note [Extent of an empty tensor]
 * A tensor with a 0 dim holds nothing, whatever its other dims, so its byte
 * size bounds nothing about them: (3, 4563402750, 8, 0, 8064) is 0 bytes.
 * But kernels loop over products of some dims (outer × inner around an
 * axis, rows of a Concat, slices of a Gather), and such a loop ran 1.1e11
 * empty rows (a CumSum along dim 4 of that shape: the onnx-run campaign).
 * So every tensor the executor admits (inputs, constants, kernel outputs,
 * sequence items) must have its extent, the product of its dims with each
 * 0 counted as 1, within the byte limit too: then any product of its dims
 * a kernel loops over is bounded as for a full tensor of that size. */
gboolean
rt_shape_admissible (GraphDType dtype, guint rank, const gint64 *dims, guint64 max_bytes,
                     gsize *nbytes)
{
  /* STRING: pointers, as wide as int64 elements */
  GraphDType dt = dtype == GRAPH_DTYPE_STRING ? GRAPH_DTYPE_INT64 : dtype;
  gint64 extent[RT_MAX_RANK];
  gsize ebytes;
  if (rank > RT_MAX_RANK || !tensor_shape_nbytes (dt, rank, dims, nbytes) || *nbytes > max_bytes)
    return FALSE;
  for (guint i = 0; i < rank; i++)
    extent[i] = dims[i] == 0 ? 1 : dims[i];
  return tensor_shape_nbytes (dt, rank, extent, &ebytes) && ebytes <= max_bytes;
}

gint64
rt_shape_inner (guint rank, const gint64 *dims, guint axis)
{
  return axis + 1 >= rank ? 1 : rt_shape_numel (rank - axis - 1, dims + axis + 1);
}

double
rt_saturate (GraphDType dtype, double v)
{
  double lo, hi;
  switch (dtype)
    {
    case GRAPH_DTYPE_INT8: lo = G_MININT8; hi = G_MAXINT8; break;
    case GRAPH_DTYPE_UINT8: lo = 0; hi = G_MAXUINT8; break;
    case GRAPH_DTYPE_INT16: lo = G_MININT16; hi = G_MAXINT16; break;
    case GRAPH_DTYPE_UINT16: lo = 0; hi = G_MAXUINT16; break;
    case GRAPH_DTYPE_INT32: lo = G_MININT32; hi = G_MAXINT32; break;
    case GRAPH_DTYPE_UINT32: lo = 0; hi = G_MAXUINT32; break;
    default: return v;   /* float types; 64-bit integers go through rt_convert */
    }
  return isnan (v) ? 0 : v < lo ? lo : v > hi ? hi : v;
}

gsize
rt_dtype_size (GraphDType d)
{
  /* STRING tensors hold GBytes pointers (Note [RtTensor] in kernel.h). */
  if (d == GRAPH_DTYPE_STRING)
    return sizeof (GBytes *);
  return graph_dtype_size (d);
}

gint64
rt_get_i64 (const RtTensor *t, gint64 i)
{
  if (G_UNLIKELY (i < 0 || i >= t->numel))
    return 0;
  switch (t->dtype)
    {
#define CASE(E, T) case GRAPH_DTYPE_##E: return (gint64) ((const T *) t->data)[i];
      RT_FOREACH_INT (CASE)
      CASE (BOOL, guint8)
#undef CASE
    /* floats converted totally: a C cast of NaN, ±Inf or a value out of
     * range is undefined (an int read from a float tensor of the file's) */
    case GRAPH_DTYPE_FLOAT:
    case GRAPH_DTYPE_DOUBLE:
    case GRAPH_DTYPE_FLOAT16:
    case GRAPH_DTYPE_BFLOAT16:
      return graph_double_to_int64 (rt_get_f64 (t, i));
    default:
      return 0;
    }
}

double
rt_get_f64 (const RtTensor *t, gint64 i)
{
  if (G_UNLIKELY (i < 0 || i >= t->numel))
    return 0;
  switch (t->dtype)
    {
#define CASE(E, T) case GRAPH_DTYPE_##E: return (double) ((const T *) t->data)[i];
      RT_FOREACH_ALL (CASE)
#undef CASE
    /* The 16-bit floats are bit patterns (not among RT_FOREACH_ALL's C
     * types): read them as their values, not as 0. */
    case GRAPH_DTYPE_FLOAT16:
      return graph_half_to_float (((const guint16 *) t->data)[i]);
    case GRAPH_DTYPE_BFLOAT16:
      return graph_bfloat16_to_float (((const guint16 *) t->data)[i]);
    default:
      return 0;
    }
}

gboolean
rt_scalar_input (const RtCall *call, guint i, const char *what, gboolean optional, const RtTensor **out,
                 GError **error)
{
  const RtTensor *t = i < call->n_inputs ? call->inputs[i] : NULL;
  *out = NULL;
  if (t == NULL && optional)
    return TRUE;
  if (t == NULL || t->kind != RT_KIND_TENSOR || t->numel != 1 || t->rank > 1)
    {
      if (t == NULL || t->kind != RT_KIND_TENSOR)
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "input %u (%s) must be a scalar; it is absent or "
                       "not a tensor", i, what);
      else
        rt_call_error (call, error, RT_ERROR_SHAPE, "input %u (%s) must be a scalar; it has %" G_GINT64_FORMAT
                       " elements in %u dims", i, what, t->numel, t->rank);
      return FALSE;
    }
  *out = t;
  return TRUE;
}

gboolean
rt_broadcast_shape (const RtCall *call, guint ra, const gint64 *da, guint rb,
                    const gint64 *db, guint *rank, gint64 *dims, GError **error)
{
  /* dims may be da or db (Where broadcasts its result with its third
   * input): the result is built apart and copied at the end. */
  guint r = MAX (ra, rb);
  gint64 out[RT_MAX_RANK];
  g_return_val_if_fail (r <= RT_MAX_RANK, FALSE);
  for (guint i = 0; i < r; i++)
    {
      gint64 a = i + ra >= r ? da[i + ra - r] : 1;
      gint64 b = i + rb >= r ? db[i + rb - r] : 1;
      if (a != b && a != 1 && b != 1)
        {
          GString *sa = g_string_new (NULL), *sb = g_string_new (NULL);
          for (guint k = 0; k < ra; k++)
            g_string_append_printf (sa, "%s%" G_GINT64_FORMAT, k ? ", " : "", da[k]);
          for (guint k = 0; k < rb; k++)
            g_string_append_printf (sb, "%s%" G_GINT64_FORMAT, k ? ", " : "", db[k]);
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "shapes (%s) and (%s) cannot be broadcast together", sa->str, sb->str);
          g_string_free (sa, TRUE);
          g_string_free (sb, TRUE);
          return FALSE;
        }
      out[i] = a == 1 ? b : a;
    }
  memcpy (dims, out, r * sizeof *dims);
  *rank = r;
  return TRUE;
}

void
rt_append_shape (GString *s, guint rank, const gint64 *dims)
{
  g_string_append_c (s, '(');
  for (guint k = 0; k < rank; k++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, k ? ", " : "", dims[k]);
  g_string_append_c (s, ')');
}

gboolean
rt_broadcasts_to (const RtCall *call, const RtTensor *t, guint rank, const gint64 *dims, const char *what,
                  GError **error)
{
  gboolean ok = t->rank <= rank;
  for (guint i = 0; ok && i < t->rank; i++)
    {
      gint64 d = t->dims[t->rank - 1 - i], to = dims[rank - 1 - i];
      ok = d == to || d == 1;
    }
  if (!ok)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      rt_append_shape (s, t->rank, t->dims);
      g_string_append (s, " does not broadcast to ");
      rt_append_shape (s, rank, dims);
      rt_call_error (call, error, RT_ERROR_SHAPE, "%s of shape %s", what, s->str);
    }
  return ok;
}

void
rt_contiguous_strides (guint rank, const gint64 *dims, gint64 *strides)
{
  gint64 s = 1;
  for (guint i = rank; i-- > 0;)
    {
      strides[i] = s;
      s *= dims[i];
    }
}

void
rt_broadcast_strides (const RtTensor *t, guint rank, const gint64 *dims, gint64 *strides)
{
  gint64 own[RT_MAX_RANK];
  rt_contiguous_strides (t->rank, t->dims, own);
  for (guint i = 0; i < rank; i++)
    {
      if (i + t->rank < rank)
        strides[i] = 0;
      else
        {
          guint k = i + t->rank - rank;
          strides[i] = (t->dims[k] == 1 && dims[i] != 1) ? 0 : own[k];
        }
    }
}

/* Values go through double (exact for every integer up to 2^53) except
 * int64 → int64-like paths, which go through gint64 to stay exact.  The
 * float16/bfloat16 and float→int conversions are ir's (ir/half.c). */
gboolean
rt_convert (const void *src, GraphDType sdt, void *dst, GraphDType ddt, gint64 n)
{
  gboolean src_int = graph_dtype_is_integer (sdt) || sdt == GRAPH_DTYPE_BOOL;
  gboolean dst_int = graph_dtype_is_integer (ddt);
  if (sdt == ddt)
    {
      memcpy (dst, src, (gsize) n * rt_dtype_size (sdt));
      return TRUE;
    }
  for (gint64 i = 0; i < n; i++)
    {
      double d = 0;
      gint64 iv = 0;
      switch (sdt)
        {
#define CASE(E, T) case GRAPH_DTYPE_##E: d = (double) ((const T *) src)[i]; iv = src_int ? (gint64) ((const T *) src)[i] : 0; break;
          RT_FOREACH_ALL (CASE)
#undef CASE
        case GRAPH_DTYPE_FLOAT16:
          d = graph_half_to_float (((const guint16 *) src)[i]);
          break;
        case GRAPH_DTYPE_BFLOAT16:
          d = graph_bfloat16_to_float (((const guint16 *) src)[i]);
          break;
        default:
          return FALSE;
        }
      if (!src_int)
        iv = graph_double_to_int (ddt, d);
      switch (ddt)
        {
        case GRAPH_DTYPE_BOOL:
          ((guint8 *) dst)[i] = src_int ? iv != 0 : d != 0;
          break;
        case GRAPH_DTYPE_FLOAT16:
          ((guint16 *) dst)[i] = graph_float_to_half ((float) d);
          break;
        case GRAPH_DTYPE_BFLOAT16:
          ((guint16 *) dst)[i] = graph_float_to_bfloat16 ((float) d);
          break;
#define CASE(E, T) case GRAPH_DTYPE_##E: ((T *) dst)[i] = (src_int || dst_int) ? (T) iv : (T) d; break;
          RT_FOREACH_NUMERIC (CASE)
#undef CASE
        default:
          return FALSE;
        }
    }
  return TRUE;
}
