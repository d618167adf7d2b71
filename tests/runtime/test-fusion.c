/* Fusion at session creation (runtime/fuse.c) and the hand-vectorised
 * loops (depthwise Conv, max pooling): each fused graph gives the same
 * bits as its unfused fz_run (RtOptions.no_fusion) and has fewer plan nodes;
 * values that are read twice or returned are not fused away; the
 * depthwise Conv and MaxPool match direct evaluations of ONNX's formulas
 * in the test; the packed-weights Conv matches im2col + OpenBLAS. */
#include "tests/runtime/test-runtime.h"
#include "tests/runtime/fusion-testutil.h"
#include "runtime/session-private.h"
#include "runtime/spatial.h"
#include "runtime/conv-pixel-rows.h"
#include "runtime/conv-depthwise-lanes.h"
#include <math.h>
#include <string.h>

/* The unfused run agrees bit for bit (fusion_check_same); the activation
 * did something: several outputs were clamped to the lowest value (0 or
 * Clip's min). */
static void
check_fusion (Graph *g, GHashTable *in, const char *out, guint fused_nodes, guint plain_nodes)
{
  g_autoptr (Tensor) a = fusion_check_same (g, in, out, fused_nodes, plain_nodes);
  double lowest = INFINITY;
  guint at_lowest = 0;
  for (gint64 i = 0; i < tensor_numel (a); i++)
    lowest = MIN (lowest, tensor_get_double (a, i));
  for (gint64 i = 0; i < tensor_numel (a); i++)
    at_lowest += tensor_get_double (a, i) == lowest;
  g_assert_cmpuint (at_lowest, >, 1);
}

/* check_fusion with each packed Conv kernel (AVX-512F where the CPU has
 * it, then AVX2), so both kernels' fused stores are compared. */
static void
check_fusion_kernels (Graph *g, GHashTable *in, const char *out, guint fused, guint plain)
{
  check_fusion (g, in, out, fused, plain);
  g_setenv ("SYMONNX_PACKED_CONV_AVX2", "1", TRUE);
  check_fusion (g, in, out, fused, plain);
  g_unsetenv ("SYMONNX_PACKED_CONV_AVX2");
}

static const gint64 dx[4] = { 2, 8, 9, 7 }, dw[4] = { 6, 8, 3, 3 };
static const gint64 pads[4] = { 1, 1, 1, 1 };

/* Conv (3x3, pad 1, bias) + Relu: 6 output channels (edge tiles of the
 * packed kernels) and 16 (whole tiles, the epilogue in registers). */
static void
test_conv_relu (void)
{
  for (gint64 m = 6; m <= 16; m += 10)
    {
      g_autoptr (Graph) g = fz_new_graph_at (17);
      const gint64 wm[4] = { m, 8, 3, 3 }, bm[1] = { m };
      GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, dx), fz_weights (g, "w", 4, wm),
                                fz_weights (g, "b", 1, bm), "pads_is", 4, pads, NULL);
      graph_value_set_name (graph_op (g, "Relu", c, NULL), "y");
      graph_add_output (g, graph_find_value (g, "y"));
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, dx));
      check_fusion_kernels (g, in, "y", 1, 2);
    }
}

/* Conv (1x1, no bias) + Clip with bound inputs (opset 13), and with bound
 * attributes (opset 10). */
static void
test_conv_clip (void)
{
  const gint64 w1[4] = { 16, 8, 1, 1 };
  for (int opset = 10; opset <= 13; opset += 3)
    {
      g_autoptr (Graph) g = fz_new_graph_at (opset);
      GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, dx), fz_weights (g, "w", 4, w1), NULL);
      GraphValue *y = opset >= 11
                        ? graph_op (g, "Clip", c, fz_scalar (g, "lo", -0.25f), fz_scalar (g, "hi", 0.5f), NULL)
                        : graph_op (g, "Clip", c, "min_f", -0.25, "max_f", 0.5, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, dx));
      check_fusion_kernels (g, in, "y", 1, 2);
    }
}

/* Conv + Add (residual of the same shape, either side) + Relu; and an Add
 * that broadcasts (the fused kernel's other path). */
static void
test_conv_add_relu (void)
{
  const gint64 dz[4] = { 2, 16, 9, 7 }, dzb[4] = { 1, 16, 1, 7 };
  const gint64 w16[4] = { 16, 8, 3, 3 }, b16[1] = { 16 };
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (17);
      GraphValue *z = fz_input (g, "z", 4, k == 2 ? dzb : dz);
      GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, dx), fz_weights (g, "w", 4, w16),
                                fz_weights (g, "b", 1, b16), "pads_is", 4, pads, NULL);
      GraphValue *s = k == 1 ? graph_op (g, "Add", z, c, NULL) : graph_op (g, "Add", c, z, NULL);
      GraphValue *y = graph_op (g, "Relu", s, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, dx));
      g_hash_table_insert (in, g_strdup ("z"), fz_random_tensor (4, k == 2 ? dzb : dz));
      check_fusion_kernels (g, in, "y", 1, 3);
    }
}

/* Add + Relu alone, same shapes and broadcasting. */
static void
test_add_relu (void)
{
  const gint64 da[3] = { 4, 5, 6 }, dbc[2] = { 1, 6 };
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (17);
      GraphValue *s = graph_op (g, "Add", fz_input (g, "a", 3, da),
                                fz_input (g, "b", k ? 2 : 3, k ? dbc : da), NULL);
      GraphValue *y = graph_op (g, "Relu", s, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("a"), fz_random_tensor (3, da));
      g_hash_table_insert (in, g_strdup ("b"), fz_random_tensor (k ? 2 : 3, k ? dbc : da));
      check_fusion (g, in, "y", 1, 2);
    }
}

/* A Conv output that is also a graph output, or read twice, or requested
 * as an extra output, stays a node of its own, with its value. */
static void
test_not_fused (void)
{
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (17);
      GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, dx), fz_weights (g, "w", 4, dw),
                                "pads_is", 4, pads, NULL);
      graph_value_set_name (c, "c");
      GraphValue *y = graph_op (g, "Relu", c, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      if (k == 0)
        graph_add_output (g, c);
      else if (k == 1)
        graph_add_output (g, graph_op (g, "Neg", c, NULL));
      RtOptions o;
      rt_options_init (&o);
      const char *extra[] = { "c", NULL };
      if (k == 2)
        o.extra_outputs = extra;
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (s->n_nodes, ==, k == 1 ? 3 : 2);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, dx));
      g_autoptr (GHashTable) out = fz_inputs_new ();
      g_assert_true (rt_session_run (s, in, out, &error));
      g_assert_no_error (error);
      if (k != 1)
        {
          Tensor *tc = g_hash_table_lookup (out, "c"), *ty = g_hash_table_lookup (out, "y");
          g_assert_nonnull (tc);
          for (gint64 i = 0; i < tensor_numel (tc); i++)
            g_assert_cmpfloat (tensor_get_double (ty, i), ==, MAX (tensor_get_double (tc, i), 0));
        }
    }
}

/* ONNX's Conv formula evaluated directly, one output at a time. */
static double
direct_conv (const float *x, const float *w, const float *b, gint64 C, gint64 H, gint64 W,
             gint64 K, gint64 n, gint64 c, gint64 oh, gint64 ow, gint64 s, gint64 p, gint64 d)
{
  double acc = b ? b[c] : 0.0;
  for (gint64 kh = 0; kh < K; kh++)
    for (gint64 kw = 0; kw < K; kw++)
      {
        gint64 ih = oh * s - p + kh * d, iw = ow * s - p + kw * d;
        if (ih >= 0 && ih < H && iw >= 0 && iw < W)
          acc += (double) x[((n * C + c) * H + ih) * W + iw] * w[(c * K + kh) * K + kw];
      }
  return acc;
}

