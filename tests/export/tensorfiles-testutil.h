/* Helpers shared by test-npy.c and test-safetensors.c. */
#pragma once

#include "symonnx.h"

/* A fresh temporary folder; remove it with tf_test_rmtree. */
char    *tf_test_tmpdir (void);
void     tf_test_rmtree (const char *dir);
/* Runs /usr/bin/python3 tests/export/SCRIPT ARGS...  Returns FALSE and marks
 * the test skipped when python3 or the source root is unavailable; asserts
 * the script exits 0 (its output is printed on failure). */
gboolean tf_test_run_python (const char *script, ...) G_GNUC_NULL_TERMINATED;
/* n bytes from `rand` in a buffer of exactly n bytes (so ASan sees reads
 * past the end). */
guint8  *tf_test_random_bytes (GRand *rand, gsize n);
/* Number of entries in `dir` whose names start with '.' (leftover
 * temporary files of the atomic writer). */
guint    tf_test_count_hidden (const char *dir);
/* A tensor of random bytes (bools kept 0/1). */
Tensor  *tf_test_make_tensor (GraphDType dtype, guint rank, const gint64 *dims, GRand *rand);
/* Same dtype, shape and bytes, asserted field by field. */
void     tf_test_assert_tensor_equal (const Tensor *a, const Tensor *b);
