/* Quantized tensors in a trace (Note [Quantized tensors], kernel.h):
 * aten::quantize_per_tensor and dequantize, the quantized:: element-wise
 * ops (add, add_relu, mul, cat, hardswish) and the aten ops PyTorch
 * dispatches to its QuantizedCPU kernels (relu, hardsigmoid, pooling,
 * mean; the shape ops keep their input's parameters), computing what torch
 * 1.13 computes with its QNNPACK engine (Debian's torch has no FBGEMM):
 * - quantize: clamp (nearbyintf (x * (1.0f / scale)) + zp); dequantize:
 *   (float) (q - zp) * (float) scale;
 * - add: QNNPACK's fixed-point sum (ir/qnnp-add.c); mul, cat and the averages
 *   requantize in float, rounding half to even; hardswish and hardsigmoid
 *   are QNNPACK's 256-entry tables.
 * tools/gen_quant_refs.py checks each against torch element for element. */
#include "runtime/k-aten-qprivate.h"
#include "runtime/qnnp-add.h"
#include "runtime/spatial.h"
#include <string.h>

/* ---- quantize_per_tensor, dequantize ---------------------------------------- */

/* aten::quantize_per_tensor(self, scale, zero_point, ScalarType dtype):
 * dtype 13 quint8, 12 qint8, 14 qint32. */
static gboolean
q_quantize_per_tensor (RtCall *call, GError **error)
{
  const RtTensor *x;
  if (!aten_tensor_arg (call, 0, &x, error))
    return FALSE;
  if (!graph_dtype_is_floating (x->dtype) || rt_is_quantized (x))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "quantizes a float tensor (got %s)",
                     graph_dtype_name (x->dtype));
      return FALSE;
    }
  gint64 code = aten_i (call, 3, -1);
  GraphDType dt = code == 13 ? GRAPH_DTYPE_UINT8 : code == 12 ? GRAPH_DTYPE_INT8
                  : code == 14 ? GRAPH_DTYPE_INT32 : GRAPH_DTYPE_UNDEFINED;
  if (dt == GRAPH_DTYPE_UNDEFINED)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "dtype %" G_GINT64_FORMAT " is not quint8 (13), qint8 "
                     "(12) or qint32 (14)", code);
      return FALSE;
    }
  const RtTensor *s = aten_arg (call, 1), *z = aten_arg (call, 2);
  if (s == NULL || z == NULL || s->numel != 1 || z->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "scale and zero_point must be single values");
      return FALSE;
    }
  double scale = rt_get_f64 (s, 0);
  gint64 zp = rt_get_i64 (z, 0), lo, hi;
  RtTensor *o = aten_q_output (call, 0, dt, x->rank, x->dims, scale, zp, error);
  if (o == NULL)
    return FALSE;
  aten_q_range (dt, &lo, &hi);
  float inv = 1.0f / (float) scale;
  for (gint64 i = 0; i < x->numel; i++)
    aten_q_put (o, i, aten_q_round ((float) rt_get_f64 (x, i) * inv) + zp, lo, hi);
  return TRUE;
}

