/* Graph structure: node list, insert point, use lists, names, RAUW, DCE,
 * subgraphs, copy, types, attributes, lint.  Lint runs after each mutation. */
#include "tests/common/test-util.h"
#include "ir/graph-private.h"
#include <string.h>

static GraphType *
float_type (gint64 d0, gint64 d1)
{
  gint64 dims[2] = { d0, d1 };
  return graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, dims);
}

static void
test_graph_inputs_outputs (void)
{
  g_autoptr (Graph) g = graph_new ();
  g_autoptr (GraphType) t = float_type (3, 4);
  GraphValue *x = graph_add_input (g, "x", t);
  GraphValue *y = graph_add_input (g, "y", NULL);
  g_assert_cmpuint (graph_n_inputs (g), ==, 2);
  g_assert_true (graph_input (g, 1) == y);
  g_assert_null (graph_value_node (x));
  g_assert_true (graph_type_equal (graph_value_type (x), t));
  GraphValue *r = graph_op (g, "Relu", x, NULL);
  graph_add_output (g, r);
  graph_add_output (g, x);
  assert_lint (g);
  g_assert_true (graph_value_is_graph_output (x));
  g_assert_false (graph_remove_input (g, 0));   /* used */
  g_assert_true (graph_remove_input (g, 1));
  assert_lint (g);
  graph_remove_output (g, 0);
  assert_lint (g);
  g_assert_true (graph_output (g, 0) == x);
  g_assert_false (graph_value_is_graph_output (r));
  graph_set_output (g, 0, r);
  assert_lint (g);
  g_assert_false (graph_value_is_graph_output (x));
}

static const char *
kinds (Graph *g)
{
  static char buf[256];
  buf[0] = '\0';
  graph_foreach_node (g, n)
    {
      g_strlcat (buf, graph_node_op_type (n), sizeof buf);
      g_strlcat (buf, " ", sizeof buf);
    }
  return buf;
}

static void
test_graph_insert_point (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *a = graph_op (g, "A", x, NULL);
  GraphValue *b = graph_op (g, "B", a, NULL);
  graph_add_output (g, b);
  g_assert_cmpstr (kinds (g), ==, "A B ");
  graph_set_insert_point (g, graph_value_node (b));
  graph_op (g, "C", x, NULL);
  g_assert_cmpstr (kinds (g), ==, "A C B ");
  assert_lint (g);
  graph_set_insert_point (g, NULL);
  graph_op (g, "D", x, NULL);
  g_assert_cmpstr (kinds (g), ==, "A C B D ");
  /* Moving B before A would use %a before it is defined: lint says so. */
  graph_node_insert_before (graph_value_node (b), graph_first_node (g));
  g_autoptr (GError) error = NULL;
  g_assert_false (graph_lint (g, &error));
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_LINT);
  g_assert_nonnull (strstr (error->message, "before it is defined"));
  graph_node_insert_after (graph_value_node (b), graph_value_node (a));
  g_assert_cmpstr (kinds (g), ==, "A B C D ");
  assert_lint (g);
  g_assert_cmpuint (graph_n_nodes (g), ==, 4);
}

static void
test_graph_node_destroy (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *a = graph_op (g, "A", x, x, NULL);
  GraphValue *b = graph_op (g, "B", a, NULL);
  graph_add_output (g, b);
  g_assert_cmpuint (graph_value_n_uses (x), ==, 2);
  g_test_expect_message ("symonnx", G_LOG_LEVEL_CRITICAL, "*still used*");
  g_assert_false (graph_node_destroy (graph_value_node (a)));
  g_test_assert_expected_messages ();
  assert_lint (g);
  graph_remove_output (g, 0);
  g_assert_true (graph_node_destroy (graph_value_node (b)));
  assert_lint (g);
  /* the insert point follows a destroyed node */
  graph_set_insert_point (g, graph_value_node (a));
  g_assert_true (graph_node_destroy (graph_value_node (a)));
  g_assert_null (graph_get_insert_point (g));
  g_assert_cmpuint (graph_value_n_uses (x), ==, 0);
  g_assert_cmpuint (graph_n_nodes (g), ==, 0);
  assert_lint (g);
}

