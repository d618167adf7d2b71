/* doc/guide.md's symbolic functions, compiled and run by the tests
 * (tests/e2e): elu with an attribute, the seed's pow with exponent_f and
 * ones with type_s as ATen nodes for two torch.autograd.Functions, all
 * registered on a registry and used to export a small trace. */
#include "symonnx.h"
#include <stdio.h>

/* aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor */
static gboolean
elu_symbolic (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double alpha;
  if (!sym_parse_args (ctx, n, "vf", &self, &alpha, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Elu", self, "alpha_f", alpha, NULL);
  return TRUE;
}

/* class Square(torch.autograd.Function): symbolic(g, x) = g.at("pow", x, exponent_f=2.0) */
static gboolean
square_symbolic (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  out[0] = graph_at (sym_graph (ctx), "pow", x, "exponent_f", 2.0, NULL);   /* x**2 */
  return TRUE;
}

/* class Ones(torch.autograd.Function): symbolic(g, x) =
 *     g.at("ones", type_s="float", size_i=[2, 4]) */
static gboolean
ones_symbolic (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) n;
  (void) error;
  static const gint64 size[2] = { 2, 4 };
  out[0] = graph_at (sym_graph (ctx), "ones", "type_s", "float", "size_is", (gsize) 2, size, NULL);
  return TRUE;
}

static gboolean
register_symbolics (SymRegistry *reg)
{
  return sym_register (reg, "aten::elu", 9, elu_symbolic, NULL)
         && sym_register (reg, "prim::PythonOp::Square", 9, square_symbolic, NULL)
         && sym_register (reg, "prim::PythonOp::Ones", 9, ones_symbolic, NULL);
}

/* What PyTorch prints for a module calling F.elu(x, 0.5), Square.apply and
 * Ones.apply. */
static const char trace_text[] =
  "graph(%self : __torch__.M,\n"
  "      %x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu)):\n"
  "  %2 : float = prim::Constant[value=0.5]()\n"
  "  %3 : int = prim::Constant[value=1]()\n"
  "  %4 : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::elu(%x, %2, %3, %3)\n"
  "  %5 : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = ^Square[inplace=0, module=\"m\", Subgraph=<Graph>]()(%4)\n"
  "  %6 : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = ^Ones[inplace=0, module=\"m\", Subgraph=<Graph>]()(%5)\n"
  "  %7 : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::add(%5, %6, %3)\n"
  "  return (%7)\n";

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) trace = graph_parse (trace_text, sizeof trace_text - 1, "guide.trace", &error);
  if (trace == NULL)
    {
      fprintf (stderr, "guide-symbolics: %s\n", error->message);
      return 1;
    }
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  if (!register_symbolics (reg))
    return 1;

  ExportOptions o;
  export_options_init (&o);
  o.opset = 13;
  o.registry = reg;
  g_autoptr (Graph) onnx = export_graph (trace, &o, &error);
  export_options_clear (&o);
  if (onnx == NULL)
    {
      fprintf (stderr, "guide-symbolics: %s\n", error->message);
      return 1;
    }
  g_autofree char *text = graph_to_string (onnx);
  fputs (text, stdout);
  return 0;
}
