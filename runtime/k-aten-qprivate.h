/* Shared by the quantized kernels (runtime/k-aten-qconv.c,
 * k-aten-qops.c): quantized arguments and outputs (Note [Quantized
 * tensors], runtime/kernel.h). */
#pragma once

#include "runtime/k-aten-private.h"
#include <math.h>

/* The integer range of a quantized element type: quint8, qint8, qint32. */
static inline gboolean
aten_q_range (GraphDType dt, gint64 *lo, gint64 *hi)
{
  switch (dt)
    {
    case GRAPH_DTYPE_UINT8: *lo = 0; *hi = 255; return TRUE;
    case GRAPH_DTYPE_INT8: *lo = -128; *hi = 127; return TRUE;
    case GRAPH_DTYPE_INT32: *lo = G_MININT32; *hi = G_MAXINT32; return TRUE;
    default: *lo = *hi = 0; return FALSE;
    }
}

/* Argument i as a quantized tensor (of one of `dtypes`' types, RT_DT
 * bits; 0: any quantized type). */
static inline gboolean
aten_q_arg (RtCall *call, guint i, guint32 dtypes, const RtTensor **t, GError **error)
{
  if (!aten_tensor_arg (call, i, t, error))
    return FALSE;
  gint64 lo, hi;
  if (!rt_is_quantized (*t) || !aten_q_range ((*t)->dtype, &lo, &hi))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "argument %u must be a quantized tensor (got %s %s)", i,
                     rt_is_quantized (*t) ? "quantized" : "a plain", graph_dtype_name ((*t)->dtype));
      return FALSE;
    }
  if (dtypes && !(dtypes & (1u << (*t)->dtype)))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "argument %u: quantized %s tensors have no kernel here",
                     i, graph_dtype_name ((*t)->dtype));
      return FALSE;
    }
  return TRUE;
}

/* A scale and zero point for element type dt: scale positive and finite,
 * zero point within dt's range (what torch checks). */
static inline gboolean
aten_q_check_params (RtCall *call, GraphDType dt, double scale, gint64 zp, GError **error)
{
  gint64 lo, hi;
  if (!aten_q_range (dt, &lo, &hi))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "%s is not a quantized element type",
                     graph_dtype_name (dt));
      return FALSE;
    }
  if (!(scale > 0) || !isfinite (scale) || (float) scale <= 0 || !isfinite ((float) scale))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "scale must be positive and finite (got %g)", scale);
      return FALSE;
    }
  if (zp < lo || zp > hi)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "zero_point %" G_GINT64_FORMAT " is outside [%"
                     G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", zp, lo, hi);
      return FALSE;
    }
  return TRUE;
}

/* Output i, quantized with (scale, zp) (checked). */
static inline RtTensor *
aten_q_output (RtCall *call, guint i, GraphDType dt, guint rank, const gint64 *dims, double scale, gint64 zp,
               GError **error)
{
  if (!aten_q_check_params (call, dt, scale, zp, error))
    return NULL;
  RtTensor *o = rt_call_output (call, i, dt, rank, dims, error);
  if (o)
    rt_set_quantized (o, scale, zp);
  return o;
}

/* Element i of an integer tensor of a quantized type. */
static inline gint64
aten_q_get (const RtTensor *t, gint64 i)
{
  switch (t->dtype)
    {
    case GRAPH_DTYPE_UINT8: return ((const guint8 *) t->data)[i];
    case GRAPH_DTYPE_INT8: return ((const gint8 *) t->data)[i];
    default: return ((const gint32 *) t->data)[i];
    }
}

/* Element i := v clamped to [lo, hi] (the caller's range within the type's). */
static inline void
aten_q_put (RtTensor *t, gint64 i, gint64 v, gint64 lo, gint64 hi)
{
  v = v < lo ? lo : v > hi ? hi : v;
  switch (t->dtype)
    {
    case GRAPH_DTYPE_UINT8: ((guint8 *) t->data)[i] = (guint8) v; break;
    case GRAPH_DTYPE_INT8: ((gint8 *) t->data)[i] = (gint8) v; break;
    default: ((gint32 *) t->data)[i] = (gint32) v; break;
    }
}

/* nearbyintf of a float as an int64, saturated at ±2^40 (past every
 * quantized range, with room to add a zero point; NaN → 0). */
static inline gint64
aten_q_round (float v)
{
  const float lim = 1099511627776.0f;
  if (isnan (v))
    return 0;
  if (v >= lim)
    return (gint64) lim;
  if (v <= -lim)
    return -(gint64) lim;
  return (gint64) nearbyintf (v);
}
