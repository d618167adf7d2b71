/* Winograd F(2x2, 3x3) and F(4x4, 3x3) (conv-winograd.h: which and why)
 * for 3x3, stride-1, dilation-1, group-1 float Convs (Lavin and Gray,
 * "Fast Algorithms for Convolutional Neural Networks", 2016): each t x t
 * tile of an output plane is Aᵀ [Σ_c U_c ⊙ V_c] A with V_c = Bᵀ d_c B (d_c:
 * the (t+2)² input patch of channel c) and U_c = G g_c Gᵀ (g_c: the 3x3
 * filter), so the (t+2)² elements of the tiles are as many independent
 * products (tiles x C) · (C x M): for t = 4, 36 multiplies per 16 outputs
 * and channel pair instead of 144; for t = 2, 16 per 4 instead of 36.
 *
 *   weights: U transformed once, when the session is made, in double, and
 *       packed as 16 or 36 B matrices (C x M) of the packed GEMM (conv-packed.c);
 *   input transform: for a block of tile rows, each channel's rows copied
 *       into a zero-padded strip, 8 tiles at a time gathered into vectors
 *       and transformed, written straight into the GEMM's packed A panels
 *       (ap[xi]: tiles x C, panels of mr tiles);
 *   GEMMs: cbuf[t][xi][m] := ap[xi] · U[xi] (rt_packed_gemm_b);
 *   output transform: 8 output channels a vector, + bias, then the fused
 *       epilogue's sum and activation (epilogue.h's order) as each tile's
 *       16 values are stored.
 *
 * Threads: whole blocks, taken by whichever thread is free, where there
 * are enough of them (large feature maps); otherwise each block's three
 * phases in turn, split over channels, the products, and output channels.
 * Blocks depend on the shapes alone and every sum is made in the same
 * order whichever thread makes it, so 1 and N threads give the same bits.
 *
 * Rounding differs from im2col's (F(4x4)'s transforms scale the inputs by
 * up to 10 per axis and the outputs by up to 19 per axis; F(2x2)'s by 2
 * and 3): tests/runtime/test-winograd.c bounds the difference. */
#include "runtime/conv-winograd.h"
#include "runtime/conv-packed.h"
#include <stdlib.h>
#include <string.h>

#define MAX_NXI 36   /* (4 + 2)² */
#define LANES 8

struct _RtWinograd
{
  const void *src;    /* W's data */
  gint64      M, C, mr;
  int         tile;   /* 2: F(2x2, 3x3); 4: F(4x4, 3x3) */
  RtPackedW  *b[MAX_NXI]; /* U[xi]ᵀ (C x M) packed as the GEMM's B */
};

static guint runs, grouped;

guint
rt_winograd_runs (void)
{
  return g_atomic_int_get (&runs);
}

guint
rt_winograd_grouped_stores (void)
{
  return g_atomic_int_get (&grouped);
}

void
rt_winograd_free (RtWinograd *wg)
{
  if (wg == NULL)
    return;
  for (int i = 0; i < MAX_NXI; i++)
    rt_conv_packed_free (wg->b[i]);
  g_free (wg);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

static gboolean
cpu_ok (void)
{
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
}

/* o[0..6) (stride os) := Bᵀ d (d: 6 vectors, stride ds):
 *   4d0 - 5d2 + d4, (d4 - 4d2) ± (d3 - 4d1), (d4 - d2) ± 2 (d3 - d1), 4d1 - 5d3 + d5 */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
bt6 (const __m256 *d, int ds, __m256 *o, int os)
{
  const __m256 two = _mm256_set1_ps (2), four = _mm256_set1_ps (4), five = _mm256_set1_ps (5);
  __m256 d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds];
  __m256 a = _mm256_fnmadd_ps (four, d2, d4), b = _mm256_fnmadd_ps (four, d1, d3);
  __m256 c = _mm256_sub_ps (d4, d2), e = _mm256_sub_ps (d3, d1);
  o[0] = _mm256_fmadd_ps (four, d0, _mm256_fnmadd_ps (five, d2, d4));
  o[os] = _mm256_add_ps (a, b);
  o[2 * os] = _mm256_sub_ps (a, b);
  o[3 * os] = _mm256_fmadd_ps (two, e, c);
  o[4 * os] = _mm256_fnmadd_ps (two, e, c);
  o[5 * os] = _mm256_fmadd_ps (four, d1, _mm256_fnmadd_ps (five, d3, d5));
}

