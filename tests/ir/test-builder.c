/* The builder, written exactly as symbolic functions use it. */
#include "tests/common/test-util.h"
#include <string.h>

static Graph *
graph_with_x (GraphValue **x)
{
  Graph *g = graph_new ();
  gint64 dims[2] = { 3, 4 };
  g_autoptr (GraphType) t = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, dims);
  *x = graph_add_input (g, "x", t);
  return g;
}

static void
test_builder_elu (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  GraphValue *y = graph_op (g, "Elu", x, "alpha_f", 1.0, NULL);
  assert_lint (g);
  GraphNode *n = graph_value_node (y);
  g_assert_cmpstr (graph_node_kind (n), ==, "onnx::Elu");
  double alpha = 0;
  g_assert_true (graph_node_get_f (n, "alpha", &alpha));
  g_assert_cmpfloat (alpha, ==, 1.0);
  g_assert_cmpuint (graph_node_n_inputs (n), ==, 1);
  g_assert_true (graph_node_input (n, 0) == x);
}

static void
test_builder_transpose_perm (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  gint64 perm[2] = { 1, 0 };
  GraphValue *y = graph_op (g, "Transpose", x, "perm_is", 2, perm, NULL);
  gsize len;
  const gint64 *got;
  g_assert_true (graph_node_get_is (graph_value_node (y), "perm", &len, &got));
  g_assert_cmpuint (len, ==, 2);
  g_assert_cmpint (got[0], ==, 1);
  g_assert_cmpint (got[1], ==, 0);
  assert_lint (g);
}

static void
test_builder_custom_domain (void)
{
  GraphValue *a;
  g_autoptr (Graph) g = graph_with_x (&a);
  GraphValue *b = graph_add_input (g, "b", NULL);
  GraphValue *y = graph_op (g, "mydomain::MyOp", a, b, NULL);
  GraphNode *n = graph_value_node (y);
  g_assert_cmpstr (graph_node_domain (n), ==, "mydomain");
  g_assert_cmpstr (graph_node_op_type (n), ==, "MyOp");
  g_assert_cmpuint (graph_node_n_inputs (n), ==, 2);
  assert_lint (g);
}

static void
assert_aten (GraphValue *v, const char *op)
{
  GraphNode *n = graph_value_node (v);
  const char *s;
  g_assert_cmpstr (graph_node_kind (n), ==, "org.pytorch.aten::ATen");
  g_assert_true (graph_node_get_s (n, "operator", &s, NULL));
  g_assert_cmpstr (s, ==, op);
  g_assert_true (graph_node_get_s (n, "overload_name", &s, NULL));
  g_assert_cmpstr (s, ==, "");
}

static void
test_builder_at (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  GraphValue *m = graph_at (g, "mul", x, x, NULL);
  assert_aten (m, "mul");
  g_assert_cmpuint (graph_value_n_uses (x), ==, 2);

  GraphValue *p = graph_at (g, "pow", x, "exponent_f", 2.0, NULL);
  assert_aten (p, "pow");
  double e;
  g_assert_true (graph_node_get_f (graph_value_node (p), "exponent", &e));
  g_assert_cmpfloat (e, ==, 2.0);

  gint64 sizes[2] = { 2, 4 };
  GraphValue *o = graph_at (g, "ones", "type_s", "float", "size_is", 2, sizes, NULL);
  assert_aten (o, "ones");
  GraphNode *on = graph_value_node (o);
  g_assert_cmpuint (graph_node_n_inputs (on), ==, 0);
  const char *type;
  g_assert_true (graph_node_get_s (on, "type", &type, NULL));
  g_assert_cmpstr (type, ==, "float");
  gsize len;
  const gint64 *got;
  g_assert_true (graph_node_get_is (on, "size", &len, &got));
  g_assert_cmpuint (len, ==, 2);
  g_assert_cmpint (got[1], ==, 4);

  GraphValue *ov = graph_at (g, "add", x, x, "overload_name_s", "Tensor", NULL);
  const char *ovl;
  g_assert_true (graph_node_get_s (graph_value_node (ov), "overload_name", &ovl, NULL));
  g_assert_cmpstr (ovl, ==, "Tensor");
  assert_lint (g);
}

