/* graph_print_dot: one box per node, edges labelled with value names,
 * subgraphs as clusters; Graphviz's dot accepts it when installed. */
#include "tests/ir/text-test-util.h"
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static guint
count (const char *haystack, const char *needle)
{
  guint n = 0;
  for (const char *p = strstr (haystack, needle); p; p = strstr (p + 1, needle))
    n++;
  return n;
}

static Graph *
sample_graph (void)
{
  Graph *g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *c = graph_add_input (g, "c\"q", NULL);
  GraphValue *r = graph_op (g, "Relu", x, NULL);
  Graph *body = graph_new_subgraph (g);
  GraphValue *i = graph_add_input (body, "i", NULL);
  GraphValue *s = graph_op (body, "Add", i, r, NULL);
  graph_add_output (body, s);
  Graph *b0 = graph_new_subgraph (g), *b1 = graph_new_subgraph (g);
  graph_add_output (b0, graph_op (b0, "Neg", x, NULL));
  graph_add_output (b1, x);
  GraphNode *loop = graph_op_outputs (g, "Loop", 1, c, r, "body_g", body,
                                      "branches_gs", 2, (Graph *[]) { b0, b1 }, NULL);
  GraphValue *m = graph_at (g, "mul", graph_node_output (loop, 0), x, NULL);
  graph_add_output (g, m);
  assert_lint (g);
  return g;
}

static void
test_dot_structure (void)
{
  g_autoptr (Graph) g = sample_graph ();
  g_autoptr (GString) out = g_string_new (NULL);
  graph_print_dot (g, out);
  const char *s = out->str;
  g_assert_true (g_str_has_prefix (s, "digraph "));
  g_assert_true (g_str_has_suffix (s, "}\n"));
  /* 3 nodes outside (Relu, Loop, ATen), 2 in subgraphs (Add, Neg) */
  g_assert_cmpuint (count (s, "shape=box"), ==, 5);
  g_assert_cmpuint (count (s, "label=\"onnx::Relu\""), ==, 1);
  /* an ATen node shows the operator it calls */
  g_assert_cmpuint (count (s, "label=\"org.pytorch.aten::ATen\\nmul\""), ==, 1);
  g_assert_cmpuint (count (s, "subgraph cluster_"), ==, 3);
  g_assert_cmpuint (count (s, "label=\"body\""), ==, 2);        /* cluster + dashed edge */
  g_assert_cmpuint (count (s, "label=\"branches[1]\""), ==, 2);
  /* inputs: graph's 2 + body's 1; returns: graph + 3 subgraphs */
  g_assert_cmpuint (count (s, "shape=ellipse, label=\"%"), ==, 3);
  g_assert_cmpuint (count (s, "label=\"return\""), ==, 4);
  g_assert_nonnull (strstr (s, "label=\"%c\\\"q\\nTensor\""));
  g_assert_nonnull (strstr (s, "[label=\"%x\"]"));
  /* braces balance */
  g_assert_cmpuint (count (s, "{"), ==, count (s, "}"));
}

static void
test_dot_graphviz (void)
{
  g_autofree char *dot = g_find_program_in_path ("dot");
  if (dot == NULL)
    {
      g_test_skip ("Graphviz's dot is not installed");
      return;
    }
  g_autoptr (Graph) g = sample_graph ();
  g_autoptr (GString) out = g_string_new (NULL);
  graph_print_dot (g, out);
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = NULL;
  int fd = g_file_open_tmp ("symonnx-dot-XXXXXX.dot", &tmp, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (tmp, out->str, (gssize) out->len, &error));
  const char *argv[] = { dot, "-Tsvg", tmp, NULL };
  g_autofree char *svg = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &svg, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_remove (tmp);
  if (!g_spawn_check_wait_status (status, NULL) || (err && *err))
    g_error ("dot rejected the output: %s\n%s", err, out->str);
  g_assert_nonnull (strstr (svg, "<svg"));
  g_assert_nonnull (strstr (svg, "onnx::Relu"));
}

/* Edges carry the value's element type and shape (without a trace's
 * strides); boxes show scalar and list attributes, long ones cut short,
 * tensors not at all. */
static void
test_dot_shapes_and_attrs (void)
{
  g_autoptr (Graph) g = graph_new ();
  gint64 dims[4] = { 1, 3, 224, 224 };
  g_autoptr (GraphType) t = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 4, dims);
  GraphValue *x = graph_add_input (g, "x", t);
  gint64 many[20] = { 0 };
  g_autoptr (Tensor) w = tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 4, (gint64[]) { 8, 3, 3, 3 }, NULL);
  GraphValue *y = graph_op (g, "Conv", x, graph_add_initializer (g, "w", w),
                            "kernel_shape_is", 2, (gint64[]) { 3, 3 }, "strides_is", 2,
                            (gint64[]) { 2, 2 }, "pads_is", 20, many, NULL);
  GraphValue *z = graph_op (g, "Elu", y, "alpha_f", 0.5, "value_t", w, NULL);
  graph_add_output (g, z);
  g_autoptr (GString) out = g_string_new (NULL);
  graph_print_dot (g, out);
  const char *s = out->str;
  g_assert_nonnull (strstr (s, "[label=\"%x\\nFloat(1, 3, 224, 224)\"]"));
  g_assert_nonnull (strstr (s, "label=\"onnx::Conv\\nkernel_shape=[3, 3]\\npads=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0...\\nstrides=[2, 2]\""));
  g_assert_nonnull (strstr (s, "label=\"onnx::Elu\\nalpha=0.5\"]"));
  g_assert_nonnull (strstr (s, "[label=\"%w\\nFloat(8, 3, 3, 3)\"]"));
}

void
test_dot_register (void)
{
  g_test_add_func ("/ir/dot/structure", test_dot_structure);
  g_test_add_func ("/ir/dot/graphviz", test_dot_graphviz);
  g_test_add_func ("/ir/dot/shapes-and-attrs", test_dot_shapes_and_attrs);
}
