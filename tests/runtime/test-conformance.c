/* Conformance: ONNX's own backend tests (Debian's libonnx-testdata). */
#include "tests/runtime/test-runtime.h"
#include "tools/backend-suite.h"

#define TESTDATA "/usr/share/libonnx-testdata/data"

static void
print_line (const char *line, gpointer user_data)
{
  gboolean verbose = GPOINTER_TO_INT (user_data);
  if (verbose || !g_str_has_prefix (line, "PASS"))
    g_test_message ("%s", line);
  if (g_getenv ("RT_SUITE_VERBOSE"))
    g_printerr ("%s\n", line);
}

static void
run_suite (const char *sub, gboolean use_expectations)
{
  g_autofree char *dir = g_build_filename (TESTDATA, sub, NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  BackendSuite s;
  backend_suite_init (&s);
  s.report = print_line;
  s.threads = 1;
  if (use_expectations)
    {
      g_autofree char *exp = test_source_path ("tests/runtime/node-expectations.txt");
      g_autoptr (GError) error = NULL;
      g_assert_true (backend_suite_load_expectations (&s, exp, &error));
      g_assert_no_error (error);
    }
  backend_suite_run_dir (&s, dir);
  g_test_message ("%s: %u passed, %u failed, %u skipped", sub, s.passed, s.failed, s.skipped);
  g_printerr ("# %s: %u passed, %u failed, %u skipped\n", sub, s.passed, s.failed, s.skipped);
  g_assert_cmpuint (s.failed, ==, 0);
  g_assert_cmpuint (s.passed, >, 0);
  backend_suite_clear (&s);
}

static void
test_pytorch_converted (void)
{
  run_suite ("pytorch-converted", FALSE);
}

static void
test_pytorch_operator (void)
{
  run_suite ("pytorch-operator", FALSE);
}

static void
test_simple (void)
{
  run_suite ("simple", TRUE);
}

static void
test_node (void)
{
  run_suite ("node", TRUE);
}

void
test_conformance_register (void)
{
  g_test_add_func ("/runtime/conformance/pytorch-converted", test_pytorch_converted);
  g_test_add_func ("/runtime/conformance/pytorch-operator", test_pytorch_operator);
  g_test_add_func ("/runtime/conformance/simple", test_simple);
  g_test_add_func ("/runtime/conformance/node", test_node);
}
