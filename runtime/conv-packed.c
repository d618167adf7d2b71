/* Convolution as GEMM with weights packed once, when the session is made,
 * and im2col written straight into the GEMM's packed layout (no col
 * matrix, no copy of it into BLAS's panels, no repacking of W per call).
 *
 *   A (weights, per group Mg x K): panels of MR rows, k-major:
 *       a[panel][k][0..MR), rows past Mg zero;
 *   B (im2col of a block of output columns, K x n): panels of NR
 *       columns, k-major: b[panel][k][0..NR), columns past n zero;
 *   C (y, row stride ldc) += A·B by MR x NR tiles of accumulators in
 *       registers, K in slices so that a B panel slice (16 KiB) stays in
 *       L1 while the A panels stream past it.
 *
 * Two kernels: AVX-512F 8x32 (16 zmm accumulators; the A values are
 * broadcast inside the FMAs) and AVX2 + FMA 6x16 (12 ymm accumulators),
 * picked by the CPU at packing time.  Elsewhere rt_conv_pack_weights()
 * returns NULL and Conv keeps im2col + sgemm. */
#include "runtime/conv-packed.h"
#include "runtime/conv-winograd.h"
#include <stdlib.h>
#include <string.h>

#define MAX_MR 8
#define MAX_NR 32

/* What the last K slice's store applies to a tile (epilogue.h's order:
 * bias, then the sum, then the activation): NULL on the other slices. */
typedef struct
{
  const float *bias;   /* the tile's first row's bias, or NULL */
  const float *z;      /* the sum at the tile's (0, 0), row stride ldc, or NULL */
  RtActKind    act;
  float        lo, hi;
} TileEp;

typedef void (*KernelFn) (gint64 kc, const float *a, const float *b, gint64 ldb, float *c,
                          gint64 ldc, gboolean acc, gint64 mr, gint64 nr, const TileEp *e);

/* y[0..nc) := x (K values) · one B panel (K x nr), nc <= nr columns kept. */
typedef void (*GemvFn) (gint64 K, const float *x, const float *b, float *y, gint64 nc);

struct _RtPackedW
{
  const void *src;     /* W's data the panels were made from */
  gint64      M, group, Mg, K, panels;  /* panels of A per group */
  gint64      mr, nr;  /* the kernel's tile */
  gint64      kc;      /* K slice: a B panel slice, kc x nr floats, is 16 KiB (half of L1) */
  KernelFn    kernel;
  GemvFn      gemv;
  float      *a;       /* group x panels x K x mr */
  RtWinograd *wino;    /* instead of a: a Winograd Conv's weights */
  RtPackedW  *bt;      /* instead of a: Wᵀ as B panels (conv-pixel-rows.c) */
  float      *taps;    /* instead of a: per tap, the M filters' weights (conv-direct.c) */
  gint64      mpad;    /* taps' row length: M rounded up to 16 */
  gboolean    narrow;  /* the taps are for conv-narrow.c, not conv-direct.c */
  gboolean    pixel_rows_ok;   /* a group-1 W that may switch to bt */
  gboolean    subsample_ok;    /* SYMONNX_NO_CONV_SUBSAMPLE unset when packed */
};

/* An edge tile from its accumulators t (mr x nr of MAX_MR x MAX_NR) into
 * c, then e's epilogue over it with epilogue.c's loops. */
static void
store_edge (float t[MAX_MR][MAX_NR], float *c, gint64 ldc, gboolean acc, gint64 mr, gint64 nr,
            const TileEp *e)
{
  for (gint64 i = 0; i < mr; i++)
    for (gint64 j = 0; j < nr; j++)
      c[i * ldc + j] = acc ? c[i * ldc + j] + t[i][j] : t[i][j];
  if (e == NULL)
    return;
  RtTensor z = { .dtype = GRAPH_DTYPE_FLOAT, .data = (void *) e->z };
  RtEpilogue ep = { .sum = e->z ? &z : NULL, .act = e->act, .lo = e->lo, .hi = e->hi };
  rt_epilogue_rows (GRAPH_DTYPE_FLOAT, c, e->bias, 0, mr, nr, ldc, &ep);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include "runtime/transpose16.h"
#define HAVE_KERNEL 1

/* Edge tiles of fewer rows than the kernel's (the last rows of A: 35 =
 * 4 x 8 + 3 in the LSTM's decoder) with only those rows' accumulators:
 * the full kernel would do the padding rows' FMAs too.  Each sum is made
 * in the same order as in the full kernel, so the bits are the same.
 * Generated per row count R (a constant, so the loops unroll and the
 * accumulators stay in registers); the A panels keep their stride of the
 * full kernel's rows. */
#define GEN_ROWS(NAME, TARGET, VEC, W, MRF, NRF, LOAD, STORE, FMA, SET1, ADD, ZERO)          \
  __attribute__ ((target (TARGET), always_inline)) static inline void                       \
  NAME (const int R, gint64 kc, const float *a, const float *b, gint64 ldb, float *c,       \
        gint64 ldc, gboolean acc, gint64 nr, const TileEp *e)                                \
  {                                                                                          \
    VEC s[MRF][2];                                                                           \
    for (int i = 0; i < R; i++)                                                              \
      s[i][0] = s[i][1] = ZERO ();                                                           \
    for (gint64 k = 0; k < kc; k++)                                                          \
      {                                                                                      \
        VEC b0 = LOAD (b), b1 = LOAD (b + W);                                                \
        /* in registers: GCC would fold a load of b into each FMA (R loads, not one) */       \
        __asm__ ("" : "+v"(b0), "+v"(b1));                                                   \
        for (int i = 0; i < R; i++)                                                          \
          {                                                                                  \
            VEC av = SET1 (a[i]);                                                            \
            s[i][0] = FMA (av, b0, s[i][0]);                                                 \
            s[i][1] = FMA (av, b1, s[i][1]);                                                 \
          }                                                                                  \
        a += MRF;                                                                            \
        b += ldb;                                                                            \
      }                                                                                      \
    if (nr == NRF && e == NULL)                                                              \
      {                                                                                      \
        for (int i = 0; i < R; i++)                                                          \
          {                                                                                  \
            if (acc)                                                                         \
              {                                                                              \
                s[i][0] = ADD (LOAD (c + i * ldc), s[i][0]);                                 \
                s[i][1] = ADD (LOAD (c + i * ldc + W), s[i][1]);                             \
              }                                                                              \
            STORE (c + i * ldc, s[i][0]);                                                    \
            STORE (c + i * ldc + W, s[i][1]);                                                \
          }                                                                                  \
        return;                                                                              \
      }                                                                                      \
    float t[MAX_MR][MAX_NR];                                                                 \
    for (int i = 0; i < R; i++)                                                              \
      {                                                                                      \
        STORE (t[i], s[i][0]);                                                               \
        STORE (t[i] + W, s[i][1]);                                                           \
      }                                                                                      \
    store_edge (t, c, ldc, acc, R, nr, e);                                                   \
  }

GEN_ROWS (rows_6x16, "avx2,fma", __m256, 8, 6, 16, _mm256_loadu_ps, _mm256_storeu_ps,
          _mm256_fmadd_ps, _mm256_set1_ps, _mm256_add_ps, _mm256_setzero_ps)
GEN_ROWS (rows_8x32, "avx512f", __m512, 16, 8, 32, _mm512_loadu_ps, _mm512_storeu_ps,
          _mm512_fmadd_ps, _mm512_set1_ps, _mm512_add_ps, _mm512_setzero_ps)

#define GEN_ROWS_R(NAME, TARGET, R)                                                         \
  __attribute__ ((target (TARGET))) static void                                             \
  NAME##_##R (gint64 kc, const float *a, const float *b, gint64 ldb, float *c, gint64 ldc,   \
              gboolean acc, gint64 nr, const TileEp *e)                                      \
  {                                                                                          \
    NAME (R, kc, a, b, ldb, c, ldc, acc, nr, e);                                             \
  }
