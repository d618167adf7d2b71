/* Quantized convolution and linear layers of a trace
 * (quantized::conv2d, conv2d_relu, linear, linear_relu), as PyTorch 1.13's
 * QNNPACK kernels compute them (the quantized engine of Debian's torch,
 * which has no FBGEMM), all in float with round half to even:
 *   s    = (float) w_scale * (float) x_scale
 *   bq   = nearbyintf (bias * (1.0f / s))                     the int32 bias
 *   acc  = sum of (x - x_zp) (w - w_zp), exact, + bq
 *   y    = clamp (nearbyintf ((float) acc * (s * (1.0f / y_scale))) + y_zp)
 * over the output type's range ([y_zp, max] with the fused ReLU).  Each
 * step's order matters: torch's inputs put 1 in 3000 outputs on a half
 * step, where (w_scale * x_scale) / y_scale rounds the other way.
 * tools/gen_quant_refs.py checks this against torch element for element.
 * The packed weights arrive unpacked (Note [Packed parameters in the trace
 * run], verify/runnable.c). */
#include "runtime/k-aten-qprivate.h"
#include "runtime/spatial.h"
#include <string.h>

typedef struct
{
  const RtTensor *w, *scale, *zp, *bias;
  gint64 M;   /* output channels / features */
} QWeight;

/* Arguments i..i+4: the weight's integers, scale, zero point, axis, bias. */
static gboolean
q_weight (RtCall *call, guint i, guint rank, QWeight *q, GError **error)
{
  q->w = aten_arg (call, i);
  q->scale = aten_arg (call, i + 1);
  q->zp = aten_arg (call, i + 2);
  q->bias = aten_arg (call, i + 4);
  const RtTensor *axis = aten_arg (call, i + 3);
  if (q->w == NULL || q->w->rank != rank || (q->w->dtype != GRAPH_DTYPE_INT8 && q->w->dtype != GRAPH_DTYPE_UINT8)
      || rt_is_quantized (q->w))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "the packed weight must be int8 or uint8 integers of "
                     "rank %u (the unpacked parameters: Note [Packed parameters in the trace run])", rank);
      return FALSE;
    }
  q->M = q->w->dims[0];
  if (axis && (axis->numel != 1 || rt_get_i64 (axis, 0) != 0))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "per-channel weights must be quantized along axis 0");
      return FALSE;
    }
  if (q->scale == NULL || q->zp == NULL || !graph_dtype_is_floating (q->scale->dtype)
      || !graph_dtype_is_integer (q->zp->dtype) || !rt_per_tensor_or (q->scale, q->M)
      || !rt_per_tensor_or (q->zp, q->M) || q->scale->numel == 0 || q->zp->numel == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the weight's scale (float) and zero point (integer) must be "
                     "one value or one per output channel (%" G_GINT64_FORMAT ")", q->M);
      return FALSE;
    }
  for (gint64 m = 0; m < q->scale->numel; m++)
    {
      double s = rt_get_f64 (q->scale, m);
      if (!(s > 0) || !isfinite (s))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "weight scale %g is not positive and finite", s);
          return FALSE;
        }
    }
  if (q->bias && (!graph_dtype_is_floating (q->bias->dtype) || q->bias->numel != q->M))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the bias must be float, one per output channel (%"
                     G_GINT64_FORMAT ")", q->M);
      return FALSE;
    }
  return TRUE;
}

/* The integer bias and requantization scale of output channel m. */
static void
q_channel (const QWeight *q, gint64 m, double x_scale, double y_scale, gint64 *bq, float *rs)
{
  float s = (float) rt_get_f64_per (q->scale, m) * (float) x_scale;
  *bq = q->bias ? aten_q_round ((float) rt_get_f64 (q->bias, m) * (1.0f / s)) : 0;
  *rs = s * (1.0f / (float) y_scale);
}

/* Output 0 := requantized acc (M channels of `inner` elements, batches
 * of M * inner). */
