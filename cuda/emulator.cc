// Note [The CUDA emulator]
// rt-cuda.h implemented on the host, for the tests on machines without a
// GPU: libsymonnx-cuda-emu.so is cuda/backend.c linked with this file
// instead of the .cu objects, and `meson test cuda-emulated` runs the
// CUDA-vs-CPU cases through it.  It runs, for every element, output and
// row, the same functions the kernels run (ops.cuh), sequentially; and the
// real gemm.cu over a reference cuBLAS (column-major, with cuBLAS's
// argument checks).  So it checks what backend.c hands the kernels (op
// table, attributes, shapes, broadcast strides, reduction descriptors,
// MatMul batch strides, the row-major to column-major GEMM mapping) and
// the per-element arithmetic against the CPU kernels.  It does not check
// the launches, the thread mapping, the shared-memory reductions, real
// cuBLAS or device memory: those await a GPU.  "Device" memory here is
// host memory.
#include "cuda/cuda-private.cuh"
#include "cuda/ops.cuh"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace rt_cuda {

cudaStream_t
stream ()
{
  return nullptr;
}

cublasHandle_t
blas ()
{
  return nullptr;
}

const char *
error (const char *what, cudaError_t e)
{
  static thread_local char buf[256];
  if (e == cudaSuccess)
    return nullptr;
  snprintf (buf, sizeof buf, "%s: error %d (emulated)", what, (int) e);
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

// ---- a reference cuBLAS ------------------------------------------------------------

extern "C" const char *
cublasGetStatusString (cublasStatus_t s)
{
  return s == CUBLAS_STATUS_INVALID_VALUE ? "CUBLAS_STATUS_INVALID_VALUE (emulated)"
                                          : "cuBLAS error (emulated)";
}

namespace {

// cublas<t>gemmStridedBatched as documented: column-major, op(A) m x k,
// op(B) k x n, C m x n; beta 0 does not read C; the leading dimensions
// are checked as cuBLAS checks them.
template <typename T>
cublasStatus_t
gemm_reference (cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T *alpha,
                const T *A, int lda, long long sa, const T *B, int ldb, long long sb,
                const T *beta, T *C, int ldc, long long sc, int batch)
{
  bool na = ta == CUBLAS_OP_N, nb = tb == CUBLAS_OP_N;
  if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (na ? (m > 1 ? m : 1) : (k > 1 ? k : 1))
      || ldb < (nb ? (k > 1 ? k : 1) : (n > 1 ? n : 1)) || ldc < (m > 1 ? m : 1))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int p = 0; p < batch; p++)
    {
      const T *a = A + p * sa, *b = B + p * sb;
      T *c = C + p * sc;
      for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
          {
            double acc = 0;
            for (int l = 0; l < k; l++)
              acc += (double) (na ? a[i + (long long) l * lda] : a[l + (long long) i * lda])
                     * (double) (nb ? b[l + (long long) j * ldb] : b[j + (long long) l * ldb]);
            double v = (double) *alpha * acc;
            if (*beta != 0)
              v += (double) *beta * (double) c[i + (long long) j * ldc];
            c[i + (long long) j * ldc] = (T) v;
          }
    }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" cublasStatus_t
cublasSgemmStridedBatched (cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                           int k, const float *alpha, const float *A, int lda, long long sa,
                           const float *B, int ldb, long long sb, const float *beta, float *C,
                           int ldc, long long sc, int batch)
{
  return gemm_reference (ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}

extern "C" cublasStatus_t
cublasDgemmStridedBatched (cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                           int k, const double *alpha, const double *A, int lda, long long sa,
                           const double *B, int ldb, long long sb, const double *beta, double *C,
                           int ldc, long long sc, int batch)
{
  return gemm_reference (ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}

// The real mapping of Gemm/MatMul onto cuBLAS.
#include "cuda/gemm.cu"

// ---- device, memory, copies ------------------------------------------------------------

extern "C" const char *
rt_cuda_probe (int *n)
{
  *n = 1;
  return nullptr;
}

extern "C" const char *
rt_cuda_malloc (void **p, size_t nbytes)
{
  *p = malloc (nbytes ? nbytes : 1);
  return *p ? nullptr : "malloc (emulated cudaMalloc): out of memory";
}

extern "C" void
rt_cuda_free (void *p)
{
  free (p);
}

extern "C" const char *
rt_cuda_copy_to_device (void *dst, const void *src, size_t nbytes)
{
  memcpy (dst, src, nbytes);
  return nullptr;
}

extern "C" const char *
rt_cuda_copy_device (void *dst, const void *src, size_t nbytes)
{
  memmove (dst, src, nbytes);
  return nullptr;
}

extern "C" const char *
rt_cuda_copy_to_host (void *dst, const void *src, size_t nbytes)
{
  memcpy (dst, src, nbytes);
  return nullptr;
}

// ---- the kernels, one element / output / row at a time ------------------------------------

extern "C" const char *
rt_cuda_binary (RtCudaBinaryOp op, RtCudaDType dt, const RtCudaBroadcast *bc, const void *a,
                const void *b, void *out, int64_t n)
{
  return dispatch (dt, [&] (auto *tag) -> const char * {
    using T = std::remove_pointer_t<decltype (tag)>;
    for (int64_t i = 0; i < n; i++)
      {
        int64_t oa, ob;
        broadcast_offsets (*bc, i, &oa, &ob);
        ((T *) out)[i] = apply_binary<T> (op, ((const T *) a)[oa], ((const T *) b)[ob]);
      }
    return nullptr;
  });
}

extern "C" const char *
rt_cuda_expand (size_t elem_size, const RtCudaBroadcast *bc, const void *a, void *out, int64_t n)
{
  return dispatch_size (elem_size, [&] (auto *tag) -> const char * {
    using T = std::remove_pointer_t<decltype (tag)>;
    for (int64_t i = 0; i < n; i++)
      {
        int64_t oa, ob;
        broadcast_offsets (*bc, i, &oa, &ob);
        ((T *) out)[i] = ((const T *) a)[oa];
      }
    return nullptr;
  });
}

extern "C" const char *
rt_cuda_unary (RtCudaUnaryOp op, RtCudaDType dt, double alpha, const void *x, void *y, int64_t n)
{
  if (RT_CUDA_UNARY_FLOAT_ONLY (op) && dt != RT_CUDA_F32 && dt != RT_CUDA_F64)
    return "rt_cuda_unary: this op takes float or double only";
  return dispatch (dt, [&] (auto *tag) -> const char * {
    using T = std::remove_pointer_t<decltype (tag)>;
    for (int64_t i = 0; i < n; i++)
      ((T *) y)[i] = apply_unary<T> (op, ((const T *) x)[i], alpha);
    return nullptr;
  });
}

extern "C" const char *
rt_cuda_reduce (RtCudaReduceOp op, RtCudaDType dt, const RtCudaReduce *r, const void *x, void *y)
{
  return dispatch (dt, [&] (auto *tag) -> const char * {
    using T = std::remove_pointer_t<decltype (tag)>;
    for (int64_t o = 0; o < r->n_out; o++)
      {
        int64_t base = reduce_base (*r, o);
        // Two partials combined, as the kernel's threads' shares are.
        double acc[2] = { reduce_init (op), reduce_init (op) };
        for (int64_t j = 0; j < r->n_red_elems; j++)
          acc[j & 1] = reduce_fold (op, acc[j & 1], (double) ((const T *) x)[reduce_offset (*r, base, j)]);
        ((T *) y)[o] = reduce_finish<T> (op, reduce_combine (op, acc[0], acc[1]), r->n_red_elems);
      }
    return nullptr;
  });
}

extern "C" const char *
rt_cuda_softmax (RtCudaDType dt, int log_softmax, const void *x, void *y, int64_t outer,
                 int64_t len, int64_t inner)
{
  if (dt != RT_CUDA_F32 && dt != RT_CUDA_F64)
    return "rt_cuda_softmax: float or double only";
  return dispatch (dt, [&] (auto *tag) -> const char * {
    using T = std::remove_pointer_t<decltype (tag)>;
    for (int64_t row = 0; row < outer * inner; row++)
      {
        int64_t o = row / inner, in = row % inner;
        const T *px = (const T *) x + o * len * inner + in;
        T *py = (T *) y + o * len * inner + in;
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < len; j++)
          if ((double) px[j * inner] > m)
            m = (double) px[j * inner];
        for (int64_t j = 0; j < len; j++)
          s += exp ((double) px[j * inner] - m);
        double ls = log (s);
        for (int64_t j = 0; j < len; j++)
          py[j * inner] = (T) softmax_value (log_softmax, (double) px[j * inner], m, s, ls);
      }
    return nullptr;
  });
}
