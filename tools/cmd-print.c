/* symonnx print: a graph in PyTorch's verbose text format, or as DOT. */
#include "tools/cli.h"
#include <stdio.h>

static gboolean opt_dot;

static const GOptionEntry print_entries[] = {
  { "dot", 0, 0, G_OPTION_ARG_NONE, &opt_dot,
    "Print Graphviz DOT instead of text (render with `dot -Tpng`)", NULL },
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
print_options (void)
{
  return print_entries;
}

static int
print_run (int argc, char **argv)
{
  if (argc != 1)
    {
      cli_error ("print", "expected exactly one FILE, got %d (run 'symonnx print --help')", argc);
      return CLI_EXIT_USAGE;
    }
  CliExit code;
  g_autoptr (Graph) g = cli_load_graph ("print", argv[0], &code);
  if (g == NULL)
    return code;
  g_autoptr (GString) out = g_string_new (NULL);
  if (opt_dot)
    graph_print_dot (g, out);
  else
    graph_print (g, out);
  if (fwrite (out->str, 1, out->len, stdout) != out->len || fflush (stdout) != 0)
    {
      cli_error ("print", "cannot write to standard output");
      return CLI_EXIT_OUTPUT;
    }
  return CLI_EXIT_OK;
}

const CliCommand cli_cmd_print = {
  .name = "print",
  .parameters = "FILE",
  .summary = "Print a graph (.onnx model, trace text or our text) in PyTorch's verbose format",
  .description = "Reads FILE — an .onnx model, the text PyTorch prints for "
                 "`torch.jit.trace(m, x).inlined_graph`, or symonnx's own output (told apart by "
                 "content) — and prints it in PyTorch 1.13's verbose graph format. "
                 "With --dot, prints a Graphviz digraph instead.",
  .options = print_options,
  .run = print_run,
};
