/* The packed GEMM kernels (runtime/conv-packed.c) on row counts that fill
 * no whole tile: the edge kernels (only the last tile's rows) give the same
 * bits as the full kernel over A padded with more rows, and both agree
 * with a double-precision product computed here; for the MatMul
 * orientation (rt_packed_gemm_b, B packed once, by blocks of panels) and
 * the Conv one (rt_conv_packed_gemm, A packed once), with each kernel the
 * CPU has (AVX-512F, then AVX2 + FMA).  And LSTM, GRU and RNN nodes whose
 * constant W and R are packed (runtime/k-rnn.c: a GEMV over the panels at
 * batch 1, the packed GEMM otherwise) agree with the same nodes taking W
 * and R as graph inputs (OpenBLAS), the LSTM's vectorised cell also against
 * the scalar loop (taken with a clip no value reaches); so do one-row Gemm nodes with a constant
 * B (a GEMV over its packed panels) and the same with B an input (sgemv). */
#include "tests/runtime/fusion-testutil.h"
#include "runtime/conv-packed.h"
#include <math.h>

enum { K = 300, N = 1000 };   /* 3 K slices; 31 full 32-wide panels + 8 columns */

static float *
random_floats (gint64 n)
{
  float *p = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    p[i] = fz_rnd ();
  return p;
}

/* c (m x N) against a · b in double: within 1e-6 of Σ |a||b|. */
static void
check_product (const float *a, const float *b, const float *c, gint64 m)
{
  for (gint64 i = 0; i < m; i++)
    for (gint64 j = 0; j < N; j++)
      {
        double s = 0, mag = 0;
        for (gint64 k = 0; k < K; k++)
          {
            s += (double) a[i * K + k] * b[k * N + j];
            mag += fabs ((double) a[i * K + k] * b[k * N + j]);
          }
        if (fabs (c[i * N + j] - s) > 1e-6 * mag)
          g_error ("m %" G_GINT64_FORMAT ": c[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                   "] = %.9g, double gives %.9g", m, i, j, c[i * N + j], s);
      }
}

/* C (m x N) := A · B through rt_packed_gemm_b. */
static float *
matmul_packed (const RtPackedW *pb, const float *a, gint64 m)
{
  float *c = g_new (float, m * N);
  g_autofree float *ap = g_new (float, rt_packed_a_floats (pb, m));
  rt_packed_pack_a (pb, a, K, m, ap);
  rt_packed_gemm_b (pb, ap, m, c, N, 0, rt_packed_b_panels (pb));
  return c;
}

/* C (m x N) := A · B through rt_conv_packed_gemm (A as a 1x1 Conv's W). */
static float *
conv_packed (const float *a, const float *b, gint64 m)
{
  const gint64 wd[4] = { m, K, 1, 1 };
  g_autoptr (Tensor) w = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 4, wd, a,
                                               (gsize) (m * K) * sizeof (float), NULL);
  RtPackedW *p = rt_conv_pack_weights (w, 1);
  g_assert_nonnull (p);
  g_autofree float *bp = g_new (float, rt_conv_packed_b_floats (p, N));
  rt_conv_pack_b_rows (p, b, N, N, bp);
  float *c = g_new (float, m * N);
  rt_conv_packed_gemm (p, 0, bp, N, c, N, NULL, NULL, NULL);
  rt_conv_packed_free (p);
  return c;
}

static void
check_kernel (void)
{
  g_autofree float *b = random_floats (K * N);
  RtPackedW *pb = rt_packed_b_new (b, K, N);
  if (pb == NULL)
    {
      g_test_skip ("no packed kernel on this CPU");
      return;
    }
  gint64 mr = rt_packed_mr (pb);
  const gint64 ms[] = { 1, 2, 3, 5, 7, 9, 13, 35 };
  for (guint t = 0; t < G_N_ELEMENTS (ms); t++)
    {
      gint64 m = ms[t], full = (m + mr - 1) / mr * mr;
      /* A's first m rows, then more rows to fill the last tile */
      g_autofree float *a = random_floats (full * K);
      g_autofree float *c = matmul_packed (pb, a, m);
      g_autofree float *c_full = matmul_packed (pb, a, full);
      check_product (a, b, c, m);
      g_assert_cmpmem (c, (gsize) (m * N) * sizeof (float), c_full, (gsize) (m * N) * sizeof (float));
      g_autofree float *d = conv_packed (a, b, m);
      g_autofree float *d_full = conv_packed (a, b, full);
      check_product (a, b, d, m);
      g_assert_cmpmem (d, (gsize) (m * N) * sizeof (float), d_full, (gsize) (m * N) * sizeof (float));
    }
  rt_conv_packed_free (pb);
}