/* The seed's MyModule: relu, then MyFunction's x*x + y through ATen. */
static void
test_builder_seed_mymodule (void)
{
  g_autoptr (Graph) g = graph_new ();
  gint64 dims[2] = { 3, 4 };
  g_autoptr (GraphType) t = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, dims);
  GraphValue *x = graph_add_input (g, "1", t);
  GraphValue *y = graph_add_input (g, "2", t);
  GraphValue *r = graph_op (g, "Relu", x, NULL);
  GraphValue *x2 = graph_at (g, "mul", r, r, NULL);
  GraphValue *out = graph_at (g, "add", x2, y, NULL);
  graph_add_output (g, out);
  assert_lint (g);
  g_assert_cmpuint (graph_n_nodes (g), ==, 3);
  g_assert_cmpuint (graph_value_n_uses (r), ==, 2);
  g_assert_true (graph_node_input (graph_value_node (out), 0) == x2);
  g_assert_true (graph_node_input (graph_value_node (out), 1) == y);
}

static void
test_builder_split_outputs (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  gint64 split[2] = { 1, 3 };
  GraphNode *n = graph_op_outputs (g, "Split", 2, x, "axis_i", (gint64) 1, "split_is", 2, split, NULL);
  g_assert_nonnull (n);
  g_assert_cmpuint (graph_node_n_outputs (n), ==, 2);
  g_assert_cmpuint (graph_value_offset (graph_node_output (n, 1)), ==, 1);
  gint64 axis;
  g_assert_true (graph_node_get_i (n, "axis", &axis));
  g_assert_cmpint (axis, ==, 1);
  graph_add_output (g, graph_node_output (n, 0));
  graph_add_output (g, graph_node_output (n, 1));
  assert_lint (g);
}

static void
test_builder_concat_array (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  GraphValue *parts[3] = { x, graph_op (g, "Neg", x, NULL), x };
  GraphValue *c = graph_opv (g, "Concat", 3, parts, "axis_i", (gint64) -1, NULL);
  GraphNode *n = graph_value_node (c);
  g_assert_cmpuint (graph_node_n_inputs (n), ==, 3);
  g_assert_true (graph_node_input (n, 1) == parts[1]);
  gint64 axis;
  g_assert_true (graph_node_get_i (n, "axis", &axis));
  g_assert_cmpint (axis, ==, -1);
  GraphNode *m = graph_opv_outputs (g, "Foo", 0, NULL, 3, NULL);
  g_assert_cmpuint (graph_node_n_outputs (m), ==, 3);
  assert_lint (g);
}

static void
test_builder_absent_input (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  GraphValue *mx = graph_add_input (g, "max", NULL);
  GraphValue *c = graph_op (g, "Clip", x, GRAPH_ABSENT, mx, NULL);
  GraphNode *n = graph_value_node (c);
  g_assert_cmpuint (graph_node_n_inputs (n), ==, 3);
  g_assert_null (graph_node_input (n, 1));
  g_assert_true (graph_node_input (n, 2) == mx);
  GraphValue *arr[2] = { x, GRAPH_ABSENT };
  GraphValue *d = graph_opv (g, "Dropout", 2, arr, NULL);
  g_assert_null (graph_node_input (graph_value_node (d), 1));
  assert_lint (g);
}

/* Each misuse: a critical naming the problem, NULL, and no node added. */
static void
expect_rejected (Graph *g, const char *pattern, gpointer result)
{
  g_test_assert_expected_messages ();
  g_assert_null (result);
  (void) pattern;
  assert_lint (g);
}