/* aten::dequantize(self) */
static gboolean
q_dequantize (RtCall *call, GError **error)
{
  const RtTensor *x;
  if (!aten_q_arg (call, 0, 0, &x, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_FLOAT, x->rank, x->dims, error);
  if (o == NULL)
    return FALSE;
  float *y = o->data, s = (float) x->qscale;
  for (gint64 i = 0; i < x->numel; i++)
    y[i] = (float) (aten_q_get (x, i) - x->qzero) * s;
  return TRUE;
}

/* aten::int_repr(self): the integers, as a plain tensor. */
static gboolean
q_int_repr (RtCall *call, GError **error)
{
  const RtTensor *x;
  if (!aten_q_arg (call, 0, 0, &x, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, x->dtype, x->rank, x->dims, error);
  if (o && x->numel)
    memcpy (o->data, x->data, (gsize) x->numel * rt_dtype_size (x->dtype));
  return o != NULL;
}

/* ---- binary ops --------------------------------------------------------------- */

/* The output scale and zero point at arguments i, i + 1. */
static gboolean
q_out_params (RtCall *call, guint i, GraphDType dt, double *scale, gint64 *zp, GError **error)
{
  const RtTensor *s = aten_arg (call, i), *z = aten_arg (call, i + 1);
  if (s == NULL || z == NULL || s->numel != 1 || z->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "the output's scale and zero_point (arguments %u, %u) "
                     "must be single values", i, i + 1);
      return FALSE;
    }
  *scale = rt_get_f64 (s, 0);
  *zp = rt_get_i64 (z, 0);
  return aten_q_check_params (call, dt, *scale, *zp, error);
}

/* QNNPACK's quantized add (Note [QNNPACK's add], ir/qnnp-add.c). */
static gboolean
q_add (RtCall *call, GError **error)
{
  gboolean relu = GPOINTER_TO_INT (call->data);
  const RtTensor *a, *b;
  double ys;
  gint64 yz;
  if (!aten_q_arg (call, 0, RT_DT (UINT8), &a, error) || !aten_q_arg (call, 1, RT_DT (UINT8), &b, error)
      || !q_out_params (call, 2, a->dtype, &ys, &yz, error))
    return FALSE;
  if (a->rank != b->rank || memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "adds tensors of one shape (PyTorch's QNNPACK kernel)");
      return FALSE;
    }
  TensorQnnpAdd p;
  if (!tensor_qnnp_add_init (&p, (float) a->qscale, a->qzero, (float) b->qscale, b->qzero, (float) ys, yz, relu))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "input scale / output scale ratios %g and %g: QNNPACK's "
                     "add takes [2^-14, 2^8), the larger one at least 2^-10", p.a_ratio, p.b_ratio);
      return FALSE;
    }
  RtTensor *o = aten_q_output (call, 0, a->dtype, a->rank, a->dims, ys, yz, error);
  if (o == NULL)
    return FALSE;
  rt_qnnp_add_u8 (&p, a->data, b->data, o->data, 0, a->numel);
  return TRUE;
}

/* Broadcast (numpy) offsets: for output index i, the element of t. */
typedef struct
{
  guint rank;
  gint64 dims[RT_MAX_RANK], sa[RT_MAX_RANK], sb[RT_MAX_RANK];
} Bcast;

static gboolean
bcast_init (RtCall *call, const RtTensor *a, const RtTensor *b, Bcast *bc, GError **error)
{
  bc->rank = MAX (a->rank, b->rank);
  gint64 ta = 1, tb = 1;
  for (guint k = bc->rank; k-- > 0;)
    {
      guint ka = k + a->rank - bc->rank, kb = k + b->rank - bc->rank;
      gint64 da = k + a->rank >= bc->rank ? a->dims[ka] : 1, db = k + b->rank >= bc->rank ? b->dims[kb] : 1;
      if (da != db && da != 1 && db != 1)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "shapes do not broadcast (dim %u: %" G_GINT64_FORMAT
                         " and %" G_GINT64_FORMAT ")", k, da, db);
          return FALSE;
        }
      bc->dims[k] = da == 1 ? db : da;
      bc->sa[k] = da == 1 ? 0 : ta;
      bc->sb[k] = db == 1 ? 0 : tb;
      ta *= da;
      tb *= db;
    }
  return TRUE;
}

/* quantized::mul(qa, qb, scale, zero_point): (a - za) (b - zb) in
 * integers, times (float) (sa * sb / scale), rounded half to even
 * (torch's requantize_from_int), with broadcasting. */
