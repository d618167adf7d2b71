/* Winograd F(4x4, 3x3) Convs (runtime/conv-winograd.c) against a direct
 * convolution computed here in double and against the im2col path
 * (SYMONNX_NO_WINOGRAD), on sizes that fill no whole tile, block or
 * vector: H and W not multiples of 4, pads 0, 1, 2, batch > 1, channel
 * counts not multiples of 8 (the output vectors) or of the GEMM's tile
 * rows.  rt_winograd_runs() shows that each run took the path it should,
 * so that no comparison is of im2col with itself.  Also: 1 and 3 threads
 * give the same bits (whole blocks per thread, and the phase-split
 * mode), fused Conv + Add + Relu gives the bits of the unfused nodes,
 * the AVX2 kernel's 6-row panels (SYMONNX_PACKED_CONV_AVX2), and the
 * Convs the path must leave alone. */
#include "tests/runtime/test-runtime.h"
#include "tests/runtime/fusion-testutil.h"
#include "runtime/conv-winograd.h"
#include <math.h>
#include <string.h>

/* Winograd rounds differently from a plain dot product.  F(4x4, 3x3) the
 * most: its input transform Bᵀ d B sums up to 10 x 10 scaled inputs
 * (|Bᵀ|'s rows sum to at most 10), its output transform Aᵀ M A up to 19 x 19
 * scaled products (|Aᵀ|'s rows: at most 1 + 1 + 8 + 8 + 1), and U = G g Gᵀ
 * holds values like 1/6 and 1/24 that float rounds; the cancellations that
 * give back a 3x3 correlation leave those roundings behind.  Published
 * measurements (Barabasz et al., "Error analysis and improving the accuracy
 * of Winograd convolution for deep neural networks", 2020) put its float
 * error one to two orders of magnitude above direct convolution's.  Here
 * the largest error seen, relative to Σ|x||w| + |b| of the output (the
 * scale of a dot product's rounding), was 3.3e-6 (~55 ulps of 1.0):
 * F4_TOL = 3e-5 leaves a 9x margin.  F(2x2, 3x3), the default, has
 * transforms of 0, ±1 and ±1/2 only (rows of |Bᵀ| and |Aᵀ| sum to at most 2
 * and 3): its error here was at most 3e-7, im2col's 1.2e-7: F2_TOL = 2e-6
 * (DIRECT_TOL for im2col: 1e-6).  A wrong tap, tile or channel (an error of
 * the order of one |x||w| term, above 1e-3 of the scale at up to 9 x 64
 * terms) still fails by orders of magnitude. */
#define F4_TOL 3e-5
#define F2_TOL 2e-6
#define DIRECT_TOL 1e-6

typedef struct
{
  gint64 N, C, M, H, W, pad;
} Case;

/* Odd sizes: tiles cut by the edges, channels not multiples of 8 or 6. */
static const Case cases[] = {
  { 2, 35, 21, 13, 11, 1 },
  { 3, 33, 40, 9, 10, 2 },
  { 1, 32, 24, 10, 9, 0 },
  { 1, 32, 16, 1, 1, 1 },     /* one output, eight of its 3x3 taps padding */
  { 1, 40, 33, 5, 23, 1 },
  { 2, 64, 64, 30, 59, 1 },   /* three blocks of tile rows per image */
};

/* A Conv (x, w, b) graph with pads `pad` (and a W that is an initializer). */
static Graph *
conv_graph (const Case *k, Tensor *w, Tensor *b, gint64 stride, gint64 dil, gint64 group)
{
  Graph *g = fz_new_graph_at (13);
  const gint64 xd[4] = { k->N, k->C, k->H, k->W };
  const gint64 pads[4] = { k->pad, k->pad, k->pad, k->pad }, st[2] = { stride, stride };
  const gint64 dl[2] = { dil, dil };
  GraphValue *y = graph_op (g, "Conv", fz_input (g, "x", 4, xd), graph_add_initializer (g, "w", w),
                            graph_add_initializer (g, "b", b), "pads_is", 4, pads, "strides_is", 2,
                            st, "dilations_is", 2, dl, "group_i", group, NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  return g;
}

/* y of g on x with `threads` threads; *took: whether it ran the Winograd path. */
static Tensor *
run (Graph *g, Tensor *x, int threads, gboolean *took)
{
  RtOptions o;
  rt_options_init (&o);
  o.threads = threads;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup ("x"), tensor_ref (x));
  g_autoptr (GHashTable) out = fz_inputs_new ();
  guint before = rt_winograd_runs ();
  gboolean ran = rt_session_run (s, in, out, &error);
  g_assert_no_error (error);
  g_assert_true (ran);
  *took = rt_winograd_runs () != before;
  return tensor_ref (g_hash_table_lookup (out, "y"));
}

