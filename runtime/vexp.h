/* exp over arrays of doubles, 8 at a time (vexp.c). */
#pragma once

#include <glib.h>

/* x[i] := exp (x[i]) for i < n, to within 2 units in the last place of a
 * double (libm's exp: within 1), so a float rounded from it is libm's in
 * all but rare ties; NaN, infinities and arguments past ±708 go to libm. */
void rt_vexp (double *x, gint64 n);

/* Σ exp ((double) x[i] - m) over i < n, each exp as rt_vexp's, summed in
 * 8 partial sums (i mod 8) added in a fixed order, then the tail in index
 * order: the same bits for the same row wherever it runs.  The exps are
 * stored in ex[0..n) unless ex is NULL. */
double rt_vexp_shifted_sum (const float *x, gint64 n, double m, double *ex);
