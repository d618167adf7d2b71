/* symonnx CUDA backend — the plain C interface of the kernels (the .cu files of cuda/).
 *
 * Only cuda/backend.c includes this header; nothing in runtime/ does (the
 * runtime reaches the backend through its table, runtime/backend.h).  It
 * includes no CUDA header, so plain C compilers read it.
 *
 * Every function returns NULL on success or a static message naming the
 * CUDA call that failed ("cudaMalloc: out of memory").  Kernels are queued
 * on the backend's one stream; rt_cuda_copy_to_host waits for them, so a
 * kernel's own failure may be reported by the next copy.  Device pointers
 * are plain `void *`; tensors are C-contiguous, as in runtime/kernel.h. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RT_CUDA_MAX_RANK 16

typedef enum
{
  RT_CUDA_F32,
  RT_CUDA_F64,
  RT_CUDA_I32,
  RT_CUDA_I64,
} RtCudaDType;

/* ---- device and memory (device.cu) ----------------------------------------- */

/* The number of devices (*n >= 1 on success); the stream and the cuBLAS
 * handle are made on the first success. */
const char *rt_cuda_probe (int *n);
const char *rt_cuda_malloc (void **p, size_t nbytes);
void        rt_cuda_free (void *p);
/* Both complete before they return. */
const char *rt_cuda_copy_to_device (void *dst, const void *src, size_t nbytes);
const char *rt_cuda_copy_to_host (void *dst, const void *src, size_t nbytes);
/* Device to device, queued on the stream (Reshape and its kin). */
const char *rt_cuda_copy_device (void *dst, const void *src, size_t nbytes);

/* ---- element-wise (k-elementwise.cu) --------------------------------------- */

/* A broadcast of up to two operands to `dims`: strides in elements, 0 on
 * the axes an operand is broadcast along (numpy rules). */
typedef struct
{
  int     rank;
  int64_t dims[RT_CUDA_MAX_RANK];
  int64_t a_strides[RT_CUDA_MAX_RANK];
  int64_t b_strides[RT_CUDA_MAX_RANK];
} RtCudaBroadcast;

typedef enum
{
  RT_CUDA_ADD,
  RT_CUDA_SUB,
  RT_CUDA_MUL,
  RT_CUDA_DIV,   /* integers: x / 0 = 0, MIN / -1 wraps, as the CPU kernel */
  RT_CUDA_POW,   /* computed in double */
  RT_CUDA_MAX,   /* NaN wins, as the CPU kernel */
  RT_CUDA_MIN,
} RtCudaBinaryOp;

/* out[n] = a op b over bc (integers wrap, two's complement). */
const char *rt_cuda_binary (RtCudaBinaryOp op, RtCudaDType dt, const RtCudaBroadcast *bc,
                            const void *a, const void *b, void *out, int64_t n);
/* out[n] = a at the offsets of bc (a_strides), elements of elem_size
 * bytes (1, 2, 4 or 8), any type: Gemm's C, Expand, Transpose. */
const char *rt_cuda_expand (size_t elem_size, const RtCudaBroadcast *bc, const void *a, void *out,
                            int64_t n);

typedef enum
{
  RT_CUDA_NEG,
  RT_CUDA_ABS,
  RT_CUDA_RELU,
  RT_CUDA_IDENTITY,
  /* float and double only from here; computed in double, as the CPU kernel */
  RT_CUDA_SQRT,
  RT_CUDA_EXP,
  RT_CUDA_LOG,
  RT_CUDA_TANH,
  RT_CUDA_SIGMOID,
  RT_CUDA_ERF,
  RT_CUDA_RECIPROCAL,
  RT_CUDA_FLOOR,
  RT_CUDA_CEIL,
  RT_CUDA_SOFTPLUS,
  RT_CUDA_LEAKY_RELU,  /* alpha */
  RT_CUDA_ELU,         /* alpha */
} RtCudaUnaryOp;

#define RT_CUDA_UNARY_FLOAT_ONLY(op) ((op) >= RT_CUDA_SQRT)

const char *rt_cuda_unary (RtCudaUnaryOp op, RtCudaDType dt, double alpha, const void *x,
                           void *y, int64_t n);

/* ---- reductions (k-reduce.cu) ------------------------------------------------ */

typedef enum
{
  RT_CUDA_RSUM,
  RT_CUDA_RMEAN,
  RT_CUDA_RMAX,
  RT_CUDA_RMIN,
  RT_CUDA_RPROD,
  RT_CUDA_RSUMSQUARE,
} RtCudaReduceOp;

/* Output element i reads the input at the offset of its kept index (kept
 * dims and their input strides, row-major) plus every offset of the
 * reduced index (reduced dims and strides).  Accumulates in double. */
typedef struct
{
  int     n_kept, n_red;
  int64_t kept_dims[RT_CUDA_MAX_RANK], kept_strides[RT_CUDA_MAX_RANK];
  int64_t red_dims[RT_CUDA_MAX_RANK], red_strides[RT_CUDA_MAX_RANK];
  int64_t n_out, n_red_elems;
} RtCudaReduce;

const char *rt_cuda_reduce (RtCudaReduceOp op, RtCudaDType dt, const RtCudaReduce *r,
                            const void *x, void *y);

/* ---- softmax (k-softmax.cu) -------------------------------------------------- */

/* Over the middle axis of x viewed as [outer, len, inner]; float, double. */
const char *rt_cuda_softmax (RtCudaDType dt, int log_softmax, const void *x, void *y,
                             int64_t outer, int64_t len, int64_t inner);

/* ---- GEMM (gemm.cu, cuBLAS) -------------------------------------------------- */

/* For b in [0, batch): C_b[m, n] = alpha * op(A_b) op(B_b) + beta * C_b,
 * row-major, op() transposing when trans_*; A_b = a + b * stride_a
 * (elements; 0: one matrix for every batch).  float, double. */
typedef struct
{
  int     trans_a, trans_b;
  int64_t m, n, k, batch;
  int64_t stride_a, stride_b, stride_c;
  double  alpha, beta;
} RtCudaGemm;

const char *rt_cuda_gemm (RtCudaDType dt, const RtCudaGemm *g, const void *a, const void *b,
                          void *c);

#ifdef __cplusplus
}
#endif
