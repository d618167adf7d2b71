/* Resize (opsets 10+) and Upsample: nearest and n-linear, with the ONNX
 * coordinate transformation modes. */
#include "runtime/kernel.h"
#include <math.h>
#include <string.h>

typedef enum { CT_HALF_PIXEL, CT_PYTORCH_HALF_PIXEL, CT_ALIGN_CORNERS, CT_ASYMMETRIC, CT_TF_HALF_PIXEL_NN } CoordMode;
typedef enum { NM_ROUND_FLOOR, NM_ROUND_CEIL, NM_FLOOR, NM_CEIL } NearestMode;

static double
to_original (CoordMode m, double x, double scale, double out_len, gint64 in_len)
{
  switch (m)
    {
    case CT_HALF_PIXEL: return (x + 0.5) / scale - 0.5;
    case CT_PYTORCH_HALF_PIXEL: return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0;
    case CT_ALIGN_CORNERS: return out_len == 1 ? 0 : x * (double) (in_len - 1) / (out_len - 1);
    case CT_TF_HALF_PIXEL_NN: return (x + 0.5) / scale;
    case CT_ASYMMETRIC: default: return x / scale;
    }
}

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
          dims[i] = rt_get_i64 (sz, i);
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
  else
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "coordinate_transformation_mode '%s' is not supported", ctm);
      return FALSE;
    }
  NearestMode nmode = strcmp (nm, "round_prefer_ceil") == 0 ? NM_ROUND_CEIL
                      : strcmp (nm, "floor") == 0 ? NM_FLOOR
                      : strcmp (nm, "ceil") == 0 ? NM_CEIL : NM_ROUND_FLOOR;
  gboolean linear = strcmp (mode, "linear") == 0 || strcmp (mode, "bilinear") == 0;
  if (!linear && strcmp (mode, "nearest") != 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "mode '%s' is not supported", mode);
      return FALSE;
    }
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  /* Per-dimension source indices and weights. */
  gint64 total = 0;
  for (guint i = 0; i < x->rank; i++)
    total += dims[i];
  gint64 *i0 = rt_call_scratch (call, (gsize) MAX (total, 1) * (2 * sizeof (gint64) + sizeof (double)), error);
  if (i0 == NULL)
    return FALSE;
  gint64 *i1 = i0 + total;
  double *wt = (double *) (i1 + total);
  gint64 base[RT_MAX_RANK], off = 0;
  for (guint d = 0; d < x->rank; d++)
    {
      base[d] = off;
      for (gint64 k = 0; k < dims[d]; k++)
        {
          double s = (x->dims[d] == dims[d] && !sz) ? 1.0 : scales[d];
          double xo = (x->dims[d] == dims[d]) ? (double) k : to_original (cm, (double) k, s,
                                                                                cm == CT_ALIGN_CORNERS && !sz ? (double) x->dims[d] * s : (double) dims[d],
                                                                                x->dims[d]);
          if (!linear)
            {
              i0[off + k] = i1[off + k] = nearest (nmode, xo, x->dims[d]);
              wt[off + k] = 0;
            }
          else
            {
              xo = CLAMP (xo, 0, (double) (x->dims[d] - 1));
              gint64 f = (gint64) floor (xo);
              i0[off + k] = f;
              i1[off + k] = MIN (f + 1, x->dims[d] - 1);
              wt[off + k] = xo - (double) f;
            }
        }
      off += dims[d];
    }
  gint64 xs[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (x->rank, x->dims, xs);
  guint corners = linear ? 1u << x->rank : 1;
  for (gint64 k = 0; k < y->numel; k++)
    {
      double acc = 0;
      for (guint corner = 0; corner < corners; corner++)
        {
          double w = 1;
          gint64 src = 0;
          for (guint d = 0; d < x->rank && w != 0; d++)
            {
              gboolean hi = (corner >> d) & 1;
              double f = wt[base[d] + c[d]];
              w *= hi ? f : 1 - f;
              src += (hi ? i1 : i0)[base[d] + c[d]] * xs[d];
            }
          if (w != 0)
            acc += w * rt_get_f64 (x, src);
        }
      rt_convert (&acc, GRAPH_DTYPE_DOUBLE, (char *) y->data + k * (gint64) rt_dtype_size (x->dtype), x->dtype, 1);
      for (gint64 j = (gint64) x->rank - 1; j >= 0; j--)
        {
          if (++c[j] < dims[j])
            break;
          c[j] = 0;
        }
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { "onnx", "Resize", 10, 0, 1, 4, 1, 1, RT_DT_NUMERIC, k_resize, NULL, NULL },
  { "onnx", "Upsample", 7, 0, 1, 2, 1, 1, RT_DT_NUMERIC, k_resize, NULL, NULL },
};

RT_KERNEL_TABLE (rt_kernels_resize, defs);
