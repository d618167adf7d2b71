/* Note [QNNPACK's add]: PyTorch 1.13's quantized::add and add_relu on
 * quint8 tensors of one shape, with the qnnpack engine (the one Debian's
 * torch has), run QNNPACK's q8add (pytorch_qnnp_compute_add_quantization_params
 * and its kernels): each input scale over the output scale, in float, is a
 * multiplier below 2^22 of a common power of two 2^-shift chosen from the
 * larger ratio's exponent (shift = 21 - exponent); the int32 sum
 *     acc = a * a_mult + b * b_mult - (a_mult * a_zp + b_mult * b_zp)
 * is shifted right by `shift`, rounding half away from zero, plus the
 * output zero point, clamped to [y_min, y_max] (y_min = y_zp for add_relu).
 * The dequantize-add-quantize form rounds the exact float sum once, half to
 * even: the two differ on sums near a half step (tools/gen_quant_refs.py's
 * add cases hold both).  |acc| < 2 * 255 * 2^22 < 2^31, so the int64 sums
 * here equal QNNPACK's int32 ones.  QNNPACK takes ratios in [2^-14, 2^8);
 * below 2^-10 its shift reaches 32, where its C and SSE2 shifts are
 * undefined or saturate, so those are refused here as well. */
#include "ir/qnnp-add.h"
#include <math.h>
#include <string.h>

gboolean
tensor_qnnp_add_init (TensorQnnpAdd *p, float a_scale, gint64 a_zp, float b_scale, gint64 b_zp,
                      float y_scale, gint64 y_zp, gboolean relu)
{
  memset (p, 0, sizeof *p);
  p->a_ratio = a_scale / y_scale;
  p->b_ratio = b_scale / y_scale;
  float mx = MAX (p->a_ratio, p->b_ratio);
  if (!(p->a_ratio >= 0x1.0p-14f && p->b_ratio >= 0x1.0p-14f && p->a_ratio < 0x1.0p+8f
        && p->b_ratio < 0x1.0p+8f && mx >= 0x1.0p-10f)
      || a_zp < 0 || a_zp > 255 || b_zp < 0 || b_zp > 255 || y_zp < 0 || y_zp > 255)
    return FALSE;
  guint32 bits;
  memcpy (&bits, &mx, sizeof bits);
  gint32 e = (gint32) (bits >> 23) - 127;
  p->shift = (guint32) (21 - e);
  guint32 mbits = (guint32) (21 - e + 127) << 23;
  float mult;
  memcpy (&mult, &mbits, sizeof mult);
  p->a_mult = (gint64) nearbyintf (p->a_ratio * mult);
  p->b_mult = (gint64) nearbyintf (p->b_ratio * mult);
  p->zero_point_product = -(p->a_mult * a_zp + p->b_mult * b_zp);
  p->rem_mask = ((gint64) 1 << p->shift) - 1;
  p->rem_thr = p->rem_mask >> 1;
  p->y_zp = y_zp;
  p->y_min = relu ? y_zp : 0;
  p->y_max = 255;
  return TRUE;
}
