/* exp of many doubles at once, for Softmax/LogSoftmax rows (k-reduce.c),
 * where libm's scalar exp took a quarter of the word_language_model's
 * time (issue 16).  x = n ln2 + r with |r| <= ln2 / 2 (n rounded to
 * nearest, ln2 in two parts so that r is exact to ~2^-60), exp (r) by its
 * Taylor series to degree 13 (truncation 4e-18, below half an ulp), times
 * 2^n built in the exponent bits; fused multiply-adds throughout.
 *
 * AVX-512F (8 lanes) and AVX2 + FMA (4 lanes, two vectors at a time) with
 * intrinsics, picked by the CPU (SYMONNX_VEXP_AVX2 in the environment
 * picks AVX2 on an AVX-512 CPU, for the tests); libm elsewhere.  A vector takes
 * the polynomial when every lane is a finite number in [-708, 708] or at
 * most -746 (libm's exp is 0 there: below half the least subnormal; -inf,
 * the masked entries of an attention row, among them); otherwise (NaN,
 * overflow, subnormal results) libm lane by lane.  (An earlier version
 * written with GCC's vector extensions tested the lanes one by one with
 * branches, and its multiplies and adds were not fused under -std=c11: 2.3
 * ms for the LSTM's 35 x 33278 LogSoftmax exps.) */
#include "runtime/vexp.h"
#include <math.h>
#include <string.h>
#include <stdlib.h>

#define LOG2E 1.4426950408889634
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10
#define SHIFT 0x1.8p52

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_VEXP 1

/* exp of v's 8 lanes into *y; FALSE (and *y untouched) when a lane needs
 * libm. */
__attribute__ ((target ("avx512f"), always_inline)) static inline gboolean
exp8_512 (__m512d v, __m512d *y)
{
  __mmask8 zero = _mm512_cmp_pd_mask (v, _mm512_set1_pd (-746.0), _CMP_LE_OQ);
  __mmask8 ok = _mm512_cmp_pd_mask (v, _mm512_set1_pd (-708.0), _CMP_GE_OQ)
                & _mm512_cmp_pd_mask (v, _mm512_set1_pd (708.0), _CMP_LE_OQ);
  if ((__mmask8) (ok | zero) != 0xff)
    return FALSE;
  __m512d shift = _mm512_set1_pd (SHIFT);
  __m512d t = _mm512_fmadd_pd (v, _mm512_set1_pd (LOG2E), shift);   /* n in t's low bits */
  __m512d nf = _mm512_sub_pd (t, shift);
  __m512d r = _mm512_fnmadd_pd (nf, _mm512_set1_pd (LN2_HI), v);
  r = _mm512_fnmadd_pd (nf, _mm512_set1_pd (LN2_LO), r);
#define STEP(c) p = _mm512_fmadd_pd (p, r, _mm512_set1_pd (c))
  __m512d p = _mm512_fmadd_pd (r, _mm512_set1_pd (1.0 / 6227020800.0),
                               _mm512_set1_pd (1.0 / 479001600.0));
  STEP (1.0 / 39916800.0); STEP (1.0 / 3628800.0); STEP (1.0 / 362880.0);
  STEP (1.0 / 40320.0); STEP (1.0 / 5040.0); STEP (1.0 / 720.0); STEP (1.0 / 120.0);
  STEP (1.0 / 24.0); STEP (1.0 / 6.0); STEP (0.5); STEP (1.0); STEP (1.0);
#undef STEP
  __m512i e = _mm512_slli_epi64 (_mm512_add_epi64 (_mm512_sub_epi64 (_mm512_castpd_si512 (t),
                                                                     _mm512_castpd_si512 (shift)),
                                                   _mm512_set1_epi64 (1023)), 52);
  *y = _mm512_maskz_mov_pd ((__mmask8) ~zero, _mm512_mul_pd (p, _mm512_castsi512_pd (e)));
  return TRUE;
}

/* The same over 4 lanes. */
__attribute__ ((target ("avx2,fma"), always_inline)) static inline gboolean
exp4_256 (__m256d v, __m256d *y)
{
  __m256d zero = _mm256_cmp_pd (v, _mm256_set1_pd (-746.0), _CMP_LE_OQ);
  __m256d ok = _mm256_and_pd (_mm256_cmp_pd (v, _mm256_set1_pd (-708.0), _CMP_GE_OQ),
                              _mm256_cmp_pd (v, _mm256_set1_pd (708.0), _CMP_LE_OQ));
  if (_mm256_movemask_pd (_mm256_or_pd (ok, zero)) != 0xf)
    return FALSE;
  __m256d shift = _mm256_set1_pd (SHIFT);
  __m256d t = _mm256_fmadd_pd (v, _mm256_set1_pd (LOG2E), shift);
  __m256d nf = _mm256_sub_pd (t, shift);
  __m256d r = _mm256_fnmadd_pd (nf, _mm256_set1_pd (LN2_HI), v);
  r = _mm256_fnmadd_pd (nf, _mm256_set1_pd (LN2_LO), r);
#define STEP(c) p = _mm256_fmadd_pd (p, r, _mm256_set1_pd (c))
  __m256d p = _mm256_fmadd_pd (r, _mm256_set1_pd (1.0 / 6227020800.0),
                               _mm256_set1_pd (1.0 / 479001600.0));
  STEP (1.0 / 39916800.0); STEP (1.0 / 3628800.0); STEP (1.0 / 362880.0);
  STEP (1.0 / 40320.0); STEP (1.0 / 5040.0); STEP (1.0 / 720.0); STEP (1.0 / 120.0);
  STEP (1.0 / 24.0); STEP (1.0 / 6.0); STEP (0.5); STEP (1.0); STEP (1.0);
#undef STEP
  __m256i e = _mm256_slli_epi64 (_mm256_add_epi64 (_mm256_sub_epi64 (_mm256_castpd_si256 (t),
                                                                     _mm256_castpd_si256 (shift)),
                                                   _mm256_set1_epi64x (1023)), 52);
  *y = _mm256_andnot_pd (zero, _mm256_mul_pd (p, _mm256_castsi256_pd (e)));
  return TRUE;
}