/* Every output of y within tol · (Σ|x||w| + |b|) of the convolution in double. */
static void
check_direct (const Case *k, const Tensor *x, const Tensor *w, const Tensor *b, const Tensor *y,
              double tol)
{
  const float *xv = tensor_data (x), *wv = tensor_data (w), *bv = tensor_data (b);
  const float *yv = tensor_data (y);
  gint64 OH = k->H + 2 * k->pad - 2, OW = k->W + 2 * k->pad - 2;
  g_assert_cmpint (tensor_numel (y), ==, k->N * k->M * OH * OW);
  double worst = 0;
  for (gint64 n = 0; n < k->N; n++)
    for (gint64 m = 0; m < k->M; m++)
      for (gint64 oh = 0; oh < OH; oh++)
        for (gint64 ow = 0; ow < OW; ow++)
          {
            double s = bv[m], mag = fabs (bv[m]);
            for (gint64 c = 0; c < k->C; c++)
              for (gint64 kh = 0; kh < 3; kh++)
                for (gint64 kw = 0; kw < 3; kw++)
                  {
                    gint64 ih = oh - k->pad + kh, iw = ow - k->pad + kw;
                    if (ih < 0 || ih >= k->H || iw < 0 || iw >= k->W)
                      continue;
                    double p = (double) xv[((n * k->C + c) * k->H + ih) * k->W + iw]
                               * wv[((m * k->C + c) * 3 + kh) * 3 + kw];
                    s += p;
                    mag += fabs (p);
                  }
            double e = fabs (yv[((n * k->M + m) * OH + oh) * OW + ow] - s) / MAX (mag, 1e-30);
            worst = MAX (worst, e);
          }
  if (g_test_verbose ())
    g_test_message ("N %" G_GINT64_FORMAT " C %" G_GINT64_FORMAT " M %" G_GINT64_FORMAT
                    ": largest error %.3g of Σ|x||w|", k->N, k->C, k->M, worst);
  if (worst > tol)
    g_error ("N %" G_GINT64_FORMAT " C %" G_GINT64_FORMAT " M %" G_GINT64_FORMAT " %"
             G_GINT64_FORMAT "x%" G_GINT64_FORMAT " pad %" G_GINT64_FORMAT
             ": error %.3g of Σ|x||w| (tolerance %.3g)", k->N, k->C, k->M, k->H, k->W, k->pad,
             worst, tol);
}

/* Every |a - b| at most `scale`. */
static void
check_close (const Tensor *a, const Tensor *b, double scale)
{
  g_assert_cmpint (tensor_numel (a), ==, tensor_numel (b));
  for (gint64 i = 0; i < tensor_numel (a); i++)
    {
      double d = fabs (tensor_get_double (a, i) - tensor_get_double (b, i));
      if (d > scale)
        g_error ("element %" G_GINT64_FORMAT ": %.9g and %.9g", i, tensor_get_double (a, i),
                 tensor_get_double (b, i));
    }
}

