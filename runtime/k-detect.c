/* Detection ops: NonMaxSuppression, RoiAlign (avg mode exact; max mode takes the max of
 * the bilinear samples, not onnxruntime's max of weighted corners). */
#include "runtime/kernels-private.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* RoiAlign's bounds on the sampling grid: per axis, and samples per ROI. */
#define ROI_MAX_GRID (1 << 20)
#define ROI_MAX_SAMPLES 1e10

/* ---- NonMaxSuppression ---------------------------------------------------- */

typedef struct
{
  double score;
  gint64 index;
} Cand;

static int
cand_cmp (const void *pa, const void *pb)
{
  const Cand *a = pa, *b = pb;
  if (a->score != b->score)
    return a->score > b->score ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Box i of batch b as (y1, x1, y2, x2) with y1 <= y2, x1 <= x2. */
static void
get_box (const RtTensor *boxes, gint64 b, gint64 i, gboolean center, double *r)
{
  gint64 o = (b * boxes->dims[1] + i) * 4;
  double v[4];
  for (int k = 0; k < 4; k++)
    v[k] = rt_get_f64 (boxes, o + k);
  if (center)
    {
      /* (x_center, y_center, width, height) */
      r[0] = v[1] - v[3] / 2;
      r[2] = v[1] + v[3] / 2;
      r[1] = v[0] - v[2] / 2;
      r[3] = v[0] + v[2] / 2;
    }
  else
    {
      r[0] = MIN (v[0], v[2]);
      r[2] = MAX (v[0], v[2]);
      r[1] = MIN (v[1], v[3]);
      r[3] = MAX (v[1], v[3]);
    }
}

static gboolean
suppressed (const double *a, const double *b, double thr)
{
  double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
  if (area_a <= 0 || area_b <= 0)
    return FALSE;
  double ih = MIN (a[2], b[2]) - MAX (a[0], b[0]), iw = MIN (a[3], b[3]) - MAX (a[1], b[1]);
  if (ih <= 0 || iw <= 0)
    return FALSE;
  double inter = ih * iw;
  return inter / (area_a + area_b - inter) > thr;
}

static gboolean
k_nms (RtCall *call, GError **error)
{
  const RtTensor *boxes = call->inputs[0], *scores = call->inputs[1];
  const RtTensor *mt = call->n_inputs > 2 ? call->inputs[2] : NULL;
  const RtTensor *it = call->n_inputs > 3 ? call->inputs[3] : NULL;
  const RtTensor *st = call->n_inputs > 4 ? call->inputs[4] : NULL;
  if (boxes->rank != 3 || boxes->dims[2] != 4 || scores->rank != 3
      || scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "boxes must be (batch, n, 4) and scores (batch, classes, n)");
      return FALSE;
    }
  gint64 max_out = mt && mt->numel > 0 ? rt_get_i64 (mt, 0) : 0;
  double iou = it && it->numel > 0 ? rt_get_f64 (it, 0) : 0;
  gboolean has_st = st && st->numel > 0;
  double sthr = has_st ? rt_get_f64 (st, 0) : 0;
  gboolean center = rt_attr_i (call->node, "center_point_box", 0) != 0;
  gint64 B = boxes->dims[0], n = boxes->dims[1], C = scores->dims[1];
  max_out = MAX (0, MIN (max_out, n));
  /* Selected triples, at most B * C * max_out. */
  gint64 cap = B * C * max_out;
  Cand *cand = rt_call_scratch_n (call, 0, (gsize) MAX (n, 1) * sizeof (Cand), error);
  gint64 *sel = cand ? rt_call_scratch_n (call, 1, (gsize) MAX (cap, 1) * 3 * sizeof (gint64), error) : NULL;
  gint64 *kept = sel ? rt_call_scratch_n (call, 2, (gsize) MAX (max_out, 1) * sizeof (gint64), error) : NULL;
  if (kept == NULL)
    return FALSE;
  gint64 ns = 0;
  for (gint64 b = 0; b < B; b++)
    for (gint64 c = 0; c < C; c++)
      {
        gint64 nc = 0, nk = 0;
        for (gint64 i = 0; i < n; i++)
          {
            double s = rt_get_f64 (scores, (b * C + c) * n + i);
            if (!has_st || s > sthr)
              cand[nc++] = (Cand) { s, i };
          }
        qsort (cand, (gsize) nc, sizeof (Cand), cand_cmp);
        for (gint64 j = 0; j < nc && nk < max_out; j++)
          {
            double bj[4], bk[4];
            gboolean keep = TRUE;
            get_box (boxes, b, cand[j].index, center, bj);
            for (gint64 k = 0; k < nk && keep; k++)
              {
                get_box (boxes, b, kept[k], center, bk);
                keep = !suppressed (bj, bk, iou);
              }
            if (keep)
              {
                kept[nk++] = cand[j].index;
                sel[ns * 3] = b;
                sel[ns * 3 + 1] = c;
                sel[ns * 3 + 2] = cand[j].index;
                ns++;
              }
          }
      }
  gint64 dims[2] = { ns, 3 };
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 2, dims, error);
  if (o == NULL)
    return FALSE;
  memcpy (o->data, sel, (gsize) ns * 3 * sizeof (gint64));
  return TRUE;
}

