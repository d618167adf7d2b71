/* Opset 12: GreaterOrEqual / LessOrEqual, Celu. */
#include "symbolic/opset-tables.h"

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

/* torch's _einsum_helper: Einsum (bool inputs through int64). */
static GraphValue *
einsum_of (SymContext *ctx, const char *eq, guint n, GraphValue *const *xs)
{
  if (n > 0 && sym_dtype (xs[0]) == GRAPH_DTYPE_BOOL)
    {
      GraphValue *c[16];
      for (guint i = 0; i < n && i < 16; i++)
        c[i] = sym_cast (ctx, xs[i], GRAPH_DTYPE_INT64);
      return sym_cast (ctx, graph_opv (G, "Einsum", MIN (n, 16), c, "equation_s", eq, NULL),
                       GRAPH_DTYPE_BOOL);
    }
  return graph_opv (G, "Einsum", n, xs, "equation_s", eq, NULL);
}

/* aten::einsum(equation, tensors, path) */
static gboolean
sym_einsum (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *eq;
  if (!sym_parse_args (ctx, n, "s", &eq, error))
    return FALSE;
  g_autoptr (GPtrArray) xs = sym_list_values (ctx, graph_node_input (n, 1), error);
  if (xs == NULL)
    return FALSE;
  if (xs->len == 0 || xs->len > 16)
    /* torch 1.13: refuses no operands (RuntimeError) and exports any other count as one Einsum; not
     * yet here (more than 16) */
    return sym_unimplemented (ctx, n, error, "einsum of %u tensors", xs->len);
  out[0] = einsum_of (ctx, eq, xs->len, (GraphValue *const *) xs->pdata);
  return TRUE;
}

/* aten::outer(a, b): Einsum "i,j->ij", b cast to a's type */
static gboolean
sym_outer (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *xs[2];
  if (!sym_parse_args (ctx, n, "vv", &xs[0], &xs[1], error))
    return FALSE;
  if (sym_dtype (xs[1]) != sym_dtype (xs[0]) && sym_dtype (xs[0]) != GRAPH_DTYPE_UNDEFINED)
    xs[1] = sym_cast (ctx, xs[1], sym_dtype (xs[0]));
  out[0] = einsum_of (ctx, "i,j->ij", 2, xs);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::einsum", sym_einsum),
  SYM_FN ("aten::outer", sym_outer),
  SYM_FN ("aten::ge", sym_ge12),
  SYM_FN ("aten::le", sym_le12),
  SYM_FN ("aten::celu", sym_celu),
};
const SymTable sym_opset12 = SYM_TABLE (12, entries);
