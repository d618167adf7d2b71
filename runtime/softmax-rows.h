/* Vectorised passes over one contiguous float row of Softmax/LogSoftmax
 * (softmax-rows.c; the exps are vexp.h's). */
#pragma once

#include <glib.h>

/* The largest of x[0..n) that is not NaN (x[i] > m kept, as a scalar
 * loop's `if (x[i] > m) m = x[i]`); -inf when there is none. */
float rt_row_max_f (const float *x, gint64 n);
/* y[i] := (float) (((double) x[i] - m) - ls): LogSoftmax's output. */
void  rt_row_log_out_f (const float *x, gint64 n, double m, double ls, float *y);
/* y[i] := (float) (ex[i] / s): Softmax's output. */
void  rt_row_div_out_f (const double *ex, gint64 n, double s, float *y);
