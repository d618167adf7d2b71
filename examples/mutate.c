/* Editing a graph: insert point, replace-all-uses, dead-code elimination and
 * lint — the operations export passes are built from.  Used in doc/ir.md. */
#include "symonnx.h"
#include <stdio.h>

int
main (void)
{
  g_autoptr (Graph) g = graph_new ();
  g_autoptr (GraphType) t = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, (gint64[]) { 4 });
  GraphValue *x = graph_add_input (g, "x", t);
  GraphValue *a = graph_op (g, "Neg", x, NULL);
  GraphValue *b = graph_op (g, "Neg", a, NULL);     /* -(-x) == x */
  GraphValue *y = graph_op (g, "Relu", b, NULL);
  graph_add_output (g, y);

  /* Rewrite: Relu reads x directly; both Negs become dead. */
  graph_value_replace_all_uses (b, x);
  guint removed = graph_eliminate_dead_code (g);

  /* Put a node before the Relu: set the insert point, then build. */
  graph_set_insert_point (g, graph_value_node (y));
  GraphValue *s = graph_op (g, "Sigmoid", x, NULL);
  graph_node_set_input (graph_value_node (y), 0, s);
  graph_set_insert_point (g, NULL);

  g_autoptr (GError) error = NULL;
  if (!graph_lint (g, &error))
    {
      fprintf (stderr, "lint: %s\n", error->message);
      return 1;
    }
  printf ("removed %u nodes\n", removed);
  g_autofree char *text = graph_to_string (g);
  fputs (text, stdout);
  return 0;
}
