/* A symbolic for tests/e2e/function_model.py's autograd Function
 *
 *   class ScaledSquare(torch.autograd.Function):
 *       def forward(ctx, x, alpha, dims):      # ScaledSquare.apply(x, 0.5, (1, 2))
 *           return x * x * alpha + x.sum(dims[0], keepdim=True)
 *
 * whose scalar arguments reach it through sym_parse_args, in call order
 * (doc/guide.md, "Python operators").  Without it, symonnx inlines the
 * Function's recorded body instead; this symbolic writes Pow where the body
 * has Mul, so the tests can tell which one was used. */
#include "symonnx.h"
#include <gmodule.h>

static gboolean
scaled_square_symbolic (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  double alpha;
  gsize n_dims;
  const gint64 *dims;
  if (!sym_parse_args (ctx, n, "v,f,is", &x, &alpha, &n_dims, &dims, error))
    return FALSE;
  if (n_dims == 0)
    return sym_unimplemented (ctx, n, error, "an empty dims tuple");
  Graph *g = sym_graph (ctx);
  GraphValue *square = graph_op (g, "Pow", x, sym_scalar_like (ctx, 2.0, x), NULL);
  GraphValue *scaled = graph_op (g, "Mul", square, sym_scalar_like (ctx, alpha, x), NULL);
  GraphValue *sum = sym_reduce (ctx, "ReduceSum", x, 1, &dims[0], TRUE);
  out[0] = graph_op (g, "Add", scaled, sum, NULL);
  return TRUE;
}

G_MODULE_EXPORT gboolean
symonnx_plugin_register (SymRegistry *reg, GError **error)
{
  (void) error;
  return sym_register (reg, "prim::PythonOp::ScaledSquare", 9, scaled_square_symbolic, NULL);
}
