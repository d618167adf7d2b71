/* test-runtime: registration of each file's tests. */
#pragma once

#include "tests/common/test-util.h"
#include "runtime/runtime.h"
#include <stdarg.h>

void test_conformance_register (void);
void test_aten_register (void);
void test_aten_nn_register (void);
void test_aten_ops_register (void);
void test_session_register (void);
void test_fusion_register (void);
void test_fusion_transformer_register (void);
void test_fusion_qadd_register (void);
void test_softmax_register (void);
void test_packed_gemm_register (void);
void test_winograd_register (void);
void test_conv_direct_register (void);
void test_concat_views_register (void);
void test_parallel_register (void);
void test_cli_register (void);
void test_kernels_register (void);
void test_kernels_index_register (void);
void test_sequence_register (void);
void test_backend_register (void);
void test_kernels_random_register (void);

/* Runs one ONNX node on `ts` (taken) with builder attribute pairs from ap;
 * outs gets its n_out outputs (test-kernels-index.c). */
GError *test_run_op_valist (gint64 opset, const char *op, guint n_in, Tensor **ts, guint n_out,
                            Tensor **outs, va_list ap);
