/* Sessions: buffer reuse, intermediate outputs, compare, and bad input —
 * every case a clear error before or instead of running. */
#include "tests/runtime/test-runtime.h"
#include <math.h>
#include <string.h>

static Graph *
new_graph (void)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 17);
  return g;
}

static GraphValue *
float_input (Graph *g, const char *name, guint rank, const gint64 *dims)
{
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, rank, dims);
  return graph_add_input (g, name, ty);
}

static Tensor *
float_tensor (guint rank, const gint64 *dims, const float *v)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, v, (gsize) n * sizeof (float), NULL);
}

static GHashTable *
table_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
}

/* A chain of 10 Negs needs two alternating slots plus one for the kept
 * intermediate n3; a second run allocates nothing, and requested
 * intermediate values come back. */
static void
test_reuse_and_intermediates (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 dims[2] = { 2, 3 };
  GraphValue *v = float_input (g, "x", 2, dims);
  for (int i = 1; i <= 10; i++)
    {
      v = graph_op (g, "Neg", v, NULL);
      g_autofree char *name = g_strdup_printf ("n%d", i);
      graph_value_set_name (v, name);
    }
  graph_add_output (g, v);
  const char *extra[] = { "n3", NULL };
  RtOptions o;
  rt_options_init (&o);
  o.extra_outputs = extra;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  float xv[6] = { 1, -2, 3, -4, 5, -6 };
  g_autoptr (GHashTable) in = table_new ();
  g_hash_table_insert (in, g_strdup ("x"), float_tensor (2, dims, xv));
  for (int run = 0; run < 2; run++)
    {
      g_autoptr (GHashTable) out = table_new ();
      g_assert_true (rt_session_run (s, in, out, &error));
      g_assert_no_error (error);
      guint64 expected_allocs = run == 0 ? 3 : 0;
      g_assert_cmpuint (rt_session_last_run_allocations (s), ==, expected_allocs);
      Tensor *n10 = g_hash_table_lookup (out, "n10"), *n3 = g_hash_table_lookup (out, "n3");
      g_assert_nonnull (n10);
      g_assert_nonnull (n3);
      for (int i = 0; i < 6; i++)
        {
          g_assert_cmpfloat (tensor_get_double (n10, i), ==, xv[i]);     /* even count of Negs */
          g_assert_cmpfloat (tensor_get_double (n3, i), ==, -xv[i]);     /* odd */
        }
    }
}

static void
test_unknown_extra_output (void)
{
  g_autoptr (Graph) g = new_graph ();
  GraphValue *x = float_input (g, "x", 0, NULL);
  graph_add_output (g, graph_op (g, "Relu", x, NULL));
  const char *extra[] = { "nope", NULL };
  RtOptions o;
  rt_options_init (&o);
  o.extra_outputs = extra;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_null (s);
  g_assert_error (error, RT_ERROR, RT_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "'nope'"));
}

/* All missing kernels in one error, before anything runs. */
static void
test_missing_kernels_all_at_once (void)
{
  g_autoptr (Graph) g = new_graph ();
  GraphValue *x = float_input (g, "x", 0, NULL);
  GraphValue *a = graph_op (g, "FooBar", x, NULL);
  GraphValue *b = graph_op (g, "Relu", a, NULL);
  GraphValue *c = graph_op (g, "BazQux", b, NULL);
  GraphValue *d = graph_op (g, "mydomain::Custom", c, NULL);
  graph_add_output (g, d);
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_null (s);
  g_assert_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "3 operators"));
  g_assert_nonnull (strstr (error->message, "onnx::FooBar (opset 17)"));
  g_assert_nonnull (strstr (error->message, "onnx::BazQux (opset 17)"));
  g_assert_nonnull (strstr (error->message, "mydomain::Custom"));
  g_assert_null (strstr (error->message, "Relu"));
}

static void
test_cycle (void)
{
  g_autoptr (Graph) g = new_graph ();
  GraphValue *x = float_input (g, "x", 0, NULL);
  GraphValue *a = graph_op (g, "Relu", x, NULL);
  GraphValue *b = graph_op (g, "Neg", a, NULL);
  /* a's node now reads b, produced after it: a cycle. */
  graph_node_set_input (graph_value_node (a), 0, b);
  graph_add_output (g, b);
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_null (s);
  g_assert_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH);
}

static void
test_wrong_arity (void)
{
  g_autoptr (Graph) g = new_graph ();
  GraphValue *x = float_input (g, "x", 0, NULL);
  GraphValue *a = graph_op (g, "Relu", x, x, NULL);
  graph_add_output (g, a);
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_null (s);
  g_assert_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "2 inputs"));
}