static gboolean
q_mul (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  double ys;
  gint64 yz, lo, hi;
  Bcast bc;
  if (!aten_q_arg (call, 0, RT_DT (UINT8), &a, error) || !aten_q_arg (call, 1, RT_DT (UINT8), &b, error)
      || !q_out_params (call, 2, a->dtype, &ys, &yz, error) || !bcast_init (call, a, b, &bc, error))
    return FALSE;
  RtTensor *o = aten_q_output (call, 0, a->dtype, bc.rank, bc.dims, ys, yz, error);
  if (o == NULL)
    return FALSE;
  aten_q_range (o->dtype, &lo, &hi);
  float m = (float) (a->qscale * b->qscale / ys);
  gint64 idx[RT_MAX_RANK] = { 0 }, oa = 0, ob = 0;
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 c = (aten_q_get (a, oa) - a->qzero) * (aten_q_get (b, ob) - b->qzero);
      aten_q_put (o, i, aten_q_round ((float) c * m) + yz, lo, hi);
      for (guint k = bc.rank; k-- > 0;)   /* next index, offsets kept in step */
        {
          oa += bc.sa[k];
          ob += bc.sb[k];
          if (++idx[k] < bc.dims[k])
            break;
          oa -= bc.sa[k] * bc.dims[k];
          ob -= bc.sb[k] * bc.dims[k];
          idx[k] = 0;
        }
    }
  return TRUE;
}

/* quantized::cat(Tensor[] qx, int dim, float? scale, int? zero_point),
 * the list spliced: each input dequantized and quantized again with the
 * output's parameters. */
static gboolean
q_cat (RtCall *call, GError **error)
{
  if (call->n_inputs < 4)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs at least one tensor, dim, scale and zero_point");
      return FALSE;
    }
  guint n = call->n_inputs - 3;
  const RtTensor *first;
  if (!aten_q_arg (call, 0, 0, &first, error))
    return FALSE;
  double ys;
  gint64 yz, lo, hi;
  if (!q_out_params (call, n + 1, first->dtype, &ys, &yz, error))
    return FALSE;
  for (guint k = 1; k < n; k++)
    {
      const RtTensor *t;
      if (!aten_q_arg (call, k, 0, &t, error))
        return FALSE;
    }
  guint ax;
  gint64 dims[RT_MAX_RANK];
  if (!aten_cat_dims (call, n, aten_i (call, n, 0), &ax, dims, error))
    return FALSE;
  RtTensor *o = aten_q_output (call, 0, first->dtype, first->rank, dims, ys, yz, error);
  if (o == NULL)
    return FALSE;
  aten_q_range (o->dtype, &lo, &hi);
  gint64 outer = rt_shape_numel (ax, dims), inner = rt_shape_inner (first->rank, dims, ax);
  gint64 off = 0;
  float inv = 1.0f / (float) ys;
  for (guint k = 0; k < n; k++)
    {
      const RtTensor *t = aten_arg (call, k);
      gint64 rows = t->dims[ax] * inner;
      float s = (float) t->qscale;
      for (gint64 p = 0; p < outer; p++)
        for (gint64 r = 0; r < rows; r++)
          {
            float d = (float) (aten_q_get (t, p * rows + r) - t->qzero) * s;
            aten_q_put (o, p * dims[ax] * inner + off + r, aten_q_round (d * inv) + yz, lo, hi);
          }
      off += rows;
    }
  return TRUE;
}

/* ---- unary ops -------------------------------------------------------------- */

/* QNNPACK's hardswish / hardsigmoid: a table of the 256 quint8 values. */
static float
hardswish_f (float x)
{
  float t = x + 3.0f;
  t = t > 0.0f ? t : 0.0f;
  t = t < 6.0f ? t : 6.0f;
  return x * t / 6.0f;
}

static float
hardsigmoid_f (float x)
{
  float t = x + 3.0f;
  t = t > 0.0f ? t : 0.0f;
  t = t < 6.0f ? t : 6.0f;
  return t / 6.0f;
}

