/* exp of many doubles at once, for Softmax/LogSoftmax rows (k-reduce.c),
 * where libm's scalar exp took a quarter of the word_language_model's
 * time (issue 16).  x = n ln2 + r with |r| <= ln2 / 2 (n rounded to
 * nearest, ln2 in two parts so that r is exact to ~2^-60), exp (r) by its
 * Taylor series to degree 13 (truncation 4e-18, below half an ulp), times
 * 2^n built in the exponent bits.  GCC's vector extensions, cloned for
 * AVX-512 and AVX2 (an ifunc picks the clone once). */
#include "runtime/vexp.h"
#include <math.h>
#include <string.h>

typedef double v8df __attribute__ ((vector_size (64)));
typedef gint64 v8di __attribute__ ((vector_size (64)));
typedef float v8sf __attribute__ ((vector_size (32)));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EXP_CLONES __attribute__ ((target_clones ("avx512f", "avx2", "default")))
#else
#define EXP_CLONES
#endif

/* *pv := exp of its 8 lanes: the polynomial where every lane is a finite
 * number in [-708, 708], else libm lane by lane.  (By pointer: a 64-byte
 * vector passed by value changes the ABI where AVX-512 is off.) */
static inline __attribute__ ((always_inline)) void
exp8 (v8df *pv)
{
  v8df v = *pv;
  const double log2e = 1.4426950408889634, ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10, shift = 0x1.8p52;
  gboolean plain = TRUE;
  for (int k = 0; k < 8; k++)
    plain = plain && v[k] >= -708.0 && v[k] <= 708.0;
  if (!plain)
    {
      for (int k = 0; k < 8; k++)
        (*pv)[k] = exp (v[k]);
      return;
    }
  v8df t = v * log2e + shift;   /* n in t's low bits */
  v8df nf = t - shift;
  v8df r = (v - nf * ln2_hi) - nf * ln2_lo;
  v8df p = r * (1.0 / 6227020800.0) + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  v8di e = ((v8di) t - (v8di) (v8df) { shift, shift, shift, shift, shift, shift, shift, shift }
            + 1023) << 52;
  *pv = p * (v8df) e;
}

EXP_CLONES void
rt_vexp (double *x, gint64 n)
{
  gint64 i = 0;
  for (; i + 8 <= n; i += 8)
    {
      v8df v;
      memcpy (&v, x + i, sizeof v);
      exp8 (&v);
      memcpy (x + i, &v, sizeof v);
    }
  for (; i < n; i++)
    x[i] = exp (x[i]);
}

EXP_CLONES double
rt_vexp_shifted_sum (const float *x, gint64 n, double m, double *ex)
{
  v8df acc = { 0 };
  gint64 i = 0;
  for (; i + 8 <= n; i += 8)
    {
      v8sf f;
      memcpy (&f, x + i, sizeof f);
      v8df v = __builtin_convertvector (f, v8df) - m;
      exp8 (&v);
      if (ex)
        memcpy (ex + i, &v, sizeof v);
      acc += v;
    }
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
