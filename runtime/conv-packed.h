/* Conv's GEMM with weights packed at session creation (conv-packed.c). */
#pragma once

#include "runtime/spatial.h"

/* W (M, C/group, kh, kw) float packed for rt_conv_packed_gemm; NULL when
 * the packed kernels do not apply (not float, no AVX2/FMA on this CPU, or
 * SYMONNX_NO_PACKED_CONV set in the environment, for comparisons;
 * SYMONNX_PACKED_CONV_AVX2 picks the AVX2 kernel on AVX-512 CPUs). */
RtPackedW *rt_conv_pack_weights (const Tensor *w, gint64 group);
void       rt_conv_packed_free (RtPackedW *p);
/* The M x K matrix whose element (m, k) is a[m * sm + k * sk], packed as
 * one group (MatMul's constant B, transposed: runtime/matmul-packed.c);
 * NULL where the packed kernels do not apply.  a must outlive it. */
RtPackedW *rt_packed_a_new (const float *a, gint64 M, gint64 K, gint64 sm, gint64 sk);
/* Whether p was packed from src as one M x K group. */
gboolean   rt_packed_a_is (const RtPackedW *p, const void *src, gint64 M, gint64 K);
/* Columns of a B panel (the kernel's tile width). */
gint64     rt_packed_nr (const RtPackedW *p);
/* Whether p was made from wt's very data (a caller may bind other
 * weights to the initializer's name) with this group. */
gboolean   rt_conv_packed_usable (const RtPackedW *p, const RtTensor *wt, gint64 group);
/* Floats of packed B (K rows of p) for n columns. */
gint64     rt_conv_packed_b_floats (const RtPackedW *p, gint64 n);
/* Packs B := rows [0, K) of src (row stride ld), columns [0, n). */
void       rt_conv_pack_b_rows (const RtPackedW *p, const float *src, gint64 ld, gint64 n,
                                float *bp);
/* Packs B := the transpose of rows [0, n) of src (row stride ld), each of K values. */
void       rt_conv_pack_b_cols (const RtPackedW *p, const float *src, gint64 ld, gint64 n,
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
