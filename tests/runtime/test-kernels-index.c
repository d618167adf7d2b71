/* Bad input to the index-driven kernels added for the backend tests
 * (GatherND, ScatterND, Compress, ReverseSequence, Unique, losses,
 * MaxUnpool, RoiAlign, NonMaxSuppression, DFT, Cast from strings): each
 * must end in an
 * RT_ERROR naming the problem, never a read or write out of bounds (the
 * ASan build runs these).  Values checked are worked out by hand from
 * the ONNX operator spec (numpy equivalents in the comments). */
#include "tests/runtime/test-runtime.h"
#include "runtime/kernel.h"
#include <math.h>
#include <stdarg.h>
#include <string.h>

static Tensor *
f32 (guint rank, const gint64 *dims, const float *v)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, v, (gsize) n * sizeof (float), NULL);
}

static Tensor *
i64 (guint rank, const gint64 *dims, const gint64 *v)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  return tensor_new_from_data (GRAPH_DTYPE_INT64, rank, dims, v, (gsize) n * sizeof (gint64), NULL);
}

/* Runs one `op` node (opset `opset`) on the tensors `ts` (taking them; a
 * NULL is an absent input) with the attribute pairs in `ap`; outs (when not
 * NULL) gets the n_out outputs.  Returns the error of making or running the
 * session.  (Shared with test-kernels-random.c.) */
GError *
test_run_op_valist (gint64 opset, const char *op, guint n_in, Tensor **ts, guint n_out, Tensor **outs,
                    va_list ap)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", opset);
  GraphValue *ins[8];
  g_assert_cmpuint (n_in, <=, G_N_ELEMENTS (ins));
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     (GDestroyNotify) tensor_unref);
  for (guint i = 0; i < n_in; i++)
    {
      if (ts[i] == NULL)
        {
          ins[i] = GRAPH_ABSENT;
          continue;
        }
      char name[16];
      g_snprintf (name, sizeof name, "i%u", i);
      g_autoptr (GraphType) ty = graph_type_new_tensor_static (tensor_dtype (ts[i]), tensor_rank (ts[i]),
                                                               tensor_dims (ts[i]));
      ins[i] = graph_add_input (g, name, ty);
      g_hash_table_insert (in, g_strdup (name), ts[i]);
    }
  GraphNode *n = graph_opv_outputs_valist (g, op, n_in, ins, n_out, ap);
  g_assert_nonnull (n);
  for (guint i = 0; i < n_out; i++)
    {
      char name[16];
      g_snprintf (name, sizeof name, "o%u", i);
      graph_value_set_name (graph_node_output (n, i), name);
      graph_add_output (g, graph_node_output (n, i));
    }
  GError *error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  if (s == NULL)
    return error;
  g_autoptr (GHashTable) res = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  if (!rt_session_run (s, in, res, &error))
    return error;
  for (guint i = 0; outs && i < n_out; i++)
    {
      char name[16];
      g_snprintf (name, sizeof name, "o%u", i);
      outs[i] = tensor_ref (g_hash_table_lookup (res, name));
    }
  return NULL;
}

/* test_run_op_valist with the attribute pairs up to NULL; *out (when not
 * NULL) gets output 0. */
static GError *
run_op (gint64 opset, const char *op, guint n_in, Tensor **ts, guint n_out, Tensor **out, ...)
{
  Tensor *all[8] = { NULL };
  g_assert_cmpuint (n_out, <=, G_N_ELEMENTS (all));
  va_list ap;
  va_start (ap, out);
  GError *error = test_run_op_valist (opset, op, n_in, ts, n_out, out ? all : NULL, ap);
  va_end (ap);
  if (out)
    *out = all[0];
  for (guint i = 1; i < n_out; i++)
    g_clear_pointer (&all[i], tensor_unref);
  return error;
}

