/* ATen creation ops: *_like, full, new_*, arange, eye, fill, numel / dim,
 * one_hot, constant_pad_nd. */
#include "runtime/k-aten-private.h"
#include <math.h>

/* ---- creation --------------------------------------------------------------- */

static gboolean
filled (RtCall *call, GraphDType dt, guint rank, const gint64 *dims, double v, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (dt);
  guint8 one[16];
  rt_convert (&v, GRAPH_DTYPE_DOUBLE, one, dt, 1);
  for (gint64 i = 0; i < o->numel; i++)
    memcpy ((char *) o->data + i * (gint64) es, one, es);
  return TRUE;
}

gboolean
aten_dtype_arg (RtCall *call, guint i, GraphDType def, GraphDType *dt, GError **error)
{
  *dt = def;
  if (aten_arg (call, i) && !aten_scalar_type (aten_i (call, i, 6), dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype code %" G_GINT64_FORMAT,
                     aten_i (call, i, 6));
      return FALSE;
    }
  return TRUE;
}

/* zeros_like / ones_like (self, dtype?, ...); full_like (self, value,
 * dtype?, ...) */
static gboolean
like (RtCall *call, double v, guint dtype_at_i, GError **error)
{
  const RtTensor *a;
  GraphDType dt;
  return aten_tensor_arg (call, 0, &a, error) && aten_dtype_arg (call, dtype_at_i, a->dtype, &dt, error)
         && filled (call, dt, a->rank, a->dims, v, error);
}

static gboolean a_zeros_like (RtCall *c, GError **e) { return like (c, 0, 1, e); }
static gboolean a_ones_like (RtCall *c, GError **e) { return like (c, 1, 1, e); }
static gboolean a_full_like (RtCall *c, GError **e) { return like (c, aten_f (c, 1, 0), 2, e); }
/* fill(self, value): self's shape and dtype */
static gboolean a_fill (RtCall *c, GError **e) { return like (c, aten_f (c, 1, 0), G_MAXUINT, e); }

/* tensor(data, dtype?, device?, requires_grad) (scripted code inside a
 * trace records it: torchvision's batched_nms): data is a number (a 0-d
 * tensor) or a list of numbers (a 1-D one); without a dtype a float
 * becomes torch's default float32, an int int64, a bool bool.
 * as_tensor(data, dtype?, device?): the same, and a tensor's own dtype,
 * which a trace does not tell from a float's: refused without a dtype. */
static gboolean
tensor_like (RtCall *call, gboolean as_tensor, GError **error)
{
  const RtTensor *a;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (a->rank > 1)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "data of rank %u (nested lists) is not supported", a->rank);
      return FALSE;
    }
  GraphDType def = a->dtype == GRAPH_DTYPE_DOUBLE ? GRAPH_DTYPE_FLOAT : a->dtype, dt;
  if (as_tensor && aten_arg (call, 1) == NULL && a->dtype == GRAPH_DTYPE_DOUBLE)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "as_tensor of float data without a dtype: a float "
                     "(float32) and a float64 tensor (float64) look alike here");
      return FALSE;
    }
  if (as_tensor && aten_arg (call, 1) == NULL)
    def = a->dtype;
  if (!aten_dtype_arg (call, 1, def, &dt, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, dt, a->rank, a->dims, error);
  return o && rt_convert (a->data, a->dtype, o->data, dt, a->numel);
}

static gboolean a_tensor (RtCall *c, GError **e) { return tensor_like (c, FALSE, e); }
static gboolean a_as_tensor (RtCall *c, GError **e) { return tensor_like (c, TRUE, e); }

/* zero(self): zeros of self's shape and dtype */
static gboolean a_zero (RtCall *c, GError **e) { return like (c, 0, G_MAXUINT, e); }

/* copy(self, src, non_blocking): src broadcast to self's shape, in self's
 * dtype (the value copy_ writes into self). */
static gboolean
a_copy (RtCall *call, GError **error)
{
  const RtTensor *a, *src;
  if (!aten_tensor_arg (call, 0, &a, error) || !aten_tensor_arg (call, 1, &src, error))
    return FALSE;
  gint64 st[RT_MAX_RANK];
  if (!rt_broadcasts_to (call, src, a->rank, a->dims, "src", error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  guint rank = a->rank;
  const gint64 *dims = a->dims;
  rt_broadcast_strides (src, rank, dims, st);
  gint64 c[RT_MAX_RANK] = { 0 };
  gsize es = rt_dtype_size (a->dtype), ss = rt_dtype_size (src->dtype);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d < rank; d++)
        off += c[d] * st[d];
      if (!rt_convert ((const char *) src->data + off * (gint64) ss, src->dtype, (char *) o->data + i * (gint64) es,
                       a->dtype, 1))
        {
          rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "cannot copy %s into %s", graph_dtype_name (src->dtype),
                         graph_dtype_name (a->dtype));
          return FALSE;
        }
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

gboolean
aten_size_arg (RtCall *call, guint i, guint *rank, gint64 *dims, GError **error)
{
  const RtTensor *s = aten_arg (call, i);
  if (s == NULL || !graph_dtype_is_integer (s->dtype) || s->rank > 1 || s->numel > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a size (int list)", i);
      return FALSE;
    }
  *rank = (guint) s->numel;
  for (guint d = 0; d < *rank; d++)
    if ((dims[d] = rt_get_i64 (s, d)) < 0)
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "negative size");
        return FALSE;
      }
  return TRUE;
}

