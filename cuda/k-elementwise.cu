// Element-wise kernels: binary ops with numpy broadcasting, unary ops, and
// the broadcast copy.  Results follow the CPU kernels (runtime/k-elementwise.c),
// the oracle of the tests: integers wrap, integer x / 0 is 0, NaN wins in
// Max/Min, float transcendental functions are computed in double.
#include "cuda/cuda-private.cuh"
#include <type_traits>

using namespace rt_cuda;

namespace {

template <typename T>
__device__ __forceinline__ T
wrap_u64 (uint64_t v)
{
  return (T) (int64_t) v;
}

template <typename T>
__device__ __forceinline__ uint64_t
u64 (T v)
{
  return (uint64_t) (int64_t) v;
}

template <typename T>
__device__ T
apply_binary (RtCudaBinaryOp op, T x, T y)
{
  constexpr bool fl = std::is_floating_point<T>::value;
  switch (op)
    {
    case RT_CUDA_ADD:
      if constexpr (fl) return x + y; else return wrap_u64<T> (u64 (x) + u64 (y));
    case RT_CUDA_SUB:
      if constexpr (fl) return x - y; else return wrap_u64<T> (u64 (x) - u64 (y));
    case RT_CUDA_MUL:
      if constexpr (fl) return x * y; else return wrap_u64<T> (u64 (x) * u64 (y));
    case RT_CUDA_DIV:
      if constexpr (fl)
        return x / y;
      else
        return y == 0 ? (T) 0 : y == (T) -1 ? wrap_u64<T> (0 - u64 (x)) : (T) (x / y);
    case RT_CUDA_POW:
      return (T) pow ((double) x, (double) y);
    case RT_CUDA_MAX:
      return (x >= y || x != x) ? x : y;
    case RT_CUDA_MIN:
      return (x <= y || x != x) ? x : y;
    }
  return x;
}

// The flat offsets of output element i in a and b.
__device__ __forceinline__ void
broadcast_offsets (const RtCudaBroadcast &bc, int64_t i, int64_t *oa, int64_t *ob)
{
  int64_t a = 0, b = 0;
  for (int d = bc.rank - 1; d >= 0; d--)
    {
      int64_t c = i % bc.dims[d];
      i /= bc.dims[d];
      a += c * bc.a_strides[d];
      b += c * bc.b_strides[d];
    }
  *oa = a;
  *ob = b;
}

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

__device__ __forceinline__ double
float_unary (RtCudaUnaryOp op, double x, double alpha)
{
  switch (op)
    {
    case RT_CUDA_SQRT: return sqrt (x);
    case RT_CUDA_EXP: return exp (x);
    case RT_CUDA_LOG: return log (x);
    case RT_CUDA_TANH: return tanh (x);
    case RT_CUDA_SIGMOID: return x >= 0 ? 1.0 / (1.0 + exp (-x)) : exp (x) / (1.0 + exp (x));
    case RT_CUDA_ERF: return erf (x);
    case RT_CUDA_RECIPROCAL: return 1.0 / x;
    case RT_CUDA_FLOOR: return floor (x);
    case RT_CUDA_CEIL: return ceil (x);
    case RT_CUDA_SOFTPLUS: return x > 0 ? x + log1p (exp (-x)) : log1p (exp (x));
    case RT_CUDA_LEAKY_RELU: return x >= 0 ? x : alpha * x;
    case RT_CUDA_ELU: return x >= 0 ? x : alpha * expm1 (x);
    default: return x;
    }
}

template <typename T>
__global__ void
unary_kernel (RtCudaUnaryOp op, double alpha, const T *x, T *y, int64_t n)
{
  constexpr bool fl = std::is_floating_point<T>::value;
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      T v = x[i];
      T r;
      switch (op)
        {
        case RT_CUDA_NEG:
          if constexpr (fl) r = -v; else r = wrap_u64<T> (0 - u64 (v));
          break;
        case RT_CUDA_ABS:
          if constexpr (fl) r = v < 0 ? -v : v; else r = v < 0 ? wrap_u64<T> (0 - u64 (v)) : v;
          break;
        case RT_CUDA_RELU:
          r = v > 0 ? v : (T) 0;
          break;
        case RT_CUDA_IDENTITY:
          r = v;
          break;
        default:
          r = (T) float_unary (op, (double) v, alpha);
          break;
        }
      y[i] = r;
    }
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
rt_cuda_expand (RtCudaDType dt, const RtCudaBroadcast *bc, const void *a, void *out, int64_t n)
{
  if (n <= 0)
    return nullptr;
  RtCudaBroadcast shape = *bc;
  return dispatch (dt, [&] (auto *tag) {
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
