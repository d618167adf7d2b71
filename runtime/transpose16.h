/* A 16 x 16 float transpose in AVX-512 registers, for the kernels that
 * move between a plane per channel and 16 channels a vector
 * (conv-depthwise-lanes.c, conv-direct.c, conv-pixel-rows.c), and an 8 x 8 one in AVX
 * registers (conv-packed.c's A panels, row-sums8.c's rows).
 * Include only where AVX code is compiled (x86-64 with GCC's target
 * attribute). */
#pragma once
#include <immintrin.h>
#include "runtime/act16.h"

/* r[i][k] := r[k][i] (8 x 8). */
__attribute__ ((target ("avx"), always_inline)) static inline void
rt_transpose8 (__m256 r[8])
{
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2)
    {
      t[i] = _mm256_unpacklo_ps (r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps (r[i], r[i + 1]);
    }
  for (int i = 0; i < 8; i += 4)
    {
      u[i] = _mm256_shuffle_ps (t[i], t[i + 2], 0x44);
      u[i + 1] = _mm256_shuffle_ps (t[i], t[i + 2], 0xee);
      u[i + 2] = _mm256_shuffle_ps (t[i + 1], t[i + 3], 0x44);
      u[i + 3] = _mm256_shuffle_ps (t[i + 1], t[i + 3], 0xee);
    }
  for (int i = 0; i < 4; i++)
    {
      r[i] = _mm256_permute2f128_ps (u[i], u[i + 4], 0x20);
      r[i + 4] = _mm256_permute2f128_ps (u[i], u[i + 4], 0x31);
    }
}

/* r[k] := column k of the 8 x 8 block at x (rows ld floats apart). */
__attribute__ ((target ("avx"), always_inline)) static inline void
rt_load_transposed8 (const float *x, long ld, __m256 r[8])
{
  for (int i = 0; i < 8; i++)
    r[i] = _mm256_loadu_ps (x + i * ld);
  rt_transpose8 (r);
}

/* r[i][k] := r[k][i]. */
__attribute__ ((target ("avx512f"), always_inline)) static inline void
rt_transpose16 (__m512 r[16])
{
  __m512 t[16];
  for (int i = 0; i < 16; i += 2)
    {
      t[i] = _mm512_unpacklo_ps (r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_ps (r[i], r[i + 1]);
    }
  for (int i = 0; i < 16; i += 4)
    {
      r[i] = _mm512_shuffle_ps (t[i], t[i + 2], 0x44);
      r[i + 1] = _mm512_shuffle_ps (t[i], t[i + 2], 0xEE);
      r[i + 2] = _mm512_shuffle_ps (t[i + 1], t[i + 3], 0x44);
      r[i + 3] = _mm512_shuffle_ps (t[i + 1], t[i + 3], 0xEE);
    }
  for (int h = 0; h < 16; h += 8)
    for (int i = 0; i < 4; i++)
      {
        t[h + i] = _mm512_shuffle_f32x4 (r[h + i], r[h + i + 4], 0x88);
        t[h + i + 4] = _mm512_shuffle_f32x4 (r[h + i], r[h + i + 4], 0xdd);
      }
  for (int i = 0; i < 8; i++)
    {
      r[i] = _mm512_shuffle_f32x4 (t[i], t[i + 8], 0x88);
      r[i + 8] = _mm512_shuffle_f32x4 (t[i], t[i + 8], 0xdd);
    }
}

/* Rows [0, rows) of a pixel-major block (pixel p's channels at src[p *
 * ld], rows <= 16 pixels) into channel planes: dst[ci * dld + p] for ci <
 * nc <= 16, each plane's values plus bias[ci] (bias NULL: none) then
 * through act (rt_act16: the epilogue's comparisons), in registers as they
 * are stored.  Only those pixels' first nc channels are read (a block at
 * the end of a buffer may end there), and only those planes' `rows`
 * values written. */
__attribute__ ((target ("avx512f"), always_inline)) static inline void
rt_pixels_to_planes16_act (const float *src, long ld, long rows, float *dst, long dld, long nc,
                           const float *bias, RtActKind act, __m512 lo16, __m512 hi16)
{
  __m512 r[16];
  if (rows == 16 && nc == 16)
    {
      /* whole blocks (most of them) with plain loads and stores: the
       * masked ones and the per-row tests took as long as the transpose
       * (conv-direct.c's first layers) */
      for (long i = 0; i < 16; i++)
        r[i] = _mm512_loadu_ps (src + i * ld);
      rt_transpose16 (r);
      for (long ci = 0; ci < 16; ci++)
        {
          __m512 v = bias ? _mm512_add_ps (r[ci], _mm512_set1_ps (bias[ci])) : r[ci];
          _mm512_storeu_ps (dst + ci * dld, rt_act16 (act, v, lo16, hi16));
        }
      return;
    }
  __mmask16 m = (__mmask16) ((1u << rows) - 1), cm = (__mmask16) ((1u << nc) - 1);
  for (long i = 0; i < 16; i++)
    r[i] = i < rows ? _mm512_maskz_loadu_ps (cm, src + i * ld) : _mm512_setzero_ps ();
  rt_transpose16 (r);
  for (long ci = 0; ci < nc; ci++)
    {
      __m512 v = bias ? _mm512_add_ps (r[ci], _mm512_set1_ps (bias[ci])) : r[ci];
      _mm512_mask_storeu_ps (dst + ci * dld, m, rt_act16 (act, v, lo16, hi16));
    }
}

/* The same, the values as they are. */
__attribute__ ((target ("avx512f"), always_inline)) static inline void
rt_pixels_to_planes16 (const float *src, long ld, long rows, float *dst, long dld, long nc)
{
  rt_pixels_to_planes16_act (src, ld, rows, dst, dld, nc, NULL, RT_ACT_NONE,
                             _mm512_setzero_ps (), _mm512_setzero_ps ());
}
