/* Tests of the symbolic registry and the export pipeline. */
#include "test-wrong-results.h"
#include "symonnx.h"
#include "symbolic/symbolic.h"
#include "symbolic/aten-schemas.h"
#include "export/export.h"
#include "tests/common/test-util.h"
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

static Graph *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  Graph *g = graph_parse (text, strlen (text), "test", &error);
  g_assert_no_error (error);
  return g;
}

static Graph *
export_with (const Graph *trace, SymRegistry *reg, SymMode mode, int opset, GError **error)
{
  ExportOptions o;
  export_options_init (&o);
  o.registry = reg;
  o.mode = mode;
  o.opset = opset;
  o.export_params = FALSE;
  Graph *g = export_graph (trace, &o, error);
  export_options_clear (&o);
  return g;
}

/* The op types of g's nodes, space separated ("Relu ATen ATen"). */
static char *
op_list (const Graph *g)
{
  GString *s = g_string_new (NULL);
  graph_foreach_node ((Graph *) g, n)
    g_string_append_printf (s, "%s%s", s->len ? " " : "", graph_node_op_type (n));
  return g_string_free (s, FALSE);
}

static GraphNode *
nth_node (const Graph *g, guint i)
{
  GraphNode *n = graph_first_node (g);
  while (n && i--)
    n = graph_node_next (n);
  g_assert_nonnull (n);
  return n;
}

/* ---- registry ------------------------------------------------------------ */

static void
test_registry_lookup (void)
{
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  /* softmax changes at 13: 9..12 share one function, 13+ another. */
  SymFn s9 = sym_registry_lookup (reg, "aten::softmax", 9, NULL, NULL);
  SymFn s12 = sym_registry_lookup (reg, "aten::softmax", 12, NULL, NULL);
  SymFn s13 = sym_registry_lookup (reg, "aten::softmax", 13, NULL, NULL);
  SymFn s17 = sym_registry_lookup (reg, "softmax", 17, NULL, NULL);
  g_assert_nonnull (s9);
  g_assert_true (s9 == s12);
  g_assert_true (s13 != s9);
  g_assert_true (s17 == s13);
  /* In-place names resolve to the base op. */
  const char *resolved = NULL;
  g_assert_true (sym_registry_lookup (reg, "aten::relu_", 9, NULL, &resolved)
                 == sym_registry_lookup (reg, "aten::relu", 9, NULL, NULL));
  g_assert_cmpstr (resolved, ==, "aten::relu");
  g_assert_null (sym_registry_lookup (reg, "aten::__and___", 9, NULL, NULL));
  /* upsample_bicubic2d exists from 11 only (Resize's cubic mode). */
  g_assert_null (sym_registry_lookup (reg, "aten::upsample_bicubic2d", 10, NULL, NULL));
  g_assert_nonnull (sym_registry_lookup (reg, "aten::upsample_bicubic2d", 11, NULL, NULL));
  g_assert_cmpint (sym_registry_first_opset (reg, "aten::upsample_bicubic2d"), ==, 11);
  g_assert_cmpint (sym_registry_first_opset (reg, "aten::add_"), ==, 9);
  g_assert_cmpint (sym_registry_first_opset (reg, "aten::no_such_op"), ==, -1);
  /* names whose symbolic only refuses (SYM_REFUSED), per opset */
  g_assert_true (sym_registry_only_refuses (reg, "aten::_sample_dirichlet", 13));
  g_assert_true (sym_registry_only_refuses (reg, "aten::_unique", 10));
  g_assert_false (sym_registry_only_refuses (reg, "aten::_unique", 11));
  g_assert_false (sym_registry_only_refuses (reg, "aten::relu", 13));
  g_assert_false (sym_registry_only_refuses (reg, "aten::no_such_op", 13));
  g_autoptr (GArray) vs = sym_registry_builtin_versions (reg, "aten::clamp");
  g_assert_cmpuint (vs->len, ==, 2);
  g_assert_cmpint (g_array_index (vs, int, 0), ==, 9);
  g_assert_cmpint (g_array_index (vs, int, 1), ==, 11);
  SymMode m;
  g_assert_true (sym_mode_from_name ("aten-fallback", &m) && m == SYM_MODE_ONNX_ATEN_FALLBACK);
  g_assert_true (sym_mode_from_name ("ONNX_FALLTHROUGH", &m) && m == SYM_MODE_ONNX_FALLTHROUGH);
  g_assert_false (sym_mode_from_name ("bogus", &m));
}

static gboolean
my_elu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double alpha;
  if (!sym_parse_args (ctx, n, "vf", &self, &alpha, error))
    return FALSE;
  g_assert_true (sym_user_data (ctx) == GINT_TO_POINTER (42));
  out[0] = graph_op (sym_graph (ctx), "Elu", self, "alpha_f", alpha, NULL);
  return TRUE;
}

static const char elu_trace[] =
  "graph(%x : Float(2, 3)):\n"
  "  %a : float = prim::Constant[value=0.5]()\n"
  "  %s : int = prim::Constant[value=1]()\n"
  "  %y : Float(2, 3) = aten::elu(%x, %a, %s, %s) # model.py:7:0\n"
  "  return (%y)\n";

/* The seed's "Couldn't export operator elu", then the fix: a registered
 * symbolic; and the ATen fallback. */
static void
test_seed_elu (void)
{
  g_autoptr (Graph) trace = parse (elu_trace);
  g_autoptr (SymRegistry) reg = sym_registry_new_empty ();
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) fail = export_with (trace, reg, SYM_MODE_ONNX, 9, &error);
  g_assert_null (fail);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "ONNX export failed: Couldn't export operator aten::elu"));
  g_assert_nonnull (strstr (error->message, "opset 9"));
  g_assert_nonnull (strstr (error->message, "model.py:7:0"));
  g_assert_nonnull (strstr (error->message, "ONNX_ATEN_FALLBACK"));
  g_clear_error (&error);

  g_autoptr (Graph) fb = export_with (trace, reg, SYM_MODE_ONNX_ATEN_FALLBACK, 9, &error);
  g_assert_no_error (error);
  GraphNode *at = nth_node (fb, 0);
  while (!graph_node_is (at, GRAPH_KIND_ATEN))
    at = graph_node_next (at);
  const char *s;
  g_assert_true (graph_node_get_s (at, "operator", &s, NULL));
  g_assert_cmpstr (s, ==, "elu");
  g_assert_true (graph_node_get_s (at, "overload_name", &s, NULL));
  g_assert_cmpstr (s, ==, "");
  g_assert_cmpuint (graph_node_n_inputs (at), ==, 4);   /* every schema argument */
  g_assert_cmpint (graph_get_opset (fb, GRAPH_ATEN_DOMAIN), ==, 1);
  /* alpha 0.5 as a 0-d double Constant, as torch writes scalars */
  GraphNode *c = graph_value_node (graph_node_input (at, 1));
  Tensor *t;
  g_assert_true (graph_node_is (c, "onnx::Constant") && graph_node_get_t (c, "value", &t));
  g_assert_cmpint (tensor_dtype (t), ==, GRAPH_DTYPE_DOUBLE);
  g_assert_cmpfloat (tensor_get_double (t, 0), ==, 0.5);

  g_assert_true (sym_register (reg, "aten::elu", 9, my_elu, GINT_TO_POINTER (42)));
  g_autoptr (Graph) ok = export_with (trace, reg, SYM_MODE_ONNX, 9, &error);
  g_assert_no_error (error);
  assert_lint (ok);
  g_autofree char *ops = op_list (ok);
  g_assert_cmpstr (ops, ==, "Elu");
  double alpha;
  g_assert_true (graph_node_get_f (nth_node (ok, 0), "alpha", &alpha));
  g_assert_cmpfloat (alpha, ==, 0.5);
  g_assert_cmpstr (graph_value_get_name (graph_output (ok, 0)), ==, "output");
  g_assert_cmpstr (graph_value_get_name (graph_input (ok, 0)), ==, "x");
  /* unregister → unsupported again */
  g_assert_true (sym_unregister (reg, "aten::elu", -1));
  g_assert_false (sym_unregister (reg, "aten::elu", -1));
  g_autoptr (Graph) again = export_with (trace, reg, SYM_MODE_ONNX, 9, &error);
  g_assert_null (again);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED);
}

