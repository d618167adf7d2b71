/* The random kernels (runtime/k-random.c): RandomUniform/Normal(+Like),
 * Bernoulli, Multinomial and training-mode Dropout.  Their values cannot
 * equal another generator's, so the tests check what the definitions fix:
 * ranges, exact outcomes (p = 0 or 1, zero-probability classes, the
 * dropout scale), sample moments and frequencies against the distribution
 * (seeded, so the runs are reproducible; tolerances are 5 standard errors),
 * that a seed repeats its values, and ONNX's backend-test inputs run to
 * outputs of the expected shape and type with those properties. */
#include "tests/runtime/test-runtime.h"
#include "export/onnxio.h"
#include "runtime/kernel.h"
#include "tests/runtime/aten-testutil.h"
#include <math.h>
#include <string.h>

/* One `op` node at opset 17 (Bernoulli is 15): test_run_op_valist with the
 * attribute pairs up to NULL; outs gets the n_out outputs. */
static GError *
run (const char *op, guint n_in, Tensor **ts, guint n_out, Tensor **outs, ...)
{
  va_list ap;
  va_start (ap, outs);
  GError *error = test_run_op_valist (17, op, n_in, ts, n_out, outs, ap);
  va_end (ap);
  return error;
}

/* A tensor of dt holding the doubles v (converted as Cast does). */
static Tensor *
tensor_of (GraphDType dt, guint rank, const gint64 *dims, const double *v)
{
  gint64 n = rt_shape_numel (rank, dims);
  gsize size = (gsize) n * rt_dtype_size (dt);
  g_autofree guint8 *buf = g_malloc0 (MAX (size, 1));
  g_assert_true (rt_convert (v, GRAPH_DTYPE_DOUBLE, buf, dt, n));
  return tensor_new_from_data (dt, rank, dims, buf, size, NULL);
}

static Tensor *
filled (GraphDType dt, guint rank, const gint64 *dims, double v)
{
  gint64 n = rt_shape_numel (rank, dims);
  g_autofree double *d = g_new (double, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    d[i] = v;
  return tensor_of (dt, rank, dims, d);
}

static void
moments (const Tensor *t, double *mean, double *var)
{
  double s = 0, s2 = 0;
  gint64 n = tensor_numel (t);
  for (gint64 i = 0; i < n; i++)
    {
      double v = tensor_get_double (t, i);
      s += v;
      s2 += v * v;
    }
  *mean = s / (double) n;
  *var = s2 / (double) n - *mean * *mean;
}

static gboolean
same_values (const Tensor *a, const Tensor *b)
{
  return tensor_nbytes (a) == tensor_nbytes (b)
         && memcmp (tensor_data (a), tensor_data (b), tensor_nbytes (a)) == 0;
}

static void
test_uniform (void)
{
  static const gint64 shape[2] = { 100, 100 };   /* N = 10^4 */
  Tensor *u[3] = { NULL };
  for (int k = 0; k < 3; k++)
    g_assert_no_error (run ("RandomUniform", 0, NULL, 1, &u[k], "shape_is", 2, shape, "low_f", -2.0,
                            "high_f", 3.0, "seed_f", k == 2 ? 7.0 : 3.0, NULL));
  g_assert_cmpint (tensor_dtype (u[0]), ==, GRAPH_DTYPE_FLOAT);
  g_assert_cmpuint (tensor_rank (u[0]), ==, 2);
  g_assert_cmpint (tensor_dim (u[0], 1), ==, 100);
  for (gint64 i = 0; i < tensor_numel (u[0]); i++)
    {
      double v = tensor_get_double (u[0], i);
      g_assert_true (v >= -2.0 && v < 3.0);
    }
  /* U(-2, 3): mean 0.5, variance 25/12; standard error of the mean
   * 5/√12/100 = 0.0144, of the variance about 0.019 */
  double m, var;
  moments (u[0], &m, &var);
  g_assert_cmpfloat (fabs (m - 0.5), <, 5 * 0.0144);
  g_assert_cmpfloat (fabs (var - 25.0 / 12), <, 5 * 0.019);
  g_assert_true (same_values (u[0], u[1]));    /* a seed repeats */
  g_assert_false (same_values (u[0], u[2]));   /* another seed does not */
  for (int k = 0; k < 3; k++)
    tensor_unref (u[k]);

  /* RandomUniformLike: the input's shape and (without dtype) type */
  static const gint64 d3[3] = { 2, 3, 4 };
  Tensor *ts[1] = { filled (GRAPH_DTYPE_DOUBLE, 3, d3, 0) };
  g_autoptr (Tensor) l = NULL;
  g_assert_no_error (run ("RandomUniformLike", 1, ts, 1, &l, NULL));
  g_assert_cmpint (tensor_dtype (l), ==, GRAPH_DTYPE_DOUBLE);
  g_assert_cmpuint (tensor_numel (l), ==, 24);
  g_assert_cmpint (tensor_dim (l, 2), ==, 4);
  /* an integer input needs a floating dtype */
  Tensor *it[1] = { filled (GRAPH_DTYPE_INT64, 3, d3, 0) };
  GError *error = run ("RandomUniformLike", 1, it, 1, NULL, NULL);
  g_assert_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "is not float, double or float16"));
  g_error_free (error);
  /* a negative dimension is refused, not allocated */
  static const gint64 neg[2] = { 2, -3 };
  error = run ("RandomNormal", 0, NULL, 1, NULL, "shape_is", 2, neg, NULL);
  g_assert_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH);
  g_error_free (error);
}

