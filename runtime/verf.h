/* erf of floats, 16 at a time (verf.c). */
#pragma once
#include <glib.h>

/* y[i] := erf (x[i]) for i < n (y may be x): evaluated in double from
 * polynomials fitted to libm's erf (relative error under 2e-14), then
 * rounded to float: libm's float but where its double lies within ~1e-13
 * of a rounding boundary (then one unit in the last place off).  The same
 * bits on every CPU: AVX-512F lanes and the scalar code do the same
 * operations (fused multiply-adds). */
void rt_verf (const float *x, float *y, gint64 n);
