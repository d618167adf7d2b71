/* MatMul with a constant B packed at session creation (matmul-packed.c). */
#pragma once

#include "runtime/conv-packed.h"

/* B (K x N float, constant) packed into the GEMM kernel's panels; NULL
 * where the packed kernels do not apply (conv-packed.h). */
RtPackedW *rt_matmul_pack_b (const Tensor *b);

/* What a fused MatMul does to a finished part of Y (bias, activation):
 * `rows` rows of `cols` values from column col0, row stride ld. */
typedef void (*RtTileFn) (float *y, gint64 rows, gint64 cols, gint64 ld, gint64 col0,
                          gconstpointer data);

/* Y := A · B (A float [..., M, K], B the 2-D tensor p was packed from),
 * then post over each thread's part of Y (NULL: nothing).  *done is FALSE
 * (and nothing is made) when p does not apply to these tensors or the
 * shapes suit sgemm better: the caller runs rt_matmul instead. */
gboolean   rt_matmul_packed (RtCall *call, const RtPackedW *p, const RtTensor *a,
                             const RtTensor *b, RtTileFn post, gconstpointer post_data,
                             gboolean *done, GError **error);