static void
test_edge_rows (void)
{
  fz_rng_state = 12345;
  check_kernel ();
  g_setenv ("SYMONNX_PACKED_CONV_AVX2", "1", TRUE);
  check_kernel ();
  g_unsetenv ("SYMONNX_PACKED_CONV_AVX2");
}

/* Y and Y_h of op (X: T=5, batch nb, 7 inputs; H=20, so an LSTM's 80
 * gate columns fill no whole panel), W, R and B initializers (packed) or
 * graph inputs (BLAS), and the largest difference over the two. */
static double
rnn_packed_vs_blas (const char *op, guint gates, gint64 dirs, gint64 nb, gboolean lbr,
                    gboolean old_cell)
{
  const gint64 T = 5, NI = 7, H = 20;
  const gint64 xd[3] = { T, nb, NI }, wd[3] = { dirs, gates * H, NI };
  const gint64 rd[3] = { dirs, gates * H, H }, bd[2] = { dirs, 2 * gates * H };
  fz_rng_state = 99;
  g_autoptr (Tensor) x = fz_random_tensor (3, xd), w = fz_random_tensor (3, wd);
  g_autoptr (Tensor) r = fz_random_tensor (3, rd), b = fz_random_tensor (2, bd);
  Tensor *out[2][2];
  for (int packed = 0; packed < 2; packed++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (14);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), tensor_ref (x));
      GraphValue *wv, *rv, *bv;
      if (packed)
        {
          wv = graph_add_initializer (g, "w", w);
          rv = graph_add_initializer (g, "r", r);
          bv = graph_add_initializer (g, "b", b);
        }
      else
        {
          wv = fz_input (g, "w", 3, wd);
          rv = fz_input (g, "r", 3, rd);
          bv = fz_input (g, "b", 2, bd);
          g_hash_table_insert (in, g_strdup ("w"), tensor_ref (w));
          g_hash_table_insert (in, g_strdup ("r"), tensor_ref (r));
          g_hash_table_insert (in, g_strdup ("b"), tensor_ref (b));
        }
      /* a clip no value reaches takes the LSTM off its vectorised cell */
      gboolean clip = !packed && old_cell;
      GraphNode *n = graph_op_outputs (g, op, 2, fz_input (g, "x", 3, xd), wv, rv, bv,
                                       "hidden_size_i", H, "direction_s",
                                       dirs == 2 ? "bidirectional" : "forward",
                                       "linear_before_reset_i", (gint64) lbr,
                                       clip ? "clip_f" : NULL, 1e30, NULL);
      g_assert_nonnull (n);
      graph_value_set_name (graph_node_output (n, 0), "y");
      graph_value_set_name (graph_node_output (n, 1), "yh");
      graph_add_output (g, graph_node_output (n, 0));
      graph_add_output (g, graph_node_output (n, 1));
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (GHashTable) res = fz_inputs_new ();
      g_assert_true (rt_session_run (s, in, res, &error));
      g_assert_no_error (error);
      out[packed][0] = tensor_ref (g_hash_table_lookup (res, "y"));
      out[packed][1] = tensor_ref (g_hash_table_lookup (res, "yh"));
    }
  double diff = 0;
  for (int o = 0; o < 2; o++)
    {
      g_assert_cmpint (tensor_numel (out[0][o]), ==, tensor_numel (out[1][o]));
      g_assert_cmpint (tensor_numel (out[0][o]), ==, (o ? 1 : T) * dirs * nb * H);
      for (gint64 i = 0; i < tensor_numel (out[0][o]); i++)
        diff = MAX (diff, fabs (tensor_get_double (out[0][o], i) - tensor_get_double (out[1][o], i)));
      tensor_unref (out[0][o]);
      tensor_unref (out[1][o]);
    }
  return diff;
}

