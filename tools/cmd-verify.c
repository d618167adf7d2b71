/* symonnx verify: export a trace (or take a model), run it with the bundled
 * executor and compare its outputs with expected ones — PyTorch's, from
 * torch2trace's expected_N.npy, or the executor's own run of the trace's
 * aten:: nodes. */
#include "tools/cli.h"
#include "export/export.h"
#include "export/onnxio.h"
#include "export/tensorfiles.h"
#include "runtime/runtime.h"
#include "verify/verify.h"
#include <glib/gstdio.h>
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define VERIFY_RTOL 1e-3
#define VERIFY_ATOL 1e-5

static char **opt_inputs;
static char **opt_expected;
static char *opt_weights;
static gint opt_opset = SYM_OPSET_DEFAULT;
static char *opt_mode;
static char **opt_plugins;
static double opt_rtol = VERIFY_RTOL;
static double opt_atol = VERIFY_ATOL;
static char *opt_output;
static char *opt_save_reference;
static gboolean opt_localize;
static double opt_node_rtol = VERIFY_DEFAULT_NODE_RTOL;
static gboolean opt_all;

static const GOptionEntry verify_entries[] = {
  { "input", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &opt_inputs,
    "Graph input NAME from FILE (.npy or TensorProto .pb); a bare FILE binds the next unbound "
    "input in graph order. Repeat for each input", "NAME=FILE" },
  { "expected", 'e', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_expected,
    "Expected value of the next graph output (.npy or .pb), in output order; repeat for each "
    "output", "FILE" },
  { "weights", 'w', 0, G_OPTION_ARG_FILENAME, &opt_weights,
    "State dict (.safetensors) for a trace's prim::GetAttr chains", "W.safetensors" },
  { "opset", 0, 0, G_OPTION_ARG_INT, &opt_opset, "Target ONNX opset when exporting a trace, 9 to 17 (default 14)", "N" },
  { "mode", 0, 0, G_OPTION_ARG_STRING, &opt_mode,
    "Operator export type: onnx (default), aten, aten-fallback or fallthrough", "MODE" },
  { "plugin", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_plugins,
    "Load custom symbolic functions from a plugin (repeatable)", "LIB.so" },
  { "rtol", 0, 0, G_OPTION_ARG_DOUBLE, &opt_rtol, "Relative tolerance (default 1e-3)", "R" },
  { "atol", 0, 0, G_OPTION_ARG_DOUBLE, &opt_atol, "Absolute tolerance (default 1e-5)", "A" },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
    "Keep the exported model as OUT.onnx (default: a temporary file, removed)", "OUT.onnx" },
  { "save-reference", 0, 0, G_OPTION_ARG_FILENAME, &opt_save_reference,
    "Write the reference outputs (the trace run's, without --expected) as DIR/reference_N.npy",
    "DIR" },
  { "localize", 0, 0, G_OPTION_ARG_NONE, &opt_localize,
    "Also run the trace's aten nodes and the export side by side and name the first node whose "
    "ONNX counterpart diverges (kind, scope, source line, symbolic, opset, error)", NULL },
  { "node-rtol", 0, 0, G_OPTION_ARG_DOUBLE, &opt_node_rtol,
    "With --localize: each node's absolute tolerance grows by this fraction of the node's largest "
    "|value| (float32 summation order; default 3e-5, 0: the outputs' allclose)", "F" },
  { "all", 0, 0, G_OPTION_ARG_NONE, &opt_all,
    "With --localize: print every translated node's figures as a table (implies --localize)", NULL },
  CLI_LIMIT_ENTRIES,
  CLI_DEVICE_ENTRIES,
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
verify_options (void)
{
  return verify_entries;
}

static Tensor *
load_tensor (const char *path, GError **error)
{
  if (g_str_has_suffix (path, ".pb"))
    return onnxio_tensor_load (path, NULL, error);
  return export_npy_load (path, error);
}

/* A trace still holds aten::/prim:: nodes; an exported or loaded model
 * holds none. */
