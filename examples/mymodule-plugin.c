/* The seed tutorial's autograd Function, exported from C.  In Python:
 *
 *   class MyFunction(torch.autograd.Function):
 *       @staticmethod
 *       def forward(ctx, x, y):
 *           return x * x + y
 *       @staticmethod
 *       def symbolic(g, x, y):
 *           x2 = g.at("mul", x, x)
 *           return g.at("add", x2, y)
 *
 * A trace shows the call as `^MyFunction[...]()(%x, %y)` (a prim::PythonOp
 * node with python_name "MyFunction") and not its body, so its symbolic
 * comes from this plugin, registered under "prim::PythonOp::MyFunction":
 *
 *   symonnx verify examples/mymodule.trace --plugin libmymodule-plugin.so \
 *       --input x.1=x.npy --input y=y.npy
 *
 * Build: cc -shared -fPIC mymodule-plugin.c -o libmymodule-plugin.so \
 *          $(pkg-config --cflags --libs symonnx) */
#include <gmodule.h>
#include <symbolic/symbolic.h>

/* MyFunction.symbolic: two ATen nodes, which symonnx's executor runs. */
static gboolean
my_function_symbolic (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *y;
  if (!sym_parse_args (ctx, n, "vv", &x, &y, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  GraphValue *x2 = graph_at (g, "mul", x, x, NULL);
  out[0] = graph_at (g, "add", x2, y, NULL);
  return TRUE;
}

G_MODULE_EXPORT gboolean
symonnx_plugin_register (SymRegistry *reg, GError **error)
{
  (void) error;
  return sym_register (reg, "prim::PythonOp::MyFunction", 9, my_function_symbolic, NULL);
}
