/* doc/cuda.md's example: run a model on the GPU when there is one (the
 * CPU otherwise) and print where its nodes ran and what was copied.
 *   device-run MODEL.onnx INPUT_NAME INPUT.npy */
#include "symonnx.h"
#include <stdio.h>

static gboolean
run_model (const char *model_path, const char *input_name, const char *input_path,
           GError **error)
{
  g_autoptr (Graph) g = onnxio_load (model_path, error);
  g_autoptr (Tensor) input = g ? export_npy_load (input_path, error) : NULL;
  if (input == NULL)
    return FALSE;

  RtOptions opts;
  rt_options_init (&opts);
  g_autoptr (GError) no_gpu = NULL;
  if (rt_device_available (RT_DEVICE_CUDA, &no_gpu))
    opts.device = RT_DEVICE_CUDA;
  else
    printf ("%s; running on the CPU\n", no_gpu->message);   /* "no CUDA device: ..." */

  g_autoptr (RtSession) s = rt_session_new (g, &opts, error);
  if (s == NULL)
    return FALSE;
  g_autoptr (GHashTable) inputs = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (inputs, (gpointer) input_name, input);
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  if (!rt_session_run (s, inputs, outputs, error))
    return FALSE;

  g_autofree char *report = rt_session_fallback_report (s);
  fputs (report, stdout);          /* device, fallback nodes, copies */
  RtDeviceStats st;
  rt_session_device_stats (s, &st);
  printf ("bytes copied: %" G_GUINT64_FORMAT " to the device, %" G_GUINT64_FORMAT " back\n",
          st.input_bytes + st.fallback_to_device_bytes, st.output_bytes + st.fallback_to_host_bytes);
  return TRUE;
}

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: %s MODEL.onnx INPUT_NAME INPUT.npy\n", argv[0]);
      return 2;
    }
  g_autoptr (GError) error = NULL;
  if (!run_model (argv[1], argv[2], argv[3], &error))
    {
      fprintf (stderr, "device-run: %s\n", error->message);
      return 1;
    }
  return 0;
}
