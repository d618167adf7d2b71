/* ATen fake quantization (quantization-aware training's observers, as a
 * trace of a QAT model records them): x quantized to integers in
 * [quant_min, quant_max] and back, in float as torch 1.13's CPU kernels
 * compute it:
 *   (clamp (nearbyint (x * (1.0f / scale)) + zero_point, qmin, qmax) - zero_point) * scale.
 * The quantize_per_tensor / dequantize pair needs quantized tensor types,
 * which the executor does not have: those stay without a kernel. */
#include "runtime/k-aten-private.h"
#include <math.h>

/* Checks torch's: quant_min <= quant_max, zero_point within them, a
 * float input. */
static gboolean
check_range (RtCall *call, const RtTensor *x, gint64 qmin, gint64 qmax, GError **error)
{
  if (x->dtype != GRAPH_DTYPE_FLOAT)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "fake quantization needs a float tensor (got %s)",
                     graph_dtype_name (x->dtype));
      return FALSE;
    }
  if (qmin > qmax)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "quant_min %" G_GINT64_FORMAT " is above quant_max %"
                     G_GINT64_FORMAT, qmin, qmax);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_qparams (RtCall *call, float scale, gint64 zp, gint64 qmin, gint64 qmax, GError **error)
{
  if (!(scale > 0) || !isfinite (scale))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "scale must be positive and finite (got %g)", scale);
      return FALSE;
    }
  if (zp < qmin || zp > qmax)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "zero_point %" G_GINT64_FORMAT " is outside [%"
                     G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", zp, qmin, qmax);
      return FALSE;
    }
  return TRUE;
}

static float
fake_quant (float x, float scale, gint64 zp, gint64 qmin, gint64 qmax)
{
  float inv = 1.0f / scale;
  gint64 q = zp + (gint64) nearbyintf (x * inv);
  q = CLAMP (q, qmin, qmax);
  return (float) (q - zp) * scale;
}

/* fake_quantize_per_tensor_affine(self, scale, zero_point, quant_min,
 * quant_max): scale and zero_point numbers or one-element tensors. */
static gboolean
a_fake_quantize_per_tensor (RtCall *call, GError **error)
{
  const RtTensor *x, *s = aten_arg (call, 1), *z = aten_arg (call, 2);
  if (!aten_tensor_arg (call, 0, &x, error))
    return FALSE;
  if (s == NULL || z == NULL || s->numel != 1 || z->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "scale and zero_point must be single values");
      return FALSE;
    }
  gint64 qmin = aten_i (call, 3, 0), qmax = aten_i (call, 4, 255), zp = (gint64) nearbyint (rt_get_f64 (z, 0));
  float scale = (float) rt_get_f64 (s, 0);
  if (!check_range (call, x, qmin, qmax, error) || !check_qparams (call, scale, zp, qmin, qmax, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, x->dtype, x->rank, x->dims, error);
  if (o == NULL)
    return FALSE;
  const float *src = x->data;
  float *dst = o->data;
  for (gint64 i = 0; i < x->numel; i++)
    dst[i] = fake_quant (src[i], scale, zp, qmin, qmax);
  return TRUE;
}

/* fake_quantize_per_channel_affine(self, scale (C), zero_point (C), axis,
 * quant_min, quant_max) */
static gboolean
a_fake_quantize_per_channel (RtCall *call, GError **error)
{
  const RtTensor *x, *s = aten_arg (call, 1), *z = aten_arg (call, 2);
  if (!aten_tensor_arg (call, 0, &x, error))
    return FALSE;
  gint64 axis = aten_i (call, 3, 0);
  if (axis < 0 || axis >= (gint64) x->rank)   /* torch takes no negative axis here */
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "axis %" G_GINT64_FORMAT " is outside [0, %u)", axis,
                     x->rank);
      return FALSE;
    }
  guint ax = (guint) axis;
  gint64 qmin = aten_i (call, 4, 0), qmax = aten_i (call, 5, 255);
  gint64 C = x->dims[ax];
  if (s == NULL || z == NULL || s->rank != 1 || z->rank != 1 || s->numel != C || z->numel != C
      || !graph_dtype_is_floating (s->dtype)
      || (z->dtype != GRAPH_DTYPE_INT32 && z->dtype != GRAPH_DTYPE_FLOAT && z->dtype != GRAPH_DTYPE_FLOAT16))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "scale (float) and zero_point (int32, float or half) must be "
                     "1-D with one value per channel (%" G_GINT64_FORMAT ")", C);
      return FALSE;
    }
  if (!check_range (call, x, qmin, qmax, error))
    return FALSE;
  for (gint64 c = 0; c < C; c++)
    if (!check_qparams (call, (float) rt_get_f64 (s, c), (gint64) nearbyint (rt_get_f64 (z, c)), qmin, qmax, error))
      return FALSE;
  RtTensor *o = rt_call_output (call, 0, x->dtype, x->rank, x->dims, error);
  if (o == NULL)
    return FALSE;
  gint64 inner = rt_shape_numel (x->rank - ax - 1, x->dims + ax + 1);
  const float *src = x->data;
  float *dst = o->data;
  for (gint64 i = 0; i < x->numel; i++)
    {
      gint64 c = (i / inner) % C;
      dst[i] = fake_quant (src[i], (float) rt_get_f64 (s, c), (gint64) nearbyint (rt_get_f64 (z, c)), qmin, qmax);
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("fake_quantize_per_tensor_affine", 5, 5, a_fake_quantize_per_tensor),
  RT_ATEN_ROW ("fake_quantize_per_channel_affine", 6, 6, a_fake_quantize_per_channel),
};

RT_KERNEL_TABLE (rt_kernels_aten_quant, defs);
