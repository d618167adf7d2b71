// Gemm and MatMul through cuBLAS: row-major C = op(A) op(B) is computed as
// the column-major C^T = op(B)^T op(A)^T, which is the same memory, so no
// transposes are materialised.
#include "cuda/cuda-private.cuh"
#include <climits>

using namespace rt_cuda;

extern "C" const char *
rt_cuda_gemm (RtCudaDType dt, const RtCudaGemm *g, const void *a, const void *b, void *c)
{
  if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX || g->batch > INT_MAX)
    return "rt_cuda_gemm: a dimension above INT_MAX";
  if (g->m <= 0 || g->n <= 0 || g->batch <= 0)
    return nullptr;
  int m = (int) g->m, n = (int) g->n, k = (int) g->k, batch = (int) g->batch;
  // Leading dimensions of the row-major operands as stored.
  int lda = g->trans_a ? m : k;
  int ldb = g->trans_b ? k : n;
  cublasOperation_t op_a = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_b = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (dt == RT_CUDA_F32)
    {
      float alpha = (float) g->alpha, beta = (float) g->beta;
      return blas_error ("cublasSgemmStridedBatched",
                         cublasSgemmStridedBatched (blas (), op_b, op_a, n, m, k, &alpha,
                                                    (const float *) b, ldb, g->stride_b,
                                                    (const float *) a, lda, g->stride_a, &beta,
                                                    (float *) c, n, g->stride_c, batch));
    }
  if (dt == RT_CUDA_F64)
    {
      double alpha = g->alpha, beta = g->beta;
      return blas_error ("cublasDgemmStridedBatched",
                         cublasDgemmStridedBatched (blas (), op_b, op_a, n, m, k, &alpha,
                                                    (const double *) b, ldb, g->stride_b,
                                                    (const double *) a, lda, g->stride_a, &beta,
                                                    (double *) c, n, g->stride_c, batch));
    }
  return "rt_cuda_gemm: float or double only";
}
