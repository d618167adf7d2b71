/* Winograd F(2x2, 3x3) (the default) or F(4x4, 3x3) (SYMONNX_WINOGRAD_F4
 * set when the session is made) for 3x3 stride-1 Convs (conv-winograd.c).
 * F(4x4) does fewer multiplies (2.25 per output and channel pair against 4;
 * im2col: 9) but rounds worse: ~3e-6 of Σ|x||w| against F(2x2)'s and
 * im2col's ~1e-7-3e-7 (tests/runtime/test-winograd.c), and on the verify
 * suite's Conv + BatchNorm its noise reached 1.7e-5 of the node's largest
 * value, past that test's 5e-6 and close to verify's node tolerance (3e-5,
 * verify/verify.h): so it is opt-in. */
#pragma once

#include "runtime/spatial.h"

typedef struct _RtWinograd RtWinograd;

/* W (M, C, 3, 3) float, group 1, transformed once (U = G g Gᵀ, 16 or 36
 * M x C matrices) and packed as the B of the packed GEMM (conv-packed.c); NULL
 * where the path does not apply or does not pay: not float, fewer than
 * RT_WINOGRAD_MIN_C input or RT_WINOGRAD_MIN_M output channels, no packed
 * kernel on this CPU, or SYMONNX_NO_WINOGRAD set in the environment (the
 * Conv then keeps im2col + the packed GEMM: the bits of before). */
/* (16 input channels: Winograd's GEMMs of K = 16 made SqueezeNet's 16 ->
 * 64 3x3 Convs at 55x55 slower than im2col, 0.45 against 0.37 ms) */
#define RT_WINOGRAD_MIN_C 32
#define RT_WINOGRAD_MIN_M 16
RtWinograd *rt_winograd_new (const Tensor *w);
void        rt_winograd_free (RtWinograd *wg);
/* Whether wg (made from wt's very data) computes this Conv: x float NCHW,
 * group 1, 3x3 window, stride 1, dilation 1, any pads. */
gboolean    rt_winograd_applies (const RtWinograd *wg, const RtTensor *x, const RtTensor *wt,
                                 gint64 group, const RtWindow *w);
/* y (N, M, OH, OW; allocated by the caller) := Conv (x, W) + bias (NULL:
 * none), then ep (epilogue.h's order) as each output tile is stored. */
gboolean    rt_conv_winograd (RtCall *call, const RtWinograd *wg, const RtTensor *x,
                              const RtTensor *bias, const RtWindow *w, RtTensor *y,
                              const RtEpilogue *ep, GError **error);
/* 2 (F(2x2, 3x3)) or 4 (F(4x4, 3x3)). */
int         rt_winograd_tile (const RtWinograd *wg);
/* Convs computed by rt_conv_winograd since the process started (for tests
 * to check that the path was taken). */
guint       rt_winograd_runs (void);
/* Groups of four F(2x2) tiles whose outputs were stored as vectors (an 8x8
 * transpose) instead of element by element, since the process started. */
guint       rt_winograd_grouped_stores (void);