static gboolean
q_table (RtCall *call, const RtTensor *x, float (*f) (float), double ys, gint64 yz, GError **error)
{
  RtTensor *o = aten_q_output (call, 0, x->dtype, x->rank, x->dims, ys, yz, error);
  if (o == NULL)
    return FALSE;
  guint8 lut[256];
  float inv = 1.0f / (float) ys, s = (float) x->qscale;
  for (gint i = 0; i < 256; i++)
    {
      float v = inv * f (s * (float) (i - x->qzero)) + (float) yz;
      v = v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
      lut[i] = (guint8) nearbyintf (v);
    }
  const guint8 *src = x->data;
  guint8 *dst = o->data;
  for (gint64 i = 0; i < x->numel; i++)
    dst[i] = lut[src[i]];
  return TRUE;
}

/* quantized::hardswish(qx, output_scale, output_zero_point) */
static gboolean
q_hardswish (RtCall *call, GError **error)
{
  const RtTensor *x;
  double ys;
  gint64 yz;
  return aten_q_arg (call, 0, RT_DT (UINT8), &x, error) && q_out_params (call, 1, x->dtype, &ys, &yz, error)
         && q_table (call, x, hardswish_f, ys, yz, error);
}

/* aten::hardsigmoid on quint8: output scale 1/256, zero point 0. */
static gboolean
q_hardsigmoid (RtCall *call, GError **error)
{
  const RtTensor *x;
  return aten_q_arg (call, 0, RT_DT (UINT8), &x, error) && q_table (call, x, hardsigmoid_f, 1.0 / 256, 0, error);
}

/* aten::relu: max (q, zero_point), the input's parameters. */
static gboolean
q_relu (RtCall *call, GError **error)
{
  const RtTensor *x;
  gint64 lo, hi;
  if (!aten_q_arg (call, 0, 0, &x, error))
    return FALSE;
  RtTensor *o = aten_q_output (call, 0, x->dtype, x->rank, x->dims, x->qscale, x->qzero, error);
  if (o == NULL)
    return FALSE;
  aten_q_range (x->dtype, &lo, &hi);
  for (gint64 i = 0; i < x->numel; i++)
    aten_q_put (o, i, aten_q_get (x, i), x->qzero, hi);
  return TRUE;
}

/* ---- pooling and mean ----------------------------------------------------------- */

/* The average of `count` elements summing to `sum` (of x's integers),
 * requantized with x's parameters: torch's requantize_from_int of
 * sum - zp * count with multiplier 1 / divisor. */
static inline gint64
q_average (const RtTensor *x, gint64 sum, gint64 count, gint64 divisor)
{
  float m = (float) (1.0 / (double) divisor);
  return aten_q_round ((float) (sum - x->qzero * count) * m) + x->qzero;
}

/* (N, C, H, W) or (C, H, W) as planes of H x W. */
static gboolean
q_planes (RtCall *call, const RtTensor *x, gint64 *planes, gint64 *H, gint64 *W, GError **error)
{
  if (x->rank != 3 && x->rank != 4)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a (N, C, H, W) or (C, H, W) input (got rank %u)", x->rank);
      return FALSE;
    }
  *H = x->dims[x->rank - 2];
  *W = x->dims[x->rank - 1];
  *planes = rt_shape_numel (x->rank - 2, x->dims);
  return TRUE;
}