/* full(size, value, dtype?, ...): the value's type without a dtype. */
static gboolean
a_full (RtCall *call, GError **error)
{
  guint rank;
  gint64 dims[RT_MAX_RANK];
  const RtTensor *v = aten_arg (call, 1);
  GraphDType def = v && graph_dtype_is_floating (v->dtype) ? GRAPH_DTYPE_FLOAT
                 : v && v->dtype == GRAPH_DTYPE_BOOL ? GRAPH_DTYPE_BOOL : GRAPH_DTYPE_INT64;
  GraphDType dt;
  return aten_size_arg (call, 0, &rank, dims, error) && aten_dtype_arg (call, 2, def, &dt, error)
         && filled (call, dt, rank, dims, aten_f (call, 1, 0), error);
}

/* new_zeros / new_ones / new_empty (self, size, dtype?, ...) and
 * new_full (self, size, value, dtype?, ...): self's dtype by default. */
static gboolean
new_filled (RtCall *call, gboolean full, double v, GError **error)
{
  const RtTensor *a;
  guint rank;
  gint64 dims[RT_MAX_RANK];
  GraphDType dt;
  return aten_tensor_arg (call, 0, &a, error) && aten_size_arg (call, 1, &rank, dims, error)
         && aten_dtype_arg (call, full ? 3 : 2, a->dtype, &dt, error)
         && filled (call, dt, rank, dims, full ? aten_f (call, 2, 0) : v, error);
}

static gboolean a_new_zeros (RtCall *c, GError **e) { return new_filled (c, FALSE, 0, e); }
static gboolean a_new_ones (RtCall *c, GError **e) { return new_filled (c, FALSE, 1, e); }
static gboolean a_new_full (RtCall *c, GError **e) { return new_filled (c, TRUE, 0, e); }

/* arange(end, dtype?, ...), arange(start, end, dtype?, ...),
 * arange(start, end, step, dtype?, ...): 5, 6 or 7 arguments. */
static gboolean
a_arange (RtCall *call, GError **error)
{
  guint nargs = call->n_inputs >= 7 ? 3 : call->n_inputs == 6 ? 2 : 1;
  double start = 0, end, step = 1;
  gboolean fl = FALSE;
  for (guint i = 0; i < nargs; i++)
    {
      const RtTensor *t = aten_arg (call, i);
      if (t == NULL || t->numel != 1)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a number", i);
          return FALSE;
        }
      fl |= graph_dtype_is_floating (t->dtype);
    }
  if (nargs == 1)
    end = aten_f (call, 0, 0);
  else
    {
      start = aten_f (call, 0, 0);
      end = aten_f (call, 1, 0);
      if (nargs == 3)
        step = aten_f (call, 2, 1);
    }
  GraphDType dt;
  if (!aten_dtype_arg (call, nargs, fl ? GRAPH_DTYPE_FLOAT : GRAPH_DTYPE_INT64, &dt, error))
    return FALSE;
  double n = ceil ((end - start) / step);
  if (step == 0 || !(n >= 0) || n > 1e12)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "bad range (%g, %g, %g)", start, end, step);
      return FALSE;
    }
  gint64 len = (gint64) n;
  RtTensor *o = rt_call_output (call, 0, dt, 1, &len, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (dt);
  for (gint64 i = 0; i < len; i++)
    {
      double v = start + (double) i * step;
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, dt, 1);
    }
  return TRUE;
}

/* eye(n, dtype?, ...) or eye(n, m, dtype?, ...) */
static gboolean
a_eye (RtCall *call, GError **error)
{
  gboolean two = call->n_inputs >= 6;
  gint64 dims[2] = { aten_i (call, 0, 0), two ? aten_i (call, 1, 0) : aten_i (call, 0, 0) };
  GraphDType dt;
  if (dims[0] < 0 || dims[1] < 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "negative size");
      return FALSE;
    }
  if (!aten_dtype_arg (call, two ? 2 : 1, GRAPH_DTYPE_FLOAT, &dt, error) || !filled (call, dt, 2, dims, 0, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, dt, 2, dims, error);
  double one = 1;
  for (gint64 i = 0; o && i < MIN (dims[0], dims[1]); i++)
    rt_convert (&one, GRAPH_DTYPE_DOUBLE, (char *) o->data + (i * dims[1] + i) * (gint64) rt_dtype_size (dt), dt, 1);
  return o != NULL;
}

/* numel(self) / dim(self) as 0-d int64 */
static gboolean
scalar_out (RtCall *call, gint64 v, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 0, NULL, error);
  if (o)
    *(gint64 *) o->data = v;
  return o != NULL;
}