static void
test_normal (void)
{
  static const gint64 shape[1] = { 10000 };
  g_autoptr (Tensor) z = NULL;
  g_assert_no_error (run ("RandomNormal", 0, NULL, 1, &z, "shape_is", 1, shape, "mean_f", 1.0, "scale_f", 2.0,
                          "dtype_i", (gint64) GRAPH_DTYPE_DOUBLE, "seed_f", 11.0, NULL));
  g_assert_cmpint (tensor_dtype (z), ==, GRAPH_DTYPE_DOUBLE);
  /* N(1, 4): standard error of the mean 0.02, of the variance 4·√(2/N) = 0.057 */
  double m, var;
  moments (z, &m, &var);
  g_assert_cmpfloat (fabs (m - 1.0), <, 5 * 0.02);
  g_assert_cmpfloat (fabs (var - 4.0), <, 5 * 0.057);
  /* RandomNormalLike with dtype: float16 output of a float input's shape */
  static const gint64 d2[2] = { 3, 5 };
  Tensor *ts[1] = { filled (GRAPH_DTYPE_FLOAT, 2, d2, 0) };
  g_autoptr (Tensor) h = NULL;
  g_assert_no_error (run ("RandomNormalLike", 1, ts, 1, &h, "dtype_i", (gint64) GRAPH_DTYPE_FLOAT16, NULL));
  g_assert_cmpint (tensor_dtype (h), ==, GRAPH_DTYPE_FLOAT16);
  g_assert_cmpuint (tensor_numel (h), ==, 15);
}

static void
test_bernoulli (void)
{
  /* p = 0, 1, then 10^4 draws of 0.3 */
  static const gint64 n[1] = { 10002 };
  g_autofree double *pv = g_new (double, n[0]);
  for (gint64 i = 0; i < n[0]; i++)
    pv[i] = i == 0 ? 0.0 : i == 1 ? 1.0 : 0.3;
  Tensor *ts[1] = { tensor_of (GRAPH_DTYPE_FLOAT, 1, n, pv) };
  g_autoptr (Tensor) b = NULL;
  g_assert_no_error (run ("Bernoulli", 1, ts, 1, &b, "dtype_i", (gint64) GRAPH_DTYPE_BOOL, "seed_f", 5.0, NULL));
  g_assert_cmpint (tensor_dtype (b), ==, GRAPH_DTYPE_BOOL);
  g_assert_cmpfloat (tensor_get_double (b, 0), ==, 0.0);
  g_assert_cmpfloat (tensor_get_double (b, 1), ==, 1.0);
  double ones = 0;
  for (gint64 i = 2; i < n[0]; i++)
    ones += tensor_get_double (b, i);
  /* standard error √(0.21/10^4) = 0.0046 */
  g_assert_cmpfloat (fabs (ones / 10000 - 0.3), <, 5 * 0.0046);
  /* a probability outside [0, 1] is an error naming it */
  static const gint64 one[1] = { 2 };
  static const double badv[2] = { 0.5, 1.5 };
  Tensor *bt[1] = { tensor_of (GRAPH_DTYPE_DOUBLE, 1, one, badv) };
  GError *error = run ("Bernoulli", 1, bt, 1, NULL, NULL);
  g_assert_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "probability 1.5 (element 1) is outside [0, 1]"));
  g_error_free (error);
}