/* Depthwise Conv (group = C) over strides 1-3, pads 0-2, dilations 1-2,
 * kernels 1-5 and widths around the 8-column blocks, with and without
 * bias, against direct_conv. */
static void
test_depthwise (void)
{
  const struct { gint64 k, s, p, d, h, w; gboolean bias; } cases[] = {
    { 3, 1, 1, 1, 9, 17, TRUE }, { 3, 2, 1, 1, 14, 14, TRUE }, { 3, 2, 0, 1, 7, 8, FALSE },
    { 5, 1, 2, 1, 6, 23, TRUE }, { 3, 1, 2, 2, 8, 9, FALSE }, { 3, 3, 1, 1, 16, 31, TRUE },
    { 1, 1, 0, 1, 3, 5, TRUE }, { 3, 1, 1, 1, 1, 1, TRUE }, { 5, 2, 2, 1, 33, 40, FALSE },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      gint64 N = 2, C = 5, K = cases[t].k, S = cases[t].s, P = cases[t].p, D = cases[t].d;
      gint64 H = cases[t].h, W = cases[t].w;
      g_autoptr (Graph) g = fz_new_graph_at (17);
      gint64 xd[4] = { N, C, H, W }, wd[4] = { C, 1, K, K }, bd[1] = { C };
      gint64 st[2] = { S, S }, pd[4] = { P, P, P, P }, dl[2] = { D, D };
      GraphValue *x = fz_input (g, "x", 4, xd), *w = fz_weights (g, "w", 4, wd);
      GraphValue *y = cases[t].bias
                        ? graph_op (g, "Conv", x, w, fz_weights (g, "b", 1, bd), "group_i", C,
                                    "strides_is", 2, st, "pads_is", 4, pd, "dilations_is", 2, dl, NULL)
                        : graph_op (g, "Conv", x, w, "group_i", C, "strides_is", 2, st,
                                    "pads_is", 4, pd, "dilations_is", 2, dl, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      Tensor *tx = fz_random_tensor (4, xd);
      g_hash_table_insert (in, g_strdup ("x"), tx);
      guint nodes;
      g_autoptr (Tensor) out = fz_run (g, in, FALSE, "y", &nodes);
      gint64 OH = (H + 2 * P - (K - 1) * D - 1) / S + 1, OW = (W + 2 * P - (K - 1) * D - 1) / S + 1;
      g_assert_cmpint (tensor_dim (out, 2), ==, OH);
      g_assert_cmpint (tensor_dim (out, 3), ==, OW);
      const float *xv = tensor_data (tx);
      const float *wv = tensor_data (graph_value_get_initializer (w));
      const float *bv = cases[t].bias
                          ? tensor_data (graph_value_get_initializer (graph_find_value (g, "b")))
                          : NULL;
      const float *yv = tensor_data (out);
      for (gint64 n = 0; n < N; n++)
        for (gint64 c = 0; c < C; c++)
          for (gint64 oh = 0; oh < OH; oh++)
            for (gint64 ow = 0; ow < OW; ow++)
              {
                double want = direct_conv (xv, wv, bv, C, H, W, K, n, c, oh, ow, S, P, D);
                double got = yv[((n * C + c) * OH + oh) * OW + ow];
                if (fabs (got - want) > 1e-5 * (1 + fabs (want)))
                  g_error ("case %u: y[%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                           ",%" G_GINT64_FORMAT "] = %g, expected %g", t, n, c, oh, ow, got, want);
              }
    }
}

/* Depthwise Conv + Clip (MobileNetV2's ReLU6) and + Relu: fused = unfused. */
static void
test_depthwise_clip (void)
{
  for (int relu = 0; relu < 2; relu++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (13);
      const gint64 xd[4] = { 1, 6, 13, 19 }, wd[4] = { 6, 1, 3, 3 }, bd[1] = { 6 };
      const gint64 st[2] = { 2, 2 };
      GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_weights (g, "w", 4, wd),
                                fz_weights (g, "b", 1, bd), "group_i", (gint64) 6, "strides_is", 2,
                                st, "pads_is", 4, pads, NULL);
      GraphValue *y = relu ? graph_op (g, "Relu", c, NULL)
                           : graph_op (g, "Clip", c, fz_scalar (g, "lo", 0.0f), fz_scalar (g, "hi", 0.3f),
                                       NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      check_fusion (g, in, "y", 1, 2);
    }
}

/* The AVX-512 depthwise rows (3x3, stride 1 or 2: 16 columns a vector,
 * the last one under a mask, two output rows at a time, any vertical
 * stride) give the same bits as the 8-wide rows (SYMONNX_DEPTHWISE_AVX2=1),
 * with no activation, Relu and Clip fused, on widths around 16 and odd
 * row counts; the counter proves which path ran; a 5x5 depthwise
 * Conv does not take it.  (test_depthwise checks the default path against
 * a direct convolution.) */
static void
test_depthwise_avx512 (void)
{
  if (!__builtin_cpu_supports ("avx512f"))
    {
      g_test_skip ("no AVX-512F");
      return;
    }
  /* q: bottom/right pads; sh: the vertical stride (0: s) */
  const struct { gint64 k, s, p, q, h, w; int act; gint64 sh; } cases[] = {
    { 3, 1, 1, 1, 9, 17, 0, 0 }, { 3, 2, 1, 1, 14, 14, 1, 0 }, { 3, 2, 0, 0, 7, 8, 2, 0 },
    { 3, 1, 1, 1, 5, 1, 2, 0 }, { 3, 1, 1, 1, 6, 16, 1, 0 }, { 3, 2, 1, 1, 11, 33, 2, 0 },
    { 3, 1, 0, 0, 8, 50, 0, 0 }, { 3, 2, 1, 1, 7, 64, 1, 0 }, { 3, 2, 0, 1, 12, 36, 2, 0 },
    { 3, 1, 2, 0, 5, 19, 1, 0 }, { 3, 2, 2, 2, 6, 40, 0, 0 }, { 5, 1, 2, 2, 6, 23, 2, 0 },
    { 3, 1, 1, 1, 11, 47, 2, 2 }, { 3, 2, 1, 1, 9, 70, 1, 1 }, { 3, 2, 1, 0, 13, 31, 0, 3 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      gint64 C = 7, K = cases[t].k, S = cases[t].s, P = cases[t].p;
      g_autoptr (Graph) g = fz_new_graph_at (13);
      gint64 xd[4] = { 2, C, cases[t].h, cases[t].w }, wd[4] = { C, 1, K, K }, bd[1] = { C };
      gint64 st[2] = { cases[t].sh ? cases[t].sh : S, S }, pd[4] = { P, P, cases[t].q, cases[t].q };
      GraphValue *y = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_weights (g, "w", 4, wd),
                                fz_weights (g, "b", 1, bd), "group_i", C, "strides_is", 2, st,
                                "pads_is", 4, pd, NULL);
      if (cases[t].act == 1)
        y = graph_op (g, "Relu", y, NULL);
      else if (cases[t].act == 2)
        y = graph_op (g, "Clip", y, fz_scalar (g, "lo", -0.2f), fz_scalar (g, "hi", 0.3f), NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      guint nodes, before = rt_conv_depthwise_avx512_runs ();
      /* rows, also on narrow maps (test_depthwise_lanes) */
      g_setenv ("SYMONNX_DEPTHWISE_ROWS", "1", TRUE);
      g_autoptr (Tensor) wide = fz_run (g, in, FALSE, "y", &nodes);
      g_assert_cmpuint (nodes, ==, 1);   /* the activation fused: applied in the rows */
      g_assert_cmpuint (rt_conv_depthwise_avx512_runs (), ==, before + (K == 3));
      g_setenv ("SYMONNX_DEPTHWISE_AVX2", "1", TRUE);
      g_autoptr (Tensor) narrow = fz_run (g, in, FALSE, "y", &nodes);
      g_unsetenv ("SYMONNX_DEPTHWISE_AVX2");
      g_unsetenv ("SYMONNX_DEPTHWISE_ROWS");
      g_assert_cmpuint (rt_conv_depthwise_avx512_runs (), ==, before + (K == 3));
      g_assert_cmpint (tensor_numel (wide), ==, tensor_numel (narrow));
      g_assert_cmpmem (tensor_data (wide), tensor_numel (wide) * 4, tensor_data (narrow),
                       tensor_numel (narrow) * 4);
    }
}

/* Depthwise Convs of narrow maps with 16 channels a vector
 * (conv-depthwise-lanes.c) give the bits of the rows (SYMONNX_DEPTHWISE_ROWS)
 * on 2 images of 37 channels (a last block of 5), 3x3 of stride 1 and 2, 5x5
 * with dilation 2, uneven pads, 1x1 maps, with Relu, Clip or Add + Relu (the
 * sum then the activation over each plane), with 1 and 3 threads; the
 * counter proves which path ran, and a 17-column map keeps the rows.
 * (test_depthwise checks the default path against a direct convolution.) */
static void
test_depthwise_lanes (void)
{
  if (!__builtin_cpu_supports ("avx512f"))
    {
      g_test_skip ("no AVX-512F");
      return;
    }
  const struct { gint64 k, s, d, p, q, h, w; int act; } cases[] = {   /* q: bottom/right pads */
    { 3, 1, 1, 1, 1, 7, 7, 2 }, { 3, 2, 1, 1, 1, 14, 14, 1 }, { 3, 1, 1, 1, 1, 14, 14, 3 },
    { 5, 1, 2, 4, 0, 9, 9, 0 }, { 3, 2, 1, 0, 1, 28, 28, 2 }, { 3, 1, 1, 1, 1, 1, 1, 1 },
    { 3, 1, 1, 2, 0, 5, 11, 3 }, { 3, 1, 1, 1, 1, 9, 17, 0 },
  };
  const gint64 N = 2, C = 37;
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      gint64 K = cases[t].k, S = cases[t].s, D = cases[t].d, P = cases[t].p, Q = cases[t].q;
      gint64 H = cases[t].h, W = cases[t].w;
      gint64 OH = (H + P + Q - (K - 1) * D - 1) / S + 1, OW = (W + P + Q - (K - 1) * D - 1) / S + 1;
      g_autoptr (Graph) g = fz_new_graph_at (13);
      gint64 xd[4] = { N, C, H, W }, wd[4] = { C, 1, K, K }, bd[1] = { C }, zd[4] = { N, C, OH, OW };
      gint64 st[2] = { S, S }, dl[2] = { D, D }, pd[4] = { P, P, Q, Q };
      GraphValue *y = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_weights (g, "w", 4, wd),
                                fz_weights (g, "b", 1, bd), "group_i", C, "strides_is", 2, st,
                                "dilations_is", 2, dl, "pads_is", 4, pd, NULL);
      if (cases[t].act == 1)
        y = graph_op (g, "Relu", y, NULL);
      else if (cases[t].act == 2)
        y = graph_op (g, "Clip", y, fz_scalar (g, "lo", -0.2f), fz_scalar (g, "hi", 0.3f), NULL);
      else if (cases[t].act == 3)
        y = graph_op (g, "Relu", graph_op (g, "Add", y, fz_input (g, "z", 4, zd), NULL), NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      if (cases[t].act == 3)
        g_hash_table_insert (in, g_strdup ("z"), fz_random_tensor (4, zd));
      gboolean lanes = OW <= RT_DEPTHWISE_LANES_MAX_OW;
      Tensor *out[3];
      for (int k = 0; k < 3; k++)
        {
          RtOptions o;
          rt_options_init (&o);
          o.threads = k == 1 ? 3 : 1;
          g_autoptr (GError) error = NULL;
          g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (s->n_nodes, ==, 1);   /* the epilogue fused */
          g_autoptr (GHashTable) res = fz_inputs_new ();
          guint before = rt_conv_depthwise_lanes_runs ();
          if (k == 2)   /* (read at each run, as SYMONNX_DEPTHWISE_AVX2) */
            g_setenv ("SYMONNX_DEPTHWISE_ROWS", "1", TRUE);
          g_assert_true (rt_session_run (s, in, res, &error));
          g_unsetenv ("SYMONNX_DEPTHWISE_ROWS");
          g_assert_no_error (error);
          g_assert_cmpuint (rt_conv_depthwise_lanes_runs (), ==, before + (lanes && k < 2));
          out[k] = tensor_ref (g_hash_table_lookup (res, "y"));
        }
      g_assert_cmpint (tensor_numel (out[0]), ==, N * C * OH * OW);
      for (int k = 1; k < 3; k++)
        g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[k]),
                         tensor_nbytes (out[k]));
      for (int k = 0; k < 3; k++)
        tensor_unref (out[k]);
    }
}

