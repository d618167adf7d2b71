/* Convs computed directly.  Few input channels, output channels in a
 * vector's lanes (runtime/conv-direct.c): against a direct convolution in
 * double, over 1-16 input channels, output channels that fill 1-4 vectors
 * and past them (40, 70, 96: partial vectors, a second group of 64),
 * kernels 3 (strides 1-2), 7 of stride 2 (ResNet's), 5 with dilation 2,
 * uneven pads, 2 images, with and without bias, Relu, Clip and Add + Relu
 * fused; 1 and 3 threads give the same bits; the counter proves the path
 * ran (not for stride 1 with fewer than 64 taps, left to im2col, which
 * the same checks cover), and SYMONNX_NO_DIRECT_CONV (read when the
 * session is made) keeps im2col + the packed GEMM. */
#include "tests/runtime/fusion-testutil.h"
#include "runtime/session-private.h"
#include "runtime/conv-direct.h"
#include "runtime/conv-narrow.h"
#include "runtime/conv-pixel-rows.h"
#include <math.h>

typedef struct
{
  gint64   C, M, k, s, d, p, q, h, w;   /* q: bottom/right pads */
  gboolean bias;
  int      act;                         /* 0 none, 1 Relu, 2 Clip, 3 Add z + Relu */
} Case;

static double
direct (const Case *c, const float *x, const float *w, const float *b, const float *z, gint64 n,
        gint64 m, gint64 oh, gint64 ow, gint64 OH, gint64 OW)
{
  double acc = b ? b[m] : 0;
  for (gint64 ci = 0; ci < c->C; ci++)
    for (gint64 kh = 0; kh < c->k; kh++)
      for (gint64 kw = 0; kw < c->k; kw++)
        {
          gint64 ih = oh * c->s - c->p + kh * c->d, iw = ow * c->s - c->p + kw * c->d;
          if (ih >= 0 && ih < c->h && iw >= 0 && iw < c->w)
            acc += (double) w[((m * c->C + ci) * c->k + kh) * c->k + kw]
                   * x[((n * c->C + ci) * c->h + ih) * c->w + iw];
        }
  if (c->act == 3)
    acc += z[((n * c->M + m) * OH + oh) * OW + ow];
  if (c->act == 1 || c->act == 3)
    acc = acc > 0 ? acc : 0;
  else if (c->act == 2)
    acc = acc < -0.2 ? -0.2 : acc > 0.3 ? 0.3 : acc;
  return acc;
}

/* Case number t through a one-Conv graph: 1 and 3 threads give the same
 * bits, each path (and the one off_env leaves) agrees with the double
 * reference, and the kernel's counter `runs` moved where `taken`. */
