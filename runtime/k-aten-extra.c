/* ATen ops torch 1.13's exporter registers symbolics for beyond ours:
 * identities for real tensors (resolve_conj, conj_physical, lift, eval-mode
 * in-place dropouts), _cast_*, all / any, aminmax, is_floating_point,
 * item, scalar_tensor, _shape_as_tensor, _reshape_from_tensor, numpy_T,
 * _log_softmax, _dim_arange, linspace, nonzero(_numpy), masked_select,
 * masked_scatter. */
#include "runtime/k-aten-private.h"
#include <math.h>

static gboolean
input0 (RtCall *call, const RtTensor **a, GError **error)
{
  *a = aten_arg (call, 0);
  if (*a == NULL || (*a)->kind != RT_KIND_TENSOR || (*a)->dtype == GRAPH_DTYPE_STRING)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument 0 must be a numeric tensor");
      return FALSE;
    }
  return TRUE;
}

static gboolean
copied (RtCall *call, const RtTensor *a, GraphDType dt, guint rank, const gint64 *dims, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  return o && rt_convert (a->data, a->dtype, o->data, dt, a->numel);
}

/* resolve_conj, resolve_neg, _conj, conj_physical, lift: real tensors
 * pass through. */
static gboolean
a_identity (RtCall *call, GError **error)
{
  const RtTensor *a;
  return input0 (call, &a, error) && copied (call, a, a->dtype, a->rank, a->dims, error);
}

/* alpha_dropout_ / feature_dropout_ / feature_alpha_dropout_(input, p,
 * train): the identity in eval mode. */
static gboolean
a_dropout_eval (RtCall *call, GError **error)
{
  if (aten_i (call, 2, 0) != 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "training-mode dropout is random: export in eval mode");
      return FALSE;
    }
  return a_identity (call, error);
}

/* _cast_<Type>(self, non_blocking) */
static gboolean
cast (RtCall *call, GraphDType dt, GError **error)
{
  const RtTensor *a;
  return input0 (call, &a, error) && copied (call, a, dt, a->rank, a->dims, error);
}

static gboolean a_cast_byte (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_UINT8, e); }
static gboolean a_cast_char (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_INT8, e); }
static gboolean a_cast_short (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_INT16, e); }
static gboolean a_cast_int (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_INT32, e); }
static gboolean a_cast_long (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_INT64, e); }
static gboolean a_cast_half (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_FLOAT16, e); }
static gboolean a_cast_float (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_FLOAT, e); }
static gboolean a_cast_double (RtCall *c, GError **e) { return cast (c, GRAPH_DTYPE_DOUBLE, e); }

/* all / any: (self) or (self, dim, keepdim); bool result (uint8 for a
 * uint8 input, as torch). */
static gboolean
all_any (RtCall *call, gboolean all, GError **error)
{
  const RtTensor *a;
  if (!input0 (call, &a, error))
    return FALSE;
  gboolean red[RT_MAX_RANK] = { 0 };
  gboolean keep = FALSE;
  if (call->n_inputs >= 2 && aten_arg (call, 1))
    {
      guint ax;
      if (!rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &ax, error))
        return FALSE;
      if (a->rank)
        red[ax] = TRUE;
      keep = aten_i (call, 2, 0) != 0;
    }
  else
    for (guint d = 0; d < a->rank; d++)
      red[d] = TRUE;
  gint64 dims[RT_MAX_RANK], ost[RT_MAX_RANK], s = 1;
  guint rank = 0;
  for (guint d = 0; d < a->rank; d++)
    if (!red[d])
      dims[rank++] = a->dims[d];
    else if (keep)
      dims[rank++] = 1;
  for (guint d = a->rank; d-- > 0;)
    {
      ost[d] = red[d] ? 0 : s;
      if (!red[d])
        s *= a->dims[d];
    }
  GraphDType dt = a->dtype == GRAPH_DTYPE_UINT8 ? GRAPH_DTYPE_UINT8 : GRAPH_DTYPE_BOOL;
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  if (o == NULL)
    return FALSE;
  memset (o->data, all ? 1 : 0, (gsize) o->numel);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < a->numel; i++)
    {
      gint64 j = 0;
      for (guint d = 0; d < a->rank; d++)
        j += c[d] * ost[d];
      gboolean v = rt_get_f64 (a, i) != 0;
      guint8 *dst = (guint8 *) o->data + j;
      *dst = all ? (*dst && v) : (*dst || v);
      rt_index_next (c, a->dims, a->rank);
    }
  return TRUE;
}

