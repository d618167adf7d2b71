/* OpenBLAS, opened on first use instead of linked.
 *
 * Linking libopenblas costs every process ~4 ms at start (12,000 symbol
 * relocations and its thread pool), and its idle threads spin for ~0.1 s,
 * though only the executor calls BLAS: `symonnx export`, `print` and
 * `check` never do.  rt_session_new() loads it (rt_blas_load) and kernels
 * call through rt_blas. */
#pragma once

#include <cblas.h>
#include <glib.h>

typedef struct
{
  __typeof__ (cblas_sgemm) *sgemm;
  __typeof__ (cblas_dgemm) *dgemm;
  __typeof__ (cblas_sgemv) *sgemv;
  __typeof__ (cblas_dgemv) *dgemv;
  void (*set_num_threads) (int n);   /* NULL: the library has none */
} RtBlas;

/* Filled by the first successful rt_blas_load(); kernels only run in
 * sessions, which load it first. */
extern RtBlas rt_blas;

/* Opens the BLAS library once (thread-safe); FALSE with an error naming
 * the library when it cannot be opened or lacks a function. */
gboolean rt_blas_load (GError **error);