/* Runs a one-output graph on `in`, expecting error `code`. */
static void
expect_run_error (Graph *g, GHashTable *in, int code, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) out = table_new ();
  g_assert_false (rt_session_run (s, in, out, &error));
  g_assert_error (error, RT_ERROR, code);
  if (needle && !strstr (error->message, needle))
    g_error ("'%s' not in '%s'", needle, error->message);
}

static void
test_shape_mismatch (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 da[2] = { 2, 3 }, db[1] = { 4 };
  GraphValue *a = float_input (g, "a", 2, da), *b = float_input (g, "b", 1, db);
  graph_add_output (g, graph_op (g, "Add", a, b, NULL));
  float va[6] = { 0 }, vb[4] = { 0 };
  g_autoptr (GHashTable) in = table_new ();
  g_hash_table_insert (in, g_strdup ("a"), float_tensor (2, da, va));
  g_hash_table_insert (in, g_strdup ("b"), float_tensor (1, db, vb));
  expect_run_error (g, in, RT_ERROR_SHAPE, "(2, 3) and (4)");
}

static void
test_zero_strides (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 dx[4] = { 1, 1, 4, 4 }, dw[4] = { 1, 1, 2, 2 }, strides[2] = { 0, 0 };
  GraphValue *x = float_input (g, "x", 4, dx), *w = float_input (g, "w", 4, dw);
  graph_add_output (g, graph_op (g, "Conv", x, w, "strides_is", 2, strides, NULL));
  float vx[16] = { 0 }, vw[4] = { 0 };
  g_autoptr (GHashTable) in = table_new ();
  g_hash_table_insert (in, g_strdup ("x"), float_tensor (4, dx, vx));
  g_hash_table_insert (in, g_strdup ("w"), float_tensor (4, dw, vw));
  expect_run_error (g, in, RT_ERROR_INVALID_GRAPH, "strides");
}

/* ConvTranspose with absurd or negative window attributes: an error, not
 * an overflow of the output-size arithmetic (UBSan caught 2^62 strides). */
static void
test_absurd_conv_transpose (void)
{
  static const struct { const char *attr; gint64 v[4]; } bad[] = {
    { "strides_is", { G_GINT64_CONSTANT (4611686018427387904), 1 } },
    { "dilations_is", { G_GINT64_CONSTANT (1099511627776), 1 } },
    { "output_padding_is", { G_GINT64_CONSTANT (4611686018427387904), 0 } },
    { "pads_is", { -5, 0, 0, 0 } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (Graph) g = new_graph ();
      gint64 dx[4] = { 1, 1, 4, 4 }, dw[4] = { 1, 1, 3, 3 };
      GraphValue *x = float_input (g, "x", 4, dx), *w = float_input (g, "w", 4, dw);
      gsize n = g_str_has_prefix (bad[i].attr, "pads") ? 4 : 2;
      graph_add_output (g, graph_op (g, "ConvTranspose", x, w, bad[i].attr, n, bad[i].v, NULL));
      float vx[16] = { 0 }, vw[9] = { 0 };
      g_autoptr (GHashTable) in = table_new ();
      g_hash_table_insert (in, g_strdup ("x"), float_tensor (4, dx, vx));
      g_hash_table_insert (in, g_strdup ("w"), float_tensor (4, dw, vw));
      expect_run_error (g, in, RT_ERROR_SHAPE, "out of range");
    }
}

/* int64 arithmetic at the edges wraps as numpy and ONNX Runtime do, and
 * is not undefined behaviour (UBSan caught MIN / -1 and -MIN).  Expected
 * values from numpy 1.24: a + b, a - b, a * 4, -a, np.abs (a), a // b
 * (ONNX Div truncates; these operands divide exactly or are MIN / -1) and
 * np.mod (a, b), for a = [MIN, MAX, 7, -8], b = [-1, 1, -1, 2]. */
static void
test_int64_wraps (void)
{
  const gint64 MIN = G_MININT64, MAX = G_MAXINT64;
  gint64 a[4] = { MIN, MAX, 7, -8 }, b[4] = { -1, 1, -1, 2 }, four = 4;
  static const struct { const char *op; gboolean unary, times4; gint64 want[4]; } cases[] = {
    { "Add", FALSE, FALSE, { G_MAXINT64, G_MININT64, 6, -6 } },
    { "Sub", FALSE, FALSE, { G_MININT64 + 1, G_MAXINT64 - 1, 8, -10 } },
    { "Mul", FALSE, TRUE, { 0, -4, 28, -32 } },
    { "Div", FALSE, FALSE, { G_MININT64, G_MAXINT64, -7, -4 } },
    { "Mod", FALSE, FALSE, { 0, 0, 0, 0 } },
    { "Neg", TRUE, FALSE, { G_MININT64, G_MININT64 + 1, -7, 8 } },
    { "Abs", TRUE, FALSE, { G_MININT64, G_MAXINT64, 7, 8 } },
  };
  (void) MIN;
  (void) MAX;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (Graph) g = new_graph ();
      g_autoptr (Tensor) ta = tensor_new_int64_vector (4, a);
      g_autoptr (Tensor) tb = cases[i].times4 ? tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, four)
                                              : tensor_new_int64_vector (4, b);
      GraphValue *va = graph_op (g, "Constant", "value_t", ta, NULL);
      GraphValue *vb = graph_op (g, "Constant", "value_t", tb, NULL);
      GraphValue *y = cases[i].unary ? graph_op (g, cases[i].op, va, NULL)
                                     : graph_op (g, cases[i].op, va, vb, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (GHashTable) out = table_new ();
      g_assert_true (rt_session_run (s, NULL, out, &error));
      g_assert_no_error (error);
      Tensor *t = g_hash_table_lookup (out, "y");
      for (guint k = 0; k < 4; k++)
        if (tensor_get_int64 (t, k) != cases[i].want[k])
          g_error ("%s element %u: %" G_GINT64_FORMAT ", numpy gives %" G_GINT64_FORMAT,
                   cases[i].op, k, tensor_get_int64 (t, k), cases[i].want[k]);
    }
}