static gboolean a_all (RtCall *c, GError **e) { return all_any (c, TRUE, e); }
static gboolean a_any (RtCall *c, GError **e) { return all_any (c, FALSE, e); }

/* aminmax(self, dim?, keepdim) → (min, max) */
static gboolean
a_aminmax (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!input0 (call, &a, error))
    return FALSE;
  if (a->numel == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "aminmax of an empty tensor");
      return FALSE;
    }
  guint ax = 0;
  gboolean all = aten_arg (call, 1) == NULL, keep = aten_i (call, 2, 0) != 0;
  if (!all && !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &ax, error))
    return FALSE;
  gint64 dims[RT_MAX_RANK];
  guint rank = 0;
  for (guint d = 0; !all && d < a->rank; d++)
    {
      if (d != ax)
        dims[rank++] = a->dims[d];
      else if (keep)
        dims[rank++] = 1;
    }
  RtTensor *mn = rt_call_output (call, 0, a->dtype, rank, dims, error);
  RtTensor *mx = mn ? rt_call_output (call, 1, a->dtype, rank, dims, error) : NULL;
  if (mx == NULL)
    return FALSE;
  gint64 n = all ? a->numel : a->rank ? a->dims[ax] : 1;
  gint64 inner = all || a->rank == 0 ? 1 : rt_shape_inner (a->rank, a->dims, ax);
  gint64 outer = all ? 1 : a->numel / MAX (n * inner, 1);
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        gint64 lo = (i * n) * inner + k, hi = lo;
        for (gint64 j = 1; j < n; j++)
          {
            gint64 at = (i * n + j) * inner + k;
            double v = rt_get_f64 (a, at);
            if (v < rt_get_f64 (a, lo) || isnan (v))
              lo = isnan (rt_get_f64 (a, lo)) ? lo : at;
            if (v > rt_get_f64 (a, hi) || isnan (v))
              hi = isnan (rt_get_f64 (a, hi)) ? hi : at;
          }
        memcpy ((char *) mn->data + (i * inner + k) * (gint64) es, (const char *) a->data + lo * (gint64) es, es);
        memcpy ((char *) mx->data + (i * inner + k) * (gint64) es, (const char *) a->data + hi * (gint64) es, es);
      }
  return TRUE;
}

/* is_floating_point(self) → bool 0-d */
static gboolean
a_is_floating_point (RtCall *call, GError **error)
{
  const RtTensor *a;
  RtTensor *o = input0 (call, &a, error) ? rt_call_output (call, 0, GRAPH_DTYPE_BOOL, 0, NULL, error) : NULL;
  if (o)
    *(guint8 *) o->data = graph_dtype_is_floating (a->dtype);
  return o != NULL;
}

/* item(self) → 0-d; scalar_tensor(s, dtype?, ...) → 0-d of dtype (float) */
static gboolean
a_item (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!input0 (call, &a, error))
    return FALSE;
  if (a->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "item() of a tensor of %" G_GINT64_FORMAT " elements", a->numel);
      return FALSE;
    }
  return copied (call, a, a->dtype, 0, NULL, error);
}

static gboolean
a_scalar_tensor (RtCall *call, GError **error)
{
  const RtTensor *a;
  GraphDType dt = GRAPH_DTYPE_FLOAT;
  if (!input0 (call, &a, error))
    return FALSE;
  if (aten_arg (call, 1) && !aten_scalar_type (aten_i (call, 1, 6), &dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype");
      return FALSE;
    }
  if (a->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "scalar_tensor needs one value");
      return FALSE;
    }
  return copied (call, a, dt, 0, NULL, error);
}