static void
check_case (const Case *c, guint t, const char *off_env, guint (*runs) (void), gboolean taken)
{
  gint64 OH = (c->h + c->p + c->q - (c->k - 1) * c->d - 1) / c->s + 1;
  gint64 OW = (c->w + c->p + c->q - (c->k - 1) * c->d - 1) / c->s + 1;
  g_autoptr (Graph) g = fz_new_graph_at (13);
  gint64 xd[4] = { 2, c->C, c->h, c->w }, wd[4] = { c->M, c->C, c->k, c->k }, bd[1] = { c->M };
  gint64 zd[4] = { 2, c->M, OH, OW }, st[2] = { c->s, c->s }, dl[2] = { c->d, c->d };
  gint64 pd[4] = { c->p, c->p, c->q, c->q };
  GraphValue *x = fz_input (g, "x", 4, xd), *w = fz_weights (g, "w", 4, wd);
  GraphValue *b = c->bias ? fz_weights (g, "b", 1, bd) : NULL;
  /* (graph_op's inputs end at the first NULL) */
  GraphValue *y = b ? graph_op (g, "Conv", x, w, b, "strides_is", 2, st, "dilations_is", 2, dl,
                                "pads_is", 4, pd, NULL)
                    : graph_op (g, "Conv", x, w, "strides_is", 2, st, "dilations_is", 2, dl,
                                "pads_is", 4, pd, NULL);
  if (c->act == 1)
    y = graph_op (g, "Relu", y, NULL);
  else if (c->act == 2)
    y = graph_op (g, "Clip", y, fz_scalar (g, "lo", -0.2f), fz_scalar (g, "hi", 0.3f), NULL);
  else if (c->act == 3)
    y = graph_op (g, "Relu", graph_op (g, "Add", y, fz_input (g, "z", 4, zd), NULL), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  g_autoptr (GHashTable) in = fz_inputs_new ();
  Tensor *tx = fz_random_tensor (4, xd), *tz = fz_random_tensor (4, zd);
  g_hash_table_insert (in, g_strdup ("x"), tx);
  g_hash_table_insert (in, g_strdup ("z"), tz);
  Tensor *out[3];
  for (int k = 0; k < 3; k++)   /* 1 thread, 3 threads, off_env set */
    {
      RtOptions o;
      rt_options_init (&o);
      o.threads = k == 1 ? 3 : 1;
      if (k == 2)
        g_setenv (off_env, "1", TRUE);
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_unsetenv (off_env);
      g_assert_no_error (error);
      g_assert_cmpuint (s->n_nodes, ==, 1);   /* the epilogue fused */
      g_autoptr (GHashTable) res = fz_inputs_new ();
      guint before = runs ();
      g_assert_true (rt_session_run (s, in, res, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (runs (), ==, before + (taken && k < 2));
      out[k] = tensor_ref (g_hash_table_lookup (res, "y"));
    }
  if (tensor_numel (out[0]) != 2 * c->M * OH * OW)
    g_error ("case %u: %" G_GINT64_FORMAT " outputs, expected %" G_GINT64_FORMAT, t, tensor_numel (out[0]), 2 * c->M * OH * OW);
  g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[1]),
                   tensor_nbytes (out[1]));
  const float *xv = tensor_data (tx), *zv = tensor_data (tz);
  const float *wv = tensor_data (graph_value_get_initializer (w));
  const float *bv = b ? tensor_data (graph_value_get_initializer (b)) : NULL;
  for (int k = 0; k < 3; k += 2)
    {
      const float *yv = tensor_data (out[k]);
      for (gint64 n = 0; n < 2; n++)
        for (gint64 m = 0; m < c->M; m++)
          for (gint64 oh = 0; oh < OH; oh++)
            for (gint64 ow = 0; ow < OW; ow++)
              {
                double want = direct (c, xv, wv, bv, zv, n, m, oh, ow, OH, OW);
                double got = yv[((n * c->M + m) * OH + oh) * OW + ow];
                if (fabs (got - want) > 1e-5 * (1 + fabs (want)))
                  g_error ("case %u (%s): y[%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                           ",%" G_GINT64_FORMAT "] = %g, expected %g", t, k ? off_env : "on",
                           n, m, oh, ow, got, want);
              }
    }
  for (int k = 0; k < 3; k++)
    tensor_unref (out[k]);
}

