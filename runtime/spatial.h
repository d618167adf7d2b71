/* Window geometry shared by Conv, ConvTranspose and pooling (k-conv.c,
 * k-pool.c): every input is viewed as N, C and 3 spatial dims (missing
 * leading spatial dims are 1). */
#pragma once

#include "runtime/kernel.h"
#include "runtime/epilogue.h"

typedef struct
{
  guint  nsp;                 /* spatial dims of the real tensor: 1..3 */
  gint64 in[3], out[3], k[3], stride[3], dil[3], pad0[3], pad1[3];
} RtWindow;

/* Reads kernel_shape (or `kernel_from`'s trailing dims when not NULL),
 * strides, dilations, pads / auto_pad and computes the output size.
 * ceil_mode: pooling's rounding. */
gboolean rt_window_init (RtCall *call, const RtTensor *x, const gint64 *kernel_from,
                         gboolean ceil_mode, RtWindow *w, GError **error);
/* The same from explicit per-spatial-dim values (aten's int[] arguments;
 * stride, dil NULL: 1s; pad0, pad1 NULL: 0s), without auto_pad. */
gboolean rt_window_set (RtCall *call, const RtTensor *x, const gint64 *k, const gint64 *stride,
                        const gint64 *dil, const gint64 *pad0, const gint64 *pad1,
                        gboolean ceil_mode, RtWindow *w, GError **error);
/* ONNX Conv's group and window from the node's attributes and W. */
gboolean rt_conv_window (RtCall *call, const RtTensor *x, const RtTensor *wt, gint64 *group,
                         RtWindow *w, GError **error);
/* Output 0 := Conv (x, wt, bias or NULL) over a window from the above
 * (k-conv.c; checks channels against group). */
gboolean rt_conv (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
                  gint64 group, const RtWindow *w, GError **error);
/* The same with a fused epilogue (NULL: none) applied to the result, which
 * goes to `into` (data large enough; dims set here) instead of output 0
 * when not NULL, and W's packed panels (conv-packed.h; NULL: none, or
 * made from other data: not used). */
typedef struct _RtPackedW RtPackedW;
/* Convs whose output channels were split over the threads (one image, few
 * output columns, packed weights), for tests. */
guint    rt_conv_channel_splits (void);
/* col[(c, kd, kh, kw), output pixel of rows [oh0, oh1)] := C channels of
 * one image and group x (float or double `dt`), the channels split over
 * the call's threads (each writes its own rows of col). */
void     rt_im2col (const RtCall *call, GraphDType dt, const void *x, gint64 C, const RtWindow *w,
                    void *col, gint64 oh0, gint64 oh1);
/* ... and those of few output channels whose columns were split a panel a
 * block instead. */
guint    rt_conv_column_splits (void);
/* 1x1 Convs of stride > 1 run as a 1x1 of stride 1 over x's sampled
 * pixels (packed W, no pads), for tests. */
guint    rt_conv_subsampled_runs (void);
gboolean rt_conv_ex (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
                     gint64 group, const RtWindow *w, const RtEpilogue *ep, RtTensor *into,
                     const RtPackedW *pw, GError **error);
/* Depthwise convolution (group = C = M, float, 2-D) with its own loop
 * (conv-depthwise.c): whether it applies, and y := conv then ep. */
gboolean rt_conv_depthwise_applies (const RtTensor *x, const RtTensor *wt, gint64 group,
                                    const RtWindow *w);
/* Depthwise Convs that ran their 3x3 rows 16 columns a vector (AVX-512F;
 * SYMONNX_DEPTHWISE_AVX2=1 turns it off), for tests. */
guint    rt_conv_depthwise_avx512_runs (void);
gboolean rt_conv_depthwise (RtCall *call, const RtTensor *x, const RtTensor *wt,
                            const RtTensor *bias, const RtWindow *w, RtTensor *y,
                            const RtEpilogue *ep, GError **error);
/* Output 0 := ConvTranspose; w->in is the output's spatial size, w->out
 * x's, w->k wt's (C, M/group, k...). */
gboolean rt_conv_transpose (RtCall *call, const RtTensor *x, const RtTensor *wt,
                            const RtTensor *bias, gint64 group, const RtWindow *w,
                            GError **error);
/* Output 0 := max or average pooling of x over w (k-pool.c; float and
 * double, no indices). */
gboolean rt_pool (RtCall *call, const RtTensor *x, const RtWindow *w, gboolean max,
                  gboolean count_include_pad, GError **error);
