/* Loading a graph for a command: by content, so any file name works. */
#include "tools/cli.h"
#include <string.h>

Graph *
cli_load_graph (const char *command, const char *path, CliExit *exit_code)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;
  *exit_code = CLI_EXIT_INPUT;
  if (!g_file_get_contents (path, &text, &len, &error))
    {
      cli_error (command, "%s", error->message);
      return NULL;
    }
  Graph *g = graph_parse (text, len, path, &error);
  if (g == NULL)
    {
      cli_error (command, "%s", error->message);
      return NULL;
    }
  *exit_code = CLI_EXIT_OK;
  return g;
}