static void
test_direct (void)
{
  if (!__builtin_cpu_supports ("avx512f"))
    {
      g_test_skip ("no AVX-512F");
      return;
    }
  const Case cases[] = {
    { 3, 64, 3, 2, 1, 0, 0, 23, 21, TRUE, 1 },    /* SqueezeNet 1.1's */
    { 3, 64, 7, 2, 1, 3, 3, 30, 33, TRUE, 0 },    /* ResNet's */
    { 3, 32, 3, 2, 1, 1, 1, 17, 17, TRUE, 2 },    /* MobileNet's */
    { 3, 96, 7, 2, 1, 0, 0, 25, 20, FALSE, 1 },   /* SqueezeNet 1.0's: 64 + 32 channels */
    { 1, 40, 3, 1, 1, 1, 0, 9, 13, TRUE, 3 },
    { 4, 70, 5, 1, 2, 4, 1, 12, 11, TRUE, 2 },
    { 2, 16, 3, 1, 1, 2, 2, 1, 1, FALSE, 0 },
    { 16, 64, 3, 1, 1, 1, 1, 20, 21, TRUE, 3 },   /* SqueezeNet's 16 -> 64, W packed too */
    { 8, 40, 3, 2, 1, 1, 1, 19, 23, FALSE, 1 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    /* stride 1 and fewer than 64 taps: left to im2col (row copies then) */
    check_case (&cases[t], t, "SYMONNX_NO_DIRECT_CONV", rt_conv_direct_runs,
                cases[t].s > 1 || cases[t].C * cases[t].k * cases[t].k >= 64);
}

/* Convs of few output channels, pixels in lanes (runtime/conv-narrow.c):
 * 1 to 12 output channels (3 vectors a tile up to 9, 2 above), kernels 2 to
 * 7 wide, dilation 2, pads 0-4 and unequal, widths 1 to 100 (the masked
 * vectors at both ends of a row, none, one whole vector, many), with and
 * without bias, Relu, Clip, Add + Relu; SYMONNX_NO_NARROW_CONV keeps
 * im2col + the packed GEMM (or conv-direct.c for 3 input channels). */
static void
test_narrow (void)
{
  if (!__builtin_cpu_supports ("avx512f"))
    {
      g_test_skip ("no AVX-512F");
      return;
    }
  const Case cases[] = {
    { 32, 9, 3, 1, 1, 1, 1, 20, 40, TRUE, 0 },    /* SuperResolution's last, narrower */
    { 5, 1, 3, 1, 1, 0, 0, 9, 70, FALSE, 1 },
    { 8, 12, 5, 1, 2, 4, 1, 12, 50, TRUE, 3 },
    { 16, 4, 3, 1, 1, 2, 0, 7, 100, TRUE, 2 },
    { 3, 10, 2, 1, 1, 0, 1, 5, 17, FALSE, 0 },
    { 6, 7, 3, 1, 1, 1, 1, 1, 1, TRUE, 0 },
    { 4, 11, 7, 1, 1, 3, 3, 16, 33, TRUE, 1 },
    { 2, 3, 3, 1, 1, 1, 1, 6, 16, TRUE, 3 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    check_case (&cases[t], t, "SYMONNX_NO_NARROW_CONV", rt_conv_narrow_runs, TRUE);
}

/* 1x1 Convs of stride 2 (and 2 x 3) without pads run as a 1x1 of stride
 * 1 over x's sampled pixels (runtime/k-conv.c): large and small maps
 * (the small switch to the pixel-rows GEMM inside), with Add + Relu and
 * Clip; 1 and 3 threads the same bits, both paths against the double
 * reference. */
static void
test_subsampled (void)
{
  const Case cases[] = {
    { 40, 70, 1, 2, 1, 0, 0, 30, 27, TRUE, 3 },
    { 64, 33, 1, 2, 1, 0, 0, 13, 13, FALSE, 2 },
    { 8, 16, 1, 3, 1, 0, 0, 20, 31, TRUE, 1 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    check_case (&cases[t], t, "SYMONNX_NO_CONV_SUBSAMPLE", rt_conv_subsampled_runs, TRUE);
}

/* Convs of at most 64 output pixels other than 1x1 of stride 1 take the
 * pixel-rows GEMM over im2col's rows (runtime/conv-pixel-rows.c): stride 2
 * down to 7x7 with Add + Relu, dilation 2, a 1x1 of stride 2 with Clip; 1
 * and 3 threads the same bits, both paths against the double reference. */
static void
test_pixel_rows_window (void)
{
  const Case cases[] = {
    { 40, 70, 3, 2, 1, 1, 1, 13, 13, TRUE, 3 },
    { 16, 24, 3, 1, 2, 2, 2, 8, 8, FALSE, 1 },
    { 6, 33, 1, 2, 1, 0, 0, 11, 11, TRUE, 2 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    check_case (&cases[t], t, "SYMONNX_NO_PIXEL_ROWS", rt_conv_pixel_rows_runs, TRUE);
}

/* Conv [+ Relu] + MaxPool fused (runtime/fuse.c; the Conv's rows pooled
 * as conv-direct.c makes them): one node; the bits of the unfused nodes
 * (SYMONNX_NO_CONV_POOL) at 1 and 3 threads, NaNs included (x holds one,
 * so some windows hold NaNs, which MaxPool keeps or drops by their
 * place); against a double reference (Conv, Relu, then the max of each
 * window's inputs inside); the pooled path counted where the window
 * allows it (dilation 2 falls back to the Conv then the pool). */
typedef struct
{
  gint64   C, M, k, s, p, h, w;     /* the Conv: pads p all round */
  gint64   pk, ps, pp, ceil, pd;    /* the MaxPool: kernel, stride, pads, ceil_mode, dilation */
  gboolean relu, pooled;
} PoolCase;

static void
check_pool_case (const PoolCase *c, guint t)
{
  gint64 OH = (c->h + 2 * c->p - c->k) / c->s + 1, OW = (c->w + 2 * c->p - c->k) / c->s + 1;
  g_autoptr (Graph) g = fz_new_graph_at (13);
  gint64 xd[4] = { 2, c->C, c->h, c->w }, wd[4] = { c->M, c->C, c->k, c->k }, bd[1] = { c->M };
  gint64 st[2] = { c->s, c->s }, pd[4] = { c->p, c->p, c->p, c->p };
  gint64 pk[2] = { c->pk, c->pk }, ps[2] = { c->ps, c->ps }, pp[4] = { c->pp, c->pp, c->pp, c->pp };
  gint64 pdl[2] = { c->pd, c->pd };
  GraphValue *x = fz_input (g, "x", 4, xd), *w = fz_weights (g, "w", 4, wd);
  GraphValue *b = fz_weights (g, "b", 1, bd);
  GraphValue *y = graph_op (g, "Conv", x, w, b, "strides_is", 2, st, "pads_is", 4, pd, NULL);
  if (c->relu)
    y = graph_op (g, "Relu", y, NULL);
  y = graph_op (g, "MaxPool", y, "kernel_shape_is", 2, pk, "strides_is", 2, ps, "pads_is", 4, pp,
                "ceil_mode_i", c->ceil, "dilations_is", 2, pdl, NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  g_autoptr (GHashTable) in = fz_inputs_new ();
  Tensor *tx = fz_random_tensor (4, xd);
  float *xv = (float *) tensor_data (tx);
  xv[c->h * c->w + 3 * c->w + 5] = NAN;   /* image 0, channel 1, row 3, column 5 */
  g_hash_table_insert (in, g_strdup ("x"), tx);
  Tensor *out[3];
  for (int k = 0; k < 3; k++)   /* fused at 1 and 3 threads, then unfused */
    {
      RtOptions o;
      rt_options_init (&o);
      o.threads = k == 1 ? 3 : 1;
      if (k == 2)
        g_setenv ("SYMONNX_NO_CONV_POOL", "1", TRUE);
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
      g_unsetenv ("SYMONNX_NO_CONV_POOL");
      g_assert_no_error (error);
      g_assert_cmpuint (s->n_nodes, ==, k < 2 ? 1 : 2);
      g_autoptr (GHashTable) res = fz_inputs_new ();
      guint before = rt_conv_direct_pooled_runs ();
      g_assert_true (rt_session_run (s, in, res, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (rt_conv_direct_pooled_runs (), ==, before + (c->pooled && k < 2));
      out[k] = tensor_ref (g_hash_table_lookup (res, "y"));
    }
  for (int k = 1; k < 3; k++)
    g_assert_cmpmem (tensor_data (out[0]), tensor_nbytes (out[0]), tensor_data (out[k]),
                     tensor_nbytes (out[k]));
  /* the double reference */
  gint64 span = (c->pk - 1) * c->pd + 1;
  gint64 POH = (OH + 2 * c->pp - span + (c->ceil ? c->ps - 1 : 0)) / c->ps + 1;
  gint64 POW = (OW + 2 * c->pp - span + (c->ceil ? c->ps - 1 : 0)) / c->ps + 1;
  if (c->ceil && (POH - 1) * c->ps >= OH + c->pp)
    POH--;
  if (c->ceil && (POW - 1) * c->ps >= OW + c->pp)
    POW--;
  g_assert_cmpint (tensor_numel (out[0]), ==, 2 * c->M * POH * POW);
  const float *wv = tensor_data (graph_value_get_initializer (w));
  const float *bv = tensor_data (graph_value_get_initializer (b));
  const float *yv = tensor_data (out[0]);
  Case cc = { c->C, c->M, c->k, c->s, 1, c->p, c->p, c->h, c->w, TRUE, c->relu ? 1 : 0 };
  guint nans = 0;
  for (gint64 n = 0; n < 2; n++)
    for (gint64 m = 0; m < c->M; m++)
      for (gint64 ph = 0; ph < POH; ph++)
        for (gint64 pw = 0; pw < POW; pw++)
          {
            double want = -INFINITY;
            gboolean any_nan = FALSE;
            for (gint64 i = 0; i < c->pk; i++)
              for (gint64 j = 0; j < c->pk; j++)
                {
                  gint64 oh = ph * c->ps - c->pp + i * c->pd, ow = pw * c->ps - c->pp + j * c->pd;
                  if (oh < 0 || oh >= OH || ow < 0 || ow >= OW)
                    continue;
                  double v = direct (&cc, xv, wv, bv, NULL, n, m, oh, ow, OH, OW);
                  any_nan |= isnan (v);
                  want = v > want ? v : want;
                }
            float got = yv[((n * c->M + m) * POH + ph) * POW + pw];
            if (isnan (got))
              {
                /* a NaN only from a window with one (which one a window
                 * keeps depends on its order: the unfused bits above) */
                g_assert_true (any_nan);
                nans++;
                continue;
              }
            if (!any_nan && fabs (got - want) > 1e-5 * (1 + fabs (want)))
              g_error ("case %u: y[%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                       ",%" G_GINT64_FORMAT "] = %g, expected %g", t, n, m, ph, pw, got, want);
          }
  /* Relu turns NaNs to 0; without it some window keeps its NaN */
  if (!c->relu)
    g_assert_cmpuint (nans, >, 0);
  for (int k = 0; k < 3; k++)
    tensor_unref (out[k]);
}

static void
test_direct_pool (void)
{
  if (!__builtin_cpu_supports ("avx512f"))
    {
      g_test_skip ("no AVX-512F");
      return;
    }
  const PoolCase cases[] = {
    { 3, 64, 3, 2, 0, 27, 25, 3, 2, 0, 1, 1, TRUE, TRUE },    /* SqueezeNet 1.1's, ceil_mode */
    { 3, 64, 7, 2, 3, 30, 33, 3, 2, 1, 0, 1, TRUE, TRUE },    /* ResNet's */
    { 3, 70, 3, 2, 1, 21, 19, 2, 2, 0, 1, 1, FALSE, TRUE },   /* partial vectors, edge windows */
    { 2, 16, 5, 2, 2, 15, 40, 3, 1, 1, 0, 1, FALSE, TRUE },   /* stride 1, wide rows */
    { 3, 32, 3, 2, 1, 17, 17, 2, 2, 0, 0, 2, TRUE, FALSE },   /* dilation 2: Conv, then the pool */
  };
  for (guint t = 0; t < G_N_ELEMENTS (cases); t++)
    check_pool_case (&cases[t], t);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include "runtime/act16.h"

__attribute__ ((target ("avx512f"))) static void
act16_lanes (RtActKind act, const float *x, float lo, float hi, float *y)
{
  _mm512_storeu_ps (y, rt_act16 (act, _mm512_loadu_ps (x), _mm512_set1_ps (lo), _mm512_set1_ps (hi)));
}
#endif

/* The Conv kernels' Relu and Clip in a register (runtime/act16.h) give the
 * scalar loops' bits on NaNs of both signs, signed zeros, infinities and
 * the bounds themselves: Relu x > 0 ? x : 0, Clip x < lo ? lo : x then
 * x > hi ? hi : x (lo = 0: -0 stays -0; hi = -0 too). */
static void
test_act16 (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports ("avx512f"))
    {
      g_test_skip ("no AVX-512F");
      return;
    }
  const float x[16] = { NAN, -NAN, 0.0f, -0.0f, INFINITY, -INFINITY, 1.0f, -1.0f, 6.0f, 6.5f,
                        -0.2f, 0.3f, 0.30001f, -0.20001f, 1e-40f, -1e-40f };
  const float bounds[4][2] = { { 0.0f, 6.0f }, { -0.2f, 0.3f }, { -0.0f, 0.0f }, { 0.0f, -0.0f } };
  for (int b = 0; b < 4; b++)
    for (int act = RT_ACT_RELU; act <= RT_ACT_CLIP; act++)
      {
        float lo = bounds[b][0], hi = bounds[b][1], y[16];
        act16_lanes ((RtActKind) act, x, lo, hi, y);
        for (int i = 0; i < 16; i++)
          {
            float want = x[i];
            if (act == RT_ACT_RELU)
              want = want > 0 ? want : 0.0f;
            else
              {
                want = want < lo ? lo : want;
                want = want > hi ? hi : want;
              }
            g_assert_cmpmem (&y[i], sizeof y[i], &want, sizeof want);
          }
      }
#else
  g_test_skip ("x86-64 only");
#endif
}

void
test_conv_direct_register (void)
{
  g_test_add_func ("/runtime/conv/act16", test_act16);
  g_test_add_func ("/runtime/conv/pixel-rows-window", test_pixel_rows_window);
  g_test_add_func ("/runtime/conv/direct", test_direct);
  g_test_add_func ("/runtime/conv/direct-pool", test_direct_pool);
  g_test_add_func ("/runtime/conv/narrow", test_narrow);
  g_test_add_func ("/runtime/conv/subsampled", test_subsampled);
}
