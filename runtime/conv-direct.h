/* Convs of few input channels (an image's first layer) computed directly,
 * output channels in a vector's lanes (conv-direct.c). */
#pragma once
#include "runtime/spatial.h"

/* At most this many input channels (RGB: 3). */
#define RT_CONV_DIRECT_MAX_C 4

/* Whether a Conv node with constant weights w is prepared for it
 * (rt_conv_packed_for_taps): float, 2-D, group 1, at most
 * RT_CONV_DIRECT_MAX_C input channels and 512 taps (C x kh x kw), a stride
 * of 2 or more or at least 64 taps, an AVX-512F CPU, and
 * SYMONNX_NO_DIRECT_CONV unset when the session is made (which keeps
 * im2col + the packed GEMM, for comparisons). */
gboolean rt_conv_direct_node (const GraphNode *node, const Tensor *w);
/* Whether x and the window suit it at run time. */
gboolean rt_conv_direct_applies (const RtTensor *x, gint64 group, const RtWindow *w);
/* y := Conv (x, W, bias or NULL) then ep, W as taps (rt_conv_packed_taps). */
gboolean rt_conv_direct (RtCall *call, const float *taps, gint64 mpad, const RtTensor *x,
                         const RtTensor *wt, const RtTensor *bias, const RtWindow *w, RtTensor *y,
                         const RtEpilogue *ep, GError **error);
/* Convs that took it, for tests. */
guint    rt_conv_direct_runs (void);