/* ---- RoiAlign ------------------------------------------------------------- */

/* Bilinear sample of plane p (H x W) at (y, x), 0 outside [-1, H] x [-1, W]
 * (the clamping of the operator's reference, onnxruntime's). */
static double
roi_sample (const RtTensor *x, gint64 p, gint64 H, gint64 W, double y, double xx)
{
  if (H <= 0 || W <= 0 || y < -1.0 || y > (double) H || xx < -1.0 || xx > (double) W)
    return 0;   /* an empty feature map has no pixel to sample (it read x[-1]) */
  y = MAX (y, 0);
  xx = MAX (xx, 0);
  gint64 yl = (gint64) y, xl = (gint64) xx, yh, xh;
  if (yl >= H - 1)
    {
      yh = yl = H - 1;
      y = (double) yl;
    }
  else
    yh = yl + 1;
  if (xl >= W - 1)
    {
      xh = xl = W - 1;
      xx = (double) xl;
    }
  else
    xh = xl + 1;
  double ly = y - (double) yl, lx = xx - (double) xl, hy = 1 - ly, hx = 1 - lx;
  gint64 o = p * H * W;
  return hy * hx * rt_get_f64 (x, o + yl * W + xl) + hy * lx * rt_get_f64 (x, o + yl * W + xh)
         + ly * hx * rt_get_f64 (x, o + yh * W + xl) + ly * lx * rt_get_f64 (x, o + yh * W + xh);
}