static void
expect_error (GError *error, int code, const char *msg)
{
  g_assert_error (error, RT_ERROR, code);
  if (strstr (error->message, msg) == NULL)
    g_error ("'%s' does not contain '%s'", error->message, msg);
  g_error_free (error);
}

static void
test_gathernd (void)
{
  static const float data[4] = { 1, 2, 3, 4 };
  gint64 dd[2] = { 2, 2 }, id[2] = { 1, 2 };
  static const gint64 good[2] = { 1, 0 }, bad[2] = { 2, 0 };
  /* data[1, 0] = 3 (numpy: data[tuple(good)]) */
  Tensor *ts[2] = { f32 (2, dd, data), i64 (2, id, good) };
  g_autoptr (Tensor) y = NULL;
  g_assert_no_error (run_op (13, "GatherND", 2, ts, 1, &y, NULL));
  g_assert_cmpuint (tensor_numel (y), ==, 1);
  g_assert_cmpfloat (tensor_get_double (y, 0), ==, 3.0);
  Tensor *bt[2] = { f32 (2, dd, data), i64 (2, id, bad) };
  expect_error (run_op (13, "GatherND", 2, bt, 1, NULL, NULL), RT_ERROR_INVALID_GRAPH,
                "index 2 is out of range for a dimension of 2");
  /* ScatterND with index -3 on a dimension of 2. */
  static const gint64 neg[2] = { -3, 0 };
  static const float upd[1] = { 9 };
  gint64 ud[1] = { 1 };
  Tensor *st[3] = { f32 (2, dd, data), i64 (2, id, neg), f32 (1, ud, upd) };
  expect_error (run_op (16, "ScatterND", 3, st, 1, NULL, NULL), RT_ERROR_INVALID_GRAPH,
                "index -3 is out of range");
}

static void
test_compress_reverse (void)
{
  static const float x[3] = { 1, 2, 3 };
  gint64 xd[1] = { 3 }, cd[1] = { 4 };
  static const gint64 cond[4] = { 1, 0, 1, 1 };
  Tensor *ct[2] = { f32 (1, xd, x), i64 (1, cd, cond) };
  expect_error (run_op (11, "Compress", 2, ct, 1, NULL, "axis_i", (gint64) 0, NULL), RT_ERROR_SHAPE,
                "condition must be 1-D and no longer than the axis");

  /* (time 2, batch 2) with lengths (3, 1): 3 > 2 time steps. */
  static const float s[4] = { 1, 2, 3, 4 };
  gint64 sd[2] = { 2, 2 }, ld[1] = { 2 };
  static const gint64 bad[2] = { 3, 1 }, good[2] = { 2, 1 };
  Tensor *rt[2] = { f32 (2, sd, s), i64 (1, ld, bad) };
  expect_error (run_op (10, "ReverseSequence", 2, rt, 1, NULL, "time_axis_i", (gint64) 0,
                        "batch_axis_i", (gint64) 1, NULL),
                RT_ERROR_INVALID_GRAPH, "sequence length 3 is outside [0, 2]");
  /* Batch 0 reversed over 2 steps, batch 1 unchanged: [[3, 2], [1, 4]]. */
  Tensor *gt[2] = { f32 (2, sd, s), i64 (1, ld, good) };
  g_autoptr (Tensor) y = NULL;
  g_assert_no_error (run_op (10, "ReverseSequence", 2, gt, 1, &y, "time_axis_i", (gint64) 0,
                             "batch_axis_i", (gint64) 1, NULL));
  static const double want[4] = { 3, 2, 1, 4 };
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat (tensor_get_double (y, i), ==, want[i]);
}

/* Operands that must broadcast *to* a shape another input fixes
 * (rt_broadcasts_to): Gemm's C to (M, N), LayerNormalization's Scale to the
 * normalised dims.  A broadcast of the two shapes that is larger (C of
 * (2, 2) against (1, 2)) or of size 0 (Scale of (0) against (1)) must be
 * refused, not read past the operand's end. */