/* g's output y from x := data: the same bits from MaxPool's 16-wide loop
 * (AVX-512) as from the 8-wide one (SYMONNX_POOL_AVX2). */
static void
max_pool_same_as_8_wide (Graph *g, const gint64 *xd, const float *data, gsize nbytes)
{
  g_autoptr (GHashTable) in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup ("x"), tensor_new_from_data (GRAPH_DTYPE_FLOAT, 4, xd, data,
                                                                  nbytes, NULL));
  guint nodes;
  g_autoptr (Tensor) wide = fz_run (g, in, FALSE, "y", &nodes);
  g_setenv ("SYMONNX_POOL_AVX2", "1", TRUE);
  g_autoptr (Tensor) narrow = fz_run (g, in, FALSE, "y", &nodes);
  g_unsetenv ("SYMONNX_POOL_AVX2");
  g_assert_cmpmem (tensor_data (wide), tensor_nbytes (wide), tensor_data (narrow),
                   tensor_nbytes (narrow));
}

/* MaxPool over strides 1-3, pads 0-1 and widths around the 8- and
 * 16-column blocks against the maximum of each window computed here; with
 * NaNs and signed zeros, the same bits from the 16- and 8-wide loops (3
 * wide of stride 2 on 75 and 111 columns: several vectors of the
 * two-loads-a-row loop; on 27 and 31, 13 and 15 columns: its masked
 * form). */
