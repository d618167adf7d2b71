/* Scripted loops inside traces (prim::Loop: torch.jit.script functions
 * called under tracing, torchvision's Mask R-CNN paste-masks loop and
 * Keypoint R-CNN heatmaps loop), from tests/fixtures/wrong-results/ (made
 * by tools/gen_wrong_result_refs.py from eager PyTorch, each at two trip
 * counts: CASE.input_N / CASE.expected and CASE.size2.*):
 * - exported with --mode aten (an ONNX Loop whose body holds ATen nodes)
 *   and --mode aten-fallback, run in the executor, compared with PyTorch;
 * - the trace itself run by the executor (verify_runnable_trace: the
 *   reference of `symonnx verify` without --expected), compared with
 *   PyTorch.
 * Both trip counts run on one export (dynamic axes from CASE.axes), and on
 * one runnable trace whose input dims are left open. */
#include "test-loops.h"
#include "tests/common/test-fixtures.h"
#include "symonnx.h"
#include "export/tensorfiles.h"
#include <math.h>
#include <string.h>

#define DIR "tests/fixtures/wrong-results/"

static const char *const cases[] = {
  "script_loop_carried", "script_loop_cat", "script_loop_append_stack", "script_loop_data_count",
  "script_loop_range_step", "paste_masks_loop", "keypoints_loop",
};

static Tensor *
fixture_npy (const char *cas, const char *tag, const char *what)
{
  g_autofree char *rel = g_strdup_printf (DIR "%s.%s%s.npy", cas, tag, what);
  return test_npy_or_null (rel);
}

static Graph *
load_trace (const char *cas)
{
  g_autofree char *rel = g_strdup_printf (DIR "%s.trace", cas);
  return test_trace_load (rel);
}

/* Runs g on the case's inputs of set `tag` ("" or "size2.") and compares
 * output 0 with PyTorch's: element type, shape, values. */
static void
run_and_compare (Graph *g, const char *cas, const char *tag, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  if (s == NULL)
    g_error ("%s (%s): %s", cas, what, error->message);
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  for (guint i = 0; i < rt_session_n_required_inputs (s); i++)
    {
      g_autofree char *name = g_strdup_printf ("input_%u", i);
      Tensor *t = fixture_npy (cas, tag, name);
      g_assert_nonnull (t);
      g_hash_table_insert (inputs, g_strdup (graph_value_get_name (rt_session_required_input (s, i))), t);
    }
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  if (!rt_session_run (s, inputs, outputs, &error))
    g_error ("%s%s (%s) does not run: %s", cas, tag, what, error->message);
  Tensor *got = g_hash_table_lookup (outputs, graph_value_get_name (graph_output (g, 0)));
  g_autoptr (Tensor) want = fixture_npy (cas, tag, "expected");
  g_assert_nonnull (got);
  g_assert_nonnull (want);
  g_assert_cmpstr (graph_dtype_name (tensor_dtype (got)), ==, graph_dtype_name (tensor_dtype (want)));
  g_assert_cmpuint (tensor_rank (got), ==, tensor_rank (want));
  for (guint k = 0; k < tensor_rank (want); k++)
    g_assert_cmpint (tensor_dims (got)[k], ==, tensor_dims (want)[k]);
  for (gint64 i = 0; i < tensor_numel (want); i++)
    {
      double a = tensor_get_double (got, i), e = tensor_get_double (want, i);
      if (!(fabs (a - e) <= 1e-5 + 1e-4 * fabs (e)))
        g_error ("%s%s (%s): element %" G_GINT64_FORMAT " is %.9g, PyTorch gives %.9g", cas, tag,
                 what, i, a, e);
    }
}

/* The sets of a case: the first, and the second trip count when there is one. */
static guint
case_sets (const char *cas, const char **tags)
{
  g_autoptr (Tensor) second = fixture_npy (cas, "size2.", "input_0");
  tags[0] = "";
  tags[1] = "size2.";
  return second ? 2 : 1;
}

