/* Lists changed in place by scripted code (Note [List mutations],
 * symbolic/list-mutations.c), on the torch-refs cases script_list_* of
 * tests/fixtures/symbolic (made by tools/gen_symbolic_refs.py from eager
 * PyTorch: CASE.input_0.npy, CASE.expected_N.npy):
 * - exported in --mode aten and --mode aten-fallback (every aten op an ATen
 *   node, or only those without a symbolic): no node for a list change is
 *   written, and the readers' ATen nodes read the folded lists — run in the
 *   executor and compared with PyTorch;
 * - the trace itself run by the executor (verify_runnable_trace), compared
 *   with PyTorch;
 * - export_graph_with_origins names the caller's trace nodes, not the
 *   folded copy's;
 * - what the fold leaves is refused in every mode, with its reason;
 * - thousands of changes fold into one construction, and a list read
 *   between each of them is refused (the size guard);
 * - a block returning the list returns its folded state. */
#include "test-lists.h"
#include "tests/common/test-fixtures.h"
#include "symonnx.h"
#include "export/tensorfiles.h"
#include "symbolic/translate.h"
#include <math.h>
#include <string.h>

#define DIR "tests/fixtures/symbolic/"

static const char *const cases[] = {
  "script_list_append", "script_list_insert", "script_list_pop", "script_list_delete",
  "script_list_set_item",
};

static Tensor *
fixture_npy (const char *cas, const char *what)
{
  g_autofree char *rel = g_strdup_printf (DIR "%s.%s.npy", cas, what);
  return test_npy_or_null (rel);
}

static Graph *
load_trace (const char *cas)
{
  g_autofree char *rel = g_strdup_printf (DIR "%s.trace", cas);
  return test_trace_load (rel);
}

/* Runs g on the case's input and compares every output with PyTorch's. */
static void
run_and_compare (Graph *g, const char *cas, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  if (s == NULL)
    g_error ("%s (%s): %s", cas, what, error->message);
  g_assert_cmpuint (rt_session_n_required_inputs (s), ==, 1);
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  Tensor *x = fixture_npy (cas, "input_0");
  g_assert_nonnull (x);
  g_hash_table_insert (inputs, g_strdup (graph_value_get_name (rt_session_required_input (s, 0))), x);
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  if (!rt_session_run (s, inputs, outputs, &error))
    g_error ("%s (%s) does not run: %s", cas, what, error->message);
  guint n = 0;
  for (;; n++)
    {
      g_autofree char *name = g_strdup_printf ("expected_%u", n);
      g_autoptr (Tensor) want = fixture_npy (cas, name);
      if (want == NULL)
        break;
      g_assert_cmpuint (n, <, graph_n_outputs (g));
      Tensor *got = g_hash_table_lookup (outputs, graph_value_get_name (graph_output (g, n)));
      g_assert_nonnull (got);
      g_assert_cmpuint (tensor_rank (got), ==, tensor_rank (want));
      for (guint k = 0; k < tensor_rank (want); k++)
        g_assert_cmpint (tensor_dims (got)[k], ==, tensor_dims (want)[k]);
      for (gint64 i = 0; i < tensor_numel (want); i++)
        {
          double a = tensor_get_double (got, i), e = tensor_get_double (want, i);
          if (!(fabs (a - e) <= 1e-5 + 1e-4 * fabs (e)))
            g_error ("%s (%s): output %u element %" G_GINT64_FORMAT " is %.9g, PyTorch gives %.9g",
                     cas, what, n, i, a, e);
        }
    }
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpuint (n, ==, graph_n_outputs (g));
}

