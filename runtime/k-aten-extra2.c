/* More ATen ops of torch 1.13's exporter: native_layer_norm (with mean and
 * rstd), hann_window, bucketize, cdist, tensordot, _weight_norm,
 * linalg_det / logdet (LU with partial pivoting, in double), as_strided. */
#include "runtime/k-aten-private.h"
#include <math.h>

static gboolean
floats (RtCall *call, guint i, const RtTensor **t, GError **error)
{
  *t = aten_arg (call, i);
  if (!aten_is_float (*t))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "argument %u must be a float or double tensor", i);
      return FALSE;
    }
  return TRUE;
}

/* native_layer_norm(input, normalized_shape, weight?, bias?, eps) →
 * (output, mean, rstd); mean and rstd keep the leading dims, 1s after. */
static gboolean
a_native_layer_norm (RtCall *call, GError **error)
{
  const RtTensor *x, *ns = aten_arg (call, 1), *w = aten_arg (call, 2), *b = aten_arg (call, 3);
  if (!floats (call, 0, &x, error))
    return FALSE;
  guint k = ns ? (guint) ns->numel : 0;
  gboolean ok = ns && graph_dtype_is_integer (ns->dtype) && k <= x->rank;
  for (guint i = 0; ok && i < k; i++)
    ok = rt_get_i64 (ns, i) == x->dims[x->rank - k + i];
  gint64 len = ok ? rt_shape_numel (k, x->dims + x->rank - k) : 0;
  if (!ok || (w && w->numel != len) || (b && b->numel != len))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "normalized_shape, weight and bias must match the input's last dims");
      return FALSE;
    }
  gint64 sdims[RT_MAX_RANK];
  memcpy (sdims, x->dims, sizeof (gint64) * x->rank);
  for (guint i = x->rank - k; i < x->rank; i++)
    sdims[i] = 1;
  RtTensor *o = rt_call_output_like (call, 0, x, error);
  RtTensor *mo = o ? rt_call_output (call, 1, x->dtype, x->rank, sdims, error) : NULL;
  RtTensor *ro = mo ? rt_call_output (call, 2, x->dtype, x->rank, sdims, error) : NULL;
  if (ro == NULL)
    return FALSE;
  double eps = aten_f (call, 4, 1e-5);
  gsize es = rt_dtype_size (x->dtype);
  gint64 groups = len ? x->numel / len : 0;
  for (gint64 g = 0; g < groups; g++)
    {
      double mean = 0, var = 0;
      for (gint64 i = 0; i < len; i++)
        mean += rt_get_f64 (x, g * len + i);
      mean /= (double) len;
      for (gint64 i = 0; i < len; i++)
        {
          double d = rt_get_f64 (x, g * len + i) - mean;
          var += d * d;
        }
      double rstd = 1.0 / sqrt (var / (double) len + eps);
      for (gint64 i = 0; i < len; i++)
        {
          double v = (rt_get_f64 (x, g * len + i) - mean) * rstd;
          if (w)
            v *= rt_get_f64 (w, i);
          if (b)
            v += rt_get_f64 (b, i);
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + (g * len + i) * (gint64) es, x->dtype, 1);
        }
      rt_convert (&mean, GRAPH_DTYPE_DOUBLE, (char *) mo->data + g * (gint64) es, x->dtype, 1);
      rt_convert (&rstd, GRAPH_DTYPE_DOUBLE, (char *) ro->data + g * (gint64) es, x->dtype, 1);
    }
  return TRUE;
}

/* hann_window(n, dtype?, ...) or hann_window(n, periodic, dtype?, ...) */
static gboolean
a_hann_window (RtCall *call, GError **error)
{
  gboolean has_periodic = call->n_inputs >= 6;
  gint64 n = aten_i (call, 0, -1);
  gboolean periodic = has_periodic ? aten_i (call, 1, 1) != 0 : TRUE;
  GraphDType dt = GRAPH_DTYPE_FLOAT;
  guint di = has_periodic ? 2 : 1;
  if (n < 0 || n > ((gint64) 1 << 32) || (aten_arg (call, di) && !aten_scalar_type (aten_i (call, di, 6), &dt))
      || !graph_dtype_is_floating (dt))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "window_length must be >= 0 and the dtype floating");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, dt, 1, &n, error);
  if (o == NULL)
    return FALSE;
  double N = (double) (periodic ? n : n - 1);
  gsize es = rt_dtype_size (dt);
  for (gint64 i = 0; i < n; i++)
    {
      double v = n == 1 ? 1 : 0.5 - 0.5 * cos (2 * G_PI * (double) i / N);
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, dt, 1);
    }
  return TRUE;
}

