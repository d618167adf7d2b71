/* Convs of few input channels (RGB images' first layer: ResNet's 7x7 of
 * stride 2, SqueezeNet's and MobileNet's 3x3 of stride 2) computed
 * directly, the output channels in a vector's lanes.
 *
 * im2col + the packed GEMM turns them into a GEMM of K = C x kh x kw = 27
 * to 147 rows: short sums for the kernel's tiles, and a strided im2col of
 * the whole image first (ResNet-50's conv1 ran at 104 GFLOP/s, SqueezeNet
 * 1.1's at 76, where other layers reach 150-200).  Here each output pixel's
 * M channels are vectors of 16, and each tap (c, kh, kw) adds its input
 * value, broadcast, times the tap's 16 weights: tiles of 6 pixels x 64
 * channels (24 accumulators), read straight from a zero-padded copy of the
 * image; the taps' weights were laid out once, when the session was made
 * (taps[k][m]).  An output row is made pixel-major, then bias, the
 * activation where no sum comes first, and moved into the channels' planes
 * 16 x 16 at a time; a sum and its activation then go over the row.
 *
 * Each output's sum is over the taps in (c, kh, kw) order with fused
 * multiply-adds: not im2col's bits (its GEMM adds K slices), the same
 * rounding error's size.  Rows are split over the threads, each output
 * made by one thread in the same order, so 1 and N threads give the same
 * bits.  AVX-512F only. */
#include "runtime/conv-direct.h"
#include <string.h>

#define PX 6          /* pixels a tile */
#define NVMAX 4       /* 16-channel vectors a tile */
#define MAX_TAPS 512
#define MIN_STRIDE1_TAPS 64

static guint runs, pooled_runs;

guint
rt_conv_direct_runs (void)
{
  return g_atomic_int_get (&runs);
}

guint
rt_conv_direct_pooled_runs (void)
{
  return g_atomic_int_get (&pooled_runs);
}