/* aten::adaptive_avg_pool2d(self, int[2] output_size) */
static gboolean
q_adaptive_avg_pool2d (RtCall *call, GError **error)
{
  const RtTensor *x;
  gint64 planes, H, W, os[2], lo, hi;
  if (!aten_q_arg (call, 0, 0, &x, error) || !q_planes (call, x, &planes, &H, &W, error)
      || !aten_ints (call, 1, 2, NULL, os, error))
    return FALSE;
  if (os[0] <= 0 || os[1] <= 0 || H <= 0 || W <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "output_size and the input's sizes must be positive");
      return FALSE;
    }
  gint64 dims[4];
  memcpy (dims, x->dims, x->rank * sizeof (gint64));
  dims[x->rank - 2] = os[0];
  dims[x->rank - 1] = os[1];
  RtTensor *o = aten_q_output (call, 0, x->dtype, x->rank, dims, x->qscale, x->qzero, error);
  if (o == NULL)
    return FALSE;
  aten_q_range (x->dtype, &lo, &hi);
  for (gint64 p = 0; p < planes; p++)
    for (gint64 oh = 0; oh < os[0]; oh++)
      for (gint64 ow = 0; ow < os[1]; ow++)
        {
          gint64 h0 = oh * H / os[0], h1 = ((oh + 1) * H + os[0] - 1) / os[0];
          gint64 w0 = ow * W / os[1], w1 = ((ow + 1) * W + os[1] - 1) / os[1], sum = 0;
          for (gint64 h = h0; h < h1; h++)
            for (gint64 w = w0; w < w1; w++)
              sum += aten_q_get (x, (p * H + h) * W + w);
          gint64 count = (h1 - h0) * (w1 - w0);
          aten_q_put (o, (p * os[0] + oh) * os[1] + ow, q_average (x, sum, count, count), lo, hi);
        }
  return TRUE;
}

/* max_pool2d(self, kernel_size, stride=[], padding=0, dilation=1,
 * ceil_mode=False) and avg_pool2d(self, kernel_size, stride=[], padding=0,
 * ceil_mode=False, count_include_pad=True, divisor_override=None): the
 * window geometry of the float kernels (rt_window_set), on the integers. */
static gboolean
q_pool2d (RtCall *call, GError **error)
{
  gboolean max = GPOINTER_TO_INT (call->data);
  const RtTensor *x;
  gint64 planes, H, W, k[2], stride[2], pad[2], dil[2], lo, hi;
  static const gint64 ones[2] = { 1, 1 }, zeros[2] = { 0, 0 };
  if (!aten_q_arg (call, 0, 0, &x, error) || !q_planes (call, x, &planes, &H, &W, error)
      || !aten_ints (call, 1, 2, NULL, k, error) || !aten_ints (call, 2, 2, k, stride, error)
      || !aten_ints (call, 3, 2, zeros, pad, error))
    return FALSE;
  /* argument 4 is max_pool2d's dilation, avg_pool2d's ceil_mode */
  if (!max)
    dil[0] = dil[1] = 1;
  else if (!aten_ints (call, 4, 2, ones, dil, error))
    return FALSE;
  gboolean ceil_mode = aten_i (call, max ? 5 : 4, 0) != 0;
  gboolean include_pad = max || aten_i (call, 5, 1) != 0;
  gint64 divisor = max ? 0 : aten_i (call, 6, 0);
  if (divisor < 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "divisor_override must be positive");
      return FALSE;
    }
  /* rt_window_set checks the sizes on a batched view */
  RtTensor view = { .dtype = x->dtype, .rank = 4, .dims = { 1, planes, H, W }, .numel = x->numel, .data = x->data };
  RtWindow w;
  if (!rt_window_set (call, &view, k, stride, dil, pad, pad, ceil_mode, &w, error))
    return FALSE;
  gint64 OH = w.out[1], OW = w.out[2];
  gint64 dims[4];
  memcpy (dims, x->dims, x->rank * sizeof (gint64));
  dims[x->rank - 2] = OH;
  dims[x->rank - 1] = OW;
  RtTensor *o = aten_q_output (call, 0, x->dtype, x->rank, dims, x->qscale, x->qzero, error);
  if (o == NULL)
    return FALSE;
  aten_q_range (x->dtype, &lo, &hi);
  for (gint64 p = 0; p < planes; p++)
    for (gint64 oh = 0; oh < OH; oh++)
      for (gint64 ow = 0; ow < OW; ow++)
        {
          gint64 hs = oh * stride[0] - pad[0], ws = ow * stride[1] - pad[1];
          gint64 best = G_MININT64, sum = 0, count = 0;
          for (gint64 i = 0; i < k[0]; i++)
            for (gint64 j = 0; j < k[1]; j++)
              {
                gint64 h = hs + i * dil[0], c = ws + j * dil[1];
                if (h < 0 || h >= H || c < 0 || c >= W)
                  continue;
                gint64 v = aten_q_get (x, (p * H + h) * W + c);
                best = MAX (best, v);
                sum += v;
                count++;
              }
          gint64 r;
          if (max)
            r = count ? best : lo;
          else
            {
              /* torch's divisor: the window clipped to the padded input
               * (count_include_pad) or to the input */
              gint64 he = MIN (hs + k[0], H + pad[0]), we = MIN (ws + k[1], W + pad[1]);
              gint64 div = divisor ? divisor : include_pad ? (he - hs) * (we - ws) : count;
              r = div > 0 ? q_average (x, sum, count, div) : x->qzero;
            }
          aten_q_put (o, (p * OH + oh) * OW + ow, r, lo, hi);
        }
  return TRUE;
}