static void
test_multinomial (void)
{
  /* row 0: log of (0.1, 0.2, 0.7) + 3 (unnormalised); row 1: log (0, 1, 0) */
  static const gint64 d[2] = { 2, 3 };
  static const double p0[3] = { 0.1, 0.2, 0.7 };
  double xv[6];
  for (int c = 0; c < 3; c++)
    {
      xv[c] = log (p0[c]) + 3.0;
      xv[3 + c] = c == 1 ? 0.0 : -INFINITY;
    }
  Tensor *ts[1] = { tensor_of (GRAPH_DTYPE_FLOAT, 2, d, xv) };
  g_autoptr (Tensor) s = NULL;
  g_assert_no_error (run ("Multinomial", 1, ts, 1, &s, "sample_size_i", (gint64) 10000,
                          "dtype_i", (gint64) GRAPH_DTYPE_INT64, "seed_f", 2.0, NULL));
  g_assert_cmpint (tensor_dtype (s), ==, GRAPH_DTYPE_INT64);
  g_assert_cmpint (tensor_dim (s, 0), ==, 2);
  g_assert_cmpint (tensor_dim (s, 1), ==, 10000);
  double count[3] = { 0 };
  for (gint64 i = 0; i < 10000; i++)
    {
      gint64 c = (gint64) tensor_get_double (s, i);
      g_assert_true (c >= 0 && c < 3);
      count[c]++;
      g_assert_cmpfloat (tensor_get_double (s, 10000 + i), ==, 1.0);   /* the only class */
    }
  for (int c = 0; c < 3; c++)   /* standard error √(p(1−p)/10^4) ≤ 0.005 */
    g_assert_cmpfloat (fabs (count[c] / 10000 - p0[c]), <, 5 * 0.005);
  /* default int32; a row without finite probabilities is an error */
  g_autoptr (Tensor) s32 = NULL;
  Tensor *ys[1] = { filled (GRAPH_DTYPE_DOUBLE, 2, d, 0.0) };
  g_assert_no_error (run ("Multinomial", 1, ys, 1, &s32, NULL));
  g_assert_cmpint (tensor_dtype (s32), ==, GRAPH_DTYPE_INT32);
  g_assert_cmpint (tensor_dim (s32, 1), ==, 1);
  static const double nanrow[6] = { 0, 0, 0, NAN, 0, 0 };
  Tensor *bt[1] = { tensor_of (GRAPH_DTYPE_DOUBLE, 2, d, nanrow) };
  GError *error = run ("Multinomial", 1, bt, 1, NULL, NULL);
  g_assert_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "row 1 has no finite positive probabilities"));
  g_error_free (error);
}

/* Training-mode Dropout: each y is 0 or x / (1 − ratio), the mask says
 * which, about 1 − ratio of them are kept; training off is the identity. */
