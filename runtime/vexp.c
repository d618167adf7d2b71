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

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EXP_CLONES __attribute__ ((target_clones ("avx512f", "avx2", "default")))
#else
#define EXP_CLONES
#endif

EXP_CLONES void
rt_vexp (double *x, gint64 n)
{
  const double log2e = 1.4426950408889634, ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10, shift = 0x1.8p52;
  gint64 i = 0;
  for (; i + 8 <= n; i += 8)
    {
      v8df v;
      memcpy (&v, x + i, sizeof v);
      gboolean plain = TRUE;   /* every lane a finite number in [-708, 708] */
      for (int k = 0; k < 8; k++)
        plain = plain && v[k] >= -708.0 && v[k] <= 708.0;
      if (!plain)
        {
          for (int k = 0; k < 8; k++)
            x[i + k] = exp (x[i + k]);
          continue;
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
      v8df y = p * (v8df) e;
      memcpy (x + i, &y, sizeof y);
    }
  for (; i < n; i++)
    x[i] = exp (x[i]);
}