static void
check_case (const Case *k)
{
  fz_rng_state = 7;
  const gint64 xd[4] = { k->N, k->C, k->H, k->W }, wd[4] = { k->M, k->C, 3, 3 }, bd[1] = { k->M };
  g_autoptr (Tensor) x = fz_random_tensor (4, xd);
  g_autoptr (Tensor) w = fz_random_tensor (4, wd);
  g_autoptr (Tensor) b = fz_random_tensor (1, bd);
  g_autoptr (Graph) g = conv_graph (k, w, b, 1, 1, 1);
  gboolean took;
  g_autoptr (Tensor) yw = run (g, x, 1, &took);
  g_assert_true (took);
  check_direct (k, x, w, b, yw, F2_TOL);
  g_setenv ("SYMONNX_NO_WINOGRAD", "1", TRUE);
  g_autoptr (Tensor) yi = run (g, x, 1, &took);
  g_unsetenv ("SYMONNX_NO_WINOGRAD");
  g_assert_false (took);
  check_direct (k, x, w, b, yi, DIRECT_TOL);
  /* the two paths: within both tolerances of each other, on the scale of
   * the largest Σ|x||w| + |b| (9 C + 1: inputs, weights and bias in [-1, 1)) */
  check_close (yw, yi, (F2_TOL + DIRECT_TOL) * (9.0 * (double) k->C + 1));
  /* F(4x4, 3x3) */
  g_setenv ("SYMONNX_WINOGRAD_F4", "1", TRUE);
  g_autoptr (Tensor) y4 = run (g, x, 1, &took);
  g_assert_true (took);
  check_direct (k, x, w, b, y4, F4_TOL);
  check_close (y4, yi, (F4_TOL + DIRECT_TOL) * (9.0 * (double) k->C + 1));
  /* the AVX2 kernel: A panels of 6 tiles, filled lane by lane, both tiles */
  g_setenv ("SYMONNX_PACKED_CONV_AVX2", "1", TRUE);
  g_autoptr (Tensor) y46 = run (g, x, 1, &took);
  g_assert_true (took);
  check_direct (k, x, w, b, y46, F4_TOL);
  g_unsetenv ("SYMONNX_WINOGRAD_F4");
  g_autoptr (Tensor) y26 = run (g, x, 1, &took);
  g_unsetenv ("SYMONNX_PACKED_CONV_AVX2");
  g_assert_true (took);
  check_direct (k, x, w, b, y26, F2_TOL);
}

static void
test_vs_direct (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (&cases[i]);
}

/* 1 and 3 threads: the same bits, with one block per image (the phases of
 * each block split over the threads) and with many (whole blocks per
 * thread). */
static void
test_threads (void)
{
  /* the last: one image, 49 tiles, U of 2.25 MiB: the phases split */
  const Case ks[] = { { 1, 32, 24, 9, 9, 1 }, { 8, 32, 24, 9, 9, 1 }, { 1, 64, 64, 100, 60, 1 },
                      { 1, 192, 192, 14, 14, 1 } };
  for (guint i = 0; i < 2 * G_N_ELEMENTS (ks); i++)
    {
      if (i == G_N_ELEMENTS (ks))   /* then the same with F(4x4, 3x3) */
        g_setenv ("SYMONNX_WINOGRAD_F4", "1", TRUE);
      fz_rng_state = 11;
      const Case *k = &ks[i % G_N_ELEMENTS (ks)];
      const gint64 xd[4] = { k->N, k->C, k->H, k->W };
      const gint64 wd[4] = { k->M, k->C, 3, 3 }, bd[1] = { k->M };
      g_autoptr (Tensor) x = fz_random_tensor (4, xd);
      g_autoptr (Tensor) w = fz_random_tensor (4, wd);
      g_autoptr (Tensor) b = fz_random_tensor (1, bd);
      g_autoptr (Graph) g = conv_graph (k, w, b, 1, 1, 1);
      gboolean t1, t3;
      g_autoptr (Tensor) y1 = run (g, x, 1, &t1);
      g_autoptr (Tensor) y3 = run (g, x, 3, &t3);
      g_assert_true (t1 && t3);
      g_assert_cmpmem (tensor_data (y1), tensor_nbytes (y1), tensor_data (y3), tensor_nbytes (y3));
    }
  g_unsetenv ("SYMONNX_WINOGRAD_F4");
}

/* Conv + Add + Relu and Conv + Clip fused: the bits of the unfused nodes
 * (bias, sum and activation applied in the output transform in the
 * unfused order), both through Winograd. */
