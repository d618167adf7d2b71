/* exp over arrays of doubles, 8 at a time (vexp.c). */
#pragma once

#include <glib.h>

/* x[i] := exp (x[i]) for i < n, to within 2 units in the last place of a
 * double (libm's exp: within 1), so a float rounded from it is libm's in
 * all but rare ties; NaN, infinities and arguments past ±708 go to libm. */
void rt_vexp (double *x, gint64 n);
