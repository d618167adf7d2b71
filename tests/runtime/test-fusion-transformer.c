/* Transformer fusions (runtime/fuse-transformer.c): MatMul + bias
 * [+ Relu | Gelu], torch's LayerNorm chain below opset 17 and its Gelu
 * chain, each against the unfused run of the same graph bit for bit (the
 * fused kernels keep every operation's order and precision), what must not
 * fuse, and the same bits with 1 and 3 threads. */
#include "tests/runtime/fusion-testutil.h"
#include "runtime/session-private.h"
#include <math.h>
#include <string.h>

/* A fresh initializer name. */
static const char *
fresh (void)
{
  static char name[16];
  static guint count;
  g_snprintf (name, sizeof name, "c%u", count++);
  return name;
}

/* torch 1.13's gelu (symbolic_opset9.gelu): x * (Erf (x / sqrt 2) + 1) * 0.5,
 * Mul's operands in either order. */
static GraphValue *
gelu_chain (Graph *g, GraphValue *x, gboolean swap)
{
  GraphValue *t = graph_op (g, "Div", x, fz_scalar (g, fresh (), 1.4142135f), NULL);
  GraphValue *a = graph_op (g, "Add", graph_op (g, "Erf", t, NULL), fz_scalar (g, fresh (), 1.0f), NULL);
  GraphValue *m = swap ? graph_op (g, "Mul", a, x, NULL) : graph_op (g, "Mul", x, a, NULL);
  GraphValue *h = fz_scalar (g, fresh (), 0.5f);
  return swap ? graph_op (g, "Mul", h, m, NULL) : graph_op (g, "Mul", m, h, NULL);
}

/* torch 1.13's layer_norm at opset 13 over the last axis (`axis` as
 * written in ReduceMean's axes). */
static GraphValue *
layernorm_chain (Graph *g, GraphValue *x, gint64 n, gint64 axis)
{
  const gint64 nd[1] = { n };
  GraphValue *mean = graph_op (g, "ReduceMean", x, "axes_is", 1, &axis, NULL);
  GraphValue *d = graph_op (g, "Sub", x, mean, NULL);
  GraphValue *p = graph_op (g, "Pow", d, fz_scalar (g, fresh (), 2.0f), NULL);
  GraphValue *var = graph_op (g, "ReduceMean", p, "axes_is", 1, &axis, NULL);
  GraphValue *s = graph_op (g, "Sqrt", graph_op (g, "Add", var, fz_scalar (g, fresh (), 1e-5f), NULL), NULL);
  GraphValue *q = graph_op (g, "Div", d, s, NULL);
  GraphValue *m = graph_op (g, "Mul", q, fz_weights (g, fresh (), 1, nd), NULL);
  return graph_op (g, "Add", m, fz_weights (g, fresh (), 1, nd), NULL);
}

/* A 1-D int64 weight (ReduceSum's axes). */
static GraphValue *
axes_i64 (Graph *g, const gint64 *v)
{
  const gint64 d[1] = { 1 };
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_INT64, 1, d, v, sizeof *v, NULL);
  return graph_add_initializer (g, fresh (), t);
}

static void
name_output (Graph *g, GraphValue *v, const char *name)
{
  graph_value_set_name (v, name);
  graph_add_output (g, v);
}

static GHashTable *
one_input (const char *name, guint rank, const gint64 *dims)
{
  GHashTable *in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup (name), fz_random_tensor (rank, dims));
  return in;
}

/* MatMul + bias (either side of the Add), alone, with Relu, with Gelu;
 * 20 columns (no multiple of a vector); 10 rows (sgemm with AVX-512's
 * 8-row tiles) and 96 (the packed GEMM of matmul-packed.c). */