/* Absurd sizes in attributes and shape inputs are errors (or, for a
 * Slice step beyond the axis, one element), never an overflow or a hang:
 * UBSan and a 60 s timeout caught each of these (Tile, Slice,
 * DepthToSpace, RoiAlign, MaxPool with SAME padding). */
static void
test_absurd_shape_arguments (void)
{
  const gint64 big = G_GINT64_CONSTANT (4611686018427387904);   /* 2^62 */
  gint64 dx[4] = { 1, 2, 4, 4 };
  float vx[32] = { 0 };
  for (guint i = 0; i < 5; i++)
    {
      g_autoptr (Graph) g = new_graph ();
      GraphValue *x = float_input (g, "x", 4, dx);
      gint64 kernel[2] = { big, 3 };
      gint64 reps[4] = { 1, 1, big, 2 }, one = 1, zero = 0, end = big, step = big;
      g_autoptr (Tensor) tr = tensor_new_int64_vector (4, reps);
      g_autoptr (Tensor) ts = tensor_new_int64_vector (1, &zero);
      g_autoptr (Tensor) te = tensor_new_int64_vector (1, &end);
      g_autoptr (Tensor) ta = tensor_new_int64_vector (1, &one);
      g_autoptr (Tensor) tp = tensor_new_int64_vector (1, &step);
      float roi[4] = { 0, 0, 2, 2 };
      gint64 rdims[2] = { 1, 4 };
      g_autoptr (Tensor) trois = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, rdims, roi, sizeof roi,
                                                       NULL);
      g_autoptr (Tensor) tbi = tensor_new_int64_vector (1, &zero);
      GraphValue *y = NULL;
      const char *needle = NULL;
      int code = RT_ERROR_SHAPE;
      if (i == 0)
        {
          y = graph_op (g, "Tile", x, graph_op (g, "Constant", "value_t", tr, NULL), NULL);
          needle = "Tile";
          code = RT_ERROR_TOO_LARGE;
        }
      else if (i == 1)
        y = graph_op (g, "Slice", x, graph_op (g, "Constant", "value_t", ts, NULL),
                      graph_op (g, "Constant", "value_t", te, NULL),
                      graph_op (g, "Constant", "value_t", ta, NULL),
                      graph_op (g, "Constant", "value_t", tp, NULL), NULL);
      else if (i == 2)
        {
          y = graph_op (g, "DepthToSpace", x, "blocksize_i", big, NULL);
          needle = "block size";
        }
      else if (i == 4)
        {
          /* SAME padding sizes the pads from the kernel: 2^62 overflowed. */
          y = graph_op (g, "MaxPool", x, "kernel_shape_is", (gsize) 2, kernel, "auto_pad_s",
                        "SAME_UPPER", NULL);
          needle = "below 2^30";
          code = RT_ERROR_INVALID_GRAPH;
        }
      else
        {
          y = graph_op (g, "RoiAlign", x, graph_op (g, "Constant", "value_t", trois, NULL),
                        graph_op (g, "Constant", "value_t", tbi, NULL), "output_height_i",
                        (gint64) 2, "output_width_i", (gint64) 2, "sampling_ratio_i", big, NULL);
          needle = "sampling grid";
          code = RT_ERROR_TOO_LARGE;
        }
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = table_new ();
      g_hash_table_insert (in, g_strdup ("x"), float_tensor (4, dx, vx));
      if (needle)
        {
          expect_run_error (g, in, code, needle);
          continue;
        }
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (GHashTable) out = table_new ();
      g_assert_true (rt_session_run (s, in, out, &error));
      g_assert_no_error (error);
      g_assert_cmpint (tensor_dim (g_hash_table_lookup (out, "y"), 1), ==, 1);
    }
}