/* MyFunction x*x + y through graph_at, after a Relu (the seed's MyModule). */
static gboolean
my_function (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *y;
  if (!sym_parse_args (ctx, n, "vv", &x, &y, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  GraphValue *x2 = graph_at (g, "mul", x, x, NULL);
  out[0] = graph_at (g, "add", x2, y, NULL);
  return TRUE;
}

static gboolean
pow_and_ones (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  static const gint64 sizes[] = { 2, 4 };
  Graph *g = sym_graph (ctx);
  GraphValue *p = graph_at (g, "pow", x, "exponent_f", 2.0, NULL);
  GraphValue *ones = graph_at (g, "ones", "type_s", "float", "size_is", 2, sizes, NULL);
  out[0] = graph_op (g, "Add", p, ones, NULL);
  return TRUE;
}

static void
test_seed_myfunction (void)
{
  g_autoptr (Graph) trace = parse ("graph(%1 : Float(3, 4),\n      %2 : Float(3, 4)):\n"
                                   "  %3 : Float(3, 4) = aten::relu(%1)\n"
                                   "  %4 : Float(3, 4) = mylib::my_function(%3, %2)\n"
                                   "  %5 : Float(2, 4) = mylib::pow_ones(%4)\n"
                                   "  return (%4, %5)\n");
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  sym_register (reg, "mylib::my_function", 9, my_function, NULL);
  sym_register (reg, "mylib::pow_ones", 9, pow_and_ones, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_with (trace, reg, SYM_MODE_ONNX, 9, &error);
  g_assert_no_error (error);
  assert_lint (g);
  g_autofree char *ops = op_list (g);
  g_assert_cmpstr (ops, ==, "Relu ATen ATen ATen ATen Add");
  const char *s;
  g_assert_true (graph_node_get_s (nth_node (g, 1), "operator", &s, NULL));
  g_assert_cmpstr (s, ==, "mul");
  g_assert_true (graph_node_input (nth_node (g, 1), 0) == graph_node_input (nth_node (g, 1), 1));
  g_assert_true (graph_node_get_s (nth_node (g, 2), "operator", &s, NULL));
  g_assert_cmpstr (s, ==, "add");
  double e;
  g_assert_true (graph_node_get_f (nth_node (g, 3), "exponent", &e));
  g_assert_cmpfloat (e, ==, 2.0);
  gsize len;
  const gint64 *size;
  g_assert_true (graph_node_get_is (nth_node (g, 4), "size", &len, &size));
  g_assert_cmpuint (len, ==, 2);
  g_assert_cmpint (size[1], ==, 4);
  g_assert_true (graph_node_get_s (nth_node (g, 4), "type", &s, NULL));
  g_assert_cmpstr (s, ==, "float");
  g_assert_cmpint (graph_get_opset (g, GRAPH_ATEN_DOMAIN), ==, 1);
  g_assert_cmpstr (graph_value_get_name (graph_output (g, 1)), ==, "output_1");
}

/* Every unconvertible op is reported in one run. */
static void
test_collect_all (void)
{
  g_autoptr (Graph) trace = parse ("graph(%x : Float(2, 3)):\n"
                                   "  %a : Float(2, 3) = aten::frobnicate(%x)\n"
                                   "  %b : Float(2, 3) = aten::relu(%a)\n"
                                   "  %c : Float(2, 3) = aten::gather_nd_thing(%x)\n"
                                   "  %d : Float(2, 3) = aten::frobnicate(%c)\n"
                                   "  return (%b, %d)\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_with (trace, NULL, SYM_MODE_ONNX, 14, &error);
  g_assert_null (g);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "aten::frobnicate"));
  g_assert_nonnull (strstr (error->message, "aten::gather_nd_thing"));
  /* %d only depends on a failed node: it is not reported on its own. */
  g_assert_nonnull (strstr (error->message, "2 nodes could not be exported"));
  g_clear_error (&error);
  ExportOptions o;
  export_options_init (&o);
  o.export_params = FALSE;
  g_autoptr (GPtrArray) msgs = NULL;
  g_autoptr (GPtrArray) kinds = export_find_unsupported (trace, &o, &msgs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (kinds->len, ==, 2);
  g_assert_cmpstr (kinds->pdata[0], ==, "aten::frobnicate");
  g_assert_cmpstr (kinds->pdata[1], ==, "aten::gather_nd_thing");
  /* fallthrough copies them as they are */
  g_autoptr (Graph) ft = export_with (trace, NULL, SYM_MODE_ONNX_FALLTHROUGH, 14, &error);
  g_assert_no_error (error);
  g_autofree char *ops = op_list (ft);
  g_assert_cmpstr (ops, ==, "frobnicate Relu gather_nd_thing frobnicate");
  /* bad options */
  o.opset = 8;
  g_autoptr (Graph) bad = export_graph (trace, &o, &error);
  g_assert_null (bad);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS);
  g_clear_error (&error);
  g_assert_false (export_options_parse_dynamic_axes (&o, "x:abc", &error));
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS);
  export_options_clear (&o);
}

/* A real trace shape: module input, GetAttr weights, size/NumToTensor/Int
 * shape arithmetic, constant folding, dynamic axes. */
static const char module_trace[] =
  "graph(%self.1 : __torch__.M,\n"
  "      %x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu)):\n"
  "  %fc : __torch__.torch.nn.modules.linear.Linear = prim::GetAttr[name=\"fc\"](%self.1)\n"
  "  %bias : Tensor = prim::GetAttr[name=\"bias\"](%fc)\n"
  "  %weight : Tensor = prim::GetAttr[name=\"weight\"](%fc)\n"
  "  %y : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = aten::linear(%x, %weight, %bias), scope: __module.fc\n"
  "  %0 : int = prim::Constant[value=0]()\n"
  "  %1 : int = aten::size(%y, %0)\n"
  "  %2 : Long(device=cpu) = prim::NumToTensor(%1)\n"
  "  %3 : int = aten::Int(%2)\n"
  "  %m1 : int = prim::Constant[value=-1]()\n"
  "  %l : int[] = prim::ListConstruct(%3, %m1)\n"
  "  %z : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = aten::view(%y, %l)\n"
  "  %r : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = aten::relu_(%z)\n"
  "  return (%r)\n";

static void
test_pipeline_module (void)
{
  g_autoptr (Graph) trace = parse (module_trace);
  g_autoptr (GHashTable) w = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                    (GDestroyNotify) tensor_unref);
  gint64 wd[] = { 3, 4 }, bd[] = { 3 };
  g_hash_table_insert (w, g_strdup ("fc.weight"), tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 2, wd, NULL));
  g_hash_table_insert (w, g_strdup ("fc.bias"), tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 1, bd, NULL));
  ExportOptions o;
  export_options_init (&o);
  o.weights = w;
  o.opset = 13;
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  g_assert_no_error (error);
  assert_lint (g);
  g_autofree char *ops = op_list (g);
  /* Shape → Gather → Unsqueeze → Concat folded into one Constant. */
  g_assert_cmpstr (ops, ==, "Gemm Constant Reshape Relu");
  GraphNode *c = nth_node (g, 1);
  Tensor *t;
  g_assert_true (graph_node_get_t (c, "value", &t));
  g_assert_cmpint (tensor_get_int64 (t, 0), ==, 2);
  g_assert_cmpint (tensor_get_int64 (t, 1), ==, -1);
  g_assert_cmpstr (graph_node_get_name (nth_node (g, 0)), ==, "/fc/Gemm");
  g_assert_nonnull (graph_value_get_initializer (graph_find_value (g, "fc.weight")));
  g_assert_false (graph_value_initializer_is_input (graph_find_value (g, "fc.weight")));
  export_options_clear (&o);

  /* Missing weights are an error naming the key. */
  ExportOptions o2;
  export_options_init (&o2);
  g_autoptr (Graph) none = export_graph (trace, &o2, &error);
  g_assert_null (none);
  g_assert_nonnull (strstr (error->message, "fc.bias") ? error->message : strstr (error->message, "fc.weight"));
  g_clear_error (&error);

  /* Dynamic batch: the shape is computed (Shape/Gather stay), dim_param set. */
  export_options_init (&o2);
  o2.weights = w;
  o2.opset = 13;
  o2.keep_initializers_as_inputs = TRUE;
  static const char *const in_names[] = { "input", NULL };
  o2.input_names = in_names;
  g_assert_true (export_options_parse_dynamic_axes (&o2, "input:0=batch,output:0=batch", &error));
  g_autoptr (Graph) dyn = export_graph (trace, &o2, &error);
  g_assert_no_error (error);
  assert_lint (dyn);
  g_autofree char *dops = op_list (dyn);
  g_assert_nonnull (strstr (dops, "Shape"));
  g_assert_nonnull (strstr (dops, "Concat"));
  const GraphDim *d0 = graph_type_dim (graph_value_type (graph_input (dyn, 0)), 0);
  g_assert_cmpint (d0->kind, ==, GRAPH_DIM_SYMBOLIC);
  g_assert_cmpstr (d0->symbol, ==, "batch");
  g_assert_cmpstr (graph_value_get_name (graph_input (dyn, 0)), ==, "input");
  const GraphDim *o0 = graph_type_dim (graph_value_type (graph_output (dyn, 0)), 0);
  g_assert_cmpint (o0->kind, ==, GRAPH_DIM_SYMBOLIC);
  g_assert_true (graph_value_initializer_is_input (graph_find_value (dyn, "fc.weight")));
  export_options_clear (&o2);
}