GEN_ROWS_R (rows_6x16, "avx2,fma", 1)
GEN_ROWS_R (rows_6x16, "avx2,fma", 2)
GEN_ROWS_R (rows_6x16, "avx2,fma", 3)
GEN_ROWS_R (rows_6x16, "avx2,fma", 4)
GEN_ROWS_R (rows_6x16, "avx2,fma", 5)
GEN_ROWS_R (rows_8x32, "avx512f", 1)
GEN_ROWS_R (rows_8x32, "avx512f", 2)
GEN_ROWS_R (rows_8x32, "avx512f", 3)
GEN_ROWS_R (rows_8x32, "avx512f", 4)
GEN_ROWS_R (rows_8x32, "avx512f", 5)
GEN_ROWS_R (rows_8x32, "avx512f", 6)
GEN_ROWS_R (rows_8x32, "avx512f", 7)

typedef void (*RowsFn) (gint64 kc, const float *a, const float *b, gint64 ldb, float *c,
                        gint64 ldc, gboolean acc, gint64 nr, const TileEp *e);
static const RowsFn rows_6x16_of[6] = { NULL, rows_6x16_1, rows_6x16_2, rows_6x16_3,
                                        rows_6x16_4, rows_6x16_5 };
static const RowsFn rows_8x32_of[8] = { NULL, rows_8x32_1, rows_8x32_2, rows_8x32_3,
                                        rows_8x32_4, rows_8x32_5, rows_8x32_6, rows_8x32_7 };