static void
test_absurd_constant_of_shape (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 shape[2] = { 1000000, 1000000 };
  g_autoptr (Tensor) t = tensor_new_int64_vector (2, shape);
  GraphValue *sh = graph_op (g, "Constant", "value_t", t, NULL);
  graph_add_output (g, graph_op (g, "ConstantOfShape", sh, NULL));
  expect_run_error (g, NULL, RT_ERROR_TOO_LARGE, "(1000000, 1000000)");
  /* A negative dimension is refused the same way. */
  g_autoptr (Graph) g2 = new_graph ();
  gint64 neg[2] = { -5, 3 };
  g_autoptr (Tensor) t2 = tensor_new_int64_vector (2, neg);
  GraphValue *sh2 = graph_op (g2, "Constant", "value_t", t2, NULL);
  graph_add_output (g2, graph_op (g2, "ConstantOfShape", sh2, NULL));
  expect_run_error (g2, NULL, RT_ERROR_TOO_LARGE, "(-5, 3)");
}

static void
test_bad_inputs (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 dims[2] = { 2, 3 };
  GraphValue *x = float_input (g, "x", 2, dims);
  graph_add_output (g, graph_op (g, "Relu", x, NULL));
  /* missing */
  g_autoptr (GHashTable) none = table_new ();
  expect_run_error (g, none, RT_ERROR_INPUT, "missing input 'x'");
  /* wrong dtype */
  g_autoptr (GHashTable) in = table_new ();
  gint64 iv[6] = { 0 };
  g_hash_table_insert (in, g_strdup ("x"),
                       tensor_new_from_data (GRAPH_DTYPE_INT64, 2, dims, iv, sizeof iv, NULL));
  expect_run_error (g, in, RT_ERROR_INPUT, "element type int64, the graph expects float");
  /* wrong shape */
  gint64 d2[2] = { 3, 2 };
  float fv[6] = { 0 };
  g_hash_table_replace (in, g_strdup ("x"), float_tensor (2, d2, fv));
  expect_run_error (g, in, RT_ERROR_INPUT, "dimension 0 is 3, the graph expects 2");
  /* wrong rank */
  gint64 d3[1] = { 6 };
  g_hash_table_replace (in, g_strdup ("x"), float_tensor (1, d3, fv));
  expect_run_error (g, in, RT_ERROR_INPUT, "rank 1");
}

static void
test_gather_out_of_range (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 dims[1] = { 3 }, idx[2] = { 1, 7 };
  GraphValue *x = float_input (g, "x", 1, dims);
  g_autoptr (Tensor) t = tensor_new_int64_vector (2, idx);
  GraphValue *i = graph_op (g, "Constant", "value_t", t, NULL);
  graph_add_output (g, graph_op (g, "Gather", x, i, NULL));
  float v[3] = { 1, 2, 3 };
  g_autoptr (GHashTable) in = table_new ();
  g_hash_table_insert (in, g_strdup ("x"), float_tensor (1, dims, v));
  expect_run_error (g, in, RT_ERROR_SHAPE, "index 7");
}

/* RtOptions.profile: one entry per node in run order, its time summed over
 * the runs since the last reset; none without the option. */
