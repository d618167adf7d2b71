/* Loading a graph for a command, by content: PyTorch/symonnx text starts
 * with "graph(", anything else is read as an .onnx model. */
#include "tools/cli.h"
#include <stdio.h>
#include <string.h>

gboolean
cli_file_is_graph_text (const char *path)
{
  char head[64] = { 0 };
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return FALSE;   /* let the loader report the error */
  size_t n = fread (head, 1, sizeof head - 1, f);
  fclose (f);
  head[n] = '\0';
  const char *p = head;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return g_str_has_prefix (p, "graph(");
}

Graph *
cli_load_graph (const char *command, const char *path, CliExit *exit_code)
{
  g_autoptr (GError) error = NULL;
  Graph *g;
  *exit_code = CLI_EXIT_INPUT;
  if (cli_file_is_graph_text (path))
    g = graph_parse_file (path, &error);
  else
    g = onnxio_load (path, &error);
  if (g == NULL)
    {
      cli_error (command, "%s", error->message);
      return NULL;
    }
  *exit_code = CLI_EXIT_OK;
  return g;
}
