/* Depthwise Convs of narrow maps, 16 channels a vector (conv-depthwise-lanes.c). */
#pragma once
#include "runtime/spatial.h"

/* Output maps at most this wide take it. */
#define RT_DEPTHWISE_LANES_MAX_OW 16

/* Whether a depthwise Conv (rt_conv_depthwise_applies) over w takes it: at
 * most RT_DEPTHWISE_LANES_MAX_OW output columns, at most 64 taps, a padded
 * map of at most 64 x 64, an AVX-512F CPU, and SYMONNX_DEPTHWISE_ROWS unset
 * (read at each run, as SYMONNX_DEPTHWISE_AVX2: it keeps conv-depthwise.c's
 * rows, for comparisons). */
gboolean rt_conv_depthwise_lanes_applies (const RtWindow *w);
/* y := depthwise Conv (x, wt, bias or NULL) then ep: conv-depthwise.c's bits. */
gboolean rt_conv_depthwise_lanes (RtCall *call, const RtTensor *x, const RtTensor *wt,
                                  const RtTensor *bias, const RtWindow *w, RtTensor *y,
                                  const RtEpilogue *ep, GError **error);
/* Convs that took it, for tests. */
guint    rt_conv_depthwise_lanes_runs (void);
