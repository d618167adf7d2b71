/* Opset 9 base set: small queries answered from the traced types. */
#include "symbolic/opset-tables.h"

/* aten::dim(self): the rank, a constant. */
static gboolean
sym_dim_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  int r = sym_known_rank (ctx, graph_node_input (n, 0));
  if (r < 0)
    /* torch 1.13: exports it as Size(Shape(self)); not yet here */
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
    /* torch 1.13: exports it as SequenceLength of the list from opset 11; not yet here */
    return sym_unimplemented (ctx, n, error, "len() of a list whose length is known only at run time");
  out[0] = sym_const_i64 (ctx, len);
  return TRUE;
}

/* The int64 values of n's inputs (scripted code's ints). */
static gboolean
int_inputs (SymContext *ctx, GraphNode *n, guint k, GraphValue **v, GError **error)
{
  for (guint i = 0; i < k; i++)
    {
      GError *local = NULL;
      v[i] = sym_value (ctx, graph_node_input (n, i), &local);
      if (v[i] == NULL)
        {
          if (local)
            g_propagate_error (error, local);
          else
            /* torch 1.13: also refuses (a None bound of a loop-range helper is a malformed graph) */
            sym_unimplemented (ctx, n, error, "a None argument");
          return FALSE;
        }
      if (sym_dtype (v[i]) != GRAPH_DTYPE_INT64)
        v[i] = sym_cast (ctx, v[i], GRAPH_DTYPE_INT64);
    }
  return TRUE;
}

/* aten::__range_length(lo, hi, step): the trip count of `for i in
 * range(lo, hi, step)`, ceil((hi - lo) / step), as torch's symbolic. */
static gboolean
sym_range_length (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *v[3];
  if (!int_inputs (ctx, n, 3, v, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  GraphValue *diff = graph_op (g, "Sub", v[1], v[0], NULL);
  sym_set_type (diff, GRAPH_DTYPE_INT64, 0, NULL);
  GraphValue *q = graph_op (g, "Div", sym_cast (ctx, diff, GRAPH_DTYPE_DOUBLE),
                            sym_cast (ctx, v[2], GRAPH_DTYPE_DOUBLE), NULL);
  sym_set_type (q, GRAPH_DTYPE_DOUBLE, 0, NULL);
  GraphValue *c = graph_op (g, "Ceil", q, NULL);
  sym_set_type (c, GRAPH_DTYPE_DOUBLE, 0, NULL);
  out[0] = sym_cast (ctx, c, GRAPH_DTYPE_INT64);
  return TRUE;
}

/* aten::__derive_index(index, start, step): the loop variable of such a
 * range, start + index * step. */
static gboolean
sym_derive_index (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *v[3];
  if (!int_inputs (ctx, n, 3, v, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  GraphValue *m = graph_op (g, "Mul", v[0], v[2], NULL);
  sym_set_type (m, GRAPH_DTYPE_INT64, 0, NULL);
  out[0] = graph_op (g, "Add", v[1], m, NULL);
  sym_set_type (out[0], GRAPH_DTYPE_INT64, 0, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::__range_length", sym_range_length),
  SYM_FN ("aten::__derive_index", sym_derive_index),
  SYM_FN ("aten::dim", sym_dim_op),
  SYM_FN ("aten::len", sym_len),
  SYM_FN ("aten::numel", sym_numel),
};
const SymTable sym_opset9_misc = SYM_TABLE (9, entries);
