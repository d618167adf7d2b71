// Element-wise kernels: binary ops with numpy broadcasting, unary ops, and
// the broadcast copy, one thread per element in a grid-stride loop; what
// each element gets is in ops.cuh.
#include "cuda/cuda-private.cuh"
#include "cuda/ops.cuh"
#include <type_traits>

using namespace rt_cuda;

namespace {

template <typename T>
__global__ void
binary_kernel (RtCudaBinaryOp op, RtCudaBroadcast bc, const T *a, const T *b, T *out, int64_t n)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t oa, ob;
      broadcast_offsets (bc, i, &oa, &ob);
      out[i] = apply_binary<T> (op, a[oa], b[ob]);
    }
}

template <typename T>
__global__ void
expand_kernel (RtCudaBroadcast bc, const T *a, T *out, int64_t n)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t oa, ob;
      broadcast_offsets (bc, i, &oa, &ob);
      out[i] = a[oa];
    }
}

template <typename T>
__global__ void
unary_kernel (RtCudaUnaryOp op, double alpha, const T *x, T *y, int64_t n)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    y[i] = apply_unary<T> (op, x[i], alpha);
}

}  // namespace

extern "C" const char *
rt_cuda_binary (RtCudaBinaryOp op, RtCudaDType dt, const RtCudaBroadcast *bc, const void *a,
                const void *b, void *out, int64_t n)
{
  if (n <= 0)
    return nullptr;
  RtCudaBroadcast shape = *bc;
  return dispatch (dt, [&] (auto *tag) {
    using T = std::remove_pointer_t<decltype (tag)>;
    binary_kernel<T><<<blocks_for (n), kThreads, 0, stream ()>>> (op, shape, (const T *) a,
                                                                  (const T *) b, (T *) out, n);
    return launched ("binary kernel launch");
  });
}

extern "C" const char *
rt_cuda_expand (size_t elem_size, const RtCudaBroadcast *bc, const void *a, void *out, int64_t n)
{
  if (n <= 0)
    return nullptr;
  RtCudaBroadcast shape = *bc;
  return dispatch_size (elem_size, [&] (auto *tag) {
    using T = std::remove_pointer_t<decltype (tag)>;
    expand_kernel<T><<<blocks_for (n), kThreads, 0, stream ()>>> (shape, (const T *) a, (T *) out,
                                                                  n);
    return launched ("expand kernel launch");
  });
}

extern "C" const char *
rt_cuda_unary (RtCudaUnaryOp op, RtCudaDType dt, double alpha, const void *x, void *y, int64_t n)
{
  if (RT_CUDA_UNARY_FLOAT_ONLY (op) && dt != RT_CUDA_F32 && dt != RT_CUDA_F64)
    return "rt_cuda_unary: this op takes float or double only";
  if (n <= 0)
    return nullptr;
  return dispatch (dt, [&] (auto *tag) {
    using T = std::remove_pointer_t<decltype (tag)>;
    unary_kernel<T><<<blocks_for (n), kThreads, 0, stream ()>>> (op, alpha, (const T *) x, (T *) y,
                                                                 n);
    return launched ("unary kernel launch");
  });
}