/* A weight read only inside the branches of a run-time If (scripted code,
 * a conv in `if cond:`): one initializer of the top graph, read by both
 * branches from the enclosing scope.  It was made inside each branch, so
 * with keep_initializers_as_inputs the branches had inputs (an If's
 * subgraphs take none: the executor refused the file). */
static void
test_pipeline_weight_in_branches (void)
{
  g_autoptr (Graph) trace = parse (
    "graph(%self.1 : __torch__.M,\n"
    "      %x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu),\n"
    "      %c : Bool(requires_grad=0, device=cpu)):\n"
    "  %y : Tensor = prim::If(%c)\n"
    "    block0():\n"
    "      %fc : __torch__.Lin = prim::GetAttr[name=\"fc\"](%self.1)\n"
    "      %w : Tensor = prim::GetAttr[name=\"weight\"](%fc)\n"
    "      %a : Tensor = aten::matmul(%x, %w)\n"
    "      -> (%a)\n"
    "    block1():\n"
    "      %fc2 : __torch__.Lin = prim::GetAttr[name=\"fc\"](%self.1)\n"
    "      %w2 : Tensor = prim::GetAttr[name=\"weight\"](%fc2)\n"
    "      %b : Tensor = aten::mul(%x, %w2)\n"
    "      -> (%b)\n"
    "  return (%y)\n");
  g_autoptr (GHashTable) w = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                    (GDestroyNotify) tensor_unref);
  gint64 wd[] = { 4, 4 };
  g_hash_table_insert (w, g_strdup ("fc.weight"), tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 2, wd, NULL));
  ExportOptions o;
  export_options_init (&o);
  o.weights = w;
  o.opset = 13;
  o.keep_initializers_as_inputs = TRUE;
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  g_assert_no_error (error);
  assert_lint (g);
  GraphValue *fw = graph_find_value (g, "fc.weight");
  g_assert_nonnull (fw);
  g_assert_true (graph_value_graph (fw) == g);
  g_assert_nonnull (graph_value_get_initializer (fw));
  g_assert_cmpuint (graph_n_inputs (g), ==, 3);   /* x, c and the weight */
  GraphNode *iff = NULL;
  graph_foreach_node (g, n)
    if (graph_node_is (n, "onnx::If"))
      iff = n;
  g_assert_nonnull (iff);
  static const char *const branches[] = { "then_branch", "else_branch" };
  for (guint k = 0; k < 2; k++)
    {
      Graph *b = NULL;
      g_assert_true (graph_node_get_g (iff, branches[k], &b));
      g_assert_cmpuint (graph_n_inputs (b), ==, 0);
      gboolean reads = FALSE;
      graph_foreach_node (b, m)
        for (guint i = 0; i < graph_node_n_inputs (m); i++)
          reads = reads || graph_node_input (m, i) == fw;
      g_assert_true (reads);
    }
  export_options_clear (&o);
}

/* Note [Module attributes written in forward]: `if self.bias is not None:
 * self.bias = a + self.bias` (PyTorch's suite, test_set_attr_2) reads the
 * weight, adds, and the return reads the sum (weight 0.5 + a), not the
 * state_dict's bias; the same assignment inside a Loop is refused naming
 * the attribute (it had no symbolic at all). */
static void
test_pipeline_set_attr (void)
{
  g_autoptr (Graph) trace = parse (
    "graph(%self : __torch__.M,\n"
    "      %a : Float(3, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %none : NoneType = prim::Constant()\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %b0 : Tensor? = prim::GetAttr[name=\"bias\"](%self)\n"
    "  %c : bool = aten::__isnot__(%b0, %none)\n"
    "   = prim::If(%c) # m.py:4:8\n"
    "    block0():\n"
    "      %b1 : Tensor? = prim::GetAttr[name=\"bias\"](%self)\n"
    "      %b2 : Tensor = prim::unchecked_cast(%b1)\n"
    "      %s : Tensor = aten::add(%a, %b2, %one)\n"
    "       = prim::SetAttr[name=\"bias\"](%self, %s)\n"
    "      -> ()\n"
    "    block1():\n"
    "      -> ()\n"
    "  %b3 : Tensor? = prim::GetAttr[name=\"bias\"](%self)\n"
    "  %y : Tensor = prim::unchecked_cast(%b3)\n"
    "  return (%y)\n");
  g_autoptr (GHashTable) w = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                    (GDestroyNotify) tensor_unref);
  gint64 wd[] = { 3 };
  static const float half[] = { 0.5f, 0.5f, 0.5f }, ramp[] = { 0, 1, 2 };
  g_hash_table_insert (w, g_strdup ("bias"),
                       tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, wd, half, sizeof half, NULL));
  ExportOptions o;
  export_options_init (&o);
  o.weights = w;
  o.opset = 13;
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  g_assert_no_error (error);
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  Tensor *a = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, wd, ramp, sizeof ramp, NULL);
  g_hash_table_insert (in, g_strdup (graph_value_get_name (graph_input (g, 0))), a);
  g_assert_true (rt_session_run (s, in, out, &error));
  Tensor *y = g_hash_table_lookup (out, graph_value_get_name (graph_output (g, 0)));
  g_assert_nonnull (y);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpfloat (((const float *) tensor_data (y))[i], ==, i + 0.5f);
  export_options_clear (&o);

  /* in a loop: refused, naming the attribute */
  g_autoptr (Graph) looped = parse (
    "graph(%self : __torch__.M,\n"
    "      %a : Float(3, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %n : int = prim::Constant[value=2]()\n"
    "   = prim::Loop(%n, %t) # m.py:9:8\n"
    "    block0(%i : int):\n"
    "       = prim::SetAttr[name=\"w\"](%self, %a)\n"
    "      -> (%t)\n"
    "  %y : Tensor = prim::GetAttr[name=\"w\"](%self)\n"
    "  return (%y)\n");
  export_options_init (&o);
  o.opset = 13;
  o.export_params = FALSE;
  g_clear_error (&error);
  g_autoptr (Graph) none = export_graph (looped, &o, &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  if (strstr (error->message, "assigning attribute 'w' inside a loop") == NULL)
    g_error ("SetAttr in a loop: %s", error->message);
  export_options_clear (&o);
}

/* A graph output whose If branches return tensors of different ranks has
 * no ONNX type: refused at export naming the If and its line (it was the
 * file writer's "no element type and shape", naming neither). */
static void
test_pipeline_if_ranks_differ (void)
{
  g_autoptr (Graph) trace = parse (
    "graph(%x : Float(2, 3, 4, strides=[12, 4, 1], requires_grad=0, device=cpu),\n"
    "      %c : Bool(requires_grad=0, device=cpu)):\n"
    "  %y : Tensor = prim::If(%c) # m.py:5:8\n"
    "    block0():\n"
    "      %i : int = prim::Constant[value=0]()\n"
    "      %a : Tensor = aten::select(%x, %i, %i)\n"
    "      -> (%a)\n"
    "    block1():\n"
    "      -> (%x)\n"
    "  return (%y)\n");
  ExportOptions o;
  export_options_init (&o);
  o.opset = 13;
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  g_assert_null (g);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "graph output 0 'output' has no known rank"));
  g_assert_nonnull (strstr (error->message, "prim::If"));
  g_assert_nonnull (strstr (error->message, "m.py:5:8"));
  g_assert_nonnull (strstr (error->message, "branches return tensors of different ranks"));
  export_options_clear (&o);
}

/* The plugin from doc/examples/plugin. */
static void
test_plugin (void)
{
  const char *path = g_getenv ("SYMONNX_PLUGIN_MYOPS");
  if (path == NULL)
    {
      g_test_skip ("SYMONNX_PLUGIN_MYOPS not set");
      return;
    }
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (sym_registry_load_plugin (reg, path, &error));
  g_assert_no_error (error);
  g_autoptr (Graph) trace = parse ("graph(%x : Float(3, 4),\n      %y : Float(3, 4)):\n"
                                   "  %a : float = prim::Constant[value=0.25]()\n"
                                   "  %z : Float(3, 4) = mylib::my_function(%x, %y)\n"
                                   "  %w : Float(3, 4) = mylib::fancy(%z, %a)\n"
                                   "  return (%w)\n");
  g_autoptr (Graph) g = export_with (trace, reg, SYM_MODE_ONNX, 11, &error);
  g_assert_no_error (error);
  g_autofree char *ops = op_list (g);
  g_assert_cmpstr (ops, ==, "Mul Add Fancy");
  g_assert_cmpstr (graph_node_domain (nth_node (g, 2)), ==, "mylib");
  g_assert_cmpint (graph_get_opset (g, "mylib"), ==, 2);
  g_assert_cmpint (graph_get_opset (g, ""), ==, 11);
  g_assert_false (sym_registry_load_plugin (reg, "/nonexistent/libx.so", &error));
  g_assert_error (error, SYM_ERROR, SYM_ERROR_PLUGIN);
}