static void
test_max_pool (void)
{
  const struct { gint64 k, s, p, h, w; } cases[] = {
    { 3, 2, 0, 11, 40 }, { 3, 2, 1, 9, 33 }, { 2, 1, 0, 5, 30 }, { 3, 1, 1, 4, 17 },
    { 3, 3, 1, 7, 50 }, { 5, 2, 2, 12, 24 }, { 3, 2, 0, 3, 3 }, { 3, 2, 1, 9, 75 },
    { 3, 2, 0, 6, 111 }, { 3, 2, 0, 5, 27 }, { 3, 2, 1, 4, 31 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      gint64 K = cases[t].k, S = cases[t].s, P = cases[t].p, H = cases[t].h, W = cases[t].w;
      g_autoptr (Graph) g = fz_new_graph_at (17);
      gint64 xd[4] = { 1, 3, H, W }, ks[2] = { K, K }, st[2] = { S, S }, pd[4] = { P, P, P, P };
      GraphValue *y = graph_op (g, "MaxPool", fz_input (g, "x", 4, xd), "kernel_shape_is", 2, ks,
                                "strides_is", 2, st, "pads_is", 4, pd, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      Tensor *tx = fz_random_tensor (4, xd);
      g_hash_table_insert (in, g_strdup ("x"), tx);
      guint nodes;
      g_autoptr (Tensor) out = fz_run (g, in, FALSE, "y", &nodes);
      gint64 OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
      g_assert_cmpint (tensor_dim (out, 3), ==, OW);
      const float *xv = tensor_data (tx), *yv = tensor_data (out);
      for (gint64 c = 0; c < 3; c++)
        for (gint64 oh = 0; oh < OH; oh++)
          for (gint64 ow = 0; ow < OW; ow++)
            {
              float want = -INFINITY;
              for (gint64 kh = 0; kh < K; kh++)
                for (gint64 kw = 0; kw < K; kw++)
                  {
                    gint64 ih = oh * S - P + kh, iw = ow * S - P + kw;
                    if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                      want = MAX (want, xv[(c * H + ih) * W + iw]);
                  }
              g_assert_cmpfloat (yv[(c * OH + oh) * OW + ow], ==, want);
            }
      /* NaNs, and equal values of both signs (0 and -0): the 16-wide
       * loop (AVX-512) keeps the 8-wide loop's bits (SYMONNX_POOL_AVX2). */
      gsize nbytes = tensor_nbytes (tx);
      gint64 numel = tensor_numel (tx);
      g_autofree float *xw = g_memdup2 (tensor_data (tx), nbytes);
      for (gint64 i = 0; i < numel; i += 7)
        xw[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? 0.0f : -0.0f;
      max_pool_same_as_8_wide (g, xd, xw, nbytes);
      /* Zeros of both signs the maximum of every window, in every order
       * of taps: which one a window keeps is the first in its order. */
      g_autofree float *xz = g_malloc (nbytes);
      for (gint64 i = 0; i < numel; i++)
        xz[i] = (i * 7 / 3) % 3 == 0 ? -1.0f : (i * 5 / 2) % 2 ? 0.0f : -0.0f;
      max_pool_same_as_8_wide (g, xd, xz, nbytes);
    }
}

/* GlobalAveragePool on floats (its own loop: each plane summed 8 lanes
 * side by side): 1-D to 3-D maps of 1 to 169 values and more, each plane's
 * mean within 1e-6 (relative) of a sum in double, the same bits at 1 and 3
 * threads. */
static void
test_global_average (void)
{
  const struct { guint rank; gint64 d[5]; } cases[] = {
    { 4, { 1, 1000, 13, 13 } }, { 3, { 2, 5, 7 } }, { 5, { 1, 3, 2, 3, 5 } }, { 4, { 2, 9, 1, 1 } },
    { 4, { 1, 17, 4, 4 } },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (13);
      GraphValue *y = graph_op (g, "GlobalAveragePool", fz_input (g, "x", cases[t].rank, cases[t].d),
                                NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      Tensor *tx = fz_random_tensor (cases[t].rank, cases[t].d);
      g_hash_table_insert (in, g_strdup ("x"), tx);
      g_autoptr (Tensor) y1 = fz_run_threads (g, in, 1, "y");
      g_autoptr (Tensor) y3 = fz_run_threads (g, in, 3, "y");
      gint64 planes = cases[t].d[0] * cases[t].d[1], n = tensor_numel (tx) / planes;
      g_assert_cmpint (tensor_numel (y1), ==, planes);
      g_assert_cmpint (tensor_rank (y1), ==, cases[t].rank);
      g_assert_cmpmem (tensor_data (y1), tensor_nbytes (y1), tensor_data (y3), tensor_nbytes (y3));
      const float *xv = tensor_data (tx), *yv = tensor_data (y1);
      for (gint64 pl = 0; pl < planes; pl++)
        {
          double sum = 0, mag = 0;
          for (gint64 i = 0; i < n; i++)
            sum += xv[pl * n + i], mag += fabs (xv[pl * n + i]);
          g_assert_cmpfloat_with_epsilon (yv[pl], sum / n, 1e-6 * MAX (1.0, mag / n));
        }
    }
}

/* Output y of g run with the environment variable `env` set (NULL: none). */
static Tensor *
run_with_env (Graph *g, GHashTable *in, const char *env)
{
  if (env)
    g_setenv (env, "1", TRUE);
  guint nodes;
  Tensor *t = fz_run (g, in, FALSE, "y", &nodes);
  if (env)
    g_unsetenv (env);
  return t;
}

/* Conv through the packed GEMM (conv-packed.c; both kernels where the CPU
 * has them) against im2col + OpenBLAS sgemm: 1x1 (no im2col), 3x3 with
 * pads, strides, dilations, groups, output channels that fill no whole
 * tile, widths that fill no whole panel, two images, bias or none; rows
 * of 70 and 75 at stride 2 (im2col's 16-wide strided copy, then its
 * tail). */
static void
test_packed (void)
{
  const struct { gint64 n, c, m, k, s, p, d, g, h, w; gboolean bias; } cases[] = {
    { 1, 16, 24, 1, 1, 0, 1, 1, 9, 13, TRUE }, { 2, 8, 13, 3, 1, 1, 1, 1, 10, 11, FALSE },
    { 1, 6, 20, 3, 2, 1, 1, 2, 15, 17, TRUE }, { 1, 3, 7, 5, 2, 2, 1, 1, 23, 19, TRUE },
    { 1, 40, 9, 3, 1, 2, 2, 1, 8, 8, FALSE }, { 2, 300, 17, 1, 1, 0, 1, 1, 5, 7, TRUE },
    { 1, 8, 12, 3, 2, 1, 1, 1, 9, 75, TRUE }, { 1, 6, 10, 1, 2, 0, 1, 1, 7, 70, FALSE },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      g_autoptr (Graph) g = fz_new_graph_at (17);
      gint64 xd[4] = { cases[t].n, cases[t].c, cases[t].h, cases[t].w };
      gint64 wd[4] = { cases[t].m, cases[t].c / cases[t].g, cases[t].k, cases[t].k };
      gint64 bd[1] = { cases[t].m }, st[2] = { cases[t].s, cases[t].s };
      gint64 pd[4] = { cases[t].p, cases[t].p, cases[t].p, cases[t].p };
      gint64 dl[2] = { cases[t].d, cases[t].d };
      GraphValue *x = fz_input (g, "x", 4, xd), *w = fz_weights (g, "w", 4, wd);
      GraphValue *y = cases[t].bias
                        ? graph_op (g, "Conv", x, w, fz_weights (g, "b", 1, bd), "group_i",
                                    cases[t].g, "strides_is", 2, st, "pads_is", 4, pd,
                                    "dilations_is", 2, dl, NULL)
                        : graph_op (g, "Conv", x, w, "group_i", cases[t].g, "strides_is", 2, st,
                                    "pads_is", 4, pd, "dilations_is", 2, dl, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      g_autoptr (Tensor) ref = run_with_env (g, in, "SYMONNX_NO_PACKED_CONV");
      g_autoptr (Tensor) best = run_with_env (g, in, NULL);
      g_autoptr (Tensor) avx2 = run_with_env (g, in, "SYMONNX_PACKED_CONV_AVX2");
      Tensor *got[2] = { best, avx2 };
      for (int v = 0; v < 2; v++)
        {
          g_assert_cmpint (tensor_numel (got[v]), ==, tensor_numel (ref));
          for (gint64 i = 0; i < tensor_numel (ref); i++)
            {
              double a = tensor_get_double (got[v], i), b = tensor_get_double (ref, i);
              if (fabs (a - b) > 1e-5 * (1 + fabs (b)))
                g_error ("case %u, variant %d: y[%" G_GINT64_FORMAT "] = %g, sgemm gives %g", t,
                         v, i, a, b);
            }
        }
    }
}

/* A graph large enough for every threaded loop (Conv blocks, depthwise
 * planes, MaxPool planes, broadcasting Add, Clip) gives the same bits
 * with 1 and 3 threads. */
static void
test_threads_same_bits (void)
{
  g_autoptr (Graph) g = fz_new_graph_at (13);
  const gint64 xd[4] = { 1, 16, 56, 56 }, wd[4] = { 32, 16, 3, 3 }, dwd[4] = { 32, 1, 3, 3 };
  const gint64 bd[1] = { 32 }, zd[3] = { 32, 1, 28 }, ks[2] = { 3, 3 }, st[2] = { 2, 2 };
  GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_weights (g, "w", 4, wd),
                            fz_weights (g, "b", 1, bd), "pads_is", 4, pads, NULL);
  GraphValue *r = graph_op (g, "Relu", c, NULL);
  GraphValue *d = graph_op (g, "Conv", r, fz_weights (g, "dw", 4, dwd), "group_i", (gint64) 32,
                            "pads_is", 4, pads, NULL);
  GraphValue *m = graph_op (g, "MaxPool", d, "kernel_shape_is", 2, ks, "strides_is", 2, st,
                            "pads_is", 4, pads, NULL);
  GraphValue *a = graph_op (g, "Add", m, fz_weights (g, "z", 3, zd), NULL);
  GraphValue *y = graph_op (g, "Clip", a, fz_scalar (g, "lo", -0.5f), fz_scalar (g, "hi", 0.5f), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  g_autoptr (GHashTable) in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
  Tensor *out[2];
  for (int k = 0; k < 2; k++)
    {
      RtOptions o;
      rt_options_init (&o);
      o.threads = k ? 3 : 1;
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_assert_no_error (error);
      g_autoptr (GHashTable) res = fz_inputs_new ();
      g_assert_true (rt_session_run (s, in, res, &error));
      g_assert_no_error (error);
      out[k] = tensor_ref (g_hash_table_lookup (res, "y"));
    }
  g_assert_cmpint (tensor_numel (out[0]), ==, 32 * 28 * 28);
  g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[1]),
                   tensor_nbytes (out[1]));
  tensor_unref (out[0]);
  tensor_unref (out[1]);
}

/* Runs g (random inputs x and z of shapes xd and zd, output y) with 1, 2
 * and 3 threads, the pixel-rows GEMM off: n_nodes after fusion, `counter`
 * moved by moved[k] in run k, the same bits each time; the output. */
static Tensor *
run_split_threads (Graph *g, const gint64 xd[4], const gint64 zd[4], guint n_nodes,
                   guint (*counter) (void), const guint moved[3])
{
  g_autoptr (GHashTable) in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
  g_hash_table_insert (in, g_strdup ("z"), fz_random_tensor (4, zd));
  Tensor *out[3];
  for (int k = 0; k < 3; k++)
    {
      RtOptions o;
      rt_options_init (&o);
      o.threads = k + 1;
      g_autoptr (GError) error = NULL;
      /* a 1x1 Conv would take the pixel-rows GEMM (test_pixel_rows) */
      g_setenv ("SYMONNX_NO_PIXEL_ROWS", "1", TRUE);
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_unsetenv ("SYMONNX_NO_PIXEL_ROWS");
      g_assert_no_error (error);
      g_assert_cmpuint (s->n_nodes, ==, n_nodes);
      g_autoptr (GHashTable) res = fz_inputs_new ();
      guint before = counter ();
      g_assert_true (rt_session_run (s, in, res, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (counter (), ==, before + moved[k]);
      out[k] = tensor_ref (g_hash_table_lookup (res, "y"));
    }
  for (int k = 1; k < 3; k++)
    {
      g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[k]),
                       tensor_nbytes (out[k]));
      tensor_unref (out[k]);
    }
  return out[0];
}

/* Convs of one image with few output columns split their output channels
 * over the threads (B packed once, whole): a 1x1 Conv + Add + Relu and a
 * 3x3 stride-2 Conv + Clip on a 7x7 map give the same bits with 2 and 3
 * threads as with 1 (each panel's blocks of columns on one thread); the
 * counter proves the split ran, and only with more than one thread. */
static void
test_channel_split (void)
{
  g_autoptr (Graph) g = fz_new_graph_at (13);
  const gint64 xd[4] = { 1, 24, 7, 7 }, w1d[4] = { 64, 24, 1, 1 }, b1d[1] = { 64 };
  const gint64 zd[4] = { 1, 64, 7, 7 }, w2d[4] = { 56, 64, 3, 3 }, st[2] = { 2, 2 };
  GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_weights (g, "w1", 4, w1d),
                            fz_weights (g, "b1", 1, b1d), NULL);
  GraphValue *r = graph_op (g, "Relu", graph_op (g, "Add", c, fz_input (g, "z", 4, zd), NULL), NULL);
  GraphValue *d = graph_op (g, "Conv", r, fz_weights (g, "w2", 4, w2d), "strides_is", 2, st,
                            "pads_is", 4, pads, NULL);
  GraphValue *y = graph_op (g, "Clip", d, fz_scalar (g, "lo", -0.5f), fz_scalar (g, "hi", 0.5f), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  /* Conv + Add + Relu, Conv + Clip: both split at 2 and 3 threads */
  const guint moved[3] = { 0, 2, 2 };
  g_autoptr (Tensor) out = run_split_threads (g, xd, zd, 2, rt_conv_channel_splits, moved);
  g_assert_cmpint (tensor_numel (out), ==, 56 * 4 * 4);
  guint clamped = 0;
  for (gint64 i = 0; i < tensor_numel (out); i++)
    clamped += fabs (tensor_get_double (out, i)) == 0.5;
  g_assert_cmpuint (clamped, >, 1);
}

/* A 1x1 Conv of one image with fewer output channels than columns (16
 * channels, 12x12: 5 panels of 32 columns) splits its columns a panel a
 * block at 2 threads (at least 2 panels a thread) but not at 3: the same
 * bits as 1 thread either way, with Add + Relu fused; the counter proves
 * which split ran. */
static void
test_column_split (void)
{
  g_autoptr (Graph) g = fz_new_graph_at (13);
  const gint64 xd[4] = { 1, 48, 12, 12 }, wd[4] = { 16, 48, 1, 1 }, bd[1] = { 16 };
  const gint64 zd[4] = { 1, 16, 12, 12 };
  GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_weights (g, "w", 4, wd),
                            fz_weights (g, "b", 1, bd), NULL);
  GraphValue *y = graph_op (g, "Relu", graph_op (g, "Add", c, fz_input (g, "z", 4, zd), NULL), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  const guint moved[3] = { 0, 1, 0 };
  g_autoptr (Tensor) out = run_split_threads (g, xd, zd, 1, rt_conv_column_splits, moved);
  g_assert_cmpint (tensor_numel (out), ==, 16 * 144);
  guint zeros = 0;
  for (gint64 i = 0; i < tensor_numel (out); i++)
    zeros += tensor_get_double (out, i) == 0.0;
  g_assert_cmpuint (zeros, >, 1);
  g_assert_cmpuint (zeros, <, 16 * 144);
}

/* y = Conv (Relu (Conv (x, w1, b1) + z), w2), both 1x1, in double
 * (N x O x HW, row-major). */
static double *
pixel_rows_ref (const Tensor *x, const Tensor *z, const Tensor *w1, const Tensor *b1,
                const Tensor *w2)
{
  gint64 N = tensor_dim (x, 0), C = tensor_dim (x, 1), M = tensor_dim (w1, 0);
  gint64 O = tensor_dim (w2, 0), HW = tensor_dim (x, 2) * tensor_dim (x, 3);
  g_autofree double *h = g_new0 (double, M * HW);
  double *y = g_new0 (double, N * O * HW);
  for (gint64 n = 0; n < N; n++)
    {
      for (gint64 m = 0; m < M; m++)
        for (gint64 p = 0; p < HW; p++)
          {
            double v = tensor_get_double (b1, m) + tensor_get_double (z, (n * M + m) * HW + p);
            for (gint64 c = 0; c < C; c++)
              v += tensor_get_double (w1, m * C + c) * tensor_get_double (x, (n * C + c) * HW + p);
            h[m * HW + p] = v > 0 ? v : 0;
          }
      for (gint64 o = 0; o < O; o++)
        for (gint64 m = 0; m < M; m++)
          for (gint64 p = 0; p < HW; p++)
            y[(n * O + o) * HW + p] += tensor_get_double (w2, o * M + m) * h[m * HW + p];
    }
  return y;
}

/* 1x1 Convs whose first run has a map of at most 64 pixels switch to the
 * pixel-rows GEMM (conv-pixel-rows.c) for good: Conv + bias + Add + Relu
 * (fused) and a Conv without bias, 2 images, 200 and 33 output channels
 * (edge panels; at 12x12 the first Conv's 7 panels go in blocks of 3), a
 * 7x7 input and then, in the same session, 12x12: the counter proves both
 * Convs took the path in both runs, and the outputs are the bits of the
 * other orientation (SYMONNX_NO_PIXEL_ROWS) with 1 and 3 threads, and
 * within 1e-4 (relative above 1) of a sum in double. */
static void
test_pixel_rows (void)
{
  g_autoptr (Graph) g = fz_new_graph_at (13);
  const gint64 w1d[4] = { 200, 64, 1, 1 }, b1d[1] = { 200 }, w2d[4] = { 33, 200, 1, 1 };
  GraphValue *w1 = fz_weights (g, "w1", 4, w1d), *b1 = fz_weights (g, "b1", 1, b1d);
  GraphValue *w2 = fz_weights (g, "w2", 4, w2d);
  /* untyped inputs: the same session takes both map sizes */
  GraphValue *x = graph_add_input (g, "x", NULL), *z = graph_add_input (g, "z", NULL);
  GraphValue *c = graph_op (g, "Conv", x, w1, b1, NULL);
  GraphValue *r = graph_op (g, "Relu", graph_op (g, "Add", c, z, NULL), NULL);
  GraphValue *y = graph_op (g, "Conv", r, w2, NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  const gint64 sizes[2] = { 7, 12 };
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  for (int i = 0; i < 2; i++)
    {
      const gint64 xd[4] = { 2, 64, sizes[i], sizes[i] }, zd[4] = { 2, 200, sizes[i], sizes[i] };
      GHashTable *in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      g_hash_table_insert (in, g_strdup ("z"), fz_random_tensor (4, zd));
      g_ptr_array_add (inputs, in);
    }
  Tensor *out[3][2];   /* [threads 1 / threads 3 / other orientation][size] */
  for (int k = 0; k < 3; k++)
    {
      if (k == 2)
        g_setenv ("SYMONNX_NO_PIXEL_ROWS", "1", TRUE);
      RtOptions o;
      rt_options_init (&o);
      o.threads = k == 1 ? 3 : 1;
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_unsetenv ("SYMONNX_NO_PIXEL_ROWS");
      g_assert_no_error (error);
      for (int i = 0; i < 2; i++)
        {
          g_autoptr (GHashTable) res = fz_inputs_new ();
          guint before = rt_conv_pixel_rows_runs ();
          g_assert_true (rt_session_run (s, inputs->pdata[i], res, &error));
          g_assert_no_error (error);
          g_assert_cmpuint (rt_conv_pixel_rows_runs (), ==, before + (k < 2 ? 2 : 0));
          out[k][i] = tensor_ref (g_hash_table_lookup (res, "y"));
        }
    }
  Tensor *tw1 = graph_value_get_initializer (w1), *tb1 = graph_value_get_initializer (b1);
  Tensor *tw2 = graph_value_get_initializer (w2);
  for (int i = 0; i < 2; i++)
    {
      gint64 HW = sizes[i] * sizes[i];
      g_assert_cmpint (tensor_numel (out[0][i]), ==, 2 * 33 * HW);
      for (int k = 1; k < 3; k++)
        g_assert_cmpmem (tensor_data (out[0][i]), tensor_nbytes (out[0][i]), tensor_data (out[k][i]),
                         tensor_nbytes (out[k][i]));
      GHashTable *in = inputs->pdata[i];
      Tensor *tx = g_hash_table_lookup (in, "x"), *tz = g_hash_table_lookup (in, "z");
      g_autofree double *want = pixel_rows_ref (tx, tz, tw1, tb1, tw2);
      for (gint64 e = 0; e < 2 * 33 * HW; e++)
        g_assert_cmpfloat_with_epsilon (tensor_get_double (out[0][i], e), want[e],
                                        1e-4 * MAX (1.0, fabs (want[e])));
      for (int k = 0; k < 3; k++)
        tensor_unref (out[k][i]);
    }
}

/* y (one image, M x HW) against Relu (bias + W x [+ z]) summed in double,
 * W the M x K 1x1 weights w, b the bias, within 1e-4 (relative above 1). */
static void
check_conv1x1_relu (const Tensor *y, GHashTable *in, GraphValue *w, GraphValue *b,
                    const char *z, gint64 M, gint64 K, gint64 HW)
{
  const float *xv = tensor_data (g_hash_table_lookup (in, "x"));
  const float *zv = z ? tensor_data (g_hash_table_lookup (in, z)) : NULL;
  const float *wv = tensor_data (graph_value_get_initializer (w));
  const float *bv = tensor_data (graph_value_get_initializer (b));
  const float *yv = tensor_data (y);
  g_assert_cmpint (tensor_numel (y), ==, M * HW);
  for (gint64 m = 0; m < M; m++)
    for (gint64 p = 0; p < HW; p++)
      {
        double want = bv[m];
        for (gint64 c = 0; c < K; c++)
          want += (double) wv[m * K + c] * xv[c * HW + p];
        want = MAX (want + (zv ? zv[m * HW + p] : 0), 0.0);
        g_assert_cmpfloat_with_epsilon (yv[m * HW + p], want, 1e-4 * MAX (1.0, fabs (want)));
      }
}

/* Plain 1x1 Convs (stride 1, no pads) of up to 256 output pixels with
 * K >= 256 take the pixel-rows GEMM when there are at least two panels of
 * 32 output channels a thread (RT_PIXEL_ROWS_MAX_PLAIN): at 13x13 with
 * K = 256 and 64 channels at 1 thread but not at 3, nor with K = 255,
 * nor at 17x17 (289 pixels); with bias and Relu fused.  The counter
 * proves which path ran; every output has the bits of the other
 * orientation (SYMONNX_NO_PIXEL_ROWS) and is within 1e-4 of a sum in
 * double. */
static void
test_pixel_rows_plain (void)
{
  const struct { gint64 K, M, H; int threads; gboolean takes; } cases[] = {
    { 256, 64, 13, 1, TRUE }, { 256, 64, 13, 3, FALSE }, { 255, 64, 13, 1, FALSE },
    { 256, 100, 17, 1, FALSE }, { 300, 200, 14, 3, TRUE }, { 256, 32, 9, 1, FALSE },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      gint64 K = cases[t].K, M = cases[t].M, H = cases[t].H, HW = H * H;
      g_autoptr (Graph) g = fz_new_graph_at (13);
      const gint64 xd[4] = { 1, K, H, H }, wd[4] = { M, K, 1, 1 }, bd[1] = { M };
      GraphValue *w = fz_weights (g, "w", 4, wd), *b = fz_weights (g, "b", 1, bd);
      GraphValue *y = graph_op (g, "Relu", graph_op (g, "Conv", fz_input (g, "x", 4, xd), w, b, NULL),
                                NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      Tensor *out[2];   /* [default / SYMONNX_NO_PIXEL_ROWS] */
      for (int k = 0; k < 2; k++)
        {
          if (k == 1)
            g_setenv ("SYMONNX_NO_PIXEL_ROWS", "1", TRUE);
          g_autoptr (RtSession) s = fz_session_new (g, cases[t].threads);
          g_unsetenv ("SYMONNX_NO_PIXEL_ROWS");
          guint before = rt_conv_pixel_rows_runs ();
          out[k] = fz_session_run (s, in, "y");
          g_assert_cmpuint (rt_conv_pixel_rows_runs (), ==, before + (k == 0 && cases[t].takes));
        }
      g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[1]),
                       tensor_nbytes (out[1]));
      check_conv1x1_relu (out[0], in, w, b, NULL, M, K, HW);
      for (int k = 0; k < 2; k++)
        tensor_unref (out[k]);
    }
}

/* 1x1 Convs of stride 1 on maps too large for the pixel-rows GEMM read
 * B as x's rows where they lie (rt_conv_packed_gemm_rows): maps whose
 * pixels are not whole panels of 32 (the last partial panel packed), more
 * than one block of columns (K = 512: 512 columns a block), 1 to 3
 * threads (splitting the columns, or the output channels where the map
 * has at most 16 pixels per output channel: the counter proves which),
 * with bias + Add + Relu fused; each output within 1e-4 of a sum in
 * double, and the same bits at 1 and 3 threads. */
static void
test_conv1x1_rows (void)
{
  const struct { gint64 K, M, H, W; gboolean channels; } cases[] = {   /* channels: split at 3 threads */
    { 512, 40, 30, 30, FALSE }, { 16, 96, 23, 29, TRUE }, { 64, 8, 17, 17, FALSE },
    { 3, 33, 20, 20, FALSE }, { 40, 64, 30, 30, TRUE },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      gint64 K = cases[t].K, M = cases[t].M, HW = cases[t].H * cases[t].W;
      g_autoptr (Graph) g = fz_new_graph_at (13);
      const gint64 xd[4] = { 1, K, cases[t].H, cases[t].W }, wd[4] = { M, K, 1, 1 }, bd[1] = { M };
      const gint64 zd[4] = { 1, M, cases[t].H, cases[t].W };
      GraphValue *w = fz_weights (g, "w", 4, wd), *b = fz_weights (g, "b", 1, bd);
      GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, xd), w, b, NULL);
      GraphValue *y = graph_op (g, "Relu", graph_op (g, "Add", c, fz_input (g, "z", 4, zd), NULL), NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      g_hash_table_insert (in, g_strdup ("z"), fz_random_tensor (4, zd));
      Tensor *out[2];
      for (int k = 0; k < 2; k++)
        {
          g_autoptr (RtSession) s = fz_session_new (g, k ? 3 : 1);
          g_assert_cmpuint (s->n_nodes, ==, 1);   /* bias, Add and Relu fused */
          guint before = rt_conv_channel_splits ();
          out[k] = fz_session_run (s, in, "y");
          g_assert_cmpuint (rt_conv_channel_splits (), ==, before + (k && cases[t].channels));
        }
      g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[1]),
                       tensor_nbytes (out[1]));
      check_conv1x1_relu (out[0], in, w, b, "z", M, K, HW);
      for (int k = 0; k < 2; k++)
        tensor_unref (out[k]);
    }
}