static void
test_matmul_bias (void)
{
  const gint64 wd[2] = { 24, 20 }, bd[1] = { 20 };
  for (gint64 rows = 5; rows <= 48; rows += 43)
    for (int act = 0; act < 3; act++)
      for (int swap = 0; swap < 2; swap++)
        {
          const gint64 xd[3] = { 2, rows, 24 };
          g_autoptr (Graph) g = fz_new_graph_at (13);
          GraphValue *mm = graph_op (g, "MatMul", fz_input (g, "x", 3, xd), fz_weights (g, "w", 2, wd), NULL);
          GraphValue *b = fz_weights (g, "b", 1, bd);
          GraphValue *y = swap ? graph_op (g, "Add", b, mm, NULL) : graph_op (g, "Add", mm, b, NULL);
          if (act == 1)
            y = graph_op (g, "Relu", y, NULL);
          else if (act == 2)
            y = gelu_chain (g, y, swap);
          name_output (g, y, "y");
          g_autoptr (GHashTable) in = one_input ("x", 3, xd);
          g_autoptr (Tensor) t = fusion_check_same (g, in, "y", 1, act == 0 ? 2 : act == 1 ? 3 : 7);
          g_assert_cmpint (tensor_numel (t), ==, 2 * rows * 20);
        }
}

/* ONNX's LayerNormalization formula in double, for the pattern's meaning. */
static void
check_is_layernorm (const Tensor *x, const Tensor *w, const Tensor *b, const Tensor *y, gint64 n)
{
  const float *xv = tensor_data (x), *wv = tensor_data (w), *bv = tensor_data (b), *yv = tensor_data (y);
  for (gint64 r = 0; r < tensor_numel (x) / n; r++)
    {
      double m = 0, v = 0;
      for (gint64 i = 0; i < n; i++)
        m += xv[r * n + i] / (double) n;
      for (gint64 i = 0; i < n; i++)
        v += (xv[r * n + i] - m) * (xv[r * n + i] - m) / (double) n;
      for (gint64 i = 0; i < n; i++)
        g_assert_cmpfloat_with_epsilon (yv[r * n + i], (xv[r * n + i] - m) / sqrt (v + 1e-5) * wv[i] + bv[i],
                                        1e-5);
    }
}

/* torch's LayerNorm chain, axes [-1] and [2] of a rank-3 input: 21 rows
 * (two blocks of 8 side by side, 5 alone) of 43 (5 x 8 and 3). */
static void
test_layernorm (void)
{
  const gint64 xd[3] = { 3, 7, 43 };
  for (gint64 axis = -1; axis <= 2; axis += 3)
    {
      g_autoptr (Graph) g = fz_new_graph_at (13);
      GraphValue *x = fz_input (g, "x", 3, xd);
      name_output (g, layernorm_chain (g, x, 43, axis), "y");
      g_autoptr (GHashTable) in = one_input ("x", 3, xd);
      g_autoptr (Tensor) y = fusion_check_same (g, in, "y", 1, 9);
      GraphNode *last = graph_value_node (graph_find_value (g, "y")), *mul;
      mul = graph_value_node (graph_node_input (last, 0));
      check_is_layernorm (g_hash_table_lookup (in, "x"), graph_value_get_initializer (graph_node_input (mul, 1)),
                          graph_value_get_initializer (graph_node_input (last, 1)), y, 43);
    }
}

/* torch's Gelu chain on a graph input, Mul's operands either way; x is also
 * read outside the chain. */
static void
test_gelu (void)
{
  const gint64 xd[2] = { 4, 33 };
  for (int swap = 0; swap < 2; swap++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (13);
      GraphValue *x = fz_input (g, "x", 2, xd);
      name_output (g, gelu_chain (g, x, swap), "y");
      name_output (g, graph_op (g, "Neg", x, NULL), "z");
      g_autoptr (GHashTable) in = one_input ("x", 2, xd);
      g_autoptr (Tensor) y = fusion_check_same (g, in, "y", 2, 6);
      const float *xv = tensor_data (g_hash_table_lookup (in, "x")), *yv = tensor_data (y);
      for (gint64 i = 0; i < tensor_numel (y); i++)
        g_assert_cmpfloat_with_epsilon (yv[i], 0.5 * xv[i] * (1 + erf (xv[i] / sqrt (2.0))), 1e-6);
    }
}

