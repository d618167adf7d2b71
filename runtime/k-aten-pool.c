/* ATen pooling: max_pool1d/2d/3d, avg_pool1d/2d/3d (k-pool.c's loops) and
 * adaptive_avg_pool1d/2d/3d (torch's start/end index rule). */
#include "runtime/k-aten-private.h"
#include "runtime/spatial.h"
#include <string.h>

/* The spatial dims of max_poolNd / avg_poolNd from the op's name. */
static guint
op_dims (RtCall *call)
{
  const char *op = graph_node_is (call->node, GRAPH_KIND_ATEN) ? rt_attr_s (call->node, "operator", "")
                                                              : graph_node_op_type (call->node);
  const char *d = strstr (op, "pool");
  return d && d[4] >= '1' && d[4] <= '3' ? (guint) (d[4] - '0') : 2;
}

static gboolean
check_input (RtCall *call, const RtTensor *x, guint n, GError **error)
{
  if (!aten_is_float (x) || x->rank != n + 2)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "needs a float or double input of rank %u (batched)", n + 2);
      return FALSE;
    }
  return TRUE;
}

/* max_poolNd(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False) */
static gboolean
a_max_pool (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  guint n = op_dims (call);
  static const gint64 ones[3] = { 1, 1, 1 }, zeros[3] = { 0, 0, 0 };
  gint64 k[3], stride[3], pad[3], dil[3];
  if (!check_input (call, x, n, error) || !aten_ints (call, 1, n, NULL, k, error)
      || !aten_ints (call, 2, n, k, stride, error) || !aten_ints (call, 3, n, zeros, pad, error)
      || !aten_ints (call, 4, n, ones, dil, error))
    return FALSE;
  RtWindow w;
  return rt_window_set (call, x, k, stride, dil, pad, pad, aten_i (call, 5, 0) != 0, &w, error)
         && rt_pool (call, x, &w, TRUE, FALSE, error);
}

/* avg_poolNd(self, kernel_size, stride=[], padding=0, ceil_mode=False,
 * count_include_pad=True, divisor_override=None); avg_pool1d has no
 * divisor_override. */
static gboolean
a_avg_pool (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  guint n = op_dims (call);
  static const gint64 zeros[3] = { 0, 0, 0 };
  gint64 k[3], stride[3], pad[3];
  if (!check_input (call, x, n, error) || !aten_ints (call, 1, n, NULL, k, error)
      || !aten_ints (call, 2, n, k, stride, error) || !aten_ints (call, 3, n, zeros, pad, error))
    return FALSE;
  if (aten_arg (call, 6))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "divisor_override is not supported");
      return FALSE;
    }
  RtWindow w;
  return rt_window_set (call, x, k, stride, NULL, pad, pad, aten_i (call, 4, 0) != 0, &w, error)
         && rt_pool (call, x, &w, FALSE, aten_i (call, 5, 1) != 0, error);
}

#define GEN_ADAPTIVE(E, T)                                                                 \
  static void adaptive_##E (const T *x, T *y, gint64 planes, const gint64 *in, const gint64 *out) \
  {                                                                                        \
    for (gint64 p = 0; p < planes; p++)                                                    \
      for (gint64 od = 0; od < out[0]; od++)                                               \
        for (gint64 oh = 0; oh < out[1]; oh++)                                             \
          for (gint64 ow = 0; ow < out[2]; ow++)                                           \
            {                                                                              \
              /* [floor(i * in / out), ceil((i + 1) * in / out)) per dim */                \
              gint64 d0 = od * in[0] / out[0], d1 = ((od + 1) * in[0] + out[0] - 1) / out[0]; \
              gint64 h0 = oh * in[1] / out[1], h1 = ((oh + 1) * in[1] + out[1] - 1) / out[1]; \
              gint64 w0 = ow * in[2] / out[2], w1 = ((ow + 1) * in[2] + out[2] - 1) / out[2]; \
              T acc = 0;                                                                   \
              for (gint64 d = d0; d < d1; d++)                                             \
                for (gint64 h = h0; h < h1; h++)                                           \
                  for (gint64 c = w0; c < w1; c++)                                         \
                    acc += x[((p * in[0] + d) * in[1] + h) * in[2] + c];                   \
              y[((p * out[0] + od) * out[1] + oh) * out[2] + ow]                           \
                = acc / (T) ((d1 - d0) * (h1 - h0) * (w1 - w0));                           \
            }                                                                              \
  }
RT_FOREACH_FLOAT (GEN_ADAPTIVE)

/* adaptive_avg_poolNd(self, int[N] output_size) */
static gboolean
a_adaptive_avg_pool (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  guint n = op_dims (call);
  gint64 os[3];
  if (!check_input (call, x, n, error) || !aten_ints (call, 1, n, NULL, os, error))
    return FALSE;
  gint64 in[3] = { 1, 1, 1 }, out[3] = { 1, 1, 1 }, dims[5] = { x->dims[0], x->dims[1] };
  for (guint i = 0; i < n; i++)
    {
      if (os[i] <= 0 || x->dims[2 + i] <= 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "output_size and the input's sizes must be positive");
          return FALSE;
        }
      in[3 - n + i] = x->dims[2 + i];
      out[3 - n + i] = dims[2 + i] = os[i];
    }
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  gint64 planes = x->dims[0] * x->dims[1];
  if (x->dtype == GRAPH_DTYPE_FLOAT)
    adaptive_FLOAT (x->data, y->data, planes, in, out);
  else
    adaptive_DOUBLE (x->data, y->data, planes, in, out);
  return TRUE;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("max_pool1d", 2, 6, a_max_pool),
  RT_ATEN_ROW ("max_pool2d", 2, 6, a_max_pool),
  RT_ATEN_ROW ("max_pool3d", 2, 6, a_max_pool),
  RT_ATEN_ROW ("avg_pool1d", 2, 6, a_avg_pool),
  RT_ATEN_ROW ("avg_pool2d", 2, 7, a_avg_pool),
  RT_ATEN_ROW ("avg_pool3d", 2, 7, a_avg_pool),
  RT_ATEN_ROW ("adaptive_avg_pool1d", 2, 2, a_adaptive_avg_pool),
  RT_ATEN_ROW ("adaptive_avg_pool2d", 2, 2, a_adaptive_avg_pool),
  RT_ATEN_ROW ("adaptive_avg_pool3d", 2, 2, a_adaptive_avg_pool),
};

RT_KERNEL_TABLE (rt_kernels_aten_pool, defs);
