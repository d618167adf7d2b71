/* Conv's GEMM with weights packed at session creation (conv-packed.c). */
#pragma once

#include "runtime/spatial.h"

/* W (M, C/group, kh, kw) float packed for rt_conv_packed_gemm; NULL when
 * the packed kernels do not apply (not float, no AVX2/FMA on this CPU, or
 * SYMONNX_NO_PACKED_CONV set in the environment, for comparisons;
 * SYMONNX_PACKED_CONV_AVX2 picks the AVX2 kernel on AVX-512 CPUs). */
RtPackedW *rt_conv_pack_weights (const Tensor *w, gint64 group);
void       rt_conv_packed_free (RtPackedW *p);
/* Whether p was made from wt's very data (a caller may bind other
 * weights to the initializer's name) with this group. */
gboolean   rt_conv_packed_usable (const RtPackedW *p, const RtTensor *wt, gint64 group);
/* Floats of packed B (K rows of p) for n columns. */
gint64     rt_conv_packed_b_floats (const RtPackedW *p, gint64 n);
/* Packs B := rows [0, K) of src (row stride ld), columns [0, n). */
void       rt_conv_pack_b_rows (const RtPackedW *p, const float *src, gint64 ld, gint64 n,
                                float *bp);
/* Packs B := im2col of x (C channels of one image and group, 2-D window)
 * for output rows [oh0, oh1); row: scratch of (oh1 - oh0) x OW floats. */
void       rt_conv_pack_b_im2col (const RtPackedW *p, const float *x, gint64 C,
                                  const RtWindow *w, gint64 oh0, gint64 oh1, float *bp,
                                  float *row);
/* c (Mg rows of group g, n columns, row stride ldc) := A_g · B, then
 * (epilogue.h's order, as each tile is stored) + bias[row] (NULL: none),
 * + z (ep->sum's data at c's (0, 0), same row stride) and ep's activation. */
void       rt_conv_packed_gemm (const RtPackedW *p, gint64 g, const float *bp, gint64 n,
                                float *c, gint64 ldc, const float *bias, const float *z,
                                const RtEpilogue *ep);