static void
test_dropout_training (void)
{
  static const gint64 n[1] = { 10000 }, scalar[1] = { 0 };
  g_autofree double *xv = g_new (double, n[0]);
  for (gint64 i = 0; i < n[0]; i++)
    xv[i] = 1.0 + (double) (i % 7);
  Tensor *x = tensor_of (GRAPH_DTYPE_FLOAT, 1, n, xv);
  for (int train = 0; train < 2; train++)
    {
      Tensor *ts[3] = { tensor_ref (x), filled (GRAPH_DTYPE_FLOAT, 0, scalar, 0.25),
                        filled (GRAPH_DTYPE_BOOL, 0, scalar, train) };
      Tensor *o[2] = { NULL };
      g_assert_no_error (run ("Dropout", 3, ts, 2, o, "seed_f", 1.0, NULL));
      g_assert_cmpint (tensor_dtype (o[1]), ==, GRAPH_DTYPE_BOOL);
      double kept = 0;
      for (gint64 i = 0; i < n[0]; i++)
        {
          double xi = tensor_get_double (x, i), yi = tensor_get_double (o[0], i);
          gboolean m = tensor_get_double (o[1], i) != 0;
          if (!train)
            g_assert_true (m && yi == xi);
          else if (m)
            g_assert_cmpfloat (fabs (yi - xi / 0.75), <, 1e-5);
          else
            g_assert_cmpfloat (yi, ==, 0.0);
          kept += m;
        }
      if (train)   /* standard error √(0.1875/10^4) = 0.0043 */
        g_assert_cmpfloat (fabs (kept / 10000 - 0.75), <, 5 * 0.0043);
      tensor_unref (o[0]);
      tensor_unref (o[1]);
    }
  Tensor *bt[3] = { x, filled (GRAPH_DTYPE_FLOAT, 0, scalar, 1.5), filled (GRAPH_DTYPE_BOOL, 0, scalar, 1) };
  GError *error = run ("Dropout", 3, bt, 2, NULL, NULL);
  g_assert_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "ratio 1.5 is outside [0, 1]"));
  g_error_free (error);
}

/* ONNX's backend tests of the random ops, whose expected values are
 * numpy's samples: with their model and inputs, each output must have the
 * expected shape and type, Bernoulli's values 0 or 1 (exactly where p is 0
 * or 1), Dropout's 0 or x / (1 − ratio) as its mask says. */
static void
test_backend_data (gconstpointer data)
{
  const char *cas = data;
  g_autofree char *dir = g_build_filename ("/usr/share/libonnx-testdata/data/node", cas, NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no libonnx-testdata");
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *mp = g_build_filename (dir, "model.onnx", NULL);
  g_autoptr (Graph) g = onnxio_load (mp, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) tensor_unref);
  Tensor *inputs[3] = { NULL };
  for (guint i = 0; i < graph_n_inputs (g) && i < 3; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/test_data_set_0/input_%u.pb", dir, i);
      inputs[i] = onnxio_tensor_load (p, NULL, &error);
      g_assert_no_error (error);
      g_hash_table_insert (in, (gpointer) graph_value_get_name (graph_input (g, i)), inputs[i]);
    }
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) res = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
  g_assert_true (rt_session_run (s, in, res, &error));
  g_assert_no_error (error);
  Tensor *outs[2] = { NULL };
  for (guint i = 0; i < graph_n_outputs (g) && i < 2; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/test_data_set_0/output_%u.pb", dir, i);
      g_autoptr (Tensor) e = onnxio_tensor_load (p, NULL, &error);
      g_assert_no_error (error);
      Tensor *a = outs[i] = g_hash_table_lookup (res, graph_value_get_name (graph_output (g, i)));
      g_assert_nonnull (a);
      g_assert_cmpint (tensor_dtype (a), ==, tensor_dtype (e));
      g_assert_cmpuint (tensor_rank (a), ==, tensor_rank (e));
      for (guint d = 0; d < tensor_rank (e); d++)
        g_assert_cmpint (tensor_dim (a, d), ==, tensor_dim (e, d));
    }
  if (g_str_has_prefix (cas, "test_bernoulli"))
    for (gint64 i = 0; i < tensor_numel (outs[0]); i++)
      {
        double y = tensor_get_double (outs[0], i), p = tensor_get_double (inputs[0], i);
        g_assert_true (y == 0.0 || y == 1.0);
        if (p == 0.0 || p == 1.0)
          g_assert_cmpfloat (y, ==, p);
      }
  else
    {
      double ratio = inputs[1] ? tensor_get_double (inputs[1], 0) : 0.5;
      for (gint64 i = 0; i < tensor_numel (outs[0]); i++)
        {
          double x = tensor_get_double (inputs[0], i), y = tensor_get_double (outs[0], i);
          gboolean kept = outs[1] ? tensor_get_double (outs[1], i) != 0 : y != 0.0;
          if (kept)
            g_assert_cmpfloat (fabs (y - x / (1 - ratio)), <=, 1e-5 * (1 + fabs (y)));
          else
            g_assert_cmpfloat (y, ==, 0.0);
        }
    }
}

