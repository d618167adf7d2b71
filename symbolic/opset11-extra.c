/* Opset 11: operators torch 1.13 registers from opset 11 that the first
 * tables lacked (issue 12). */
#include "symbolic/opset-tables.h"

/* aten::upsample_bicubic2d(input, output_size, align_corners, scale_factors):
 * Resize "cubic" (coefficient −0.75, half_pixel or align_corners), as
 * torch's _interpolate_helper writes it. */
static gboolean
sym_upsample_bicubic (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return sym_upsample_mode (ctx, n, out, error, "cubic");
}

/* torchvision::nms(boxes, scores, iou_threshold), as torchvision 0.14's own
 * symbolic (ops/_register_onnx_ops.py): NonMaxSuppression of boxes[None]
 * and scores[None, None] with no cap on the output count, then column 2
 * of its [n, 3] result (the box indices, by decreasing score). */
static gboolean
sym_torchvision_nms (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *boxes, *scores;
  double iou;
  if (!sym_parse_args (ctx, n, "vvf", &boxes, &scores, &iou, error))
    return FALSE;
  static const gint64 zero = 0, two = 2, one = 1;
  GraphValue *b = sym_unsqueeze (ctx, boxes, 1, &zero);
  GraphValue *s = sym_unsqueeze (ctx, sym_unsqueeze (ctx, scores, 1, &zero), 1, &zero);
  const gint64 cap = G_MAXINT64;
  float thr = (float) iou;
  const gint64 one_dim = 1;
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, &one_dim, &thr, sizeof thr, error);
  if (t == NULL)
    return FALSE;
  GraphValue *sel = graph_op (sym_graph (ctx), "NonMaxSuppression", b, s, sym_const_ints (ctx, 1, &cap),
                              sym_constant (ctx, t), NULL);
  GraphValue *col = graph_op (sym_graph (ctx), "Gather", sel, sym_const_ints (ctx, 1, &two), "axis_i", one,
                              NULL);
  out[0] = sym_squeeze (ctx, col, 1, &one);
  return TRUE;
}

/* torchvision::roi_align(input, rois, spatial_scale, pooled_h, pooled_w,
 * sampling_ratio, aligned), as torchvision 0.14's symbolic: RoiAlign of the
 * boxes rois[:, 1:5] with batch indices rois[:, 0] as int64, sampling
 * ratio 0 for a negative one.  aligned=True needs opset 16's
 * coordinate_transformation_mode (half_pixel); before it, refused (ONNX's
 * RoiAlign-10 is torchvision's aligned=False). */
static gboolean
sym_torchvision_roi_align (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *rois;
  double scale;
  gint64 ph, pw, sampling;
  gboolean aligned;
  if (!sym_parse_args (ctx, n, "vvfiiib", &input, &rois, &scale, &ph, &pw, &sampling, &aligned, error))
    return FALSE;
  if (aligned && sym_opset (ctx) < 16)
    /* torch 1.13: torchvision warns and writes RoiAlign without the half-pixel offset; refused here
     * because that computes aligned=False */
    return sym_unimplemented (ctx, n, error, "roi_align with aligned=True (from opset 16)");
  Graph *g = sym_graph (ctx);
  static const gint64 one = 1, zero = 0;
  const gint64 box_cols[] = { 1, 2, 3, 4 };
  GraphValue *idx = graph_op (g, "Gather", rois, sym_const_ints (ctx, 1, &zero), "axis_i", one, NULL);
  idx = sym_cast (ctx, sym_squeeze (ctx, idx, 1, &one), GRAPH_DTYPE_INT64);
  GraphValue *boxes = graph_op (g, "Gather", rois, sym_const_ints (ctx, 4, box_cols), "axis_i", one, NULL);
  if (sym_opset (ctx) >= 16)
    out[0] = graph_op (g, "RoiAlign", input, boxes, idx, "spatial_scale_f", scale, "output_height_i", ph,
                       "output_width_i", pw, "sampling_ratio_i", MAX (sampling, (gint64) 0),
                       "coordinate_transformation_mode_s", aligned ? "half_pixel" : "output_half_pixel",
                       NULL);
  else
    out[0] = graph_op (g, "RoiAlign", input, boxes, idx, "spatial_scale_f", scale, "output_height_i", ph,
                       "output_width_i", pw, "sampling_ratio_i", MAX (sampling, (gint64) 0), NULL);
  return out[0] != NULL;
}