static void
test_export (const char *cas, SymMode mode)
{
  g_autoptr (Graph) trace = load_trace (cas);
  ExportOptions o;
  export_options_init (&o);
  o.opset = 13;
  o.mode = mode;
  g_autoptr (GError) error = NULL;
  g_autofree char *arel = g_strdup_printf (DIR "%s.axes", cas);
  g_autofree char *apath = test_source_path (arel);
  g_autofree char *axes = NULL;
  if (g_file_get_contents (apath, &axes, NULL, NULL))
    {
      g_strstrip (axes);
      g_assert_true (export_options_parse_dynamic_axes (&o, axes, &error));
    }
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  export_options_clear (&o);
  g_assert_no_error (error);
  /* In ONNX_ATEN mode the loop body's aten ops are ATen nodes. */
  guint n_aten = 0, n_loop = 0;
  graph_foreach_node (g, n)
    if (graph_node_is (n, "onnx::Loop"))
      {
        n_loop++;
        Graph *body = NULL;
        g_assert_true (graph_node_get_g (n, "body", &body));
        graph_foreach_node (body, m)
          n_aten += graph_node_is (m, "org.pytorch.aten::ATen");
      }
  g_assert_cmpuint (n_loop, ==, 1);
  if (mode == SYM_MODE_ONNX_ATEN)
    g_assert_cmpuint (n_aten, >, 0);
  const char *tags[2];
  guint n = case_sets (cas, tags);
  for (guint k = 0; k < n; k++)
    run_and_compare (g, cas, tags[k], sym_mode_name (mode));
}

static void
test_aten (gconstpointer data)
{
  test_export (data, SYM_MODE_ONNX_ATEN);
}

static void
test_aten_fallback (gconstpointer data)
{
  test_export (data, SYM_MODE_ONNX_ATEN_FALLBACK);
}

/* The trace's own run, at both trip counts: the input dims left open. */
static void
test_trace_run (gconstpointer data)
{
  const char *cas = data;
  g_autoptr (Graph) trace = load_trace (cas);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) r = verify_runnable_trace (trace, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < graph_n_inputs (r); i++)
    {
      GraphType *t = graph_value_type (graph_input (r, i));
      if (t == NULL || !graph_type_is_tensor (t))
        continue;
      GraphDim open[TENSOR_MAX_RANK] = { { 0 } };
      for (int d = 0; d < graph_type_rank (t); d++)
        open[d].kind = GRAPH_DIM_UNKNOWN;
      g_autoptr (GraphType) u = graph_type_new_tensor (graph_type_dtype (t), graph_type_rank (t), open);
      graph_value_set_type (graph_input (r, i), u);
    }
  const char *tags[2];
  guint n = case_sets (cas, tags);
  for (guint k = 0; k < n; k++)
    run_and_compare (r, cas, tags[k], "trace run");
}

/* A loop that appends to a list in place: the trace's run does not mutate
 * lists, and says so (the export handles it: test_aten). */
static void
test_trace_run_append (void)
{
  g_autoptr (Graph) trace = load_trace ("script_loop_append_stack");
  g_autoptr (GError) error = NULL;
  g_assert_null (verify_runnable_trace (trace, NULL, &error));
  g_assert_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN);
  g_assert_nonnull (strstr (error->message, "aten::append"));
}

void
loop_tests_add (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *a = g_strdup_printf ("/verify/loops/aten/%s", cases[i]);
      g_autofree char *f = g_strdup_printf ("/verify/loops/aten-fallback/%s", cases[i]);
      g_test_add_data_func (a, cases[i], test_aten);
      g_test_add_data_func (f, cases[i], test_aten_fallback);
      if (strcmp (cases[i], "script_loop_append_stack") != 0)
        {
          g_autofree char *t = g_strdup_printf ("/verify/loops/trace-run/%s", cases[i]);
          g_test_add_data_func (t, cases[i], test_trace_run);
        }
    }
  g_test_add_func ("/verify/loops/trace-run/append-refused", test_trace_run_append);
}
