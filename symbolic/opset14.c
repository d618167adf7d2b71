/* Opset 14: HardSwish; BatchNormalization's training_mode (in the opset 9
 * function). */
#include "symbolic/sym-private.h"

static gboolean
sym_hardswish14 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "HardSwish", self, NULL);
  return TRUE;
}

const SymEntry sym_opset14_table[] = {
  { "aten::hardswish", sym_hardswish14 },
};
const gsize sym_opset14_table_len = G_N_ELEMENTS (sym_opset14_table);