static void
test_broadcasts_to (void)
{
  static const gint64 d12[2] = { 1, 2 }, d22[2] = { 2, 2 }, d2[1] = { 2 }, d3[1] = { 3 }, d21[2] = { 2, 1 },
                      d0[1] = { 0 };
  static const float a[2] = { 1, 2 }, eye[4] = { 1, 0, 0, 1 }, c[4] = { 10, 20, 30, 40 }, x[2] = { 5, 7 };
  Tensor *ts[3] = { f32 (2, d12, a), f32 (2, d22, eye), f32 (1, d2, c) }, *y = NULL;
  g_assert_no_error (run_op (13, "Gemm", 3, ts, 1, &y, NULL));
  /* [1, 2] @ I + [10, 20] */
  g_assert_cmpfloat (((const float *) tensor_data (y))[0], ==, 11);
  g_assert_cmpfloat (((const float *) tensor_data (y))[1], ==, 22);
  tensor_unref (y);
  Tensor *bad[3] = { f32 (2, d12, a), f32 (2, d22, eye), f32 (1, d3, c) };
  expect_error (run_op (13, "Gemm", 3, bad, 1, NULL, NULL), RT_ERROR_SHAPE,
                "C of shape (3) does not broadcast to (1, 2)");
  Tensor *big[3] = { f32 (2, d12, a), f32 (2, d22, eye), f32 (2, d22, c) };
  expect_error (run_op (13, "Gemm", 3, big, 1, NULL, NULL), RT_ERROR_SHAPE,
                "C of shape (2, 2) does not broadcast to (1, 2)");
  Tensor *ln[2] = { f32 (2, d21, x), f32 (1, d0, NULL) };
  expect_error (run_op (17, "LayerNormalization", 2, ln, 1, NULL, NULL), RT_ERROR_SHAPE,
                "Scale of shape (0) does not broadcast to (1)");
}

static void
test_unique (void)
{
  /* numpy.unique([2, 1, 1, 3]) = [1, 2, 3]; not sorted: [2, 1, 3]. */
  static const float x[4] = { 2, 1, 1, 3 };
  gint64 xd[1] = { 4 };
  for (int sorted = 0; sorted < 2; sorted++)
    {
      Tensor *ts[1] = { f32 (1, xd, x) };
      g_autoptr (Tensor) y = NULL;
      g_assert_no_error (run_op (11, "Unique", 1, ts, 4, &y, "sorted_i", (gint64) sorted, NULL));
      g_assert_cmpuint (tensor_numel (y), ==, 3);
      g_assert_cmpfloat (tensor_get_double (y, 0), ==, sorted ? 1.0 : 2.0);
      g_assert_cmpfloat (tensor_get_double (y, 1), ==, sorted ? 2.0 : 1.0);
      g_assert_cmpfloat (tensor_get_double (y, 2), ==, 3.0);
    }
}

static void
test_losses (void)
{
  static const float x[6] = { -1, -2, -3, -4, -5, -6 };
  gint64 xd[2] = { 2, 3 }, td[1] = { 2 };
  static const gint64 bad[2] = { 0, 5 }, good[2] = { 0, 2 };
  Tensor *bt[2] = { f32 (2, xd, x), i64 (1, td, bad) };
  expect_error (run_op (13, "NegativeLogLikelihoodLoss", 2, bt, 1, NULL, NULL),
                RT_ERROR_INVALID_GRAPH, "target 5 is outside [0, 3)");
  /* The ignored target may be anything. */
  Tensor *it[2] = { f32 (2, xd, x), i64 (1, td, bad) };
  g_autoptr (Tensor) l = NULL;
  g_assert_no_error (run_op (13, "NegativeLogLikelihoodLoss", 2, it, 1, &l, "ignore_index_i",
                             (gint64) 5, "reduction_s", "sum", NULL));
  /* -x[0, 0] = 1 */
  g_assert_cmpfloat (tensor_get_double (l, 0), ==, 1.0);
  /* mean of -x[0, 0] and -x[1, 2]: (1 + 6) / 2 */
  Tensor *gt[2] = { f32 (2, xd, x), i64 (1, td, good) };
  g_autoptr (Tensor) m = NULL;
  g_assert_no_error (run_op (13, "NegativeLogLikelihoodLoss", 2, gt, 1, &m, NULL));
  g_assert_cmpfloat (tensor_get_double (m, 0), ==, 3.5);
  gint64 wd[1] = { 2 };
  static const float w[2] = { 1, 1 };
  Tensor *wt[3] = { f32 (2, xd, x), i64 (1, td, good), f32 (1, wd, w) };
  expect_error (run_op (13, "SoftmaxCrossEntropyLoss", 3, wt, 1, NULL, NULL), RT_ERROR_SHAPE,
                "weight must have shape (C)");
}

