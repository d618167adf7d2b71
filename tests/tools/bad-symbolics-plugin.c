/* Symbolic functions with the mistakes a plugin author makes, for the tests
 * that exports are checked: a misspelled op, a misspelled attribute, and an
 * attribute key without its type suffix (whose NULL return ends the outer
 * call's argument list early). */
#include "symonnx.h"
#include <gmodule.h>

/* aten::sigmoid → "Sigmiod" (no such ONNX op) */
static gboolean
sigmoid_misspelled (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Sigmiod", x, NULL);
  return TRUE;
}

/* aten::elu → Elu with "alhpa" (Elu has no such attribute) */
static gboolean
elu_bad_attribute (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Elu", x, "alhpa_f", 0.5, NULL);
  return TRUE;
}

/* aten::tanh → Add(x, Mul(x, x) with the key "alpha", no suffix) */
static gboolean
tanh_key_without_suffix (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  out[0] = graph_op (g, "Add", x, graph_op (g, "Mul", x, x, "alpha", 1.0, NULL), NULL);
  return TRUE;
}

G_MODULE_EXPORT gboolean symonnx_plugin_register (SymRegistry *reg, GError **error);

G_MODULE_EXPORT gboolean
symonnx_plugin_register (SymRegistry *reg, GError **error)
{
  (void) error;
  return sym_register (reg, "aten::sigmoid", 9, sigmoid_misspelled, NULL)
         && sym_register (reg, "aten::elu", 9, elu_bad_attribute, NULL)
         && sym_register (reg, "aten::tanh", 9, tanh_key_without_suffix, NULL);
}
