/* Opset 9 base set: small queries answered from the traced types. */
#include "symbolic/opset-tables.h"

/* aten::dim(self): the rank, a constant. */
static gboolean
sym_dim_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  int r = sym_known_rank (ctx, graph_node_input (n, 0));
  if (r < 0)
    return sym_unimplemented (ctx, n, error, "dim() of an input of unknown rank");
  out[0] = sym_const_i64 (ctx, r);
  return TRUE;
}

/* aten::numel(self): ReduceProd of the shape. */
static gboolean
sym_numel (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = sym_reduce (ctx, "ReduceProd", sym_size (ctx, self, G_MININT64), 0, NULL, FALSE);
  return TRUE;
}

/* aten::len(list): the length of a list the trace builds (scripted code's
 * len(size) checks), a constant. */
static gboolean
sym_len (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 len;
  if (!sym_static_int (graph_node_output (n, 0), &len))
    return sym_unimplemented (ctx, n, error, "len() of a list whose length is known only at run time");
  out[0] = sym_const_i64 (ctx, len);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::dim", sym_dim_op),
  SYM_FN ("aten::len", sym_len),
  SYM_FN ("aten::numel", sym_numel),
};
const SymTable sym_opset9_misc = SYM_TABLE (9, entries);
