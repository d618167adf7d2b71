/* Helpers shared by the g_test executables. */
#pragma once

#include "symonnx.h"

/* Every mutation test calls this after each change. */
#define assert_lint(g)                                                       \
  G_STMT_START {                                                             \
    g_autoptr (GError) lint_error_ = NULL;                                   \
    if (!graph_lint ((g), &lint_error_))                                     \
      g_error ("graph_lint failed: %s", lint_error_->message);               \
  } G_STMT_END

/* Absolute path of a file in the source tree. */
static inline char *
test_source_path (const char *rel)
{
  const char *root = g_getenv ("SYMONNX_SOURCE_ROOT");
  return g_build_filename (root ? root : ".", rel, NULL);
}