/* The ATen random kernels, run as the aten:: nodes of a trace.  An aten
 * node has no seed: the checks are exact properties, and moments within 6
 * standard errors (a false failure about once in 10^9 runs). */
static const char aten_trace[] =
  "graph(%x : Float(100, 100), %p : Float(2, 3), %q : Float(2, 3)):\n"
  "  %n : NoneType = prim::Constant()\n"
  "  %c100 : int = prim::Constant[value=100]()\n"
  "  %s : int[] = prim::ListConstruct(%c100, %c100)\n"
  "  %u : Float(100, 100) = aten::rand(%s, %n, %n, %n, %n)\n"
  "  %z : Float(100, 100) = aten::randn(%s, %n, %n, %n, %n)\n"
  "  %ul : Float(100, 100) = aten::rand_like(%x, %n, %n, %n, %n, %n)\n"
  "  %b : Float(100, 100) = aten::bernoulli(%x, %n)\n"
  "  %three : int = prim::Constant[value=3]()\n"
  "  %two : int = prim::Constant[value=2]()\n"
  "  %f : bool = prim::Constant[value=0]()\n"
  "  %perm : Long(2, 3) = aten::multinomial(%p, %three, %f, %n)\n"
  "  %pick : Long(2, 2) = aten::multinomial(%q, %two, %f, %n)\n"
  "  %sd : float = prim::Constant[value=2.]()\n"
  "  %g : Float(100, 100) = aten::normal(%x, %sd, %n)\n"
  "  %pd : float = prim::Constant[value=0.25]()\n"
  "  %t : bool = prim::Constant[value=1]()\n"
  "  %d : Float(100, 100), %m : Bool(100, 100) = aten::native_dropout(%x, %pd, %t)\n"
  "  %lo : float = prim::Constant[value=0.1]()\n"
  "  %hi : float = prim::Constant[value=0.3]()\n"
  "  %xm : Float(100, 100) = aten::sub(%x, %pd, %three)\n"
  "  %rr : Float(100, 100) = aten::rrelu(%xm, %lo, %hi, %t, %n)\n"
  "  return (%u, %z, %ul, %b, %perm, %pick, %g, %d, %m, %xm, %rr)\n";