/* aten::linalg_det(self) (torch.det too): Det, as torch's opset-11
 * symbolic; aten::logdet(self): Log(Det) (NaN for a negative determinant,
 * -inf for a singular matrix, as PyTorch). */
static gboolean
sym_linalg_det (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  int r = sym_rank (self);
  if (r >= 0 && r < 2)
    /* torch 1.13: also refuses (PyTorch's det needs a batch of square matrices) */
    return sym_unimplemented (ctx, n, error, "the determinant of a rank-%d tensor", r);
  GraphDType dt = sym_dtype (self);
  if (dt != GRAPH_DTYPE_FLOAT && dt != GRAPH_DTYPE_DOUBLE && dt != GRAPH_DTYPE_FLOAT16)
    /* torch 1.13: also refuses (PyTorch's det takes floating tensors; ONNX Det too) */
    return sym_unimplemented (ctx, n, error, "the determinant of a %s tensor", graph_dtype_name (dt));
  out[0] = graph_op (sym_graph (ctx), "Det", self, NULL);
  if (graph_node_is (n, "aten::logdet"))
    out[0] = graph_op (sym_graph (ctx), "Log", out[0], NULL);
  return TRUE;
}

/* The positions where mask (broadcast to self) is true, row-major, as
 * [n, rank] indices: Transpose(NonZero(Expand(mask, Shape(self)))), torch's
 * opset-11 form for masked_select and masked_scatter.  That form
 * broadcasts the mask to self only; PyTorch also broadcasts self to a
 * larger mask (masked_select) or refuses it (masked_scatter), which the
 * indices cannot express, so such a mask is refused when the shapes say
 * so, or cannot tell.  NULL then. */
static GraphValue *
mask_positions (SymContext *ctx, GraphNode *n, GraphValue *self, GraphValue *mask, GError **error)
{
  gint64 sd[TENSOR_MAX_RANK], md[TENSOR_MAX_RANK];
  int rs = sym_static_dims (self, sd), rm = sym_static_dims (mask, md);
  gboolean larger = rs < 0 || rm < 0 || rm > rs;
  for (int i = 0; !larger && i < rm; i++)
    {
      gint64 s = sd[rs - rm + i], m = md[i];
      larger = m != 1 && (s < 0 || m < 0 || s != m);
    }
  if (larger)
    {
      /* torch 1.13: exports Expand(mask, Shape(self)), which cannot broadcast self to a larger mask
       * (a failing GatherND or ScatterND at run time); refused here because of that, or when the
       * shapes cannot tell */
      sym_unimplemented (ctx, n, error, "a mask that does not broadcast to self's shape, or of unknown "
                         "shape");
      return NULL;
    }
  Graph *g = sym_graph (ctx);
  static const gint64 perm[] = { 1, 0 };
  GraphValue *m = graph_op (g, "Expand", mask, sym_size (ctx, self, G_MININT64), NULL);
  return graph_op (g, "Transpose", graph_op (g, "NonZero", m, NULL), "perm_is", 2, perm, NULL);
}

/* aten::masked_select(self, mask): the elements of self where mask is
 * true, row-major: GatherND(self, positions). */
static gboolean
sym_masked_select (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *mask;
  if (!sym_parse_args (ctx, n, "vv", &self, &mask, error))
    return FALSE;
  GraphValue *idx = mask_positions (ctx, n, self, mask, error);
  if (idx == NULL)
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "GatherND", self, idx, NULL);
  return TRUE;
}

