/* Window geometry shared by Conv, ConvTranspose and pooling (k-conv.c,
 * k-pool.c): every input is viewed as N, C and 3 spatial dims (missing
 * leading spatial dims are 1). */
#pragma once

#include "runtime/kernel.h"

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
