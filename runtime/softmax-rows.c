/* The max and output passes of Softmax/LogSoftmax rows (k-reduce.c), 16 or
 * 8 lanes at a time: the word_language_model's LogSoftmax over 35 x 33278
 * spent 16% of the run in their scalar loops (issue 16).  Each lane does
 * what the scalar loop did to its element, so the outputs are the same
 * bits; GCC's vector extensions, cloned for AVX-512 and AVX2 (an ifunc
 * picks the clone once). */
#include "runtime/softmax-rows.h"
#include <math.h>
#include <string.h>

typedef float v16sf __attribute__ ((vector_size (64)));
typedef gint32 v16si __attribute__ ((vector_size (64)));
typedef float v8sf __attribute__ ((vector_size (32)));
typedef double v8df __attribute__ ((vector_size (64)));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ROW_CLONES __attribute__ ((target_clones ("avx512f", "avx2", "default")))
#else
#define ROW_CLONES
#endif

ROW_CLONES float
rt_row_max_f (const float *x, gint64 n)
{
  v16sf acc;
  for (int k = 0; k < 16; k++)
    acc[k] = -INFINITY;
  gint64 i = 0;
  for (; i + 16 <= n; i += 16)
    {
      v16sf v;
      memcpy (&v, x + i, sizeof v);
      v16si gt = v > acc;   /* NaN compares false: acc kept */
      acc = (v16sf) (((v16si) v & gt) | ((v16si) acc & ~gt));
    }
  float m = -INFINITY;
  for (int k = 0; k < 16; k++)
    m = acc[k] > m ? acc[k] : m;
  for (; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m;
}

ROW_CLONES void
rt_row_log_out_f (const float *x, gint64 n, double m, double ls, float *y)
{
  gint64 i = 0;
  for (; i + 8 <= n; i += 8)
    {
      v8sf f;
      memcpy (&f, x + i, sizeof f);
      v8sf o = __builtin_convertvector ((__builtin_convertvector (f, v8df) - m) - ls, v8sf);
      memcpy (y + i, &o, sizeof o);
    }
  for (; i < n; i++)
    y[i] = (float) (((double) x[i] - m) - ls);
}

ROW_CLONES void
rt_row_div_out_f (const double *ex, gint64 n, double s, float *y)
{
  gint64 i = 0;
  for (; i + 8 <= n; i += 8)
    {
      v8df v;
      memcpy (&v, ex + i, sizeof v);
      v8sf o = __builtin_convertvector (v / s, v8sf);
      memcpy (y + i, &o, sizeof o);
    }
  for (; i < n; i++)
    y[i] = (float) (ex[i] / s);
}
