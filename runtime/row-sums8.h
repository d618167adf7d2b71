/* Sums over 8 rows of floats in double, each row's terms added one after
 * the other in index order, as a scalar loop over that row adds them (the
 * same bits), the 8 rows' chains side by side in one AVX-512 vector (rows
 * transposed 8 x 8) where the CPU has it: one chain's latency bounds the
 * scalar loop (a LayerNorm's row sums took most of its time).  For the
 * LayerNorms: torch's opset-13 chain fused (fused-transformer.c) and
 * LayerNormalization (k-norm.c). */
#pragma once
#include <glib.h>

typedef enum
{
  RT_ROW_SUM,          /* d */
  RT_ROW_SUM_SQUARE,   /* (float) (d * d): torch's Pow (x - mean, 2) in float */
  RT_ROW_SUM_DEV2,     /* (d - center[k]) * (d - center[k]) */
} RtRowTerm;

/* acc[k] := Σ_i term (d = (double) x[k * ld + i]) for rows k < rows (1 to
 * 8; the vector path takes 8) of n floats; center: the rows' centres for
 * RT_ROW_SUM_DEV2 (else unused). */
void rt_row_sums8 (const float *x, gint64 ld, gint64 n, int rows, RtRowTerm term,
                   const double *center, double *acc);
