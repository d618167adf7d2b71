/* symonnx export: trace text (+ weights) → .onnx through the symbolic
 * registry, as torch.onnx.export. */
#include "tools/cli.h"
#include "export/export.h"
#include <stdio.h>
#include <string.h>

static char *opt_output;
static char *opt_weights;
static gint opt_opset = SYM_OPSET_DEFAULT;
static char *opt_mode;
static char *opt_input_names;
static char *opt_output_names;
static char **opt_dynamic_axes;
static gboolean opt_no_folding;
static gboolean opt_keep_inits;
static gboolean opt_no_params;
static char **opt_plugins;
static gboolean opt_verbose;
static gboolean opt_no_check;
static gboolean opt_training;
static char *opt_default_dtype;
static char *opt_quantized_add;

static const GOptionEntry export_entries[] = {
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output, "Write the model to OUT.onnx (required)", "OUT.onnx" },
  { "weights", 'w', 0, G_OPTION_ARG_FILENAME, &opt_weights,
    "State dict (.safetensors) whose names the trace's prim::GetAttr chains resolve to", "W.safetensors" },
  { "opset", 0, 0, G_OPTION_ARG_INT, &opt_opset, "Target ONNX opset, 9 to 17 (default 14)", "N" },
  { "mode", 0, 0, G_OPTION_ARG_STRING, &opt_mode,
    "Operator export type: onnx (default), aten, aten-fallback or fallthrough", "MODE" },
  { "input-names", 0, 0, G_OPTION_ARG_STRING, &opt_input_names,
    "Comma-separated graph input names (default: the trace's names)", "a,b" },
  { "output-names", 0, 0, G_OPTION_ARG_STRING, &opt_output_names,
    "Comma-separated graph output names (default: output, output_1, ...)", "y" },
  { "dynamic-axes", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_dynamic_axes,
    "Dynamic dims of inputs/outputs, NAME:AXIS=SYMBOL,... (repeatable; they become dim_param; as torch.onnx.export, an unknown NAME and an output's AXIS past its rank are ignored with a warning)", "SPEC" },
  { "no-constant-folding", 0, 0, G_OPTION_ARG_NONE, &opt_no_folding, "Do not fold constant subgraphs", NULL },
  { "keep-initializers-as-inputs", 0, 0, G_OPTION_ARG_NONE, &opt_keep_inits,
    "Also list the weights among the graph inputs", NULL },
  { "no-export-params", 0, 0, G_OPTION_ARG_NONE, &opt_no_params,
    "Weights become plain graph inputs instead of initializers (no --weights needed)", NULL },
  { "plugin", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_plugins,
    "Load custom symbolic functions from a plugin (repeatable)", "LIB.so" },
  { "verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose,
    "Print the exported graph in PyTorch's format on standard output", NULL },
  { "no-check", 0, 0, G_OPTION_ARG_NONE, &opt_no_check,
    "Do not run the model checker on the result", NULL },
  { "training", 0, 0, G_OPTION_ARG_NONE, &opt_training,
    "The trace was recorded in training mode on purpose: batch_norm exports the batch's statistics "
    "(default: refused as a forgotten model.eval())", NULL },
  { "default-dtype", 0, 0, G_OPTION_ARG_STRING, &opt_default_dtype,
    "PyTorch's default dtype when the model was traced (torch.get_default_dtype()): float "
    "(default), double, float16 or bfloat16; the result type of true division of integers in "
    "scripted code", "TYPE" },
  { "quantized-add", 0, 0, G_OPTION_ARG_STRING, &opt_quantized_add,
    "How quantized::add/add_relu are exported: qnnpack (default: the integer arithmetic of "
    "PyTorch's qnnpack engine, which every ONNX runtime then computes exactly) or float "
    "(DequantizeLinear, Add, QuantizeLinear as torch.onnx writes them: the fbgemm/x86 engines' "
    "rounding)", "FORM" },
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
export_options (void)
{
  return export_entries;
}

static char **
split_names (const char *s)
{
  return s ? g_strsplit (s, ",", -1) : NULL;
}