gboolean
rt_conv_direct_applies (const RtTensor *x, gint64 group, const RtWindow *w)
{
  return x->dtype == GRAPH_DTYPE_FLOAT && x->rank == 4 && group == 1 && w->nsp == 2;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include "runtime/transpose16.h"
#include "runtime/act16.h"

gboolean
rt_conv_direct_node (const GraphNode *node, const Tensor *w)
{
  if (!(tensor_dtype (w) == GRAPH_DTYPE_FLOAT && tensor_rank (w) == 4
        && tensor_dim (w, 1) <= RT_CONV_DIRECT_MAX_C && rt_attr_i (node, "group", 1) == 1
        && __builtin_cpu_supports ("avx512f") && !getenv ("SYMONNX_NO_DIRECT_CONV")))
    return FALSE;
  /* A stride-1 Conv of few taps keeps im2col, which is then row copies:
   * SuperResolution's 5x5 on one channel (25 taps) took 1.30 ms that way,
   * 1.85 here (the transposes cost more than 25 taps save). */
  gint64 taps = tensor_dim (w, 1) * tensor_dim (w, 2) * tensor_dim (w, 3), stride = 1;
  gsize len;
  const gint64 *v;
  if (rt_attr_ints (node, "strides", &len, &v))
    for (gsize i = 0; i < len; i++)
      stride = MAX (stride, v[i]);
  return taps <= MAX_TAPS && (stride > 1 || taps >= MIN_STRIDE1_TAPS);
}

typedef struct
{
  const float      *taps, *xp, *bpad;   /* xp: the padded image; bpad: mpad biases */
  float            *y, *scratch;        /* scratch: seat_floats per seat */
  const RtWindow   *w, *pool;           /* pool: a MaxPool's over w's out, or NULL */
  gint64            seat_floats;        /* a row of pixels x mpad; with pool, k rows and a pooled one */
  const RtEpilogue *ep;
  gint64            C, M, mpad, PH, PW, n;
  gboolean          seated, in_row;     /* in_row: the activation in registers */
  RtActKind         act;
  float             lo, hi;
} Job;

/* NP pixels from x0 (the first one's window origin in the padded image) x
 * NV vectors of channels from m0, into yt0 (pixel p at yt0 + p * mpad). */
__attribute__ ((target ("avx512f"), always_inline)) static inline void
tile (const Job *j, const int NP, const int NV, const float *x0, gint64 m0, float *yt0)
{
  const RtWindow *w = j->w;
  gint64 KH = w->k[1], KW = w->k[2], S = w->stride[2];
  gint64 DH = w->dil[1] * j->PW, DW = w->dil[2], plane = j->PH * j->PW;
  __m512 acc[PX][NVMAX];
  for (int p = 0; p < NP; p++)
    for (int v = 0; v < NV; v++)
      acc[p][v] = _mm512_setzero_ps ();
  const float *wk = j->taps + m0;
  for (gint64 c = 0; c < j->C; c++)
    for (gint64 kh = 0; kh < KH; kh++)
      {
        const float *xr = x0 + c * plane + kh * DH;
        for (gint64 kw = 0; kw < KW; kw++, wk += j->mpad)
          {
            __m512 wv[NVMAX];
            for (int v = 0; v < NV; v++)
              wv[v] = _mm512_load_ps (wk + v * 16);
            const float *xk = xr + kw * DW;
            for (int p = 0; p < NP; p++)
              {
                __m512 xb = _mm512_set1_ps (xk[p * S]);
                for (int v = 0; v < NV; v++)
                  acc[p][v] = _mm512_fmadd_ps (xb, wv[v], acc[p][v]);
              }
          }
      }
  const __m512 lo16 = _mm512_set1_ps (j->lo), hi16 = _mm512_set1_ps (j->hi);
  for (int p = 0; p < NP; p++)
    for (int v = 0; v < NV; v++)
      {
        __m512 a = _mm512_add_ps (acc[p][v], _mm512_loadu_ps (j->bpad + m0 + v * 16));
        if (j->in_row)
          a = rt_act16 (j->act, a, lo16, hi16);
        _mm512_storeu_ps (yt0 + p * j->mpad + m0 + v * 16, a);
      }
}

#define TILE_FN(NP, NV)                                                                     \
  __attribute__ ((target ("avx512f"))) static void                                         \
  tile_##NP##_##NV (const Job *j, const float *x0, gint64 m0, float *yt0)                   \
  {                                                                                          \
    tile (j, NP, NV, x0, m0, yt0);                                                          \
  }
TILE_FN (6, 1) TILE_FN (6, 2) TILE_FN (6, 3) TILE_FN (6, 4)
TILE_FN (1, 1) TILE_FN (1, 2) TILE_FN (1, 3) TILE_FN (1, 4)
typedef void (*TileFn) (const Job *j, const float *x0, gint64 m0, float *yt0);
static const TileFn tiles6[NVMAX + 1] = { NULL, tile_6_1, tile_6_2, tile_6_3, tile_6_4 };
static const TileFn tiles1[NVMAX + 1] = { NULL, tile_1_1, tile_1_2, tile_1_3, tile_1_4 };

/* Output row oh of image j->n, pixel-major: pixel ow at yt + ow * mpad. */
__attribute__ ((target ("avx512f"))) static void
conv_row (const Job *j, gint64 oh, float *yt)
{
  const RtWindow *w = j->w;
  gint64 OW = w->out[2], S = w->stride[2];
  const float *xrow = j->xp + oh * w->stride[1] * j->PW;
  for (gint64 m0 = 0; m0 < j->mpad; m0 += NVMAX * 16)
    {
      gint64 nv = MIN (NVMAX, (j->mpad - m0) / 16), ow = 0;
      for (; ow + PX <= OW; ow += PX)
        tiles6[nv] (j, xrow + ow * S, m0, yt + ow * j->mpad);
      for (; ow < OW; ow++)
        tiles1[nv] (j, xrow + ow * S, m0, yt + ow * j->mpad);
    }
}

/* Output rows [oh0, oh1) of image j->n. */
__attribute__ ((target ("avx512f"))) static void
rows_range (gint64 oh0, gint64 oh1, gpointer data)
{
  const Job *j = data;
  const RtWindow *w = j->w;
  gint64 OW = w->out[2], OHW = w->out[1] * OW;
  float *yt = j->scratch + (j->seated ? rt_parallel_seat () : 0) * j->seat_floats;
  float *yn = j->y + j->n * j->M * OHW;
  for (gint64 oh = oh0; oh < oh1; oh++)
    {
      conv_row (j, oh, yt);
      float *yrow = yn + oh * OW;
      for (gint64 m0 = 0; m0 < j->M; m0 += 16)
        for (gint64 p0 = 0; p0 < OW; p0 += 16)
          rt_pixels_to_planes16 (yt + p0 * j->mpad + m0, j->mpad, MIN (16, OW - p0),
                                 yrow + m0 * OHW + p0, OHW, MIN (16, j->M - m0));
      if (!j->in_row)
        rt_epilogue_rows (GRAPH_DTYPE_FLOAT, yrow, NULL, j->n * j->M * OHW + oh * OW, j->M, OW,
                          OHW, j->ep);
    }
}

gboolean
rt_conv_direct_pool_applies (const RtWindow *pool)
{
  gboolean ok = pool->nsp == 2 && pool->k[0] == 1 && pool->in[0] == 1;
  for (int d = 1; ok && d < 3; d++)
    ok = pool->dil[d] == 1 && pool->in[d] > 0 && pool->out[d] > 0 && pool->pad0[d] < pool->k[d]
         && (pool->out[d] - 1) * pool->stride[d] - pool->pad0[d] < pool->in[d];
  return ok;
}

/* Pooled rows [ph0, ph1) of image j->n: the Conv's rows each window needs
 * made once into a ring of k rows (pixel-major), then each pooled pixel's
 * 16 channels a vector, the window's taps in MaxPool's order with its
 * comparison (_mm512_max_ps (v, m) is v > m ? v : m, NaNs included), then
 * into the pooled planes.  The Conv's output (SqueezeNet 1.1's 3.2 MB, 4x
 * the pooled one) is never written out and read back. */
__attribute__ ((target ("avx512f"))) static void
pooled_range (gint64 ph0, gint64 ph1, gpointer data)
{
  const Job *j = data;
  const RtWindow *pw = j->pool;
  gint64 OW = j->w->out[2], OH = j->w->out[1], mpad = j->mpad, row = OW * mpad;
  gint64 KH = pw->k[1], KW = pw->k[2], POW = pw->out[2], PHW = pw->out[1] * POW;
  float *ring = j->scratch + (j->seated ? rt_parallel_seat () : 0) * j->seat_floats;
  float *prow = ring + KH * row;
  float *yn = j->y + j->n * j->M * PHW;
  gint64 next = 0;   /* the Conv's rows below next are in the ring (or not needed) */
  for (gint64 ph = ph0; ph < ph1; ph++)
    {
      gint64 h0 = ph * pw->stride[1] - pw->pad0[1], hs = MAX (h0, 0), he = MIN (h0 + KH, OH);
      for (gint64 r = MAX (hs, next); r < he; r++)
        conv_row (j, r, ring + (r % KH) * row);
      next = MAX (next, he);
      for (gint64 q = 0; q < POW; q++)
        {
          gint64 w0 = q * pw->stride[2] - pw->pad0[2], ws = MAX (w0, 0), we = MIN (w0 + KW, OW);
          for (gint64 m0 = 0; m0 < mpad; m0 += 16)
            {
              __m512 m = _mm512_loadu_ps (ring + (hs % KH) * row + ws * mpad + m0);
              for (gint64 h = hs; h < he; h++)
                for (gint64 c = h == hs ? ws + 1 : ws; c < we; c++)
                  m = _mm512_max_ps (_mm512_loadu_ps (ring + (h % KH) * row + c * mpad + m0), m);
              _mm512_storeu_ps (prow + q * mpad + m0, m);
            }
        }
      for (gint64 m0 = 0; m0 < j->M; m0 += 16)
        for (gint64 p0 = 0; p0 < POW; p0 += 16)
          rt_pixels_to_planes16 (prow + p0 * mpad + m0, mpad, MIN (16, POW - p0),
                                 yn + m0 * PHW + ph * POW + p0, PHW, MIN (16, j->M - m0));
    }
}

gboolean
rt_conv_direct (RtCall *call, const float *taps, gint64 mpad, const RtTensor *x,
                const RtTensor *wt, const RtTensor *bias, const RtWindow *w,
                const RtWindow *pool, RtTensor *y, const RtEpilogue *ep, GError **error)
{
  gint64 N = x->dims[0], C = x->dims[1], H = w->in[1], W = w->in[2];
  gint64 OH = w->out[1], OW = w->out[2], threads = rt_call_threads (call);
  Job j = { .taps = taps, .y = y->data, .w = w, .pool = pool, .ep = ep, .C = C, .M = wt->dims[0],
            .mpad = mpad,
            .PH = w->pad0[1] + H + w->pad1[1], .PW = w->pad0[2] + W + w->pad1[2] };
  if (N == 0 || OH * OW == 0 || j.M == 0)
    return TRUE;
  j.in_row = rt_epilogue_active (ep) && ep->sum == NULL;
  j.act = j.in_row ? ep->act : RT_ACT_NONE;
  j.lo = j.in_row ? (float) ep->lo : 0;
  j.hi = j.in_row ? (float) ep->hi : 0;
  /* rows a task: pooled ones each a share of the threads' (each share
   * makes the Conv's rows its windows need, the one shared with the next
   * share twice); otherwise the Conv's, whichever thread is free */
  gint64 rows = pool ? pool->out[1] : OH;
  threads = MIN (threads, rows);
  j.seated = threads > 1;
  j.seat_floats = pool ? (pool->k[1] * OW + pool->out[2]) * mpad : OW * mpad;
  gsize xp_floats = (gsize) (C * j.PH * j.PW) + 16, row_floats = (gsize) j.seat_floats;
  float *xp = rt_call_scratch (call, xp_floats * sizeof (float), error);
  float *scratch = xp ? rt_call_scratch_n (call, 1, ((gsize) threads * row_floats + (gsize) mpad)
                                                      * sizeof (float), error)
                      : NULL;
  if (scratch == NULL)
    return FALSE;
  g_atomic_int_inc (&runs);
  if (pool)
    g_atomic_int_inc (&pooled_runs);
  /* the biases, zeros past M, after the rows */
  float *bpad = scratch + (gsize) threads * row_floats;
  for (gint64 m = 0; m < mpad; m++)
    bpad[m] = bias && m < j.M ? ((const float *) bias->data)[m] : 0.0f;
  j.xp = xp;
  j.bpad = bpad;
  j.scratch = scratch;
  for (j.n = 0; j.n < N; j.n++)
    {
      /* the zero-padded image */
      memset (xp, 0, xp_floats * sizeof (float));
      for (gint64 c = 0; c < C; c++)
        for (gint64 h = 0; h < H; h++)
          memcpy (xp + (c * j.PH + w->pad0[1] + h) * j.PW + w->pad0[2],
                  (const float *) x->data + ((j.n * C + c) * H + h) * W, (gsize) W * sizeof (float));
      RtRangeFn fn = pool ? pooled_range : rows_range;
      if (j.seated)
        rt_parallel_for (call, rows, pool ? MAX (rows / threads, 1) : 1, fn, &j);
      else
        fn (0, rows, &j);
    }
  return TRUE;
}
#else
gboolean
rt_conv_direct_node (const GraphNode *node, const Tensor *w)
{
  (void) node, (void) w;
  return FALSE;
}

gboolean
rt_conv_direct (RtCall *call, const float *taps, gint64 mpad, const RtTensor *x,
                const RtTensor *wt, const RtTensor *bias, const RtWindow *w,
                const RtWindow *pool, RtTensor *y, const RtEpilogue *ep, GError **error)
{
  (void) call, (void) taps, (void) mpad, (void) x, (void) wt, (void) bias, (void) w, (void) y;
  (void) pool, (void) ep, (void) error;
  return FALSE;
}

gboolean
rt_conv_direct_pool_applies (const RtWindow *pool)
{
  (void) pool;
  return FALSE;
}
#endif
