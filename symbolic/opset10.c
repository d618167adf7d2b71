/* Opset 10: what changed from 9 (Slice inputs, TopK k input, Resize and
 * MaxPool ceil_mode are handled by the opset-aware helpers the opset 9
 * functions call); new here: flip. */
#include "symbolic/sym-private.h"

/* aten::flip(self, dims): Slice with step -1 on each dim (Slice steps
 * exist from 10). */
static gboolean
sym_flip (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize nd;
  const gint64 *dims;
  if (!sym_parse_args (ctx, n, "v,is", &self, &nd, &dims, error))
    return FALSE;
  if (nd > TENSOR_MAX_RANK)
    return sym_unimplemented (ctx, n, error, "flip of %zu dims", nd);
  gint64 starts[TENSOR_MAX_RANK], ends[TENSOR_MAX_RANK], steps[TENSOR_MAX_RANK];
  for (gsize i = 0; i < nd; i++)
    {
      starts[i] = -1;
      ends[i] = G_MININT64;
      steps[i] = -1;
    }
  out[0] = sym_slice (ctx, self, nd, dims, starts, ends, steps);
  return TRUE;
}

const SymEntry sym_opset10_table[] = {
  { "aten::flip", sym_flip },
};
const gsize sym_opset10_table_len = G_N_ELEMENTS (sym_opset10_table);
