/* One row times a matrix in float, over the executor's threads.
 *
 * A Gemm or MatMul of one row over weights that are not packed (too large
 * to keep a second copy of: AlexNet's 9216 x 4096 and 4096 x 4096
 * classifier layers, 151 and 67 MB) reads the weights once a run from
 * memory: a matter of bandwidth, which two cores double.  OpenBLAS's
 * sgemv ran them at 23 GB/s on one thread and 26 on two (its threads
 * spin in sched_yield between calls, on the cores the executor's own
 * threads wait on).  Here each thread takes whole outputs: rows of B
 * (B transposed: each output the dot product of a row with a, 16 columns a
 * vector, four rows at a time) or 128-column strips (B not transposed: the
 * strip's sums in registers over K).  The sums are in a fixed order per
 * output, whichever thread makes it. */
#include "runtime/gemv.h"

typedef struct
{
  gboolean     transposed;
  gint64       K, N;
  const float *a, *b;
  float        alpha, beta;
  float       *y;
} GemvJob;

static inline void
put (const GemvJob *j, gint64 n, float s)
{
  j->y[n] = j->beta == 0 ? j->alpha * s : j->alpha * s + j->beta * j->y[n];
}

#define STRIP 128   /* columns a task of the non-transposed form */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Outputs [n0, n1) of the transposed form: dot products of B's rows. */
__attribute__ ((target ("avx512f"))) static void
dot_rows_avx512 (const GemvJob *j, gint64 n0, gint64 n1)
{
  gint64 K = j->K, tail = K % 16, kv = K - tail;
  __mmask16 m = (__mmask16) ((1u << tail) - 1);
  const float *a = j->a;
  gint64 n = n0;
  for (; n + 4 <= n1; n += 4)
    {
      const float *r = j->b + n * K;
      __m512 s0 = _mm512_setzero_ps (), s1 = s0, s2 = s0, s3 = s0;
      for (gint64 k = 0; k < kv; k += 16)
        {
          __m512 av = _mm512_loadu_ps (a + k);
          s0 = _mm512_fmadd_ps (_mm512_loadu_ps (r + k), av, s0);
          s1 = _mm512_fmadd_ps (_mm512_loadu_ps (r + K + k), av, s1);
          s2 = _mm512_fmadd_ps (_mm512_loadu_ps (r + 2 * K + k), av, s2);
          s3 = _mm512_fmadd_ps (_mm512_loadu_ps (r + 3 * K + k), av, s3);
        }
      if (tail)
        {
          __m512 av = _mm512_maskz_loadu_ps (m, a + kv);
          s0 = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (m, r + kv), av, s0);
          s1 = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (m, r + K + kv), av, s1);
          s2 = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (m, r + 2 * K + kv), av, s2);
          s3 = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (m, r + 3 * K + kv), av, s3);
        }
      put (j, n, _mm512_reduce_add_ps (s0));
      put (j, n + 1, _mm512_reduce_add_ps (s1));
      put (j, n + 2, _mm512_reduce_add_ps (s2));
      put (j, n + 3, _mm512_reduce_add_ps (s3));
    }
  for (; n < n1; n++)
    {
      const float *r = j->b + n * K;
      __m512 s = _mm512_setzero_ps ();
      for (gint64 k = 0; k < kv; k += 16)
        s = _mm512_fmadd_ps (_mm512_loadu_ps (r + k), _mm512_loadu_ps (a + k), s);
      if (tail)
        s = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (m, r + kv), _mm512_maskz_loadu_ps (m, a + kv), s);
      put (j, n, _mm512_reduce_add_ps (s));
    }
}

/* Columns [c0, c1) (at most STRIP) of the non-transposed form. */
__attribute__ ((target ("avx512f"))) static void
strip_avx512 (const GemvJob *j, gint64 c0, gint64 c1)
{
  enum { V = STRIP / 16 };
  __m512 s[V];
  __mmask16 m[V];
  for (int v = 0; v < V; v++)
    {
      gint64 lo = c0 + 16 * v, n = CLAMP (c1 - lo, 0, 16);
      m[v] = (__mmask16) ((1u << n) - 1);
      s[v] = _mm512_setzero_ps ();
    }
  for (gint64 k = 0; k < j->K; k++)
    {
      __m512 av = _mm512_set1_ps (j->a[k]);
      const float *r = j->b + k * j->N + c0;
      for (int v = 0; v < V; v++)
        if (m[v])
          s[v] = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (m[v], r + 16 * v), av, s[v]);
    }
  float out[STRIP];
  for (int v = 0; v < V; v++)
    _mm512_storeu_ps (out + 16 * v, s[v]);
  for (gint64 c = c0; c < c1; c++)
    put (j, c, out[c - c0]);
}
#endif

static gboolean
use_avx512 (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports ("avx512f");
#else
  return FALSE;
#endif
}

static void
gemv_range (gint64 t0, gint64 t1, gpointer data)
{
  const GemvJob *j = data;
  gboolean wide = use_avx512 ();
  if (j->transposed)
    {
#if defined(__x86_64__) && defined(__GNUC__)
      if (wide)
        {
          dot_rows_avx512 (j, t0, t1);
          return;
        }
#endif
      for (gint64 n = t0; n < t1; n++)
        {
          float s = 0;
          for (gint64 k = 0; k < j->K; k++)
            s += j->b[n * j->K + k] * j->a[k];
          put (j, n, s);
        }
      return;
    }
  for (gint64 t = t0; t < t1; t++)
    {
      gint64 c0 = t * STRIP, c1 = MIN (c0 + STRIP, j->N);
#if defined(__x86_64__) && defined(__GNUC__)
      if (wide)
        {
          strip_avx512 (j, c0, c1);
          continue;
        }
#endif
      float s[STRIP] = { 0 };
      for (gint64 k = 0; k < j->K; k++)
        for (gint64 c = c0; c < c1; c++)
          s[c - c0] += j->a[k] * j->b[k * j->N + c];
      for (gint64 c = c0; c < c1; c++)
        put (j, c, s[c - c0]);
    }
}

void
rt_gemv (const RtCall *call, gboolean transposed, gint64 K, gint64 N, const float *a,
         const float *b, float alpha, float beta, float *y)
{
  GemvJob j = { transposed, K, N, a, b, alpha, beta, y };
  /* tasks: rows, or strips of columns; at least 256 KiB of B a chunk */
  gint64 tasks = transposed ? N : (N + STRIP - 1) / STRIP;
  gint64 per_task = MAX ((transposed ? K : K * STRIP) * (gint64) sizeof (float), 1);
  rt_parallel_for (call, tasks, MAX (1, (256 << 10) / per_task), gemv_range, &j);
}