/* bucketize(self, boundaries, out_int32, right) */
static gboolean
a_bucketize (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *bd = aten_arg (call, 1);
  if (x == NULL || bd == NULL || bd->rank != 1 || x->dtype == GRAPH_DTYPE_STRING || bd->dtype == GRAPH_DTYPE_STRING)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a tensor and 1-D boundaries");
      return FALSE;
    }
  gboolean i32 = aten_i (call, 2, 0) != 0, right = aten_i (call, 3, 0) != 0;
  RtTensor *o = rt_call_output (call, 0, i32 ? GRAPH_DTYPE_INT32 : GRAPH_DTYPE_INT64, x->rank, x->dims, error);
  if (o == NULL)
    return FALSE;
  for (gint64 i = 0; i < x->numel; i++)
    {
      double v = rt_get_f64 (x, i);
      gint64 lo = 0, hi = bd->numel;
      while (lo < hi)
        {
          gint64 mid = lo + (hi - lo) / 2;
          double m = rt_get_f64 (bd, mid);
          if (right ? m <= v : m < v)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (i32)
        ((gint32 *) o->data)[i] = (gint32) lo;
      else
        ((gint64 *) o->data)[i] = lo;
    }
  return TRUE;
}

/* cdist(x1 (..., P, M), x2 (..., R, M), p, compute_mode?) → (..., P, R) */
static gboolean
a_cdist (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  if (!floats (call, 0, &a, error) || !floats (call, 1, &b, error))
    return FALSE;
  if (a->rank < 2 || a->rank != b->rank || a->dtype != b->dtype || a->dims[a->rank - 1] != b->dims[b->rank - 1]
      || memcmp (a->dims, b->dims, sizeof (gint64) * (a->rank - 2)) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs (..., P, M) and (..., R, M) of one float type");
      return FALSE;
    }
  double p = aten_f (call, 2, 2);
  if (p < 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "p must be >= 0");
      return FALSE;
    }
  guint r = a->rank;
  gint64 P = a->dims[r - 2], R = b->dims[r - 2], M = a->dims[r - 1], B = rt_shape_numel (r - 2, a->dims);
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, sizeof (gint64) * r);
  dims[r - 1] = R;
  RtTensor *o = rt_call_output (call, 0, a->dtype, r, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 bb = 0; bb < B; bb++)
    for (gint64 i = 0; i < P; i++)
      for (gint64 j = 0; j < R; j++)
        {
          double s = 0;
          for (gint64 m = 0; m < M; m++)
            {
              double d = fabs (rt_get_f64 (a, (bb * P + i) * M + m) - rt_get_f64 (b, (bb * R + j) * M + m));
              s = isinf (p) ? MAX (s, d) : p == 0 ? s + (d != 0) : s + pow (d, p);
            }
          double v = isinf (p) || p == 0 ? s : pow (s, 1.0 / p);
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + ((bb * P + i) * R + j) * (gint64) es, a->dtype, 1);
        }
  return TRUE;
}

/* tensordot(self, other, dims_self, dims_other): the listed dims
 * contracted pairwise; the result's dims are self's free dims, then
 * other's. */
