/* ATen spatial ops ONNX export cannot express exactly: adaptive max
 * pooling (1-D to 3-D, values and indices, torch's start/end window rule,
 * as adaptive_avg_poolNd in k-aten-pool.c), affine_grid_generator (2-D and
 * 3-D) and grid_sampler (2-D: the ONNX GridSample loop, rt_grid_sample). */
#include "runtime/k-aten-private.h"
#include <math.h>

/* The spatial dims of adaptive_max_poolNd from the op's name. */
static guint
pool_dims (RtCall *call)
{
  const char *op = graph_node_is (call->node, GRAPH_KIND_ATEN) ? rt_attr_s (call->node, "operator", "")
                                                              : graph_node_op_type (call->node);
  const char *d = strstr (op, "pool");
  return d && d[4] >= '1' && d[4] <= '3' ? (guint) (d[4] - '0') : 2;
}

/* adaptive_max_poolNd(self, int[N] output_size) -> (values, indices):
 * self (C, ...) or (N, C, ...); indices are flat within each plane, as
 * torch returns them. */
static gboolean
a_adaptive_max_pool (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  guint n = pool_dims (call);
  gint64 osz[3];
  if (x == NULL || !aten_is_float (x) || (x->rank != n + 1 && x->rank != n + 2))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a float or double input of rank %u or %u", n + 1,
                     n + 2);
      return FALSE;
    }
  if (!aten_ints (call, 1, n, NULL, osz, error))
    return FALSE;
  /* Pad to 3 spatial dims of size 1 in front. */
  gint64 in[3] = { 1, 1, 1 }, out[3] = { 1, 1, 1 };
  guint lead = x->rank - n;
  for (guint i = 0; i < n; i++)
    {
      in[3 - n + i] = x->dims[lead + i];
      out[3 - n + i] = osz[i];
      if (osz[i] <= 0 || x->dims[lead + i] <= 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "sizes must be positive");
          return FALSE;
        }
    }
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, x->dims, sizeof (gint64) * lead);
  for (guint i = 0; i < n; i++)
    dims[lead + i] = osz[i];
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  RtTensor *ind = y && call->n_outputs > 1
                  ? rt_call_output (call, 1, GRAPH_DTYPE_INT64, x->rank, dims, error) : NULL;
  if (y == NULL || (call->n_outputs > 1 && ind == NULL))
    return FALSE;
  gint64 planes = rt_shape_numel (lead, x->dims), plane = in[0] * in[1] * in[2];
  gsize es = rt_dtype_size (x->dtype);
  gint64 o = 0;
  for (gint64 p = 0; p < planes; p++)
    for (gint64 od = 0; od < out[0]; od++)
      for (gint64 oh = 0; oh < out[1]; oh++)
        for (gint64 ow = 0; ow < out[2]; ow++, o++)
          {
            /* [floor(i * in / out), ceil((i + 1) * in / out)) per dim */
            gint64 d0 = od * in[0] / out[0], d1 = ((od + 1) * in[0] + out[0] - 1) / out[0];
            gint64 h0 = oh * in[1] / out[1], h1 = ((oh + 1) * in[1] + out[1] - 1) / out[1];
            gint64 w0 = ow * in[2] / out[2], w1 = ((ow + 1) * in[2] + out[2] - 1) / out[2];
            double best = -INFINITY;
            gint64 at = (d0 * in[1] + h0) * in[2] + w0;
            for (gint64 d = d0; d < d1; d++)
              for (gint64 h = h0; h < h1; h++)
                for (gint64 c = w0; c < w1; c++)
                  {
                    gint64 k = (d * in[1] + h) * in[2] + c;
                    double v = rt_get_f64 (x, p * plane + k);
                    if (v > best || isnan (v))
                      {
                        best = v;
                        at = k;
                        if (isnan (v))
                          goto found;
                      }
                  }
          found:
            rt_convert (&best, GRAPH_DTYPE_DOUBLE, (char *) y->data + o * (gint64) es, x->dtype, 1);
            if (ind)
              ((gint64 *) ind->data)[o] = at;
          }
  return TRUE;
}

