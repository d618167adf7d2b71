/* OpenBLAS cblas_sgemm throughput at the GEMM shapes of convolutions (issue 5, Performance).
 *
 *   ninja -C build-bench bench/runtime-sgemm
 *   build-bench/bench/runtime-sgemm [--threads T[,T...]] [M N K ...]
 *
 * Computes C[M,N] = W[M,K] * col[K,N], row-major, as runtime/k-conv.c calls it (M output
 * channels, N output pixels, K = C/group * kh * kw).  Without shapes it runs a default list
 * typical of ResNet/AlexNet/SqueezeNet convs at 224x224.  Per shape and thread count (default
 * 1,2): one warm-up call, then calls until 0.5 s have passed (at least 3); prints the best and
 * the median GFLOP/s (2*M*N*K flops per call) as a tab-separated table. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static float *
alloc_filled (size_t n, unsigned seed)
{
  float *p = malloc (n * sizeof *p);
  if (p == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      p[i] = (float) ((seed >> 9) & 0xffff) / 65536.0f - 0.5f;
    }
  return p;
}

/* Best and median GFLOP/s of cblas_sgemm at M x N x K; FALSE when out of memory. */
static int
run_shape (int M, int N, int K, double *best, double *median)
{
  float *a = alloc_filled ((size_t) M * K, 1), *b = alloc_filled ((size_t) K * N, 2);
  float *c = calloc ((size_t) M * N, sizeof (float));
  if (a == NULL || b == NULL || c == NULL)
    {
      free (a), free (b), free (c);
      return 0;
    }
  double flops = 2.0 * M * N * K;
  enum { MAX_RUNS = 10000 };
  static double ms[MAX_RUNS];
  int runs = 0;
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
  double start = now ();
  while (runs < MAX_RUNS && (runs < 3 || now () - start < 0.5))
    {
      double t0 = now ();
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
      ms[runs++] = now () - t0;
    }
  qsort (ms, (size_t) runs, sizeof (double), cmp_double);
  *best = flops / ms[0] * 1e-9;
  *median = flops / ms[runs / 2] * 1e-9;
  free (a), free (b), free (c);
  return 1;
}

int
main (int argc, char **argv)
{
  static const int defaults[][3] = {
    { 64, 12544, 147 },  /* ResNet conv1 7x7/2 */
    { 64, 3136, 576 },   /* ResNet 3x3 64 at 56x56 */
    { 64, 3136, 64 },    /* ResNet-50 1x1 64->64 */
    { 256, 3136, 64 },   /* ResNet-50 1x1 64->256 */
    { 128, 784, 1152 },  /* ResNet 3x3 128 at 28x28 */
    { 256, 196, 2304 },  /* ResNet 3x3 256 at 14x14 */
    { 512, 49, 4608 },   /* ResNet 3x3 512 at 7x7 */
    { 64, 50176, 576 },  /* SuperResolution conv2 */
    { 96, 12100, 363 },  /* AlexNet-style 11x11 (SqueezeNet conv1 7x7: 96x12100x147) */
    { 192, 729, 1600 },  /* AlexNet conv2 5x5 */
    { 512, 512, 512 },
    { 1024, 1024, 1024 },
  };
  int threads[8] = { 1, 2 }, n_threads = 2;
  int argi = 1;
  if (argi + 1 < argc && strcmp (argv[argi], "--threads") == 0)
    {
      n_threads = 0;
      for (char *s = strtok (argv[argi + 1], ","); s && n_threads < 8; s = strtok (NULL, ","))
        if ((threads[n_threads++] = atoi (s)) <= 0)
          {
            fprintf (stderr, "runtime-sgemm: bad thread count '%s'\n", s);
            return 2;
          }
      argi += 2;
    }
  int n_custom = argc - argi;
  if (n_custom % 3 != 0)
    {
      fprintf (stderr, "usage: runtime-sgemm [--threads T[,T...]] [M N K ...]\n");
      return 2;
    }
  int n_shapes = n_custom ? n_custom / 3 : (int) (sizeof defaults / sizeof defaults[0]);
  printf ("M\tN\tK\tthreads\tbest_gflops\tmedian_gflops\n");
  for (int s = 0; s < n_shapes; s++)
    {
      int M, N, K;
      if (n_custom)
        {
          M = atoi (argv[argi + 3 * s]), N = atoi (argv[argi + 3 * s + 1]), K = atoi (argv[argi + 3 * s + 2]);
          if (M <= 0 || N <= 0 || K <= 0 || (double) M * N > 1e9 || (double) M * K > 1e9 || (double) K * N > 1e9)
            {
              fprintf (stderr, "runtime-sgemm: bad shape %s %s %s\n", argv[argi + 3 * s],
                       argv[argi + 3 * s + 1], argv[argi + 3 * s + 2]);
              return 2;
            }
        }
      else
        M = defaults[s][0], N = defaults[s][1], K = defaults[s][2];
      for (int t = 0; t < n_threads; t++)
        {
          double best, median;
          openblas_set_num_threads (threads[t]);
          if (!run_shape (M, N, K, &best, &median))
            {
              fprintf (stderr, "runtime-sgemm: out of memory at %d x %d x %d\n", M, N, K);
              return 1;
            }
          printf ("%d\t%d\t%d\t%d\t%.1f\t%.1f\n", M, N, K, threads[t], best, median);
          fflush (stdout);
        }
    }
  return 0;
}