static void
test_fused (void)
{
  const gint64 xd[4] = { 2, 40, 11, 14 }, wd[4] = { 20, 40, 3, 3 }, bd[1] = { 20 };
  const gint64 zd[4] = { 2, 20, 11, 14 }, pads[4] = { 1, 1, 1, 1 };
  for (int v = 0; v < 4; v++)
    {
      int clip = v % 2;
      if (v == 2)   /* then the same with F(4x4, 3x3) */
        g_setenv ("SYMONNX_WINOGRAD_F4", "1", TRUE);
      g_autoptr (Graph) g = fz_new_graph_at (13);
      GraphValue *c = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_weights (g, "w", 4, wd),
                                fz_weights (g, "b", 1, bd), "pads_is", 4, pads, NULL);
      GraphValue *y = clip ? graph_op (g, "Clip", c, fz_scalar (g, "lo", -0.5f),
                                       fz_scalar (g, "hi", 0.75f), NULL)
                           : graph_op (g, "Relu", graph_op (g, "Add", c, fz_input (g, "z", 4, zd),
                                                            NULL), NULL);
      graph_value_set_name (y, "y");
      graph_add_output (g, y);
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
      if (!clip)
        g_hash_table_insert (in, g_strdup ("z"), fz_random_tensor (4, zd));
      guint before = rt_winograd_runs ();
      g_autoptr (Tensor) a = fusion_check_same (g, in, "y", 1, clip ? 2 : 3);
      g_assert_cmpuint (rt_winograd_runs (), ==, before + 2);   /* fused and unfused */
      guint clamped = 0;
      for (gint64 i = 0; i < tensor_numel (a); i++)
        clamped += tensor_get_double (a, i) == (clip ? 0.75 : 0.0);
      g_assert_cmpuint (clamped, >, 1);
    }
  g_unsetenv ("SYMONNX_WINOGRAD_F4");
}

/* Convs the path leaves to im2col: stride 2, dilation 2, group 2, fewer
 * than RT_WINOGRAD_MIN_C input channels, and W given as a graph input
 * (nothing to transform at session creation). */
static void
test_not_taken (void)
{
  const struct
  {
    Case   k;
    gint64 stride, dil, group;
  } ks[] = {
    { { 1, 32, 16, 9, 9, 1 }, 2, 1, 1 },
    { { 1, 32, 16, 9, 9, 2 }, 1, 2, 1 },
    { { 1, 32, 32, 9, 9, 1 }, 1, 1, 2 },
    { { 1, RT_WINOGRAD_MIN_C - 1, 16, 9, 9, 1 }, 1, 1, 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ks); i++)
    {
      fz_rng_state = 3;
      const Case *k = &ks[i].k;
      const gint64 xd[4] = { k->N, k->C, k->H, k->W };
      const gint64 wd[4] = { k->M, k->C / ks[i].group, 3, 3 }, bd[1] = { k->M };
      g_autoptr (Tensor) x = fz_random_tensor (4, xd);
      g_autoptr (Tensor) w = fz_random_tensor (4, wd);
      g_autoptr (Tensor) b = fz_random_tensor (1, bd);
      g_autoptr (Graph) g = conv_graph (k, w, b, ks[i].stride, ks[i].dil, ks[i].group);
      gboolean took;
      g_autoptr (Tensor) y = run (g, x, 1, &took);
      g_assert_false (took);
    }
  /* W a graph input */
  const Case k = { 1, 32, 16, 9, 9, 1 };
  const gint64 xd[4] = { 1, 32, 9, 9 }, wd[4] = { 16, 32, 3, 3 }, pads[4] = { 1, 1, 1, 1 };
  g_autoptr (Graph) g = fz_new_graph_at (13);
  GraphValue *y = graph_op (g, "Conv", fz_input (g, "x", 4, xd), fz_input (g, "w", 4, wd),
                            "pads_is", 4, pads, NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  g_autoptr (GHashTable) in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup ("x"), fz_random_tensor (4, xd));
  g_hash_table_insert (in, g_strdup ("w"), fz_random_tensor (4, wd));
  guint before = rt_winograd_runs ();
  guint n;
  g_autoptr (Tensor) out = fz_run (g, in, FALSE, "y", &n);
  g_assert_cmpuint (rt_winograd_runs (), ==, before);
  g_assert_cmpint (tensor_numel (out), ==, k.M * 9 * 9);
}

/* Conv [+ Add z + Relu | + Clip] of width w (pads 1), W and b the same for
 * every width (fz_new_graph_at resets the generator). */