/* ---- per-op references from torch.onnx.export ---------------------------- */

/* tests/fixtures/torch-diffs.json: where our single-op exports differ from
 * torch 1.13's on purpose (kind "zero_states": the RNN cases without
 * initial states, whose zero states torch computes at run time and we fold;
 * "invalid": torch's file fails the checker too), the exports that do not
 * compute PyTorch's numbers (numeric_skips) and the cases torch cannot
 * export that we refuse too (refusals).  Its reasons are written once:
 * tools/gen_torch_diffs_doc.py renders them into doc/symbolic.md. */
typedef struct
{
  char *why, *kind;
} Diff;

static GHashTable *diff_tables[3];   /* "case/opset" → Diff */
enum { DIFFS, NUMERIC_SKIPS, REFUSALS };

static void
diff_free (gpointer p)
{
  Diff *d = p;
  g_free (d->why);
  g_free (d->kind);
  g_free (d);
}

static void
load_diff_table (JsonObject *root, const char *member, GHashTable *into)
{
  JsonArray *a = json_object_get_array_member (root, member);
  g_assert_nonnull (a);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonObject *e = json_array_get_object_element (a, i);
      JsonArray *cases = json_object_get_array_member (e, "cases");
      JsonNode *opsets = json_object_get_member (e, "opsets");
      g_assert_nonnull (cases);
      g_assert_nonnull (opsets);
      for (guint c = 0; c < json_array_get_length (cases); c++)
        for (int o = SYM_OPSET_MIN; o <= SYM_OPSET_MAX; o++)
          {
            gboolean all = JSON_NODE_HOLDS_VALUE (opsets);   /* "*" */
            gboolean listed = all;
            for (guint k = 0; !all && k < json_array_get_length (json_node_get_array (opsets)); k++)
              listed = listed || json_array_get_int_element (json_node_get_array (opsets), k) == o;
            if (!listed)
              continue;
            Diff *d = g_new0 (Diff, 1);
            d->why = g_strdup (json_object_get_string_member (e, "why"));
            d->kind = g_strdup (json_object_get_string_member_with_default (e, "kind", ""));
            g_hash_table_insert (into, g_strdup_printf ("%s/%d", json_array_get_string_element (cases, c), o), d);
          }
    }
}

static void
load_torch_diffs (void)
{
  g_autofree char *path = test_source_path ("tests/fixtures/torch-diffs.json");
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  static const char *const members[] = { "differences", "numeric_skips", "refusals" };
  for (guint t = 0; t < G_N_ELEMENTS (members); t++)
    {
      diff_tables[t] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, diff_free);
      load_diff_table (root, members[t], diff_tables[t]);
    }
}

static const Diff *
diff_lookup (guint table, const char *cas, const char *opset)
{
  g_autofree char *key = g_strdup_printf ("%s/%s", cas, opset);
  return diff_tables[table] ? g_hash_table_lookup (diff_tables[table], key) : NULL;
}

static gboolean
numeric_skip (const char *cas, const char *opset)
{
  return diff_lookup (NUMERIC_SKIPS, cas, opset) != NULL;
}

/* Random ops: PyTorch's values cannot be reproduced, so check_numeric
 * compares these cases' output shapes and element types only (every
 * output; the executor draws its own samples). */
static const char *const random_cases[] = {
  "rand", "rand_size_of", "randn_double", "rand_like_randn_like", "bernoulli", "bernoulli_p",
  "normal", "normal_std_float", "normal_size", "multinomial", "multinomial_replacement",
  "native_dropout_train", "rrelu_train", "rand_like_double", "normal_mean_float", "dropout_train",
};

static gboolean
is_random_case (const char *cas)
{
  for (guint i = 0; i < G_N_ELEMENTS (random_cases); i++)
    if (strcmp (random_cases[i], cas) == 0)
      return TRUE;
  return FALSE;
}

static const char *
known_refusal (const char *cas, const char *opset)
{
  const Diff *d = diff_lookup (REFUSALS, cas, opset);
  return d ? d->why : NULL;
}

/* The documented difference of (cas, opset), or NULL. */
static const Diff *
known_diff (const char *cas, const char *opset)
{
  return diff_lookup (DIFFS, cas, opset);
}

/* Compares our attribute with the reference JSON value. */
static gboolean
attr_matches (GraphNode *n, const char *name, JsonNode *ref)
{
  GraphAttrKind kind;
  if (!graph_node_attr_kind (n, name, &kind))
    return FALSE;
  switch (kind)
    {
    case GRAPH_ATTR_I:
      {
        gint64 v;
        graph_node_get_i (n, name, &v);
        return JSON_NODE_HOLDS_VALUE (ref) && json_node_get_int (ref) == v;
      }
    case GRAPH_ATTR_F:
      {
        double v;
        graph_node_get_f (n, name, &v);
        return JSON_NODE_HOLDS_VALUE (ref) && fabs (json_node_get_double (ref) - (float) v) < 1e-6;
      }
    case GRAPH_ATTR_S:
      {
        const char *v;
        graph_node_get_s (n, name, &v, NULL);
        return JSON_NODE_HOLDS_VALUE (ref) && g_strcmp0 (json_node_get_string (ref), v) == 0;
      }
    case GRAPH_ATTR_IS:
      {
        gsize len;
        const gint64 *v;
        graph_node_get_is (n, name, &len, &v);
        if (!JSON_NODE_HOLDS_ARRAY (ref) || json_array_get_length (json_node_get_array (ref)) != len)
          return FALSE;
        for (gsize i = 0; i < len; i++)
          if (json_array_get_int_element (json_node_get_array (ref), (guint) i) != v[i])
            return FALSE;
        return TRUE;
      }
    case GRAPH_ATTR_FS:
      {
        gsize len;
        const double *v;
        graph_node_get_fs (n, name, &len, &v);
        if (!JSON_NODE_HOLDS_ARRAY (ref) || json_array_get_length (json_node_get_array (ref)) != len)
          return FALSE;
        for (gsize i = 0; i < len; i++)
          if (fabs (json_array_get_double_element (json_node_get_array (ref), (guint) i) - v[i]) > 1e-6)
            return FALSE;
        return TRUE;
      }
    default:
      return TRUE;   /* tensors: compared by the op sequence only */
    }
}

/* torch's zero-state run [Shape Gather Unsqueeze Concat Expand] (Constants
 * aside) starting at ref[i]? */
static gboolean
zero_state_run (GPtrArray *ref, guint i)
{
  static const char *const run[] = { "Shape", "Gather", "Unsqueeze", "Concat", "Expand" };
  if (i + G_N_ELEMENTS (run) > ref->len)
    return FALSE;
  for (guint k = 0; k < G_N_ELEMENTS (run); k++)
    if (strcmp (json_object_get_string_member (ref->pdata[i + k], "op_type"), run[k]) != 0)
      return FALSE;
  return TRUE;
}

/* Our non-Constant nodes against torch's, in order; NULL when equal.
 * zero_states: first drop torch's zero-state runs and our ConstantOfShape
 * nodes (as many of each), see the zero_states kind of tests/fixtures/torch-diffs.json. */