/* Plan node count of g with fusion (no_fusion FALSE) and `extra` requested. */
static guint
fused_nodes (Graph *g, const char *extra)
{
  RtOptions o;
  rt_options_init (&o);
  const char *names[] = { extra, NULL };
  if (extra)
    o.extra_outputs = names;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  return s->n_nodes;
}

/* What keeps its nodes: a MatMul's product that is a graph output, a bias
 * that broadcasts otherwise than one value per column ([1, N], [1]), a
 * LayerNorm whose x - mean is read a third time, a mean over another axis,
 * a Gelu whose Erf is requested; a bias Add read outside the Gelu chain
 * fuses MatMul + Add, and the chain alone. */
static void
test_not_fused (void)
{
  const gint64 xd[2] = { 6, 16 }, wd[2] = { 16, 12 };
  const gint64 bds[3][2] = { { 12 }, { 1, 12 }, { 1 } };
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (13);
      GraphValue *mm = graph_op (g, "MatMul", fz_input (g, "x", 2, xd), fz_weights (g, "w", 2, wd), NULL);
      name_output (g, graph_op (g, "Add", mm, fz_weights (g, "b", k == 1 ? 2 : 1, bds[k]), NULL), "y");
      if (k == 0)
        name_output (g, mm, "mm");
      g_autoptr (GHashTable) in = one_input ("x", 2, xd);
      g_autoptr (Tensor) y = fusion_check_same (g, in, "y", 2, 2);
    }
  {
    g_autoptr (Graph) g = fz_new_graph_at (13);
    GraphValue *mm = graph_op (g, "MatMul", fz_input (g, "x", 2, xd), fz_weights (g, "w", 2, wd), NULL);
    GraphValue *h = graph_op (g, "Add", mm, fz_weights (g, "b", 1, bds[0]), NULL);
    name_output (g, gelu_chain (g, h, FALSE), "y");
    name_output (g, graph_op (g, "Neg", h, NULL), "z");
    g_autoptr (GHashTable) in = one_input ("x", 2, xd);
    g_autoptr (Tensor) y = fusion_check_same (g, in, "y", 3, 8);
  }
  const gint64 ld[3] = { 2, 5, 24 };
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (13);
      GraphValue *x = fz_input (g, "x", 3, ld);
      name_output (g, k == 2 ? gelu_chain (g, x, FALSE) : layernorm_chain (g, x, 24, k == 1 ? 1 : -1), "y");
      GraphValue *inner = NULL;
      for (GraphNode *n = graph_first_node (g); n; n = graph_node_next (n))
        if (strcmp (graph_node_op_type (n), k == 2 ? "Erf" : "Sub") == 0)
          inner = graph_node_output (n, 0);
      graph_value_set_name (inner, "inner");
      guint plain = k == 2 ? 5 : 9;
      g_assert_cmpuint (fused_nodes (g, k == 0 || k == 2 ? "inner" : NULL), ==, plain);
      if (k == 1)
        {
          /* over axis 1 (rank 3): not the pattern, but a graph of its own */
          g_autoptr (GHashTable) in = one_input ("x", 3, ld);
          g_autoptr (Tensor) y = fusion_check_same (g, in, "y", plain, plain);
        }
    }
}

/* A bias overridden at run time by a tensor the fused kernel cannot take:
 * a clear refusal naming the input (the session checks overrides against
 * the declared shape; the fused kernel checks again), not a wrong number. */
