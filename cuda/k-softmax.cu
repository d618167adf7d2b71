// Softmax and LogSoftmax over the middle axis of [outer, len, inner]: one
// block per (outer, inner) row; max, sum of exp and the result in double,
// as the CPU kernel (runtime/k-reduce.c), whose max skips NaN.
#include "cuda/cuda-private.cuh"
#include "cuda/ops.cuh"
#include <cmath>
#include <type_traits>

using namespace rt_cuda;

namespace {

// Block-wide max or sum of v (every thread gets the result).
__device__ double
block_reduce (double v, bool is_max, double *part)
{
  part[threadIdx.x] = v;
  __syncthreads ();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1)
    {
      if (threadIdx.x < s)
        {
          double a = part[threadIdx.x], b = part[threadIdx.x + s];
          part[threadIdx.x] = is_max ? (b > a ? b : a) : a + b;
        }
      __syncthreads ();
    }
  double r = part[0];
  __syncthreads ();
  return r;
}

template <typename T>
__global__ void
softmax_kernel (int log_softmax, const T *x, T *y, int64_t outer, int64_t len, int64_t inner)
{
  __shared__ double part[kThreads];
  for (int64_t row = blockIdx.x; row < outer * inner; row += gridDim.x)
    {
      int64_t o = row / inner, in = row % inner;
      const T *px = x + o * len * inner + in;
      T *py = y + o * len * inner + in;
      double m = -INFINITY;
      for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
        {
          double v = (double) px[j * inner];
          if (v > m)
            m = v;
        }
      m = block_reduce (m, true, part);
      double s = 0;
      for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
        s += exp ((double) px[j * inner] - m);
      s = block_reduce (s, false, part);
      double ls = log (s);
      for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
        {
          double v = (double) px[j * inner];
          py[j * inner] = (T) softmax_value (log_softmax, v, m, s, ls);
        }
    }
}

}  // namespace

extern "C" const char *
rt_cuda_softmax (RtCudaDType dt, int log_softmax, const void *x, void *y, int64_t outer,
                 int64_t len, int64_t inner)
{
  if (dt != RT_CUDA_F32 && dt != RT_CUDA_F64)
    return "rt_cuda_softmax: float or double only";
  int64_t rows = outer * inner;
  if (rows <= 0 || len <= 0)
    return nullptr;
  unsigned grid = (unsigned) (rows < 65535 * 16 ? rows : 65535 * 16);
  if (dt == RT_CUDA_F32)
    softmax_kernel<float><<<grid, kThreads, 0, stream ()>>> (log_softmax, (const float *) x,
                                                             (float *) y, outer, len, inner);
  else
    softmax_kernel<double><<<grid, kThreads, 0, stream ()>>> (log_softmax, (const double *) x,
                                                              (double *) y, outer, len, inner);
  return launched ("softmax kernel launch");
}
