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
  if (act == RT_ACT_RELU)
    return _mm512_maskz_mov_ps (_mm512_cmp_ps_mask (a, _mm512_setzero_ps (), _CMP_GT_OQ), a);
  if (act == RT_ACT_CLIP)
    {
      a = _mm512_mask_mov_ps (a, _mm512_cmp_ps_mask (a, lo16, _CMP_LT_OQ), lo16);
      a = _mm512_mask_mov_ps (a, _mm512_cmp_ps_mask (a, hi16, _CMP_GT_OQ), hi16);
    }
  return a;
}
