/* A deliberately broken plugin, for doc/guide.md's "Finding where an
 * export goes wrong": its aten::linear symbolic forgets the bias.
 *   symonnx verify model.trace -w weights.safetensors -i input.npy \
 *       --plugin ./libbroken-linear-plugin.so --localize
 * names the linear layer, its source line and this plugin.
 * Build:  cc -shared -fPIC broken-linear-plugin.c -o libbroken-linear-plugin.so \
 *           $(pkg-config --cflags --libs symonnx)
 * (the test suite builds and loads this file: tests/verify/meson.build). */
#include <gmodule.h>
#include <symbolic/symbolic.h>

/* aten::linear(Tensor input, Tensor weight, Tensor? bias) = input @ weight^T + bias */
static gboolean
linear_forgetting_bias (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *w;
  if (!sym_parse_args (ctx, n, "vv", &x, &w, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  out[0] = graph_op (g, "MatMul", x, graph_op (g, "Transpose", w, NULL), NULL);   /* + bias: forgotten */
  return TRUE;
}

G_MODULE_EXPORT gboolean
symonnx_plugin_register (SymRegistry *reg, GError **error)
{
  (void) error;
  return sym_register (reg, "aten::linear", 9, linear_forgetting_bias, NULL);
}
