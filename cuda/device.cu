// Device, stream, memory and copies of the CUDA backend.
#include "cuda/cuda-private.cuh"
#include <cstdio>
#include <mutex>

namespace rt_cuda {

static cudaStream_t the_stream;
static cublasHandle_t the_blas;
static bool ready;
static std::mutex ready_lock;

cudaStream_t
stream ()
{
  return the_stream;
}

cublasHandle_t
blas ()
{
  return the_blas;
}

const char *
error (const char *what, cudaError_t e)
{
  static thread_local char buf[256];
  if (e == cudaSuccess)
    return nullptr;
  snprintf (buf, sizeof buf, "%s: %s", what, cudaGetErrorString (e));
  return buf;
}

const char *
blas_error (const char *what, cublasStatus_t s)
{
  static thread_local char buf[256];
  if (s == CUBLAS_STATUS_SUCCESS)
    return nullptr;
  snprintf (buf, sizeof buf, "%s: %s", what, cublasGetStatusString (s));
  return buf;
}

}  // namespace rt_cuda

using namespace rt_cuda;

extern "C" const char *
rt_cuda_probe (int *n)
{
  *n = 0;
  const char *err = error ("cudaGetDeviceCount", cudaGetDeviceCount (n));
  if (err)
    {
      *n = 0;
      return err;
    }
  if (*n < 1)
    return "cudaGetDeviceCount: no CUDA-capable device is detected";
  std::lock_guard<std::mutex> hold (ready_lock);
  if (ready)
    return nullptr;
  if ((err = error ("cudaStreamCreate", cudaStreamCreateWithFlags (&the_stream,
                                                                    cudaStreamNonBlocking))))
    return err;
  if ((err = blas_error ("cublasCreate", cublasCreate (&the_blas))))
    return err;
  if ((err = blas_error ("cublasSetStream", cublasSetStream (the_blas, the_stream))))
    return err;
  ready = true;
  return nullptr;
}

extern "C" const char *
rt_cuda_malloc (void **p, size_t nbytes)
{
  *p = nullptr;
  return error ("cudaMalloc", cudaMalloc (p, nbytes));
}

extern "C" void
rt_cuda_free (void *p)
{
  cudaFree (p);
}

extern "C" const char *
rt_cuda_copy_to_device (void *dst, const void *src, size_t nbytes)
{
  const char *err = error ("cudaMemcpyAsync (to the device)",
                           cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyHostToDevice, stream ()));
  if (err)
    return err;
  // The host buffer may be reused as soon as this returns.
  return error ("cudaStreamSynchronize", cudaStreamSynchronize (stream ()));
}

extern "C" const char *
rt_cuda_copy_device (void *dst, const void *src, size_t nbytes)
{
  return error ("cudaMemcpyAsync (on the device)",
                cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyDeviceToDevice, stream ()));
}

extern "C" const char *
rt_cuda_copy_to_host (void *dst, const void *src, size_t nbytes)
{
  const char *err = error ("cudaMemcpyAsync (to the host)",
                           cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyDeviceToHost, stream ()));
  if (err)
    return err;
  return error ("cudaStreamSynchronize (a kernel before this copy, or the copy, failed)",
                cudaStreamSynchronize (stream ()));
}