/* _shape_as_tensor(self) → int64 (rank); _reshape_from_tensor(self, shape) */
static gboolean
a_shape_as_tensor (RtCall *call, GError **error)
{
  const RtTensor *a;
  gint64 r;
  RtTensor *o = input0 (call, &a, error) ? rt_call_output (call, 0, GRAPH_DTYPE_INT64, 1, (r = a->rank, &r), error) : NULL;
  if (o)
    memcpy (o->data, a->dims, sizeof (gint64) * a->rank);
  return o != NULL;
}

static gboolean
a_reshape_from_tensor (RtCall *call, GError **error)
{
  const RtTensor *a, *s = aten_arg (call, 1);
  if (!input0 (call, &a, error))
    return FALSE;
  if (s == NULL || !graph_dtype_is_integer (s->dtype) || s->rank != 1 || s->numel > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "shape must be a 1-D integer tensor");
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK], known = 1;
  int infer = -1;
  for (gint64 i = 0; i < s->numel; i++)
    {
      dims[i] = rt_get_i64 (s, i);
      if (dims[i] == -1 && infer < 0)
        infer = (int) i;
      else if (dims[i] < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "bad shape");
          return FALSE;
        }
      else
        known *= dims[i];
    }
  if (infer >= 0)
    dims[infer] = known ? a->numel / known : 0;
  if (rt_shape_numel ((guint) s->numel, dims) != a->numel)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "shape does not hold %" G_GINT64_FORMAT " elements", a->numel);
      return FALSE;
    }
  return copied (call, a, a->dtype, (guint) s->numel, dims, error);
}

/* numpy_T(self): the dims reversed */
static gboolean
a_numpy_t (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!input0 (call, &a, error))
    return FALSE;
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK], rs[RT_MAX_RANK];
  rt_contiguous_strides (a->rank, a->dims, st);
  for (guint d = 0; d < a->rank; d++)
    {
      dims[d] = a->dims[a->rank - 1 - d];
      rs[d] = st[a->rank - 1 - d];
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d < a->rank; d++)
        off += c[d] * rs[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, a->rank);
    }
  return TRUE;
}

/* _log_softmax(self, dim, half_to_float) */
static gboolean
a_log_softmax_internal (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!input0 (call, &a, error) || !rt_axis (call, aten_i (call, 1, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  if (!aten_is_float (a) || aten_i (call, 2, 0) != 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "needs a float or double input (half_to_float False)");
      return FALSE;
    }
  return rt_softmax (call, a, a->rank ? ax : 0, TRUE, error);
}

/* _dim_arange(like, dim) = arange(like.size(dim)) */
static gboolean
a_dim_arange (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!input0 (call, &a, error) || a->rank == 0 || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    return FALSE;
  gint64 n = a->dims[ax];
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 1, &n, error);
  for (gint64 i = 0; o && i < n; i++)
    ((gint64 *) o->data)[i] = i;
  return o != NULL;
}

/* linspace(start, end, steps, dtype?, ...): torch's two-sided formula. */
static gboolean
a_linspace (RtCall *call, GError **error)
{
  double start = aten_f (call, 0, 0), end = aten_f (call, 1, 0);
  gint64 steps = aten_i (call, 2, -1);
  GraphDType dt = GRAPH_DTYPE_FLOAT;
  if (steps < 0 || steps > ((gint64) 1 << 40) || (aten_arg (call, 3) && !aten_scalar_type (aten_i (call, 3, 6), &dt)))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "steps must be >= 0 and the dtype supported");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, dt, 1, &steps, error);
  if (o == NULL)
    return FALSE;
  double step = steps > 1 ? (end - start) / (double) (steps - 1) : 0;
  gint64 half = steps / 2;
  gsize es = rt_dtype_size (dt);
  gboolean f32 = dt == GRAPH_DTYPE_FLOAT;
  for (gint64 i = 0; i < steps; i++)
    {
      double v;
      if (f32)
        {
          float fs = (float) step;
          v = i < half ? (float) start + fs * (float) i : (float) end - fs * (float) (steps - 1 - i);
        }
      else
        v = i < half ? start + step * (double) i : end - step * (double) (steps - 1 - i);
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, dt, 1);
    }
  return TRUE;
}

