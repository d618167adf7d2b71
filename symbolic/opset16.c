/* Opset 16: GridSample. */
#include "symbolic/opset-tables.h"

/* aten::grid_sampler(input, grid, mode, padding_mode, align_corners) */
static gboolean
sym_grid_sampler (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *grid;
  gint64 mode, pad;
  gboolean align;
  if (!sym_parse_args (ctx, n, "vviib", &input, &grid, &mode, &pad, &align, error))
    return FALSE;
  static const char *const modes[] = { "bilinear", "nearest", "bicubic" };
  static const char *const pads[] = { "zeros", "border", "reflection" };
  if (mode < 0 || mode > 2 || pad < 0 || pad > 2)
    /* torch 1.13: also refuses (a mode or padding code PyTorch does not have fails its lookup) */
    return sym_unimplemented (ctx, n, error, "grid_sampler mode %" G_GINT64_FORMAT, mode);
  if (sym_rank (input) != 4 || sym_rank (grid) != 4)
    /* torch 1.13: exports it, which GridSample-16 does not define (4-D only); refused here because of that */
    return sym_unimplemented (ctx, n, error, "grid_sampler of a %d-D input (GridSample takes 4-D)",
                              sym_rank (input));
  out[0] = graph_op (sym_graph (ctx), "GridSample", input, grid, "align_corners_i", (gint64) align,
                     "mode_s", modes[mode], "padding_mode_s", pads[pad], NULL);
  return TRUE;
}

/* aten::scatter_add: ScatterElements with reduction "add" (from 16) */
static gboolean
sym_scatter_add16 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  src = sym_scatter_src_like_index (ctx, src, index);
  out[0] = graph_op (sym_graph (ctx), "ScatterElements", self, index, src, "axis_i", dim,
                     "reduction_s", "add", NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::scatter_add", sym_scatter_add16),
  SYM_FN ("aten::grid_sampler", sym_grid_sampler),
};
const SymTable sym_opset16 = SYM_TABLE (16, entries);
