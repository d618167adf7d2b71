/* erf of many floats at once, for the Erf node and the fused Gelu
 * (fused-transformer.c): libm's double erf element by element took 10% of
 * a 4-layer BERT's time (issue 16).  In double: for |x| < 0.5, x P (x²);
 * on 8 intervals of [0.5, 4), a polynomial in |x| - the interval's middle
 * (its coefficients for the 8 intervals are one 8-lane table per degree,
 * each lane picking its own with a permute), with x's sign; past 4, ±1;
 * NaN stays NaN.  The polynomials come from tools/gen_erf_coeffs.py
 * (runtime/verf-coeffs-generated.h).  AVX-512F: 16 floats a step, the
 * tables permuted per lane; AVX2 + FMA: 8, the tables permuted by halves;
 * the scalar code elsewhere and for the last few: the same operations, so
 * the same bits everywhere. */
#include "runtime/verf.h"
#include "runtime/verf-coeffs-generated.h"
#include <math.h>
#include <stdlib.h>

G_STATIC_ASSERT (VERF_INTERVALS == 8);   /* one 8-lane table per degree */
#define VERF_INV_WIDTH (1.0 / VERF_WIDTH)

/* The interval of |x| = a (SMALL <= a < BIG), as the vector code finds it. */
static inline int
interval (double a)
{
  int i = (int) ((a - VERF_SMALL) * VERF_INV_WIDTH);
  return CLAMP (i, 0, VERF_INTERVALS - 1);
}