static void
test_spatial (void)
{
  static const float x[4] = { 1, 2, 3, 4 };
  gint64 xd[4] = { 1, 1, 2, 2 };
  static const gint64 ind[4] = { 0, 1, 2, 99 };
  static const gint64 ks[2] = { 2, 2 };
  Tensor *ut[2] = { f32 (4, xd, x), i64 (4, xd, ind) };
  expect_error (run_op (11, "MaxUnpool", 2, ut, 1, NULL, "kernel_shape_is", 2, ks, "strides_is", 2, ks,
                        NULL),
                RT_ERROR_INVALID_GRAPH, "index 99 is out of range");

  static const float roi[4] = { 0, 0, 1, 1 };
  static const gint64 bi[1] = { 5 };
  gint64 rd[2] = { 1, 4 }, bd[1] = { 1 };
  Tensor *rt[3] = { f32 (4, xd, x), f32 (2, rd, roi), i64 (1, bd, bi) };
  expect_error (run_op (16, "RoiAlign", 3, rt, 1, NULL, NULL), RT_ERROR_INVALID_GRAPH,
                "batch index 5 is out of range");

  /* Scores for 3 boxes where boxes has 2. */
  static const float boxes[8] = { 0, 0, 1, 1, 0, 0, 1, 1 }, scores[3] = { 1, 1, 1 };
  gint64 bxd[3] = { 1, 2, 4 }, scd[3] = { 1, 1, 3 };
  Tensor *nt[2] = { f32 (3, bxd, boxes), f32 (3, scd, scores) };
  expect_error (run_op (11, "NonMaxSuppression", 2, nt, 1, NULL, NULL), RT_ERROR_SHAPE,
                "boxes must be (batch, n, 4) and scores (batch, classes, n)");

  static const gint64 len0[1] = { 0 };
  gint64 sd[3] = { 1, 4, 1 }, one[1] = { 1 };
  Tensor *dt[2] = { f32 (3, sd, x), i64 (1, one, len0) };
  expect_error (run_op (17, "DFT", 2, dt, 1, NULL, NULL), RT_ERROR_INVALID_GRAPH,
                "dft_length must be positive");
}

static Tensor *
strs (guint n, const char *const *v)
{
  gint64 d = n;
  g_autofree GBytes **b = g_new (GBytes *, n);
  for (guint i = 0; i < n; i++)
    b[i] = g_bytes_new (v[i], strlen (v[i]));
  Tensor *t = tensor_new_strings (1, &d, b, NULL);
  for (guint i = 0; i < n; i++)
    g_bytes_unref (b[i]);
  return t;
}

static void
expect_strings (const Tensor *t, guint n, const char *const *want)
{
  g_assert_cmpint (tensor_dtype (t), ==, GRAPH_DTYPE_STRING);
  g_assert_cmpint (tensor_numel (t), ==, n);
  for (guint i = 0; i < n; i++)
    {
      gsize len;
      const char *s = g_bytes_get_data (tensor_string (t, i), &len);
      g_assert_cmpmem (s, len, want[i], strlen (want[i]));
    }
}

