/* erf of floats, 16 or 8 at a time (verf.c). */
#pragma once
#include <glib.h>

/* y[i] := erf (x[i]) for i < n (y may be x): evaluated in double from
 * polynomials fitted to libm's erf (relative error under 2e-14), then
 * rounded to float: libm's float but where its double lies within ~1e-13
 * of a rounding boundary (then one unit in the last place off).  The same
 * bits on every CPU: the AVX-512F lanes, the AVX2 ones and the scalar code
 * do the same operations (fused multiply-adds). */
void rt_verf (const float *x, float *y, gint64 n);

/* Which loop rt_verf runs: the widest this CPU has, unless
 * SYMONNX_VERF_AVX2 (AVX2 on an AVX-512 CPU) or SYMONNX_VERF_SCALAR is set
 * (for the tests).  A caller that calls rt_verf_on on many small blocks
 * asks once (the environment lookups are not free). */
typedef enum
{
  RT_VERF_SCALAR,
  RT_VERF_AVX2,
  RT_VERF_AVX512,
} RtVerfPath;
RtVerfPath rt_verf_path (void);
void       rt_verf_on (RtVerfPath path, const float *x, float *y, gint64 n);