#define MR 6
#define NR 16
/* C[0..mr, 0..nr) (+)= A panel slice (kc x 6) · B panel slice (kc x 16). */
__attribute__ ((target ("avx2,fma"))) static void
kernel_6x16 (gint64 kc, const float *a, const float *b, gint64 ldb, float *c, gint64 ldc,
             gboolean acc, gint64 mr, gint64 nr, const TileEp *e)
{
  if (mr < MR)
    {
      rows_6x16_of[mr] (kc, a, b, ldb, c, ldc, acc, nr, e);
      return;
    }
  __m256 c0a = _mm256_setzero_ps (), c0b = c0a, c1a = c0a, c1b = c0a, c2a = c0a, c2b = c0a;
  __m256 c3a = c0a, c3b = c0a, c4a = c0a, c4b = c0a, c5a = c0a, c5b = c0a;
  for (gint64 k = 0; k < kc; k++)
    {
      __m256 b0 = _mm256_loadu_ps (b), b1 = _mm256_loadu_ps (b + 8), av;
#define ROW(i)                                   \
      av = _mm256_broadcast_ss (a + i);          \
      c##i##a = _mm256_fmadd_ps (av, b0, c##i##a); \
      c##i##b = _mm256_fmadd_ps (av, b1, c##i##b);
      ROW (0) ROW (1) ROW (2) ROW (3) ROW (4) ROW (5)
#undef ROW
      a += MR;
      b += ldb;
    }
  if (mr == MR && nr == NR)
    {
      __m256 lo8 = _mm256_set1_ps (e ? e->lo : 0), hi8 = _mm256_set1_ps (e ? e->hi : 0);
#define STORE(i)                                                                    \
      if (acc)                                                                      \
        {                                                                           \
          c##i##a = _mm256_add_ps (_mm256_loadu_ps (c + i * ldc), c##i##a);         \
          c##i##b = _mm256_add_ps (_mm256_loadu_ps (c + i * ldc + 8), c##i##b);     \
        }                                                                           \
      if (e)                                                                        \
        {                                                                           \
          if (e->bias)                                                              \
            {                                                                       \
              __m256 bv = _mm256_set1_ps (e->bias[i]);                              \
              c##i##a = _mm256_add_ps (c##i##a, bv);                                \
              c##i##b = _mm256_add_ps (c##i##b, bv);                                \
            }                                                                       \
          if (e->z)                                                                 \
            {                                                                       \
              c##i##a = _mm256_add_ps (c##i##a, _mm256_loadu_ps (e->z + i * ldc));  \
              c##i##b = _mm256_add_ps (c##i##b, _mm256_loadu_ps (e->z + i * ldc + 8)); \
            }                                                                       \
          /* max (lo, v), min (hi, v): Clip's v < lo ? lo : v, NaN v kept;        \
           * Relu is max (0, v) the other way round: NaN → 0, as x > 0 ? x : 0. */  \
          if (e->act == RT_ACT_RELU)                                                \
            {                                                                       \
              c##i##a = _mm256_max_ps (c##i##a, _mm256_setzero_ps ());              \
              c##i##b = _mm256_max_ps (c##i##b, _mm256_setzero_ps ());              \
            }                                                                       \
          else if (e->act == RT_ACT_CLIP)                                           \
            {                                                                       \
              c##i##a = _mm256_min_ps (hi8, _mm256_max_ps (lo8, c##i##a));          \
              c##i##b = _mm256_min_ps (hi8, _mm256_max_ps (lo8, c##i##b));          \
            }                                                                       \
        }                                                                           \
      _mm256_storeu_ps (c + i * ldc, c##i##a);                                      \
      _mm256_storeu_ps (c + i * ldc + 8, c##i##b);
      STORE (0) STORE (1) STORE (2) STORE (3) STORE (4) STORE (5)
#undef STORE
      return;
    }
  float t[MAX_MR][MAX_NR];
  __m256 regs[MR][2] = { { c0a, c0b }, { c1a, c1b }, { c2a, c2b },
                         { c3a, c3b }, { c4a, c4b }, { c5a, c5b } };
  for (int i = 0; i < MR; i++)
    {
      _mm256_storeu_ps (t[i], regs[i][0]);
      _mm256_storeu_ps (t[i] + 8, regs[i][1]);
    }
  store_edge (t, c, ldc, acc, mr, nr, e);
}
#undef MR
#undef NR

#define MR 8
#define NR 32
/* The same with 8 x 32 tiles in zmm registers. */
__attribute__ ((target ("avx512f"))) static void
kernel_8x32 (gint64 kc, const float *a, const float *b, gint64 ldb, float *c, gint64 ldc,
             gboolean acc, gint64 mr, gint64 nr, const TileEp *e)
{
  if (mr < MR)
    {
      rows_8x32_of[mr] (kc, a, b, ldb, c, ldc, acc, nr, e);
      return;
    }
  __m512 c0a = _mm512_setzero_ps (), c0b = c0a, c1a = c0a, c1b = c0a, c2a = c0a, c2b = c0a;
  __m512 c3a = c0a, c3b = c0a, c4a = c0a, c4b = c0a, c5a = c0a, c5b = c0a, c6a = c0a;
  __m512 c6b = c0a, c7a = c0a, c7b = c0a;
  for (gint64 k = 0; k < kc; k++)
    {
      __m512 b0 = _mm512_loadu_ps (b), b1 = _mm512_loadu_ps (b + 16), av;
#define ROW(i)                                   \
      av = _mm512_set1_ps (a[i]);                \
      c##i##a = _mm512_fmadd_ps (av, b0, c##i##a); \
      c##i##b = _mm512_fmadd_ps (av, b1, c##i##b);
      ROW (0) ROW (1) ROW (2) ROW (3) ROW (4) ROW (5) ROW (6) ROW (7)
#undef ROW
      a += MR;
      b += ldb;
    }
  if (mr == MR && nr == NR)
    {
      __m512 lo16 = _mm512_set1_ps (e ? e->lo : 0), hi16 = _mm512_set1_ps (e ? e->hi : 0);
#define STORE(i)                                                                      \
      if (acc)                                                                        \
        {                                                                             \
          c##i##a = _mm512_add_ps (_mm512_loadu_ps (c + i * ldc), c##i##a);           \
          c##i##b = _mm512_add_ps (_mm512_loadu_ps (c + i * ldc + 16), c##i##b);      \
        }                                                                             \
      if (e)                                                                          \
        {                                                                             \
          if (e->bias)                                                                \
            {                                                                         \
              __m512 bv = _mm512_set1_ps (e->bias[i]);                                \
              c##i##a = _mm512_add_ps (c##i##a, bv);                                  \
              c##i##b = _mm512_add_ps (c##i##b, bv);                                  \
            }                                                                         \
          if (e->z)                                                                   \
            {                                                                         \
              c##i##a = _mm512_add_ps (c##i##a, _mm512_loadu_ps (e->z + i * ldc));    \
              c##i##b = _mm512_add_ps (c##i##b, _mm512_loadu_ps (e->z + i * ldc + 16)); \
            }                                                                         \
          if (e->act == RT_ACT_RELU)                                                  \
            {                                                                         \
              c##i##a = _mm512_max_ps (c##i##a, _mm512_setzero_ps ());                \
              c##i##b = _mm512_max_ps (c##i##b, _mm512_setzero_ps ());                \
            }                                                                         \
          else if (e->act == RT_ACT_CLIP)                                             \
            {                                                                         \
              c##i##a = _mm512_min_ps (hi16, _mm512_max_ps (lo16, c##i##a));          \
              c##i##b = _mm512_min_ps (hi16, _mm512_max_ps (lo16, c##i##b));          \
            }                                                                         \
        }                                                                             \
      _mm512_storeu_ps (c + i * ldc, c##i##a);                                        \
      _mm512_storeu_ps (c + i * ldc + 16, c##i##b);
      STORE (0) STORE (1) STORE (2) STORE (3) STORE (4) STORE (5) STORE (6) STORE (7)
#undef STORE
      return;
    }
  float t[MAX_MR][MAX_NR];
  __m512 regs[MR][2] = { { c0a, c0b }, { c1a, c1b }, { c2a, c2b }, { c3a, c3b },
                         { c4a, c4b }, { c5a, c5b }, { c6a, c6b }, { c7a, c7b } };
  for (int i = 0; i < MR; i++)
    {
      _mm512_storeu_ps (t[i], regs[i][0]);
      _mm512_storeu_ps (t[i] + 16, regs[i][1]);
    }
  store_edge (t, c, ldc, acc, mr, nr, e);
}
#undef MR
#undef NR

/* One row times a B panel (rt_packed_gemv_b): the even and the odd k in
 * separate accumulators (four FMA chains), added at the end. */
#define GEN_GEMV(NAME, TARGET, VEC, W, LOAD, STORE, FMA, SET1, ADD, ZERO)                   \
  __attribute__ ((target (TARGET))) static void                                             \
  NAME (gint64 K, const float *x, const float *b, float *y, gint64 nc)                      \
  {                                                                                          \
    VEC e0 = ZERO (), e1 = ZERO (), o0 = ZERO (), o1 = ZERO ();                              \
    gint64 k = 0;                                                                            \
    for (; k + 2 <= K; k += 2, b += 4 * W)                                                   \
      {                                                                                      \
        VEC xe = SET1 (x[k]), xo = SET1 (x[k + 1]);                                          \
        e0 = FMA (xe, LOAD (b), e0);                                                         \
        e1 = FMA (xe, LOAD (b + W), e1);                                                     \
        o0 = FMA (xo, LOAD (b + 2 * W), o0);                                                 \
        o1 = FMA (xo, LOAD (b + 3 * W), o1);                                                 \
      }                                                                                      \
    if (k < K)                                                                               \
      {                                                                                      \
        VEC xe = SET1 (x[k]);                                                                \
        e0 = FMA (xe, LOAD (b), e0);                                                         \
        e1 = FMA (xe, LOAD (b + W), e1);                                                     \
      }                                                                                      \
    e0 = ADD (e0, o0);                                                                       \
    e1 = ADD (e1, o1);                                                                       \
    if (nc == 2 * W)                                                                         \
      {                                                                                      \
        STORE (y, e0);                                                                       \
        STORE (y + W, e1);                                                                   \
        return;                                                                              \
      }                                                                                      \
    float t[2 * W];                                                                          \
    STORE (t, e0);                                                                           \
    STORE (t + W, e1);                                                                       \
    memcpy (y, t, (gsize) nc * sizeof (float));                                              \
  }
GEN_GEMV (gemv_16, "avx2,fma", __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_fmadd_ps,
          _mm256_set1_ps, _mm256_add_ps, _mm256_setzero_ps)
GEN_GEMV (gemv_32, "avx512f", __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_fmadd_ps,
          _mm512_set1_ps, _mm512_add_ps, _mm512_setzero_ps)

/* The kernel for this CPU, its tile and its one-row product; NULL when none. */
static KernelFn
pick_kernel (gint64 *mr, gint64 *nr, GemvFn *gemv)
{
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512f") && !getenv ("SYMONNX_PACKED_CONV_AVX2"))
    {
      *mr = 8, *nr = 32, *gemv = gemv_32;
      return kernel_8x32;
    }
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    {
      *mr = 6, *nr = 16, *gemv = gemv_16;
      return kernel_6x16;
    }
  return NULL;
}

/* A full panel of 8 rows of a (row stride lda) into d (d[k * 8 + i] =
 * a[i * lda + k]): 8 x 8 blocks transposed in registers, the last k one by
 * one.  (Only the AVX-512 kernel's panels are 8 rows: AVX is there.) */
__attribute__ ((target ("avx"))) static void
pack_panel8 (const float *a, gint64 lda, gint64 K, float *d)
{
  gint64 k = 0;
  for (; k + 8 <= K; k += 8)
    {
      __m256 r[8];
      rt_load_transposed8 (a + k, lda, r);
      for (int i = 0; i < 8; i++)
        _mm256_storeu_ps (d + (k + i) * 8, r[i]);
    }
  for (; k < K; k++)
    for (gint64 i = 0; i < 8; i++)
      d[k * 8 + i] = a[i * lda + k];
}
#else
#define HAVE_KERNEL 0
static KernelFn
pick_kernel (gint64 *mr, gint64 *nr, GemvFn *gemv)
{
  (void) mr, (void) nr, (void) gemv;
  return NULL;
}
#endif

/* p's panels from the matrices (per group) whose element (m, k) is
 * src[(g * Mg + m) * sm + k * sk] (sm: Mg rows further per group). */
static RtPackedW *
pack_a (const float *src, gint64 group, gint64 Mg, gint64 K, gint64 sm, gint64 sk)
{
  gint64 mr = 0, nr = 0;
  GemvFn gemv = NULL;
  KernelFn kernel = pick_kernel (&mr, &nr, &gemv);
  if (kernel == NULL || getenv ("SYMONNX_NO_PACKED_CONV"))
    return NULL;
  RtPackedW *p = g_new0 (RtPackedW, 1);
  p->src = src;
  p->gemv = gemv;
  p->M = group * Mg;
  p->group = group;
  p->Mg = Mg;
  p->K = K;
  p->mr = mr;
  p->nr = nr;
  p->kc = 4096 / nr;
  p->kernel = kernel;
  p->panels = (p->Mg + mr - 1) / mr;
  gsize n = (gsize) (group * p->panels * p->K * mr);
  if (posix_memalign ((void **) &p->a, 64, n * sizeof (float)) != 0)
    {
      g_free (p);
      return NULL;
    }
  for (gint64 g = 0; g < group; g++)
    for (gint64 pn = 0; pn < p->panels; pn++)
      {
        float *d = p->a + (g * p->panels + pn) * p->K * mr;
        for (gint64 k = 0; k < p->K; k++)
          for (gint64 i = 0; i < mr; i++)
            {
              gint64 m = pn * mr + i;
              d[k * mr + i] = m < p->Mg ? src[(g * p->Mg + m) * sm + k * sk] : 0.0f;
            }
      }
  return p;
}

RtPackedW *
rt_conv_pack_weights (const Tensor *w, gint64 group)
{
  if (tensor_dtype (w) != GRAPH_DTYPE_FLOAT || tensor_rank (w) != 4 || !tensor_has_data (w)
      || group <= 0 || tensor_dim (w, 0) % group != 0 || tensor_numel (w) == 0
      || (group > 1 && tensor_dim (w, 0) == group && tensor_dim (w, 1) == 1))
    return NULL;   /* (depthwise: conv-depthwise.c's loop) */
  gint64 K = tensor_dim (w, 1) * tensor_dim (w, 2) * tensor_dim (w, 3);
  RtPackedW *p = pack_a (tensor_data (w), group, tensor_dim (w, 0) / group, K, K, 1);
  if (p)
    {
      p->pixel_rows_ok = group == 1 && !getenv ("SYMONNX_NO_PIXEL_ROWS");
      p->subsample_ok = !getenv ("SYMONNX_NO_CONV_SUBSAMPLE");
    }
  return p;
}

gboolean
rt_conv_packed_subsample_ok (const RtPackedW *p)
{
  return p && p->subsample_ok;
}

/* A packed B's panels, not filled yet. */
static RtPackedW *
packed_b_alloc (const float *b, gint64 K, gint64 N)
{
  gint64 mr = 0, nr = 0;
  GemvFn gemv = NULL;
  KernelFn kernel = pick_kernel (&mr, &nr, &gemv);
  if (kernel == NULL || getenv ("SYMONNX_NO_PACKED_CONV") || K <= 0 || N <= 0)
    return NULL;
  RtPackedW *p = g_new0 (RtPackedW, 1);
  p->src = b;
  p->gemv = gemv;
  p->M = N;          /* B's columns */
  p->group = 0;      /* marks a packed B */
  p->K = K;
  p->mr = mr;
  p->nr = nr;
  p->kc = 4096 / nr;
  p->kernel = kernel;
  p->panels = (N + nr - 1) / nr;
  if (posix_memalign ((void **) &p->a, 64, (gsize) (p->panels * K * nr) * sizeof (float)) != 0)
    {
      g_free (p);
      return NULL;
    }
  return p;
}

RtPackedW *
rt_packed_b_new_empty (gint64 K, gint64 N)
{
  return packed_b_alloc (NULL, K, N);
}

void
rt_packed_b_repack (RtPackedW *p, const float *b, gint64 ldb)
{
  p->src = b;
  rt_conv_pack_b_rows (p, b, ldb, p->M, p->a);
}

RtPackedW *
rt_packed_b_new (const float *b, gint64 K, gint64 N)
{
  RtPackedW *p = packed_b_alloc (b, K, N);
  if (p)
    rt_conv_pack_b_rows (p, b, N, N, p->a);
  return p;
}

RtPackedW *
rt_packed_b_new_t (const float *bt, gint64 K, gint64 N)
{
  RtPackedW *p = packed_b_alloc (bt, K, N);
  if (p == NULL)
    return NULL;
  gint64 nr = p->nr;
  for (gint64 jp = 0; jp < p->panels; jp++)
    for (gint64 k = 0; k < K; k++)
      for (gint64 j = 0; j < nr; j++)
        {
          gint64 n = jp * nr + j;
          p->a[(jp * K + k) * nr + j] = n < N ? bt[n * K + k] : 0.0f;
        }
  return p;
}

void
rt_packed_gemv_b (const RtPackedW *p, const float *x, float *y, gint64 jp0, gint64 jp1)
{
  for (gint64 jp = jp0; jp < jp1; jp++)
    p->gemv (p->K, x, p->a + jp * p->K * p->nr, y + (jp - jp0) * p->nr,
             MIN (p->nr, p->M - jp * p->nr));
}

gboolean
rt_packed_b_is (const RtPackedW *p, const void *src, gint64 K, gint64 N)
{
  return p && p->group == 0 && p->src == src && p->K == K && p->M == N;
}

gint64
rt_packed_a_floats (const RtPackedW *p, gint64 m)
{
  return (m + p->mr - 1) / p->mr * p->mr * p->K;
}

gint64
rt_packed_mr (const RtPackedW *p)
{
  return p->mr;
}

gint64
rt_packed_nr (const RtPackedW *p)
{
  return p->nr;
}

gint64
rt_packed_b_panels (const RtPackedW *p)
{
  return p->panels;
}

gint64
rt_packed_b_n (const RtPackedW *p)
{
  return p->M;
}

void
rt_packed_pack_a (const RtPackedW *p, const float *a, gint64 lda, gint64 m, float *ap)
{
  gint64 K = p->K, mr = p->mr;
  for (gint64 pn = 0; pn < (m + mr - 1) / mr; pn++)
    {
      float *d = ap + pn * K * mr;
#if HAVE_KERNEL
      if (mr == 8 && pn * mr + mr <= m)
        {
          pack_panel8 (a + pn * mr * lda, lda, K, d);
          continue;
        }
#endif
      for (gint64 i = 0; i < mr; i++)
        {
          gint64 r = pn * mr + i;
          if (r < m)
            for (gint64 k = 0; k < K; k++)
              d[k * mr + i] = a[r * lda + k];
          else
            for (gint64 k = 0; k < K; k++)
              d[k * mr + i] = 0.0f;
        }
    }
}

void
rt_packed_pack_a_t (const RtPackedW *p, const float *at, gint64 ld, gint64 m, float *ap)
{
  gint64 K = p->K, mr = p->mr;
  for (gint64 pn = 0; pn < (m + mr - 1) / mr; pn++)
    {
      float *d = ap + pn * K * mr;
      gint64 r0 = pn * mr, rows = MIN (mr, m - r0);
      /* Constant sizes for the full panels of the two kernels: one vector move a k. */
      if (rows == 8 && mr == 8)
        for (gint64 k = 0; k < K; k++)
          memcpy (d + k * 8, at + k * ld + r0, 8 * sizeof (float));
      else if (rows == 6 && mr == 6)
        for (gint64 k = 0; k < K; k++)
          memcpy (d + k * 6, at + k * ld + r0, 6 * sizeof (float));
      else
        for (gint64 k = 0; k < K; k++)
          {
            memcpy (d + k * mr, at + k * ld + r0, (gsize) rows * sizeof (float));
            if (rows < mr)
              memset (d + k * mr + rows, 0, (gsize) (mr - rows) * sizeof (float));
          }
    }
}

gint64
rt_packed_b_block (const RtPackedW *p, gint64 m)
{
  return MAX (1, 16384 / MAX (m * p->nr, 1));
}

void
rt_packed_gemm_b (const RtPackedW *p, const float *ap, gint64 m, float *c, gint64 ldc,
                  gint64 jp0, gint64 jp1)
{
  gint64 K = p->K, mr = p->mr, nr = p->nr, N = p->M, mp = (m + mr - 1) / mr;
  gint64 slices = (K + p->kc - 1) / p->kc, step = (K + slices - 1) / slices;
  /* Panel by panel, its K slices in turn: the part of C a panel makes (m
   * rows of nr) stays in cache from one slice to the next (over all of a
   * wide C, the LSTM's 35 x 33278 decoder output, 4.6 MB, each slice
   * would read and write it in memory again), and B is read in the order
   * it is stored.  The slices, and so each sum, are the same as by
   * slices over all panels. */
  const float *bend = p->a + jp1 * K * nr;
  for (gint64 jp = jp0; jp < jp1; jp++)
    for (gint64 pc = 0; pc < K; pc += step)
      {
        gint64 kc = MIN (step, K - pc);
        const float *b = p->a + jp * K * nr + pc * nr;
        gint64 nc = MIN (nr, N - jp * nr);
        /* The next slice of B (next in memory), a share of its lines with
         * each of this slice's kernel calls: B (a Linear layer's weights,
         * megabytes) comes from memory, and its first calls waited for it
         * (BERT -4.4%, GPT -2.5% at 1 thread, on a Zen 5 VM where the
         * hardware's prefetch had done as well on the LSTM's decoder
         * elsewhere; the Conv orientation's A panels, prefetched the
         * same way, gained nothing). */
        const char *next = (const char *) (b + kc * nr);
        gint64 lines = kc * nr * (gint64) sizeof (float) / 64, per = (lines + mp - 1) / mp;
        for (gint64 mb = 0; mb < mp; mb++)
          {
            for (gint64 l = mb * per; l < MIN (lines, (mb + 1) * per); l++)
              if ((const float *) (next + l * 64) < bend)
                __builtin_prefetch (next + l * 64, 0, 3);
            p->kernel (kc, ap + (mb * K + pc) * mr, b, nr, c + mb * mr * ldc + jp * nr, ldc, pc > 0,
                       MIN (mr, m - mb * mr), nc, NULL);
          }
      }
}

void
rt_conv_packed_free (RtPackedW *p)
{
  if (p == NULL)
    return;
  free (p->a);
  free (p->taps);
  rt_winograd_free (p->wino);
  rt_conv_packed_free (p->bt);
  g_free (p);
}

RtPackedW *
rt_conv_packed_for_winograd (RtWinograd *wg)
{
  RtPackedW *p = g_new0 (RtPackedW, 1);
  p->group = -1;   /* neither a packed W nor a packed B */
  p->wino = wg;
  return p;
}

const RtWinograd *
rt_conv_packed_winograd (const RtPackedW *p)
{
  return p ? p->wino : NULL;
}

void
rt_conv_packed_adopt_pixel_rows (RtPackedW *p)
{
  if (p == NULL || !p->pixel_rows_ok || p->bt || p->a == NULL)
    return;
  /* W is M x K row-major, which is Wᵀ's transpose: B := Wᵀ. */
  RtPackedW *bt = rt_packed_b_new_t (p->src, p->K, p->M);
  if (bt == NULL)
    return;
  p->bt = bt;
  free (p->a);
  p->a = NULL;   /* rt_conv_packed_usable is FALSE from now on */
}

/* W as taps[k * mpad + m], or NULL. */
static float *
make_taps (const Tensor *w, gint64 *mpad)
{
  if (tensor_dtype (w) != GRAPH_DTYPE_FLOAT || tensor_rank (w) != 4 || !tensor_has_data (w)
      || tensor_numel (w) == 0)
    return NULL;
  gint64 M = tensor_dim (w, 0), K = tensor_dim (w, 1) * tensor_dim (w, 2) * tensor_dim (w, 3);
  *mpad = (M + 15) / 16 * 16;
  float *taps;
  if (posix_memalign ((void **) &taps, 64, (gsize) (K * *mpad) * sizeof (float)) != 0)
    return NULL;
  const float *src = tensor_data (w);
  for (gint64 k = 0; k < K; k++)
    for (gint64 m = 0; m < *mpad; m++)
      taps[k * *mpad + m] = m < M ? src[m * K + k] : 0.0f;
  return taps;
}

RtPackedW *
rt_conv_packed_for_taps (const Tensor *w, gboolean narrow)
{
  gint64 mpad;
  float *taps = make_taps (w, &mpad);
  if (taps == NULL)
    return NULL;
  RtPackedW *p = g_new0 (RtPackedW, 1);
  p->group = -1;   /* neither a packed W nor a packed B */
  p->src = tensor_data (w);
  p->M = tensor_dim (w, 0);
  p->K = tensor_dim (w, 1) * tensor_dim (w, 2) * tensor_dim (w, 3);
  p->taps = taps;
  p->mpad = mpad;
  p->narrow = narrow;
  return p;
}

RtPackedW *
rt_conv_packed_with_taps (const Tensor *w)
{
  RtPackedW *p = rt_conv_pack_weights (w, 1);
  if (p != NULL && p->group == 1)
    p->taps = make_taps (w, &p->mpad);   /* (NULL: the packed W alone) */
  return p;
}

/* Whether a Conv state p was made from wt's very data (a caller may bind
 * other weights to the initializer's name), M x K float. */
static gboolean
made_from (const RtPackedW *p, const RtTensor *wt)
{
  return p && wt->data == p->src && wt->dtype == GRAPH_DTYPE_FLOAT && wt->rank == 4
         && wt->dims[0] == p->M && wt->dims[1] * wt->dims[2] * wt->dims[3] == p->K;
}

const float *
rt_conv_packed_taps (const RtPackedW *p, const RtTensor *wt, gint64 *mpad, gboolean *narrow)
{
  if (!made_from (p, wt) || p->taps == NULL)
    return NULL;
  *mpad = p->mpad;
  *narrow = p->narrow;
  return p->taps;
}

gboolean
rt_conv_packed_has_direct_taps (const RtPackedW *p)
{
  return p && p->taps && !p->narrow && p->a == NULL;
}

const RtPackedW *
rt_conv_packed_pixel_rows (const RtPackedW *p, const RtTensor *wt)
{
  return made_from (p, wt) ? p->bt : NULL;
}

gboolean
rt_conv_packed_usable (const RtPackedW *p, const RtTensor *wt, gint64 group)
{
  return made_from (p, wt) && p->a && group == p->group;
}

gint64
rt_conv_packed_b_floats (const RtPackedW *p, gint64 n)
{
  return p->K * ((n + p->nr - 1) / p->nr) * p->nr;
}

/* Row k of B (n values) into the panels of nr columns. */
static inline void
scatter_row (const float *row, gint64 n, gint64 k, gint64 K, gint64 nr, float *bp)
{
  gint64 j = 0;
  /* Constant sizes, so the copies are inlined as vector moves. */
  if (nr == 32)
    for (; j + 32 <= n; j += 32)
      memcpy (bp + (j / 32) * K * 32 + k * 32, row + j, 32 * sizeof (float));
  else if (nr == 16)
    for (; j + 16 <= n; j += 16)
      memcpy (bp + (j / 16) * K * 16 + k * 16, row + j, 16 * sizeof (float));
  for (; j + nr <= n; j += nr)
    memcpy (bp + (j / nr) * K * nr + k * nr, row + j, (gsize) nr * sizeof (float));
  if (j < n)
    {
      float *d = bp + (j / nr) * K * nr + k * nr;
      memcpy (d, row + j, (gsize) (n - j) * sizeof (float));
      memset (d + (n - j), 0, (gsize) (nr - (n - j)) * sizeof (float));
    }
}

void
rt_conv_pack_b_rows (const RtPackedW *p, const float *src, gint64 ld, gint64 n, float *bp)
{
  for (gint64 k = 0; k < p->K; k++)
    scatter_row (src + k * ld, n, k, p->K, p->nr, bp);
}

/* d[ow] := s[ow S] for ow in [lo, hi), s[0 .. avail) inside the row.  On
 * AVX-512 CPUs stride 2 goes 16 a vector, the even lanes of two loads
 * (ResNet-50's stride-2 Convs: the element-by-element copy was a third of
 * the 128 -> 128 3x3's time). */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__ ((target ("avx512f"))) static gint64
gather_even_avx512 (float *d, const float *s, gint64 lo, gint64 hi, gint64 avail)
{
  const __m512i even = _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  gint64 ow = lo;
  for (; ow + 16 <= hi && 2 * ow + 32 <= avail; ow += 16)
    _mm512_storeu_ps (d + ow, _mm512_permutex2var_ps (_mm512_loadu_ps (s + 2 * ow), even,
                                                      _mm512_loadu_ps (s + 2 * ow + 16)));
  return ow;
}
#endif

void
rt_gather_strided (float *d, const float *s, gint64 lo, gint64 hi, gint64 S, gint64 avail)
{
  gint64 ow = lo;
#if defined(__x86_64__) && defined(__GNUC__)
  if (S == 2 && __builtin_cpu_supports ("avx512f"))
    ow = gather_even_avx512 (d, s, lo, hi, avail);
#else
  (void) avail;
#endif
  for (; ow < hi; ow++)
    d[ow] = s[ow * S];
}

void
rt_conv_pack_b_im2col (const RtPackedW *p, const float *x, gint64 C, const RtWindow *w,
                       gint64 oh0, gint64 oh1, float *bp, float *row)
{
  gint64 H = w->in[1], W = w->in[2], OW = w->out[2], S = w->stride[2];
  gint64 K = C * w->k[1] * w->k[2], n = (oh1 - oh0) * OW;
  gint64 k = 0;
  for (gint64 c = 0; c < C; c++)
    for (gint64 kh = 0; kh < w->k[1]; kh++)
      for (gint64 kw = 0; kw < w->k[2]; kw++, k++)
        {
          gint64 iw0 = -w->pad0[2] + kw * w->dil[2];
          /* ow in [lo, hi) reads inside the row; the rest is padding. */
          gint64 lo = iw0 >= 0 ? 0 : (-iw0 + S - 1) / S;
          gint64 hi = iw0 > W - 1 ? 0 : (W - 1 - iw0) / S + 1;
          hi = MIN (hi, OW);
          lo = MIN (lo, hi);
          for (gint64 oh = oh0; oh < oh1; oh++)
            {
              float *d = row + (oh - oh0) * OW;
              gint64 ih = oh * w->stride[1] - w->pad0[1] + kh * w->dil[1];
              if (ih < 0 || ih >= H)
                {
                  memset (d, 0, (gsize) OW * sizeof (float));
                  continue;
                }
              const float *s = x + (c * H + ih) * W + iw0;
              if (lo > 0)
                memset (d, 0, (gsize) lo * sizeof (float));
              if (S == 1 && hi > lo)
                memcpy (d + lo, s + lo, (gsize) (hi - lo) * sizeof (float));
              else
                rt_gather_strided (d, s, lo, hi, S, W - iw0);
              if (hi < OW)
                memset (d + hi, 0, (gsize) (OW - hi) * sizeof (float));
            }
          scatter_row (row, n, k, K, p->nr, bp);
        }
}

void
rt_conv_packed_gemm (const RtPackedW *p, gint64 g, const float *bp, gint64 n, float *c,
                     gint64 ldc, const float *bias, const float *z, const RtEpilogue *ep)
{
  rt_conv_packed_gemm_panels (p, g, bp, n, c, ldc, bias, z, ep, 0, p->panels);
}

gint64
rt_conv_packed_panels (const RtPackedW *p)
{
  return p->panels;
}

/* gemm_panels' B: packed panels (x NULL), or X's rows themselves (row
 * stride ldx) for the whole panels and `tail` (packed) for a last partial
 * one. */
typedef struct
{
  const float *bp, *x, *tail;
  gint64       ldx;
} BView;

static void
gemm_panels (const RtPackedW *p, gint64 g, const BView *bv, gint64 n, float *c, gint64 ldc,
             const float *bias, const float *z, const RtEpilogue *ep, gint64 mb0, gint64 mb1)
{
  gint64 K = p->K, mr = p->mr, nr = p->nr, np = (n + nr - 1) / nr;
  const float *ag = p->a + g * p->panels * K * mr;
  gboolean act = rt_epilogue_active (ep);
  /* Slices of even length (K = 147: 74 + 73, not 128 + 19). */
  gint64 slices = (K + p->kc - 1) / p->kc, step = (K + slices - 1) / slices;
  for (gint64 pc = 0; pc < K; pc += step)
    {
      gint64 kc = MIN (step, K - pc);
      gboolean last = pc + kc >= K;
      for (gint64 jp = 0; jp < np; jp++)
        {
          gint64 nc = MIN (nr, n - jp * nr), ldb = nr;
          const float *b;
          if (bv->x == NULL)
            b = bv->bp + jp * K * nr + pc * nr;
          else if (nc == nr)
            b = bv->x + pc * bv->ldx + jp * nr, ldb = bv->ldx;
          else
            b = bv->tail + pc * nr;
          /* x's rows: the next panel's slice (kc rows of nr columns, each
           * row its own stream), a share of its rows with each kernel call */
          const float *nb = bv->x && (jp + 2) * nr <= n ? b + nr : NULL;
          gint64 per = (kc + (mb1 - mb0) - 1) / MAX (mb1 - mb0, 1);
          /* The sum's (a residual's) tile in the next panel, with each
           * kernel call its own rows: the residual was made several Convs ago
           * and comes from memory, which the kernel's last slice otherwise
           * waited for (ResNet-50's 64->256 1x1s at 56x56 -16%, 128->512 at
           * 28x28 -3%, MobileNetV2's residual projections -3 to -4%). */
          const float *nz = last && act && ep->sum && (jp + 1) * nr < n ? z + (jp + 1) * nr : NULL;
          gint64 nl = MIN (nr, n - (jp + 1) * nr) - 1;
          for (gint64 mb = mb0; mb < mb1; mb++)
            {
              for (gint64 i = 0; nz && i < MIN (mr, p->Mg - mb * mr); i++)
                {
                  const float *q = nz + (mb * mr + i) * ldc;
                  __builtin_prefetch (q, 0, 3);
                  __builtin_prefetch (q + nl, 0, 3);
                  if (nl > 16)
                    __builtin_prefetch (q + 16, 0, 3);
                }
              for (gint64 r = (mb - mb0) * per; nb && r < MIN (kc, (mb - mb0 + 1) * per); r++)
                {
                  __builtin_prefetch (nb + r * ldb, 0, 3);
                  __builtin_prefetch (nb + r * ldb + 16, 0, 3);
                }
              gint64 off = mb * mr * ldc + jp * nr;
              TileEp e = { bias ? bias + mb * mr : NULL, act && ep->sum ? z + off : NULL,
                           act ? ep->act : RT_ACT_NONE, act ? (float) ep->lo : 0,
                           act ? (float) ep->hi : 0 };
              p->kernel (kc, ag + (mb * K + pc) * mr, b, ldb, c + off, ldc, pc > 0,
                         MIN (mr, p->Mg - mb * mr), nc,
                         last && (e.bias || e.z || e.act != RT_ACT_NONE) ? &e : NULL);
            }
        }
    }
}

void
rt_conv_packed_gemm_panels (const RtPackedW *p, gint64 g, const float *bp, gint64 n, float *c,
                            gint64 ldc, const float *bias, const float *z, const RtEpilogue *ep,
                            gint64 mb0, gint64 mb1)
{
  BView bv = { bp, NULL, NULL, 0 };
  gemm_panels (p, g, &bv, n, c, ldc, bias, z, ep, mb0, mb1);
}

void
rt_conv_packed_rows_tail (const RtPackedW *p, const float *x, gint64 ldx, gint64 n, float *tail)
{
  gint64 nr = p->nr, full = n / nr * nr;
  if (full < n)
    for (gint64 k = 0; k < p->K; k++)
      scatter_row (x + k * ldx + full, n - full, k, p->K, nr, tail);
}

void
rt_conv_packed_gemm_rows_panels (const RtPackedW *p, gint64 g, const float *x, gint64 ldx,
                                 gint64 n, const float *tail, float *c, gint64 ldc,
                                 const float *bias, const float *z, const RtEpilogue *ep,
                                 gint64 mb0, gint64 mb1)
{
  BView bv = { NULL, x, tail, ldx };
  gemm_panels (p, g, &bv, n, c, ldc, bias, z, ep, mb0, mb1);
}

void
rt_conv_packed_gemm_rows (const RtPackedW *p, gint64 g, const float *x, gint64 ldx, gint64 n,
                          float *tail, float *c, gint64 ldc, const float *bias, const float *z,
                          const RtEpilogue *ep)
{
  rt_conv_packed_rows_tail (p, x, ldx, n, tail);
  rt_conv_packed_gemm_rows_panels (p, g, x, ldx, n, tail, c, ldc, bias, z, ep, 0, p->panels);
}