static gboolean
is_change (const char *op)
{
  static const char *const ops[] = { "append", "insert", "pop", "Delete", "_set_item" };
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (op, ops[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
test_mode (const char *cas, SymMode mode)
{
  g_autoptr (Graph) trace = load_trace (cas);
  ExportOptions o;
  export_options_init (&o);
  o.opset = 13;
  o.mode = mode;
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  export_options_clear (&o);
  g_assert_no_error (error);
  guint n_aten = 0;
  graph_foreach_node (g, n)
    if (graph_node_is (n, "org.pytorch.aten::ATen"))
      {
        const char *op;
        g_assert_true (graph_node_get_s (n, "operator", &op, NULL));
        g_assert_false (is_change (op));
        n_aten++;
      }
  if (mode == SYM_MODE_ONNX_ATEN)
    g_assert_cmpuint (n_aten, >, 0);   /* the readers (cat, stack, reshape...) */
  run_and_compare (g, cas, sym_mode_name (mode));
}

static void
test_aten (gconstpointer data)
{
  test_mode (data, SYM_MODE_ONNX_ATEN);
}

static void
test_aten_fallback (gconstpointer data)
{
  test_mode (data, SYM_MODE_ONNX_ATEN_FALLBACK);
}

static void
test_trace_run (gconstpointer data)
{
  const char *cas = data;
  g_autoptr (Graph) trace = load_trace (cas);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) r = verify_runnable_trace (trace, NULL, &error);
  g_assert_no_error (error);
  run_and_compare (r, cas, "trace run");
}

/* Whether node n is one of g's own nodes (or of a block under them). */
static gboolean
node_in (const Graph *g, const GraphNode *n)
{
  graph_foreach_node (g, m)
    {
      if (m == n)
        return TRUE;
      for (guint a = 0; a < graph_node_n_attrs (m); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (m, graph_node_attr_name (m, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            if (node_in (subs[k], n))
              return TRUE;
        }
    }
  return FALSE;
}

/* The export translates a folded copy of the trace; the origins it reports
 * are the caller's trace nodes (verify --localize reads their outputs). */
static void
test_origins (void)
{
  g_autoptr (Graph) trace = load_trace ("script_list_pop");
  ExportOptions o;
  export_options_init (&o);
  o.opset = 13;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) origins = NULL;
  g_autoptr (Graph) g = export_graph_with_origins (trace, &o, &origins, &error);
  export_options_clear (&o);
  g_assert_no_error (error);
  g_assert_cmpuint (origins->len, >, 0);
  gboolean saw_cat = FALSE;
  for (guint i = 0; i < origins->len; i++)
    {
      ExportOrigin *x = origins->pdata[i];
      g_assert_true (node_in (trace, x->trace_node));
      saw_cat |= graph_node_is (x->trace_node, "aten::cat");
    }
  g_assert_true (saw_cat);
}

/* A change the fold cannot follow (a run-time index) is refused in every
 * mode, with the reason; no mode writes an ATen node for it. */
static const char refused_trace[] =
  "graph(%x : Float(2, 3)):\n"
  "  %one : int = prim::Constant[value=1]()\n"
  "  %zero : int = prim::Constant[value=0]()\n"
  "  %l : Tensor[] = prim::ListConstruct(%x, %x)\n"
  "  %s : Tensor = aten::sum(%x, %zero)\n"
  "  %i : int = aten::Int(%s)\n"
  "   = aten::insert(%l, %i, %x)\n"
  "  %y : Tensor = aten::cat(%l, %zero)\n"
  "  return (%y)\n";

static void
test_refused_every_mode (void)
{
  const SymMode modes[] = { SYM_MODE_ONNX, SYM_MODE_ONNX_ATEN, SYM_MODE_ONNX_ATEN_FALLBACK,
                            SYM_MODE_ONNX_FALLTHROUGH };
  g_autoptr (GError) perror = NULL;
  g_autoptr (Graph) trace = graph_parse (refused_trace, sizeof refused_trace - 1, "refused", &perror);
  g_assert_no_error (perror);
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    for (int opset = 9; opset <= 13; opset += 4)
      {
        ExportOptions o;
        export_options_init (&o);
        o.opset = opset;
        o.mode = modes[k];
        g_autoptr (GError) error = NULL;
        g_autoptr (Graph) g = export_graph (trace, &o, &error);
        export_options_clear (&o);
        g_assert_null (g);
        g_assert_nonnull (error);
        if (strstr (error->message, "aten::insert") == NULL
            || strstr (error->message, "the index %i is not a constant") == NULL)
          g_error ("%s at opset %d: %s", sym_mode_name (modes[k]), opset, error->message);
      }
  g_autoptr (GError) error = NULL;
  g_assert_null (verify_runnable_trace (trace, NULL, &error));
  g_assert_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN);
  g_assert_nonnull (strstr (error->message, "the index %i is not a constant"));
}

/* A list changed thousands of times: with nothing reading it between the
 * changes it folds into one construction (the export stacks 1501
 * elements); read between every two changes, the constructions would hold
 * over a million elements in all, and the fold refuses. */
static Graph *
many_changes (guint n, gboolean read_between)
{
  GString *t = g_string_new ("graph(%x : Float(2, 3)):\n  %zero : int = prim::Constant[value=0]()\n"
                             "  %l : Tensor[] = prim::ListConstruct(%x)\n");
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (t, "  %%r%u : Tensor[] = aten::append(%%l, %%x)\n", i);
      if (read_between)
        g_string_append_printf (t, "  %%n%u : int = aten::len(%%l)\n", i);
    }
  g_string_append (t, "  %y : Tensor = aten::stack(%l, %zero)\n  return (%y)\n");
  g_autoptr (GError) error = NULL;
  Graph *g = graph_parse (t->str, t->len, "many", &error);
  g_assert_no_error (error);
  g_string_free (t, TRUE);
  return g;
}

static void
test_many_changes (void)
{
  ExportOptions o;
  export_options_init (&o);
  o.opset = 13;
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) once = many_changes (1500, FALSE);
  g_autoptr (Graph) g = export_graph (once, &o, &error);
  g_assert_no_error (error);
  GraphType *t = graph_value_type (graph_output (g, 0));
  g_assert_cmpint (graph_type_rank (t), ==, 3);
  g_assert_cmpint (graph_type_dim (t, 0)->value, ==, 1501);
  g_autoptr (Graph) often = many_changes (1500, TRUE);
  g_autoptr (Graph) h = export_graph (often, &o, &error);
  export_options_clear (&o);
  g_assert_null (h);
  g_assert_nonnull (strstr (error->message, "the list is read between more changes than symonnx follows"));
}

