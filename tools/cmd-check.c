/* symonnx check: structural validation of a model (export/onnx-check.h). */
#include "tools/cli.h"
#include "export/onnx-check.h"
#include <stdio.h>

static gboolean opt_strict;

static const GOptionEntry check_entries[] = {
  { "strict", 0, 0, G_OPTION_ARG_NONE, &opt_strict,
    "Nodes of domains that are not ONNX's (custom ops) are errors, not warnings", NULL },
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
check_options (void)
{
  return check_entries;
}

static int
check_run (int argc, char **argv)
{
  if (argc != 1)
    {
      cli_error ("check", "expected exactly one FILE, got %d (run 'symonnx check --help')", argc);
      return CLI_EXIT_USAGE;
    }
  OnnxCheckOptions opts;
  onnx_check_options_init (&opts);
  opts.strict = opt_strict;
  g_autoptr (GPtrArray) problems = NULL;
  guint n_nodes = 0;
  if (cli_file_is_graph_text (argv[0]))
    {
      CliExit code;
      g_autoptr (Graph) g = cli_load_graph ("check", argv[0], &code);
      if (g == NULL)
        return code;
      problems = onnx_check_graph (g, &opts);
      n_nodes = graph_n_nodes (g);
    }
  else
    {
      /* Not cli_load_graph: a model whose nodes are out of order still
       * gets every problem listed. */
      g_autoptr (GError) error = NULL;
      problems = onnx_check_file (argv[0], &opts, &n_nodes, &error);
      if (problems == NULL)
        {
          cli_error ("check", "%s", error->message);
          return CLI_EXIT_INPUT;
        }
    }
  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *line = onnx_check_problem_to_string (problems->pdata[i]);
      printf ("%s: %s\n", argv[0], line);
    }
  guint errors = onnx_check_count (problems, ONNX_CHECK_ERROR);
  guint warnings = onnx_check_count (problems, ONNX_CHECK_WARNING);
  printf ("%s: %u error%s, %u warning%s (%u nodes)\n", argv[0], errors, errors == 1 ? "" : "s",
          warnings, warnings == 1 ? "" : "s", n_nodes);
  if (fflush (stdout) != 0)
    {
      cli_error ("check", "cannot write to standard output");
      return CLI_EXIT_OUTPUT;
    }
  return errors > 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

const CliCommand cli_cmd_check = {
  .name = "check",
  .parameters = "FILE",
  .summary = "Validate a model's structure against the ONNX operator schemas",
  .description = "Loads FILE (an .onnx model, or graph text) and lists every problem, one per line "
                 "on standard output (`FILE: error: node 3 'conv1' (onnx::Conv): ...`), then a "
                 "summary line. Checks that every input is defined before use; that each node's op "
                 "exists in its domain at the model's opset (or from which opset it exists) and is "
                 "not deprecated there; that its attributes are known for that op version, of the "
                 "right kind, and the required ones present; that input and output counts are "
                 "within the schema's bounds; and, for values whose types are known, that element "
                 "types are allowed by the schema's type constraints and agree where one type "
                 "parameter binds several values (both inputs of Add). `org.pytorch.aten::ATen` "
                 "nodes need a string `operator` attribute. Nodes of other domains are warnings, or "
                 "errors with --strict. Schemas: python3-onnx 1.12 (default-domain opsets 1 to 17). "
                 "Exit 1 when any error is found.",
  .options = check_options,
  .run = check_run,
};
