/* test-runtime: registration of each file's tests. */
#pragma once

#include "tests/common/test-util.h"
#include "runtime/runtime.h"

void test_conformance_register (void);
void test_aten_register (void);
void test_aten_nn_register (void);
void test_aten_ops_register (void);
void test_session_register (void);
void test_fusion_register (void);
void test_cli_register (void);
void test_kernels_register (void);
void test_kernels_index_register (void);
void test_sequence_register (void);
