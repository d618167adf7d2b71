/* Kernel families checked on fixture folders in the backend-test layout
 * (run with the backend-suite runner), and their bad input:
 * - LSTM, GRU, RNN: tools/gen_rnn_refs.py (torch 1.13 modules exported by
 *   torch.onnx.export, word_language_model among them, and single nodes
 *   against a numpy transcription of the ONNX spec);
 * - Einsum: tools/gen_einsum_refs.py (numpy.einsum, torch.einsum);
 * - If, Loop, Scan: tools/gen_control_refs.py (numpy loops; bodies reading
 *   enclosing graphs' values, swapped loop-carried values, nesting);
 * - float16 through float kernels: tools/gen_half_refs.py (numpy in float32,
 *   rounded to float16 after each node);
 * - integer Pow: tools/gen_int_pow_refs.py (numpy.power = torch.pow, wrapping);
 * - the order of ties in TopK and NonMaxSuppression: tools/gen_tie_refs.py
 *   (ONNX Runtime 1.20's outputs). */
#include "tests/runtime/test-runtime.h"
#include "tests/runtime/fusion-testutil.h"
#include "tools/backend-suite.h"
#include <math.h>
#include <string.h>

static void
report_line (const char *line, gpointer user_data)
{
  (void) user_data;
  g_test_message ("%s", line);
}

/* Runs every case under tests/fixtures/runtime/<sub>: all must pass, and
 * there must be `n_cases` of them (every case the generator writes). */
static void
run_fixtures (const char *sub, guint n_cases)
{
  g_autofree char *rel = g_build_filename ("tests/fixtures/runtime", sub, NULL);
  g_autofree char *dir = test_source_path (rel);
  BackendSuite s;
  backend_suite_init (&s);
  s.report = report_line;
  s.threads = 1;
  backend_suite_run_dir (&s, dir);
  g_assert_cmpuint (s.failed, ==, 0);
  g_assert_cmpuint (s.skipped, ==, 0);
  g_assert_cmpuint (s.passed, ==, n_cases);
  backend_suite_clear (&s);
}

static void
test_rnn_fixtures (void)
{
  run_fixtures ("rnn", 16);
}

static void
test_control_fixtures (void)
{
  run_fixtures ("control", 4);
}

static void
test_einsum_fixtures (void)
{
  run_fixtures ("einsum", 20);
}

/* Equal values in TopK and NonMaxSuppression come out in ONNX Runtime's
 * order, the lower index first (tools/gen_tie_refs.py: detection models
 * with tied scores, issue 12) */
static void
test_tie_fixtures (void)
{
  run_fixtures ("ties", 6);
}

/* float16 through kernels written for float (runtime/half.c) */
/* Integer Pow exact and wrapping (tools/gen_int_pow_refs.py: numpy.power,
 * checked equal to torch.pow). */
static void
test_int_pow_fixtures (void)
{
  run_fixtures ("int-pow", 4);
}

/* Pooling windows mostly in padding, argmax and count_include_pad
 * (tools/gen_pool_padding_refs.py: ONNX's definition evaluated tap by
 * tap in numpy, torch's pooling too where it accepts the window). */
static void
test_pool_padding_fixtures (void)
{
  run_fixtures ("pool-padding", 9);
}

/* Nearest Upsample/Resize picks its source index with float coordinates,
 * as PyTorch and ONNX Runtime (tools/gen_resize_nearest_refs.py: torch's
 * own files and outputs). */
static void
test_resize_nearest_fixtures (void)
{
  run_fixtures ("resize-nearest", 5);
}

/* Integer Range across most of its type, exact (tools/gen_range_refs.py:
 * numpy.arange). */
static void
test_range_limits_fixtures (void)
{
  run_fixtures ("range-limits", 4);
}

static void
test_half_fixtures (void)
{
  run_fixtures ("half", 5);
}

static GraphValue *
input (Graph *g, const char *name, GraphDType dt, guint rank, const gint64 *dims)
{
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (dt, rank, dims);
  return graph_add_input (g, name, ty);
}

/* A float tensor with every element v. */
static Tensor *
filled (guint rank, const gint64 *dims, float v)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  g_autofree float *data = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    data[i] = v;
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, data, (gsize) n * sizeof (float),
                               NULL);
}

/* An LSTM over X (T=3, B=2, I=4), H=5, with the given W's dims and
 * optional sequence_lens; runs it and returns the error. */