static void
test_refuses_override (void)
{
  const gint64 xd[2] = { 3, 8 }, wd[2] = { 8, 4 }, bd[1] = { 4 }, b2[1] = { 1 };
  g_autoptr (Graph) g = fz_new_graph_at (13);
  GraphValue *mm = graph_op (g, "MatMul", fz_input (g, "x", 2, xd), fz_weights (g, "w", 2, wd), NULL);
  name_output (g, graph_op (g, "Add", mm, fz_weights (g, "b", 1, bd), NULL), "y");
  RtOptions o;
  rt_options_init (&o);
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (s->n_nodes, ==, 1);
  g_autoptr (GHashTable) in = one_input ("x", 2, xd);
  g_hash_table_insert (in, g_strdup ("b"), fz_random_tensor (1, b2));
  g_autoptr (GHashTable) out = fz_inputs_new ();
  g_assert_false (rt_session_run (s, in, out, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "'b'"));
  g_assert_null (g_hash_table_lookup (out, "y"));
}

/* LayerNorm, MatMul + bias + Gelu and Gelu over rows enough for three
 * threads: the same bits with 1 and 3. */
static void
test_threads_same_bits (void)
{
  const gint64 xd[2] = { 96, 512 }, wd[2] = { 512, 512 }, bd[1] = { 512 };
  g_autoptr (Graph) g = fz_new_graph_at (13);
  GraphValue *h = layernorm_chain (g, fz_input (g, "x", 2, xd), 512, -1);
  h = graph_op (g, "Add", graph_op (g, "MatMul", h, fz_weights (g, "w", 2, wd), NULL),
                fz_weights (g, "b", 1, bd), NULL);
  name_output (g, gelu_chain (g, gelu_chain (g, h, FALSE), TRUE), "y");
  g_autoptr (GHashTable) in = one_input ("x", 2, xd);
  Tensor *out[2];
  for (int k = 0; k < 2; k++)
    {
      RtOptions o;
      rt_options_init (&o);
      o.threads = k ? 3 : 1;
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (s->n_nodes, ==, 3);
      g_autoptr (GHashTable) res = fz_inputs_new ();
      g_assert_true (rt_session_run (s, in, res, &error));
      g_assert_no_error (error);
      out[k] = tensor_ref (g_hash_table_lookup (res, "y"));
    }
  g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[1]),
                   tensor_nbytes (out[1]));
  tensor_unref (out[0]);
  tensor_unref (out[1]);
}

/* The threaded kernels attention and normalisation use (Transpose,
 * batched MatMul, Softmax, LayerNormalization, reductions over trailing
 * axes): the same bits with 1 and 3 threads. */
static void
test_threads_kernels (void)
{
  const gint64 xd[4] = { 2, 8, 64, 96 }, nd[1] = { 64 }, p1[4] = { 0, 1, 3, 2 };
  const gint64 p2[4] = { 0, 2, 1, 3 }, last[1] = { -1 }, two[2] = { 2, 3 };
  g_autoptr (Graph) g = fz_new_graph_at (17);
  GraphValue *x = fz_input (g, "x", 4, xd);
  GraphValue *s = graph_op (g, "MatMul", x, graph_op (g, "Transpose", x, "perm_is", 4, p1, NULL), NULL);
  GraphValue *ln = graph_op (g, "LayerNormalization", s, fz_weights (g, "sc", 1, nd),
                             fz_weights (g, "b", 1, nd), NULL);
  const char *names[5] = { "softmax", "ln", "sum", "mean", "transpose" };
  name_output (g, graph_op (g, "Softmax", s, "axis_i", (gint64) -1, NULL), names[0]);
  name_output (g, ln, names[1]);
  name_output (g, graph_op (g, "ReduceSum", ln, axes_i64 (g, last), NULL), names[2]);
  name_output (g, graph_op (g, "ReduceMean", s, "axes_is", 2, two, NULL), names[3]);
  name_output (g, graph_op (g, "Transpose", s, "perm_is", 4, p2, NULL), names[4]);
  g_autoptr (GHashTable) in = one_input ("x", 4, xd);
  GHashTable *res[2];
  for (int k = 0; k < 2; k++)
    {
      RtOptions o;
      rt_options_init (&o);
      o.threads = k ? 3 : 1;
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) sess = rt_session_new (g, &o, &error);
      g_assert_no_error (error);
      res[k] = fz_inputs_new ();
      g_assert_true (rt_session_run (sess, in, res[k], &error));
      g_assert_no_error (error);
    }
  for (int i = 0; i < 5; i++)
    {
      Tensor *a = g_hash_table_lookup (res[0], names[i]), *b = g_hash_table_lookup (res[1], names[i]);
      g_assert_nonnull (a);
      g_assert_cmpint (tensor_numel (a), >, 1);
      g_assert_cmpmem (tensor_data (a), tensor_nbytes (a), tensor_data (b), tensor_nbytes (b));
    }
  g_hash_table_unref (res[0]);
  g_hash_table_unref (res[1]);
}