gboolean
rt_roi_align (RtCall *call, const RtTensor *x, const RtTensor *rois, const RtTensor *bi, gint64 oh, gint64 ow,
              gint64 sr, double scale, gboolean is_max, gboolean half, GError **error)
{
  gint64 cols = bi ? 4 : 5;
  if (x->rank != 4 || rois->rank != 2 || rois->dims[1] != cols || (bi && bi->numel != rois->dims[0]))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, bi ? "X must be (N, C, H, W), rois (R, 4) and batch_indices (R)"
                                                     : "input must be (N, C, H, W) and rois (K, 5)");
      return FALSE;
    }
  gint64 R = rois->dims[0], N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
  if (oh < 1 || ow < 1)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad output size");
      return FALSE;
    }
  if (sr < 0)
    sr = 0;   /* torchvision: any sampling_ratio <= 0 is adaptive, ONNX's 0 */
  gint64 dims[4] = { R, C, oh, ow };
  RtTensor *y = rt_call_output (call, 0, x->dtype, 4, dims, error);
  if (y == NULL)
    return FALSE;
  double off = half ? 0.5 : 0;
  for (gint64 r = 0; r < R; r++)
    {
      const gint64 c0 = r * cols + (bi ? 0 : 1);
      double bd = bi ? (double) rt_get_i64 (bi, r) : rt_get_f64 (rois, r * cols);
      gint64 b = (gint64) bd;
      if (!(bd >= 0 && bd < (double) N) || (double) b != bd)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "batch index %g is out of range", bd);
          return FALSE;
        }
      double x1 = rt_get_f64 (rois, c0) * scale - off, y1 = rt_get_f64 (rois, c0 + 1) * scale - off;
      double x2 = rt_get_f64 (rois, c0 + 2) * scale - off, y2 = rt_get_f64 (rois, c0 + 3) * scale - off;
      double rw = x2 - x1, rh = y2 - y1;
      if (!half)
        {
          rw = MAX (rw, 1.0);
          rh = MAX (rh, 1.0);
        }
      double bh = rh / (double) oh, bw = rw / (double) ow;
      double gh_d = sr > 0 ? (double) sr : ceil (rh / (double) oh);
      double gw_d = sr > 0 ? (double) sr : ceil (rw / (double) ow);
      /* Absurd ROIs or sampling ratios would loop for ever (and a huge
       * double does not convert to an integer): refuse them. */
      if (!(gh_d <= ROI_MAX_GRID && gw_d <= ROI_MAX_GRID)
          || !(MAX (gh_d, 1) * MAX (gw_d, 1) * (double) C * (double) oh * (double) ow
               <= ROI_MAX_SAMPLES))
        {
          rt_call_error (call, error, RT_ERROR_TOO_LARGE,
                         "ROI %" G_GINT64_FORMAT " needs a sampling grid of %g x %g per bin: too "
                         "large (a huge ROI or sampling_ratio)", r, gh_d, gw_d);
          return FALSE;
        }
      gint64 gh = MAX ((gint64) gh_d, 1);
      gint64 gw = MAX ((gint64) gw_d, 1);
      for (gint64 c = 0; c < C; c++)
        for (gint64 ph = 0; ph < oh; ph++)
          for (gint64 pw = 0; pw < ow; pw++)
            {
              double acc = is_max ? -INFINITY : 0;
              for (gint64 iy = 0; iy < gh; iy++)
                for (gint64 ix = 0; ix < gw; ix++)
                  {
                    double sy = y1 + (double) ph * bh + ((double) iy + 0.5) * bh / (double) gh;
                    double sx = x1 + (double) pw * bw + ((double) ix + 0.5) * bw / (double) gw;
                    double v = roi_sample (x, b * C + c, H, W, sy, sx);
                    acc = is_max ? MAX (acc, v) : acc + v;
                  }
              if (!is_max)
                acc /= (double) (gh * gw);
              rt_convert (&acc, GRAPH_DTYPE_DOUBLE,
                          (char *) y->data + (((r * C + c) * oh + ph) * ow + pw) * (gint64) rt_dtype_size (y->dtype),
                          y->dtype, 1);
            }
    }
  return TRUE;
}

static gboolean
k_roialign (RtCall *call, GError **error)
{
  gint64 sr = rt_attr_i (call->node, "sampling_ratio", 0);
  if (sr < 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad output size or sampling_ratio");
      return FALSE;
    }
  const char *ctm = rt_attr_s (call->node, "coordinate_transformation_mode",
                               call->opset >= 16 ? "half_pixel" : "output_half_pixel");
  return rt_roi_align (call, call->inputs[0], call->inputs[1], call->inputs[2],
                       rt_attr_i (call->node, "output_height", 1), rt_attr_i (call->node, "output_width", 1), sr,
                       rt_attr_f (call->node, "spatial_scale", 1.0),
                       strcmp (rt_attr_s (call->node, "mode", "avg"), "max") == 0,
                       strcmp (ctm, "half_pixel") == 0, error);
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("RoiAlign", 10), RT_IN (3, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_roialign },
  { RT_ONNX ("NonMaxSuppression", 10), RT_IN (2, 5), RT_OUT (1, 1), .dtypes = RT_DT (FLOAT), .run = k_nms },
};

RT_KERNEL_TABLE (rt_kernels_detect, defs);
