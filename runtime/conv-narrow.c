/* Convs of few output channels (at most RT_CONV_NARROW_MAX_M), stride 1,
 * computed directly with the output pixels in a vector's lanes.
 *
 * im2col + the packed GEMM costs K x N for the im2col and the B panels
 * whatever M is, and M = 9 fills 9 of the 16 rows of two 8-row A panels:
 * SuperResolution's last Conv (32 -> 9, 3x3, 224x224) ran at ~50 GFLOP/s
 * that way where its other layers reach 140-190.  Here a tile is 1-3
 * vectors of 16 output pixels along a row times all M channels (3 vectors
 * up to 9 channels, 2 above: at most 27 accumulators, in registers); each
 * tap (c, kh, kw) loads its input vectors once, straight from x (masked
 * loads where the row's padding or end is: a lane outside the image reads
 * as zero, as a padded copy's zeros would), and adds them times each
 * channel's weight, broadcast from the taps' layout made when the session
 * was (taps[k][m], conv-packed.c).  Bias, the sum and the activation are
 * applied as each tile is stored, in epilogue.h's order.
 *
 * Each output's sum is over the taps in (c, kh, kw) order with fused
 * multiply-adds (rows outside the image add nothing): not im2col's bits
 * (its GEMM adds K slices), the same rounding error's size.  Rows are split
 * over the threads, each output made by one thread in the same order, so 1
 * and N threads give the same bits.  AVX-512F only. */
#include "runtime/conv-narrow.h"
#include <stdlib.h>

#define PV 3   /* vectors of 16 pixels a tile */

static guint runs;

guint
rt_conv_narrow_runs (void)
{
  return g_atomic_int_get (&runs);
}

