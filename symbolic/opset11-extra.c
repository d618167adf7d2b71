/* Opset 11: operators torch 1.13 registers from opset 11 that the first
 * tables lacked (issue 12). */
#include "symbolic/sym-private.h"

/* aten::upsample_bicubic2d(input, output_size, align_corners, scale_factors):
 * Resize "cubic" (coefficient −0.75, half_pixel or align_corners), as
 * torch's _interpolate_helper writes it. */
static gboolean
sym_upsample_bicubic (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return sym_upsample_mode (ctx, n, out, error, "cubic");
}

const SymEntry sym_opset11_extra[] = {
  { "aten::upsample_bicubic2d", sym_upsample_bicubic },
};
const gsize sym_opset11_extra_len = G_N_ELEMENTS (sym_opset11_extra);