static GError *
run_lstm (const gint64 *wdims, const gint32 *lens, const char *activation)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 14);
  gint64 xd[3] = { 3, 2, 4 }, rd[3] = { 1, 20, 5 }, ld[1] = { 2 };
  GraphValue *x = input (g, "x", GRAPH_DTYPE_FLOAT, 3, xd);
  GraphValue *w = input (g, "w", GRAPH_DTYPE_FLOAT, 3, wdims);
  GraphValue *r = input (g, "r", GRAPH_DTYPE_FLOAT, 3, rd);
  GraphValue *l = lens ? input (g, "l", GRAPH_DTYPE_INT32, 1, ld) : GRAPH_ABSENT;
  const char *acts[3] = { "Sigmoid", activation ? activation : "Tanh", "Tanh" };
  GraphNode *n = graph_op_outputs (g, "LSTM", 1, x, w, r, GRAPH_ABSENT, l, "hidden_size_i",
                                   (gint64) 5, "activations_ss", 3, acts, NULL);
  g_assert_nonnull (n);
  graph_value_set_name (graph_node_output (n, 0), "y");
  graph_add_output (g, graph_node_output (n, 0));
  GError *error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  if (s == NULL)
    return error;
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  g_hash_table_insert (in, g_strdup ("x"), filled (3, xd, 0.5f));
  g_hash_table_insert (in, g_strdup ("w"), filled (3, wdims, 0.1f));
  g_hash_table_insert (in, g_strdup ("r"), filled (3, rd, 0.1f));
  if (lens)
    g_hash_table_insert (in, g_strdup ("l"),
                         tensor_new_from_data (GRAPH_DTYPE_INT32, 1, ld, lens,
                                               2 * sizeof (gint32), NULL));
  if (!rt_session_run (s, in, out, &error))
    return error;
  /* All inputs 0.5 and weights 0.1: every element of Y is one value,
   * the first step's h = o tanh(i g) with i = o = sigmoid(0.2), g = tanh(0.2). */
  Tensor *y = g_hash_table_lookup (out, "y");
  g_assert_nonnull (y);
  g_assert_cmpuint (tensor_rank (y), ==, 4);
  double sg = 1.0 / (1.0 + exp (-0.2)), h1 = sg * tanh (sg * tanh (0.2));
  if (lens == NULL && activation == NULL)
    g_assert_cmpfloat_with_epsilon (tensor_get_double (y, 0), h1, 1e-6);
  return NULL;
}

static void
test_bad_input (void)
{
  gint64 good[3] = { 1, 20, 4 }, bad[3] = { 1, 20, 3 };
  gint32 ok_lens[2] = { 3, 1 }, bad_lens[2] = { 4, 1 };
  GError *error = run_lstm (good, NULL, NULL);
  g_assert_no_error (error);
  error = run_lstm (good, ok_lens, NULL);
  g_assert_no_error (error);

  error = run_lstm (bad, NULL, NULL);
  g_assert_error (error, RT_ERROR, RT_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "W must be float of shape (1, 20, 4)"));
  g_clear_error (&error);

  error = run_lstm (good, bad_lens, NULL);
  g_assert_error (error, RT_ERROR, RT_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "sequence_lens[0] = 4 is outside [0, 3]"));
  g_clear_error (&error);

  error = run_lstm (good, NULL, "Swish");
  g_assert_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "unknown activation 'Swish'"));
  g_clear_error (&error);
}

/* Einsum over x (2, 3) and y (3, 4) with `equation`: the error of making
 * the session or of running it. */
static GError *
run_einsum (const char *equation, gint64 y_rows)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 12);
  gint64 xd[2] = { 2, 3 }, yd[2] = { y_rows, 4 };
  GraphValue *x = input (g, "x", GRAPH_DTYPE_FLOAT, 2, xd);
  GraphValue *y = input (g, "y", GRAPH_DTYPE_FLOAT, 2, yd);
  GraphValue *z = graph_op (g, "Einsum", x, y, "equation_s", equation, NULL);
  graph_value_set_name (z, "z");
  graph_add_output (g, z);
  GError *error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  if (s == NULL)
    return error;
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  g_hash_table_insert (in, g_strdup ("x"), filled (2, xd, 1.0f));
  g_hash_table_insert (in, g_strdup ("y"), filled (2, yd, 2.0f));
  if (!rt_session_run (s, in, out, &error))
    return error;
  /* Sum over j of 1 * 2. */
  Tensor *t = g_hash_table_lookup (out, "z");
  g_assert_cmpuint (tensor_numel (t), ==, 8);
  g_assert_cmpfloat (tensor_get_double (t, 7), ==, 2.0 * (double) y_rows);
  return NULL;
}