static gboolean
q_requantize (RtCall *call, const RtTensor *x, const QWeight *q, const double *acc, guint rank,
              const gint64 *dims, gint64 inner, gboolean relu, double ys, gint64 yz, GError **error)
{
  RtTensor *o = aten_q_output (call, 0, x->dtype, rank, dims, ys, yz, error);
  if (o == NULL)
    return FALSE;
  gint64 lo, hi;
  aten_q_range (o->dtype, &lo, &hi);
  if (relu)
    lo = MAX (lo, yz);
  for (gint64 m = 0; m < q->M; m++)
    {
      gint64 bq;
      float rs;
      q_channel (q, m, x->qscale, ys, &bq, &rs);
      for (gint64 b = 0; b < o->numel / MAX (q->M * inner, 1); b++)
        for (gint64 k = 0; k < inner; k++)
          {
            gint64 i = (b * q->M + m) * inner + k;
            gint64 a = (gint64) acc[i] + bq;
            aten_q_put (o, i, aten_q_round ((float) a * rs) + yz, lo, hi);
          }
    }
  return TRUE;
}

/* A double copy of t minus its zero point(s) (per output channel when
 * zp has one per dim 0 entry), in scratch `which`. */
static double *
q_shifted (RtCall *call, const RtTensor *t, const RtTensor *zp, gint64 zp0, guint which, GError **error)
{
  double *d = rt_call_scratch_n (call, which, (gsize) MAX (t->numel, 1) * sizeof (double), error);
  if (d == NULL)
    return NULL;
  gint64 per = t->rank && t->dims[0] ? t->numel / t->dims[0] : 1;
  for (gint64 i = 0; i < t->numel; i++)
    d[i] = (double) (aten_q_get (t, i) - (zp ? rt_get_i64 (zp, zp->numel == 1 ? 0 : i / per) : zp0));
  return d;
}

/* quantized::conv2d[_relu](qx, w, w_scale, w_zero_point, w_axis, bias,
 * stride, padding, dilation, groups, scale, zero_point). */
static gboolean
q_conv2d (RtCall *call, GError **error)
{
  gboolean relu = GPOINTER_TO_INT (call->data);
  const RtTensor *x;
  QWeight q;
  if (call->n_inputs != 12)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "takes 12 arguments once its packed parameters are "
                     "unpacked (Note [Packed parameters in the trace run]); got %u", call->n_inputs);
      return FALSE;
    }
  if (!aten_q_arg (call, 0, RT_DT (UINT8) | RT_DT (INT8), &x, error) || !q_weight (call, 1, 4, &q, error))
    return FALSE;
  gint64 groups = aten_i (call, 9, 1);
  if (x->rank != 4 || groups <= 0 || groups > x->dims[1] || x->dims[1] % groups || q.M % groups
      || q.w->dims[1] * groups != x->dims[1])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs an (N, C, H, W) input whose C is the weight's dim 1 "
                     "times groups (%" G_GINT64_FORMAT "), which divides the output channels", groups);
      return FALSE;
    }
  static const gint64 ones[2] = { 1, 1 }, zeros[2] = { 0, 0 };
  gint64 stride[2], pad[2], dil[2];
  if (!aten_ints (call, 6, 2, ones, stride, error) || !aten_ints (call, 7, 2, zeros, pad, error)
      || !aten_ints (call, 8, 2, ones, dil, error))
    return FALSE;
  double ys = aten_f (call, 10, 0);
  gint64 yz = aten_i (call, 11, 0);
  if (!aten_q_check_params (call, x->dtype, ys, yz, error))
    return FALSE;
  RtTensor xd = *x, wd = *q.w;
  rt_set_quantized (&xd, 0, 0);
  xd.dtype = wd.dtype = GRAPH_DTYPE_DOUBLE;
  xd.data = q_shifted (call, x, NULL, x->qzero, 2, error);
  wd.data = xd.data ? q_shifted (call, q.w, q.zp, 0, 3, error) : NULL;
  if (wd.data == NULL)
    return FALSE;
  RtWindow w;
  if (!rt_window_set (call, &xd, q.w->dims + 2, stride, dil, pad, pad, FALSE, &w, error))
    return FALSE;
  gint64 dims[4] = { x->dims[0], q.M, w.out[1], w.out[2] };
  gint64 numel = dims[0] * dims[1] * dims[2] * dims[3];
  RtTensor acc = { .dtype = GRAPH_DTYPE_DOUBLE, .rank = 4, .dims = { dims[0], dims[1], dims[2], dims[3] },
                   .numel = numel };
  acc.data = rt_call_scratch_n (call, 1, (gsize) MAX (numel, 1) * sizeof (double), error);
  if (acc.data == NULL || !rt_conv_ex (call, &xd, &wd, NULL, groups, &w, NULL, &acc, NULL, error))
    return FALSE;
  return q_requantize (call, x, &q, acc.data, 4, dims, dims[2] * dims[3], relu, ys, yz, error);
}