static char *
compare_nodes (const Graph *g, JsonArray *ref_array, gboolean zero_states)
{
  g_autoptr (GPtrArray) ours = g_ptr_array_new ();
  g_autoptr (GPtrArray) ref = g_ptr_array_new ();
  graph_foreach_node ((Graph *) g, n)
    if (!graph_node_is (n, "onnx::Constant"))
      g_ptr_array_add (ours, n);
  for (guint i = 0; i < json_array_get_length (ref_array); i++)
    {
      JsonObject *r = json_array_get_object_element (ref_array, i);
      if (strcmp (json_object_get_string_member (r, "op_type"), "Constant") != 0)
        g_ptr_array_add (ref, r);
    }
  if (zero_states)
    {
      guint runs = 0, dropped = 0;
      for (guint i = 0; i < ref->len;)
        if (zero_state_run (ref, i))
          {
            g_ptr_array_remove_range (ref, i, 5);
            runs++;
          }
        else
          i++;
      for (guint i = 0; i < ours->len;)
        if (strcmp (graph_node_op_type (ours->pdata[i]), "ConstantOfShape") == 0)
          {
            g_ptr_array_remove_index (ours, i);
            dropped++;
          }
        else
          i++;
      if (runs == 0 || runs != dropped)
        return g_strdup_printf ("%u ConstantOfShape for torch's %u zero-state computations",
                                dropped, runs);
    }
  for (guint i = 0; i < ref->len; i++)
    {
      JsonObject *r = ref->pdata[i];
      const char *op = json_object_get_string_member (r, "op_type");
      if (i >= ours->len)
        return g_strdup_printf ("missing node %s", op);
      GraphNode *n = ours->pdata[i];
      if (strcmp (graph_node_op_type (n), op) != 0)
        return g_strdup_printf ("node %s where torch has %s", graph_node_op_type (n), op);
      JsonObject *attrs = json_object_get_object_member (r, "attrs");
      g_autoptr (GList) names = json_object_get_members (attrs);
      if (json_object_get_size (attrs) != graph_node_n_attrs (n))
        return g_strdup_printf ("%s has %u attributes, torch %u", op, graph_node_n_attrs (n),
                                json_object_get_size (attrs));
      for (GList *l = names; l; l = l->next)
        if (!attr_matches (n, l->data, json_object_get_member (attrs, l->data)))
          return g_strdup_printf ("%s attribute %s differs", op, (const char *) l->data);
    }
  return ours->len > ref->len
    ? g_strdup_printf ("extra node %s", graph_node_op_type (ours->pdata[ref->len])) : NULL;
}

/* Cases with CASE.input_N.npy (the RNNs): run our export with the executor
 * on torch's inputs and compare with torch's outputs CASE.expected_N.npy
 * (shapes and types only for random_cases[]).
 * FALSE when the case has no such files. */
/* The quantized cases' tolerance: one quantization step of the output
 * ("quant_atol" in CASE.json, the scale PyTorch's output was dequantized
 * with; rounding a value half a step away can differ by one step); 0 for
 * other cases. */
static double
quant_atol (const char *dir, const char *cas)
{
  g_autofree char *jp = g_strdup_printf ("%s/%s.json", dir, cas);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (parser, jp, &error));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  return json_object_has_member (o, "quant_atol") ? json_object_get_double_member (o, "quant_atol") : 0;
}

static gboolean
check_numeric (Graph *g, const char *dir, const char *cas, const char *opset)
{
  g_autofree char *first = g_strdup_printf ("%s/%s.input_0.npy", dir, cas);
  if (!g_file_test (first, G_FILE_TEST_EXISTS))
    return FALSE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                         (GDestroyNotify) tensor_unref);
  guint bound = 0;
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      GraphValue *in = graph_input (g, i);
      if (graph_value_get_initializer (in))
        continue;
      g_autofree char *p = g_strdup_printf ("%s/%s.input_%u.npy", dir, cas, bound++);
      Tensor *t = export_npy_load (p, &error);
      g_assert_no_error (error);
      g_hash_table_insert (inputs, (gpointer) graph_value_get_name (in), t);
    }
  g_autofree char *extra = g_strdup_printf ("%s/%s.input_%u.npy", dir, cas, bound);
  if (g_file_test (extra, G_FILE_TEST_EXISTS))
    g_error ("%s at opset %s: the export has %u inputs, torch more", cas, opset, bound);
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) outs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) tensor_unref);
  if (!rt_session_run (s, inputs, outs, &error))
    g_error ("%s at opset %s: run failed: %s", cas, opset, error->message);
  for (guint i = 0;; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/%s.expected_%u.npy", dir, cas, i);
      if (!g_file_test (p, G_FILE_TEST_EXISTS))
        {
          g_assert_cmpuint (i, ==, graph_n_outputs (g));
          break;
        }
      g_assert_cmpuint (i, <, graph_n_outputs (g));
      g_autoptr (Tensor) e = export_npy_load (p, &error);
      g_assert_no_error (error);
      Tensor *a = g_hash_table_lookup (outs, graph_value_get_name (graph_output (g, i)));
      g_assert_nonnull (a);
      gboolean same_shape = tensor_rank (a) == tensor_rank (e);
      for (guint d = 0; same_shape && d < tensor_rank (e); d++)
        same_shape = tensor_dim (a, d) == tensor_dim (e, d);
      if (!same_shape)
        g_error ("%s at opset %s: output %u has another shape than torch's", cas, opset, i);
      if (tensor_dtype (a) != tensor_dtype (e))
        g_error ("%s at opset %s: output %u is of type %d, torch's %d", cas, opset, i,
                 (int) tensor_dtype (a), (int) tensor_dtype (e));
      if (is_random_case (cas))
        continue;   /* shapes and types only (random_cases[]) */
      double qatol = quant_atol (dir, cas);
      for (gint64 k = 0; k < tensor_numel (e); k++)
        {
          double x = tensor_get_double (a, k), y = tensor_get_double (e, k);
          if (!(fabs (x - y) <= 1e-5 + 1e-4 * fabs (y) + qatol))
            g_error ("%s at opset %s: output %u element %" G_GINT64_FORMAT " is %g, torch %g",
                     cas, opset, i, k, x, y);
        }
    }
  return TRUE;
}

/* Several threads export the torch-reference traces at the same time
 * through one shared registry (fresh, so the first lookups of every opset
 * race), and each result must be the graph a single thread exports.  Run
 * under ASan/TSan this also checks the registry's built-in hashes are
 * built and read safely (Note [Built-in hashes are shared]). */
#define THREAD_CASES 6
#define N_THREADS 4

typedef struct
{
  SymRegistry *reg;
  Graph       *traces[THREAD_CASES];
  GHashTable  *weights[THREAD_CASES];
  char        *expected[THREAD_CASES][SYM_OPSET_MAX + 1];
  guint        seed;
} ThreadJob;

static char *
export_text (Graph *trace, GHashTable *w, SymRegistry *reg, int opset)
{
  ExportOptions o;
  export_options_init (&o);
  o.opset = opset;
  o.weights = w;
  o.registry = reg;
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  export_options_clear (&o);
  return g ? graph_to_string (g) : g_strdup_printf ("error: %s", error->message);
}

static gpointer
thread_exports (gpointer data)
{
  ThreadJob *job = ((ThreadJob **) data)[0];
  guint t = GPOINTER_TO_UINT (((gpointer *) data)[1]);
  guint mismatches = 0;
  /* each thread walks the opsets in its own order */
  for (int k = 0; k <= SYM_OPSET_MAX - SYM_OPSET_MIN; k++)
    {
      int opset = SYM_OPSET_MIN + (k + (int) t * 3) % (SYM_OPSET_MAX - SYM_OPSET_MIN + 1);
      for (guint c = 0; c < THREAD_CASES; c++)
        {
          g_autofree char *got = export_text (job->traces[c], job->weights[c], job->reg, opset);
          if (g_strcmp0 (got, job->expected[c][opset]) != 0)
            mismatches++;
        }
    }
  return GUINT_TO_POINTER (mismatches);
}

static void
test_registry_threads (void)
{
  static const char *const cases[THREAD_CASES] = { "elu", "lstm_bi", "sum_keepdim", "new_zeros_ones",
                                                    "conv2d", "layer_norm" };
  g_autofree char *dir = test_source_path ("tests/fixtures/symbolic");
  ThreadJob job = { 0 };
  g_autoptr (SymRegistry) single = sym_registry_new ();
  for (guint c = 0; c < THREAD_CASES; c++)
    {
      g_autofree char *tp = g_strdup_printf ("%s/%s.trace", dir, cases[c]);
      g_autofree char *wp = g_strdup_printf ("%s/%s.safetensors", dir, cases[c]);
      g_autoptr (GError) error = NULL;
      job.traces[c] = graph_parse_file (tp, &error);
      g_assert_no_error (error);
      job.weights[c] = export_safetensors_load (wp, &error);
      g_assert_no_error (error);
      for (int opset = SYM_OPSET_MIN; opset <= SYM_OPSET_MAX; opset++)
        job.expected[c][opset] = export_text (job.traces[c], job.weights[c], single, opset);
      /* every case exports at opset 14, so the threads compare real graphs */
      g_assert_false (g_str_has_prefix (job.expected[c][14], "error:"));
      g_assert_nonnull (strstr (job.expected[c][14], "onnx::"));
    }
  job.reg = sym_registry_new ();
  GThread *threads[N_THREADS];
  gpointer args[N_THREADS][2];
  ThreadJob *jp = &job;
  for (guint t = 0; t < N_THREADS; t++)
    {
      args[t][0] = jp;
      args[t][1] = GUINT_TO_POINTER (t);
      threads[t] = g_thread_new ("export", thread_exports, args[t]);
    }
  guint mismatches = 0;
  for (guint t = 0; t < N_THREADS; t++)
    mismatches += GPOINTER_TO_UINT (g_thread_join (threads[t]));
  g_assert_cmpuint (mismatches, ==, 0);
  sym_registry_unref (job.reg);
  for (guint c = 0; c < THREAD_CASES; c++)
    {
      graph_free (job.traces[c]);
      g_hash_table_unref (job.weights[c]);
      for (int opset = SYM_OPSET_MIN; opset <= SYM_OPSET_MAX; opset++)
        g_free (job.expected[c][opset]);
    }
}