/* nonzero(self) → (n, rank) int64 */
static gboolean
a_nonzero (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!input0 (call, &a, error))
    return FALSE;
  gint64 n = 0;
  for (gint64 i = 0; i < a->numel; i++)
    n += rt_get_f64 (a, i) != 0;
  gint64 dims[2] = { n, a->rank };
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 2, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 c[RT_MAX_RANK] = { 0 }, w = 0;
  for (gint64 i = 0; i < a->numel; i++)
    {
      if (rt_get_f64 (a, i) != 0)
        {
          memcpy ((gint64 *) o->data + w * a->rank, c, sizeof (gint64) * a->rank);
          w++;
        }
      rt_index_next (c, a->dims, a->rank);
    }
  return TRUE;
}

/* masked_select(self, mask) → 1-D, broadcast together */
static gboolean
a_masked_select (RtCall *call, GError **error)
{
  const RtTensor *a, *m = aten_arg (call, 1);
  if (!input0 (call, &a, error))
    return FALSE;
  guint rank;
  gint64 dims[RT_MAX_RANK], sa[RT_MAX_RANK], sm[RT_MAX_RANK];
  if (m == NULL || m->dtype != GRAPH_DTYPE_BOOL)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "mask must be a bool tensor");
      return FALSE;
    }
  if (!rt_broadcast_shape (call, a->rank, a->dims, m->rank, m->dims, &rank, dims, error))
    return FALSE;
  rt_broadcast_strides (a, rank, dims, sa);
  rt_broadcast_strides (m, rank, dims, sm);
  gint64 total = rt_shape_numel (rank, dims), n = 0, c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < total; i++)
    {
      gint64 om = 0;
      for (guint d = 0; d < rank; d++)
        om += c[d] * sm[d];
      n += ((const guint8 *) m->data)[om] != 0;
      rt_index_next (c, dims, rank);
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, 1, &n, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 w = 0;
  memset (c, 0, sizeof c);
  for (gint64 i = 0; i < total; i++)
    {
      gint64 oa = 0, om = 0;
      for (guint d = 0; d < rank; d++)
        {
          oa += c[d] * sa[d];
          om += c[d] * sm[d];
        }
      if (((const guint8 *) m->data)[om])
        memcpy ((char *) o->data + w++ * (gint64) es, (const char *) a->data + oa * (gint64) es, es);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

/* nonzero_numpy(self) → one 1-D int64 tensor per dim (also where(self)) */
gboolean
aten_nonzero_numpy (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!input0 (call, &a, error))
    return FALSE;
  if (call->n_outputs != MAX (a->rank, 1))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "%u outputs for a tensor of rank %u", call->n_outputs, a->rank);
      return FALSE;
    }
  gint64 n = 0;
  for (gint64 i = 0; i < a->numel; i++)
    n += rt_get_f64 (a, i) != 0;
  RtTensor *outs[RT_MAX_RANK];
  for (guint d = 0; d < call->n_outputs; d++)
    if ((outs[d] = rt_call_output (call, d, GRAPH_DTYPE_INT64, 1, &n, error)) == NULL)
      return FALSE;
  gint64 c[RT_MAX_RANK] = { 0 }, w = 0;
  for (gint64 i = 0; i < a->numel; i++)
    {
      if (rt_get_f64 (a, i) != 0)
        {
          for (guint d = 0; d < call->n_outputs; d++)
            ((gint64 *) outs[d]->data)[w] = a->rank ? c[d] : 0;
          w++;
        }
      rt_index_next (c, a->dims, a->rank);
    }
  return TRUE;
}

/* masked_scatter(self, mask, source): self's positions where the mask
 * (broadcast to self) is set take source's elements in order. */
