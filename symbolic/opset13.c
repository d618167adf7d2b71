/* Opset 13: Softmax/LogSoftmax normalise along one axis (no transpose
 * needed); Split/Squeeze/Unsqueeze/ReduceSum axes become inputs (in the
 * helpers). */
#include "symbolic/sym-private.h"

#define G sym_graph (ctx)

static gboolean
softmax13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, const char *op)
{
  GraphValue *self;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vi", &self, &dim, error))
    return FALSE;
  GraphValue *y = graph_op (G, op, self, "axis_i", dim, NULL);
  if (graph_node_n_inputs (n) > 2 && !sym_is_none (graph_node_input (n, 2)))
    {
      GraphDType want = sym_dtype (graph_node_output (n, 0));
      if (want != GRAPH_DTYPE_UNDEFINED && want != sym_dtype (self))
        y = sym_cast (ctx, y, want);
    }
  out[0] = y;
  return TRUE;
}

static gboolean
sym_softmax13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return softmax13 (ctx, n, out, error, "Softmax");
}

static gboolean
sym_log_softmax13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return softmax13 (ctx, n, out, error, "LogSoftmax");
}

/* opset9-math.c: frobenius_norm over every dim becomes ReduceL2 at 13 */
gboolean sym_frobenius_norm_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);

const SymEntry sym_opset13_table[] = {
  { "aten::frobenius_norm", sym_frobenius_norm_any },
  { "aten::softmax", sym_softmax13 },
  { "aten::log_softmax", sym_log_softmax13 },
};
const gsize sym_opset13_table_len = G_N_ELEMENTS (sym_opset13_table);
