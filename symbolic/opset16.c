/* Opset 16: GridSample. */
#include "symbolic/sym-private.h"

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
    return sym_unimplemented (ctx, n, error, "grid_sampler mode %" G_GINT64_FORMAT, mode);
  out[0] = graph_op (sym_graph (ctx), "GridSample", input, grid, "align_corners_i", (gint64) align,
                     "mode_s", modes[mode], "padding_mode_s", pads[pad], NULL);
  return TRUE;
}

const SymEntry sym_opset16_table[] = {
  { "aten::grid_sampler", sym_grid_sampler },
};
const gsize sym_opset16_table_len = G_N_ELEMENTS (sym_opset16_table);
