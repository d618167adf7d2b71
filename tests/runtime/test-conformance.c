/* Conformance: ONNX's own backend tests (Debian's libonnx-testdata). */
#include "tests/runtime/test-runtime.h"
#include "tools/backend-suite.h"
#include <string.h>

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

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
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

/* node/: one test path per case, /runtime/conformance/node/NAME, sharing
 * one suite (and its expectations file); /runtime/conformance/node-all/summary
 * then checks the totals. */
static BackendSuite node_suite;
static guint node_registered, node_ran;

static void
test_node_case (gconstpointer data)
{
  const char *dir = data;
  guint failed = node_suite.failed, skipped = node_suite.skipped;
  backend_suite_run_dir (&node_suite, dir);
  node_ran++;
  g_assert_cmpuint (node_suite.failed, ==, failed);
  if (node_suite.skipped != skipped)
    g_test_skip ("listed in tests/runtime/node-expectations.txt");
}

static void
test_node_summary (void)
{
  if (node_ran == 0)
    {
      g_test_skip (node_registered ? "no node case ran" : "libonnx-testdata is not installed");
      return;
    }
  BackendSuite *s = &node_suite;
  g_test_message ("node: %u passed, %u failed, %u skipped", s->passed, s->failed, s->skipped);
  g_printerr ("# node: %u passed, %u failed, %u skipped\n", s->passed, s->failed, s->skipped);
  g_assert_cmpuint (s->failed, ==, 0);
  g_assert_cmpuint (s->passed, >, 0);
  backend_suite_clear (s);
}

static void
register_node_cases (void)
{
  g_autofree char *dir = g_build_filename (TESTDATA, "node", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  backend_suite_init (&node_suite);
  node_suite.report = print_line;
  node_suite.threads = 1;
  g_autofree char *exp = test_source_path ("tests/runtime/node-expectations.txt");
  g_autoptr (GError) error = NULL;
  if (!backend_suite_load_expectations (&node_suite, exp, &error))
    g_error ("%s", error->message);
  if (d == NULL)
    return;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *f;
  while ((f = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (f));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      char *sub = g_build_filename (dir, names->pdata[i], NULL);
      g_autofree char *m = g_build_filename (sub, "model.onnx", NULL);
      if (!g_file_test (m, G_FILE_TEST_EXISTS))
        {
          g_free (sub);
          continue;
        }
      g_autofree char *path = g_strdup_printf ("/runtime/conformance/node/%s",
                                               (char *) names->pdata[i]);
      g_test_add_data_func_full (path, sub, test_node_case, g_free);
      node_registered++;
    }
}

void
test_conformance_register (void)
{
  g_test_add_func ("/runtime/conformance/pytorch-converted", test_pytorch_converted);
  g_test_add_func ("/runtime/conformance/pytorch-operator", test_pytorch_operator);
  g_test_add_func ("/runtime/conformance/simple", test_simple);
  register_node_cases ();
  g_test_add_func ("/runtime/conformance/node-all/summary", test_node_summary);
}