static void
check_rnn (void)
{
  const struct { const char *op; guint gates; gboolean lbr; } ops[] = {
    { "LSTM", 4, FALSE }, { "GRU", 3, TRUE }, { "GRU", 3, FALSE }, { "RNN", 1, FALSE },
  };
  for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
    for (gint64 dirs = 1; dirs <= 2; dirs++)
      for (gint64 nb = 1; nb <= 3; nb += 2)
        {
          for (int old_cell = 0; old_cell < 2; old_cell++)
            {
              double d = rnn_packed_vs_blas (ops[o].op, ops[o].gates, dirs, nb, ops[o].lbr,
                                             old_cell);
              if (d > 1e-5)
                g_error ("%s (lbr %d), %" G_GINT64_FORMAT " directions, batch %" G_GINT64_FORMAT
                         ", scalar cell %d: packed and BLAS differ by %g", ops[o].op,
                         ops[o].lbr, dirs, nb, old_cell, d);
            }
        }
}

static void
test_rnn_weights (void)
{
  check_rnn ();
  g_setenv ("SYMONNX_PACKED_CONV_AVX2", "1", TRUE);
  check_rnn ();
  g_unsetenv ("SYMONNX_PACKED_CONV_AVX2");
}

/* Gemm of one row (1 x 300) by B (300 x 1000, or its transpose with
 * transB), C (1000) with alpha 0.5, beta 2 or no C, B an initializer or
 * an input: the largest difference, within 1e-5 of Σ |a||b| + |C|. */
static void
check_gemm (void)
{
  for (int tb = 0; tb < 2; tb++)
    for (int with_c = 0; with_c < 2; with_c++)
      {
        const gint64 ad[2] = { 1, K }, bd[2] = { tb ? N : K, tb ? K : N }, cd[1] = { N };
        fz_rng_state = 7 + tb + 2 * with_c;
        g_autoptr (Tensor) a = fz_random_tensor (2, ad), b = fz_random_tensor (2, bd);
        g_autoptr (Tensor) c = fz_random_tensor (1, cd);
        Tensor *out[2];
        for (int packed = 0; packed < 2; packed++)
          {
            g_autoptr (Graph) g = fz_new_graph_at (13);
            g_autoptr (GHashTable) in = fz_inputs_new ();
            g_hash_table_insert (in, g_strdup ("a"), tensor_ref (a));
            GraphValue *bv;
            if (packed)
              bv = graph_add_initializer (g, "b", b);
            else
              {
                bv = fz_input (g, "b", 2, bd);
                g_hash_table_insert (in, g_strdup ("b"), tensor_ref (b));
              }
            GraphValue *av = fz_input (g, "a", 2, ad);
            GraphValue *y = with_c ? graph_op (g, "Gemm", av, bv, graph_add_initializer (g, "c", c),
                                               "transB_i", (gint64) tb, "alpha_f", 0.5, "beta_f",
                                               2.0, NULL)
                                   : graph_op (g, "Gemm", av, bv, "transB_i", (gint64) tb,
                                               "alpha_f", 0.5, NULL);
            graph_value_set_name (y, "y");
            graph_add_output (g, y);
            guint nodes;
            out[packed] = fz_run (g, in, FALSE, "y", &nodes);
          }
        const float *av = tensor_data (a), *bv = tensor_data (b), *cv = tensor_data (c);
        for (gint64 j = 0; j < N; j++)
          {
            double ref = 0, mag = 0;
            for (gint64 k = 0; k < K; k++)
              {
                double t = (double) av[k] * (tb ? bv[j * K + k] : bv[k * N + j]);
                ref += t;
                mag += fabs (t);
              }
            ref = 0.5 * ref + (with_c ? 2.0 * cv[j] : 0);
            mag = 0.5 * mag + (with_c ? 2.0 * fabs (cv[j]) : 0);
            for (int v = 0; v < 2; v++)
              {
                double got = ((const float *) tensor_data (out[v]))[j];
                if (fabs (got - ref) > 1e-5 * mag)
                  g_error ("Gemm transB %d, C %d, %s: y[%" G_GINT64_FORMAT "] = %.9g, double gives %.9g",
                           tb, with_c, v ? "packed" : "sgemv", j, got, ref);
              }
          }
        tensor_unref (out[0]);
        tensor_unref (out[1]);
      }
}

static void
test_gemm_row (void)
{
  check_gemm ();
  g_setenv ("SYMONNX_PACKED_CONV_AVX2", "1", TRUE);
  check_gemm ();
  g_unsetenv ("SYMONNX_PACKED_CONV_AVX2");
}

void
test_packed_gemm_register (void)
{
  g_test_add_func ("/runtime/packed-gemm/gemm-row", test_gemm_row);
  g_test_add_func ("/runtime/packed-gemm/rnn-weights", test_rnn_weights);
  g_test_add_func ("/runtime/packed-gemm/edge-rows", test_edge_rows);
}