/* o[0..4) (stride os) := Aᵀ m (m: 6 vectors, stride ms):
 *   m0 + (m1 + m2) + (m3 + m4), (m1 - m2) + 2 (m3 - m4),
 *   (m1 + m2) + 4 (m3 + m4), (m1 - m2) + 8 (m3 - m4) + m5 */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
at6 (const __m256 *m, int ms, __m256 *o, int os)
{
  __m256 s12 = _mm256_add_ps (m[ms], m[2 * ms]), d12 = _mm256_sub_ps (m[ms], m[2 * ms]);
  __m256 s34 = _mm256_add_ps (m[3 * ms], m[4 * ms]), d34 = _mm256_sub_ps (m[3 * ms], m[4 * ms]);
  o[0] = _mm256_add_ps (_mm256_add_ps (m[0], s12), s34);
  o[os] = _mm256_fmadd_ps (_mm256_set1_ps (2), d34, d12);
  o[2 * os] = _mm256_fmadd_ps (_mm256_set1_ps (4), s34, s12);
  o[3 * os] = _mm256_add_ps (_mm256_fmadd_ps (_mm256_set1_ps (8), d34, d12), m[5 * ms]);
}
/* F(2x2, 3x3): o := Bᵀ d = d0 - d2, d1 + d2, d2 - d1, d1 - d3 */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
bt4 (const __m256 *d, int ds, __m256 *o, int os)
{
  __m256 d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds];
  o[0] = _mm256_sub_ps (d0, d2);
  o[os] = _mm256_add_ps (d1, d2);
  o[2 * os] = _mm256_sub_ps (d2, d1);
  o[3 * os] = _mm256_sub_ps (d1, d3);
}

/* F(2x2, 3x3): o := Aᵀ m = m0 + m1 + m2, m1 - m2 - m3 */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
at4 (const __m256 *m, int ms, __m256 *o, int os)
{
  o[0] = _mm256_add_ps (_mm256_add_ps (m[0], m[ms]), m[2 * ms]);
  o[os] = _mm256_sub_ps (_mm256_sub_ps (m[ms], m[2 * ms]), m[3 * ms]);
}
#else
static gboolean
cpu_ok (void)
{
  return FALSE;
}
#endif

/* The tile: F(4x4, 3x3) only where SYMONNX_WINOGRAD_F4 is set (see the
 * note in conv-winograd.h on its rounding), F(2x2, 3x3) otherwise. */
static int
pick_tile (void)
{
  return getenv ("SYMONNX_WINOGRAD_F4") ? 4 : 2;
}

