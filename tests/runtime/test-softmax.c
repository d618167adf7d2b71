/* rt_vexp (runtime/vexp.c) against libm's exp, and Softmax/LogSoftmax over
 * rows longer than their exp buffer (k-reduce.c) against the formulas
 * evaluated in double with libm in the test. */
#include "tests/runtime/fusion-testutil.h"
#include "runtime/vexp.h"
#include "runtime/verf.h"
#include <math.h>

/* Within one unit in the last place of libm's exp over the range softmax
 * meets (x - max <= 0) and beyond; NaN, infinities and arguments past
 * ±708 exactly as libm. */
static void
check_vexp (void)
{
  enum { N = 20003 };
  g_autofree double *x = g_new (double, N), *y = g_new (double, N);
  for (int i = 0; i < N; i++)
    x[i] = i < 10000 ? -40.0 * i / 10000 : -760.0 + 1520.0 * (i - 10000) / 10000;
  x[5] = NAN;
  x[6] = -INFINITY;
  x[7] = INFINITY;
  x[8] = -0.0;
  memcpy (y, x, sizeof (double) * N);
  rt_vexp (y, N);
  for (int i = 0; i < N; i++)
    {
      double e = exp (x[i]);
      if (isnan (e) || isinf (e) || e == 0 || fabs (x[i]) > 708)
        g_assert_true (memcmp (&e, &y[i], sizeof e) == 0 || (isnan (e) && isnan (y[i])));
      else
        g_assert_cmpfloat (fabs (y[i] - e), <=, nextafter (e, INFINITY) - e);
    }
}

/* rt_vexp_shifted_sum's exps and sum against libm's in double. */
static double
check_shifted_sum (const float *x, gint64 n, double m)
{
  g_autofree double *ex = g_new (double, n);
  double s = rt_vexp_shifted_sum (x, n, m, ex), ref = 0;
  for (gint64 i = 0; i < n; i++)
    {
      double e = exp ((double) x[i] - m);
      ref += e;
      if (e == 0 || isnan (e))
        g_assert_true (memcmp (&e, &ex[i], sizeof e) == 0 || (isnan (e) && isnan (ex[i])));
      else
        g_assert_cmpfloat (fabs (ex[i] - e), <=, nextafter (e, INFINITY) - e);
    }
  g_assert_cmpfloat (fabs (s - ref), <=, 1e-14 * ref);
  return s;
}

/* Both vector kernels where the CPU has AVX-512 (AVX2 picked through
 * SYMONNX_VEXP_AVX2): each within an ulp of libm, and the sums of their
 * 8 partial sums the same bits. */
static void
test_vexp (void)
{
  enum { N = 1003 };
  g_autofree float *x = g_new (float, N);
  fz_rng_state = 4242;
  for (int i = 0; i < N; i++)
    x[i] = 30 * fz_rnd ();
  x[17] = -INFINITY;   /* a masked entry: exp 0 in the vector */
  check_vexp ();
  double s = check_shifted_sum (x, N, 30.0);
  g_setenv ("SYMONNX_VEXP_AVX2", "1", TRUE);
  check_vexp ();
  double s2 = check_shifted_sum (x, N, 30.0);
  g_unsetenv ("SYMONNX_VEXP_AVX2");
  g_assert_cmpmem (&s, sizeof s, &s2, sizeof s2);
}

/* Softmax and LogSoftmax (opset 13, last axis) over 3 rows of n: 5000
 * (chunks of the exp buffer, a partial one) and 13 (a partial vector). */
static void
test_long_rows (void)
{
  for (gint64 n = 13; n <= 5000; n += 4987)
    for (int lg = 0; lg < 2; lg++)
      {
        const gint64 xd[2] = { 3, n };
        g_autoptr (Graph) g = fz_new_graph_at (13);
        GraphValue *y = graph_op (g, lg ? "LogSoftmax" : "Softmax", fz_input (g, "x", 2, xd), NULL);
        graph_value_set_name (y, "y");
        graph_add_output (g, y);
        g_autoptr (GHashTable) in = fz_inputs_new ();
        g_autofree float *xv = g_new (float, 3 * n);
        for (gint64 i = 0; i < 3 * n; i++)
          xv[i] = 20 * fz_rnd ();   /* exps over [-40, 0] */
        g_hash_table_insert (in, g_strdup ("x"), tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, xd, xv,
                                                                       (gsize) (3 * n) * sizeof (float), NULL));
        guint nodes;
        g_autoptr (Tensor) out = fz_run (g, in, FALSE, "y", &nodes);
        const float *yv = tensor_data (out);
        for (gint64 r = 0; r < 3; r++)
          {
            double m = -INFINITY, s = 0;
            for (gint64 j = 0; j < n; j++)
              m = MAX (m, xv[r * n + j]);
            for (gint64 j = 0; j < n; j++)
              s += exp (xv[r * n + j] - m);
            for (gint64 j = 0; j < n; j++)
              {
                double ref = lg ? xv[r * n + j] - m - log (s) : exp (xv[r * n + j] - m) / s;
                g_assert_cmpfloat (fabs (yv[r * n + j] - ref), <=, fabs (ref) * ldexp (1.0, -23) + 1e-37);
              }
          }
      }
}

/* Rows of 37 (two vectors and a tail of the float row passes) with -inf,
 * NaN, all -inf, a +inf and ties for the max, against the scalar formulas
 * evaluated in double in the test (max over the values that are not NaN,
 * starting at -inf): NaN where they give NaN, else within one float ulp. */