static void
test_value_replace_all_uses (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *a = graph_add_input (g, "a", NULL);
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *b = graph_op (g, "Relu", a, NULL);
  GraphValue *c = graph_op (g, "Add", a, b, NULL);
  graph_add_output (g, a);
  graph_add_output (g, c);
  graph_value_replace_all_uses (a, x);
  assert_lint (g);
  g_assert_cmpuint (graph_value_n_uses (a), ==, 0);
  g_assert_false (graph_value_is_graph_output (a));
  g_assert_cmpuint (graph_value_n_uses (x), ==, 2);
  g_assert_true (graph_node_input (graph_value_node (b), 0) == x);
  g_assert_true (graph_node_input (graph_value_node (c), 0) == x);
  g_assert_true (graph_output (g, 0) == x);
  const GraphUse *u = graph_value_use (x, 1);
  g_assert_true (u->node == graph_value_node (c));
  g_assert_cmpuint (u->index, ==, 0);
}

/* resolve follows replace_all_uses chains to the live value, and gives
 * NULL for a value whose node is gone without a replacement. */
/* Dead code inside a Loop body goes, and with it the outer node only that
 * dead code read; what the body returns stays. */
static void
test_dce_bodies (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *a = graph_add_input (g, "a", NULL);
  GraphValue *m = graph_add_input (g, "m", NULL);
  GraphValue *c0 = graph_add_input (g, "c0", NULL);
  GraphValue *outer_only_dead = graph_op (g, "Exp", a, NULL);
  Graph *body = graph_new_subgraph (g);
  GraphValue *it = graph_add_input (body, "i", NULL);
  graph_add_input (body, "c", NULL);
  GraphValue *v = graph_add_input (body, "v", NULL);
  graph_op (body, "Neg", outer_only_dead, NULL);          /* dead */
  graph_op (body, "Not", graph_op (body, "Equal", it, it, NULL), NULL);   /* dead chain */
  GraphValue *keep = graph_op (body, "Add", v, a, NULL);
  GraphValue *cond = graph_op (body, "Identity", graph_op (body, "Greater", it, it, NULL), NULL);
  graph_add_output (body, cond);
  graph_add_output (body, keep);
  GraphNode *loop = graph_op_outputs (g, "Loop", 1, m, c0, a, NULL);
  graph_node_set_g (loop, "body", body);
  graph_add_output (g, graph_node_output (loop, 0));
  g_assert_cmpuint (graph_eliminate_dead_code (g), ==, 4);
  assert_lint (g);
  guint n = 0;
  graph_foreach_node (body, x)
    n++;
  g_assert_cmpuint (n, ==, 3);   /* Add, Greater, Identity */
  g_assert_cmpuint (graph_value_n_uses (a), ==, 2);   /* Loop's input and Add */
}

static void
test_value_resolve (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *a = graph_add_input (g, "a", NULL);
  GraphValue *d = graph_op (g, "Abs", a, NULL);
  GraphValue *e = graph_op (g, "Exp", a, NULL);
  GraphValue *b = graph_op (g, "Relu", a, NULL);
  GraphValue *c = graph_op (g, "Neg", b, NULL);
  graph_add_output (g, c);
  g_assert_true (graph_value_resolve (b) == b);
  g_assert_true (graph_value_resolve (a) == a);
  graph_value_replace_all_uses (b, d);     /* Neg(Abs(a)) */
  graph_value_replace_all_uses (d, e);     /* Neg(Exp(a)) */
  g_assert_cmpuint (graph_eliminate_dead_code (g), ==, 2);
  assert_lint (g);
  g_assert_true (graph_value_resolve (b) == e);
  g_assert_true (graph_value_resolve (d) == e);
  g_assert_true (graph_value_resolve (e) == e);
  /* Neg goes with nothing in its place. */
  graph_value_replace_all_uses (c, e);
  graph_eliminate_dead_code (g);
  g_assert_true (graph_value_resolve (c) == e);
  GraphValue *f = graph_op (g, "Sin", a, NULL);
  graph_eliminate_dead_code (g);
  g_assert_null (graph_value_resolve (f));
  assert_lint (g);
}