static Graph *
grouped_graph (gint64 width, int act)
{
  Graph *g = fz_new_graph_at (13);
  const gint64 wd[4] = { 20, 32, 3, 3 }, bd[1] = { 20 }, pads[4] = { 1, 1, 1, 1 };
  const gint64 xd[4] = { 2, 32, 9, width }, zd[4] = { 2, 20, 9, width };
  GraphValue *w = fz_weights (g, "w", 4, wd), *b = fz_weights (g, "b", 1, bd);
  GraphValue *y = graph_op (g, "Conv", fz_input (g, "x", 4, xd), w, b, "pads_is", 4, pads, NULL);
  if (act == 1)
    y = graph_op (g, "Relu", graph_op (g, "Add", y, fz_input (g, "z", 4, zd), NULL), NULL);
  else if (act == 2)
    y = graph_op (g, "Clip", y, fz_scalar (g, "lo", -0.5f), fz_scalar (g, "hi", 0.75f), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  return g;
}

/* t (2 x ch x 9 x 16) cut to its first `width` columns. */
static Tensor *
crop (const Tensor *t, gint64 ch, gint64 width)
{
  const gint64 d[4] = { 2, ch, 9, width };
  g_autofree float *v = g_new (float, 2 * ch * 9 * width);
  const float *src = tensor_data (t);
  for (gint64 r = 0; r < 2 * ch * 9; r++)
    memcpy (v + r * width, src + r * 16, (gsize) width * sizeof (float));
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, 4, d, v, (gsize) (2 * ch * 9 * width) * sizeof (float),
                               NULL);
}

/* F(2x2): four tiles side by side stored as vectors (grouped) give the
 * same bits as tiles stored element by element.  Width 16 (8 tiles
 * across) stores tiles 4-7 of each full tile row grouped; width 15 (the
 * same input cut by one column) stores them one by one, since their
 * outputs end at column 14: output columns 8-13 depend on the same inputs
 * in both and must agree, also with the residual Add + Relu and the Clip
 * applied as they are stored.  The counter proves which stores ran. */
static void
test_grouped_stores (void)
{
  const gint64 xd[4] = { 2, 32, 9, 16 }, zd[4] = { 2, 20, 9, 16 };
  for (int act = 0; act < 3; act++)
    {
      g_autoptr (Graph) g16 = grouped_graph (16, act), g15 = grouped_graph (15, act);
      fz_rng_state = 777;
      g_autoptr (Tensor) x = fz_random_tensor (4, xd), z = fz_random_tensor (4, zd);
      g_autoptr (Tensor) x15 = crop (x, 32, 15), z15 = crop (z, 20, 15);
      g_autoptr (GHashTable) in16 = fz_inputs_new (), in15 = fz_inputs_new ();
      g_hash_table_insert (in16, g_strdup ("x"), tensor_ref (x));
      g_hash_table_insert (in15, g_strdup ("x"), tensor_ref (x15));
      if (act == 1)
        {
          g_hash_table_insert (in16, g_strdup ("z"), tensor_ref (z));
          g_hash_table_insert (in15, g_strdup ("z"), tensor_ref (z15));
        }
      guint nodes, r0 = rt_winograd_runs (), s0 = rt_winograd_grouped_stores ();
      g_autoptr (Tensor) y16 = fz_run (g16, in16, FALSE, "y", &nodes);
      g_assert_cmpuint (nodes, ==, 1);   /* the Add and activation stored with the tiles */
      guint s1 = rt_winograd_grouped_stores ();
      g_autoptr (Tensor) y15 = fz_run (g15, in15, FALSE, "y", &nodes);
      guint s2 = rt_winograd_grouped_stores ();
      g_assert_cmpuint (rt_winograd_runs (), ==, r0 + 2);
      /* 2 images x 4 full tile rows x 3 channel vectors: two groups per
       * tile row at width 16, one at width 15 */
      g_assert_cmpuint (s1 - s0, ==, 2 * 4 * 3 * 2);
      g_assert_cmpuint (s2 - s1, ==, 2 * 4 * 3 * 1);
      const float *a = tensor_data (y16), *b = tensor_data (y15);
      guint clamped = 0;
      for (gint64 r = 0; r < 2 * 20 * 9; r++)
        for (gint64 c = 0; c < 14; c++)
          {
            g_assert_cmpmem (&a[r * 16 + c], sizeof (float), &b[r * 15 + c], sizeof (float));
            clamped += a[r * 16 + c] == (act == 2 ? 0.75f : 0.0f);
          }
      if (act)
        g_assert_cmpuint (clamped, >, 1);
    }
}

void
test_winograd_register (void)
{
  g_test_add_func ("/runtime/winograd/vs-direct", test_vs_direct);
  g_test_add_func ("/runtime/winograd/threads-same-bits", test_threads);
  g_test_add_func ("/runtime/winograd/fused", test_fused);
  g_test_add_func ("/runtime/winograd/not-taken", test_not_taken);
  g_test_add_func ("/runtime/winograd/grouped-stores", test_grouped_stores);
}