RtWinograd *
rt_winograd_new (const Tensor *w)
{
  if (getenv ("SYMONNX_NO_WINOGRAD") || !cpu_ok () || tensor_dtype (w) != GRAPH_DTYPE_FLOAT
      || tensor_rank (w) != 4 || !tensor_has_data (w) || tensor_dim (w, 2) != 3
      || tensor_dim (w, 3) != 3)
    return NULL;
  int tile = pick_tile (), alpha = tile + 2, nxi = alpha * alpha;
  gint64 M = tensor_dim (w, 0), C = tensor_dim (w, 1);
  /* (the cap: U is up to 4x W; 2^26 floats is 256 MiB) */
  if (M < RT_WINOGRAD_MIN_M || C < RT_WINOGRAD_MIN_C || (double) M * (double) C * nxi > (1 << 26))
    return NULL;
  static const double G4[6][3] = {
    { 1.0 / 4, 0, 0 },
    { -1.0 / 6, -1.0 / 6, -1.0 / 6 },
    { -1.0 / 6, 1.0 / 6, -1.0 / 6 },
    { 1.0 / 24, 1.0 / 12, 1.0 / 6 },
    { 1.0 / 24, -1.0 / 12, 1.0 / 6 },
    { 0, 0, 1 },
  };
  static const double G2[4][3] = {
    { 1, 0, 0 },
    { 0.5, 0.5, 0.5 },
    { 0.5, -0.5, 0.5 },
    { 0, 0, 1 },
  };
  const double (*G)[3] = tile == 4 ? G4 : G2;
  const float *src = tensor_data (w);
  float *u = g_try_new (float, (gsize) (nxi * M * C));   /* [xi][m][c] */
  if (u == NULL)
    return NULL;
  for (gint64 m = 0; m < M; m++)
    for (gint64 c = 0; c < C; c++)
      {
        const float *g = src + (m * C + c) * 9;
        double t[6][3];
        for (int i = 0; i < alpha; i++)
          for (int k = 0; k < 3; k++)
            t[i][k] = G[i][0] * g[k] + G[i][1] * g[3 + k] + G[i][2] * g[6 + k];
        for (int i = 0; i < alpha; i++)
          for (int j = 0; j < alpha; j++)
            u[((i * alpha + j) * M + m) * C + c]
              = (float) (t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
      }
  RtWinograd *wg = g_new0 (RtWinograd, 1);
  wg->src = src;
  wg->M = M;
  wg->C = C;
  wg->tile = tile;
  for (int xi = 0; xi < nxi; xi++)
    /* (the packed copy keeps u's address only to compare it, never to read it) */
    if ((wg->b[xi] = rt_packed_b_new_t (u + xi * M * C, C, M)) == NULL)
      {
        g_free (u);
        rt_winograd_free (wg);
        return NULL;
      }
  g_free (u);
  wg->mr = rt_packed_mr (wg->b[0]);
  return wg;
}

int
rt_winograd_tile (const RtWinograd *wg)
{
  return wg->tile;
}

/* A Conv's blocking: tile rows per block, buffers, in floats. */
typedef struct
{
  gint64 tile, nxi;                /* outputs per tile side; products */
  gint64 TH, TW, RB, nblocks, T;   /* tiles down and across; tile rows and tiles per block */
  gint64 Wp, rows;                 /* the padded strip: row length, rows */
  gint64 apx, cbuf;                /* floats of ap per xi, of cbuf */
} Geometry;

static gboolean
geometry (const RtWinograd *wg, const RtWindow *w, gint64 min_blocks, Geometry *g)
{
  gint64 OH = w->out[1], OW = w->out[2], tile = wg->tile, nxi = (tile + 2) * (tile + 2);
  g->tile = tile;
  g->nxi = nxi;
  g->TH = (OH + tile - 1) / tile;
  g->TW = (OW + tile - 1) / tile;
  /* ap and cbuf of a block in about 1 MiB (L2), but at least 16 tiles
   * (two row panels) so the GEMMs' tiles fill; smaller blocks where that
   * makes min_blocks of them. */
  double per_row = (double) g->TW * nxi * (double) (wg->C + wg->M) * sizeof (float);
  gint64 rb = per_row > 0 ? (gint64) ((1 << 20) / per_row) : 1;
  gint64 min_rb = (16 + g->TW - 1) / g->TW;
  g->RB = CLAMP (MAX (rb, min_rb), 1, MAX (g->TH, 1));
  if (min_blocks > 1 && g->TH > 0 && (g->TH + g->RB - 1) / g->RB < min_blocks)
    g->RB = CLAMP (MAX ((g->TH + min_blocks - 1) / min_blocks, min_rb), 1, g->TH);
  g->nblocks = g->TH ? (g->TH + g->RB - 1) / g->RB : 0;
  g->T = g->RB * g->TW;
  g->Wp = g->TW * tile + 2;
  g->rows = g->RB * tile + 2;
  /* ap's rows: whole vectors of 8 tiles (the input transform's stores)
   * and whole panels of mr (the GEMM's A; the AVX2 kernel's 6) */
  g->apx = MAX ((g->T + LANES - 1) / LANES * LANES, (g->T + wg->mr - 1) / wg->mr * wg->mr) * wg->C;
  g->cbuf = g->T * nxi * wg->M;
  /* Absurd pads make huge strips and blocks: im2col handles those. */
  return (double) g->Wp * (double) g->rows < (double) (1 << 24)
         && (double) g->apx * nxi + (double) g->cbuf < (double) (1 << 27);
}

gboolean
rt_winograd_applies (const RtWinograd *wg, const RtTensor *x, const RtTensor *wt, gint64 group,
                     const RtWindow *w)
{
  Geometry g;
  return wg && wt->data == wg->src && wt->dtype == GRAPH_DTYPE_FLOAT && wt->rank == 4
         && wt->dims[0] == wg->M && wt->dims[1] == wg->C && wt->dims[2] == 3 && wt->dims[3] == 3
         && x->dtype == GRAPH_DTYPE_FLOAT && x->rank == 4 && x->dims[1] == wg->C && group == 1
         && w->nsp == 2 && w->k[1] == 3 && w->k[2] == 3 && w->stride[1] == 1
         && w->stride[2] == 1 && w->dil[1] == 1 && w->dil[2] == 1 && geometry (wg, w, 1, &g);
}

typedef struct
{
  const RtWinograd *wg;
  const RtWindow   *w;
  const RtEpilogue *ep;
  const Geometry   *g;
  const float      *x, *bias, *z;   /* z: ep's sum, or NULL */
  float            *y;
  RtActKind         act;
  float             lo, hi;
  gint64            N, C, M, H, W, OH, OW;
  /* the block in hand (phase mode) */
  gint64            n, blk;
  float            *ap, *cbuf;
} Job;

/* The block's tiles: t0 = first tile row, T its tiles. */
static void
block_rows (const Job *j, gint64 blk, gint64 *th0, gint64 *T)
{
  *th0 = blk * j->g->RB;
  *T = (MIN (*th0 + j->g->RB, j->g->TH) - *th0) * j->g->TW;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Channels [c0, c1) of image n, block blk: the padded strip, then 8 tiles
 * at a time Bᵀ d B into ap's panels.  TILE a constant (the two callers
 * below), so the loops unroll and the vectors stay in registers. */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
input_tiles (const Job *j, gint64 n, gint64 blk, float *ap, gint64 c0, gint64 c1,
             const int TILE)
{
  enum { MAXA = 6 };
  const int ALPHA = TILE + 2, NXI = ALPHA * ALPHA;
  const Geometry *g = j->g;
  gint64 th0, T, Wp = g->Wp, mr = j->wg->mr, C = j->C;
  block_rows (j, blk, &th0, &T);
  gint64 rows = (T / g->TW) * TILE + 2, P = (T + LANES - 1) / LANES;
  float *strip = g_new (float, rows * Wp);
  gint32 *idx = g_new (gint32, P * LANES);
  for (gint64 t = 0; t < P * LANES; t++)
    idx[t] = t < T ? (gint32) ((t / g->TW) * TILE * Wp + (t % g->TW) * TILE) : 0;
  gint64 pt = j->w->pad0[1], pl = j->w->pad0[2];
  for (gint64 c = c0; c < c1; c++)
    {
      const float *xc = j->x + (n * C + c) * j->H * j->W;
      for (gint64 r = 0; r < rows; r++)
        {
          gint64 ih = th0 * TILE - pt + r;
          float *d = strip + r * Wp;
          if (ih < 0 || ih >= j->H)
            {
              memset (d, 0, (gsize) Wp * sizeof (float));
              continue;
            }
          /* Wp >= pl + W: OW = W + pads - 2 and Wp >= OW + 2 */
          memset (d, 0, (gsize) pl * sizeof (float));
          memcpy (d + pl, xc + ih * j->W, (gsize) j->W * sizeof (float));
          memset (d + pl + j->W, 0, (gsize) (Wp - pl - j->W) * sizeof (float));
        }
      for (gint64 p = 0; p < P; p++)
        {
          __m256i vi = _mm256_loadu_si256 ((const __m256i *) (idx + p * LANES));
          __m256 h[MAXA * MAXA], v[MAXA * MAXA];
          for (int r = 0; r < ALPHA; r++)
            {
              __m256 d[MAXA];
              for (int k = 0; k < ALPHA; k++)
                d[k] = _mm256_i32gather_ps (strip + r * Wp + k, vi, 4);
              /* h[r][j] = Σ_k Bᵀ[j][k] d[r][k] */
              if (TILE == 4)
                bt6 (d, 1, h + r * ALPHA, 1);
              else
                bt4 (d, 1, h + r * ALPHA, 1);
            }
          for (int jj = 0; jj < ALPHA; jj++)
            /* v[i][j] = Σ_r Bᵀ[i][r] h[r][j] */
            if (TILE == 4)
              bt6 (h + jj, ALPHA, v + jj, ALPHA);
            else
              bt4 (h + jj, ALPHA, v + jj, ALPHA);
          if (mr == LANES)
            for (int xi = 0; xi < NXI; xi++)
              _mm256_storeu_ps (ap + xi * g->apx + (p * C + c) * LANES, v[xi]);
          else
            for (int xi = 0; xi < NXI; xi++)
              {
                float lane[LANES];
                _mm256_storeu_ps (lane, v[xi]);
                for (gint64 l = 0; l < LANES && p * LANES + l < T; l++)
                  {
                    gint64 t = p * LANES + l;
                    ap[xi * g->apx + ((t / mr) * C + c) * mr + t % mr] = lane[l];
                  }
              }
        }
    }
  g_free (idx);
  g_free (strip);
}

/* o := Aᵀ M A (+ bias) of tile t's products for 8 output channels (lanes). */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
tile_out (const float *cb, gint64 M, __m256i mask, gint64 nl, const float *bias, __m256 bv,
          __m256 *o, const int TILE)
{
  enum { MAXA = 6, MAXT = 4 };
  const int ALPHA = TILE + 2, NXI = ALPHA * ALPHA;
  __m256 mx[MAXA * MAXA], s[MAXA * MAXT];
  for (int xi = 0; xi < NXI; xi++)
    mx[xi] = nl == LANES ? _mm256_loadu_ps (cb + xi * M) : _mm256_maskload_ps (cb + xi * M, mask);
  /* s[i][b] = Σ_j m[i][j] A[j][b], then o[a][b] = Σ_i Aᵀ[a][i] s[i][b] */
  for (int i = 0; i < ALPHA; i++)
    if (TILE == 4)
      at6 (mx + i * ALPHA, 1, s + i * TILE, 1);
    else
      at4 (mx + i * ALPHA, 1, s + i * TILE, 1);
  for (int b = 0; b < TILE; b++)
    if (TILE == 4)
      at6 (s + b, TILE, o + b, TILE);
    else
      at4 (s + b, TILE, o + b, TILE);
  if (bias)
    for (int k = 0; k < TILE * TILE; k++)
      o[k] = _mm256_add_ps (o[k], bv);
}

/* r[0..7] (8 lanes each) transposed in place: r[l][i] := r[i][l]. */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
transpose8 (__m256 r[8])
{
  __m256 t0 = _mm256_unpacklo_ps (r[0], r[1]), t1 = _mm256_unpackhi_ps (r[0], r[1]);
  __m256 t2 = _mm256_unpacklo_ps (r[2], r[3]), t3 = _mm256_unpackhi_ps (r[2], r[3]);
  __m256 t4 = _mm256_unpacklo_ps (r[4], r[5]), t5 = _mm256_unpackhi_ps (r[4], r[5]);
  __m256 t6 = _mm256_unpacklo_ps (r[6], r[7]), t7 = _mm256_unpackhi_ps (r[6], r[7]);
  __m256 u0 = _mm256_shuffle_ps (t0, t2, 0x44), u1 = _mm256_shuffle_ps (t0, t2, 0xee);
  __m256 u2 = _mm256_shuffle_ps (t1, t3, 0x44), u3 = _mm256_shuffle_ps (t1, t3, 0xee);
  __m256 u4 = _mm256_shuffle_ps (t4, t6, 0x44), u5 = _mm256_shuffle_ps (t4, t6, 0xee);
  __m256 u6 = _mm256_shuffle_ps (t5, t7, 0x44), u7 = _mm256_shuffle_ps (t5, t7, 0xee);
  r[0] = _mm256_permute2f128_ps (u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps (u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps (u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps (u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps (u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps (u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps (u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps (u3, u7, 0x31);
}

/* Output channels [8 v0, 8 v1) of image n, block blk: Aᵀ M A + bias, then
 * the sum and the activation, into y.  F(2x2): four tiles side by side
 * whose outputs are inside y are stored together, each channel's two rows
 * of 8 as vectors (an 8x8 transpose), with the same operations per element
 * as the scalar stores of the other tiles (so the same bits). */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline void
output_tiles (const Job *j, gint64 n, gint64 blk, const float *cbuf, gint64 v0, gint64 v1,
              const int TILE)
{
  enum { MAXT = 4 };
  const int ALPHA = TILE + 2, NXI = ALPHA * ALPHA;
  const Geometry *g = j->g;
  gint64 th0, T, M = j->M, OH = j->OH, OW = j->OW, osz = OH * OW;
  block_rows (j, blk, &th0, &T);
  float *yn = j->y + n * M * osz;
  const float *zn = j->z ? j->z + n * M * osz : NULL;
  const __m256 zero = _mm256_setzero_ps (), lo8 = _mm256_set1_ps (j->lo), hi8 = _mm256_set1_ps (j->hi);
  guint groups = 0;
  for (gint64 vg = v0; vg < v1; vg++)
    {
      gint64 m0 = vg * LANES, nl = MIN (LANES, M - m0);
      gint32 mk[LANES];
      for (int l = 0; l < LANES; l++)
        mk[l] = l < nl ? -1 : 0;
      __m256i mask = _mm256_loadu_si256 ((const __m256i *) mk);
      __m256 bv = j->bias ? _mm256_maskload_ps (j->bias + m0, mask) : _mm256_setzero_ps ();
      for (gint64 t = 0; t < T;)
        {
          const float *cb = cbuf + t * NXI * M + m0;
          gint64 oh0 = (th0 + t / g->TW) * TILE, ow0 = (t % g->TW) * TILE;
          if (TILE == 2 && t % g->TW + 4 <= g->TW && t + 4 <= T && ow0 + 8 <= OW && oh0 + 2 <= OH)
            {
              /* r[a][2 q + b]: output (oh0 + a, ow0 + 2 q + b) of tile t + q, 8 channels */
              __m256 r[2][8], o[4];
              for (int q = 0; q < 4; q++)
                {
                  tile_out (cb + q * NXI * M, M, mask, nl, j->bias, bv, o, 2);
                  r[0][2 * q] = o[0], r[0][2 * q + 1] = o[1];
                  r[1][2 * q] = o[2], r[1][2 * q + 1] = o[3];
                }
              for (int a = 0; a < 2; a++)
                {
                  transpose8 (r[a]);   /* r[a][l]: channel m0 + l, columns ow0 .. ow0 + 7 */
                  for (gint64 l = 0; l < nl; l++)
                    {
                      gint64 at = (m0 + l) * osz + (oh0 + a) * OW + ow0;
                      __m256 val = r[a][l];
                      if (zn)
                        val = _mm256_add_ps (val, _mm256_loadu_ps (zn + at));
                      if (j->act == RT_ACT_RELU)   /* val > 0 ? val : 0 */
                        val = _mm256_and_ps (val, _mm256_cmp_ps (val, zero, _CMP_GT_OQ));
                      else if (j->act == RT_ACT_CLIP)
                        {
                          val = _mm256_blendv_ps (val, lo8, _mm256_cmp_ps (val, lo8, _CMP_LT_OQ));
                          val = _mm256_blendv_ps (val, hi8, _mm256_cmp_ps (val, hi8, _CMP_GT_OQ));
                        }
                      _mm256_storeu_ps (yn + at, val);
                    }
                }
              t += 4;
              groups++;
              continue;
            }
          __m256 o[MAXT * MAXT];
          tile_out (cb, M, mask, nl, j->bias, bv, o, TILE);
          float ov[MAXT * MAXT][LANES];
          for (int k = 0; k < TILE * TILE; k++)
            _mm256_storeu_ps (ov[k], o[k]);
          gint64 na = MIN (TILE, OH - oh0), nb = MIN (TILE, OW - ow0);
          for (gint64 l = 0; l < nl; l++)
            {
              float *yp = yn + (m0 + l) * osz + oh0 * OW + ow0;
              const float *zp = zn ? zn + (m0 + l) * osz + oh0 * OW + ow0 : NULL;
              for (gint64 a = 0; a < na; a++)
                for (gint64 b = 0; b < nb; b++)
                  {
                    float val = ov[a * TILE + b][l];
                    if (zp)
                      val = val + zp[a * OW + b];
                    if (j->act == RT_ACT_RELU)
                      val = val > 0 ? val : 0;
                    else if (j->act == RT_ACT_CLIP)
                      {
                        val = val < j->lo ? j->lo : val;
                        val = val > j->hi ? j->hi : val;
                      }
                    yp[a * OW + b] = val;
                  }
            }
          t++;
        }
    }
  if (groups)
    g_atomic_int_add (&grouped, groups);
}

__attribute__ ((target ("avx2,fma"))) static void
input_transform (const Job *j, gint64 n, gint64 blk, float *ap, gint64 c0, gint64 c1)
{
  if (j->g->tile == 4)
    input_tiles (j, n, blk, ap, c0, c1, 4);
  else
    input_tiles (j, n, blk, ap, c0, c1, 2);
}

__attribute__ ((target ("avx2,fma"))) static void
output_transform (const Job *j, gint64 n, gint64 blk, const float *cbuf, gint64 v0, gint64 v1)
{
  if (j->g->tile == 4)
    output_tiles (j, n, blk, cbuf, v0, v1, 4);
  else
    output_tiles (j, n, blk, cbuf, v0, v1, 2);
}
#else
static void
input_transform (const Job *j, gint64 n, gint64 blk, float *ap, gint64 c0, gint64 c1)
{
  (void) j, (void) n, (void) blk, (void) ap, (void) c0, (void) c1;
}

static void
output_transform (const Job *j, gint64 n, gint64 blk, const float *cbuf, gint64 v0, gint64 v1)
{
  (void) j, (void) n, (void) blk, (void) cbuf, (void) v0, (void) v1;
}
#endif

/* The products [xi0, xi1) of a block of T tiles. */
static void
products (const Job *j, const float *ap, float *cbuf, gint64 T, gint64 xi0, gint64 xi1)
{
  for (gint64 xi = xi0; xi < xi1; xi++)
    rt_packed_gemm_b (j->wg->b[xi], ap + xi * j->g->apx, T, cbuf + xi * j->M, j->g->nxi * j->M, 0,
                      rt_packed_b_panels (j->wg->b[xi]));
}

/* One whole block (image n, block blk) on this thread. */
static void
whole_block (const Job *j, gint64 n, gint64 blk, float *ap, float *cbuf)
{
  gint64 th0, T;
  block_rows (j, blk, &th0, &T);
  input_transform (j, n, blk, ap, 0, j->C);
  products (j, ap, cbuf, T, 0, j->g->nxi);
  output_transform (j, n, blk, cbuf, 0, (j->M + LANES - 1) / LANES);
}

/* Blocks mode: items (image, block) [i0, i1), in the scratch of this
 * thread's seat (blocks go to whichever thread is free). */
typedef struct
{
  const Job *j;
  gboolean   seated;   /* run by rt_parallel_for: scratch per seat */
  float     *scratch;
} Blocks;

static void
block_range (gint64 i0, gint64 i1, gpointer data)
{
  const Blocks *bs = data;
  const Job *j = bs->j;
  gint64 per = j->g->nxi * j->g->apx + j->g->cbuf;
  float *ap = bs->scratch + (bs->seated ? rt_parallel_seat () : 0) * per;
  float *cbuf = ap + j->g->nxi * j->g->apx;
  for (gint64 i = i0; i < i1; i++)
    whole_block (j, i / j->g->nblocks, i % j->g->nblocks, ap, cbuf);
}

static void
phase_input (gint64 c0, gint64 c1, gpointer data)
{
  const Job *j = data;
  input_transform (j, j->n, j->blk, j->ap, c0, c1);
}

static void
phase_products (gint64 xi0, gint64 xi1, gpointer data)
{
  const Job *j = data;
  gint64 th0, T;
  block_rows (j, j->blk, &th0, &T);
  products (j, j->ap, j->cbuf, T, xi0, xi1);
}

static void
phase_output (gint64 v0, gint64 v1, gpointer data)
{
  const Job *j = data;
  output_transform (j, j->n, j->blk, j->cbuf, v0, v1);
}

gboolean
rt_conv_winograd (RtCall *call, const RtWinograd *wg, const RtTensor *x, const RtTensor *bias,
                  const RtWindow *w, RtTensor *y, const RtEpilogue *ep, GError **error)
{
  Geometry g;
  /* Threads: at least two blocks each where the tile rows allow, so that
   * they take whole blocks rather than each block's phases in turn (whose
   * data moves between the cores three times a block). */
  gint64 threads = rt_call_threads (call), n_img = MAX (x->dims[0], 1);
  /* One image of at most 64 tiles whose U is 2 MiB or more (twice L2):
   * each block's phases split, the products by xi, so that each thread
   * reads its share of U, not all of it (ResNet's 256 -> 256 at 14x14: at
   * 2 threads -7% in ResNet-18, -3% in ResNet-50; SqueezeNet's 48 -> 192
   * at 13x13, U 0.56 MiB, +15% that way). */
  gint64 tiles = ((w->out[1] + wg->tile - 1) / wg->tile) * ((w->out[2] + wg->tile - 1) / wg->tile);
  gboolean by_phases = threads > 1 && n_img == 1 && tiles <= 64
                       && (double) wg->M * (double) wg->C * (wg->tile + 2) * (wg->tile + 2)
                              * sizeof (float) >= (double) (2 << 20);
  if (!geometry (wg, w, threads > 1 && !by_phases ? (2 * threads + n_img - 1) / n_img : 1, &g))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "Winograd: the window does not fit");
      return FALSE;
    }
  g_atomic_int_inc (&runs);
  gboolean act = rt_epilogue_active (ep);
  Job j = { .wg = wg, .w = w, .ep = ep, .g = &g, .x = x->data, .y = y->data,
            .bias = bias ? bias->data : NULL, .z = act && ep->sum ? ep->sum->data : NULL,
            .act = act ? ep->act : RT_ACT_NONE, .lo = act ? (float) ep->lo : 0,
            .hi = act ? (float) ep->hi : 0, .N = x->dims[0], .C = wg->C, .M = wg->M,
            .H = w->in[1], .W = w->in[2], .OH = w->out[1], .OW = w->out[2] };
  gint64 items = j.N * g.nblocks;
  if (items == 0)
    return TRUE;
  gint64 per = g.nxi * g.apx + g.cbuf;
  /* Whole blocks, each to whichever thread is free, when there is one or
   * more per thread (or one thread), even if unevenly (3 blocks on 2
   * threads: SqueezeNet's 13x13 Winograd Convs -22 to -27% at 2 threads,
   * the model -5%, against splitting the phases, whose data moves between
   * the cores three times a block); otherwise the phases of each block
   * split in turn.  Scratch: one block's per thread. */
  gint64 tasks = threads == 1 ? 1 : !by_phases && items >= threads ? threads : 0;
  float *scratch = rt_call_scratch (call, (gsize) (MAX (tasks, 1) * per) * sizeof (float), error);
  if (scratch == NULL)
    return FALSE;
  if (tasks)
    {
      Blocks bs = { &j, tasks > 1, scratch };
      if (tasks > 1)
        rt_parallel_for (call, items, 1, block_range, &bs);
      else
        block_range (0, items, &bs);
      return TRUE;
    }
  j.ap = scratch;
  j.cbuf = scratch + g.nxi * g.apx;
  for (j.n = 0; j.n < j.N; j.n++)
    for (j.blk = 0; j.blk < g.nblocks; j.blk++)
      {
        rt_parallel_for (call, j.C, 8, phase_input, &j);
        rt_parallel_for (call, g.nxi, 1, phase_products, &j);
        rt_parallel_for (call, (j.M + LANES - 1) / LANES, 1, phase_output, &j);
      }
  return TRUE;
}