static void
test_value_unique_names (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *a = graph_add_input (g, "x", NULL);
  GraphValue *b = graph_add_input (g, "x", NULL);
  GraphValue *c = graph_add_input (g, "x.1", NULL);
  g_assert_cmpstr (graph_value_get_name (a), ==, "x");
  g_assert_cmpstr (graph_value_get_name (b), ==, "x.1");
  g_assert_cmpstr (graph_value_get_name (c), ==, "x.2");
  g_assert_true (graph_find_value (g, "x.1") == b);
  graph_value_set_name (a, NULL);
  g_assert_null (graph_find_value (g, "x"));
  graph_value_set_name (c, "x");
  g_assert_true (graph_find_value (g, "x") == c);
  g_assert_null (graph_find_value (g, "x.2"));
  assert_lint (g);
  g_assert_cmpuint (graph_value_id (a), !=, graph_value_id (b));
}

static void
test_node_unique_names (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphNode *n1 = graph_value_node (graph_op (g, "Relu", x, NULL));
  GraphNode *n2 = graph_value_node (graph_op (g, "Relu", x, NULL));
  g_assert_cmpstr (graph_node_set_name (n1, "relu"), ==, "relu");
  g_assert_cmpstr (graph_node_set_name (n2, "relu"), ==, "relu.1");
  g_assert_true (graph_find_node (g, "relu.1") == n2);
  assert_lint (g);
  graph_node_destroy (n1);
  g_assert_null (graph_find_node (g, "relu"));
  assert_lint (g);
}

static void
test_node_inputs_outputs (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *a = graph_add_input (g, "a", NULL);
  GraphValue *b = graph_add_input (g, "b", NULL);
  GraphValue *c = graph_add_input (g, "c", NULL);
  GraphValue *inputs[3] = { a, b, c };
  GraphNode *n = graph_value_node (graph_opv (g, "Concat", 3, inputs, "axis_i", (gint64) 0, NULL));
  graph_node_remove_input (n, 0);
  assert_lint (g);
  g_assert_true (graph_node_input (n, 0) == b);
  g_assert_cmpuint (graph_value_use (c, 0)->index, ==, 1);
  graph_node_set_input (n, 1, a);
  assert_lint (g);
  g_assert_cmpuint (graph_value_n_uses (c), ==, 0);
  graph_node_add_input (n, NULL);
  graph_node_add_input (n, c);
  assert_lint (g);
  g_assert_null (graph_node_input (n, 2));
  GraphValue *o1 = graph_node_add_output (n);
  GraphValue *o2 = graph_node_add_output (n);
  graph_add_output (g, o2);
  g_assert_false (graph_node_remove_output (n, 2));
  g_assert_true (graph_node_remove_output (n, 1));
  (void) o1;
  g_assert_cmpuint (graph_value_offset (o2), ==, 1);
  assert_lint (g);
}

static void
test_graph_dce (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *a = graph_op (g, "A", x, NULL);
  graph_op (g, "B", a, NULL);
  GraphValue *kept = graph_op (g, "C", x, NULL);
  graph_add_output (g, kept);
  GraphNode *sink = graph_create_node (g, "prim::Print", 1, &x, 0);
  graph_insert_node (g, sink);
  g_assert_cmpuint (graph_eliminate_dead_code (g), ==, 2);
  assert_lint (g);
  g_assert_cmpstr (kinds (g), ==, "C Print ");
  g_assert_cmpuint (graph_value_n_uses (x), ==, 2);
}

/* A subgraph uses an outer value; destroying its node drops that use. */
static void
test_graph_subgraph_outer_uses (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *cond = graph_add_input (g, "cond", NULL);
  Graph *then_g = graph_new_subgraph (g);
  graph_add_output (then_g, graph_op (then_g, "Relu", x, NULL));
  Graph *else_g = graph_new_subgraph (g);
  graph_add_output (else_g, x);
  GraphValue *y = graph_op (g, "If", cond, "then_branch_g", then_g, "else_branch_g", else_g, NULL);
  graph_add_output (g, y);
  assert_lint (g);
  g_assert_cmpuint (graph_value_n_uses (x), ==, 1);
  g_assert_true (graph_value_is_graph_output (x));
  g_assert_true (graph_get_outer (then_g) == g);
  g_assert_true (graph_get_owner_node (then_g) == graph_value_node (y));

  g_autoptr (Graph) copy = graph_copy (g);
  assert_lint (copy);
  Graph *copied_then = NULL;
  g_assert_true (graph_node_get_g (graph_first_node (copy), "then_branch", &copied_then));
  g_assert_true (graph_node_input (graph_first_node (copied_then), 0) == graph_input (copy, 0));

  graph_remove_output (g, 0);
  g_assert_true (graph_node_destroy (graph_value_node (y)));
  g_assert_cmpuint (graph_value_n_uses (x), ==, 0);
  g_assert_false (graph_value_is_graph_output (x));
  assert_lint (g);
}