static void
test_profile (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 dims[1] = { 1 << 16 };
  GraphValue *v = graph_op (g, "Neg", float_input (g, "x", 1, dims), NULL);
  graph_value_set_name (v, "negated");
  GraphValue *y = graph_op (g, "Exp", v, NULL);
  graph_node_set_name (graph_value_node (y), "exp_node");
  graph_add_output (g, y);
  g_autofree float *xv = g_new0 (float, dims[0]);
  g_autoptr (GHashTable) in = table_new ();
  g_hash_table_insert (in, g_strdup ("x"), float_tensor (1, dims, xv));
  for (int profiled = 0; profiled < 2; profiled++)
    {
      RtOptions o;
      rt_options_init (&o);
      o.profile = profiled;
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_assert_no_error (error);
      for (int run = 0; run < 3; run++)
        {
          g_autoptr (GHashTable) out = table_new ();
          g_assert_true (rt_session_run (s, in, out, &error));
        }
      guint n = 99;
      guint64 runs = 99;
      g_autofree RtNodeTime *t = rt_session_profile (s, &n, &runs);
      if (!profiled)
        {
          g_assert_null (t);
          g_assert_cmpuint (n, ==, 0);
          g_assert_cmpuint (runs, ==, 0);
          continue;
        }
      g_assert_nonnull (t);
      g_assert_cmpuint (n, ==, 2);
      g_assert_cmpuint (runs, ==, 3);
      g_assert_cmpstr (t[0].op, ==, "Neg");
      g_assert_cmpstr (t[0].name, ==, "negated");   /* no node name: its output's */
      g_assert_cmpstr (t[1].op, ==, "Exp");
      g_assert_cmpstr (t[1].name, ==, "exp_node");
      g_assert_false (t[0].fused);
      /* 3 runs of 65536 exps take some time; no more than the test's own. */
      g_assert_cmpfloat (t[1].ms, >, 0);
      g_assert_cmpfloat (t[0].ms + t[1].ms, <, 60000);
      rt_session_profile_reset (s);
      g_autofree RtNodeTime *z = rt_session_profile (s, &n, &runs);
      g_assert_cmpuint (runs, ==, 0);
      g_assert_cmpfloat (z[0].ms, ==, 0);
      g_assert_cmpfloat (z[1].ms, ==, 0);
    }
}

static void
test_compare (void)
{
  gint64 n = 4;
  float e[4] = { 1, 2, 3, NAN }, a[4] = { 1, 2.01f, 3, NAN };
  g_autoptr (Tensor) te = float_tensor (1, &n, e), ta = float_tensor (1, &n, a);
  RtCompareResult r;
  g_assert_false (rt_compare (te, ta, RT_DEFAULT_RTOL, RT_DEFAULT_ATOL, TRUE, &r));
  g_assert_cmpint (r.mismatches, ==, 1);
  g_assert_cmpint (r.first_mismatch, ==, 1);
  g_assert_cmpfloat_with_epsilon (r.max_abs_error, 0.01, 1e-6);
  g_assert_cmpfloat_with_epsilon (r.max_rel_error, 0.005, 1e-6);
  g_assert_false (rt_compare (te, ta, RT_DEFAULT_RTOL, RT_DEFAULT_ATOL, FALSE, &r));
  g_assert_cmpint (r.mismatches, ==, 2);
  /* 0.01 is within rtol 1e-2 of 2 (0.02) */
  g_assert_true (rt_compare (te, ta, 1e-2, 0, TRUE, &r));
  gint64 m = 2;
  float b[2] = { 1, 2 };
  g_autoptr (Tensor) tb = float_tensor (1, &m, b);
  g_assert_false (rt_compare (te, tb, 1, 1, TRUE, &r));
  g_assert_true (r.shape_mismatch);
}

void
test_session_register (void)
{
  g_test_add_func ("/runtime/session/reuse-and-intermediates", test_reuse_and_intermediates);
  g_test_add_func ("/runtime/session/unknown-extra-output", test_unknown_extra_output);
  g_test_add_func ("/runtime/session/profile", test_profile);
  g_test_add_func ("/runtime/bad-input/missing-kernels", test_missing_kernels_all_at_once);
  g_test_add_func ("/runtime/bad-input/cycle", test_cycle);
  g_test_add_func ("/runtime/bad-input/wrong-arity", test_wrong_arity);
  g_test_add_func ("/runtime/bad-input/shape-mismatch", test_shape_mismatch);
  g_test_add_func ("/runtime/bad-input/zero-strides", test_zero_strides);
  g_test_add_func ("/runtime/bad-input/absurd-constant-of-shape", test_absurd_constant_of_shape);
  g_test_add_func ("/runtime/bad-input/absurd-conv-transpose", test_absurd_conv_transpose);
  g_test_add_func ("/runtime/bad-input/int64-wraps", test_int64_wraps);
  g_test_add_func ("/runtime/bad-input/absurd-shape-arguments", test_absurd_shape_arguments);
  g_test_add_func ("/runtime/bad-input/inputs", test_bad_inputs);
  g_test_add_func ("/runtime/bad-input/gather-out-of-range", test_gather_out_of_range);
  g_test_add_func ("/runtime/compare", test_compare);
}
