/* Convs of small output maps with the output pixels as the GEMM's rows
 * (conv-pixel-rows.c). */
#pragma once
#include "runtime/spatial.h"

/* Output maps of at most this many pixels (8x8) take the pixel-rows GEMM. */
#define RT_PIXEL_ROWS_MAX_PIXELS 64
/* and 1x1s of stride 1 without pads of at most this many (13x13, 14x14),
 * K >= 256 and two panels of 32 output channels a thread or more */
#define RT_PIXEL_ROWS_MAX_PLAIN 256

/* Whether x and the window suit the pixel-rows GEMM: 2-D, group 1, float
 * NCHW (any map size computes the right sums; maps of more than
 * RT_PIXEL_ROWS_MAX_PIXELS do better in the other orientation). */
gboolean rt_conv_pixel_rows_applies (const RtTensor *x, gint64 group, const RtWindow *w);
/* At a Conv's run: switches pw (the Conv's state) to the pixel-rows GEMM
 * when the output map is small and the Conv suits it.  Exported graphs carry no
 * shapes for intermediate values, so the map's size is first known here;
 * the switch is for good (the path computes the same bits for any map). */
void     rt_conv_pixel_rows_adopt (RtPackedW *pw, const RtTensor *x, const RtTensor *wt,
                                   gint64 group, const RtWindow *w, gint64 threads);
/* y := Conv (x, W, bias) then ep over window w, W being bt = Wᵀ packed
 * (K = C x kh x kw by M). */
gboolean rt_conv_pixel_rows (RtCall *call, const RtPackedW *bt, const RtTensor *x,
                             const RtWindow *w, const RtTensor *bias, const RtEpilogue *ep,
                             RtTensor *y, GError **error);
/* Conv runs that took this path, for tests. */
guint    rt_conv_pixel_rows_runs (void);