/* String tensors through a session: StringNormalizer, Cast both ways. */
static void
test_strings (void)
{
  static const char *const in[3] = { "Monday", "tuesday", "x\xc3\xa9" }, *stop[1] = { "monday" };
  static const char *const upper[2] = { "TUESDAY", "X\xc3\x89" };
  Tensor *st[1] = { strs (3, in) };
  g_autoptr (Tensor) y = NULL;
  g_assert_no_error (run_op (10, "StringNormalizer", 1, st, 1, &y, "stopwords_ss", 1, stop,
                             "case_change_action_s", "UPPER", NULL));
  expect_strings (y, 2, upper);

  /* numpy: [str(np.float32(v)) for v in (0.5, 1, 0.1, 1e-05)] */
  static const float f[4] = { 0.5f, 1.0f, 0.1f, 1e-5f };
  static const char *const fs[4] = { "0.5", "1.0", "0.1", "1e-05" };
  gint64 fd[1] = { 4 };
  Tensor *ft[1] = { f32 (1, fd, f) };
  g_autoptr (Tensor) z = NULL;
  g_assert_no_error (run_op (13, "Cast", 1, ft, 1, &z, "to_i", (gint64) GRAPH_DTYPE_STRING, NULL));
  expect_strings (z, 4, fs);

  static const char *const num[2] = { "2.5", "-INF" }, *bad[2] = { "2.5", "two" };
  Tensor *nt[1] = { strs (2, num) };
  g_autoptr (Tensor) w = NULL;
  g_assert_no_error (run_op (13, "Cast", 1, nt, 1, &w, "to_i", (gint64) GRAPH_DTYPE_FLOAT, NULL));
  g_assert_cmpfloat (tensor_get_double (w, 0), ==, 2.5);
  g_assert_cmpfloat (tensor_get_double (w, 1), ==, -INFINITY);
  Tensor *bt[1] = { strs (2, bad) };
  expect_error (run_op (13, "Cast", 1, bt, 1, NULL, "to_i", (gint64) GRAPH_DTYPE_FLOAT, NULL),
                RT_ERROR_INVALID_GRAPH, "element 1 ('two') is not a number");
}

/* rt_get_f64/rt_get_i64 read 0 outside [0, numel): the last guard where a
 * kernel reads a scalar input given as an empty tensor. */
static void
test_get_out_of_range (void)
{
  float f[2] = { 1.5f, -2.5f };
  gint64 l[1] = { 7 };
  RtTensor t = { .dtype = GRAPH_DTYPE_FLOAT, .rank = 1, .dims = { 2 }, .numel = 2, .data = f };
  RtTensor e = { .dtype = GRAPH_DTYPE_INT64, .rank = 1, .dims = { 0 }, .numel = 0, .data = l };
  g_assert_cmpfloat (rt_get_f64 (&t, 1), ==, -2.5);
  g_assert_cmpint (rt_get_i64 (&t, 0), ==, 1);
  g_assert_cmpfloat (rt_get_f64 (&t, 2), ==, 0);
  g_assert_cmpfloat (rt_get_f64 (&t, -1), ==, 0);
  g_assert_cmpint (rt_get_i64 (&e, 0), ==, 0);   /* l[0] is 7: not read */
  g_assert_cmpfloat (rt_get_f64 (&e, 0), ==, 0);
}

void
test_kernels_index_register (void)
{
  g_test_add_func ("/runtime/strings", test_strings);
  g_test_add_func ("/runtime/index/gathernd-scatternd", test_gathernd);
  g_test_add_func ("/runtime/index/get-out-of-range", test_get_out_of_range);
  g_test_add_func ("/runtime/index/compress-reversesequence", test_compress_reverse);
  g_test_add_func ("/runtime/index/unique", test_unique);
  g_test_add_func ("/runtime/index/broadcasts-to", test_broadcasts_to);
  g_test_add_func ("/runtime/index/losses", test_losses);
  g_test_add_func ("/runtime/index/spatial", test_spatial);
}
