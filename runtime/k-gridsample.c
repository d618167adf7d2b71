/* GridSample (opset 16, 4-D): PyTorch's grid_sampler_2d, whose results the
 * backend tests hold (bilinear, nearest, bicubic; zeros, border and
 * reflection padding); aten::grid_sampler runs the same loop
 * (rt_grid_sample, k-aten-pool2.c). */
#include "runtime/kernels-private.h"
#include <math.h>
#include <string.h>

typedef enum { PAD_ZEROS, PAD_BORDER, PAD_REFLECTION } Padding;

static double
reflect (double in, double twice_low, double twice_high)
{
  if (twice_low == twice_high)
    return 0;
  double min = twice_low / 2, span = (twice_high - twice_low) / 2;
  in = fabs (in - min);
  double extra = fmod (in, span);
  gint64 flips = graph_double_to_int64 (floor (in / span));
  return flips % 2 == 0 ? extra + min : span - extra + min;
}

static double
pad_coord (double c, gint64 size, Padding p, gboolean align)
{
  if (p == PAD_BORDER)
    return CLAMP (c, 0, (double) (size - 1));
  if (p == PAD_REFLECTION)
    {
      c = align ? reflect (c, 0, 2.0 * (double) (size - 1)) : reflect (c, -1, 2.0 * (double) size - 1);
      return CLAMP (c, 0, (double) (size - 1));
    }
  return c;
}

static double
unnormalize (double c, gint64 size, gboolean align)
{
  return align ? (c + 1) / 2 * (double) (size - 1) : ((c + 1) * (double) size - 1) / 2;
}

/* Plane value at integral (y, x), 0 outside (and for NaN). */
static double
at (const RtTensor *t, gint64 o, gint64 H, gint64 W, double y, double x)
{
  if (!(y >= 0 && y < (double) H && x >= 0 && x < (double) W))
    return 0;
  return rt_get_f64 (t, o + (gint64) y * W + (gint64) x);
}

static double
cubic1 (double x, double A)
{
  return ((A + 2) * x - (A + 3)) * x * x + 1;
}

static double
cubic2 (double x, double A)
{
  return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
}

static gboolean
k_gridsample (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *g = call->inputs[1];
  const char *ms = rt_attr_s (call->node, "mode", "bilinear");
  const char *ps = rt_attr_s (call->node, "padding_mode", "zeros");
  gboolean align = rt_attr_i (call->node, "align_corners", 0) != 0;
  int mode = strcmp (ms, "bilinear") == 0 ? 0 : strcmp (ms, "nearest") == 0 ? 1
           : strcmp (ms, "bicubic") == 0 ? 2 : -1;
  int pad = strcmp (ps, "zeros") == 0 ? PAD_ZEROS : strcmp (ps, "border") == 0 ? PAD_BORDER
          : strcmp (ps, "reflection") == 0 ? PAD_REFLECTION : -1;
  if (mode < 0 || pad < 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "mode '%s' / padding_mode '%s' is not supported", ms, ps);
      return FALSE;
    }
  return rt_grid_sample (call, x, g, mode, pad, align, error);
}

gboolean
rt_grid_sample (RtCall *call, const RtTensor *x, const RtTensor *g, int mode, int pad_mode,
                gboolean align, GError **error)
{
  if (x->rank != 4 || g->rank != 4 || g->dims[0] != x->dims[0] || g->dims[3] != 2
      || !graph_dtype_is_floating (x->dtype) || !graph_dtype_is_floating (g->dtype))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "input must be floating (N, C, H, W) and grid floating (N, H_out, W_out, 2)");
      return FALSE;
    }
  if (mode < 0 || mode > 2 || pad_mode < 0 || pad_mode > 2)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "interpolation mode %d / padding mode %d is not supported",
                     mode, pad_mode);
      return FALSE;
    }
  Padding pad = (Padding) pad_mode;
  gint64 N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
  gint64 OH = g->dims[1], OW = g->dims[2];
  gint64 dims[4] = { N, C, OH, OW };
  RtTensor *y = rt_call_output (call, 0, x->dtype, 4, dims, error);
  if (y == NULL)
    return FALSE;
  gsize es = rt_dtype_size (y->dtype);
  for (gint64 n = 0; n < N; n++)
    for (gint64 i = 0; i < OH; i++)
      for (gint64 j = 0; j < OW; j++)
        {
          gint64 go = ((n * OH + i) * OW + j) * 2;
          double ix = unnormalize (rt_get_f64 (g, go), W, align);
          double iy = unnormalize (rt_get_f64 (g, go + 1), H, align);
          if (mode != 2)
            {
              ix = pad_coord (ix, W, pad, align);
              iy = pad_coord (iy, H, pad, align);
            }
          for (gint64 c = 0; c < C; c++)
            {
              gint64 po = (n * C + c) * H * W;
              double v = 0;
              if (mode == 1)
                v = at (x, po, H, W, nearbyint (iy), nearbyint (ix));
              else if (mode == 0)
                {
                  double x0 = floor (ix), y0 = floor (iy);
                  double lx = ix - x0, ly = iy - y0;
                  v = (1 - ly) * ((1 - lx) * at (x, po, H, W, y0, x0) + lx * at (x, po, H, W, y0, x0 + 1))
                      + ly * ((1 - lx) * at (x, po, H, W, y0 + 1, x0) + lx * at (x, po, H, W, y0 + 1, x0 + 1));
                }
              else
                {
                  /* Taps floor - 1 .. floor + 2, each padded on its own. */
                  const double A = -0.75;
                  double fx = floor (ix), fy = floor (iy), tx = ix - fx, ty = iy - fy;
                  double wx[4] = { cubic2 (tx + 1, A), cubic1 (tx, A), cubic1 (1 - tx, A), cubic2 (2 - tx, A) };
                  double wy[4] = { cubic2 (ty + 1, A), cubic1 (ty, A), cubic1 (1 - ty, A), cubic2 (2 - ty, A) };
                  for (int a = 0; a < 4; a++)
                    {
                      double row = 0;
                      double yy = pad_coord (fy - 1 + a, H, pad, align);
                      for (int b = 0; b < 4; b++)
                        {
                          double xx = pad_coord (fx - 1 + b, W, pad, align);
                          row += wx[b] * at (x, po, H, W, yy, xx);
                        }
                      v += wy[a] * row;
                    }
                }
              rt_convert (&v, GRAPH_DTYPE_DOUBLE,
                          (char *) y->data + (((n * C + c) * OH + i) * OW + j) * (gint64) es, y->dtype, 1);
            }
        }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("GridSample", 16), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_gridsample },
};

RT_KERNEL_TABLE (rt_kernels_gridsample, defs);
