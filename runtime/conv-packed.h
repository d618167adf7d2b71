/* Conv's GEMM with weights packed at session creation (conv-packed.c). */
#pragma once

#include "runtime/spatial.h"

/* W (M, C/group, kh, kw) float packed for rt_conv_packed_gemm; NULL when
 * the packed kernels do not apply (not float, no AVX2/FMA on this CPU, or
 * SYMONNX_NO_PACKED_CONV set in the environment, for comparisons;
 * SYMONNX_PACKED_CONV_AVX2 picks the AVX2 kernel on AVX-512 CPUs). */
RtPackedW *rt_conv_pack_weights (const Tensor *w, gint64 group);
void       rt_conv_packed_free (RtPackedW *p);
/* A Conv's state that holds Winograd's transformed weights instead of
 * packed W (conv-winograd.h; rt_conv_packed_usable is FALSE for it); it
 * owns wg.  rt_conv_packed_winograd: the weights, or NULL (p NULL too). */
typedef struct _RtWinograd RtWinograd;
RtPackedW *rt_conv_packed_for_winograd (RtWinograd *wg);
const RtWinograd *rt_conv_packed_winograd (const RtPackedW *p);
/* A group-1 Conv's packed W (SYMONNX_NO_PIXEL_ROWS unset when it was
 * packed) becomes Wᵀ (K x M) packed as the GEMM's B, for conv-pixel-rows.c,
 * in place of W's panels (rt_conv_packed_usable is FALSE after); nothing
 * for other states.  rt_conv_packed_pixel_rows: that B when p holds it and
 * was made from wt's data, else NULL. */
void       rt_conv_packed_adopt_pixel_rows (RtPackedW *p);
/* A Conv's state holding W (M, C, kh, kw) float as taps[k * mpad + m] (k =
 * (c, kh, kw), m < M; zeros up to mpad = M rounded up to 16) for
 * conv-direct.c, instead of packed W (rt_conv_packed_usable is FALSE for
 * it), for conv-narrow.c where `narrow`; NULL if not float or no memory.
 * rt_conv_packed_taps: those taps, `narrow`
 * and mpad when p holds them and was made from wt's data, else NULL. */
RtPackedW *rt_conv_packed_for_taps (const Tensor *w, gboolean narrow);
/* W packed for the packed GEMM (group 1) and as taps for conv-direct.c
 * too: a Conv of 5 to RT_CONV_DIRECT_MAX_C input channels, direct on
 * large maps, the pixel-rows GEMM on small ones (conv-pixel-rows.h). */
RtPackedW *rt_conv_packed_with_taps (const Tensor *w);
const float *rt_conv_packed_taps (const RtPackedW *p, const RtTensor *wt, gint64 *mpad,
                                  gboolean *narrow);
/* Whether a packed W's 1x1 Convs of stride > 1 may run over x's sampled
 * pixels (SYMONNX_NO_CONV_SUBSAMPLE unset when W was packed). */
gboolean   rt_conv_packed_subsample_ok (const RtPackedW *p);
/* d[i] := s[i S] for i in [lo, hi), s[0 .. avail) readable (stride 2 a
 * vector at a time on AVX-512 CPUs). */
void       rt_gather_strided (float *d, const float *s, gint64 lo, gint64 hi, gint64 S,
                              gint64 avail);
/* Whether p holds taps for conv-direct.c alone (not conv-narrow.c's, nor
 * beside a packed W). */
gboolean   rt_conv_packed_has_direct_taps (const RtPackedW *p);
const RtPackedW *rt_conv_packed_pixel_rows (const RtPackedW *p, const RtTensor *wt);
/* B (K x N, row-major, constant: MatMul's weights) packed once into the
 * kernel's B panels, for rt_packed_gemm_b (runtime/matmul-packed.c); NULL
 * where the packed kernels do not apply.  b must outlive it. */
RtPackedW *rt_packed_b_new (const float *b, gint64 K, gint64 N);
/* A packed B of K x N with panels but no values yet, for B's that change
 * from call to call (attention's batched products): rt_packed_b_repack
 * packs b (K x N, row stride ldb) into it. */
