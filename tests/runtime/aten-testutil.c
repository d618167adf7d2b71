/* Shared by the ATen kernel tests: see tests/runtime/aten-testutil.h. */
#include "tests/runtime/aten-testutil.h"
#include "tests/common/test-util.h"
#include "export/tensorfiles.h"

Tensor *
aten_test_fixture (const char *file)
{
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/runtime/%s", file);
  g_autofree char *path = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  Tensor *t = export_npy_load (path, &error);
  g_assert_no_error (error);
  return t;
}

GHashTable *
aten_test_run (Graph *g, GHashTable *inputs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  GHashTable *outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) tensor_unref);
  g_assert_true (rt_session_run (s, inputs, outputs, &error));
  g_assert_no_error (error);
  return outputs;
}

void
aten_test_expect (GHashTable *outputs, const char *name, const char *fixture, double rtol,
                  double atol, const char *what)
{
  g_autoptr (Tensor) expected = aten_test_fixture (fixture);
  Tensor *actual = g_hash_table_lookup (outputs, name);
  g_assert_nonnull (actual);
  RtCompareResult r;
  gboolean ok = rt_compare (expected, actual, rtol, atol, FALSE, &r);
  g_autofree char *diff = rt_compare_result_to_string (&r, expected, actual);
  if (!ok)
    g_error ("%s: %s", what, diff);
  g_assert_cmpint (tensor_dtype (actual), ==, tensor_dtype (expected));
}
