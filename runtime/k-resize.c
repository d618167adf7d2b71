/* Resize (opsets 10+) and Upsample: nearest and n-linear, with the ONNX
 * coordinate transformation modes. */
#include "runtime/kernel.h"
#include <math.h>
#include <string.h>

typedef enum { CT_HALF_PIXEL, CT_PYTORCH_HALF_PIXEL, CT_ALIGN_CORNERS, CT_ASYMMETRIC, CT_TF_HALF_PIXEL_NN,
               CT_TF_CROP_AND_RESIZE } CoordMode;
typedef enum { NM_ROUND_FLOOR, NM_ROUND_CEIL, NM_FLOOR, NM_CEIL } NearestMode;

/* The input coordinate of output index x, in double (linear and cubic
 * weights) and in float (nearest: ONNX Runtime and PyTorch compute it in
 * float, and where x / scale is an integer in exact arithmetic the
 * rounding of the operands decides the index: Upsample of 6 to 16 at
 * opset 9, scale 2.6666667f, 8 / scale is 2.99999991 in double, 3 in
 * float, and PyTorch takes 3). */
#define GEN_TO_ORIGINAL(NAME, T)                                                                  \
  static T                                                                                        \
  NAME (CoordMode m, T x, T scale, T out_len, gint64 in_len)                                      \
  {                                                                                               \
    const T half = (T) 0.5;                                                                       \
    switch (m)                                                                                    \
      {                                                                                           \
      case CT_HALF_PIXEL: return (x + half) / scale - half;                                       \
      case CT_PYTORCH_HALF_PIXEL: return out_len > 1 ? (x + half) / scale - half : 0;             \
      case CT_ALIGN_CORNERS: return out_len == 1 ? 0 : x * (T) (in_len - 1) / (out_len - 1);      \
      case CT_TF_HALF_PIXEL_NN: return (x + half) / scale;                                        \
      case CT_ASYMMETRIC: default: return x / scale;                                              \
      }                                                                                           \
  }
GEN_TO_ORIGINAL (to_original, double)
GEN_TO_ORIGINAL (to_original_float, float)

static gint64
nearest (NearestMode m, double x, gint64 len)
{
  gint64 i;
  switch (m)
    {
    case NM_FLOOR: i = (gint64) floor (x); break;
    case NM_CEIL: i = (gint64) ceil (x); break;
    case NM_ROUND_CEIL: i = (gint64) floor (x + 0.5); break;
    case NM_ROUND_FLOOR: default: i = (x == floor (x) + 0.5) ? (gint64) floor (x) : (gint64) floor (x + 0.5); break;
    }
  return CLAMP (i, 0, len - 1);
}

