/* MatMul with a constant B packed at session creation (matmul-packed.c). */
#pragma once

#include "runtime/conv-packed.h"

/* B (K x N float, constant) packed as the A operand of Y^T = B^T · A^T;
 * NULL where the packed kernels do not apply (conv-packed.h). */
RtPackedW *rt_matmul_pack_b (const Tensor *b);

/* What a fused MatMul does to each block of Y's rows after the product
 * (and bias, activation): y holds `rows` rows of n. */
typedef void (*RtRowsFn) (float *y, gint64 rows, gint64 n, gconstpointer data);

/* Y := A · B (A float [..., M, K], B the 2-D tensor p was packed from),
 * then as each tile is stored + bias[column] (NULL: none) and ep's
 * activation (ep->sum unused), then rows_fn over each block of rows.
 * *done is FALSE (and nothing is made) when p does not apply to these
 * tensors: the caller runs rt_matmul instead. */
gboolean   rt_matmul_packed (RtCall *call, const RtPackedW *p, const RtTensor *a,
                             const RtTensor *b, const float *bias, const RtEpilogue *ep,
                             RtRowsFn rows_fn, gconstpointer rows_data, gboolean *done,
                             GError **error);