static int
export_run (int argc, char **argv)
{
  if (argc != 1)
    {
      cli_error ("export", "expected exactly one TRACE file, got %d (run 'symonnx export --help')", argc);
      return CLI_EXIT_USAGE;
    }
  if (opt_output == NULL)
    {
      cli_error ("export", "missing -o OUT.onnx");
      return CLI_EXIT_USAGE;
    }
  if (!cli_opset_ok ("export", opt_opset))
    return CLI_EXIT_USAGE;
  ExportOptions o;
  export_options_init (&o);
  o.opset = opt_opset;
  o.check = !opt_no_check;
  if (opt_mode && !sym_mode_from_name (opt_mode, &o.mode))
    {
      cli_error ("export", "unknown --mode '%s' (onnx, aten, aten-fallback, fallthrough)", opt_mode);
      return CLI_EXIT_USAGE;
    }
  g_autoptr (GError) error = NULL;
  /* repeatable: --dynamic-axes x:0=n --dynamic-axes x:1=m is x:0=n,x:1=m */
  g_autofree char *axes = opt_dynamic_axes ? g_strjoinv (",", opt_dynamic_axes) : NULL;
  if (axes && !export_options_parse_dynamic_axes (&o, axes, &error))
    {
      cli_error ("export", "%s", error->message);
      export_options_clear (&o);
      return CLI_EXIT_USAGE;
    }
  g_auto (GStrv) in_names = split_names (opt_input_names);
  g_auto (GStrv) out_names = split_names (opt_output_names);
  o.input_names = (const char *const *) in_names;
  o.output_names = (const char *const *) out_names;
  o.do_constant_folding = !opt_no_folding;
  o.keep_initializers_as_inputs = opt_keep_inits;
  o.export_params = !opt_no_params;
  o.training = opt_training;
  if (opt_quantized_add && strcmp (opt_quantized_add, "qnnpack") != 0
      && strcmp (opt_quantized_add, "float") != 0)
    {
      cli_error ("export", "unknown --quantized-add '%s' (qnnpack, float)", opt_quantized_add);
      export_options_clear (&o);
      return CLI_EXIT_USAGE;
    }
  o.float_quantized_add = opt_quantized_add && strcmp (opt_quantized_add, "float") == 0;
  if (opt_default_dtype
      && (!graph_dtype_from_name (opt_default_dtype, &o.default_dtype)
          || !graph_dtype_is_floating (o.default_dtype)))
    {
      cli_error ("export", "unknown --default-dtype '%s' (float, double, float16, bfloat16)",
                 opt_default_dtype);
      export_options_clear (&o);
      return CLI_EXIT_USAGE;
    }
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  o.registry = reg;
  int rc = CLI_EXIT_OK;
  for (guint i = 0; opt_plugins && opt_plugins[i]; i++)
    if (!sym_registry_load_plugin (reg, opt_plugins[i], &error))
      {
        cli_error ("export", "%s", error->message);
        export_options_clear (&o);
        return CLI_EXIT_INPUT;
      }
  g_autoptr (GHashTable) weights = NULL;
  if (opt_weights)
    {
      weights = export_safetensors_load (opt_weights, &error);
      if (weights == NULL)
        {
          cli_error ("export", "%s", error->message);
          export_options_clear (&o);
          return CLI_EXIT_INPUT;
        }
      o.weights = weights;
    }
  CliExit code;
  g_autoptr (Graph) trace = cli_load_graph ("export", argv[0], &code);
  /* Several unconvertible ops or checker errors: one line each. */
  g_autoptr (Graph) g = trace ? cli_export ("export", argv[0], trace, &o) : NULL;
  if (trace == NULL)
    rc = code;
  else if (g == NULL)
    rc = CLI_EXIT_PROCESS;
  else if (!onnxio_save (g, opt_output, NULL, &error))
    {
      cli_error ("export", "%s", error->message);
      rc = CLI_EXIT_OUTPUT;
    }
  else if (opt_verbose)
    {
      g_autofree char *text = graph_to_string (g);
      fputs (text, stdout);
    }
  export_options_clear (&o);
  return rc;
}

const CliCommand cli_cmd_export = {
  .name = "export",
  .parameters = "TRACE",
  .summary = "Export a trace (PyTorch's inlined_graph text) to an ONNX model",
  .description = "Translates every aten/prim node of TRACE through the symbolic registry for the "
                 "target opset, as torch.onnx.export does, then folds constants, removes dead "
                 "code and writes OUT.onnx. Weights named by the trace's prim::GetAttr chains "
                 "(conv1.weight, layer1.0.bn1.running_mean, ...) come from --weights. In ONNX "
                 "mode every operator without a symbolic is reported (all of them, one run, one a "
                 "line) and nothing is written; --mode aten-fallback emits ATen nodes for them "
                 "instead. The result then goes through the model checker (`symonnx check`): in "
                 "ONNX mode a node ONNX does not define (a misspelled op or attribute in a "
                 "symbolic) is an error (exit 4) naming the node and the symbolic that made it, "
                 "and nothing is written; in the other modes it is a warning. --no-check skips it.",
  .options = export_options,
  .run = export_run,
};
