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

static const SymEntry entries[] = {
  SYM_FN ("aten::upsample_bicubic2d", sym_upsample_bicubic),
};
const SymTable sym_opset11_extra = SYM_TABLE (11, entries);
