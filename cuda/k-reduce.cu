// Reductions (ReduceSum, Mean, Max, Min, Prod, SumSquare): one block per
// output element, accumulating in double as the CPU kernel does
// (runtime/k-reduce.c): Max/Min let NaN through, an empty Mean is NaN,
// integer results that are not finite become 0.
#include "cuda/cuda-private.cuh"
#include <cmath>
#include <type_traits>

using namespace rt_cuda;

namespace {

__device__ __forceinline__ double
reduce_init (RtCudaReduceOp op)
{
  switch (op)
    {
    case RT_CUDA_RMAX: return -INFINITY;
    case RT_CUDA_RMIN: return INFINITY;
    case RT_CUDA_RPROD: return 1.0;
    default: return 0.0;
    }
}

// Folds an input element into an accumulator.
__device__ __forceinline__ double
reduce_fold (RtCudaReduceOp op, double acc, double x)
{
  switch (op)
    {
    case RT_CUDA_RMAX: return (x > acc || isnan (x)) ? x : acc;
    case RT_CUDA_RMIN: return (x < acc || isnan (x)) ? x : acc;
    case RT_CUDA_RPROD: return acc * x;
    case RT_CUDA_RSUMSQUARE: return acc + x * x;
    default: return acc + x;
    }
}

// Combines two partial accumulators.
__device__ __forceinline__ double
reduce_combine (RtCudaReduceOp op, double a, double b)
{
  switch (op)
    {
    case RT_CUDA_RMAX: return isnan (a) ? a : (isnan (b) || b > a) ? b : a;
    case RT_CUDA_RMIN: return isnan (a) ? a : (isnan (b) || b < a) ? b : a;
    case RT_CUDA_RPROD: return a * b;
    default: return a + b;
    }
}

template <typename T>
__global__ void
reduce_kernel (RtCudaReduceOp op, RtCudaReduce r, const T *x, T *y)
{
  __shared__ double part[kThreads];
  for (int64_t o = blockIdx.x; o < r.n_out; o += gridDim.x)
    {
      int64_t base = 0, rem = o;
      for (int d = r.n_kept - 1; d >= 0; d--)
        {
          base += (rem % r.kept_dims[d]) * r.kept_strides[d];
          rem /= r.kept_dims[d];
        }
      double acc = reduce_init (op);
      for (int64_t j = threadIdx.x; j < r.n_red_elems; j += blockDim.x)
        {
          int64_t off = base, rr = j;
          for (int d = r.n_red - 1; d >= 0; d--)
            {
              off += (rr % r.red_dims[d]) * r.red_strides[d];
              rr /= r.red_dims[d];
            }
          acc = reduce_fold (op, acc, (double) x[off]);
        }
      part[threadIdx.x] = acc;
      __syncthreads ();
      for (unsigned s = blockDim.x / 2; s > 0; s >>= 1)
        {
          if (threadIdx.x < s)
            part[threadIdx.x] = reduce_combine (op, part[threadIdx.x], part[threadIdx.x + s]);
          __syncthreads ();
        }
      if (threadIdx.x == 0)
        {
          double v = part[0];
          if (op == RT_CUDA_RMEAN)
            v = r.n_red_elems ? v / (double) r.n_red_elems : NAN;
          if constexpr (!std::is_floating_point<T>::value)
            {
              if (!isfinite (v))
                v = 0;
            }
          y[o] = (T) v;
        }
      __syncthreads ();   // part[] is reused by the next output
    }
}

}  // namespace

extern "C" const char *
rt_cuda_reduce (RtCudaReduceOp op, RtCudaDType dt, const RtCudaReduce *r, const void *x, void *y)
{
  if (r->n_out <= 0)
    return nullptr;
  RtCudaReduce shape = *r;
  unsigned grid = (unsigned) (r->n_out < 65535 * 16 ? r->n_out : 65535 * 16);
  return dispatch (dt, [&] (auto *tag) {
    using T = std::remove_pointer_t<decltype (tag)>;
    reduce_kernel<T><<<grid, kThreads, 0, stream ()>>> (op, shape, (const T *) x, (T *) y);
    return launched ("reduce kernel launch");
  });
}
