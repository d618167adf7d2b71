/* .onnx bytes → load, print, lint. */
#include "fuzz.h"
#include "symonnx.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  Graph *g = onnxio_load_from_data (data, size, NULL, "fuzz.onnx", &error);
  if (g == NULL)
    {
      g_clear_error (&error);
      return 0;
    }
  g_free (graph_to_string (g));
  if (!graph_lint (g, &error))
    g_clear_error (&error);
  graph_free (g);
  return 0;
}