/* aten::mean(self, int[1]? dim, bool keepdim=False, ScalarType? dtype=None):
 * the input's parameters. */
static gboolean
q_mean (RtCall *call, GError **error)
{
  const RtTensor *x, *d = aten_arg (call, 1);
  gint64 lo, hi;
  if (!aten_q_arg (call, 0, 0, &x, error))
    return FALSE;
  if (aten_arg (call, 3))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "a dtype argument on a quantized mean has no kernel");
      return FALSE;
    }
  gboolean keep = aten_i (call, 2, 0) != 0, reduce[RT_MAX_RANK] = { FALSE };
  if (d == NULL || d->numel == 0)
    for (guint k = 0; k < x->rank; k++)
      reduce[k] = TRUE;
  else
    for (gint64 k = 0; k < d->numel; k++)
      {
        guint ax;
        if (!graph_dtype_is_integer (d->dtype) || !rt_axis (call, rt_get_i64 (d, k), x->rank, &ax, error))
          {
            if (error && *error == NULL)
              rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "dim must be integers");
            return FALSE;
          }
        reduce[ax] = TRUE;
      }
  gint64 dims[RT_MAX_RANK], count = 1;
  guint rank = 0;
  for (guint k = 0; k < x->rank; k++)
    if (!reduce[k])
      dims[rank++] = x->dims[k];
    else
      {
        count *= x->dims[k];
        if (keep)
          dims[rank++] = 1;
      }
  RtTensor *o = aten_q_output (call, 0, x->dtype, rank, dims, x->qscale, x->qzero, error);
  if (o == NULL)
    return FALSE;
  aten_q_range (x->dtype, &lo, &hi);
  g_autofree gint64 *sums = g_new0 (gint64, MAX (o->numel, 1));
  gint64 idx[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < x->numel; i++)
    {
      gint64 oi = 0;   /* the output element of index idx */
      for (guint k = 0; k < x->rank; k++)
        if (!reduce[k])
          oi = oi * x->dims[k] + idx[k];
      sums[oi] += aten_q_get (x, i);
      for (guint k = x->rank; k-- > 0;)
        {
          if (++idx[k] < x->dims[k])
            break;
          idx[k] = 0;
        }
    }
  for (gint64 i = 0; i < o->numel; i++)
    aten_q_put (o, i, count ? q_average (x, sums[i], count, count) : x->qzero, lo, hi);
  return TRUE;
}

/* ---- ops that move elements ------------------------------------------------------ */

/* Note [Quantized shape ops]: view, flatten, transpose, chunk... move
 * integers as they move floats; the "aten" kernel runs and its outputs of
 * the input's element type take input 0's parameters (size gives int64
 * and stays plain). */
static gboolean
prepare_keep (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset;
  const RtKernelDef *def = rt_registry_lookup ("aten", graph_node_op_type (node), 0);
  if (def == NULL || def->prepare)
    {
      rt_node_error (node, error, RT_ERROR_UNSUPPORTED, "aten::%s has no kernel for quantized tensors",
                     graph_node_op_type (node));
      return FALSE;
    }
  *state = g_memdup2 (&def, sizeof def);
  return TRUE;
}

