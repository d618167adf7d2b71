/* A custom symbolic function registered in C, as doc/symbolic.md shows it:
 * the registry calls, then an export of a trace that uses aten::elu. */
#include <symbolic/symbolic.h>

/* aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor */
static gboolean
my_elu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double alpha;
  if (!sym_parse_args (ctx, n, "vf", &self, &alpha, error))   /* torch's parse_args("v", "f") */
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Elu", self, "alpha_f", alpha, NULL);
  return TRUE;
}

/* mylib::myop(Tensor x) -> Tensor, exported as the custom op mylib::MyOp. */
static gboolean
my_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  const char *tag = sym_user_data (ctx);
  out[0] = graph_op (sym_graph (ctx), "mylib::MyOp", x, "tag_s", tag, NULL);
  return TRUE;
}

static const char trace[] =
  "graph(%x : Float(2, 3)):\n"
  "  %alpha : float = prim::Constant[value=0.5]()\n"
  "  %one : int = prim::Constant[value=1]()\n"
  "  %e : Float(2, 3) = aten::elu(%x, %alpha, %one, %one)\n"
  "  %y : Float(2, 3) = mylib::myop(%e)\n"
  "  return (%y)\n";

#include "export/export.h"
#include <gmodule.h>
#include <stdio.h>

static int
registry_calls (char *data)
{
/* The registry calls of doc/symbolic.md, written as they appear there. */
SymRegistry *reg = sym_registry_new ();           /* the built-ins; sym_registry_new_empty () for none */
sym_register (reg, "aten::elu", 9, my_elu, NULL);  /* overrides the built-in from opset 9 on */
sym_register (reg, "mylib::myop", 11, my_op, data);/* sym_user_data (ctx) returns data */
sym_registry_set_domain_version (reg, "mylib", 2); /* opset_import mylib version 2 */
sym_unregister (reg, "aten::elu", -1);
  /* Put elu back and export the trace with both. */
  sym_register (reg, "aten::elu", 9, my_elu, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = graph_parse (trace, sizeof trace - 1, "trace", &error);
  ExportOptions opts;
  export_options_init (&opts);
  opts.opset = 13;
  opts.registry = reg;
  g_autoptr (Graph) onnx = g ? export_graph (g, &opts, &error) : NULL;
  export_options_clear (&opts);
  sym_registry_unref (reg);
  if (onnx == NULL)
    {
      fprintf (stderr, "custom-symbolic: %s\n", error->message);
      return 1;
    }
  g_autofree char *text = graph_to_string (onnx);
  fputs (text, stdout);
  printf ("opset_import mylib = %" G_GINT64_FORMAT "\n", graph_get_opset (onnx, "mylib"));
  return 0;
}

/* Every plugin exports this one function (doc/symbolic.md, "Plugins"): */
G_MODULE_EXPORT gboolean symonnx_plugin_register (SymRegistry *reg, GError **error);

int
main (void)
{
  return registry_calls ((char *) "from-user-data");
}