static void
test_graph_copy (void)
{
  g_autoptr (Graph) g = graph_new ();
  g_autoptr (GraphType) t = float_type (2, 2);
  GraphValue *x = graph_add_input (g, "x.1", t);
  float w[4] = { 1, 2, 3, 4 };
  gint64 dims[2] = { 2, 2 };
  g_autoptr (Tensor) wt = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, dims, w, sizeof w, NULL);
  GraphValue *wv = graph_add_initializer (g, "fc.weight", wt);
  GraphValue *y = graph_op (g, "MatMul", x, wv, NULL);
  graph_node_set_scope (graph_value_node (y), "M::/Linear::fc");
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  graph_set_opset (g, "", 13);
  graph_set_property (g, "producer_name", "test");

  g_autoptr (Graph) c = graph_copy (g);
  assert_lint (c);
  g_assert_cmpuint (graph_n_inputs (c), ==, 2);
  g_assert_cmpstr (graph_value_get_name (graph_input (c, 1)), ==, "fc.weight");
  g_assert_true (graph_value_get_initializer (graph_input (c, 1)) == wt);
  g_assert_cmpstr (graph_node_get_scope (graph_first_node (c)), ==, "M::/Linear::fc");
  g_assert_cmpstr (graph_value_get_name (graph_output (c, 0)), ==, "y");
  g_assert_cmpint (graph_get_opset (c, ""), ==, 13);
  g_assert_cmpstr (graph_get_property (c, "producer_name"), ==, "test");
  g_assert_true (graph_type_equal (graph_value_type (graph_input (c, 0)), t));
}

static void
test_type_to_string (void)
{
  GraphDim dims[4] = {
    { GRAPH_DIM_STATIC, 1, NULL }, { GRAPH_DIM_STATIC, 3, NULL },
    { GRAPH_DIM_UNKNOWN, -1, NULL }, { GRAPH_DIM_SYMBOLIC, -1, "batch" },
  };
  g_autoptr (GraphType) t = graph_type_new_tensor (GRAPH_DTYPE_FLOAT, 4, dims);
  g_autofree char *s = graph_type_to_string (t);
  g_assert_cmpstr (s, ==, "Float(1, 3, *, batch)");
  gint64 strides[4] = { 9, 3, 1, 1 };
  g_autoptr (GraphType) tr = graph_type_with_trace_info (t, strides, 0, "cpu");
  g_autofree char *s2 = graph_type_to_string (tr);
  g_assert_cmpstr (s2, ==, "Float(1, 3, *, batch, strides=[9, 3, 1, 1], requires_grad=0, device=cpu)");
  g_autoptr (GraphType) scalar = graph_type_new_tensor (GRAPH_DTYPE_INT64, 0, NULL);
  g_autoptr (GraphType) scalar_tr = graph_type_with_trace_info (scalar, NULL, 0, "cpu");
  g_autofree char *s3 = graph_type_to_string (scalar_tr);
  g_assert_cmpstr (s3, ==, "Long(requires_grad=0, device=cpu)");
  g_autoptr (GraphType) unknown = graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL);
  g_autofree char *s4 = graph_type_to_string (unknown);
  g_assert_cmpstr (s4, ==, "Tensor");
  GraphType *elems[2] = { graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL),
                          graph_type_new_simple (GRAPH_TYPE_INT) };
  g_autoptr (GraphType) tuple = graph_type_new_tuple (2, elems);
  g_autofree char *s5 = graph_type_to_string (tuple);
  g_assert_cmpstr (s5, ==, "(Tensor, int)");
  g_autoptr (GraphType) list = graph_type_new_list (graph_type_new_simple (GRAPH_TYPE_INT));
  g_autoptr (GraphType) opt = graph_type_new_optional (graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL));
  g_autoptr (GraphType) dict = graph_type_new_dict (graph_type_new_simple (GRAPH_TYPE_STR),
                                                    graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL));
  g_autoptr (GraphType) cls = graph_type_new_class ("__torch__.torchvision.models.resnet.ResNet");
  g_autofree char *s6 = graph_type_to_string (list);
  g_autofree char *s7 = graph_type_to_string (opt);
  g_autofree char *s8 = graph_type_to_string (dict);
  g_autofree char *s9 = graph_type_to_string (cls);
  g_assert_cmpstr (s6, ==, "int[]");
  g_assert_cmpstr (s7, ==, "Tensor?");
  g_assert_cmpstr (s8, ==, "Dict(str, Tensor)");
  g_assert_cmpstr (s9, ==, "__torch__.torchvision.models.resnet.ResNet");
  g_assert_false (graph_type_equal (tuple, list));
  g_assert_false (graph_type_equal (t, tr));
}