/* Gemm of one row over a B that is not packed (a graph input here; in
 * models, weights too large for a packed copy) runs runtime/gemv.c: B
 * transposed or not, K a whole number of vectors or not, N around the
 * 4-row and 128-column steps, alpha and beta with a C, against a sum in
 * double (1e-4 relative), and the same bits at 1 and 3 threads. */
static void
test_gemv (void)
{
  const struct { gint64 K, N; gboolean tb, c; } cases[] = {
    { 37, 11, TRUE, FALSE }, { 64, 130, TRUE, TRUE }, { 300, 257, FALSE, TRUE },
    { 16, 5, FALSE, FALSE }, { 1000, 3, TRUE, TRUE }, { 9, 129, FALSE, FALSE },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    {
      gint64 K = cases[t].K, N = cases[t].N;
      g_autoptr (Graph) g = fz_new_graph_at (13);
      const gint64 ad[2] = { 1, K }, cd[1] = { N };
      gint64 bdims[2] = { cases[t].tb ? N : K, cases[t].tb ? K : N };
      GraphValue *y = cases[t].c
                        ? graph_op (g, "Gemm", fz_input (g, "a", 2, ad), fz_input (g, "b", 2, bdims),
                                    fz_input (g, "c", 1, cd), "transB_i", (gint64) cases[t].tb,
                                    "alpha_f", 0.75, "beta_f", -1.5, NULL)
                        : graph_op (g, "Gemm", fz_input (g, "a", 2, ad), fz_input (g, "b", 2, bdims),
                                    "transB_i", (gint64) cases[t].tb, NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      Tensor *ta = fz_random_tensor (2, ad), *tb = fz_random_tensor (2, bdims);
      Tensor *tc = cases[t].c ? fz_random_tensor (1, cd) : NULL;
      g_hash_table_insert (in, g_strdup ("a"), ta);
      g_hash_table_insert (in, g_strdup ("b"), tb);
      if (tc)
        g_hash_table_insert (in, g_strdup ("c"), tc);
      g_autoptr (Tensor) y1 = fz_run_threads (g, in, 1, "y");
      g_autoptr (Tensor) y3 = fz_run_threads (g, in, 3, "y");
      g_assert_cmpint (tensor_numel (y1), ==, N);
      g_assert_cmpmem (tensor_data (y1), tensor_nbytes (y1), tensor_data (y3), tensor_nbytes (y3));
      const float *av = tensor_data (ta), *bv = tensor_data (tb), *yv = tensor_data (y1);
      for (gint64 n = 0; n < N; n++)
        {
          double want = 0, mag = 0;
          for (gint64 k = 0; k < K; k++)
            {
              double p = (double) av[k] * (cases[t].tb ? bv[n * K + k] : bv[k * N + n]);
              want += p;
              mag += fabs (p);
            }
          if (tc)
            want = 0.75 * want - 1.5 * ((const float *) tensor_data (tc))[n];
          g_assert_cmpfloat_with_epsilon (yv[n], want, 1e-5 * MAX (1.0, mag));
        }
    }
}

/* DequantizeLinear (x, w, bias) → Conv [→ Relu] → QuantizeLinear, as
 * torch exports a quantized convolution (Note [Quantized Conv chains]),
 * fused into one integer convolution: it must equal ONNX's QLinearConv
 * (the kernel ONNX's backend tests check) on the same integers, the bias
 * quantized with scale sx·sw, clamped at the output zero point after a
 * Relu.  Power-of-two scales keep every product exact, so both round the
 * same values.  Per-tensor and per-channel (axis 0) weights. */
static Tensor *
int_tensor (GraphDType dt, guint rank, const gint64 *dims, int lo, int hi)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  g_autofree gint64 *v = g_new (gint64, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    v[i] = lo + (gint64) ((fz_rnd () + 1) / 2 * (hi - lo + 1)) % (hi - lo + 1);
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_INT64, rank, dims, v, (gsize) n * 8, NULL);
  return tensor_cast (t, dt, NULL);
}

static GraphValue *
const_init (Graph *g, const char *name, Tensor *t /* transfer full */)
{
  GraphValue *v = graph_add_initializer (g, name, t);
  tensor_unref (t);
  return v;
}

static void
test_qdq_conv (void)
{
  static const gint64 dxq[4] = { 1, 3, 6, 5 }, dwq[4] = { 4, 3, 3, 3 }, m4[1] = { 4 };
  for (guint variant = 0; variant < 4; variant++)
    {
      gboolean per_channel = variant & 1, relu = (variant & 2) != 0;
      g_autoptr (Graph) g = fz_new_graph_at (13);
      g_autoptr (GraphType) xt = graph_type_new_tensor_static (GRAPH_DTYPE_UINT8, 4, dxq);
      GraphValue *xq = graph_add_input (g, "xq", xt);
      float sxv = 1.0f / 32, ysv = 4, swv[4] = { 1.0f / 64, 1.0f / 16, 1.0f / 128, 1.0f / 32 };
      float sbv[4];
      for (guint k = 0; k < 4; k++)
        sbv[k] = sxv * swv[per_channel ? k : 0];
      GraphValue *sx = fz_scalar (g, "sx", sxv), *ys = fz_scalar (g, "ys", ysv);
      GraphValue *zx = const_init (g, "zx", tensor_new_scalar_int64 (GRAPH_DTYPE_UINT8, 7));
      GraphValue *yzp = const_init (g, "yzp", tensor_new_scalar_int64 (GRAPH_DTYPE_UINT8, 100));
      GraphValue *wq = const_init (g, "wq", int_tensor (GRAPH_DTYPE_INT8, 4, dwq, -128, 127));
      GraphValue *sw = per_channel
        ? const_init (g, "sw", tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, m4, swv, sizeof swv, NULL))
        : fz_scalar (g, "sw", swv[0]);
      GraphValue *zw = const_init (g, "zw", tensor_new_scalar_int64 (GRAPH_DTYPE_INT8, 0));
      GraphValue *bq = const_init (g, "bq", int_tensor (GRAPH_DTYPE_INT32, 1, m4, -3000, 3000));
      GraphValue *sb = const_init (g, "sb", tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, m4, sbv,
                                                                  sizeof sbv, NULL));
      GraphValue *zb = const_init (g, "zb", int_tensor (GRAPH_DTYPE_INT32, 1, m4, 0, 0));
      GraphValue *x = graph_op (g, "DequantizeLinear", xq, sx, zx, NULL);
      GraphValue *w = per_channel ? graph_op (g, "DequantizeLinear", wq, sw, zw, "axis_i", (gint64) 0, NULL)
                                  : graph_op (g, "DequantizeLinear", wq, sw, zw, NULL);
      GraphValue *b = graph_op (g, "DequantizeLinear", bq, sb, zb, "axis_i", (gint64) 0, NULL);
      GraphValue *c = graph_op (g, "Conv", x, w, b, "pads_is", 4, pads, NULL);
      if (relu)
        c = graph_op (g, "Relu", c, NULL);
      graph_value_set_name (graph_op (g, "QuantizeLinear", c, ys, yzp, NULL), "y");
      graph_add_output (g, graph_find_value (g, "y"));
      /* the reference: QLinearConv on the same integers */
      graph_value_set_name (graph_op (g, "QLinearConv", xq, sx, zx, wq, sw, zw, ys, yzp, bq,
                                      "pads_is", 4, pads, NULL), "ref");
      graph_add_output (g, graph_find_value (g, "ref"));
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("xq"), int_tensor (GRAPH_DTYPE_UINT8, 4, dxq, 0, 255));
      guint nf, np;
      g_autoptr (Tensor) fused = fz_run (g, in, FALSE, "y", &nf);
      g_autoptr (Tensor) ref = fz_run (g, in, FALSE, "ref", &nf);
      g_autoptr (Tensor) plain = fz_run (g, in, TRUE, "y", &np);
      g_assert_cmpuint (nf, ==, 2);                  /* the chain, and QLinearConv */
      g_assert_cmpuint (np, ==, relu ? 7u : 6u);
      g_assert_cmpint (tensor_dtype (fused), ==, GRAPH_DTYPE_UINT8);
      g_assert_cmpint (tensor_numel (fused), ==, tensor_numel (ref));
      guint clamped = 0, saturated = 0;
      for (gint64 i = 0; i < tensor_numel (ref); i++)
        {
          double r = tensor_get_double (ref, i), f = tensor_get_double (fused, i);
          if (relu && r < 100)
            {
              r = 100;
              clamped++;
            }
          saturated += r == 0 || r == 255;
          g_assert_cmpfloat (f, ==, r);
          /* the float chain, run as written: within one step */
          g_assert_cmpfloat (fabs (tensor_get_double (plain, i) - f), <=, 1);
        }
      g_assert_cmpuint (saturated, <, tensor_numel (ref) / 4);
      if (relu)
        g_assert_cmpuint (clamped, >, 0);
    }
}

