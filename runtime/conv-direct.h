/* Convs of few input channels (an image's first layer) computed directly,
 * output channels in a vector's lanes (conv-direct.c). */
#pragma once
#include "runtime/spatial.h"

/* At most this many input channels (RGB: 3), and up to which W is laid out
 * for it alone (above: packed too, rt_conv_packed_with_taps). */
#define RT_CONV_DIRECT_MAX_C 16
#define RT_CONV_DIRECT_ALONE_C 4

/* Whether a Conv node with constant weights w is prepared for it
 * (rt_conv_packed_for_taps): float, 2-D, group 1, at most
 * RT_CONV_DIRECT_MAX_C input channels and 512 taps (C x kh x kw), a stride
 * of 2 or more or at least 64 taps, an AVX-512F CPU, and
 * SYMONNX_NO_DIRECT_CONV unset when the session is made (which keeps
 * im2col + the packed GEMM, for comparisons). */
gboolean rt_conv_direct_node (const GraphNode *node, const Tensor *w);
/* Whether x and the window suit it at run time. */
gboolean rt_conv_direct_applies (const RtTensor *x, gint64 group, const RtWindow *w);
/* y := Conv (x, W, bias or NULL) then ep, W as taps (rt_conv_packed_taps);
 * then, where `pool` is not NULL, MaxPool over it (its in: w's out; y has
 * its out), which rt_conv_direct_pool_applies must allow, and ep without
 * a sum. */
gboolean rt_conv_direct (RtCall *call, const float *taps, gint64 mpad, const RtTensor *x,
                         const RtTensor *wt, const RtTensor *bias, const RtWindow *w,
                         const RtWindow *pool, RtTensor *y, const RtEpilogue *ep, GError **error);
/* Whether a 2-D MaxPool window over the Conv's output can follow it in
 * rt_conv_direct: dilation 1 and every window with an input inside. */
gboolean rt_conv_direct_pool_applies (const RtWindow *pool);
/* Convs that took it, and those of them that pooled, for tests. */
guint    rt_conv_direct_runs (void);
guint    rt_conv_direct_pooled_runs (void);