static gboolean
k_resize (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  gboolean upsample = strcmp (graph_node_op_type (call->node), "Upsample") == 0;
  double scales[RT_MAX_RANK];
  gint64 dims[RT_MAX_RANK];
  const RtTensor *st = NULL, *sz = NULL;
  if (upsample)
    {
      gsize len;
      const double *fs;
      if (call->opset >= 9 || call->n_inputs > 1)
        st = call->n_inputs > 1 ? call->inputs[1] : NULL;
      else if (graph_node_get_fs (call->node, "scales", &len, &fs) && len == x->rank)
        for (guint i = 0; i < x->rank; i++)
          scales[i] = fs[i];
      else
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "missing scales");
          return FALSE;
        }
    }
  else if (call->opset < 11)
    st = call->inputs[1];
  else
    {
      st = call->n_inputs > 2 ? call->inputs[2] : NULL;
      sz = call->n_inputs > 3 ? call->inputs[3] : NULL;
      if (st && st->numel == 0)
        st = NULL;
    }
  if (sz)
    {
      if (sz->numel != x->rank)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "sizes must have one entry per dimension");
          return FALSE;
        }
      for (guint i = 0; i < x->rank; i++)
        {
          dims[i] = rt_get_i64 (sz, i);   /* a negative size: rt_call_output refuses the shape */
          scales[i] = x->dims[i] ? (double) dims[i] / (double) x->dims[i] : 1;
        }
    }
  else
    {
      if (st)
        {
          if (st->numel != x->rank)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "scales must have one entry per dimension");
              return FALSE;
            }
          for (guint i = 0; i < x->rank; i++)
            scales[i] = rt_get_f64 (st, i);
        }
      else if (!upsample || call->opset >= 9)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "neither scales nor sizes given");
          return FALSE;
        }
      for (guint i = 0; i < x->rank; i++)
        {
          if (!(scales[i] > 0) || scales[i] * (double) x->dims[i] > 1e15)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "invalid scale %g", scales[i]);
              return FALSE;
            }
          dims[i] = (gint64) floor ((double) x->dims[i] * scales[i] + 1e-9 * 0);
        }
    }
  const char *mode = rt_attr_s (call->node, "mode", "nearest");
  const char *ctm = rt_attr_s (call->node, "coordinate_transformation_mode",
                               (upsample || call->opset < 11) ? "asymmetric" : "half_pixel");
  const char *nm = rt_attr_s (call->node, "nearest_mode",
                              (upsample || call->opset < 11) ? "floor" : "round_prefer_floor");
  CoordMode cm;
  if (strcmp (ctm, "half_pixel") == 0) cm = CT_HALF_PIXEL;
  else if (strcmp (ctm, "pytorch_half_pixel") == 0) cm = CT_PYTORCH_HALF_PIXEL;
  else if (strcmp (ctm, "align_corners") == 0) cm = CT_ALIGN_CORNERS;
  else if (strcmp (ctm, "asymmetric") == 0) cm = CT_ASYMMETRIC;
  else if (strcmp (ctm, "tf_half_pixel_for_nn") == 0) cm = CT_TF_HALF_PIXEL_NN;
  else if (strcmp (ctm, "tf_crop_and_resize") == 0) cm = CT_TF_CROP_AND_RESIZE;
  else
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "coordinate_transformation_mode '%s' is not supported", ctm);
      return FALSE;
    }
  NearestMode nmode = strcmp (nm, "round_prefer_ceil") == 0 ? NM_ROUND_CEIL
                      : strcmp (nm, "floor") == 0 ? NM_FLOOR
                      : strcmp (nm, "ceil") == 0 ? NM_CEIL : NM_ROUND_FLOOR;
  gboolean linear = strcmp (mode, "linear") == 0 || strcmp (mode, "bilinear") == 0;
  gboolean cubic = strcmp (mode, "cubic") == 0;
  if (!linear && !cubic && strcmp (mode, "nearest") != 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "mode '%s' is not supported", mode);
      return FALSE;
    }
  /* tf_crop_and_resize: the region of interest, (starts, ends) per dim. */
  const RtTensor *roi = NULL;
  if (cm == CT_TF_CROP_AND_RESIZE)
    {
      roi = call->opset >= 11 && call->n_inputs > 1 ? call->inputs[1] : NULL;
      if (roi == NULL || roi->numel != 2 * (gint64) x->rank)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "tf_crop_and_resize needs an roi of 2 * rank values");
          return FALSE;
        }
      /* a NaN or infinite roi would make every source index undefined */
      for (gint64 i = 0; i < roi->numel; i++)
        if (!isfinite (rt_get_f64 (roi, i)) || fabs (rt_get_f64 (roi, i)) > 1e9)
          {
            rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "roi value %g is not finite or beyond 1e9",
                           rt_get_f64 (roi, i));
            return FALSE;
          }
    }
  double extrapolation = rt_attr_f (call->node, "extrapolation_value", 0);
  double cubic_a = rt_attr_f (call->node, "cubic_coeff_a", -0.75);
  gboolean exclude_outside = rt_attr_i (call->node, "exclude_outside", 0) != 0;
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  /* Per dimension and output index: T source indices and weights (T = 1
   * nearest, 2 linear, 4 cubic, as in ONNX's reference: edge-padded
   * neighbours), and whether the coordinate is outside the crop. */
  guint T = cubic ? 4 : linear ? 2 : 1;
  if (y->numel == 0)
    return TRUE;   /* sizes such as (6e18, 7e18, 0, 4) hold nothing to compute */
  /* the per-dim tables hold Σ dims entries: a sum past int64 (huge sizes
   * of an empty output: onnx-run campaign, 4.3M runs on e94cfaf's runtime)
   * was signed overflow.  A non-empty output's dims are at most its numel,
   * which the size limit caps; the limit is the caller's, so checked */
  gint64 total = 0;
  for (guint i = 0; i < x->rank; i++)
    if (__builtin_add_overflow (total, dims[i], &total))
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "output sizes too large");
        return FALSE;
      }
  gint64 *idx = rt_call_scratch (call, (gsize) MAX (total, 1) * T * (sizeof (gint64) + sizeof (double))
                                 + (gsize) MAX (total, 1), error);
  if (idx == NULL)
    return FALSE;
  double *wt = (double *) (idx + total * T);
  guint8 *outside = (guint8 *) (wt + total * T);
  gint64 base[RT_MAX_RANK], off = 0;
  for (guint d = 0; d < x->rank; d++)
    {
      base[d] = off;
      gint64 in = x->dims[d];
      for (gint64 k = 0; k < dims[d]; k++)
        {
          gint64 *ix = idx + (off + k) * T;
          double *w = wt + (off + k) * T;
          double s = (in == dims[d] && !sz) ? 1.0 : scales[d];
          double out_len = (cm == CT_ALIGN_CORNERS || cm == CT_TF_CROP_AND_RESIZE) && !sz
                           ? (double) in * s : (double) dims[d];
          double xo;
          outside[off + k] = 0;
          if (cm == CT_TF_CROP_AND_RESIZE)
            {
              double r0 = rt_get_f64 (roi, d), r1 = rt_get_f64 (roi, d + x->rank);
              xo = out_len == 1 ? (r1 - r0) * (double) (in - 1) / 2
                                : (double) k * (r1 - r0) * (double) (in - 1) / (out_len - 1);
              xo += r0 * (double) (in - 1);
              outside[off + k] = xo < 0 || xo > (double) (in - 1);
            }
          else if (in == dims[d])
            xo = (double) k;
          else if (T == 1)
            xo = to_original_float (cm, (float) k, (float) s, (float) out_len, in);
          else
            xo = to_original (cm, (double) k, s, out_len, in);
          if (T == 1)
            {
              ix[0] = nearest (nmode, xo, in);
              w[0] = 1;
            }
          else if (T == 2)
            {
              xo = CLAMP (xo, 0, (double) (in - 1));
              gint64 f = (gint64) floor (xo);
              ix[0] = f;
              ix[1] = MIN (f + 1, in - 1);
              w[1] = xo - (double) f;
              w[0] = 1 - w[1];
            }
          else
            {
              gint64 f = (gint64) floor (xo);
              double r = xo - (double) f, A = cubic_a, sum = 0;
              w[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
              w[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
              w[2] = ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1;
              w[3] = ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A;
              for (guint t = 0; t < 4; t++)
                {
                  gint64 j = f - 1 + t;
                  if (exclude_outside && (j < 0 || j >= in))
                    w[t] = 0;
                  sum += w[t];
                  ix[t] = CLAMP (j, 0, in - 1);
                }
              if (exclude_outside && sum != 0)
                for (guint t = 0; t < 4; t++)
                  w[t] /= sum;
            }
        }
      off += dims[d];
    }
  gint64 xs[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (x->rank, x->dims, xs);
  guint64 combos = 1;
  for (guint d = 0; d < x->rank; d++)
    combos *= T;
  for (gint64 k = 0; k < y->numel; k++)
    {
      double acc = 0;
      gboolean out = FALSE;
      for (guint d = 0; d < x->rank; d++)
        out |= outside[base[d] + c[d]];
      if (out)
        acc = extrapolation;
      else
        for (guint64 combo = 0; combo < combos; combo++)
          {
            double w = 1;
            gint64 src = 0;
            guint64 rest = combo;
            for (guint d = 0; d < x->rank && w != 0; d++)
              {
                guint t = (guint) (rest % T);
                rest /= T;
                w *= wt[(base[d] + c[d]) * T + t];
                src += idx[(base[d] + c[d]) * T + t] * xs[d];
              }
            if (w != 0)
              acc += w * rt_get_f64 (x, src);
          }
      rt_convert (&acc, GRAPH_DTYPE_DOUBLE, (char *) y->data + k * (gint64) rt_dtype_size (x->dtype), x->dtype, 1);
      rt_index_next (c, dims, x->rank);
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("Resize", 10), RT_IN (1, 4), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_resize },
  { RT_ONNX ("Upsample", 7), RT_IN (1, 2), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_resize },
};

RT_KERNEL_TABLE (rt_kernels_resize, defs);
