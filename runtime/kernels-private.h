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
/* Output 0 := inference batch normalisation of x (N, C, ...) with running
 * mean / var; scale and bias may be NULL (1 and 0) (k-norm.c). */
gboolean rt_batchnorm (RtCall *call, const RtTensor *x, const RtTensor *scale,
                       const RtTensor *bias, const RtTensor *mean, const RtTensor *var,
                       double eps, GError **error);
/* Output 0 := numpy matmul of a and b (one dtype) (k-matmul.c). */
/* A DequantizeLinear → Conv [→ Relu] → QuantizeLinear chain in integers
 * (Note [Quantized Conv chains], k-quant.c). */
gboolean rt_qdq_conv (RtCall *call, gboolean relu, GError **error);
gboolean rt_matmul (RtCall *call, const RtTensor *a, const RtTensor *b, GError **error);
/* Output 0 := alpha op(a) op(b) + beta c (a, b 2-D; c NULL or
 * broadcastable to (M, N)), shaped out_dims when out_dims is not NULL
 * (same numel as M x N) (k-matmul.c's Gemm). */
gboolean rt_gemm (RtCall *call, const RtTensor *a, const RtTensor *b, const RtTensor *c,
                  gboolean trans_a, gboolean trans_b, double alpha, double beta,
                  guint out_rank, const gint64 *out_dims, GError **error);
/* Output 0 := softmax (log: log-softmax) of a over axis (k-reduce.c). */
gboolean rt_softmax (RtCall *call, const RtTensor *a, guint axis, gboolean log, GError **error);
/* One LSTM layer in ONNX's layout with its default activations (gates
 * i, o, f, c): X (T, B, I), W (D, 4H, I), R (D, 4H, H), B (D, 8H), h0 and
 * c0 (D, B, H), D 1 or 2; B, h0, c0 may be NULL.  Writes the caller's
 * Y (T, D, B, H), Yh and Yc (D, B, H), any of them NULL.  Uses scratch
 * buffer 0 (k-rnn.c). */
gboolean rt_lstm_layer (RtCall *call, const RtTensor *X, const RtTensor *W, const RtTensor *R,
                        const RtTensor *B, const RtTensor *h0, const RtTensor *c0, RtTensor *Y,
                        RtTensor *Yh, RtTensor *Yc, GError **error);
/* Output 0 := torch's grid_sampler_2d of x (N, C, H, W) at grid (N, Ho,
 * Wo, 2): mode 0 bilinear, 1 nearest, 2 bicubic; pad_mode 0 zeros, 1
 * border, 2 reflection (torch's codes) (k-gridsample.c). */
gboolean rt_grid_sample (RtCall *call, const RtTensor *x, const RtTensor *g, int mode, int pad_mode,
                         gboolean align, GError **error);
/* Output 0 := einsum(equation) of inputs first, first + 1, ... (one per
 * term of the equation) (k-einsum.c; aten::einsum). */
/* RoiAlign's loop (k-detect.c): rois (R, 4) with batch_indices bi, or
 * torchvision's (K, 5) rows (batch index first) when bi is NULL; output
 * (R, C, oh, ow); sr <= 0 adaptive; half: half_pixel coordinates (0.5
 * offset, no minimum ROI size), else output_half_pixel. */
gboolean rt_roi_align (RtCall *call, const RtTensor *x, const RtTensor *rois, const RtTensor *bi, gint64 oh,
                       gint64 ow, gint64 sr, double scale, gboolean is_max, gboolean half, GError **error);
gboolean rt_einsum (RtCall *call, const char *equation, guint first, GError **error);
/* The random kernels' generator (k-random.c): GLib's Mersenne Twister,
 * seeded by the node's `seed` attribute when it has one (the same values on
 * every run), else from /dev/urandom; free with g_rand_free.  And a
 * standard normal sample drawn from it. */
GRand   *rt_random_new (const RtCall *call);
double   rt_random_normal (GRand *r);
/* Output o (any float type; its shape) := fn (r, i, data) for i = 0, 1, ...
 * in order, drawn in double from rt_random_new's generator. */
typedef double (*RtDrawFn) (GRand *r, gint64 i, gpointer data);
gboolean rt_random_fill (RtCall *call, RtTensor *o, RtDrawFn fn, gpointer data, GError **error);
/* o := U[a, b), or a + b·N(0, 1) when normal. */
gboolean rt_random_dist (RtCall *call, RtTensor *o, gboolean normal, double a, double b, GError **error);
/* o := 1 with probability p[i] (p NULL: `scalar` for every element), else
 * 0; a probability outside [0, 1] is an error. */
gboolean rt_random_bernoulli (RtCall *call, const RtTensor *p, double scalar, RtTensor *o, GError **error);
/* o (x's shape and type) and mask (bool, may be NULL) := x and all true,
 * or in training x[i] / (1 − p) kept with probability 1 − p, else 0. */
gboolean rt_random_dropout (RtCall *call, const RtTensor *x, double p, gboolean train, RtTensor *o,
                            RtTensor *mask, GError **error);
