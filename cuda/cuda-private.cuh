// Shared by the .cu files of the CUDA backend: the stream, the cuBLAS
// handle, error messages and launch sizes.
#pragma once

#include "cuda/rt-cuda.h"
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdint>

namespace rt_cuda {

// The backend's one stream and cuBLAS handle (device.cu), made by
// rt_cuda_probe's first success.
cudaStream_t stream ();
cublasHandle_t blas ();

// "what: CUDA's message" in a per-thread buffer; NULL for cudaSuccess.
const char *error (const char *what, cudaError_t e);
const char *blas_error (const char *what, cublasStatus_t s);

// The launch's own error (a bad configuration); NULL when none.
inline const char *
launched (const char *what)
{
  return error (what, cudaGetLastError ());
}

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n items.
inline unsigned
blocks_for (int64_t n)
{
  int64_t b = (n + kThreads - 1) / kThreads;
  return (unsigned) (b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

// Calls f with a null pointer of the element type of dt: f((float *) 0)...
template <typename F>
inline const char *
dispatch (RtCudaDType dt, F f)
{
  switch (dt)
    {
    case RT_CUDA_F32: return f ((float *) nullptr);
    case RT_CUDA_F64: return f ((double *) nullptr);
    case RT_CUDA_I32: return f ((int32_t *) nullptr);
    case RT_CUDA_I64: return f ((int64_t *) nullptr);
    }
  return "unknown element type";
}

// Calls f with a null pointer of an unsigned type of `size` bytes.
template <typename F>
inline const char *
dispatch_size (size_t size, F f)
{
  switch (size)
    {
    case 1: return f ((uint8_t *) nullptr);
    case 2: return f ((uint16_t *) nullptr);
    case 4: return f ((uint32_t *) nullptr);
    case 8: return f ((uint64_t *) nullptr);
    }
  return "no kernel for elements of this size";
}

}  // namespace rt_cuda