static void
test_einsum_bad_input (void)
{
  static const struct { const char *eq, *msg; int code; } bad[] = {
    { "ij,jk,kl->il", "has 3 input terms for 2 inputs", RT_ERROR_INVALID_GRAPH },
    { "i.j,jk->ik", "'.' only as one '...'", RT_ERROR_INVALID_GRAPH },
    { "ij,jk->iq", "output label 'q' is not in any input", RT_ERROR_INVALID_GRAPH },
    { "ij,jk->ii", "output label 'i' appears twice", RT_ERROR_INVALID_GRAPH },
    { "i1,jk->ik", "labels must be letters", RT_ERROR_INVALID_GRAPH },
    { "ijk,jk->ik", "input 0 has rank 2 for 3 labels", RT_ERROR_SHAPE },
  };
  GError *error = run_einsum ("ij,jk->ik", 3);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      error = run_einsum (bad[i].eq, 3);
      g_assert_error (error, RT_ERROR, bad[i].code);
      g_assert_nonnull (strstr (error->message, bad[i].msg));
      g_clear_error (&error);
    }
  error = run_einsum ("ij,jk->ik", 5);
  g_assert_error (error, RT_ERROR, RT_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "label 'j' has sizes 3 and 5"));
  g_clear_error (&error);
}

/* Runs x → Conv(w, pads 1) → Sigmoid with `threads`; returns the Conv
 * and the Sigmoid outputs. */
static void
run_conv_sigmoid (int threads, const float *xv, const float *wv, Tensor **conv, Tensor **sig)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 13);
  gint64 xd[4] = { 1, 8, 48, 48 }, wd[4] = { 16, 8, 3, 3 };
  gint64 pads[4] = { 1, 1, 1, 1 };
  GraphValue *x = input (g, "x", GRAPH_DTYPE_FLOAT, 4, xd);
  GraphValue *w = input (g, "w", GRAPH_DTYPE_FLOAT, 4, wd);
  GraphValue *c = graph_op (g, "Conv", x, w, "pads_is", 4, pads, NULL);
  GraphValue *y = graph_op (g, "Sigmoid", c, NULL);
  graph_value_set_name (c, "c");
  graph_value_set_name (y, "y");
  graph_add_output (g, c);
  graph_add_output (g, y);
  RtOptions o;
  rt_options_init (&o);
  o.threads = threads;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  g_hash_table_insert (in, g_strdup ("x"), tensor_new_from_data (GRAPH_DTYPE_FLOAT, 4, xd, xv,
                                                                 8 * 48 * 48 * 4, NULL));
  g_hash_table_insert (in, g_strdup ("w"), tensor_new_from_data (GRAPH_DTYPE_FLOAT, 4, wd, wv,
                                                                 16 * 8 * 9 * 4, NULL));
  g_assert_true (rt_session_run (s, in, out, &error));
  g_assert_no_error (error);
  *conv = tensor_ref (g_hash_table_lookup (out, "c"));
  *sig = tensor_ref (g_hash_table_lookup (out, "y"));
}

/* Conv's im2col (split over channels) and Sigmoid (split over elements)
 * with 1 and 3 threads: the right values; Sigmoid of the same input gives
 * the same bytes (OpenBLAS's sgemm itself may round differently with
 * another thread count, so the Conv outputs are compared to 1e-6). */
