/* QNNPACK's quantized uint8 add over arrays (Note [QNNPACK's add],
 * ir/qnnp-add.c, where its parameters are made).  One loop for the trace
 * run's kernel (runtime/k-aten-qops.c) and the executor's fused
 * DequantizeLinear → Add [→ Relu] → QuantizeLinear chains
 * (runtime/fuse-qadd.c). */
#pragma once

#include "ir/qnnp-add.h"

/* y[i] := QNNPACK's a[i] + b[i], i in [begin, end). */
void rt_qnnp_add_u8 (const TensorQnnpAdd *p, const guint8 *a, const guint8 *b, guint8 *y,
                     gint64 begin, gint64 end);