static void
test_builder_misuse (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  guint before = graph_n_nodes (g);

  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*lacks a type suffix*");
  expect_rejected (g, NULL, graph_op (g, "Elu", x, "alpha", 1.0, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*lacks a type suffix*");
  expect_rejected (g, NULL, graph_op (g, "Elu", x, "alpha_q", 1.0, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*lacks a type suffix*");
  expect_rejected (g, NULL, graph_op (g, "Elu", x, "_f", 1.0, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*not a valid node kind*");
  expect_rejected (g, NULL, graph_op (g, "bad kind", x, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*not a valid node kind*");
  expect_rejected (g, NULL, graph_op (g, "dom::", x, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*NULL value*");
  expect_rejected (g, NULL, graph_at (g, "ones", "type_s", NULL, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*count >= 0*");
  expect_rejected (g, NULL, graph_op (g, "Transpose", x, "perm_is", -2, NULL, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*count >= 0*");
  expect_rejected (g, NULL, graph_op (g, "Transpose", x, "perm_is", 2, NULL, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*inputs come first*");
  expect_rejected (g, NULL, graph_op (g, "Elu", "alpha_f", 1.0, x, NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*operator attribute*");
  expect_rejected (g, NULL, graph_at (g, "mul", x, "operator_s", "add", NULL));
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*operator name is empty*");
  expect_rejected (g, NULL, graph_at (g, "", x, NULL));

  /* A value of another graph is not an input of this one: it is read as a
   * key, which has no suffix. */
  GraphValue *other_x;
  g_autoptr (Graph) other = graph_with_x (&other_x);
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*not a value of this graph*");
  expect_rejected (g, NULL, graph_op (g, "Relu", x, other_x, NULL));

  const char *names[2] = { "a", NULL };
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*element 1*NULL*");
  expect_rejected (g, NULL, graph_op (g, "Foo", x, "names_ss", 2, names, NULL));

  g_assert_cmpuint (graph_n_nodes (g), ==, before);
  g_assert_cmpuint (graph_value_n_uses (x), ==, 0);
}

/* Note [Builder errors]: while capturing, misuse is kept on the graph (the
 * first message), with no critical, and nothing is built. */
static void
test_builder_capture_errors (void)
{
  GraphValue *x;
  g_autoptr (Graph) g = graph_with_x (&x);
  guint before = graph_n_nodes (g);
  graph_builder_capture_errors (g, TRUE);
  g_assert_null (graph_op (g, "Mul", x, x, "alpha", 1.0, NULL));
  g_assert_null (graph_op (g, "Elu", x, "beta", 1.0, NULL));
  graph_builder_capture_errors (g, FALSE);
  g_assert_cmpuint (graph_n_nodes (g), ==, before);
  g_autoptr (GError) e = graph_builder_take_error (g);
  g_assert_error (e, GRAPH_BUILDER_ERROR, 0);
  g_assert_nonnull (strstr (e->message, "graph_op(Mul): attribute key \"alpha\" lacks a type suffix"));
  g_assert_null (graph_builder_take_error (g));
  /* not capturing: a critical again */
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*\"beta\" lacks a type suffix*");
  g_assert_null (graph_op (g, "Elu", x, "beta", 1.0, NULL));
  g_test_assert_expected_messages ();
  g_assert_null (graph_builder_take_error (g));
}

void
test_builder_register (void)
{
  g_test_add_func ("/ir/builder/capture-errors", test_builder_capture_errors);
  g_test_add_func ("/ir/builder/elu", test_builder_elu);
  g_test_add_func ("/ir/builder/transpose-perm", test_builder_transpose_perm);
  g_test_add_func ("/ir/builder/custom-domain", test_builder_custom_domain);
  g_test_add_func ("/ir/builder/aten", test_builder_at);
  g_test_add_func ("/ir/builder/seed-mymodule", test_builder_seed_mymodule);
  g_test_add_func ("/ir/builder/split-outputs", test_builder_split_outputs);
  g_test_add_func ("/ir/builder/concat-array", test_builder_concat_array);
  g_test_add_func ("/ir/builder/absent-input", test_builder_absent_input);
  g_test_add_func ("/ir/builder/misuse", test_builder_misuse);
}
