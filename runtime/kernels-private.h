/* Entry points one kernel family offers another (ATen kernels reuse the
 * ONNX element-wise loops). */
#pragma once

#include "runtime/kernel.h"

/* Output 0 := op(a) with the ONNX op's loop ("Relu", "Elu", ...). */
gboolean rt_elementwise_unary (RtCall *call, const RtTensor *a, const char *op, double alpha,
                               double beta, double gamma, GError **error);
/* Output 0 := op(a, b) broadcast ("Add", "Mul", "Pow", ...); a and b of
 * one dtype (Pow: any exponent type). */
gboolean rt_elementwise_binary (RtCall *call, const RtTensor *a, const RtTensor *b,
                                const char *op, GError **error);
/* Output 0 := a copy of input 0. */
gboolean rt_kernel_copy (RtCall *call, GError **error);
/* Output 0 := a with entries outside the k-th diagonal band zeroed (ONNX
 * Trilu; aten::triu/tril). */
gboolean rt_trilu (RtCall *call, const RtTensor *a, gint64 k, gboolean upper, GError **error);
/* Runs fn with float copies of call's float16 inputs, then narrows the
 * float outputs it made to float16 (runtime/half.c). */
gboolean rt_run_as_float (RtCall *call, RtKernelFn fn, GError **error);
/* Cast / CastLike where input 0 or the target type is STRING (k-string.c). */
gboolean rt_cast_string (RtCall *call, const RtTensor *a, GraphDType to, GError **error);
