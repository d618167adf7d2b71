/* symonnx convert: read a model and write it again (normalising it, or
 * moving its weights to an external data file). */
#include "tools/cli.h"
#include <string.h>

static gboolean opt_external_data;
static gint64 opt_size_threshold = -1;

static const GOptionEntry convert_entries[] = {
  { "external-data", 0, 0, G_OPTION_ARG_NONE, &opt_external_data,
    "Store large tensors in OUT.onnx.data next to the model (paths relative, as onnx's "
    "external_data_helper writes them)", NULL },
  { "size-threshold", 0, 0, G_OPTION_ARG_INT64, &opt_size_threshold,
    "With --external-data: tensors of at least BYTES go external (default 1024)", "BYTES" },
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
convert_options (void)
{
  return convert_entries;
}

static int
convert_run (int argc, char **argv)
{
  if (argc != 2)
    {
      cli_error ("convert", "expected IN.onnx and OUT.onnx, got %d arguments (run 'symonnx convert --help')",
                 argc);
      return CLI_EXIT_USAGE;
    }
  if (opt_size_threshold != -1 && !opt_external_data)
    {
      cli_error ("convert", "--size-threshold needs --external-data");
      return CLI_EXIT_USAGE;
    }
  if (opt_size_threshold < -1)
    {
      cli_error ("convert", "--size-threshold must be 0 or more, got %" G_GINT64_FORMAT,
                 opt_size_threshold);
      return CLI_EXIT_USAGE;
    }
  CliExit code;
  g_autoptr (Graph) g = cli_load_graph ("convert", argv[0], &code);
  if (g == NULL)
    return code;
  /* A trace's aten::/prim:: nodes are not ONNX: writing them would give a
   * model no runtime or checker accepts. */
  graph_foreach_node (g, n)
    {
      const char *dom = graph_node_domain (n);
      if (strcmp (dom, "aten") == 0 || strcmp (dom, "prim") == 0)
        {
          cli_error ("convert", "%s is a trace (node %s): use `symonnx export %s -o %s` to "
                     "translate it to ONNX", argv[0], graph_node_kind (n), argv[0], argv[1]);
          return CLI_EXIT_USAGE;
        }
    }
  OnnxioSaveOptions opts;
  onnxio_save_options_init (&opts);
  opts.external_data = opt_external_data;
  if (opt_size_threshold >= 0)
    opts.size_threshold = (gsize) opt_size_threshold;
  g_autoptr (GError) error = NULL;
  if (!onnxio_save (g, argv[1], &opts, &error))
    {
      cli_error ("convert", "%s", error->message);
      return CLI_EXIT_OUTPUT;
    }
  return CLI_EXIT_OK;
}

const CliCommand cli_cmd_convert = {
  .name = "convert",
  .parameters = "IN OUT.onnx",
  .summary = "Read a model (or graph text) and write it as an .onnx file",
  .description = "Loads IN — an .onnx model, or a graph in symonnx text form already in ONNX "
                 "terms (a PyTorch trace is refused: `symonnx export` translates it) — and writes "
                 "OUT.onnx atomically (a temporary file in OUT's folder, then a rename: a failed "
                 "conversion never leaves a truncated model). Models whose tensors exceed 2 GiB "
                 "go to external data automatically.",
  .options = convert_options,
  .run = convert_run,
};
