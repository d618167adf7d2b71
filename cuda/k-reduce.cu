// Reductions (ReduceSum, Mean, Max, Min, Prod, SumSquare): one block per
// output element, its threads folding strided shares of the reduced
// elements, then a tree in shared memory; the arithmetic is in ops.cuh
// (as the CPU kernel: Max/Min let NaN through, an empty Mean is NaN,
// integer results that are not finite become 0).
#include "cuda/cuda-private.cuh"
#include "cuda/ops.cuh"
#include <cmath>
#include <type_traits>

using namespace rt_cuda;

namespace {

template <typename T>
__global__ void
reduce_kernel (RtCudaReduceOp op, RtCudaReduce r, const T *x, T *y)
{
  __shared__ double part[kThreads];
  for (int64_t o = blockIdx.x; o < r.n_out; o += gridDim.x)
    {
      int64_t base = reduce_base (r, o);
      double acc = reduce_init (op);
      for (int64_t j = threadIdx.x; j < r.n_red_elems; j += blockDim.x)
        acc = reduce_fold (op, acc, (double) x[reduce_offset (r, base, j)]);
      part[threadIdx.x] = acc;
      __syncthreads ();
      for (unsigned s = blockDim.x / 2; s > 0; s >>= 1)
        {
          if (threadIdx.x < s)
            part[threadIdx.x] = reduce_combine (op, part[threadIdx.x], part[threadIdx.x + s]);
          __syncthreads ();
        }
      if (threadIdx.x == 0)
        y[o] = reduce_finish<T> (op, part[0], r.n_red_elems);
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
