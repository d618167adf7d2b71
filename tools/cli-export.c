/* What `export` and `verify` share: option checks, the export itself with
 * its warnings, and errors that list one problem per line. */
#include "tools/cli.h"
#include "export/export.h"
#include <stdio.h>

gboolean
cli_opset_ok (const char *command, int opset)
{
  if (opset >= SYM_OPSET_MIN && opset <= SYM_OPSET_MAX)
    return TRUE;
  cli_error (command, "--opset %d is outside %d..%d", opset, SYM_OPSET_MIN, SYM_OPSET_MAX);
  return FALSE;
}

void
cli_error_lines (const char *command, const char *path, const char *message)
{
  g_auto (GStrv) lines = g_strsplit (message, "\n", -1);
  fprintf (stderr, "symonnx %s: %s%s%s\n", command, path ? path : "", path ? ": " : "", lines[0]);
  for (guint i = 1; lines[i]; i++)
    fprintf (stderr, "%s\n", lines[i]);
}

Graph *
cli_export (const char *command, const char *path, const Graph *trace, const ExportOptions *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) warnings = NULL;
  Graph *g = export_graph_report (trace, o, &warnings, &error);
  if (g == NULL)
    {
      cli_error_lines (command, path, error->message);
      return NULL;
    }
  for (guint i = 0; warnings && i < warnings->len; i++)
    fprintf (stderr, "symonnx %s: %s: warning (%s mode, not failing the export): %s\n", command,
             path, sym_mode_name (o->mode), (const char *) warnings->pdata[i]);
  return g;
}