static gboolean
q_keep (RtCall *call, GError **error)
{
  const RtKernelDef *def = *(const RtKernelDef *const *) call->state;
  const RtTensor *x;
  if (!aten_q_arg (call, 0, 0, &x, error))
    return FALSE;
  RtCall sub = *call;
  sub.data = def->data;
  sub.state = NULL;
  RtTensor plain = *x;
  rt_set_quantized (&plain, 0, 0);
  const RtTensor **ins = g_newa (const RtTensor *, call->n_inputs);
  memcpy (ins, call->inputs, call->n_inputs * sizeof *ins);
  ins[0] = &plain;
  sub.inputs = ins;
  if (!def->run (&sub, error))
    return FALSE;
  for (guint i = 0; i < call->n_outputs; i++)
    {
      RtTensor *o = rt_call_output_tensor (call, i);
      if (o && o->kind == RT_KIND_TENSOR && o->dtype == x->dtype)
        rt_set_quantized (o, x->qscale, x->qzero);
    }
  return TRUE;
}

#define KEEP(op_, lo, hi, outs) \
  { RT_DOMAIN (RT_ATEN_QUANTIZED, op_, 0), RT_IN (lo, hi), RT_OUT (1, outs), .run = q_keep, .prepare = prepare_keep }
#define QROW(dom, op_, lo, hi, fn, d) \
  { RT_DOMAIN (dom, op_, 0), RT_IN (lo, hi), RT_OUT (1, 1), .run = fn, .data = GINT_TO_POINTER (d) }

static const RtKernelDef defs[] = {
  QROW ("aten", "quantize_per_tensor", 4, 4, q_quantize_per_tensor, 0),
  QROW (RT_ATEN_QUANTIZED, "dequantize", 1, 1, q_dequantize, 0),
  QROW (RT_ATEN_QUANTIZED, "int_repr", 1, 1, q_int_repr, 0),
  QROW ("quantized", "add", 4, 4, q_add, 0),
  QROW ("quantized", "add_relu", 4, 4, q_add, 1),
  QROW ("quantized", "mul", 4, 4, q_mul, 0),
  QROW ("quantized", "cat", 4, RT_VARIADIC, q_cat, 0),
  QROW ("quantized", "hardswish", 3, 3, q_hardswish, 0),
  QROW (RT_ATEN_QUANTIZED, "hardsigmoid", 1, 1, q_hardsigmoid, 0),
  QROW (RT_ATEN_QUANTIZED, "relu", 1, 1, q_relu, 0),
  QROW (RT_ATEN_QUANTIZED, "relu_", 1, 1, q_relu, 0),
  QROW (RT_ATEN_QUANTIZED, "adaptive_avg_pool2d", 2, 2, q_adaptive_avg_pool2d, 0),
  QROW (RT_ATEN_QUANTIZED, "max_pool2d", 2, 6, q_pool2d, 1),
  QROW (RT_ATEN_QUANTIZED, "avg_pool2d", 2, 7, q_pool2d, 0),
  QROW (RT_ATEN_QUANTIZED, "mean", 1, 4, q_mean, 0),
  KEEP ("view", 2, 2, 1), KEEP ("reshape", 2, 2, 1), KEEP ("flatten", 1, 3, 1), KEEP ("size", 1, 2, 1),
  KEEP ("contiguous", 1, 2, 1), KEEP ("transpose", 3, 3, 1), KEEP ("permute", 2, 2, 1),
  KEEP ("chunk", 3, 3, RT_VARIADIC), KEEP ("squeeze", 1, 2, 1), KEEP ("unsqueeze", 2, 2, 1),
  KEEP ("clone", 1, 2, 1), KEEP ("detach", 1, 1, 1), KEEP ("dropout", 3, 3, 1),
};

RT_KERNEL_TABLE (rt_kernels_aten_qops, defs);
