/* Concat in place (runtime/concat-views.c): the producers of a Concat's
 * inputs write into its output.  Each run's outputs are compared bit for
 * bit with a session that copies (SYMONNX_NO_CONCAT_VIEWS, read when the
 * session is made); the counter says when every input was in place. */
#include "tests/runtime/fusion-testutil.h"
#include "runtime/session-private.h"
#include "runtime/concat-views.h"

/* x (untyped: one session takes several shapes) → three branches (3x3
 * Conv + Relu; 1x1 Conv; 1x1 Conv, Abs, 1x1 Conv of 3 channels: values made
 * and dropped while the first branch's output waits, whose slots the
 * Concat's output must not share) → Concat on `axis` → a 1x1 Conv → y; the
 * Concat's output is a graph output too.  With `reread`, the first Conv's output
 * is also added to y's input after the Concat (read after it: no views). */
static Graph *
three_branches (gint64 axis, gboolean reread)
{
  Graph *g = fz_new_graph_at (13);
  const gint64 wa[4] = { 5, 8, 3, 3 }, wb[4] = { 7, 8, 1, 1 }, wd[4] = { 6, 8, 1, 1 };
  const gint64 wc[4] = { 3, 6, 1, 1 };
  const gint64 wy[4] = { 4, 15, 1, 1 }, pads[4] = { 1, 1, 1, 1 };
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *a = graph_op (g, "Relu", graph_op (g, "Conv", x, fz_weights (g, "wa", 4, wa),
                                                 "pads_is", 4, pads, NULL), NULL);
  GraphValue *b = graph_op (g, "Conv", x, fz_weights (g, "wb", 4, wb), NULL);
  GraphValue *d = graph_op (g, "Abs", graph_op (g, "Conv", x, fz_weights (g, "wd", 4, wd), NULL), NULL);
  GraphValue *c = graph_op (g, "Conv", d, fz_weights (g, "wc", 4, wc), NULL);
  GraphValue *cat = graph_op (g, "Concat", a, b, c, "axis_i", axis, NULL);
  graph_value_set_name (cat, "cat");
  GraphValue *y = graph_op (g, "Conv", cat, fz_weights (g, "wy", 4, wy), NULL, NULL);
  if (reread)
    {
      const gint64 wr[4] = { 4, 5, 1, 1 };
      y = graph_op (g, "Add", y, graph_op (g, "Conv", a, fz_weights (g, "wr", 4, wr), NULL, NULL),
                    NULL);
    }
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  graph_add_output (g, cat);
  return g;
}

static RtSession *
session (Graph *g, int threads, gboolean views)
{
  if (!views)
    g_setenv ("SYMONNX_NO_CONCAT_VIEWS", "1", TRUE);
  RtSession *s = fz_session_new (g, threads);
  g_unsetenv ("SYMONNX_NO_CONCAT_VIEWS");
  return s;
}

/* Runs s on x; returns how many Concats ran in place, outputs in *y, *cat. */
static guint
run (RtSession *s, Tensor *x, Tensor **y, Tensor **cat)
{
  g_autoptr (GHashTable) in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup ("x"), tensor_ref (x));
  g_autoptr (GHashTable) res = fz_inputs_new ();
  g_autoptr (GError) error = NULL;
  guint before = rt_concat_views_runs ();
  gboolean ok = rt_session_run (s, in, res, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  *y = tensor_ref (g_hash_table_lookup (res, "y"));
  *cat = tensor_ref (g_hash_table_lookup (res, "cat"));
  return rt_concat_views_runs () - before;
}

static void
assert_same (Tensor *a, Tensor *b)
{
  g_assert_cmpint (tensor_numel (a), ==, tensor_numel (b));
  g_assert_cmpmem (tensor_data (a), tensor_nbytes (a), tensor_data (b), tensor_nbytes (b));
}

/* One session over a sequence of shapes: the first run copies, the next
 * ones of the same shape write in place; a new map size copies once, then
 * in place again; 2 images (inputs not contiguous in the output) never in
 * place, also when each input has the size it had with 1 image (2 x 6
 * rows after 1 x 12: the views made at the old places go back to their
 * own slots before the Concat copies); axis -3 is axis 1.  With 1 and 3
 * threads, against the copying session, every run. */
static void
test_in_place (void)
{
  const struct { gint64 n, h; guint in_place; } steps[] = {
    { 1, 9, 0 }, { 1, 9, 1 }, { 1, 9, 1 }, { 1, 12, 0 }, { 1, 12, 1 }, { 2, 6, 0 }, { 1, 12, 0 },
    { 1, 12, 1 }, { 2, 12, 0 }, { 1, 9, 0 }, { 1, 9, 1 },
  };
  const gint64 axes[2] = { 1, -3 };
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (Graph) g = three_branches (axes[k], FALSE);
      g_autoptr (RtSession) s = session (g, k ? 3 : 1, TRUE);
      g_autoptr (RtSession) ref = session (g, 1, FALSE);
      for (guint t = 0; t < G_N_ELEMENTS (steps); t++)
        {
          const gint64 xd[4] = { steps[t].n, 8, steps[t].h, 13 };
          g_autoptr (Tensor) x = fz_random_tensor (4, xd);
          g_autoptr (Tensor) y = NULL, cat = NULL, ry = NULL, rcat = NULL;
          g_assert_cmpuint (run (s, x, &y, &cat), ==, steps[t].in_place);
          g_assert_cmpuint (run (ref, x, &ry, &rcat), ==, 0);
          g_assert_cmpint (tensor_dim (cat, 1), ==, 15);
          assert_same (cat, rcat);
          assert_same (y, ry);
        }
    }
}

/* A Concat input read after the Concat is not a view: never in place,
 * the same bits. */
static void
test_read_after (void)
{
  g_autoptr (Graph) g = three_branches (1, TRUE);
  g_autoptr (RtSession) s = session (g, 1, TRUE);
  g_autoptr (RtSession) ref = session (g, 1, FALSE);
  for (int t = 0; t < 3; t++)
    {
      const gint64 xd[4] = { 1, 8, 10, 10 };
      g_autoptr (Tensor) x = fz_random_tensor (4, xd);
      g_autoptr (Tensor) y = NULL, cat = NULL, ry = NULL, rcat = NULL;
      g_assert_cmpuint (run (s, x, &y, &cat), ==, 0);
      run (ref, x, &ry, &rcat);
      assert_same (cat, rcat);
      assert_same (y, ry);
    }
}

void
test_concat_views_register (void)
{
  g_test_add_func ("/runtime/concat/in-place", test_in_place);
  g_test_add_func ("/runtime/concat/read-after", test_read_after);
}
