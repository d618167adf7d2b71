/* test-runtime: the executor's tests. */
#include "tests/runtime/test-runtime.h"
#include <locale.h>

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "C");
  g_test_init (&argc, &argv, NULL);
  test_session_register ();
  test_fusion_register ();
  test_fusion_transformer_register ();
  test_fusion_qadd_register ();
  test_softmax_register ();
  test_packed_gemm_register ();
  test_winograd_register ();
  test_conv_direct_register ();
  test_concat_views_register ();
  test_parallel_register ();
  test_aten_register ();
  test_aten_nn_register ();
  test_aten_ops_register ();
  test_kernels_register ();
  test_kernels_index_register ();
  test_kernels_random_register ();
  test_sequence_register ();
  test_backend_register ();
  test_conformance_register ();
  test_cli_register ();
  return g_test_run ();
}