/* A block that returns the list reads its last state: after the fold it
 * returns the construction of every element. */
static const char block_trace[] =
  "graph(%x : Float(2, 3)):\n"
  "  %two : int = prim::Constant[value=2]()\n"
  "  %t : bool = prim::Constant[value=1]()\n"
  "  %l : Tensor[] = prim::ListConstruct(%x)\n"
  "  %d : Tensor = aten::mul(%x, %two)\n"
  "  %r : Tensor[] = aten::append(%l, %d)\n"
  "  %o : Tensor[] = prim::ListConstruct(%d)\n"
  "  %m : Tensor[] = prim::If(%t)\n"
  "    block0():\n"
  "      -> (%l)\n"
  "    block1():\n"
  "      -> (%o)\n"
  "  return (%m)\n";

static void
test_block_returns (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = graph_parse (block_trace, sizeof block_trace - 1, "block", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sym_fold_list_mutations (g, NULL), ==, 1);
  g_assert_false (sym_graph_has_list_mutations (g));
  GraphNode *ifn = graph_value_node (graph_output (g, 0));
  Graph *b0 = NULL;
  g_assert_true (graph_node_get_g (ifn, "block0", &b0));
  GraphNode *c = graph_value_node (graph_output (b0, 0));
  g_assert_true (graph_node_is (c, "prim::ListConstruct"));
  g_assert_cmpuint (graph_node_n_inputs (c), ==, 2);
  g_assert_cmpstr (graph_value_get_name (graph_node_input (c, 0)), ==, "x");
  g_assert_cmpstr (graph_value_get_name (graph_node_input (c, 1)), ==, "d");
  g_assert_true (graph_lint (g, &error));
}

void
list_tests_add (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *a = g_strdup_printf ("/verify/lists/aten/%s", cases[i]);
      g_autofree char *f = g_strdup_printf ("/verify/lists/aten-fallback/%s", cases[i]);
      g_autofree char *t = g_strdup_printf ("/verify/lists/trace-run/%s", cases[i]);
      g_test_add_data_func (f, cases[i], test_aten_fallback);
      /* script_list_append reads len(l), script_list_set_item l[0]: the
       * executor has no aten::len or aten::__getitem__ kernel
       * (doc/aten-kernels.md), which --mode aten and the trace's run need */
      if (strcmp (cases[i], "script_list_append") == 0 || strcmp (cases[i], "script_list_set_item") == 0)
        continue;
      g_test_add_data_func (a, cases[i], test_aten);
      g_test_add_data_func (t, cases[i], test_trace_run);
    }
  g_test_add_func ("/verify/lists/origins", test_origins);
  g_test_add_func ("/verify/lists/refused-every-mode", test_refused_every_mode);
  g_test_add_func ("/verify/lists/many-changes", test_many_changes);
  g_test_add_func ("/verify/lists/block-returns", test_block_returns);
}
