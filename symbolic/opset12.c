/* Opset 12: GreaterOrEqual / LessOrEqual, Celu. */
#include "symbolic/sym-private.h"

#define G sym_graph (ctx)

static gboolean
sym_ge12 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "GreaterOrEqual", self, other, NULL);
  return TRUE;
}

static gboolean
sym_le12 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "LessOrEqual", self, other, NULL);
  return TRUE;
}

/* aten::celu(self, alpha) */
static gboolean
sym_celu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double alpha;
  if (!sym_parse_args (ctx, n, "vf", &self, &alpha, error))
    return FALSE;
  out[0] = graph_op (G, "Celu", self, "alpha_f", alpha, NULL);
  return TRUE;
}

const SymEntry sym_opset12_table[] = {
  { "aten::ge", sym_ge12 },
  { "aten::le", sym_le12 },
  { "aten::celu", sym_celu },
};
const gsize sym_opset12_table_len = G_N_ELEMENTS (sym_opset12_table);