static void
test_attr_all_kinds (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphNode *n = graph_create_node (g, "Foo", 0, NULL, 1);
  graph_insert_node (g, n);
  double fs[2] = { 0.5, -1.0 };
  gint64 is[3] = { 1, 2, 3 };
  const char *ss[2] = { "a", "bc" };
  g_autoptr (Tensor) t = tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, 2.0);
  Tensor *ts[1] = { t };
  g_autoptr (GraphType) tp = float_type (1, 2);
  GraphType *tps[1] = { tp };
  graph_node_set_i (n, "z_i", 7);
  graph_node_set_f (n, "f", 0.25);
  graph_node_set_s_len (n, "s", "x\0y", 3);
  graph_node_set_t (n, "t", t);
  graph_node_set_tp (n, "tp", tp);
  graph_node_set_fs (n, "fs", 2, fs);
  graph_node_set_is (n, "is", 3, is);
  graph_node_set_ss (n, "ss", 2, ss);
  graph_node_set_ts (n, "ts", 1, ts);
  graph_node_set_tps (n, "tps", 1, tps);
  Graph *sub = graph_new ();
  graph_node_set_g (n, "g", sub);
  Graph *subs[2] = { graph_new (), graph_new () };
  graph_node_set_gs (n, "gs", 2, subs);
  assert_lint (g);

  /* sorted by name */
  const char *expected[] = { "f", "fs", "g", "gs", "is", "s", "ss", "t", "tp", "tps", "ts", "z_i" };
  g_assert_cmpuint (graph_node_n_attrs (n), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (graph_node_attr_name (n, i), ==, expected[i]);

  double f;
  gint64 i;
  const char *s;
  gsize len;
  const gint64 *isv;
  const char *const *ssv;
  Graph *gv;
  g_assert_true (graph_node_get_f (n, "f", &f) && f == 0.25);
  g_assert_true (graph_node_get_i (n, "z_i", &i) && i == 7);
  g_assert_false (graph_node_get_i (n, "f", &i));     /* wrong kind */
  g_assert_false (graph_node_get_f (n, "nope", &f));  /* absent */
  g_assert_true (graph_node_get_s (n, "s", &s, &len));
  g_assert_cmpuint (len, ==, 3);
  g_assert_cmpmem (s, 3, "x\0y", 3);
  g_assert_true (graph_node_get_is (n, "is", &len, &isv));
  g_assert_cmpmem (isv, len * sizeof (gint64), is, sizeof is);
  g_assert_true (graph_node_get_ss (n, "ss", &len, &ssv));
  g_assert_cmpstr (ssv[1], ==, "bc");
  g_assert_true (graph_node_get_g (n, "g", &gv) && gv == sub);
  g_assert_true (graph_get_outer (sub) == g);
  GraphAttrKind kind;
  g_assert_true (graph_node_attr_kind (n, "tps", &kind));
  g_assert_cmpint (kind, ==, GRAPH_ATTR_TPS);
  /* replacing changes the kind in place */
  graph_node_set_s (n, "f", "now a string");
  g_assert_true (graph_node_attr_kind (n, "f", &kind));
  g_assert_cmpint (kind, ==, GRAPH_ATTR_S);
  g_assert_true (graph_node_remove_attr (n, "g"));
  g_assert_false (graph_node_has_attr (n, "g"));
  g_assert_cmpuint (graph_node_n_attrs (n), ==, G_N_ELEMENTS (expected) - 1);

  GraphNode *m = graph_create_node (g, "Bar", 0, NULL, 1);
  graph_insert_node (g, m);
  graph_node_copy_attrs (m, n);
  g_assert_true (graph_node_get_s (m, "s", &s, &len));
  g_assert_cmpmem (s, len, "x\0y", 3);
  g_assert_true (graph_node_get_gs (m, "gs", &len, NULL) && len == 2);
  assert_lint (g);
}

