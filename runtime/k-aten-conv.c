/* ATen convolutions: _convolution / convolution (transposed, groups,
 * dilation, output_padding), conv1d/2d/3d and conv_transpose1d/2d/3d, on k-conv.c's Conv and
 * ConvTranspose loops. */
#include "runtime/k-aten-private.h"
#include "runtime/spatial.h"
#include <string.h>

/* Shared by every overload: arguments at the given input positions. */
static gboolean
convolution (RtCall *call, guint i_stride, guint i_pad, guint i_dil, gboolean transposed,
             guint i_opad, guint i_groups, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *wt = aten_arg (call, 1), *bias = aten_arg (call, 2);
  gint64 groups = aten_i (call, i_groups, 1);
  if (!aten_is_float (x) || wt == NULL || wt->dtype != x->dtype || wt->rank != x->rank
      || x->rank < 3 || x->rank > 5 || groups <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "needs a float or double input of 1 to 3 spatial dims, a weight of its type "
                     "and rank, groups >= 1");
      return FALSE;
    }
  guint n = x->rank - 2;
  static const gint64 ones[3] = { 1, 1, 1 }, zeros[3] = { 0, 0, 0 };
  gint64 stride[3], pad[3], dil[3], opad[3];
  if (!aten_ints (call, i_stride, n, ones, stride, error) || !aten_ints (call, i_pad, n, zeros, pad, error)
      || !aten_ints (call, i_dil, n, ones, dil, error)
      || !aten_ints (call, i_opad, n, zeros, opad, error))
    return FALSE;
  if (!transposed)
    {
      RtWindow w;
      if (!rt_window_set (call, x, wt->dims + 2, stride, dil, pad, pad, FALSE, &w, error))
        return FALSE;
      return rt_conv (call, x, wt, bias, groups, &w, error);
    }
  /* The equivalent Conv maps the output (w.in) to x (w.out): output size
   * (x - 1) * stride - 2 * pad + dilation * (k - 1) + output_padding + 1. */
  RtWindow w;
  memset (&w, 0, sizeof w);
  w.nsp = n;
  for (guint i = 0; i < 3; i++)
    w.in[i] = w.out[i] = w.k[i] = w.stride[i] = w.dil[i] = 1;
  for (guint i = 0; i < n; i++)
    {
      guint k = 3 - n + i;
      w.out[k] = x->dims[2 + i];
      w.k[k] = wt->dims[2 + i];
      w.stride[k] = stride[i];
      w.dil[k] = dil[i];
      w.pad0[k] = w.pad1[k] = pad[i];
      /* Bounded first, so the size below cannot overflow. */
      const gint64 lim = (gint64) 1 << 30;
      gboolean sane = stride[i] > 0 && stride[i] <= lim && dil[i] > 0 && dil[i] <= lim
                      && pad[i] >= 0 && pad[i] <= lim && opad[i] >= 0 && opad[i] <= lim
                      && w.out[k] <= lim && w.k[k] <= lim;
      w.in[k] = sane ? (w.out[k] - 1) * stride[i] - 2 * pad[i] + dil[i] * (w.k[k] - 1) + opad[i] + 1
                     : 0;
      if (w.in[k] <= 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "invalid transposed convolution (stride, dilation, padding or output size)");
          return FALSE;
        }
    }
  return rt_conv_transpose (call, x, wt, bias, groups, &w, error);
}

/* _convolution(input, weight, bias?, stride, padding, dilation, transposed,
 * output_padding, groups, benchmark, deterministic, cudnn_enabled,
 * allow_tf32); convolution(...) is its first 9 arguments. */
static gboolean
a_convolution (RtCall *call, GError **error)
{
  return convolution (call, 3, 4, 5, aten_i (call, 6, 0) != 0, 7, 8, error);
}

/* conv1d/2d/3d(input, weight, bias?, stride, padding, dilation, groups) */
static gboolean
a_convnd (RtCall *call, GError **error)
{
  const RtTensor *pad = aten_arg (call, 4);
  if (pad && pad->dtype == GRAPH_DTYPE_STRING)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "string padding is not supported");
      return FALSE;
    }
  return convolution (call, 3, 4, 5, FALSE, G_MAXUINT, 6, error);
}

/* conv_transpose1d/2d/3d(input, weight, bias?, stride, padding,
 * output_padding, groups, dilation) */
static gboolean
a_conv_transpose (RtCall *call, GError **error)
{
  return convolution (call, 3, 4, 7, TRUE, 5, 6, error);
}

static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("_convolution", 2, 13, a_convolution),
  RT_ATEN_ROW ("convolution", 2, 9, a_convolution),
  RT_ATEN_ROW ("conv1d", 2, 7, a_convnd),
  RT_ATEN_ROW ("conv2d", 2, 7, a_convnd),
  RT_ATEN_ROW ("conv3d", 2, 7, a_convnd),
  RT_ATEN_ROW ("conv_transpose1d", 2, 8, a_conv_transpose),
  RT_ATEN_ROW ("conv_transpose2d", 2, 8, a_conv_transpose),
  RT_ATEN_ROW ("conv_transpose3d", 2, 8, a_conv_transpose),
};

RT_KERNEL_TABLE (rt_kernels_aten_conv, defs);