static gboolean
a_tensordot (RtCall *call, GError **error)
{
  const RtTensor *a, *b, *da = aten_arg (call, 2), *db = aten_arg (call, 3);
  if (!floats (call, 0, &a, error) || !floats (call, 1, &b, error))
    return FALSE;
  if (da == NULL || db == NULL || da->numel != db->numel || a->dtype != b->dtype)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs two tensors of one type and dim lists of one length");
      return FALSE;
    }
  gboolean ca[RT_MAX_RANK] = { 0 }, cb[RT_MAX_RANK] = { 0 };
  guint pa[RT_MAX_RANK], pb[RT_MAX_RANK], n = (guint) da->numel;
  for (guint k = 0; k < n; k++)
    {
      if (!rt_axis (call, rt_get_i64 (da, k), MAX (a->rank, 1), &pa[k], error)
          || !rt_axis (call, rt_get_i64 (db, k), MAX (b->rank, 1), &pb[k], error))
        return FALSE;
      if (ca[pa[k]] || cb[pb[k]] || a->dims[pa[k]] != b->dims[pb[k]])
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "contracted dims must be distinct and of equal sizes");
          return FALSE;
        }
      ca[pa[k]] = cb[pb[k]] = TRUE;
    }
  gint64 dims[RT_MAX_RANK], sta[RT_MAX_RANK], stb[RT_MAX_RANK], os[2 * RT_MAX_RANK], kd[RT_MAX_RANK];
  guint rank = 0, fa = 0;
  rt_contiguous_strides (a->rank, a->dims, sta);
  rt_contiguous_strides (b->rank, b->dims, stb);
  for (guint d = 0; d < a->rank; d++)
    if (!ca[d])
      {
        if (rank >= RT_MAX_RANK)
          break;
        os[rank] = sta[d];
        dims[rank++] = a->dims[d];
      }
  fa = rank;
  for (guint d = 0; d < b->rank; d++)
    if (!cb[d])
      {
        if (rank >= RT_MAX_RANK)
          {
            rt_call_error (call, error, RT_ERROR_SHAPE, "result rank above %d", RT_MAX_RANK);
            return FALSE;
          }
        os[rank] = stb[d];
        dims[rank++] = b->dims[d];
      }
  for (guint k = 0; k < n; k++)
    kd[k] = a->dims[pa[k]];
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 oa = 0, ob = 0;
      for (guint d = 0; d < rank; d++)
        {
          if (d < fa)
            oa += c[d] * os[d];
          else
            ob += c[d] * os[d];
        }
      double s = 0;
      gint64 kc[RT_MAX_RANK] = { 0 }, total = rt_shape_numel (n, kd);
      for (gint64 t = 0; t < total; t++)
        {
          gint64 xa = oa, xb = ob;
          for (guint k = 0; k < n; k++)
            {
              xa += kc[k] * sta[pa[k]];
              xb += kc[k] * stb[pb[k]];
            }
          s += rt_get_f64 (a, xa) * rt_get_f64 (b, xb);
          rt_index_next (kc, kd, n);
        }
      rt_convert (&s, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, a->dtype, 1);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

/* _weight_norm(v, g, dim=0) = v * g / ||v|| (the norm over every dim but dim) */
static gboolean
a_weight_norm (RtCall *call, GError **error)
{
  const RtTensor *v, *g;
  guint ax;
  if (!floats (call, 0, &v, error) || !floats (call, 1, &g, error) || v->rank == 0
      || !rt_axis (call, aten_i (call, 2, 0), v->rank, &ax, error))
    return FALSE;
  gint64 n = v->dims[ax], inner = rt_shape_inner (v->rank, v->dims, ax);
  gint64 outer = rt_shape_numel (ax, v->dims);
  if (g->numel != n)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "g must have %" G_GINT64_FORMAT " elements", n);
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, v, error);
  double *norm = o ? rt_call_scratch_n (call, 1, (gsize) MAX (n, 1) * sizeof (double), error) : NULL;
  if (norm == NULL)
    return FALSE;
  memset (norm, 0, (gsize) MAX (n, 1) * sizeof (double));
  for (gint64 i = 0; i < v->numel; i++)
    {
      double x = rt_get_f64 (v, i);
      norm[(i / inner) % n] += x * x;
    }
  gsize es = rt_dtype_size (v->dtype);
  (void) outer;
  for (gint64 i = 0; i < v->numel; i++)
    {
      gint64 c = (i / inner) % n;
      double y = rt_get_f64 (v, i) * rt_get_f64 (g, c) / sqrt (norm[c]);
      rt_convert (&y, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, v->dtype, 1);
    }
  return TRUE;
}

/* det of each (..., n, n) matrix by LU with partial pivoting; logdet:
 * log(det), NaN for a negative determinant. */
