/* The executor's packed Conv GEMM (runtime/conv-packed.c) against OpenBLAS cblas_sgemm on
 * the GEMM shapes of convolutions, one thread, in the same process (issue 16).
 *
 *   ninja -C build-bench bench/runtime-packed-gemm
 *   build-bench/bench/runtime-packed-gemm [M N K ...]
 *
 * C[M,N] = W[M,K] * col[K,N] (M output channels, N output pixels, K = C/group * kh * kw).
 * Per shape, rounds alternate one sgemm call and one packed GEMM call (W packed once, as a
 * session does; B packed from col before each call, timed apart: in a Conv, im2col writes
 * B's panels directly) until 0.5 s have passed; prints the best GFLOP/s of each, their
 * ratio, the B packing time and the largest difference between the two results; then the
 * MatMul orientation (runtime/matmul-packed.c: col is the constant B, packed once, W the
 * rows of A, packed before each call as a MatMul does): its best GFLOP/s and difference. */
#include "runtime/conv-packed.h"
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static float *
filled (gint64 n, guint32 seed)
{
  float *p = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      p[i] = (float) ((seed >> 9) & 0xffff) / 65536.0f - 0.5f;
    }
  return p;
}

static int
run_shape (gint64 M, gint64 N, gint64 K)
{
  g_autofree float *w = filled (M * K, 1), *col = filled (K * N, 2);
  g_autofree float *c1 = g_new0 (float, M * N), *c2 = g_new0 (float, M * N);
  g_autofree float *c3 = g_new0 (float, M * N);
  gint64 dims[4] = { M, K, 1, 1 };
  g_autoptr (Tensor) wt = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 4, dims, w,
                                                (gsize) (M * K) * sizeof (float), NULL);
  RtPackedW *p = wt ? rt_conv_pack_weights (wt, 1) : NULL;
  if (p == NULL)
    {
      fprintf (stderr, "runtime-packed-gemm: no packed kernel on this CPU\n");
      return 1;
    }
  g_autofree float *bp = g_new (float, rt_conv_packed_b_floats (p, N));
  RtPackedW *pb = rt_packed_b_new (col, K, N);
  g_autofree float *ap = g_new (float, rt_packed_a_floats (pb, M));
  double best_blas = 1e30, best_packed = 1e30, best_pack = 1e30, best_mm = 1e30;
  double start = now ();
  for (int r = 0; r < 3 || now () - start < 0.5; r++)
    {
      double t0 = now ();
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) M, (int) N, (int) K, 1.0f, w,
                   (int) K, col, (int) N, 0.0f, c1, (int) N);
      double t1 = now ();
      rt_conv_pack_b_rows (p, col, N, N, bp);
      double t2 = now ();
      rt_conv_packed_gemm (p, 0, bp, N, c2, N, NULL, NULL, NULL);
      double t3 = now ();
      rt_packed_pack_a (pb, w, K, M, ap);
      rt_packed_gemm_b (pb, ap, M, c3, N, 0, rt_packed_b_panels (pb));
      double t4 = now ();
      best_mm = MIN (best_mm, t4 - t3);
      best_blas = MIN (best_blas, t1 - t0);
      best_pack = MIN (best_pack, t2 - t1);
      best_packed = MIN (best_packed, t3 - t2);
    }
  double err = 0, err_mm = 0, gf = 2.0 * (double) M * (double) N * (double) K * 1e-9;
  for (gint64 i = 0; i < M * N; i++)
    {
      err = MAX (err, fabs (c1[i] - c2[i]));
      err_mm = MAX (err_mm, fabs (c1[i] - c3[i]));
    }
  printf ("%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT
          "\t%.1f\t%.1f\t%.2f\t%.3f\t%.2g\t%.1f\t%.2g\n", M, N, K, gf / best_blas,
          gf / best_packed, best_blas / best_packed, best_pack * 1e3, err, gf / best_mm, err_mm);
  rt_conv_packed_free (p);
  rt_conv_packed_free (pb);
  return 0;
}

int
main (int argc, char **argv)
{
  static const gint64 defaults[][3] = {
    { 64, 12544, 147 }, { 64, 3136, 576 }, { 64, 3136, 64 }, { 256, 3136, 64 },
    { 128, 784, 1152 }, { 256, 196, 2304 }, { 512, 49, 4608 }, { 2048, 49, 512 },
  };
  if ((argc - 1) % 3 != 0)
    {
      fprintf (stderr, "usage: runtime-packed-gemm [M N K ...]\n");
      return 2;
    }
  openblas_set_num_threads (1);
  printf ("M\tN\tK\tsgemm_gflops\tpacked_gflops\tratio\tpack_b_ms\tmax_diff\tmatmul_gflops\tmatmul_diff\n");
  int n = argc > 1 ? (argc - 1) / 3 : (int) G_N_ELEMENTS (defaults);
  for (int s = 0; s < n; s++)
    {
      gint64 M = argc > 1 ? atoll (argv[1 + 3 * s]) : defaults[s][0];
      gint64 N = argc > 1 ? atoll (argv[2 + 3 * s]) : defaults[s][1];
      gint64 K = argc > 1 ? atoll (argv[3 + 3 * s]) : defaults[s][2];
      if (M <= 0 || N <= 0 || K <= 0 || (double) M * N > 1e9 || (double) M * K > 1e9
          || (double) K * N > 1e9)
        {
          fprintf (stderr, "runtime-packed-gemm: bad shape %s %s %s\n", argv[1 + 3 * s],
                   argv[2 + 3 * s], argv[3 + 3 * s]);
          return 2;
        }
      if (run_shape (M, N, K) != 0)
        return 1;
    }
  return 0;
}
