/* QNNPACK's quantized uint8 add over arrays (Note [QNNPACK's add],
 * ir/qnnp-add.c). */
#include "runtime/qnnp-add.h"

void
rt_qnnp_add_u8 (const TensorQnnpAdd *p, const guint8 *a, const guint8 *b, guint8 *y, gint64 begin,
                gint64 end)
{
  for (gint64 i = begin; i < end; i++)
    y[i] = (guint8) tensor_qnnp_add_one (p, a[i], b[i]);
}