/* aten::masked_scatter(self, mask, source): self with its masked
 * positions, row-major, taking source's first elements in order:
 * ScatterND(self, positions, Slice(Reshape(source, [-1]), 0, n)), as
 * torch's opset-11 symbolic. */
static gboolean
sym_masked_scatter (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *mask, *source;
  if (!sym_parse_args (ctx, n, "vvv", &self, &mask, &source, error))
    return FALSE;
  if (sym_dtype (source) != sym_dtype (self))
    /* torch 1.13: also refuses (PyTorch's masked_scatter needs source of self's dtype) */
    return sym_unimplemented (ctx, n, error, "a source of another type than self");
  GraphValue *idx = mask_positions (ctx, n, self, mask, error);
  if (idx == NULL)
    return FALSE;
  Graph *g = sym_graph (ctx);
  static const gint64 minus_one = -1, zero = 0;
  GraphValue *flat = graph_op (g, "Reshape", source, sym_const_ints (ctx, 1, &minus_one), NULL);
  GraphValue *count = graph_op (g, "Slice", sym_size (ctx, idx, G_MININT64), sym_const_ints (ctx, 1, &zero),
                                sym_const_ints (ctx, 1, (const gint64[]) { 1 }), NULL);
  GraphValue *taken = graph_op (g, "Slice", flat, sym_const_ints (ctx, 1, &zero), count,
                                sym_const_ints (ctx, 1, &zero), NULL);
  out[0] = graph_op (g, "ScatterND", self, idx, taken, NULL);
  return TRUE;
}

/* aten::_unique2(self, sorted, return_inverse, return_counts) (torch.unique)
 * and aten::unique_dim(self, dim, sorted, return_inverse, return_counts):
 * ONNX Unique with sorted = 1 → (values, inverse, counts), as torch's
 * opset-11 symbolics.  Differences from torch's export, each a wrong result
 * there: _unique2's inverse takes self's shape (Unique's is flat); and
 * sorted=False is refused, because PyTorch's unsorted order is its hash
 * table's (torch.unique([3, 1, 2, 1], sorted=False) is [2, 1, 3] on CPU),
 * where ONNX's is first occurrence.  unique_dim always sorts in PyTorch. */
static gboolean
sym_unique (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gboolean by_dim = graph_node_is (n, "aten::unique_dim");
  gboolean old_form = graph_node_is (n, "aten::_unique");   /* (self, sorted, return_inverse) */
  GraphValue *self;
  gint64 dim = 0, sorted = 1, inv, counts;
  if (by_dim ? !sym_parse_args (ctx, n, "vdbbb", &self, &dim, &sorted, &inv, &counts, error)
      : old_form ? !sym_parse_args (ctx, n, "vbb", &self, &sorted, &inv, error)
                 : !sym_parse_args (ctx, n, "vbbb", &self, &sorted, &inv, &counts, error))
    return FALSE;
  if (!sorted && !by_dim)
    /* torch 1.13: exports Unique(sorted=0), first-occurrence order, where PyTorch returns its hash
     * table's order; refused here because of that */
    return sym_unimplemented (ctx, n, error, "unique with sorted=False (PyTorch's order is its hash "
                              "table's; export sorted=True)");
  Graph *g = sym_graph (ctx);
  GraphNode *un = by_dim ? graph_op_outputs (g, "Unique", 4, self, "axis_i", dim, "sorted_i", (gint64) 1, NULL)
                         : graph_op_outputs (g, "Unique", 4, self, "sorted_i", (gint64) 1, NULL);
  if (un == NULL)
    return FALSE;
  GraphValue *inverse = graph_node_output (un, 2);
  out[0] = graph_node_output (un, 0);
  out[1] = by_dim ? inverse : graph_op (g, "Reshape", inverse, sym_size (ctx, self, G_MININT64), NULL);
  if (!old_form)
    out[2] = graph_node_output (un, 3);
  return out[1] != NULL;
}