/* One test path per (case, opset): /symbolic/torch-refs/CASE/OPSET, so
 * `-p /symbolic/torch-refs/elu/13` runs one.  The totals and the batch
 * onnx.checker run are /symbolic/torch-refs-all/summary, after them. */
typedef struct
{
  char     *cas, *opset;
  gboolean  beyond;   /* torch cannot export it at this opset */
} RefCase;

static struct
{
  char      *dir, *outdir;
  GPtrArray *files;
  guint      registered, compared, matched, known, numeric, beyond, random;
} refs;

static void
ref_case_free (gpointer p)
{
  RefCase *rc = p;
  g_free (rc->cas);
  g_free (rc->opset);
  g_free (rc);
}

static void
test_torch_ref_case (gconstpointer data)
{
  const RefCase *rc = data;
  const char *cas = rc->cas, *opset = rc->opset, *dir = refs.dir;
  g_autofree char *jp = g_strdup_printf ("%s/%s.json", dir, cas);
  g_autofree char *tp = g_strdup_printf ("%s/%s.trace", dir, cas);
  g_autofree char *wp = g_strdup_printf ("%s/%s.safetensors", dir, cas);
  g_autoptr (JsonParser) jparser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (jparser, jp, &error));
  JsonObject *opsets = json_object_get_object_member (json_node_get_object (json_parser_get_root (jparser)), "opsets");
  g_autoptr (Graph) trace = graph_parse_file (tp, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) w = export_safetensors_load (wp, &error);
  g_assert_no_error (error);
  JsonNode *ref = json_object_get_member (opsets, opset);
  g_assert_nonnull (ref);
  ExportOptions o;
  export_options_init (&o);
  o.opset = atoi (opset);
  o.weights = w;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  export_options_clear (&o);
  if (rc->beyond)
    {
      /* torch cannot export this op at this opset: where we can, the
       * export must run to PyTorch's outputs */
      if (g == NULL)
        {
          const char *why_refused = known_refusal (cas, opset);
          if (why_refused == NULL)
            g_error ("%s at opset %s: torch cannot export it and neither can we: %s (export it, or "
                     "list it in the refusals of tests/fixtures/torch-diffs.json with the reason)", cas,
                     opset, error->message);
          g_test_message ("refused, as torch (%s): %s", why_refused, error->message);
          return;
        }
      if (known_refusal (cas, opset))
        g_error ("%s at opset %s now exports: remove it from the refusals of "
                 "tests/fixtures/torch-diffs.json", cas, opset);
      assert_lint (g);
      if (!check_numeric (g, dir, cas, opset))
        g_error ("%s at opset %s: exported where torch cannot, but has no PyTorch "
                 "outputs to run against", cas, opset);
      if (is_random_case (cas))
        refs.random++;
      refs.beyond++;
      return;
    }
  const Diff *kd = known_diff (cas, opset);
  const char *why = kd ? kd->why : NULL;
  gboolean invalid = kd && strcmp (kd->kind, "invalid") == 0;
  refs.compared++;
  if (g == NULL)
    {
      if (why)
        {
          refs.known++;
          return;
        }
      g_error ("%s at opset %s: export failed: %s", cas, opset, error->message);
    }
  assert_lint (g);
  gboolean zero_states = kd && strcmp (kd->kind, "zero_states") == 0;
  g_autofree char *diff = compare_nodes (g, json_node_get_array (ref), FALSE);
  if (diff && zero_states)
    {
      /* the difference must be the zero states and nothing else */
      g_autofree char *rest = compare_nodes (g, json_node_get_array (ref), TRUE);
      if (rest)
        g_error ("%s at opset %s differs from torch.onnx.export beyond the zero "
                 "states: %s", cas, opset, rest);
    }
  if (!numeric_skip (cas, opset) && check_numeric (g, dir, cas, opset))
    {
      if (is_random_case (cas))
        refs.random++;
      else
        refs.numeric++;
    }
  if (diff && !why)
    g_error ("%s at opset %s differs from torch.onnx.export: %s", cas, opset, diff);
  /* ("invalid" entries match torch; they only keep the file from the checker) */
  if (!diff && why && !invalid)
    g_error ("%s at opset %s now matches torch.onnx.export: remove it from "
             "tests/fixtures/torch-diffs.json and regenerate doc/symbolic.md", cas, opset);
  if (diff)
    refs.known++;
  else
    refs.matched++;
  if (!invalid)
    {
      if (refs.outdir == NULL)   /* made by the first case, removed by the summary */
        refs.outdir = g_dir_make_tmp ("symonnx-refs-XXXXXX", NULL);
      g_autofree char *out = g_strdup_printf ("%s/%s_%s.onnx", refs.outdir, cas, opset);
      g_assert_true (onnxio_save (g, out, NULL, &error));
      g_assert_no_error (error);
      g_ptr_array_add (refs.files, g_steal_pointer (&out));
    }
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
register_torch_refs (void)
{
  refs.dir = test_source_path ("tests/fixtures/symbolic");
  refs.files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (refs.dir, 0, NULL);
  g_assert_nonnull (d);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *f;
  while ((f = g_dir_read_name (d)))
    if (g_str_has_suffix (f, ".json"))
      g_ptr_array_add (names, g_strndup (f, strlen (f) - 5));
  g_ptr_array_sort (names, compare_strings);
  g_assert_cmpuint (names->len, >=, 60);
  /* a random case that lost its fixtures would leave a stale entry */
  for (guint i = 0; i < G_N_ELEMENTS (random_cases); i++)
    {
      g_autofree char *rp = g_strdup_printf ("%s/%s.expected_0.npy", refs.dir, random_cases[i]);
      if (!g_file_test (rp, G_FILE_TEST_EXISTS))
        g_error ("random_cases[] names %s, which has no fixtures", random_cases[i]);
    }
  for (guint k = 0; k < names->len; k++)
    {
      const char *cas = names->pdata[k];
      g_autofree char *jp = g_strdup_printf ("%s/%s.json", refs.dir, cas);
      g_autoptr (JsonParser) jparser = json_parser_new ();
      g_autoptr (GError) error = NULL;
      g_assert_true (json_parser_load_from_file (jparser, jp, &error));
      JsonObject *opsets = json_object_get_object_member (json_node_get_object (json_parser_get_root (jparser)), "opsets");
      g_autoptr (GList) ops = json_object_get_members (opsets);
      for (GList *l = ops; l; l = l->next)
        {
          RefCase *rc = g_new0 (RefCase, 1);
          rc->cas = g_strdup (cas);
          rc->opset = g_strdup (l->data);
          /* an object, not a node list: torch cannot export this op here */
          rc->beyond = JSON_NODE_HOLDS_OBJECT (json_object_get_member (opsets, l->data));
          g_autofree char *path = g_strdup_printf ("/symbolic/torch-refs/%s/%s", cas, rc->opset);
          g_test_add_data_func_full (path, rc, test_torch_ref_case, ref_case_free);
          if (!rc->beyond)
            refs.registered++;
        }
    }
}

/* tools/gen_torch_diffs_doc.py --check with this run's counts. */
static void
check_generated_docs (void)
{
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_message ("no /usr/bin/python3: generated docs not checked");
      return;
    }
  g_autofree char *script = test_source_path ("tools/gen_torch_diffs_doc.py");
  g_autofree char *counts = g_strdup_printf ("%u,%u,%u,%u,%u", refs.compared, refs.matched, refs.known,
                                             refs.numeric, refs.beyond);
  const char *argv[] = { "/usr/bin/python3", script, "--counts", counts, "--check", NULL };
  g_autofree char *out = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL,
                               &status, &error));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s", out);
}