/* quantized::linear[_relu](X, w, w_scale, w_zero_point, w_axis, bias,
 * Y_scale_i, Y_zero_point_i): X (..., K), w (N, K). */
static gboolean
q_linear (RtCall *call, GError **error)
{
  gboolean relu = GPOINTER_TO_INT (call->data);
  const RtTensor *x;
  QWeight q;
  if (call->n_inputs != 8)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "takes 8 arguments once its packed parameters are "
                     "unpacked (Note [Packed parameters in the trace run]); got %u", call->n_inputs);
      return FALSE;
    }
  if (!aten_q_arg (call, 0, RT_DT (UINT8) | RT_DT (INT8), &x, error) || !q_weight (call, 1, 2, &q, error))
    return FALSE;
  gint64 K = q.w->dims[1];
  if (x->rank < 1 || x->dims[x->rank - 1] != K)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the input's last dim must be the weight's %" G_GINT64_FORMAT, K);
      return FALSE;
    }
  double ys = aten_f (call, 6, 0);
  gint64 yz = aten_i (call, 7, 0);
  if (!aten_q_check_params (call, x->dtype, ys, yz, error))
    return FALSE;
  gint64 rows = K ? x->numel / K : 0, N = q.M;
  double *acc = rt_call_scratch_n (call, 1, (gsize) MAX (rows * N, 1) * sizeof (double), error);
  if (acc == NULL)
    return FALSE;
  gint64 per = K;
  for (gint64 r = 0; r < rows; r++)
    for (gint64 n = 0; n < N; n++)
      {
        gint64 wz = rt_get_i64 (q.zp, q.zp->numel == 1 ? 0 : n), s = 0;
        for (gint64 k = 0; k < K; k++)
          s += (aten_q_get (x, r * K + k) - x->qzero) * (aten_q_get (q.w, n * per + k) - wz);
        /* transposed to (rows, N) below: q_requantize walks channels as dim -2 */
        acc[n * rows + r] = (double) s;
      }
  /* requantize in (N, rows) order, then put back as (rows, N) */
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, x->dims, x->rank * sizeof (gint64));
  dims[x->rank - 1] = N;
  RtTensor *o = aten_q_output (call, 0, x->dtype, x->rank, dims, ys, yz, error);
  if (o == NULL)
    return FALSE;
  gint64 lo, hi;
  aten_q_range (o->dtype, &lo, &hi);
  if (relu)
    lo = MAX (lo, yz);
  for (gint64 n = 0; n < N; n++)
    {
      gint64 bq;
      float rs;
      q_channel (&q, n, x->qscale, ys, &bq, &rs);
      for (gint64 r = 0; r < rows; r++)
        aten_q_put (o, r * N + n, aten_q_round ((float) ((gint64) acc[n * rows + r] + bq) * rs) + yz, lo, hi);
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_DOMAIN ("quantized", "conv2d", 0), RT_IN (4, 12), RT_OUT (1, 1), .run = q_conv2d, .data = GINT_TO_POINTER (0) },
  { RT_DOMAIN ("quantized", "conv2d_relu", 0), RT_IN (4, 12), RT_OUT (1, 1), .run = q_conv2d, .data = GINT_TO_POINTER (1) },
  { RT_DOMAIN ("quantized", "linear", 0), RT_IN (4, 8), RT_OUT (1, 1), .run = q_linear, .data = GINT_TO_POINTER (0) },
  { RT_DOMAIN ("quantized", "linear_relu", 0), RT_IN (4, 8), RT_OUT (1, 1), .run = q_linear, .data = GINT_TO_POINTER (1) },
};

RT_KERNEL_TABLE (rt_kernels_aten_qconv, defs);