static gboolean
is_trace (const Graph *g)
{
  for (GraphNode *n = graph_first_node (g); n; n = graph_node_next (n))
    {
      const char *d = graph_node_domain (n);
      if (strcmp (d, "aten") == 0 || strcmp (d, "prim") == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_input (const Graph *g, const char *name)
{
  for (guint i = 0; i < graph_n_inputs (g); i++)
    if (g_strcmp0 (graph_value_get_name (graph_input (g, i)), name) == 0)
      return TRUE;
  return FALSE;
}

/* Binds every --input to the graph's inputs: NAME=FILE by name, a bare FILE
 * to the next required input not yet bound. */
static GHashTable *
bind_inputs (const char *model, Graph *g, RtSession *s, CliExit *code)
{
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  guint next = 0;
  for (char **p = opt_inputs; p && *p; p++)
    {
      const char *eq = strchr (*p, '=');
      g_autofree char *name = NULL;
      const char *file = *p;
      if (eq && eq != *p)
        {
          name = g_strndup (*p, eq - *p);
          file = eq + 1;
          if (!has_input (g, name))
            {
              cli_error ("verify", "%s: the graph has no input named '%s'", model, name);
              *code = CLI_EXIT_USAGE;
              return NULL;
            }
        }
      else
        {
          while (next < rt_session_n_required_inputs (s)
                 && g_hash_table_contains (inputs, graph_value_get_name (rt_session_required_input (s, next))))
            next++;
          if (next == rt_session_n_required_inputs (s))
            {
              cli_error ("verify", "%s: --input %s: every graph input is already bound", model, *p);
              *code = CLI_EXIT_USAGE;
              return NULL;
            }
          name = g_strdup (graph_value_get_name (rt_session_required_input (s, next)));
        }
      g_autoptr (GError) error = NULL;
      Tensor *t = load_tensor (file, &error);
      if (t == NULL)
        {
          cli_error ("verify", "%s", error->message);
          *code = CLI_EXIT_INPUT;
          return NULL;
        }
      g_hash_table_replace (inputs, g_steal_pointer (&name), t);
    }
  for (guint i = 0; i < rt_session_n_required_inputs (s); i++)
    {
      const char *name = graph_value_get_name (rt_session_required_input (s, i));
      if (name && !g_hash_table_contains (inputs, name))
        {
          cli_error ("verify", "%s: missing --input %s=FILE for the graph input '%s'", model, name, name);
          *code = CLI_EXIT_USAGE;
          return NULL;
        }
    }
  return g_steal_pointer (&inputs);
}

/* Exports the trace, writes the model and loads it back, so what runs is
 * what the file holds. */
static Graph *
export_with (const char *path, Graph *trace, ExportOptions *o, GHashTable *weights,
             const char *out_path, CliExit *code)
{
  g_autoptr (GError) error = NULL;
  *code = CLI_EXIT_INPUT;
  for (guint i = 0; opt_plugins && opt_plugins[i]; i++)
    if (!sym_registry_load_plugin (o->registry, opt_plugins[i], &error))
      {
        cli_error ("verify", "%s", error->message);
        return NULL;
      }
  o->weights = weights;   /* export_options_clear does not unref it */
  g_autoptr (Graph) g = cli_export ("verify", path, trace, o);
  if (g == NULL)
    {
      *code = CLI_EXIT_PROCESS;
      return NULL;
    }
  if (!onnxio_save (g, out_path, NULL, &error))
    {
      cli_error ("verify", "%s", error->message);
      *code = CLI_EXIT_OUTPUT;
      return NULL;
    }
  Graph *loaded = onnxio_load (out_path, &error);
  if (loaded == NULL)
    {
      cli_error ("verify", "the exported model does not load back: %s", error->message);
      *code = CLI_EXIT_PROCESS;
    }
  return loaded;
}

static Graph *
export_trace (const char *path, Graph *trace, SymMode mode, GHashTable *weights,
              const char *out_path, CliExit *code)
{
  ExportOptions o;
  export_options_init (&o);
  o.opset = opt_opset;
  o.mode = mode;
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  o.registry = reg;
  Graph *g = export_with (path, trace, &o, weights, out_path, code);
  export_options_clear (&o);
  return g;
}

static GHashTable *
new_tensor_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
}

/* The reference outputs, in the model's output order: --expected files, or
 * the executor's run of the trace itself. */
static GPtrArray *
reference_outputs (const char *path, Graph *trace, Graph *model, GHashTable *weights,
                   GHashTable *inputs, const char **source, CliExit *code)
{
  g_autoptr (GPtrArray) ref = g_ptr_array_new_with_free_func ((GDestroyNotify) tensor_unref);
  g_autoptr (GError) error = NULL;
  guint n_expected = opt_expected ? g_strv_length (opt_expected) : 0;
  if (n_expected > 0)
    {
      if (n_expected != graph_n_outputs (model))
        {
          cli_error ("verify", "%s: %u --expected file%s for %u graph output%s", path, n_expected,
                     n_expected == 1 ? "" : "s", graph_n_outputs (model),
                     graph_n_outputs (model) == 1 ? "" : "s");
          *code = CLI_EXIT_USAGE;
          return NULL;
        }
      for (guint i = 0; i < n_expected; i++)
        {
          Tensor *t = load_tensor (opt_expected[i], &error);
          if (t == NULL)
            {
              cli_error ("verify", "%s", error->message);
              *code = CLI_EXIT_INPUT;
              return NULL;
            }
          g_ptr_array_add (ref, t);
        }
      *source = "the expected files";
      return g_steal_pointer (&ref);
    }
  if (trace == NULL)
    {
      cli_error ("verify", "%s: a model file needs --expected FILE for each of its %u output%s",
                 path, graph_n_outputs (model), graph_n_outputs (model) == 1 ? "" : "s");
      *code = CLI_EXIT_USAGE;
      return NULL;
    }
  g_autoptr (Graph) runnable = verify_runnable_trace (trace, weights, &error);
  if (runnable == NULL)
    {
      cli_error ("verify", "%s: %s", path, error->message);
      *code = CLI_EXIT_INPUT;
      return NULL;
    }
  RtOptions ro;
  rt_options_init (&ro);
  if (!cli_apply_limits ("verify", &ro))
    {
      *code = CLI_EXIT_USAGE;
      return NULL;
    }
  g_autoptr (RtSession) s = rt_session_new (runnable, &ro, &error);
  if (s == NULL)
    {
      cli_error ("verify", "%s: no --expected given and the executor cannot run the trace itself "
                 "(%s); give --expected FILE for each output (torch2trace writes expected_N.npy)",
                 path, error->message);
      *code = CLI_EXIT_PROCESS;
      return NULL;
    }
  /* The trace's inputs carry the same names as the exported model's. */
  g_autoptr (GHashTable) outs = new_tensor_table ();
  if (!rt_session_run (s, inputs, outs, &error))
    {
      cli_error ("verify", "%s: running the trace for reference outputs: %s", path, error->message);
      *code = CLI_EXIT_PROCESS;
      return NULL;
    }
  if (graph_n_outputs (runnable) != graph_n_outputs (model))
    {
      cli_error ("verify", "%s: the trace has %u outputs and the export %u; give --expected files",
                 path, graph_n_outputs (runnable), graph_n_outputs (model));
      *code = CLI_EXIT_USAGE;
      return NULL;
    }
  for (guint i = 0; i < graph_n_outputs (runnable); i++)
    {
      const char *name = graph_value_get_name (graph_output (runnable, i));
      Tensor *t = name ? g_hash_table_lookup (outs, name) : NULL;
      if (t == NULL)
        {
          cli_error ("verify", "%s: the trace's run gave no value for output %u", path, i);
          *code = CLI_EXIT_PROCESS;
          return NULL;
        }
      g_ptr_array_add (ref, tensor_ref (t));
    }
  *source = "the executor's run of the trace's aten nodes";
  return g_steal_pointer (&ref);
}

static char *
shape_string (const Tensor *t)
{
  GString *s = g_string_new (graph_dtype_name (tensor_dtype (t)));
  g_string_append_c (s, '(');
  for (guint k = 0; k < tensor_rank (t); k++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, k ? ", " : "", tensor_dim (t, k));
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* One line per output; returns the number of outputs past tolerance. */
static guint
print_table (Graph *model, GPtrArray *ref, GHashTable *outs)
{
  guint failed = 0;
  printf ("%-20s %-22s %12s %12s %12s %10s\n", "output", "shape", "max abs err", "max rel err",
          "mismatches", "first");
  for (guint i = 0; i < graph_n_outputs (model); i++)
    {
      const char *name = graph_value_get_name (graph_output (model, i));
      const Tensor *e = ref->pdata[i];
      const Tensor *a = name ? g_hash_table_lookup (outs, name) : NULL;
      RtCompareResult r;
      gboolean ok = a && rt_compare (e, a, opt_rtol, opt_atol, TRUE, &r);
      g_autofree char *shape = a ? shape_string (a) : g_strdup ("-");
      if (a == NULL || r.shape_mismatch)
        {
          g_autofree char *want = shape_string (e);
          printf ("%-20s %-22s expected %s\n", name ? name : "?", shape, want);
        }
      else
        {
          g_autofree char *first = r.first_mismatch < 0 ? g_strdup ("-")
                                    : g_strdup_printf ("%" G_GINT64_FORMAT, r.first_mismatch);
          g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                                                   r.mismatches, tensor_numel (e));
          printf ("%-20s %-22s %12.3g %12.3g %12s %10s\n", name ? name : "?", shape,
                  r.max_abs_error, r.max_rel_error, count, first);
          if (!ok)
            {
              g_autofree char *detail = rt_compare_result_to_string (&r, e, a);
              printf ("  %s: %s\n", name ? name : "?", detail);
            }
        }
      failed += !ok;
    }
  return failed;
}

/* --save-reference: DIR/reference_N.npy, in output order. */
static gboolean
save_reference (GPtrArray *ref)
{
  g_autoptr (GError) error = NULL;
  if (g_mkdir_with_parents (opt_save_reference, 0777) != 0)
    {
      cli_error ("verify", "cannot create %s: %s", opt_save_reference, g_strerror (errno));
      return FALSE;
    }
  for (guint i = 0; i < ref->len; i++)
    {
      g_autofree char *base = g_strdup_printf ("reference_%u.npy", i);
      g_autofree char *file = g_build_filename (opt_save_reference, base, NULL);
      if (!export_npy_save (ref->pdata[i], file, &error))
        {
          cli_error ("verify", "%s", error->message);
          return FALSE;
        }
    }
  return TRUE;
}

/* --localize: export again keeping each node's ONNX counterparts, run
 * both graphs and print where they part (verify/localize.c). */
static gboolean
localize (const char *path, Graph *trace, SymMode mode, GHashTable *weights, GHashTable *inputs,
          CliExit *code)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  for (guint i = 0; opt_plugins && opt_plugins[i]; i++)
    if (!sym_registry_load_plugin (reg, opt_plugins[i], &error))
      {
        cli_error ("verify", "%s", error->message);
        *code = CLI_EXIT_INPUT;
        return FALSE;
      }
  ExportOptions o;
  export_options_init (&o);
  o.opset = opt_opset;
  o.mode = mode;
  o.registry = reg;
  o.weights = weights;
  g_autoptr (VerifyLocalization) l = verify_localize_full (trace, &o, inputs, opt_rtol, opt_atol,
                                                                  opt_node_rtol, &error);
  export_options_clear (&o);
  if (l == NULL)
    {
      cli_error ("verify", "%s: --localize: %s", path, error->message);
      *code = CLI_EXIT_PROCESS;
      return FALSE;
    }
  g_autofree char *report = verify_localization_format (l, opt_all);
  fputs (report, stdout);
  *code = l->first >= 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
  return TRUE;
}

static int
verify_run (int argc, char **argv)
{
  if (argc != 1)
    {
      cli_error ("verify", "expected exactly one TRACE or MODEL, got %d (run 'symonnx verify --help')", argc);
      return CLI_EXIT_USAGE;
    }
  if (!(opt_rtol >= 0) || !(opt_atol >= 0) || !(opt_node_rtol >= 0) || !isfinite (opt_node_rtol))
    {
      cli_error ("verify", "--rtol, --atol and --node-rtol must be non-negative numbers");
      return CLI_EXIT_USAGE;
    }
  if (!cli_opset_ok ("verify", opt_opset))
    return CLI_EXIT_USAGE;
  SymMode mode = SYM_MODE_ONNX;
  if (opt_mode && !sym_mode_from_name (opt_mode, &mode))
    {
      cli_error ("verify", "unknown --mode '%s' (onnx, aten, aten-fallback, fallthrough)", opt_mode);
      return CLI_EXIT_USAGE;
    }
  const char *path = argv[0];
  CliExit code;
  g_autoptr (Graph) loaded = cli_load_graph ("verify", path, &code);
  if (loaded == NULL)
    return code;
  g_autoptr (Graph) exported = NULL;
  g_autoptr (GHashTable) weights = NULL;
  Graph *trace = NULL, *model = loaded;
  g_autofree char *tmp_path = NULL;
  if (is_trace (loaded))
    {
      trace = loaded;
      if (opt_weights)
        {
          g_autoptr (GError) error = NULL;
          weights = export_safetensors_load (opt_weights, &error);
          if (weights == NULL)
            {
              cli_error ("verify", "%s", error->message);
              return CLI_EXIT_INPUT;
            }
        }
      const char *out_path = opt_output;
      if (out_path == NULL)
        {
          g_autoptr (GError) error = NULL;
          int fd = g_file_open_tmp ("symonnx-verify-XXXXXX.onnx", &tmp_path, &error);
          if (fd < 0)
            {
              cli_error ("verify", "%s", error->message);
              return CLI_EXIT_OUTPUT;
            }
          close (fd);
          out_path = tmp_path;
        }
      exported = export_trace (path, trace, mode, weights, out_path, &code);
      if (tmp_path)
        g_unlink (tmp_path);
      if (exported == NULL)
        return code;
      model = exported;
    }
  else if (opt_weights || opt_plugins || opt_mode || opt_output || opt_localize || opt_all)
    {
      cli_error ("verify", "%s is not a trace: --weights, --plugin, --mode, --output, --localize "
                 "and --all only apply when exporting a trace", path);
      return CLI_EXIT_USAGE;
    }

  RtOptions ro;
  rt_options_init (&ro);
  if (!cli_apply_limits ("verify", &ro))
    return CLI_EXIT_USAGE;
  if ((code = cli_apply_device ("verify", &ro)) != CLI_EXIT_OK)
    return code;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (model, &ro, &error);
  if (s == NULL)
    {
      cli_error ("verify", "%s: %s", path, error->message);
      return CLI_EXIT_PROCESS;
    }
  g_autoptr (GHashTable) inputs = bind_inputs (path, model, s, &code);
  if (inputs == NULL)
    return code;
  const char *source = NULL;
  g_autoptr (GPtrArray) ref = reference_outputs (path, trace, model, weights, inputs, &source, &code);
  if (ref == NULL)
    return code;
  if (opt_save_reference && !save_reference (ref))
    return CLI_EXIT_OUTPUT;
  g_autoptr (GHashTable) outs = new_tensor_table ();
  if (!rt_session_run (s, inputs, outs, &error))
    {
      cli_error ("verify", "%s: %s", path, error->message);
      return CLI_EXIT_PROCESS;
    }
  cli_device_report (s);
  guint failed = print_table (model, ref, outs);
  if (trace)
    printf ("exported at opset %d, mode %s; ", opt_opset, sym_mode_name (mode));
  printf ("%s: %u of %u output%s within rtol %g, atol %g of %s\n", failed ? "FAIL" : "PASS",
          graph_n_outputs (model) - failed, graph_n_outputs (model),
          graph_n_outputs (model) == 1 ? "" : "s", opt_rtol, opt_atol, source);
  if (trace && (opt_localize || opt_all))
    {
      CliExit lcode;
      fflush (stdout);
      if (!localize (path, trace, mode, weights, inputs, &lcode))
        return lcode;
      if (lcode != CLI_EXIT_OK)
        return lcode;
    }
  return failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

const CliCommand cli_cmd_verify = {
  .name = "verify",
  .parameters = "TRACE|MODEL",
  .summary = "Export a trace, run it and compare its outputs with expected ones",
  .description = "With a TRACE (PyTorch's inlined_graph text, e.g. torch2trace's model.trace): exports "
                 "it as `symonnx export` does (--weights, --opset, --mode, --plugin), writes the model "
                 "(a temporary file unless --output), loads it back and runs it with the bundled "
                 "executor. With a MODEL (.onnx, or text already in ONNX form): runs it. The outputs "
                 "are compared with the --expected files (in output order; torch2trace's "
                 "expected_N.npy), or, for a trace given no --expected, with the executor's own run of "
                 "the trace's aten:: nodes (its prim::GetAttr chains read --weights; an op without an "
                 "ATen kernel is named in the error); --save-reference writes those reference "
                 "outputs. Each output gets a line: shape, max abs and rel error, mismatching "
                 "elements (|a - e| > atol + rtol * |e|) and the flat index of the first. With "
                 "--localize, the trace's aten nodes and the exported graph then run side by side "
                 "on the same inputs, every node's outputs are compared with the ONNX values that "
                 "replaced them (kept through the passes), and the first node in trace order past "
                 "tolerance is named with its scope, source line, the symbolic that translated it "
                 "(built-in, or sym_register and its plugin), the opset and its error figures (a "
                 "node's absolute tolerance is atol plus --node-rtol times its largest |value|: the "
                 "two runs sum in another float32 order, whose error follows the magnitude of the "
                 "node's terms, not of one element); --all "
                 "prints every node's figures first. Exit status 1 when any output is past tolerance "
                 "or has another shape, or --localize finds a divergent node. --device cuda runs the "
                 "model (not the reference) on the GPU, the nodes without a CUDA kernel on the CPU; "
                 "--verbose says which.",
  .options = verify_options,
  .run = verify_run,
};