static gboolean
window_fits (gint64 M, gint64 KH, gint64 KW, const gint64 *strides, gsize n_strides)
{
  for (gsize i = 0; i < n_strides; i++)
    if (strides[i] != 1)
      return FALSE;
  return M >= 1 && M <= RT_CONV_NARROW_MAX_M && KH * KW >= 4 && KW <= RT_CONV_NARROW_MAX_KW;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include "runtime/act16.h"

gboolean
rt_conv_narrow_applies (const RtTensor *x, const RtTensor *wt, gint64 group, const RtWindow *w)
{
  const gint64 strides[2] = { w->stride[1], w->stride[2] };
  return x->dtype == GRAPH_DTYPE_FLOAT && x->rank == 4 && group == 1 && w->nsp == 2
         && window_fits (wt->dims[0], w->k[1], w->k[2], strides, 2);
}

gboolean
rt_conv_narrow_node (const GraphNode *node, const Tensor *w)
{
  if (!(tensor_dtype (w) == GRAPH_DTYPE_FLOAT && tensor_rank (w) == 4
        && rt_attr_i (node, "group", 1) == 1 && __builtin_cpu_supports ("avx512f")
        && !getenv ("SYMONNX_NO_NARROW_CONV")))
    return FALSE;
  gsize len = 0;
  const gint64 *v = NULL;
  if (!rt_attr_ints (node, "strides", &len, &v))
    len = 0;
  return window_fits (tensor_dim (w, 0), tensor_dim (w, 2), tensor_dim (w, 3), v, len);
}

typedef struct
{
  const float      *taps, *x, *bias, *z;   /* x, z: this image's; z: ep's sum or NULL */
  float            *y;
  const RtWindow   *w;
  gint64            C, M, mpad, H, W, OH, OW;
  RtActKind         act;
  float             lo, hi;
} Job;

/* Lanes of the 16 pixels from column `col` that lie in [0, W). */
static inline __mmask16
inside (gint64 col, gint64 W)
{
  gint64 lo = MAX (0, -col), hi = MIN (16, W - col);
  if (hi <= lo)
    return 0;
  return (__mmask16) ((((guint32) 1 << hi) - 1) & ~(((guint32) 1 << lo) - 1));
}

/* The load masks of NV vectors from ow0 (per vector and tap column: the
 * lanes inside the row, and before lim); whether any has a lane outside. */
static inline gboolean
load_masks (const Job *j, int NV, gint64 ow0, gint64 lim, __mmask16 mk[PV][RT_CONV_NARROW_MAX_KW])
{
  const RtWindow *w = j->w;
  gboolean edge = FALSE;
  for (int v = 0; v < NV; v++)
    {
      __mmask16 out = inside (ow0 + 16 * v, lim);
      for (gint64 kw = 0; kw < w->k[2]; kw++)
        {
          mk[v][kw] = out & inside (ow0 + 16 * v - w->pad0[2] + kw * w->dil[2], j->W);
          edge |= mk[v][kw] != 0xffff;
        }
    }
  return edge;
}

/* sums (NV vectors x NM channels) + bias, + the sum, the activation, into
 * y (MASKED: only the outputs before lim). */
__attribute__ ((target ("avx512f"), noinline)) static void
store_tile (const Job *j, int NM, int NV, gboolean MASKED, gint64 oh, gint64 ow0, gint64 lim,
            __m512 sums[PV][RT_CONV_NARROW_MAX_M])
{
  gint64 OW = j->OW, OHW = j->OH * OW;
  const __m512 lo16 = _mm512_set1_ps (j->lo), hi16 = _mm512_set1_ps (j->hi);
  for (int v = 0; v < NV; v++)
    {
      __mmask16 out = MASKED ? inside (ow0 + 16 * v, lim) : 0xffff;
      gint64 off = oh * OW + ow0 + 16 * v;
      for (int m = 0; m < NM; m++)
        {
          __m512 a = sums[v][m];
          if (j->bias)
            a = _mm512_add_ps (a, _mm512_set1_ps (j->bias[m]));
          if (j->z)
            a = _mm512_add_ps (a, _mm512_maskz_loadu_ps (out, j->z + m * OHW + off));
          _mm512_mask_storeu_ps (j->y + m * OHW + off, out, rt_act16 (j->act, a, lo16, hi16));
        }
    }
}

/* NV vectors of pixels from (oh, ow0), the outputs before lim, x NM
 * channels, into y with the epilogue.  MASKED: loads and stores through
 * masks (mk: load_masks'), else whole vectors, all inside. */
__attribute__ ((target ("avx512f"), always_inline)) static inline void
tile (const Job *j, const int NM, const int NV, const gboolean MASKED, gint64 oh, gint64 ow0,
      gint64 lim, __mmask16 mk[PV][RT_CONV_NARROW_MAX_KW])
{
  const RtWindow *w = j->w;
  gint64 KH = w->k[1], KW = w->k[2], DH = w->dil[1], DW = w->dil[2];
  gint64 H = j->H, W = j->W;
  __m512 acc[PV][RT_CONV_NARROW_MAX_M];
#pragma GCC unroll 3
  for (int v = 0; v < NV; v++)
#pragma GCC unroll 12
    for (int m = 0; m < NM; m++)
      acc[v][m] = _mm512_setzero_ps ();
  /* the kernel rows inside the image: ih = oh - pad + kh * DH in [0, H) */
  gint64 ih0 = oh - w->pad0[1], kh0 = ih0 >= 0 ? 0 : (-ih0 + DH - 1) / DH;
  gint64 kh1 = ih0 > H - 1 ? 0 : MIN (KH, (H - 1 - ih0) / DH + 1);
  for (gint64 c = 0; c < j->C; c++)
    for (gint64 kh = kh0; kh < kh1; kh++)
      {
        gint64 ih = ih0 + kh * DH;
        const float *xr = j->x + (c * H + ih) * W + ow0 - w->pad0[2];
        const float *wk = j->taps + ((c * KH + kh) * KW) * j->mpad;
        for (gint64 kw = 0; kw < KW; kw++, wk += j->mpad)
          {
            __m512 xv[PV];
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++)
              xv[v] = MASKED ? _mm512_maskz_loadu_ps (mk[v][kw], xr + kw * DW + 16 * v)
                             : _mm512_loadu_ps (xr + kw * DW + 16 * v);
#pragma GCC unroll 12
            for (int m = 0; m < NM; m++)
              {
                __m512 wb = _mm512_set1_ps (wk[m]);
#pragma GCC unroll 3
                for (int v = 0; v < NV; v++)
                  acc[v][m] = _mm512_fmadd_ps (xv[v], wb, acc[v][m]);
              }
          }
      }
  /* The epilogue from memory, in loops (not unrolled per channel and
   * vector: it runs once a tile, the taps C x KH x KW times). */
  store_tile (j, NM, NV, MASKED, oh, ow0, lim, acc);
}

typedef void (*TileFn) (const Job *j, gint64 oh, gint64 ow0, gint64 lim);
/* One vector through masks (a row's ends). */
#define MASKED_FN(NM)                                                             \
  __attribute__ ((target ("avx512f"))) static void                               \
  masked_##NM (const Job *j, gint64 oh, gint64 ow0, gint64 lim)                   \
  {                                                                                \
    __mmask16 mk[PV][RT_CONV_NARROW_MAX_KW];                                       \
    load_masks (j, 1, ow0, lim, mk);                                               \
    tile (j, NM, 1, TRUE, oh, ow0, lim, mk);                                      \
  }
/* NV whole vectors; a vector with lanes outside (rows_range gives none)
 * one by one through masked_NM (only that one masked body per NM). */
#define TILE_FN(NM, NV)                                                           \
  __attribute__ ((target ("avx512f"))) static void                               \
  tile_##NM##_##NV (const Job *j, gint64 oh, gint64 ow0, gint64 lim)              \
  {                                                                                \
    __mmask16 mk[PV][RT_CONV_NARROW_MAX_KW];                                       \
    if (!load_masks (j, NV, ow0, lim, mk))                                         \
      tile (j, NM, NV, FALSE, oh, ow0, lim, mk);                                   \
    else                                                                           \
      for (int v = 0; v < NV; v++)                                                 \
        masked_##NM (j, oh, ow0 + 16 * v, lim);                                    \
  }