static void
test_threads (void)
{
  gint64 nx = 8 * 48 * 48, nw = 16 * 8 * 9;
  g_autofree float *xv = g_new (float, nx);
  g_autofree float *wv = g_new (float, nw);
  for (gint64 i = 0; i < nx; i++)
    xv[i] = (float) ((i * 7919) % 1000) / 1000.0f - 0.5f;
  for (gint64 i = 0; i < nw; i++)
    wv[i] = (float) ((i * 104729) % 997) / 997.0f - 0.5f;
  g_autoptr (Tensor) c1 = NULL, s1 = NULL, c3 = NULL, s3 = NULL;
  run_conv_sigmoid (1, xv, wv, &c1, &s1);
  run_conv_sigmoid (3, xv, wv, &c3, &s3);
  /* Output (0, 5, 10, 20) and (0, 15, 0, 47) (a padded corner) by the
   * definition, in double. */
  static const int at[2][3] = { { 5, 10, 20 }, { 15, 0, 47 } };
  for (int k = 0; k < 2; k++)
    {
      int m = at[k][0], oh = at[k][1], ow = at[k][2];
      double acc = 0;
      for (int ci = 0; ci < 8; ci++)
        for (int kh = 0; kh < 3; kh++)
          for (int kw = 0; kw < 3; kw++)
            {
              int ih = oh - 1 + kh, iw = ow - 1 + kw;
              if (ih >= 0 && ih < 48 && iw >= 0 && iw < 48)
                acc += (double) wv[((m * 8 + ci) * 3 + kh) * 3 + kw] * xv[(ci * 48 + ih) * 48 + iw];
            }
      gint64 idx = (m * 48 + oh) * 48 + ow;
      g_assert_cmpfloat_with_epsilon (tensor_get_double (c3, idx), acc, 1e-5);
      g_assert_cmpfloat_with_epsilon (tensor_get_double (s3, idx), 1.0 / (1.0 + exp (-acc)), 1e-6);
    }
  RtCompareResult r;
  g_assert_true (rt_compare (c1, c3, 1e-5, 1e-6, FALSE, &r));
  /* Sigmoid over identical input bytes: identical output bytes. */
  g_autoptr (Tensor) s3b = NULL, c3b = NULL;
  run_conv_sigmoid (3, xv, wv, &c3b, &s3b);
  g_assert_true (tensor_equal (c3, c3b));
  g_assert_true (tensor_equal (s3, s3b));
  g_test_message ("Conv bytes identical with 1 and 3 threads: %s",
                  tensor_equal (c1, c3) ? "yes" : "no");
  /* Sigmoid alone on one input: the same bytes with 1 and 3 threads. */
  Tensor *sig[2] = { NULL, NULL };
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (Graph) g = graph_new ();
      graph_set_opset (g, "", 13);
      GraphValue *y = graph_op (g, "Sigmoid", input (g, "x", GRAPH_DTYPE_FLOAT, 4,
                                                     tensor_dims (c1)), NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      RtOptions o;
      rt_options_init (&o);
      o.threads = k ? 3 : 1;
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_assert_no_error (error);
      g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
      g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
      g_hash_table_insert (in, g_strdup ("x"), tensor_ref (c1));
      g_assert_true (rt_session_run (s, in, out, &error));
      sig[k] = tensor_ref (g_hash_table_lookup (out, "y"));
    }
  g_assert_true (tensor_equal (sig[0], sig[1]));
  g_assert_true (tensor_equal (sig[0], s1));
  tensor_unref (sig[0]);
  tensor_unref (sig[1]);
}

/* Node `op` on inputs "c", "x", "y" (the first of them not NULL), run
 * with `threads`; its output. */
static Tensor *
run_op (int threads, const char *op, Tensor *c, Tensor *x, Tensor *y)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 17);
  Tensor *ts[3] = { c, x, y };
  const char *names[3] = { "c", "x", "y" };
  GraphValue *ins[3] = { NULL, NULL, NULL };
  for (int i = 0; i < 3 && ts[i]; i++)
    ins[i] = input (g, names[i], tensor_dtype (ts[i]), tensor_rank (ts[i]), tensor_dims (ts[i]));
  GraphValue *o = graph_op (g, op, ins[0], ins[1], ins[2], NULL);
  graph_value_set_name (o, "o");
  graph_add_output (g, o);
  g_autoptr (GHashTable) in = fz_inputs_new ();
  for (int i = 0; i < 3 && ts[i]; i++)
    g_hash_table_insert (in, g_strdup (names[i]), tensor_ref (ts[i]));
  return fz_run_threads (g, in, threads, "o");
}

static Tensor *
run_where (int threads, Tensor *c, Tensor *x, Tensor *y)
{
  return run_op (threads, "Where", c, x, y);
}

/* LayerNormalization's rows 8 at a time (their sums side by side in a
 * vector) give the bytes of the same rows one at a time: 13 rows of 50
 * (one block of 8, a tail of 2 past 6 x 8 columns), each row against the
 * row alone as a [1, 50] input. */