static void
test_torch_refs_summary (void)
{
  g_autoptr (GPtrArray) files = g_steal_pointer (&refs.files);
  g_autofree char *outdir = g_steal_pointer (&refs.outdir);
  g_autofree char *dir = g_steal_pointer (&refs.dir);
  if (refs.compared == 0)
    {
      g_test_skip ("no /symbolic/torch-refs/ case ran");
      return;
    }
  g_test_message ("%u exports compared with torch 1.13: %u identical, %u documented differences; "
                  "%u run and equal to torch's outputs; %u exports where torch has none, run and "
                  "equal to PyTorch's outputs; %u runs of random ops (random_cases[]) checked for "
                  "output shapes and types only", refs.compared, refs.matched, refs.known,
                  refs.numeric, refs.beyond, refs.random);
  g_assert_cmpuint (refs.matched, >=, refs.compared - refs.known);
  if (refs.compared == refs.registered)
    {
      /* the whole set ran (not a -p selection): its floor, and the counts
       * and tables in doc/symbolic.md and README.md must be these */
      g_assert_cmpuint (refs.numeric, >=, 13 * 4);
      g_assert_cmpuint (refs.matched, >, 200);
      check_generated_docs ();
    }

  /* onnx.checker.check_model(full_check=True) on every file, one process. */
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_message ("no /usr/bin/python3: checker not run");
      return;
    }
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, "/usr/bin/python3");
  g_ptr_array_add (argv, "-c");
  g_ptr_array_add (argv, "import sys, onnx\nbad = 0\nfor p in sys.argv[1:]:\n"
                         "    try: onnx.checker.check_model(onnx.load(p), full_check=True)\n"
                         "    except Exception as e: bad += 1; print(p, str(e).splitlines()[0])\n"
                         "print('checked', len(sys.argv) - 1, 'bad', bad)\nsys.exit(1 if bad else 0)\n");
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (argv, files->pdata[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_test_message ("checker: %s%s", out, err);
  if (err && strstr (err, "No module named"))
    {
      g_test_message ("python3-onnx missing: checker not run");
      return;
    }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  for (guint i = 0; i < files->len; i++)
    g_unlink (files->pdata[i]);
  g_rmdir (outdir);
}

/* aten::conv_transpose1d and aten::convolution, which traces do not record
 * (they record _convolution): torch's symbolics for them call _convolution,
 * so the conv_transpose1d_fn trace rewritten to use them must export to
 * torch's nodes for the _convolution original, and run to its outputs. */
static void
test_conv_aliases (void)
{
  g_autofree char *dir = test_source_path ("tests/fixtures/symbolic");
  g_autofree char *tp = g_build_filename (dir, "conv_transpose1d_fn.trace", NULL);
  g_autofree char *jp = g_build_filename (dir, "conv_transpose1d_fn.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (tp, &text, NULL, &error));
  static const char orig[] = "aten::_convolution(%x, %w, %3, %5, %7, %9, %10, %12, %13, %14, %15, %16, %17)";
  /* conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation) */
  static const char *const alias[] = { "aten::conv_transpose1d(%x, %w, %3, %5, %7, %12, %13, %9)",
                                       "aten::convolution(%x, %w, %3, %5, %7, %9, %10, %12, %13)" };
  g_assert_nonnull (strstr (text, orig));
  g_autoptr (JsonParser) jparser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (jparser, jp, &error));
  JsonObject *opsets = json_object_get_object_member (json_node_get_object (json_parser_get_root (jparser)), "opsets");
  for (guint k = 0; k < G_N_ELEMENTS (alias); k++)
    {
      g_auto (GStrv) parts = g_strsplit (text, orig, 2);
      g_autofree char *t = g_strconcat (parts[0], alias[k], parts[1], NULL);
      g_autoptr (Graph) trace = graph_parse (t, strlen (t), "alias", &error);
      g_assert_no_error (error);
      ExportOptions o;
      export_options_init (&o);
      o.opset = 11;
      g_autoptr (Graph) g = export_graph (trace, &o, &error);
      export_options_clear (&o);
      g_assert_no_error (error);
      g_autofree char *diff = compare_nodes (g, json_object_get_array_member (opsets, "11"), FALSE);
      if (diff)
        g_error ("%s: %s", alias[k], diff);
      g_assert_true (check_numeric (g, dir, "conv_transpose1d_fn", "11"));
    }
}

/* aten::_cast_BFloat16 (torch's _cast family lists it; torch 1.13 has no
 * such operator, so no torch reference): Cast to=16 from opset 13, where
 * ONNX's Cast takes bfloat16, refused before.  Values bfloat16 holds
 * exactly come back unchanged through float → bfloat16 → float. */
static void
test_cast_bfloat16 (void)
{
  static const char text[] =
    "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
    "  %1 : bool = prim::Constant[value=0]()\n"
    "  %2 : BFloat16(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::_cast_BFloat16(%x, %1)\n"
    "  %3 : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::_cast_Float(%2, %1)\n"
    "  return (%3)\n";
  g_autoptr (Graph) trace = parse (text);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) old = export_with (trace, NULL, SYM_MODE_ONNX, 12, &error);
  g_assert_null (old);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "bfloat16 (ONNX's Cast has it from opset 13)"));
  g_clear_error (&error);
  g_autoptr (Graph) g = export_with (trace, NULL, SYM_MODE_ONNX, 13, &error);
  g_assert_no_error (error);
  g_autofree char *ops = op_list (g);
  g_assert_cmpstr (ops, ==, "Cast Cast");
  gint64 to = 0;
  g_assert_true (graph_node_get_i (nth_node (g, 0), "to", &to));
  g_assert_cmpint (to, ==, 16);
  static const float x[6] = { 1.5f, -2.0f, 0.25f, 3.0f, 0.0f, -0.0078125f };
  const gint64 dims[2] = { 2, 3 };
  Tensor *in = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, dims, x, sizeof x, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                         (GDestroyNotify) tensor_unref);
  g_hash_table_insert (inputs, (gpointer) graph_value_get_name (graph_input (g, 0)), in);
  g_autoptr (RtSession) sess = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) outs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) tensor_unref);
  g_assert_true (rt_session_run (sess, inputs, outs, &error));
  g_assert_no_error (error);
  Tensor *y = g_hash_table_lookup (outs, graph_value_get_name (graph_output (g, 0)));
  g_assert_nonnull (y);
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    g_assert_cmpfloat (tensor_get_double (y, i), ==, x[i]);
}

/* aten::is_pinned (scripted code; a trace never records its bool): no
 * node while nothing reads it, as torch's symbolic (which returns None);
 * a use of it refused. */
static void
test_is_pinned (void)
{
  static const char unused[] =
    "graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %1 : NoneType = prim::Constant()\n"
    "  %2 : bool = aten::is_pinned(%x, %1)\n"
    "  %3 : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::relu(%x)\n"
    "  return (%3)\n";
  static const char used[] =
    "graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %1 : NoneType = prim::Constant()\n"
    "  %2 : bool = aten::is_pinned(%x, %1)\n"
    "  %3 : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::relu(%x)\n"
    "  return (%3, %2)\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) t1 = parse (unused);
  g_autoptr (Graph) g = export_with (t1, NULL, SYM_MODE_ONNX, 13, &error);
  g_assert_no_error (error);
  g_autofree char *ops = op_list (g);
  g_assert_cmpstr (ops, ==, "Relu");
  g_autoptr (Graph) t2 = parse (used);
  g_autoptr (Graph) g2 = export_with (t2, NULL, SYM_MODE_ONNX, 13, &error);
  g_assert_null (g2);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "a use of is_pinned's result"));
}

/* The registry against torch 1.13's, computed now from torch's own registry
 * by tools/op_coverage.py: every aten name torch exports at an opset is
 * exported by symonnx at that opset or listed in
 * tests/fixtures/symbolic/coverage-not-yet.txt (and a listed name that is
 * covered fails, so the list only shrinks); doc/symbolic-ops.md is what the
 * script prints. */
static void
test_coverage_torch (void)
{
  const char *cli = g_getenv ("SYMONNX_CLI");
  if (cli == NULL || !g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("SYMONNX_CLI not set or no /usr/bin/python3");
      return;
    }
  g_autofree char *script = test_source_path ("tools/op_coverage.py");
  const char *argv[] = { "/usr/bin/python3", script, "--cli", cli, "--check", NULL };
  g_autofree char *out = NULL;
  int status;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL,
                               &status, &error));
  g_test_message ("%s", out);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_test_skip ("torch is not installed");
      return;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("coverage against torch 1.13 failed:\n%s", out);
}

/* Every refusal in symbolic/ carries a "torch 1.13: ..." comment saying
 * what torch does in the same case (also refuses / not yet here / refused
 * here because), and doc/refusals.md is the table tools/gen_refusals_doc.py
 * makes of them: a site without one, or a stale doc, fails. */
