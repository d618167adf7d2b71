/* torchvision's operators as a trace records them (torchvision::nms,
 * torchvision::roi_align: detection models), so `symonnx verify` runs such
 * a trace as its reference.  roi_align is RoiAlign's loop (k-detect.c). */
#include "runtime/k-aten-private.h"
#include <math.h>

typedef struct
{
  double score;
  gint64 index;
} Scored;

static int
scored_cmp (const void *pa, const void *pb)
{
  const Scored *a = pa, *b = pb;
  if (a->score != b->score)
    return a->score > b->score ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;   /* ties: lower index first */
}

/* nms(boxes (N, 4) as x1, y1, x2, y2, scores (N), iou_threshold) → the
 * kept boxes' indices (int64) by decreasing score: torchvision's greedy
 * loop, a box dropped when its IoU with a kept one is above the
 * threshold (areas (x2 - x1) (y2 - y1), no reordering of corners). */
static gboolean
t_nms (RtCall *call, GError **error)
{
  const RtTensor *boxes = aten_arg (call, 0), *scores = aten_arg (call, 1);
  if (!aten_is_float (boxes) || !aten_is_float (scores) || boxes->rank != 2 || boxes->dims[1] != 4
      || scores->rank != 1 || scores->dims[0] != boxes->dims[0] || aten_arg (call, 2) == NULL)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs float boxes (N, 4), scores (N) and an IoU threshold");
      return FALSE;
    }
  double thr = aten_f (call, 2, 0);
  gint64 n = boxes->dims[0];
  Scored *order = rt_call_scratch_n (call, 1, (gsize) MAX (n, 1) * sizeof (Scored), error);
  guint8 *dropped = order ? rt_call_scratch_n (call, 2, (gsize) MAX (n, 1), error) : NULL;
  gint64 *keep = dropped ? rt_call_scratch_n (call, 3, (gsize) MAX (n, 1) * sizeof (gint64), error) : NULL;
  if (keep == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    {
      order[i] = (Scored) { rt_get_f64 (scores, i), i };
      dropped[i] = 0;
    }
  qsort (order, (size_t) n, sizeof (Scored), scored_cmp);
  gint64 kept = 0;
  for (gint64 a = 0; a < n; a++)
    {
      gint64 i = order[a].index;
      if (dropped[i])
        continue;
      keep[kept++] = i;
      double ix1 = rt_get_f64 (boxes, i * 4), iy1 = rt_get_f64 (boxes, i * 4 + 1);
      double ix2 = rt_get_f64 (boxes, i * 4 + 2), iy2 = rt_get_f64 (boxes, i * 4 + 3);
      double iarea = (ix2 - ix1) * (iy2 - iy1);
      for (gint64 b = a + 1; b < n; b++)
        {
          gint64 j = order[b].index;
          if (dropped[j])
            continue;
          double jx1 = rt_get_f64 (boxes, j * 4), jy1 = rt_get_f64 (boxes, j * 4 + 1);
          double jx2 = rt_get_f64 (boxes, j * 4 + 2), jy2 = rt_get_f64 (boxes, j * 4 + 3);
          double w = MAX (0.0, MIN (ix2, jx2) - MAX (ix1, jx1)), h = MAX (0.0, MIN (iy2, jy2) - MAX (iy1, jy1));
          double inter = w * h, ovr = inter / (iarea + (jx2 - jx1) * (jy2 - jy1) - inter);
          if (ovr > thr)
            dropped[j] = 1;
        }
    }
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 1, &kept, error);
  if (o == NULL)
    return FALSE;
  if (kept)
    memcpy (o->data, keep, (gsize) kept * sizeof (gint64));
  return TRUE;
}

/* roi_align(input (N, C, H, W), rois (K, 5), spatial_scale, pooled_height,
 * pooled_width, sampling_ratio, aligned) → (K, C, ph, pw), average mode;
 * aligned: half-pixel coordinates. */
static gboolean
t_roi_align (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *rois = aten_arg (call, 1);
  if (!aten_is_float (x) || !aten_is_float (rois))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a float input and float rois");
      return FALSE;
    }
  return rt_roi_align (call, x, rois, NULL, aten_i (call, 3, 1), aten_i (call, 4, 1), aten_i (call, 5, -1),
                       aten_f (call, 2, 1.0), FALSE, aten_i (call, 6, 0) != 0, error);
}

static const RtKernelDef defs[] = {
  { RT_DOMAIN ("torchvision", "nms", 0), RT_IN (3, 3), RT_OUT (1, 1), .run = t_nms },
  { RT_DOMAIN ("torchvision", "roi_align", 0), RT_IN (7, 7), RT_OUT (1, 1), .run = t_roi_align },
};

RT_KERNEL_TABLE (rt_kernels_torchvision, defs);