static void
test_layernorm_rows8 (void)
{
  const gint64 xd[2] = { 13, 50 }, rd[2] = { 1, 50 }, nd[1] = { 50 };
  float xv[13 * 50], sv[50], bv[50];
  for (int i = 0; i < 13 * 50; i++)
    xv[i] = (float) ((i * 7919) % 1000) / 100.0f - 4.7f + (float) (i / 50);
  for (int i = 0; i < 50; i++)
    sv[i] = 0.5f + (float) i / 37.0f, bv[i] = (float) i / 11.0f - 2.0f;
  g_autoptr (Tensor) x = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, xd, xv, sizeof xv, NULL);
  g_autoptr (Tensor) sc = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, nd, sv, sizeof sv, NULL);
  g_autoptr (Tensor) b = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, nd, bv, sizeof bv, NULL);
  g_autoptr (Tensor) y = run_op (1, "LayerNormalization", x, sc, b);
  g_assert_cmpint (tensor_numel (y), ==, 13 * 50);
  for (int r = 0; r < 13; r++)
    {
      g_autoptr (Tensor) xr = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, rd, xv + r * 50,
                                                    50 * sizeof (float), NULL);
      g_autoptr (Tensor) yr = run_op (1, "LayerNormalization", xr, sc, b);
      g_assert_cmpmem ((const float *) tensor_data (y) + r * 50, 50 * sizeof (float),
                       tensor_data (yr), 50 * sizeof (float));
    }
}

/* Batched float MatMul of products large enough for the packed kernels
 * (attention's heads; B packed per product), batch dims broadcast both
 * ways, M and K not multiples of the tiles: every element against a
 * double product, 1 and 3 threads the same bytes. */
static void
test_batched_matmul (void)
{
  const gint64 ad[4] = { 2, 1, 21, 70 }, bd[4] = { 1, 3, 70, 45 };
  fz_rng_state = 12345;
  g_autoptr (Tensor) a = fz_random_tensor (4, ad);
  g_autoptr (Tensor) b = fz_random_tensor (4, bd);
  const float *av = tensor_data (a), *bv = tensor_data (b);
  g_autoptr (Tensor) o1 = run_op (1, "MatMul", a, b, NULL);
  g_autoptr (Tensor) o3 = run_op (3, "MatMul", a, b, NULL);
  g_assert_cmpint (tensor_numel (o1), ==, 2 * 3 * 21 * 45);
  g_assert_true (tensor_equal (o1, o3));
  for (gint64 p = 0; p < 2; p++)
    for (gint64 q = 0; q < 3; q++)
      for (gint64 i = 0; i < 21; i++)
        for (gint64 jj = 0; jj < 45; jj++)
          {
            double sum = 0, mag = 0;
            for (gint64 k = 0; k < 70; k++)
              {
                double t = (double) av[(p * 21 + i) * 70 + k] * bv[(q * 70 + k) * 45 + jj];
                sum += t;
                mag += fabs (t);
              }
            double got = tensor_get_double (o1, ((p * 3 + q) * 21 + i) * 45 + jj);
            if (fabs (got - sum) > 1e-6 * mag)
              g_error ("o[%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                       G_GINT64_FORMAT "] = %.9g, double gives %.9g", p, q, i, jj, got, sum);
          }
}

/* Where by rows of the last axis, rows split over the threads: a causal
 * mask (c [T, T] against scores [1, H, T, T] and a scalar, as GPT's),
 * broadcasting along the last axis too (c [2, 4, 3, 1]), 1-, 4- and 8-byte
 * elements: each element against its own index arithmetic, 1 and 3
 * threads the same bytes. */