/* aten::embedding_renorm(weight, indices, max_norm, norm_type), also the
 * in-place embedding_renorm_ that F.embedding(max_norm=) calls: each row
 * the indices name whose p-norm exceeds max_norm is scaled by max_norm /
 * (norm + 1e-7), as torch 1.13's symbolic writes it: Unique of the
 * indices, Gather of their rows, ReduceL1/L2, Where, ScatterND back. */
static gboolean
sym_embedding_renorm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *weight, *indices;
  double max_norm, p;
  if (!sym_parse_args (ctx, n, "v,v,f,f", &weight, &indices, &max_norm, &p, error))
    return FALSE;
  if (p != 1.0 && p != 2.0)
    /* torch 1.13: also refuses norms other than 1 and 2 (after int(norm_type): 1.5 becomes an L1
     * norm, other numbers); refused here for every other norm */
    return sym_unimplemented (ctx, n, error, "embedding_renorm with norm_type %g (1 and 2 are "
                              "supported)", p);
  if (sym_rank (weight) != 2 || !graph_dtype_is_floating (sym_dtype (weight)))
    /* torch 1.13: exports any rank; refused here because PyTorch renormalises the rows of a 2-D
     * floating-point weight only */
    return sym_unimplemented (ctx, n, error, "embedding_renorm of a weight that is not a 2-D "
                              "floating-point tensor");
  Graph *g = sym_graph (ctx);
  static const gint64 one[1] = { 1 };
  GraphValue *unique = graph_op (g, "Unique", indices, NULL);
  GraphValue *rows = graph_op (g, "Gather", weight, unique, NULL);
  GraphValue *norm = graph_op (g, p == 1.0 ? "ReduceL1" : "ReduceL2", rows, "axes_is", 1, one,
                               "keepdims_i", (gint64) 1, NULL);
  GraphValue *limit = sym_scalar_like (ctx, max_norm, weight);
  GraphValue *den = graph_op (g, "Add", norm, sym_scalar_like (ctx, 1e-7, weight), NULL);
  GraphValue *scaled = graph_op (g, "Mul", rows, graph_op (g, "Div", limit, den, NULL), NULL);
  GraphValue *over = graph_op (g, "Greater", norm, limit, NULL);
  GraphValue *renormed = graph_op (g, "Where", over, scaled, rows, NULL);
  GraphValue *at = sym_unsqueeze (ctx, unique, 1, one);
  out[0] = graph_op (g, "ScatterND", weight, at, renormed, NULL);
  return out[0] != NULL;
}

/* The rows (kernel offset) × columns (block start) of positions one
 * spatial dim of im2col reads in the padded input: start + k · dilation. */
static GraphValue *
im2col_positions (SymContext *ctx, gint64 in, gint64 k, gint64 dil, gint64 pad, gint64 stride, gint64 *blocks)
{
  gint64 span = in + 2 * pad - dil * (k - 1);
  *blocks = span <= 0 ? 0 : (span - 1) / stride + 1;
  if (*blocks == 0 || *blocks > (1 << 24) / k)
    return NULL;
  gsize n = (gsize) (k * *blocks);
  g_autofree gint64 *v = g_new (gint64, MAX (n, 1));
  for (gint64 r = 0; r < k; r++)
    for (gint64 c = 0; c < *blocks; c++)
      v[r * *blocks + c] = c * stride + r * dil;
  gint64 dims[2] = { k, *blocks };
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_INT64, 2, dims, v, n * sizeof (gint64), NULL);
  return t ? sym_constant (ctx, t) : NULL;
}

/* aten::im2col(self, kernel_size, dilation, padding, stride) (F.unfold):
 * as torch's opset-11 symbolic, Pad, then Gather of the padded rows and of
 * the padded columns by (kernel offset × block) positions, Transpose to
 * (N, C, kh, kw, blocks_h, blocks_w) and Reshape to (N, C·kh·kw, L).  The
 * positions are constants here (torch computes them with Range at run
 * time), so the spatial dims must be static. */