static gboolean
determinant (RtCall *call, gboolean log_of, GError **error)
{
  const RtTensor *a;
  if (!floats (call, 0, &a, error))
    return FALSE;
  if (a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2] || a->dims[a->rank - 1] > 4096)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs square matrices (..., n, n)");
      return FALSE;
    }
  gint64 n = a->dims[a->rank - 1], B = rt_shape_numel (a->rank - 2, a->dims);
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank - 2, a->dims, error);
  double *m = o ? rt_call_scratch_n (call, 1, (gsize) MAX (n * n, 1) * sizeof (double), error) : NULL;
  if (m == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 bb = 0; bb < B; bb++)
    {
      for (gint64 i = 0; i < n * n; i++)
        m[i] = rt_get_f64 (a, bb * n * n + i);
      double det = 1;
      for (gint64 c = 0; c < n && det != 0; c++)
        {
          gint64 piv = c;
          for (gint64 r = c + 1; r < n; r++)
            if (fabs (m[r * n + c]) > fabs (m[piv * n + c]))
              piv = r;
          if (m[piv * n + c] == 0)
            {
              det = 0;
              break;
            }
          if (piv != c)
            {
              for (gint64 k = 0; k < n; k++)
                {
                  double t = m[c * n + k];
                  m[c * n + k] = m[piv * n + k];
                  m[piv * n + k] = t;
                }
              det = -det;
            }
          det *= m[c * n + c];
          for (gint64 r = c + 1; r < n; r++)
            {
              double f = m[r * n + c] / m[c * n + c];
              for (gint64 k = c; k < n; k++)
                m[r * n + k] -= f * m[c * n + k];
            }
        }
      double v = log_of ? (det < 0 ? NAN : log (det)) : det;
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + bb * (gint64) es, a->dtype, 1);
    }
  return TRUE;
}

static gboolean a_det (RtCall *c, GError **e) { return determinant (c, FALSE, e); }
static gboolean a_logdet (RtCall *c, GError **e) { return determinant (c, TRUE, e); }

/* as_strided(self, size, stride, storage_offset?): a view of self's
 * (contiguous) elements; every element read must lie inside them. */
static gboolean
a_as_strided (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *sz = aten_arg (call, 1), *st = aten_arg (call, 2);
  if (a == NULL || sz == NULL || st == NULL || sz->numel != st->numel || sz->numel > RT_MAX_RANK
      || !graph_dtype_is_integer (sz->dtype) || !graph_dtype_is_integer (st->dtype))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "size and stride must be int lists of one length");
      return FALSE;
    }
  guint rank = (guint) sz->numel;
  gint64 dims[RT_MAX_RANK], strides[RT_MAX_RANK], off = aten_i (call, 3, 0), last = off;
  gboolean empty = FALSE;
  for (guint d = 0; d < rank; d++)
    {
      dims[d] = rt_get_i64 (sz, d);
      strides[d] = rt_get_i64 (st, d);
      if (dims[d] < 0 || strides[d] < 0 || dims[d] > ((gint64) 1 << 40) || strides[d] > ((gint64) 1 << 40))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "sizes and strides must be small and non-negative");
          return FALSE;
        }
      empty |= dims[d] == 0;
      if (dims[d] > 0)
        last += (dims[d] - 1) * strides[d];
    }
  if (off < 0 || (!empty && last >= a->numel))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the view reads past the tensor's %" G_GINT64_FORMAT " elements",
                     a->numel);
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 at = off;
      for (guint d = 0; d < rank; d++)
        at += c[d] * strides[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + at * (gint64) es, es);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}


static const RtKernelDef defs[] = {
  { RT_ATEN ("native_layer_norm"), RT_IN (2, 5), RT_OUT (3, 3), .run = a_native_layer_norm },
  RT_ATEN_ROW ("hann_window", 1, 6, a_hann_window), RT_ATEN_ROW ("bucketize", 2, 4, a_bucketize), RT_ATEN_ROW ("cdist", 2, 4, a_cdist),
  RT_ATEN_ROW ("tensordot", 4, 4, a_tensordot), RT_ATEN_ROW ("_weight_norm", 2, 3, a_weight_norm),
  RT_ATEN_ROW ("linalg_det", 1, 1, a_det), RT_ATEN_ROW ("det", 1, 1, a_det), RT_ATEN_ROW ("logdet", 1, 1, a_logdet),
  RT_ATEN_ROW ("as_strided", 3, 4, a_as_strided),
};

RT_KERNEL_TABLE (rt_kernels_aten_extra2, defs);
