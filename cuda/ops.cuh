// The per-element arithmetic and index math of the CUDA kernels, shared by
// the kernels (k-*.cu, compiled by nvcc) and the host emulator
// (emulator.cc, compiled by the C++ compiler), so the emulator checks on
// any machine what every kernel computes for one element, one output or
// one row (Note [The CUDA emulator] in emulator.cc).  Results follow the
// CPU kernels, the oracle: integers wrap, integer x / 0 is 0, NaN wins in
// Max/Min, float transcendental functions and accumulators are double.
#pragma once

#include "cuda/rt-cuda.h"
#include <cmath>
#include <cstdint>
#include <type_traits>

#ifdef __CUDACC__
#define RT_CUDA_HD __host__ __device__ __forceinline__
#else
#define RT_CUDA_HD inline
#endif

namespace rt_cuda {

template <typename T>
RT_CUDA_HD T
wrap_u64 (uint64_t v)
{
  return (T) (int64_t) v;
}

template <typename T>
RT_CUDA_HD uint64_t
u64 (T v)
{
  return (uint64_t) (int64_t) v;
}

// Integer x ** y by repeated squaring that wraps, as the CPU kernel
// (ipow_wrap in runtime/k-elementwise.c): the device's pow on doubles is
// not exact for integers (a 3 ** 1 came back truncated to 2 on an
// H200).  A negative y gives the truncated 1 / x ** -y: 1, -1 or 0.
RT_CUDA_HD int64_t
ipow_wrap (int64_t x, int64_t y)
{
  if (y < 0)
    return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
  uint64_t r = 1, b = (uint64_t) x;
  for (uint64_t e = (uint64_t) y; e; e >>= 1, b *= b)
    if (e & 1)
      r *= b;
  return (int64_t) r;
}

template <typename T>
RT_CUDA_HD T
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
      if constexpr (fl) return (T) pow ((double) x, (double) y);
      else return (T) ipow_wrap ((int64_t) x, (int64_t) y);
    case RT_CUDA_MAX:
      return (x >= y || x != x) ? x : y;
    case RT_CUDA_MIN:
      return (x <= y || x != x) ? x : y;
    }
  return x;
}

// The flat offsets of broadcast element i in a and b.
RT_CUDA_HD void
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

RT_CUDA_HD double
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
RT_CUDA_HD T
apply_unary (RtCudaUnaryOp op, T v, double alpha)
{
  constexpr bool fl = std::is_floating_point<T>::value;
  switch (op)
    {
    case RT_CUDA_NEG:
      if constexpr (fl) return -v; else return wrap_u64<T> (0 - u64 (v));
    case RT_CUDA_ABS:
      if constexpr (fl) return v < 0 ? -v : v; else return v < 0 ? wrap_u64<T> (0 - u64 (v)) : v;
    case RT_CUDA_RELU:
      return v > 0 ? v : (T) 0;
    case RT_CUDA_IDENTITY:
      return v;
    default:
      return (T) float_unary (op, (double) v, alpha);
    }
}

RT_CUDA_HD double
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
RT_CUDA_HD double
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
RT_CUDA_HD double
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

// The input offset of output o's first element (its kept index).
RT_CUDA_HD int64_t
reduce_base (const RtCudaReduce &r, int64_t o)
{
  int64_t base = 0;
  for (int d = r.n_kept - 1; d >= 0; d--)
    {
      base += (o % r.kept_dims[d]) * r.kept_strides[d];
      o /= r.kept_dims[d];
    }
  return base;
}

// The input offset of the j-th reduced element of the output at `base`.
RT_CUDA_HD int64_t
reduce_offset (const RtCudaReduce &r, int64_t base, int64_t j)
{
  for (int d = r.n_red - 1; d >= 0; d--)
    {
      base += (j % r.red_dims[d]) * r.red_strides[d];
      j /= r.red_dims[d];
    }
  return base;
}

// The output value of an accumulator.
template <typename T>
RT_CUDA_HD T
reduce_finish (RtCudaReduceOp op, double v, int64_t n_red_elems)
{
  if (op == RT_CUDA_RMEAN)
    v = n_red_elems ? v / (double) n_red_elems : NAN;
  if constexpr (!std::is_floating_point<T>::value)
    {
      if (!isfinite (v))
        v = 0;
    }
  return (T) v;
}

// One softmax output from its input v, the row's max m, the sum s of
// exp (x - m) and log (s).
RT_CUDA_HD double
softmax_value (int log_softmax, double v, double m, double s, double ls)
{
  return log_softmax ? v - m - ls : exp (v - m) / s;
}

}  // namespace rt_cuda
