/* The seed tutorial's MyModule, built with the C builder API:
 *
 *   class MyModule(nn.Module):
 *       def forward(self, x, y):
 *           x = nn.ReLU()(x)
 *           return MyFunction.apply(x, y)      # x*x + y, exported through ATen
 *
 * Prints the graph in PyTorch's verbose format; the output is
 * examples/mymodule.graph (the tests check they agree). */
#include "symonnx.h"
#include <stdio.h>

int
main (void)
{
  g_autoptr (Graph) g = graph_new ();
  gint64 dims[2] = { 3, 4 };
  g_autoptr (GraphType) t = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, dims);
  GraphValue *x = graph_add_input (g, "1", t);
  GraphValue *y = graph_add_input (g, "2", t);

  GraphValue *r = graph_op (g, "Relu", x, NULL);
  GraphValue *x2 = graph_at (g, "mul", r, r, NULL);   /* MyFunction.symbolic */
  GraphValue *out = graph_at (g, "add", x2, y, NULL);
  graph_add_output (g, out);

  /* Names and types as the seed's printout shows them. */
  graph_value_set_name (r, "3");
  graph_value_set_type (r, t);
  graph_value_set_name (x2, "4");
  graph_value_set_name (out, "5");
  graph_value_set_type (out, t);

  g_autofree char *text = graph_to_string (g);
  fputs (text, stdout);
  return 0;
}