MASKED_FN (1) MASKED_FN (2) MASKED_FN (3) MASKED_FN (4) MASKED_FN (5) MASKED_FN (6)
MASKED_FN (7) MASKED_FN (8) MASKED_FN (9) MASKED_FN (10) MASKED_FN (11) MASKED_FN (12)
static const TileFn masked_of[RT_CONV_NARROW_MAX_M + 1] = {
  NULL, masked_1, masked_2, masked_3, masked_4, masked_5, masked_6, masked_7, masked_8,
  masked_9, masked_10, masked_11, masked_12 };
#define TILES_OF(NV)                                                                          \
  TILE_FN (1, NV) TILE_FN (2, NV) TILE_FN (3, NV) TILE_FN (4, NV) TILE_FN (5, NV)             \
  TILE_FN (6, NV) TILE_FN (7, NV) TILE_FN (8, NV) TILE_FN (9, NV) TILE_FN (10, NV)            \
  TILE_FN (11, NV) TILE_FN (12, NV)                                                           \
  static const TileFn tiles_##NV[RT_CONV_NARROW_MAX_M + 1] = {                              \
    NULL, tile_1_##NV, tile_2_##NV, tile_3_##NV, tile_4_##NV, tile_5_##NV, tile_6_##NV,      \
    tile_7_##NV, tile_8_##NV, tile_9_##NV, tile_10_##NV, tile_11_##NV, tile_12_##NV };
TILES_OF (1)
TILES_OF (2)
TILES_OF (3)
static const TileFn *const tiles[PV + 1] = { NULL, tiles_1, tiles_2, tiles_3 };

/* Output rows [oh0, oh1) of the image. */
static void
rows_range (gint64 oh0, gint64 oh1, gpointer data)
{
  const Job *j = data;
  const RtWindow *w = j->w;
  gint64 step = j->M <= 9 ? 3 : 2, OW = j->OW;
  /* outputs [a, b) read inside the row for every tap: whole vectors there,
   * masked ones for the rest */
  gint64 a = MIN (OW, w->pad0[2]);
  gint64 b = CLAMP (j->W - (w->k[2] - 1) * w->dil[2] + w->pad0[2], a, OW);
  a = MIN ((a + 15) / 16 * 16, b);   /* whole vectors aligned with the rows: 2x faster */
  gint64 whole = (b - a) / 16;
  const TileFn masked = masked_of[j->M];
  for (gint64 oh = oh0; oh < oh1; oh++)
    {
      for (gint64 ow = 0; ow < a; ow += 16)
        masked (j, oh, ow, a);
      for (gint64 v0 = 0; v0 < whole; v0 += step)
        tiles[MIN (step, whole - v0)][j->M] (j, oh, a + v0 * 16, b);
      for (gint64 ow = a + whole * 16; ow < OW; ow += 16)
        masked (j, oh, ow, OW);
    }
}

gboolean
rt_conv_narrow (RtCall *call, const float *taps, gint64 mpad, const RtTensor *x,
                const RtTensor *wt, const RtTensor *bias, const RtWindow *w, RtTensor *y,
                const RtEpilogue *ep, GError **error)
{
  (void) error;
  gint64 N = x->dims[0];
  gboolean act = rt_epilogue_active (ep);
  Job j = { .taps = taps, .bias = bias ? bias->data : NULL, .w = w, .C = x->dims[1],
            .M = wt->dims[0], .mpad = mpad, .H = w->in[1], .W = w->in[2], .OH = w->out[1],
            .OW = w->out[2], .act = act ? ep->act : RT_ACT_NONE,
            .lo = act ? (float) ep->lo : 0, .hi = act ? (float) ep->hi : 0 };
  if (N == 0 || j.OH * j.OW == 0)
    return TRUE;
  g_atomic_int_inc (&runs);
  gint64 OHW = j.OH * j.OW;
  /* rows of about 64 Ki multiply-adds or more a chunk */
  gint64 per_row = MAX (j.M * j.C * w->k[1] * w->k[2] * j.OW, 1);
  for (gint64 n = 0; n < N; n++)
    {
      j.x = (const float *) x->data + n * j.C * j.H * j.W;
      j.y = (float *) y->data + n * j.M * OHW;
      j.z = act && ep->sum ? (const float *) ep->sum->data + n * j.M * OHW : NULL;
      rt_parallel_for (call, j.OH, MAX (1, 65536 / per_row), rows_range, &j);
    }
  return TRUE;
}
#else
gboolean
rt_conv_narrow_node (const GraphNode *node, const Tensor *w)
{
  (void) node, (void) w;
  return FALSE;
}

gboolean
rt_conv_narrow_applies (const RtTensor *x, const RtTensor *wt, gint64 group, const RtWindow *w)
{
  (void) x, (void) wt, (void) group, (void) w, (void) window_fits;
  return FALSE;
}

gboolean
rt_conv_narrow (RtCall *call, const float *taps, gint64 mpad, const RtTensor *x,
                const RtTensor *wt, const RtTensor *bias, const RtWindow *w, RtTensor *y,
                const RtEpilogue *ep, GError **error)
{
  (void) call, (void) taps, (void) mpad, (void) x, (void) wt, (void) bias, (void) w, (void) y;
  (void) ep, (void) error;
  return FALSE;
}
#endif