RtPackedW *rt_packed_b_new_empty (gint64 K, gint64 N);
void       rt_packed_b_repack (RtPackedW *p, const float *b, gint64 ldb);
/* The same from B's transpose: bt is N x K, row-major (an RNN's W or R,
 * gates x inputs, for X · Wᵀ). */
RtPackedW *rt_packed_b_new_t (const float *bt, gint64 K, gint64 N);
/* The columns of B panels jp0..jp1 of x (one row of K) · B into y (y[0]:
 * column jp0 · nr): a GEMV over the panels, each sum over k in two halves
 * (even, odd) added at the end. */
void       rt_packed_gemv_b (const RtPackedW *p, const float *x, float *y, gint64 jp0, gint64 jp1);
/* Whether p is a packed B made from src, K x N. */
gboolean   rt_packed_b_is (const RtPackedW *p, const void *src, gint64 K, gint64 N);
/* The kernel's tile rows and columns; B panels of p. */
gint64     rt_packed_mr (const RtPackedW *p);
gint64     rt_packed_nr (const RtPackedW *p);
gint64     rt_packed_b_panels (const RtPackedW *p);
/* A packed B's columns (N). */
gint64     rt_packed_b_n (const RtPackedW *p);
/* Floats of packed A for m rows of K (p's K); packs rows [0, m) of a
 * (row stride lda) into ap. */
gint64     rt_packed_a_floats (const RtPackedW *p, gint64 m);
void       rt_packed_pack_a (const RtPackedW *p, const float *a, gint64 lda, gint64 m, float *ap);
/* The same from Aᵀ: element (r, k) of A is at[k * ld + r]. */
void       rt_packed_pack_a_t (const RtPackedW *p, const float *at, gint64 ld, gint64 m, float *ap);
/* Panels of B whose part of C (m rows) stays in cache (~64 KiB): a caller's
 * pass over C after rt_packed_gemm_b goes best by such blocks. */
gint64     rt_packed_b_block (const RtPackedW *p, gint64 m);
/* C[0..m, columns of B panels jp0..jp1) (row stride ldc) := A · B, A
 * packed by rt_packed_pack_a, B = p. */
void       rt_packed_gemm_b (const RtPackedW *p, const float *ap, gint64 m, float *c, gint64 ldc,
                             gint64 jp0, gint64 jp1);
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
/* The same for A's panels (mr rows each) [mb0, mb1) only: c, bias and z
 * still at row 0 of the group.  Each panel's sums are the same whatever
 * the range. */
void       rt_conv_packed_gemm_panels (const RtPackedW *p, gint64 g, const float *bp, gint64 n,
                                       float *c, gint64 ldc, const float *bias, const float *z,
                                       const RtEpilogue *ep, gint64 mb0, gint64 mb1);
/* rt_conv_packed_gemm with B = x's K rows themselves (row stride ldx, n
 * columns): the kernel reads the whole panels of nr columns where they
 * are, no packed copy; tail (K x nr floats of scratch) takes the last
 * partial panel.  The same sums, so the same bits. */
void       rt_conv_packed_gemm_rows (const RtPackedW *p, gint64 g, const float *x, gint64 ldx,
                                     gint64 n, float *tail, float *c, gint64 ldc,
                                     const float *bias, const float *z, const RtEpilogue *ep);
/* Its two halves: the last partial panel into tail (nothing when n is
 * whole panels), then A's panels [mb0, mb1) only (c, bias, z still at
 * the group's row 0). */
void       rt_conv_packed_rows_tail (const RtPackedW *p, const float *x, gint64 ldx, gint64 n,
                                     float *tail);
void       rt_conv_packed_gemm_rows_panels (const RtPackedW *p, gint64 g, const float *x,
                                            gint64 ldx, gint64 n, const float *tail, float *c,
                                            gint64 ldc, const float *bias, const float *z,
                                            const RtEpilogue *ep, gint64 mb0, gint64 mb1);
/* A's panels per group (mr rows each). */
gint64     rt_conv_packed_panels (const RtPackedW *p);