/* out[i] := exp (in[i] - m) for i < n (in: doubles, or floats when fin is
 * set), n a multiple of the vector: summed into *acc lanes; out may be
 * NULL. */
__attribute__ ((target ("avx512f"))) static void
run_512 (const double *in, const float *fin, gint64 n, double m, double *out, double *sum)
{
  __m512d acc = _mm512_setzero_pd (), mv = _mm512_set1_pd (m);
  for (gint64 i = 0; i < n; i += 8)
    {
      __m512d v = fin ? _mm512_cvtps_pd (_mm256_loadu_ps (fin + i)) : _mm512_loadu_pd (in + i);
      v = _mm512_sub_pd (v, mv);
      __m512d y;
      if (!exp8_512 (v, &y))
        {
          double t[8];
          _mm512_storeu_pd (t, v);
          for (int k = 0; k < 8; k++)
            t[k] = exp (t[k]);
          y = _mm512_loadu_pd (t);
        }
      if (out)
        _mm512_storeu_pd (out + i, y);
      acc = _mm512_add_pd (acc, y);
    }
  _mm512_storeu_pd (sum, acc);
}

__attribute__ ((target ("avx2,fma"))) static void
run_256 (const double *in, const float *fin, gint64 n, double m, double *out, double *sum)
{
  __m256d acc0 = _mm256_setzero_pd (), acc1 = acc0, mv = _mm256_set1_pd (m);
  for (gint64 i = 0; i < n; i += 8)
    {
      __m256d v[2], y[2];
      for (int h = 0; h < 2; h++)
        {
          v[h] = fin ? _mm256_cvtps_pd (_mm_loadu_ps (fin + i + 4 * h))
                     : _mm256_loadu_pd (in + i + 4 * h);
          v[h] = _mm256_sub_pd (v[h], mv);
          if (!exp4_256 (v[h], &y[h]))
            {
              double t[4];
              _mm256_storeu_pd (t, v[h]);
              for (int k = 0; k < 4; k++)
                t[k] = exp (t[k]);
              y[h] = _mm256_loadu_pd (t);
            }
          if (out)
            _mm256_storeu_pd (out + i + 4 * h, y[h]);
        }
      acc0 = _mm256_add_pd (acc0, y[0]);
      acc1 = _mm256_add_pd (acc1, y[1]);
    }
  /* lanes 0-3 and 4-7 of the 8 partial sums, as run_512 keeps them */
  _mm256_storeu_pd (sum, acc0);
  _mm256_storeu_pd (sum + 4, acc1);
}

/* Which of them this CPU runs (0: libm only). */
static int
level (void)
{
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512f") && !getenv ("SYMONNX_VEXP_AVX2"))
    return 2;
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma") ? 1 : 0;
}
#else
#define HAVE_VEXP 0
#endif

/* The whole vectors of [0, n): their exps (minus m) into out, their 8
 * partial sums (lane i mod 8) into sum; returns how many were done. */
static gint64
vector_part (const double *in, const float *fin, gint64 n, double m, double *out, double *sum)
{
  memset (sum, 0, 8 * sizeof (double));
#if HAVE_VEXP
  int lv = level ();
  gint64 nv = n / 8 * 8;
  if (lv == 2)
    run_512 (in, fin, nv, m, out, sum);
  else if (lv == 1)
    run_256 (in, fin, nv, m, out, sum);
  else
    nv = 0;
  return nv;
#else
  (void) in, (void) fin, (void) n, (void) m, (void) out;
  return 0;
#endif
}

void
rt_vexp (double *x, gint64 n)
{
  double sum[8];
  gint64 i = vector_part (x, NULL, n, 0.0, x, sum);
  for (; i < n; i++)
    x[i] = exp (x[i]);
}

double
rt_vexp_shifted_sum (const float *x, gint64 n, double m, double *ex)
{
  double acc[8];
  gint64 i = vector_part (NULL, x, n, m, ex, acc);
  double s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; i < n; i++)
    {
      double e = exp ((double) x[i] - m);
      if (ex)
        ex[i] = e;
      s += e;
    }
  return s;
}
