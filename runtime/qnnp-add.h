/* QNNPACK's quantized uint8 add, the arithmetic PyTorch's quantized::add
 * and add_relu run with the qnnpack engine (Note [QNNPACK's add],
 * runtime/qnnp-add.c).  One implementation for the trace run's kernel
 * (runtime/k-aten-qops.c) and the executor's fused DequantizeLinear → Add
 * [→ Relu] → QuantizeLinear chains (runtime/fuse-qadd.c). */
#pragma once

#include <glib.h>

typedef struct
{
  float   a_ratio, b_ratio;   /* input scale / output scale, as QNNPACK computes them */
  gint64  a_mult, b_mult;     /* the ratios as multipliers of 2^-shift, below 2^22 */
  gint64  zero_point_product; /* -(a_mult * a_zp + b_mult * b_zp) */
  guint32 shift;              /* in [14, 31] */
  gint64  rem_mask, rem_thr;
  gint64  y_zp, y_min, y_max;
} RtQnnpAdd;

/* The parameters of y = a + b with scales and zero points as QNNPACK sees
 * them: float scales (PyTorch's double ones cast to float), uint8 zero
 * points; relu clamps below at y_zp.  FALSE (p->a_ratio and p->b_ratio
 * set) when a ratio is outside [2^-14, 2^8), which QNNPACK refuses, or a
 * zero point outside [0, 255]. */
gboolean rt_qnnp_add_init (RtQnnpAdd *p, float a_scale, gint64 a_zp, float b_scale, gint64 b_zp,
                           float y_scale, gint64 y_zp, gboolean relu);
/* y[i] := QNNPACK's a[i] + b[i], i in [begin, end). */
void     rt_qnnp_add_u8 (const RtQnnpAdd *p, const guint8 *a, const guint8 *b, guint8 *y,
                         gint64 begin, gint64 end);
