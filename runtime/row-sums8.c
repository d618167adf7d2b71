/* rt_row_sums8 (row-sums8.h). */
#include "runtime/row-sums8.h"

static inline double
term_of (RtRowTerm term, double d, double center)
{
  switch (term)
    {
    case RT_ROW_SUM_SQUARE:
      return (double) (float) (d * d);
    case RT_ROW_SUM_DEV2:
      return (d - center) * (d - center);
    default:
      return d;
    }
}

/* Columns [i0, n) of the rows added to acc one by one. */
static void
sums_scalar (const float *x, gint64 ld, gint64 i0, gint64 n, int rows, RtRowTerm term,
             const double *center, double *acc)
{
  for (gint64 i = i0; i < n; i++)
    for (int k = 0; k < rows; k++)
      acc[k] += term_of (term, (double) x[k * ld + i], center ? center[k] : 0);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include "runtime/transpose16.h"

/* The whole vectors of 8 columns; returns the columns done. */
__attribute__ ((target ("avx512f"))) static gint64
sums_avx512 (const float *x, gint64 ld, gint64 n, RtRowTerm term, const double *center,
             double *acc)
{
  __m512d s = _mm512_setzero_pd ();
  __m512d c = term == RT_ROW_SUM_DEV2 ? _mm512_loadu_pd (center) : _mm512_setzero_pd ();
  gint64 i = 0;
  for (; i + 8 <= n; i += 8)
    {
      __m256 r[8];
      rt_load_transposed8 (x + i, ld, r);
      for (int k = 0; k < 8; k++)
        {
          __m512d d = _mm512_cvtps_pd (r[k]);
          if (term == RT_ROW_SUM_SQUARE)
            d = _mm512_cvtps_pd (_mm512_cvtpd_ps (_mm512_mul_pd (d, d)));
          else if (term == RT_ROW_SUM_DEV2)
            {
              d = _mm512_sub_pd (d, c);
              d = _mm512_mul_pd (d, d);
            }
          s = _mm512_add_pd (s, d);
        }
    }
  _mm512_storeu_pd (acc, s);
  return i;
}
#endif

void
rt_row_sums8 (const float *x, gint64 ld, gint64 n, int rows, RtRowTerm term,
              const double *center, double *acc)
{
  gint64 done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (rows == 8 && __builtin_cpu_supports ("avx512f"))
    done = sums_avx512 (x, ld, n, term, center, acc);
  else
#endif
    for (int k = 0; k < rows; k++)
      acc[k] = 0;
  sums_scalar (x, ld, done, n, rows, term, center, acc);
}