static gboolean
a_numel (RtCall *call, GError **error)
{
  const RtTensor *a;
  return aten_tensor_arg (call, 0, &a, error) && scalar_out (call, a->numel, error);
}

static gboolean
a_dim (RtCall *call, GError **error)
{
  const RtTensor *a;
  return aten_tensor_arg (call, 0, &a, error) && scalar_out (call, a->rank, error);
}

/* one_hot(self, num_classes=-1) */
static gboolean
a_one_hot (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (a->dtype != GRAPH_DTYPE_INT64 || a->rank + 1 > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "one_hot needs an int64 tensor");
      return FALSE;
    }
  gint64 k = aten_i (call, 1, -1);
  if (k < 0)
    for (gint64 i = 0; i < a->numel; i++)
      k = MAX (k, rt_get_i64 (a, i) + 1);
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[a->rank] = k;
  if (!filled (call, GRAPH_DTYPE_INT64, a->rank + 1, dims, 0, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, a->rank + 1, dims, error);
  for (gint64 i = 0; o && i < a->numel; i++)
    {
      gint64 c = rt_get_i64 (a, i);
      if (c < 0 || c >= k)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "class %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT ")", c, k);
          return FALSE;
        }
      ((gint64 *) o->data)[i * k + c] = 1;
    }
  return o != NULL;
}

/* constant_pad_nd(self, pad, value): pad lists (before, after) pairs from
 * the last dim backwards; negative entries crop. */
static gboolean
a_constant_pad_nd (RtCall *call, GError **error)
{
  const RtTensor *a, *p = aten_arg (call, 1);
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (p == NULL || p->numel % 2 != 0 || (guint) p->numel / 2 > a->rank)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "pad must hold pairs for at most %u dims", a->rank);
      return FALSE;
    }
  gint64 before[RT_MAX_RANK] = { 0 }, dims[RT_MAX_RANK];
  for (guint d = 0; d < a->rank; d++)
    dims[d] = a->dims[d];
  for (gint64 k = 0; k < p->numel / 2; k++)
    {
      guint d = a->rank - 1 - (guint) k;
      before[d] = rt_get_i64 (p, 2 * k);
      dims[d] += before[d] + rt_get_i64 (p, 2 * k + 1);
      if (dims[d] < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "padding makes dim %u negative", d);
          return FALSE;
        }
    }
  if (!filled (call, a->dtype, a->rank, dims, aten_f (call, 2, 0), error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  gsize es = rt_dtype_size (a->dtype);
  gint64 ost[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (a->rank, dims, ost);
  for (gint64 i = 0; o && i < a->numel; i++)
    {
      gint64 off = 0;
      gboolean in = TRUE;
      for (guint d = 0; d < a->rank; d++)
        {
          gint64 od = c[d] + before[d];
          in &= od >= 0 && od < dims[d];
          off += od * ost[d];
        }
      if (in)
        memcpy ((char *) o->data + off * (gint64) es, (const char *) a->data + i * (gint64) es, es);
      rt_index_next (c, a->dims, a->rank);
    }
  return o != NULL;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("zeros_like", 1, 6, a_zeros_like), RT_ATEN_ROW ("ones_like", 1, 6, a_ones_like),
  RT_ATEN_ROW ("empty_like", 1, 6, a_zeros_like), RT_ATEN_ROW ("full_like", 2, 7, a_full_like), RT_ATEN_ROW ("fill", 2, 2, a_fill),
  RT_ATEN_ROW ("fill_", 2, 2, a_fill),   /* in place: as zero_ below */
  RT_ATEN_ROW ("full", 2, 6, a_full), RT_ATEN_ROW ("new_zeros", 2, 6, a_new_zeros), RT_ATEN_ROW ("new_ones", 2, 6, a_new_ones),
  RT_ATEN_ROW ("new_empty", 2, 6, a_new_zeros), RT_ATEN_ROW ("new_full", 3, 7, a_new_full), RT_ATEN_ROW ("arange", 1, 7, a_arange),
  RT_ATEN_ROW ("eye", 1, 6, a_eye), RT_ATEN_ROW ("numel", 1, 1, a_numel), RT_ATEN_ROW ("dim", 1, 1, a_dim), RT_ATEN_ROW ("one_hot", 1, 2, a_one_hot),
  RT_ATEN_ROW ("constant_pad_nd", 2, 3, a_constant_pad_nd), RT_ATEN_ROW ("zero", 1, 1, a_zero),
  RT_ATEN_ROW ("copy", 2, 3, a_copy),
  /* in place: a trace names the result; a write into a view read later is
   * written back (export: view-mutation.c; verify's trace run: runnable.c) */
  RT_ATEN_ROW ("zero_", 1, 1, a_zero), RT_ATEN_ROW ("copy_", 2, 3, a_copy), RT_ATEN_ROW ("tensor", 1, 4, a_tensor), RT_ATEN_ROW ("as_tensor", 1, 3, a_as_tensor),
};

RT_KERNEL_TABLE (rt_kernels_aten_create, defs);
