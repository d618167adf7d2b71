/* Opset 14: HardSwish; BatchNormalization's training_mode (in the opset 9
 * function). */
#include "symbolic/opset-tables.h"

static gboolean
sym_hardswish14 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "HardSwish", self, NULL);
  return TRUE;
}

/* aten::tril / triu(self, diagonal): Trilu (from 14) */
static gboolean
trilu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gint64 upper)
{
  GraphValue *self, *k;
  if (!sym_parse_args (ctx, n, "vv", &self, &k, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Trilu", self, k, "upper_i", upper, NULL);
  return TRUE;
}

static gboolean
sym_tril (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return trilu (ctx, n, out, error, 0);
}

static gboolean
sym_triu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return trilu (ctx, n, out, error, 1);
}

static const SymEntry entries[] = {
  SYM_FN ("aten::tril", sym_tril),
  SYM_FN ("aten::triu", sym_triu),
  SYM_FN ("aten::hardswish", sym_hardswish14),
};
const SymTable sym_opset14 = SYM_TABLE (14, entries);
