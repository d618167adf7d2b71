/* One row times a matrix in float (runtime/gemv.c): Gemm and MatMul with
 * a batch of 1 over weights not packed (AlexNet's 151 MB classifier). */
#pragma once
#include "runtime/kernel.h"

/* y := alpha (a · Bᵀ) + beta y (beta 0: y not read), B N x K row-major
 * (transposed: each output a dot product of a row of B with a), or
 * alpha (a · B) + beta y with B K x N (not transposed); over the call's
 * threads, each output made by one thread in the same order whatever
 * their number. */
void rt_gemv (const RtCall *call, gboolean transposed, gint64 K, gint64 N, const float *a,
              const float *b, float alpha, float beta, float *y);
