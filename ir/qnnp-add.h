/* QNNPACK's quantized uint8 add, the arithmetic PyTorch's quantized::add
 * and add_relu run with the qnnpack engine (Note [QNNPACK's add],
 * ir/qnnp-add.c): its parameters, shared by the exporter (which writes the
 * arithmetic as ONNX integer nodes, symbolic/quantized.c) and the executor
 * (the trace run's kernel, runtime/k-aten-qops.c, and the fused
 * DequantizeLinear → Add [→ Relu] → QuantizeLinear chains,
 * runtime/fuse-qadd.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  float   a_ratio, b_ratio;   /* input scale / output scale, as QNNPACK computes them */
  gint64  a_mult, b_mult;     /* the ratios as multipliers of 2^-shift, below 2^22 */
  gint64  zero_point_product; /* -(a_mult * a_zp + b_mult * b_zp) */
  guint32 shift;              /* in [14, 31] */
  gint64  rem_mask, rem_thr;
  gint64  y_zp, y_min, y_max;
} TensorQnnpAdd;

/* The parameters of y = a + b with scales and zero points as QNNPACK sees
 * them: float scales (PyTorch's double ones cast to float), uint8 zero
 * points; relu clamps below at y_zp.  FALSE (p->a_ratio and p->b_ratio
 * set) when a ratio is outside [2^-14, 2^8), which QNNPACK refuses, or a
 * zero point outside [0, 255]. */
gboolean tensor_qnnp_add_init (TensorQnnpAdd *p, float a_scale, gint64 a_zp, float b_scale,
                               gint64 b_zp, float y_scale, gint64 y_zp, gboolean relu);
/* QNNPACK's add of one pair of integers: the int32 sum shifted right by
 * `shift`, rounding half away from zero, plus the output zero point,
 * clamped. */
static inline gint64
tensor_qnnp_add_one (const TensorQnnpAdd *p, gint64 a, gint64 b)
{
  gint64 acc = p->zero_point_product + a * p->a_mult + b * p->b_mult;
  gint64 rem = (acc & p->rem_mask) - (acc < 0);
  acc = (acc >> p->shift) + (rem > p->rem_thr) + p->y_zp;
  return acc < p->y_min ? p->y_min : acc > p->y_max ? p->y_max : acc;
}

G_END_DECLS
