/* A complete symonnx plugin: custom symbolic functions loaded with
 *   symonnx export model.trace -o model.onnx --plugin ./libmyops-plugin.so
 * Build:  cc -shared -fPIC myops-plugin.c -o libmyops-plugin.so \
 *           $(pkg-config --cflags --libs symonnx)
 * (the test suite builds and loads this file: tests/symbolic/meson.build). */
#include <gmodule.h>
#include <symbolic/symbolic.h>

/* mylib::my_function(x, y) = x * x + y, from the seed's MyFunction, here
 * with standard ONNX ops. */
static gboolean
my_function (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *y;
  if (!sym_parse_args (ctx, n, "vv", &x, &y, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  out[0] = graph_op (g, "Add", graph_op (g, "Mul", x, x, NULL), y, NULL);
  return TRUE;
}

/* mylib::fancy(x, alpha: float) → a node of the custom domain "mylib"
 * (opset_import mylib version 2, set below). */
static gboolean
fancy (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  double alpha;
  if (!sym_parse_args (ctx, n, "vf", &x, &alpha, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "mylib::Fancy", x, "alpha_f", alpha, NULL);
  return TRUE;
}

/* The one exported entry point symonnx looks for. */
G_MODULE_EXPORT gboolean
symonnx_plugin_register (SymRegistry *reg, GError **error)
{
  (void) error;
  sym_registry_set_domain_version (reg, "mylib", 2);
  return sym_register (reg, "mylib::my_function", 9, my_function, NULL)
         && sym_register (reg, "mylib::fancy", 9, fancy, NULL);
}