static gboolean
sym_im2col (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize nk, nd, np, ns;
  const gint64 *k, *dil, *pad, *st;
  if (!sym_parse_args (ctx, n, "v,is,is,is,is", &self, &nk, &k, &nd, &dil, &np, &pad, &ns, &st, error))
    return FALSE;
  gint64 d[TENSOR_MAX_RANK];
  if (sym_static_dims (self, d) != 4 || d[1] < 0 || d[2] < 0 || d[3] < 0 || d[1] > G_MAXINT32 || d[2] > G_MAXINT32
      || d[3] > G_MAXINT32)
    /* torch 1.13: exports run-time spatial sizes (Range of the block starts); not yet here */
    return sym_unimplemented (ctx, n, error, "im2col of an input that is not 4-D with static channels, "
                              "height and width below 2^31");
  if (nk != 2 || nd != 2 || np != 2 || ns != 2)
    /* torch 1.13: also refuses (its symbolic reads two values of each) */
    return sym_unimplemented (ctx, n, error, "im2col settings that are not pairs");
  for (int i = 0; i < 2; i++)
    if (k[i] <= 0 || dil[i] <= 0 || pad[i] < 0 || st[i] <= 0 || k[i] > 4096 || dil[i] > 4096 || pad[i] > (1 << 20)
        || st[i] > (1 << 20))
      /* torch 1.13: also refuses (PyTorch rejects these kernel, dilation, padding or stride values) */
      return sym_unimplemented (ctx, n, error, "im2col kernel, dilation, padding or stride out of range");
  gint64 bh, bw;
  GraphValue *rows = im2col_positions (ctx, d[2], k[0], dil[0], pad[0], st[0], &bh);
  GraphValue *cols = im2col_positions (ctx, d[3], k[1], dil[1], pad[1], st[1], &bw);
  if (bh == 0 || bw == 0)
    /* torch 1.13: also refuses (PyTorch rejects a kernel larger than the padded input) */
    return sym_unimplemented (ctx, n, error, "an im2col kernel larger than the padded input");
  if (rows == NULL || cols == NULL)
    /* torch 1.13: computes the positions at run time; refused here because the constant tables would pass 2^24 entries */
    return sym_unimplemented (ctx, n, error, "im2col with more than 2^24 kernel positions along one dim");
  Graph *g = sym_graph (ctx);
  const gint64 pads[8] = { 0, 0, pad[0], pad[1], 0, 0, pad[0], pad[1] };
  static const gint64 perm[6] = { 0, 1, 2, 4, 3, 5 };
  GraphValue *x = graph_op (g, "Pad", self, sym_const_ints (ctx, 8, pads), "mode_s", "constant", NULL);
  x = graph_op (g, "Gather", x, rows, "axis_i", (gint64) 2, NULL);
  x = graph_op (g, "Gather", x, cols, "axis_i", (gint64) 4, NULL);
  x = graph_op (g, "Transpose", x, "perm_is", 6, perm, NULL);
  const gint64 shape[3] = { 0, d[1] * k[0] * k[1], -1 };   /* 0: the batch as it is */
  out[0] = sym_reshape_static (ctx, x, 3, shape);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::im2col", sym_im2col),
  SYM_FN ("aten::_unique2", sym_unique),
  SYM_FN ("aten::_unique", sym_unique),
  SYM_FN ("aten::embedding_renorm", sym_embedding_renorm),
  SYM_FN ("aten::unique_dim", sym_unique),
  SYM_FN ("aten::linalg_det", sym_linalg_det),
  SYM_FN ("aten::det", sym_linalg_det),
  SYM_FN ("aten::logdet", sym_linalg_det),
  SYM_FN ("aten::masked_select", sym_masked_select),
  SYM_FN ("aten::masked_scatter", sym_masked_scatter),
  SYM_FN ("torchvision::roi_align", sym_torchvision_roi_align),
  SYM_FN ("torchvision::nms", sym_torchvision_nms),
  SYM_FN ("aten::upsample_bicubic2d", sym_upsample_bicubic),
};
const SymTable sym_opset11_extra = SYM_TABLE (11, entries);
