/* Convs of few output channels (SuperResolution's last 32 -> 9 3x3) computed
 * directly, output pixels in a vector's lanes (conv-narrow.c). */
#pragma once
#include "runtime/spatial.h"

/* At most this many output channels: each input vector is used by all of
 * them while it is in a register. */
#define RT_CONV_NARROW_MAX_M 12
/* The widest kernel row it takes (a mask per tap column and vector). */
#define RT_CONV_NARROW_MAX_KW 16

/* Whether a Conv node with constant weights w is prepared for it (W laid
 * out by taps, rt_conv_packed_for_taps): float, 2-D, group 1, at most
 * RT_CONV_NARROW_MAX_M output channels, stride 1, a kernel of at least 2x2
 * taps no wider than RT_CONV_NARROW_MAX_KW, an AVX-512F CPU, and
 * SYMONNX_NO_NARROW_CONV unset when the session is made (which keeps
 * im2col + the packed GEMM, for comparisons). */
gboolean rt_conv_narrow_node (const GraphNode *node, const Tensor *w);
/* Whether x, W and the window suit it at run time. */
gboolean rt_conv_narrow_applies (const RtTensor *x, const RtTensor *wt, gint64 group,
                                 const RtWindow *w);
/* y := Conv (x, W, bias or NULL) then ep, W as taps (rt_conv_packed_taps,
 * mpad floats a tap). */
gboolean rt_conv_narrow (RtCall *call, const float *taps, gint64 mpad, const RtTensor *x,
                         const RtTensor *wt, const RtTensor *bias, const RtWindow *w, RtTensor *y,
                         const RtEpilogue *ep, GError **error);
/* Convs that took it, for tests. */
guint    rt_conv_narrow_runs (void);