/* MatMul with constant B on the packed GEMM (runtime/matmul-packed.c),
 * both kernels, against the sum evaluated in double in the test: rows
 * around the tile height (1, which takes sgemm, 31, 33, 97), N across
 * several B panels with a partial one (70),
 * K across several K slices (300).  The bound is float's rounding of K
 * products and partial sums: |error| <= K * 2^-23 * sum |a b|. */
static void
test_matmul_packed (void)
{
  const gint64 rows[4] = { 1, 31, 33, 97 }, K = 300, N = 70;
  for (int kernel = 0; kernel < 2; kernel++)
    for (int r = 0; r < 4; r++)
      {
        if (kernel)
          g_setenv ("SYMONNX_PACKED_CONV_AVX2", "1", TRUE);
        const gint64 xd[2] = { rows[r], K }, wd[2] = { K, N };
        g_autoptr (Graph) g = fz_new_graph_at (13);
        name_output (g, graph_op (g, "MatMul", fz_input (g, "x", 2, xd), fz_weights (g, "w", 2, wd), NULL), "y");
        g_autoptr (GHashTable) in = one_input ("x", 2, xd);
        guint n;
        g_autoptr (Tensor) y = fz_run (g, in, FALSE, "y", &n);
        g_unsetenv ("SYMONNX_PACKED_CONV_AVX2");
        const float *x = tensor_data (g_hash_table_lookup (in, "x"));
        const float *w = tensor_data (graph_value_get_initializer (graph_find_value (g, "w")));
        const float *yv = tensor_data (y);
        g_assert_cmpint (tensor_numel (y), ==, rows[r] * N);
        for (gint64 i = 0; i < rows[r]; i++)
          for (gint64 j = 0; j < N; j++)
            {
              double ref = 0, mag = 0;
              for (gint64 k = 0; k < K; k++)
                {
                  ref += (double) x[i * K + k] * w[k * N + j];
                  mag += fabs ((double) x[i * K + k] * w[k * N + j]);
                }
              g_assert_cmpfloat (fabs (yv[i * N + j] - ref), <=, K * ldexp (1.0, -23) * mag);
            }
      }
}

void
test_fusion_transformer_register (void)
{
  g_test_add_func ("/runtime/fusion/matmul-bias", test_matmul_bias);
  g_test_add_func ("/runtime/fusion/layernorm", test_layernorm);
  g_test_add_func ("/runtime/fusion/gelu", test_gelu);
  g_test_add_func ("/runtime/fusion/transformer-not-fused", test_not_fused);
  g_test_add_func ("/runtime/fusion/refuses-override", test_refuses_override);
  g_test_add_func ("/runtime/threads/transformer-same-bits", test_threads_same_bits);
  g_test_add_func ("/runtime/matmul/packed", test_matmul_packed);
  g_test_add_func ("/runtime/threads/attention-kernels", test_threads_kernels);
}
