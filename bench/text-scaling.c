/* text-scaling: time graph_to_string and graph_parse on builder-made graphs
 * of growing size, to show both grow linearly (constant ns/node).
 *
 *   ninja -C build bench/text-scaling && build/bench/text-scaling [MAX_NODES]
 *
 * Each graph is a chain of Conv/Relu/Add/Constant nodes with attributes,
 * types, scopes and source comments, like an exported model.  Every time is
 * the best of 3 runs. */
#include "symonnx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Graph *
build (guint n_nodes)
{
  Graph *g = graph_new ();
  gint64 shape[4] = { 1, 8, 16, 16 };
  g_autoptr (GraphType) t = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 4, shape);
  GraphValue *x = graph_add_input (g, "input", t);
  GraphValue *w = graph_add_input (g, "weight", t);
  gint64 ones[2] = { 1, 1 }, pads[4] = { 1, 1, 1, 1 }, k[2] = { 3, 3 };
  GraphValue *prev = x;
  guint made = 0;
  for (guint i = 0; made < n_nodes; i++)
    {
      GraphValue *v;
      switch (i % 4)
        {
        case 0:
          v = graph_op (g, "Conv", prev, w, "dilations_is", 2, ones, "group_i", (gint64) 1,
                        "kernel_shape_is", 2, k, "pads_is", 4, pads, "strides_is", 2, ones, NULL);
          break;
        case 1:
          v = graph_op (g, "Relu", prev, NULL);
          break;
        case 2:
          {
            /* a scalar constant multiplied into the chain: two nodes */
            g_autoptr (Tensor) c = tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, 0.5 + i);
            GraphValue *cv = graph_op (g, "Constant", "value_t", c, NULL);
            v = graph_op (g, "Mul", prev, cv, NULL);
            made++;
            break;
          }
        default:
          v = graph_op (g, "Add", prev, x, NULL);
          break;
        }
      graph_value_set_type (v, t);
      GraphNode *node = graph_value_node (v);
      char scope[64], source[64];
      g_snprintf (scope, sizeof scope, "M::/Block::layer%u", i / 64);
      g_snprintf (source, sizeof source, "model.py:%u:0", i % 500);
      graph_node_set_scope (node, scope);
      graph_node_set_source (node, source);
      prev = v;
      made++;
    }
  graph_add_output (g, prev);
  return g;
}

static double
now_s (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

int
main (int argc, char **argv)
{
  guint max = argc > 1 ? (guint) strtoul (argv[1], NULL, 10) : 300000;
  static const guint sizes[] = { 10000, 30000, 100000, 300000, 1000000 };
  printf ("%10s %12s %12s %14s %12s %14s\n", "nodes", "text bytes", "print ms", "print ns/node",
          "parse ms", "parse ns/node");
  for (guint s = 0; s < G_N_ELEMENTS (sizes) && sizes[s] <= max; s++)
    {
      g_autoptr (Graph) g = build (sizes[s]);
      guint n = graph_n_nodes (g);
      double best_print = 1e9, best_parse = 1e9;
      gsize bytes = 0;
      for (int rep = 0; rep < 3; rep++)
        {
          double t0 = now_s ();
          g_autofree char *text = graph_to_string (g);
          double t1 = now_s ();
          bytes = strlen (text);
          g_autoptr (GError) error = NULL;
          g_autoptr (Graph) back = graph_parse (text, bytes, "bench", &error);
          double t2 = now_s ();
          if (back == NULL)
            {
              fprintf (stderr, "parse failed: %s\n", error->message);
              return 1;
            }
          if (graph_n_nodes (back) != n)
            {
              fprintf (stderr, "node count changed: %u → %u\n", n, graph_n_nodes (back));
              return 1;
            }
          best_print = MIN (best_print, t1 - t0);
          best_parse = MIN (best_parse, t2 - t1);
        }
      printf ("%10u %12" G_GSIZE_FORMAT " %12.1f %14.0f %12.1f %14.0f\n", n, bytes,
              best_print * 1e3, best_print * 1e9 / n, best_parse * 1e3, best_parse * 1e9 / n);
      fflush (stdout);
    }
  return 0;
}