static void
test_refusals_doc (void)
{
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  g_autofree char *script = test_source_path ("tools/gen_refusals_doc.py");
  const char *argv[] = { "/usr/bin/python3", script, "--check", NULL };
  g_autofree char *out = NULL;
  int status;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, &error));
  g_test_message ("%s", out);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("refusal annotations or doc/refusals.md out of date:\n%s", out);
}

void test_fold_register (void);
void test_seed_models_register (void);

/* sym_parse_args over a PythonOp's arguments (Note [PythonOp arguments]):
 * the scalar literals PyTorch prints, in call order from cconv, or after
 * the tensors without it. */
typedef struct
{
  double   alpha;
  gsize    n_dims;
  gint64   dims[4];
  char    *tag;
  gboolean flag;
  gboolean none_ok;
} PyArgs;

static gboolean
record_py_args (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  PyArgs *r = sym_user_data (ctx);
  GraphValue *x, *y;
  const gint64 *dims;
  const char *tag;
  if (!sym_parse_args (ctx, n, "v,f,is,none,v,s,b", &x, &r->alpha, &r->n_dims, &dims, &y, &tag,
                       &r->flag, error))
    return FALSE;
  memcpy (r->dims, dims, MIN (r->n_dims, 4) * sizeof (gint64));
  r->tag = g_strdup (tag);
  out[0] = graph_op (sym_graph (ctx), "Add", x, y, NULL);
  return TRUE;
}

static gboolean
wants_int (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  gint64 k;
  (void) out;
  return sym_parse_args (ctx, n, "v,i", &x, &k, error);
}

static gboolean
string_arg (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  char **got = sym_user_data (ctx);
  GraphValue *x;
  const char *s;
  if (!sym_parse_args (ctx, n, "v,s", &x, &s, error))
    return FALSE;
  *got = g_strdup (s);
  out[0] = graph_op (sym_graph (ctx), "Identity", x, NULL);
  return TRUE;
}

static void
test_python_op_args (void)
{
  static const char *const texts[] = {
    "graph(%x : Float(2), %y : Float(2)):\n"
    "  %o : Float(2) = ^F[cconv=\"dccdcc\"](0.5, (1, -2), None, 'a,b', True)(%x, %y)\n"
    "  return (%o)\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (Graph) trace = parse (texts[i]);
      g_autoptr (SymRegistry) reg = sym_registry_new ();
      PyArgs r = { 0 };
      g_assert_true (sym_register (reg, "prim::PythonOp::F", 9, record_py_args, &r));
      g_autoptr (GError) error = NULL;
      g_autoptr (Graph) g = export_with (trace, reg, SYM_MODE_ONNX, 14, &error);
      /* cconv "dccdcc" names 4 scalars for the 5 printed: refused, named */
      g_assert_null (g);
      g_assert_nonnull (strstr (error->message, "calling convention"));
      g_free (r.tag);
    }
  g_autoptr (Graph) trace = parse ("graph(%x : Float(2), %y : Float(2)):\n"
                                   "  %o : Float(2) = ^F[cconv=\"dcccdcc\"](0.5, (1, -2), None, 'a,b', True)(%x, %y)\n"
                                   "  return (%o)\n");
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  PyArgs r = { 0 };
  g_assert_true (sym_register (reg, "prim::PythonOp::F", 9, record_py_args, &r));
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_with (trace, reg, SYM_MODE_ONNX, 14, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (r.alpha, ==, 0.5);
  g_assert_cmpuint (r.n_dims, ==, 2);
  g_assert_cmpint (r.dims[0], ==, 1);
  g_assert_cmpint (r.dims[1], ==, -2);
  g_assert_cmpstr (r.tag, ==, "a,b");
  g_assert_true (r.flag);
  g_free (r.tag);

  /* no cconv: the tensors first, then the scalars */
  g_autoptr (Graph) t2 = parse ("graph(%x : Float(2)):\n"
                                "  %o : Float(2) = ^G[](1.5, x.shape)(%x)\n"
                                "  return (%o)\n");
  g_autoptr (SymRegistry) reg2 = sym_registry_new ();
  g_assert_true (sym_register (reg2, "prim::PythonOp::G", 9, wants_int, NULL));
  g_autoptr (Graph) g2 = export_with (t2, reg2, SYM_MODE_ONNX, 14, &error);
  g_assert_null (g2);
  /* 1.5 is not an int: named by argument number */
  g_assert_nonnull (strstr (error->message, "argument 1 must be a constant int"));
  g_clear_error (&error);

  /* literals it does not read (a mixed tuple, an expression, a dict) stay
   * text, whole: a string argument gets them as written */
  static const struct
  {
    const char *args, *want;
  } odd[] = {
    { "(1, 'a')", "(1, 'a')" },
    { "x.shape[0] + 1", "x.shape[0] + 1" },
    { "{1: 2}", "{1: 2}" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (odd); i++)
    {
      g_autofree char *text = g_strdup_printf ("graph(%%x : Float(2)):\n"
                                               "  %%o : Float(2) = ^H[cconv=\"dc\"](%s)(%%x)\n"
                                               "  return (%%o)\n", odd[i].args);
      g_autoptr (Graph) t3 = parse (text);
      g_autoptr (SymRegistry) reg3 = sym_registry_new ();
      char *got = NULL;
      g_assert_true (sym_register (reg3, "prim::PythonOp::H", 9, string_arg, &got));
      g_autoptr (Graph) g3 = export_with (t3, reg3, SYM_MODE_ONNX, 14, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, odd[i].want);
      g_free (got);
    }
}

/* Every aten name the built-in registry has is checked against a schema
 * before its symbolic runs (torch's generated table, or the few names no
 * schema defines): a node of a name with neither had its inputs read
 * unchecked (aten::int() with no input: a GLib critical). */
static void
test_schemas_every_registered_name (void)
{
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  g_autoptr (GPtrArray) names = sym_registry_list (reg);
  guint aten = 0;
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      if (!g_str_has_prefix (name, "aten::"))
        continue;
      aten++;
      if (sym_aten_arity (name) == NULL)
        g_error ("%s has a symbolic but no schema entry (add it to extra_arities in symbolic/aten-schemas.c)",
                 name);
    }
  g_assert_cmpuint (aten, >, 300);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  wrong_results_tests_add ();
  test_fold_register ();
  test_seed_models_register ();
  g_test_add_func ("/symbolic/registry/lookup", test_registry_lookup);
  g_test_add_func ("/symbolic/pipeline/weight-in-branches", test_pipeline_weight_in_branches);
  g_test_add_func ("/symbolic/pipeline/if-ranks-differ", test_pipeline_if_ranks_differ);
  g_test_add_func ("/symbolic/pipeline/set-attr", test_pipeline_set_attr);
  g_test_add_func ("/symbolic/registry/threads", test_registry_threads);
  g_test_add_func ("/symbolic/schemas/every-registered-name", test_schemas_every_registered_name);
  g_test_add_func ("/symbolic/seed/elu", test_seed_elu);
  g_test_add_func ("/symbolic/seed/myfunction-pow-ones", test_seed_myfunction);
  g_test_add_func ("/symbolic/export/collect-all", test_collect_all);
  g_test_add_func ("/symbolic/export/module", test_pipeline_module);
  g_test_add_func ("/symbolic/plugin", test_plugin);
  load_torch_diffs ();
  register_torch_refs ();
  g_test_add_func ("/symbolic/torch-refs-all/summary", test_torch_refs_summary);
  g_test_add_func ("/symbolic/conv-aliases", test_conv_aliases);
  g_test_add_func ("/symbolic/cast-bfloat16", test_cast_bfloat16);
  g_test_add_func ("/symbolic/is-pinned", test_is_pinned);
  g_test_add_func ("/symbolic/coverage-torch", test_coverage_torch);
  g_test_add_func ("/symbolic/refusals-doc", test_refusals_doc);
  g_test_add_func ("/symbolic/python-op-args", test_python_op_args);
  int status = g_test_run ();
  /* A run of single cases (-p) skips the summary, which removes the files
   * the cases wrote for the checker: remove them here. */
  if (refs.outdir)
    {
      for (guint i = 0; refs.files && i < refs.files->len; i++)
        g_unlink (refs.files->pdata[i]);
      g_rmdir (refs.outdir);
      g_clear_pointer (&refs.outdir, g_free);
    }
  g_clear_pointer (&refs.files, g_ptr_array_unref);
  g_clear_pointer (&refs.dir, g_free);
  for (guint t = 0; t < G_N_ELEMENTS (diff_tables); t++)
    g_clear_pointer (&diff_tables[t], g_hash_table_unref);
  return status;
}