static void
test_aten_random (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = graph_parse (aten_trace, strlen (aten_trace), "aten_trace", &error);
  g_assert_no_error (error);
  static const gint64 xd[2] = { 100, 100 }, pd[2] = { 2, 3 };
  static const double pv[6] = { 1, 2, 3, 0.5, 0.5, 0.5 }, qv[6] = { 1, 0, 1, 0, 4, 2 };
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) tensor_unref);
  g_hash_table_insert (in, "x", filled (GRAPH_DTYPE_FLOAT, 2, xd, 0.3));
  g_hash_table_insert (in, "p", tensor_of (GRAPH_DTYPE_FLOAT, 2, pd, pv));
  g_hash_table_insert (in, "q", tensor_of (GRAPH_DTYPE_FLOAT, 2, pd, qv));
  g_autoptr (GHashTable) out = aten_test_run (g, in);
  Tensor *y[11];
  for (guint i = 0; i < 11; i++)
    {
      y[i] = g_hash_table_lookup (out, graph_value_get_name (graph_output (g, i)));
      g_assert_nonnull (y[i]);
    }
  double m, var;
  /* rand, rand_like: U(0, 1), mean 1/2 (se 0.0029), variance 1/12 (se 0.00075) */
  for (guint k = 0; k < 3; k += 2)
    {
      g_assert_cmpint (tensor_dtype (y[k]), ==, GRAPH_DTYPE_FLOAT);
      g_assert_cmpuint (tensor_numel (y[k]), ==, 10000);
      for (gint64 i = 0; i < 10000; i++)
        g_assert_true (tensor_get_double (y[k], i) >= 0 && tensor_get_double (y[k], i) < 1);
      moments (y[k], &m, &var);
      g_assert_cmpfloat (fabs (m - 0.5), <, 6 * 0.0029);
      g_assert_cmpfloat (fabs (var - 1.0 / 12), <, 6 * 0.00075);
    }
  /* randn: N(0, 1) (se 0.01 and 0.014) */
  moments (y[1], &m, &var);
  g_assert_cmpfloat (fabs (m), <, 6 * 0.01);
  g_assert_cmpfloat (fabs (var - 1), <, 6 * 0.014);
  /* bernoulli(0.3): 0 or 1, mean 0.3 (se 0.0046) */
  for (gint64 i = 0; i < 10000; i++)
    g_assert_true (tensor_get_double (y[3], i) == 0 || tensor_get_double (y[3], i) == 1);
  moments (y[3], &m, &var);
  g_assert_cmpfloat (fabs (m - 0.3), <, 6 * 0.0046);
  /* multinomial without replacement: 3 of 3 classes is a permutation of
   * each row; 2 from (1, 0, 1) are classes 0 and 2, from (0, 4, 2) 1 and 2 */
  g_assert_cmpint (tensor_dtype (y[4]), ==, GRAPH_DTYPE_INT64);
  for (int r = 0; r < 2; r++)
    {
      gint64 seen = 0;
      for (int k = 0; k < 3; k++)
        seen |= (gint64) 1 << (gint64) tensor_get_double (y[4], r * 3 + k);
      g_assert_cmpint (seen, ==, 7);
      gint64 a = (gint64) tensor_get_double (y[5], r * 2), b = (gint64) tensor_get_double (y[5], r * 2 + 1);
      g_assert_cmpint (MIN (a, b), ==, r == 0 ? 0 : 1);
      g_assert_cmpint (MAX (a, b), ==, 2);
    }
  /* normal(0.3, 2): se 0.02 and 0.057 */
  moments (y[6], &m, &var);
  g_assert_cmpfloat (fabs (m - 0.3), <, 6 * 0.02);
  g_assert_cmpfloat (fabs (var - 4), <, 6 * 0.057);
  /* native_dropout(0.25) in training: kept ones are 0.3 / 0.75, as the mask says */
  double kept = 0;
  for (gint64 i = 0; i < 10000; i++)
    {
      gboolean mk = tensor_get_double (y[8], i) != 0;
      g_assert_cmpfloat (fabs (tensor_get_double (y[7], i) - (mk ? 0.3 / 0.75 : 0)), <, 1e-6);
      kept += mk;
    }
  g_assert_cmpfloat (fabs (kept / 10000 - 0.75), <, 6 * 0.0043);
  /* rrelu in training on x − 3·0.25 = −0.45: slopes in [0.1, 0.3) */
  for (gint64 i = 0; i < 10000; i++)
    {
      double xi = tensor_get_double (y[9], i), yi = tensor_get_double (y[10], i);
      g_assert_cmpfloat (xi, <, 0);
      g_assert_true (yi / xi >= 0.1 - 1e-6 && yi / xi < 0.3 + 1e-6);
    }
}

void
test_kernels_random_register (void)
{
  g_test_add_func ("/runtime/random/uniform", test_uniform);
  g_test_add_func ("/runtime/random/normal", test_normal);
  g_test_add_func ("/runtime/random/bernoulli", test_bernoulli);
  g_test_add_func ("/runtime/random/multinomial", test_multinomial);
  g_test_add_func ("/runtime/random/dropout-training", test_dropout_training);
  g_test_add_func ("/runtime/random/aten", test_aten_random);
  static const char *const backend[] = {
    "test_bernoulli", "test_bernoulli_double", "test_bernoulli_seed", "test_bernoulli_expanded",
    "test_bernoulli_double_expanded", "test_bernoulli_seed_expanded", "test_training_dropout",
    "test_training_dropout_default", "test_training_dropout_default_mask", "test_training_dropout_mask",
  };
  for (guint i = 0; i < G_N_ELEMENTS (backend); i++)
    {
      g_autofree char *path = g_strdup_printf ("/runtime/random/backend-data/%s", backend[i]);
      g_test_add_data_func (path, backend[i], test_backend_data);
    }
}