static void
test_attr_suffixes_round_trip (void)
{
  for (int k = GRAPH_ATTR_F; k <= GRAPH_ATTR_TPS; k++)
    {
      GraphAttrKind back;
      g_assert_true (graph_attr_kind_from_suffix (graph_attr_kind_suffix (k), &back));
      g_assert_cmpint (back, ==, k);
    }
}

/* Corrupt the private structures and check lint notices. */
static void
test_lint_detects_broken_use_list (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *y = graph_op (g, "Relu", x, NULL);
  graph_add_output (g, y);
  assert_lint (g);
  g_autoptr (GError) error = NULL;
  x->n_uses = 0;
  g_assert_false (graph_lint (g, &error));
  g_assert_nonnull (strstr (error->message, "use list"));
  x->n_uses = 1;
  g_clear_error (&error);
  g->n_nodes = 5;
  g_assert_false (graph_lint (g, &error));
  g_assert_nonnull (strstr (error->message, "count"));
  g->n_nodes = 1;
  g_clear_error (&error);
  y->offset = 3;
  g_assert_false (graph_lint (g, &error));
  y->offset = 0;
  assert_lint (g);
}

static void
test_symbol (void)
{
  g_assert_cmpstr (graph_symbol ("Elu", "onnx"), ==, "onnx::Elu");
  g_assert_true (graph_symbol ("aten::elu", "onnx") == g_intern_string ("aten::elu"));
  g_assert_cmpstr (graph_symbol ("org.pytorch.aten::ATen", "onnx"), ==, "org.pytorch.aten::ATen");
  g_assert_null (graph_symbol ("", "onnx"));
  g_assert_null (graph_symbol ("::Elu", "onnx"));
  g_assert_null (graph_symbol ("aten::", "onnx"));
  g_assert_null (graph_symbol ("a b", "onnx"));
  g_assert_null (graph_symbol ("a:b", "onnx"));
  g_autoptr (Graph) g = graph_new ();
  GraphNode *n = graph_create_node (g, "org.pytorch.aten::ATen", 0, NULL, 1);
  g_assert_cmpstr (graph_node_domain (n), ==, "org.pytorch.aten");
  g_assert_cmpstr (graph_node_op_type (n), ==, "ATen");
  g_assert_true (graph_node_is (n, GRAPH_KIND_ATEN));
  graph_node_destroy (n);
}

void
test_graph_register (void)
{
  g_test_add_func ("/ir/graph/inputs-outputs", test_graph_inputs_outputs);
  g_test_add_func ("/ir/graph/dce-bodies", test_dce_bodies);
  g_test_add_func ("/ir/graph/insert-point", test_graph_insert_point);
  g_test_add_func ("/ir/graph/node-destroy", test_graph_node_destroy);
  g_test_add_func ("/ir/value/replace-all-uses", test_value_replace_all_uses);
  g_test_add_func ("/ir/value/resolve", test_value_resolve);
  g_test_add_func ("/ir/value/unique-names", test_value_unique_names);
  g_test_add_func ("/ir/node/unique-names", test_node_unique_names);
  g_test_add_func ("/ir/node/inputs-outputs", test_node_inputs_outputs);
  g_test_add_func ("/ir/graph/dead-code-elimination", test_graph_dce);
  g_test_add_func ("/ir/graph/subgraph-outer-uses", test_graph_subgraph_outer_uses);
  g_test_add_func ("/ir/graph/copy", test_graph_copy);
  g_test_add_func ("/ir/type/to-string", test_type_to_string);
  g_test_add_func ("/ir/attr/all-kinds", test_attr_all_kinds);
  g_test_add_func ("/ir/attr/suffixes-round-trip", test_attr_suffixes_round_trip);
  g_test_add_func ("/ir/lint/detects-corruption", test_lint_detects_broken_use_list);
  g_test_add_func ("/ir/symbol/parse", test_symbol);
}