static void
test_where_rows (void)
{
  struct { gint64 c[4], x[4], y[4]; GraphDType dt; } cases[] = {
    { { 1, 1, 40, 300 }, { 1, 6, 40, 300 }, { 1, 1, 1, 1 }, GRAPH_DTYPE_FLOAT },
    { { 2, 4, 3, 1 }, { 2, 1, 3, 70 }, { 1, 4, 1, 70 }, GRAPH_DTYPE_INT64 },
    { { 1, 1, 1, 9 }, { 3, 1, 5, 9 }, { 3, 2, 5, 1 }, GRAPH_DTYPE_UINT8 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      const gint64 *cd = cases[t].c, *xd = cases[t].x, *yd = cases[t].y;
      gint64 od[4], cn = 1, xn = 1, yn = 1;
      for (int a = 0; a < 4; a++)
        {
          od[a] = MAX (cd[a], MAX (xd[a], yd[a]));
          cn *= cd[a], xn *= xd[a], yn *= yd[a];
        }
      gsize es = graph_dtype_size (cases[t].dt);
      g_autofree guint8 *cb = g_new (guint8, cn);
      g_autofree guint8 *xb = g_new (guint8, xn * es), *yb = g_new (guint8, yn * es);
      for (gint64 i = 0; i < cn; i++)
        cb[i] = (i * 7 + i / 3) % 3 == 0;
      for (gint64 i = 0; i < xn * (gint64) es; i++)
        xb[i] = (guint8) (i * 13 + 1);
      for (gint64 i = 0; i < yn * (gint64) es; i++)
        yb[i] = (guint8) (i * 29 + 200);
      g_autoptr (Tensor) c = tensor_new_from_data (GRAPH_DTYPE_BOOL, 4, cd, cb, cn, NULL);
      g_autoptr (Tensor) x = tensor_new_from_data (cases[t].dt, 4, xd, xb, xn * es, NULL);
      g_autoptr (Tensor) y = tensor_new_from_data (cases[t].dt, 4, yd, yb, yn * es, NULL);
      g_autoptr (Tensor) o1 = run_where (1, c, x, y);
      g_autoptr (Tensor) o3 = run_where (3, c, x, y);
      g_assert_cmpint (tensor_numel (o1), ==, od[0] * od[1] * od[2] * od[3]);
      g_assert_true (tensor_equal (o1, o3));
      const guint8 *ov = tensor_data (o1);
      guint from_x = 0;
      for (gint64 i0 = 0; i0 < od[0]; i0++)
        for (gint64 i1 = 0; i1 < od[1]; i1++)
          for (gint64 i2 = 0; i2 < od[2]; i2++)
            for (gint64 i3 = 0; i3 < od[3]; i3++)
              {
                const gint64 i[4] = { i0, i1, i2, i3 };
                gint64 ci = 0, xi = 0, yi = 0;
                for (int a = 0; a < 4; a++)
                  {
                    ci = ci * cd[a] + (cd[a] == 1 ? 0 : i[a]);
                    xi = xi * xd[a] + (xd[a] == 1 ? 0 : i[a]);
                    yi = yi * yd[a] + (yd[a] == 1 ? 0 : i[a]);
                  }
                gint64 oi = ((i0 * od[1] + i1) * od[2] + i2) * od[3] + i3;
                const guint8 *want = cb[ci] ? xb + xi * es : yb + yi * es;
                from_x += cb[ci];
                g_assert_cmpmem (ov + oi * es, es, want, es);
              }
      g_assert_cmpuint (from_x, >, 0);
      g_assert_cmpuint (from_x, <, tensor_numel (o1));
    }
}

void
test_kernels_register (void)
{
  g_test_add_func ("/runtime/threads/where", test_where_rows);
  g_test_add_func ("/runtime/threads/batched-matmul", test_batched_matmul);
  g_test_add_func ("/runtime/layernorm/rows-of-8", test_layernorm_rows8);
  g_test_add_func ("/runtime/rnn/fixtures", test_rnn_fixtures);
  g_test_add_func ("/runtime/rnn/bad-input", test_bad_input);
  g_test_add_func ("/runtime/einsum/fixtures", test_einsum_fixtures);
  g_test_add_func ("/runtime/half/fixtures", test_half_fixtures);
  g_test_add_func ("/runtime/int-pow/fixtures", test_int_pow_fixtures);
  g_test_add_func ("/runtime/pool-padding/fixtures", test_pool_padding_fixtures);
  g_test_add_func ("/runtime/resize-nearest/fixtures", test_resize_nearest_fixtures);
  g_test_add_func ("/runtime/range-limits/fixtures", test_range_limits_fixtures);
  g_test_add_func ("/runtime/einsum/bad-input", test_einsum_bad_input);
  g_test_add_func ("/runtime/control/fixtures", test_control_fixtures);
  g_test_add_func ("/runtime/ties/fixtures", test_tie_fixtures);
  g_test_add_func ("/runtime/threads/conv-sigmoid", test_threads);
}
