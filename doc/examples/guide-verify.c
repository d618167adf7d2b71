/* doc/guide.md's "Verifying an export in C": load a model, run it with the
 * bundled executor and compare its output with an expected .npy file.
 *   guide-verify MODEL.onnx INPUT_NAME INPUT.npy EXPECTED.npy */
#include "symonnx.h"
#include <stdio.h>

static gboolean
verify_model (const char *model_path, const char *input_name, const char *input_path,
              const char *expected_path, GError **error)
{
  g_autoptr (Graph) g = onnxio_load (model_path, error);
  if (g == NULL)
    return FALSE;
  g_autoptr (Tensor) input = export_npy_load (input_path, error);
  g_autoptr (Tensor) expected = input ? export_npy_load (expected_path, error) : NULL;
  if (expected == NULL)
    return FALSE;

  RtOptions opts;
  rt_options_init (&opts);
  g_autoptr (RtSession) s = rt_session_new (g, &opts, error);
  if (s == NULL)
    return FALSE;
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  g_hash_table_insert (inputs, g_strdup (input_name), tensor_ref (input));
  if (!rt_session_run (s, inputs, outputs, error))
    return FALSE;

  const char *out_name = graph_value_get_name (graph_output (g, 0));
  Tensor *actual = g_hash_table_lookup (outputs, out_name);
  RtCompareResult r;
  gboolean ok = rt_compare (expected, actual, 1e-3, 1e-5, FALSE, &r);
  g_autofree char *summary = rt_compare_result_to_string (&r, expected, actual);
  printf ("%s: %s\n", out_name, summary);
  if (!ok)
    g_set_error (error, RT_ERROR, RT_ERROR_FAILED, "%s differs from %s", out_name, expected_path);
  return ok;
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: guide-verify MODEL.onnx INPUT_NAME INPUT.npy EXPECTED.npy\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  if (!verify_model (argv[1], argv[2], argv[3], argv[4], &error))
    {
      fprintf (stderr, "guide-verify: %s\n", error->message);
      return 1;
    }
  return 0;
}