void
test_fusion_register (void)
{
  g_test_add_func ("/runtime/fusion/conv-relu", test_conv_relu);
  g_test_add_func ("/runtime/fusion/conv-clip", test_conv_clip);
  g_test_add_func ("/runtime/fusion/conv-add-relu", test_conv_add_relu);
  g_test_add_func ("/runtime/fusion/add-relu", test_add_relu);
  g_test_add_func ("/runtime/fusion/not-fused", test_not_fused);
  g_test_add_func ("/runtime/fusion/qdq-conv", test_qdq_conv);
  g_test_add_func ("/runtime/fusion/depthwise-clip", test_depthwise_clip);
  g_test_add_func ("/runtime/conv/depthwise", test_depthwise);
  g_test_add_func ("/runtime/conv/depthwise-avx512", test_depthwise_avx512);
  g_test_add_func ("/runtime/conv/depthwise-lanes", test_depthwise_lanes);
  g_test_add_func ("/runtime/pool/max-vector", test_max_pool);
  g_test_add_func ("/runtime/pool/global-average", test_global_average);
  g_test_add_func ("/runtime/conv/packed", test_packed);
  g_test_add_func ("/runtime/threads/same-bits", test_threads_same_bits);
  g_test_add_func ("/runtime/threads/channel-split", test_channel_split);
  g_test_add_func ("/runtime/threads/column-split", test_column_split);
  g_test_add_func ("/runtime/conv/pixel-rows", test_pixel_rows);
  g_test_add_func ("/runtime/conv/pixel-rows-plain", test_pixel_rows_plain);
  g_test_add_func ("/runtime/conv/1x1-rows", test_conv1x1_rows);
  g_test_add_func ("/runtime/gemm/one-row", test_gemv);
}
