/* Trace text → parse, print, export at opset 14 (ONNX mode, no weights:
 * parameters become inputs). */
#include "fuzz.h"
#include "symonnx.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  Graph *trace = graph_parse ((const char *) data, size, "fuzz.trace", &error);
  if (trace == NULL)
    {
      g_clear_error (&error);
      return 0;
    }
  g_free (graph_to_string (trace));
  ExportOptions o;
  export_options_init (&o);
  o.export_params = FALSE;
  Graph *g = export_graph (trace, &o, &error);
  if (g)
    {
      g_free (graph_to_string (g));
      graph_free (g);
    }
  else
    g_clear_error (&error);
  export_options_clear (&o);
  graph_free (trace);
  return 0;
}
