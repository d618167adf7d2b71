/* Loading fixtures of the source tree in tests (header only). */
#pragma once

#include "tests/common/test-util.h"
#include "export/tensorfiles.h"

/* The .npy at `rel` (relative to the source root), or NULL when there is
 * no such file (cases with a varying number of inputs or outputs probe
 * input_N / expected_N until one is missing). */
static inline Tensor *
test_npy_or_null (const char *rel)
{
  g_autofree char *path = test_source_path (rel);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  g_autoptr (GError) error = NULL;
  Tensor *t = export_npy_load (path, &error);
  g_assert_no_error (error);
  return t;
}

/* The trace text at `rel`, parsed; fails the test when it does not parse. */
static inline Graph *
test_trace_load (const char *rel)
{
  g_autofree char *path = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  Graph *t = graph_parse_file (path, &error);
  g_assert_no_error (error);
  return t;
}
