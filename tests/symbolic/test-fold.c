/* Constant folding computes what the graph computed: each folded chain is
 * run by the executor (whose kernels pass ONNX's own backend tests) before
 * and after export_fold_constants, and the results must be identical. */
#include "symonnx.h"
#include <string.h>

void test_fold_register (void);

static GHashTable *
run_graph (Graph *g)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) inputs = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) tensor_unref);
  g_assert_true (rt_session_run (s, inputs, outputs, &error));
  g_assert_no_error (error);
  return outputs;
}

/* arange(24) as 2x3x4, then the node chain `build` adds, folded and not. */
static void
check_fold (GraphValue *(*build) (Graph *g, GraphValue *x))
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 13);
  float data[24];
  for (int i = 0; i < 24; i++)
    data[i] = (float) i;
  gint64 dims[3] = { 2, 3, 4 };
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 3, dims, data, sizeof data, NULL);
  GraphValue *x = graph_op (g, "Constant", "value_t", t, NULL);
  GraphValue *y = build (g, x);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);

  g_autoptr (GHashTable) before = run_graph (g);
  g_autoptr (GError) error = NULL;
  guint folded = export_fold_constants (g, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (folded, >, 0);
  graph_eliminate_dead_code (g);
  g_assert_cmpuint (graph_n_nodes (g), ==, 1);   /* one Constant left */
  /* the folded output keeps its name */
  g_assert_cmpstr (graph_value_get_name (graph_output (g, 0)), ==, "y");
  g_autoptr (GHashTable) after = run_graph (g);
  Tensor *a = g_hash_table_lookup (before, "y"), *b = g_hash_table_lookup (after, "y");
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_true (tensor_equal (a, b));
}

/* Slice-10+ of x with constant starts/ends/axes (and steps, if given). */
static GraphValue *
slice_op (Graph *g, GraphValue *x, gsize n, const gint64 *starts, const gint64 *ends,
          const gint64 *axes, const gint64 *steps)
{
  const gint64 *lists[4] = { starts, ends, axes, steps };
  GraphValue *in[4] = { NULL };
  for (guint i = 0; i < 4 && lists[i]; i++)
    {
      g_autoptr (Tensor) t = tensor_new_int64_vector (n, lists[i]);
      in[i] = graph_op (g, "Constant", "value_t", t, NULL);
    }
  return steps ? graph_op (g, "Slice", x, in[0], in[1], in[2], in[3], NULL)
               : graph_op (g, "Slice", x, in[0], in[1], in[2], NULL);
}

static GraphValue *
slice_negative_steps (Graph *g, GraphValue *x)
{
  gint64 starts[2] = { -1, 0 }, ends[2] = { -5, 3 }, axes[2] = { 2, 1 }, steps[2] = { -2, 2 };
  return slice_op (g, x, 2, starts, ends, axes, steps);
}

static GraphValue *
transpose_then_slice (Graph *g, GraphValue *x)
{
  gint64 perm[3] = { 2, 0, 1 };
  GraphValue *tr = graph_op (g, "Transpose", x, "perm_is", 3, perm, NULL);
  gint64 starts[1] = { 1 }, ends[1] = { G_MAXINT64 }, axes[1] = { 0 };
  return slice_op (g, tr, 1, starts, ends, axes, NULL);
}

/* Unit steps keeping whole rows of the last axes (the LSTM gate
 * reordering slices weights like this): copied as contiguous runs. */
static GraphValue *
slice_rows (Graph *g, GraphValue *x)
{
  gint64 starts[2] = { 1, 1 }, ends[2] = { 3, 2 }, axes[2] = { 1, 0 };
  return slice_op (g, x, 2, starts, ends, axes, NULL);
}

static void
test_fold_slice_rows (void)
{
  check_fold (slice_rows);
}

static void
test_fold_slice (void)
{
  check_fold (slice_negative_steps);
}

static void
test_fold_transpose_slice (void)
{
  check_fold (transpose_then_slice);
}

void
test_fold_register (void)
{
  g_test_add_func ("/symbolic/fold/slice-negative-steps", test_fold_slice);
  g_test_add_func ("/symbolic/fold/transpose-then-slice", test_fold_transpose_slice);
  g_test_add_func ("/symbolic/fold/slice-rows", test_fold_slice_rows);
}
