/* A fused Relu or Clip (epilogue.h) on 16 floats in an AVX-512 register,
 * with the scalar loops' comparisons: Relu keeps a where a > 0 (NaN and
 * -0 give +0), Clip replaces a below lo by lo, then above hi by hi (NaN
 * stays).  For the Conv kernels that apply the activation as they store
 * (conv-direct.c, conv-narrow.c, conv-depthwise.c, conv-depthwise-lanes.c).
 * Include only where AVX-512F code is compiled (x86-64 with GCC's target
 * attribute). */
#pragma once
#include <immintrin.h>
#include "runtime/epilogue.h"

__attribute__ ((target ("avx512f"), always_inline)) static inline __m512
rt_act16 (RtActKind act, __m512 a, __m512 lo16, __m512 hi16)
{
  /* _mm512_max_ps (x, y) is x > y ? x : y and _mm512_min_ps (x, y) is
   * x < y ? x : y, NaNs and signed zeros included (GCC keeps the order
   * without -ffast-math): one instruction each where a compare and a
   * masked move made a chain of two (MobileNetV2's depthwise rows spent
   * 15% of their time on Clip's). */
  if (act == RT_ACT_RELU)
    return _mm512_max_ps (a, _mm512_setzero_ps ());   /* a > 0 ? a : 0 */
  if (act == RT_ACT_CLIP)
    {
      a = _mm512_max_ps (lo16, a);   /* lo > a, that is a < lo ? lo : a */
      a = _mm512_min_ps (hi16, a);   /* hi < a, that is a > hi ? hi : a */
    }
  return a;
}