static void
test_special_values (void)
{
  enum { R = 6, N = 37 };
  const gint64 xd[2] = { R, N };
  g_autofree float *xv = g_new (float, R * N);
  fz_rng_state = 777;
  for (gint64 i = 0; i < R * N; i++)
    xv[i] = 4 * fz_rnd ();
  xv[0 * N + 3] = -INFINITY;           /* row 0: one -inf */
  xv[0 * N + 36] = -INFINITY;
  xv[1 * N + 20] = NAN;                /* row 1: a NaN */
  for (gint64 j = 0; j < N; j++)       /* row 2: all -inf */
    xv[2 * N + j] = -INFINITY;
  xv[3 * N + 33] = INFINITY;           /* row 3: +inf */
  xv[4 * N + 5] = xv[4 * N + 30] = 9;  /* row 4: a tie for the max, one in the tail */
  xv[5 * N] = NAN;                     /* row 5: NaN first */
  for (int lg = 0; lg < 2; lg++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (13);
      GraphValue *y = graph_op (g, lg ? "LogSoftmax" : "Softmax", fz_input (g, "x", 2, xd), NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"),
                           tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, xd, xv,
                                                 (gsize) (R * N) * sizeof (float), NULL));
      guint nodes;
      g_autoptr (Tensor) out = fz_run (g, in, FALSE, "y", &nodes);
      const float *yv = tensor_data (out);
      for (gint64 r = 0; r < R; r++)
        {
          double m = -INFINITY, s = 0;
          for (gint64 j = 0; j < N; j++)
            if (xv[r * N + j] > m)
              m = xv[r * N + j];
          for (gint64 j = 0; j < N; j++)
            s += exp ((double) xv[r * N + j] - m);
          for (gint64 j = 0; j < N; j++)
            {
              double ref = lg ? (double) xv[r * N + j] - m - log (s)
                              : exp ((double) xv[r * N + j] - m) / s;
              float got = yv[r * N + j];
              if (isnan (ref) || isnan (got))
                g_assert_true (isnan (ref) && isnan (got));
              else if (isinf (ref) || ref == 0)
                g_assert_cmpfloat (got, ==, ref);
              else
                g_assert_cmpfloat (fabs (got - ref), <=, fabs (ref) * ldexp (1.0, -23));
            }
        }
    }
}

/* rt_verf (runtime/verf.c) against libm's erf rounded to float: at most one
 * unit in the last place off, and that rarely (the fit's error, ~2e-14,
 * only matters within that of a rounding boundary); the AVX-512 lanes, the
 * AVX2 ones (SYMONNX_VERF_AVX2) and the scalar code (SYMONNX_VERF_SCALAR)
 * give the same bits; zeros,
 * subnormals, the intervals' edges, ±4 and past, infinities and NaN. */
static void
test_verf (void)
{
  const gint64 n = 1 << 18;
  g_autofree float *x = g_new (float, n), *y = g_new (float, n), *z = g_new (float, n);
  guint32 state = 12345;
  for (gint64 i = 0; i < n; i++)
    {
      state = state * 1664525u + 1013904223u;
      double u = (double) (state >> 8) / (1 << 24);   /* [0, 1) */
      /* a quarter near 0 (to 1e-3), the rest over [-5, 5) */
      x[i] = (float) (i % 4 == 0 ? (u - 0.5) * 2e-3 : (u - 0.5) * 10);
    }
  /* the edges: 0.5 + k 0.4375 and the floats either side, and specials */
  const float edges[] = { 0.0f, -0.0f, 1e-40f, -1e-40f, 1e-30f, 4.0f, -4.0f, 3.95f, 1e30f,
                          INFINITY, -INFINITY };
  gint64 at = 0;
  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    x[at++] = edges[i];
  for (int k = 0; k <= 8; k++)
    {
      float e = (float) (0.5 + 0.4375 * k);
      x[at++] = e, x[at++] = nextafterf (e, 0), x[at++] = nextafterf (e, 10);
      x[at++] = -e, x[at++] = -nextafterf (e, 0);
    }
  x[at++] = NAN;
  rt_verf (x, y, n);
  const char *const others[] = { "SYMONNX_VERF_AVX2", "SYMONNX_VERF_SCALAR" };
  for (guint k = 0; k < G_N_ELEMENTS (others); k++)
    {
      g_setenv (others[k], "1", TRUE);
      rt_verf (x, z, n);
      g_unsetenv (others[k]);
      g_assert_cmpmem (y, n * sizeof (float), z, n * sizeof (float));
    }
  gint64 off = 0;
  for (gint64 i = 0; i < n; i++)
    {
      float want = (float) erf ((double) x[i]);
      if (isnan (want))
        {
          g_assert_true (isnan (y[i]));
          continue;
        }
      if (y[i] == want && signbit (y[i]) == signbit (want))
        continue;
      off++;
      if (!(y[i] == nextafterf (want, INFINITY) || y[i] == nextafterf (want, -INFINITY)))
        g_error ("erf (%a) = %a, libm %a", x[i], y[i], want);
    }
  g_assert_cmpint (off, <=, n / 10000);
}

void
test_softmax_register (void)
{
  g_test_add_func ("/runtime/softmax/vexp", test_vexp);
  g_test_add_func ("/runtime/verf/against-libm", test_verf);
  g_test_add_func ("/runtime/softmax/long-rows", test_long_rows);
  g_test_add_func ("/runtime/softmax/special-values", test_special_values);
}