static gboolean
a_masked_scatter (RtCall *call, GError **error)
{
  const RtTensor *a, *m = aten_arg (call, 1), *src = aten_arg (call, 2);
  if (!input0 (call, &a, error))
    return FALSE;
  gint64 sm[RT_MAX_RANK];
  if (m == NULL || m->dtype != GRAPH_DTYPE_BOOL || src == NULL || src->dtype != a->dtype)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs a bool mask and a source of self's dtype");
      return FALSE;
    }
  if (!rt_broadcasts_to (call, m, a->rank, a->dims, "mask", error))
    return FALSE;
  rt_broadcast_strides (m, a->rank, a->dims, sm);
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  memcpy (o->data, a->data, (gsize) a->numel * es);
  gint64 c[RT_MAX_RANK] = { 0 }, k = 0;
  for (gint64 i = 0; i < a->numel; i++)
    {
      gint64 om = 0;
      for (guint d = 0; d < a->rank; d++)
        om += c[d] * sm[d];
      if (((const guint8 *) m->data)[om])
        {
          if (k >= src->numel)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "source has fewer elements than the mask selects");
              return FALSE;
            }
          memcpy ((char *) o->data + i * (gint64) es, (const char *) src->data + k++ * (gint64) es, es);
        }
      rt_index_next (c, a->dims, a->rank);
    }
  return TRUE;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("resolve_conj", 1, 1, a_identity), RT_ATEN_ROW ("resolve_neg", 1, 1, a_identity),
  RT_ATEN_ROW ("conj_physical", 1, 1, a_identity), RT_ATEN_ROW ("lift", 1, 1, a_identity),
  RT_ATEN_ROW ("alpha_dropout_", 3, 3, a_dropout_eval), RT_ATEN_ROW ("feature_dropout_", 3, 3, a_dropout_eval),
  RT_ATEN_ROW ("feature_alpha_dropout_", 3, 3, a_dropout_eval),
  RT_ATEN_ROW ("_cast_Byte", 1, 2, a_cast_byte), RT_ATEN_ROW ("_cast_Char", 1, 2, a_cast_char),
  RT_ATEN_ROW ("_cast_Short", 1, 2, a_cast_short), RT_ATEN_ROW ("_cast_Int", 1, 2, a_cast_int), RT_ATEN_ROW ("_cast_Long", 1, 2, a_cast_long),
  RT_ATEN_ROW ("_cast_Half", 1, 2, a_cast_half), RT_ATEN_ROW ("_cast_Float", 1, 2, a_cast_float),
  RT_ATEN_ROW ("_cast_Double", 1, 2, a_cast_double),
  RT_ATEN_ROW ("all", 1, 3, a_all), RT_ATEN_ROW ("any", 1, 3, a_any),
  { RT_ATEN ("aminmax"), RT_IN (1, 3), RT_OUT (2, 2), .run = a_aminmax },
  RT_ATEN_ROW ("is_floating_point", 1, 1, a_is_floating_point), RT_ATEN_ROW ("item", 1, 1, a_item),
  RT_ATEN_ROW ("scalar_tensor", 1, 5, a_scalar_tensor), RT_ATEN_ROW ("_shape_as_tensor", 1, 1, a_shape_as_tensor),
  RT_ATEN_ROW ("_reshape_from_tensor", 2, 2, a_reshape_from_tensor), RT_ATEN_ROW ("numpy_T", 1, 1, a_numpy_t),
  RT_ATEN_ROW ("_log_softmax", 2, 3, a_log_softmax_internal), RT_ATEN_ROW ("_dim_arange", 2, 2, a_dim_arange),
  RT_ATEN_ROW ("linspace", 3, 7, a_linspace), RT_ATEN_ROW ("nonzero", 1, 1, a_nonzero), RT_ATEN_ROW ("masked_select", 2, 2, a_masked_select),
  { RT_ATEN ("nonzero_numpy"), RT_IN (1, 1), RT_OUT (1, RT_MAX_RANK), .run = aten_nonzero_numpy },
  RT_ATEN_ROW ("masked_scatter", 3, 3, a_masked_scatter),
};

RT_KERNEL_TABLE (rt_kernels_aten_extra, defs);