static inline float
erf1 (float xf)
{
  double x = xf, a = fabs (x);
  if (isnan (x))
    return xf;
  if (a >= VERF_BIG)
    return x > 0 ? 1.0f : -1.0f;
  if (a < VERF_SMALL)
    {
      double u = x * x, p = verf_small[VERF_SMALL_DEG];
      for (int k = VERF_SMALL_DEG - 1; k >= 0; k--)
        p = fma (p, u, verf_small[k]);
      return (float) (x * p);
    }
  int i = interval (a);
  double t = a - verf_centre[i], p = verf_coef[VERF_DEG][i];
  for (int k = VERF_DEG - 1; k >= 0; k--)
    p = fma (p, t, verf_coef[k][i]);
  return (float) (x < 0 ? -p : p);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* erf1 on 8 lanes. */
__attribute__ ((target ("avx512f"), always_inline)) static inline __m512d
erf8 (__m512d x)
{
  const __m512i sign = _mm512_set1_epi64 ((long long) 0x8000000000000000ULL);
  __m512d a = _mm512_castsi512_pd (_mm512_andnot_si512 (sign, _mm512_castpd_si512 (x)));
  __mmask8 small = _mm512_cmp_pd_mask (a, _mm512_set1_pd (VERF_SMALL), _CMP_LT_OQ);
  __mmask8 big = _mm512_cmp_pd_mask (a, _mm512_set1_pd (VERF_BIG), _CMP_GE_OQ);
  __mmask8 nan = _mm512_cmp_pd_mask (x, x, _CMP_UNORD_Q);
  /* small: x P (x²) */
  __m512d u = _mm512_mul_pd (x, x), p = _mm512_set1_pd (verf_small[VERF_SMALL_DEG]);
  for (int k = VERF_SMALL_DEG - 1; k >= 0; k--)
    p = _mm512_fmadd_pd (p, u, _mm512_set1_pd (verf_small[k]));
  __m512d rs = _mm512_mul_pd (x, p);
  /* the intervals: truncation, then clamped, as interval() */
  __m256i i32 = _mm512_cvttpd_epi32 (_mm512_mul_pd (_mm512_sub_pd (a, _mm512_set1_pd (VERF_SMALL)),
                                                     _mm512_set1_pd (VERF_INV_WIDTH)));
  i32 = _mm256_min_epi32 (_mm256_max_epi32 (i32, _mm256_setzero_si256 ()),
                          _mm256_set1_epi32 (VERF_INTERVALS - 1));
  __m512i idx = _mm512_cvtepi32_epi64 (i32);
  __m512d t = _mm512_sub_pd (a, _mm512_permutexvar_pd (idx, _mm512_loadu_pd (verf_centre)));
  __m512d q = _mm512_permutexvar_pd (idx, _mm512_loadu_pd (verf_coef[VERF_DEG]));
  for (int k = VERF_DEG - 1; k >= 0; k--)
    q = _mm512_fmadd_pd (q, t, _mm512_permutexvar_pd (idx, _mm512_loadu_pd (verf_coef[k])));
  /* x < 0 ? -q : q, q being >= 0; and ±1 past BIG */
  __m512i xs = _mm512_and_si512 (_mm512_castpd_si512 (x), sign);
  __m512d rm = _mm512_castsi512_pd (_mm512_or_si512 (_mm512_castpd_si512 (q), xs));
  __m512d one = _mm512_castsi512_pd (_mm512_or_si512 (_mm512_castpd_si512 (_mm512_set1_pd (1.0)), xs));
  __m512d r = _mm512_mask_blend_pd (small, rm, rs);
  r = _mm512_mask_blend_pd (big, r, one);
  return _mm512_mask_blend_pd (nan, r, x);
}

__attribute__ ((target ("avx512f"))) static gint64
verf16 (const float *x, float *y, gint64 n)
{
  gint64 i = 0;
  for (; i + 16 <= n; i += 16)
    {
      __m256 lo = _mm256_loadu_ps (x + i), hi = _mm256_loadu_ps (x + i + 8);
      __m256 rlo = _mm512_cvtpd_ps (erf8 (_mm512_cvtps_pd (lo)));
      __m256 rhi = _mm512_cvtpd_ps (erf8 (_mm512_cvtps_pd (hi)));
      _mm256_storeu_ps (y + i, rlo);
      _mm256_storeu_ps (y + i + 8, rhi);
    }
  return i;
}

/* Lane l of the result := table[i_l] (8 doubles, i_l in 0..7): each half
 * of the table permuted as 8 floats (double i is floats 2i, 2i + 1), then
 * the half picked by i's bit 2 (faster than a gather). */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline __m256d
lookup8 (const double *table, __m256i pairs, __m256d upper)
{
  __m256 lo = _mm256_permutevar8x32_ps (_mm256_castpd_ps (_mm256_loadu_pd (table)), pairs);
  __m256 hi = _mm256_permutevar8x32_ps (_mm256_castpd_ps (_mm256_loadu_pd (table + 4)), pairs);
  return _mm256_blendv_pd (_mm256_castps_pd (lo), _mm256_castps_pd (hi), upper);
}

/* erf1 on 4 lanes (AVX2 + FMA). */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline __m256d
erf4 (__m256d x)
{
  const __m256d sign = _mm256_set1_pd (-0.0);
  __m256d a = _mm256_andnot_pd (sign, x);
  __m256d small = _mm256_cmp_pd (a, _mm256_set1_pd (VERF_SMALL), _CMP_LT_OQ);
  __m256d big = _mm256_cmp_pd (a, _mm256_set1_pd (VERF_BIG), _CMP_GE_OQ);
  __m256d nan = _mm256_cmp_pd (x, x, _CMP_UNORD_Q);
  __m256d u = _mm256_mul_pd (x, x), p = _mm256_set1_pd (verf_small[VERF_SMALL_DEG]);
  for (int k = VERF_SMALL_DEG - 1; k >= 0; k--)
    p = _mm256_fmadd_pd (p, u, _mm256_set1_pd (verf_small[k]));
  __m256d rs = _mm256_mul_pd (x, p);
  __m128i i32 = _mm256_cvttpd_epi32 (_mm256_mul_pd (_mm256_sub_pd (a, _mm256_set1_pd (VERF_SMALL)),
                                                     _mm256_set1_pd (VERF_INV_WIDTH)));
  i32 = _mm_min_epi32 (_mm_max_epi32 (i32, _mm_setzero_si128 ()), _mm_set1_epi32 (VERF_INTERVALS - 1));
  /* per double lane: the float pair (2 (i & 3), 2 (i & 3) + 1), and i >= 4 */
  __m256i i64 = _mm256_cvtepi32_epi64 (i32);
  __m256i low = _mm256_slli_epi64 (_mm256_and_si256 (i64, _mm256_set1_epi64x (3)), 1);
  __m256i pairs = _mm256_or_si256 (low, _mm256_slli_epi64 (_mm256_add_epi64 (low, _mm256_set1_epi64x (1)), 32));
  __m256d upper = _mm256_castsi256_pd (_mm256_slli_epi64 (i64, 61));   /* bit 2 -> the sign bit */
  __m256d t = _mm256_sub_pd (a, lookup8 (verf_centre, pairs, upper));
  __m256d q = lookup8 (verf_coef[VERF_DEG], pairs, upper);
  for (int k = VERF_DEG - 1; k >= 0; k--)
    q = _mm256_fmadd_pd (q, t, lookup8 (verf_coef[k], pairs, upper));
  __m256d xs = _mm256_and_pd (x, sign);
  __m256d r = _mm256_blendv_pd (_mm256_or_pd (q, xs), rs, small);
  r = _mm256_blendv_pd (r, _mm256_or_pd (_mm256_set1_pd (1.0), xs), big);
  return _mm256_blendv_pd (r, x, nan);
}

__attribute__ ((target ("avx2,fma"))) static gint64
verf8 (const float *x, float *y, gint64 n)
{
  gint64 i = 0;
  for (; i + 8 <= n; i += 8)
    {
      __m128 lo = _mm_loadu_ps (x + i), hi = _mm_loadu_ps (x + i + 4);
      _mm_storeu_ps (y + i, _mm256_cvtpd_ps (erf4 (_mm256_cvtps_pd (lo))));
      _mm_storeu_ps (y + i + 4, _mm256_cvtpd_ps (erf4 (_mm256_cvtps_pd (hi))));
    }
  return i;
}

/* [0, i) by path's vector loop; i: where the scalar code goes on. */
static gint64
vector_part (RtVerfPath path, const float *x, float *y, gint64 n)
{
  if (path == RT_VERF_AVX512)
    return verf16 (x, y, n);
  if (path == RT_VERF_AVX2)
    return verf8 (x, y, n);
  return 0;
}
#else
static gint64
vector_part (RtVerfPath path, const float *x, float *y, gint64 n)
{
  (void) path, (void) x, (void) y, (void) n;
  return 0;
}
#endif

RtVerfPath
rt_verf_path (void)
{
  if (getenv ("SYMONNX_VERF_SCALAR"))
    return RT_VERF_SCALAR;
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports ("avx512f") && !getenv ("SYMONNX_VERF_AVX2"))
    return RT_VERF_AVX512;
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    return RT_VERF_AVX2;
#endif
  return RT_VERF_SCALAR;
}

/* erf1 over [i, n): with FMA instructions where the CPU has them (fma ()
 * is a slow exact emulation without), the same bits either way. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("fma", "default")))
#endif
static void
scalar_range (const float *x, float *y, gint64 i, gint64 n)
{
  for (; i < n; i++)
    y[i] = erf1 (x[i]);
}

void
rt_verf_on (RtVerfPath path, const float *x, float *y, gint64 n)
{
  scalar_range (x, y, vector_part (path, x, y, n), n);
}

void
rt_verf (const float *x, float *y, gint64 n)
{
  rt_verf_on (rt_verf_path (), x, y, n);
}