/* affine_grid_generator(theta, int[] size, bool align_corners): theta
 * (N, 2, 3) with size (N, C, H, W) → (N, H, W, 2), or (N, 3, 4) with
 * (N, C, D, H, W) → (N, D, H, W, 3).  Base coordinates x, y(, z) in
 * [-1, 1] (pixel centres without align_corners), times theta^T. */
static double
base_coord (gint64 i, gint64 n, gboolean align)
{
  if (n <= 1)
    return 0;
  double v = -1 + 2.0 * (double) i / (double) (n - 1);
  return align ? v : v * (double) (n - 1) / (double) n;
}

static gboolean
a_affine_grid_generator (RtCall *call, GError **error)
{
  const RtTensor *theta = aten_arg (call, 0), *size = aten_arg (call, 1);
  gboolean align = aten_i (call, 2, 0) != 0;
  if (theta == NULL || size == NULL || !aten_is_float (theta) || !graph_dtype_is_integer (size->dtype)
      || (size->numel != 4 && size->numel != 5))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "needs a float theta and a size of 4 (N, C, H, W) or 5 (N, C, D, H, W)");
      return FALSE;
    }
  guint sp = (guint) size->numel - 2;   /* 2 or 3 spatial dims */
  gint64 N = rt_get_i64 (size, 0);
  if (theta->rank != 3 || theta->dims[0] != N || theta->dims[1] != sp || theta->dims[2] != sp + 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "theta must be (N, %u, %u) for a size of %u values", sp,
                     sp + 1, sp + 2);
      return FALSE;
    }
  gint64 D = sp == 3 ? rt_get_i64 (size, 2) : 1, H = rt_get_i64 (size, sp), W = rt_get_i64 (size, sp + 1);
  if (D <= 0 || H <= 0 || W <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "sizes must be positive");
      return FALSE;
    }
  gint64 dims[5] = { N, sp == 3 ? D : H, sp == 3 ? H : W, sp == 3 ? W : (gint64) sp, (gint64) sp };
  RtTensor *o = rt_call_output (call, 0, theta->dtype, sp + 2, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (theta->dtype);
  gint64 out = 0;
  for (gint64 b = 0; b < N; b++)
    for (gint64 d = 0; d < D; d++)
      for (gint64 h = 0; h < H; h++)
        for (gint64 w = 0; w < W; w++)
          {
            double base[4] = { base_coord (w, W, align), base_coord (h, H, align), 0, 1 };
            if (sp == 3)
              base[2] = base_coord (d, D, align);
            else
              base[2] = 1;
            for (guint r = 0; r < sp; r++)
              {
                double v = 0;
                for (guint k = 0; k <= sp; k++)
                  v += base[k] * rt_get_f64 (theta, (b * sp + r) * (sp + 1) + k);
                rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + out++ * (gint64) es, theta->dtype, 1);
              }
          }
  return TRUE;
}

/* grid_sampler(input, grid, int interpolation_mode, int padding_mode,
 * bool align_corners) */
static gboolean
a_grid_sampler (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *g = aten_arg (call, 1);
  if (x == NULL || g == NULL)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs an input and a grid");
      return FALSE;
    }
  return rt_grid_sample (call, x, g, (int) aten_i (call, 2, 0), (int) aten_i (call, 3, 0),
                         aten_i (call, 4, 0) != 0, error);
}


static const RtKernelDef defs[] = {
  { RT_ATEN ("adaptive_max_pool1d"), RT_IN (2, 2), RT_OUT (1, 2), .run = a_adaptive_max_pool },
  { RT_ATEN ("adaptive_max_pool2d"), RT_IN (2, 2), RT_OUT (1, 2), .run = a_adaptive_max_pool },
  { RT_ATEN ("adaptive_max_pool3d"), RT_IN (2, 2), RT_OUT (1, 2), .run = a_adaptive_max_pool },
  RT_ATEN_ROW ("affine_grid_generator", 3, 3, a_affine_grid_generator),
  RT_ATEN_ROW ("grid_sampler", 5, 5, a_grid_sampler),
  RT_ATEN_ROW ("grid_sampler_2d", 5, 5, a_grid_sampler),
};

RT_KERNEL_TABLE (rt_kernels_aten_pool2, defs);
