/* symonnx run: execute a model with the bundled CPU executor. */
#include "tools/cli.h"
#include "runtime/runtime.h"
#include "export/onnxio.h"
#include "export/tensorfiles.h"
#include <stdio.h>
#include <errno.h>
#include <string.h>

static char **opt_inputs;
static char *opt_output_dir;
static int opt_threads;
static int opt_repeat;
static char **opt_extra;
static gboolean opt_no_fusion;
static gboolean opt_profile;

static const GOptionEntry run_entries[] = {
  { "input", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &opt_inputs,
    "Graph input NAME from FILE (.npy, or an ONNX TensorProto .pb); repeat for each input", "NAME=FILE" },
  { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output_dir,
    "Write each output to DIR/<output name>.npy (characters outside [A-Za-z0-9._-] become '_')", "DIR" },
  { "threads", 't', 0, G_OPTION_ARG_INT, &opt_threads,
    "Number of threads (the executor's and OpenBLAS's); 0 keeps OpenBLAS's default and runs the "
    "executor's own loops on one", "N" },
  { "repeat", 'r', 0, G_OPTION_ARG_INT, &opt_repeat,
    "After one warm-up run, time N more runs and print `median X ms, min Y ms`", "N" },
  { "extra-output", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_extra,
    "Also write the intermediate value NAME (for finding where two runs diverge)", "NAME" },
  { "no-fusion", 0, 0, G_OPTION_ARG_NONE, &opt_no_fusion,
    "Run every node as its own kernel (no Conv+Add+Relu/Clip, Add+Relu, MatMul+Add+Relu/Gelu, "
    "LayerNorm or Gelu fusion at session creation), for comparing against", NULL },
  { "profile", 0, 0, G_OPTION_ARG_NONE, &opt_profile,
    "Time each node and print the time per op type and the 10 slowest nodes (over the --repeat runs, "
    "else the one run)", NULL },
  CLI_LIMIT_ENTRIES,
  CLI_DEVICE_ENTRIES,
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
run_options (void)
{
  return run_entries;
}

static Tensor *
load_tensor (const char *path, GError **error)
{
  if (g_str_has_suffix (path, ".pb"))
    return onnxio_tensor_load (path, NULL, error);
  return export_npy_load (path, error);
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* "a/b:c" → "a_b_c" */
static char *
safe_file_name (const char *name)
{
  char *s = g_strdup (name);
  for (char *p = s; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_' && *p != '-')
      *p = '_';
  if (strcmp (s, ".") == 0 || strcmp (s, "..") == 0 || *s == '\0')
    {
      g_free (s);
      s = g_strdup ("_");
    }
  return s;
}

static void
append_shape (GString *s, const Tensor *t)
{
  g_string_append_printf (s, "%s(", graph_dtype_name (tensor_dtype (t)));
  for (guint k = 0; k < tensor_rank (t); k++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, k ? ", " : "", tensor_dim (t, k));
  g_string_append_c (s, ')');
}

static gboolean
save_tensor (const char *dir, const char *file, const Tensor *t, GError **error)
{
  g_autofree char *base = g_strconcat (file, ".npy", NULL);
  g_autofree char *path = g_build_filename (dir, base, NULL);
  return export_npy_save (t, path, error);
}

/* A tensor output as DIR/NAME.npy; a sequence as DIR/NAME_0.npy, NAME_1.npy...;
 * an absent optional writes nothing. */
static gboolean
save_output (const char *dir, const char *name, const RtAny *a, GError **error)
{
  g_autofree char *file = safe_file_name (name);
  if (a->kind == RT_ANY_TENSOR)
    return save_tensor (dir, file, a->tensor, error);
  for (guint i = 0; a->kind == RT_ANY_SEQUENCE && i < a->items->len; i++)
    {
      g_autofree char *item = g_strdup_printf ("%s_%u", file, i);
      if (!save_tensor (dir, item, a->items->pdata[i], error))
        return FALSE;
    }
  return TRUE;
}

static int
run_run (int argc, char **argv)
{
  if (argc != 1)
    {
      cli_error ("run", "expected exactly one MODEL, got %d (run 'symonnx run --help')", argc);
      return CLI_EXIT_USAGE;
    }
  if (opt_repeat < 0 || opt_threads < 0)
    {
      cli_error ("run", "--repeat and --threads must not be negative");
      return CLI_EXIT_USAGE;
    }
  CliExit code;
  g_autoptr (Graph) g = cli_load_graph ("run", argv[0], &code);
  if (g == NULL)
    return code;
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) rt_any_free);
  for (char **p = opt_inputs; p && *p; p++)
    {
      const char *eq = strchr (*p, '=');
      if (eq == NULL || eq == *p || eq[1] == '\0')
        {
          cli_error ("run", "--input '%s': expected NAME=FILE", *p);
          return CLI_EXIT_USAGE;
        }
      g_autofree char *name = g_strndup (*p, eq - *p);
      g_autoptr (GError) error = NULL;
      Tensor *t = load_tensor (eq + 1, &error);
      if (t == NULL)
        {
          cli_error ("run", "%s", error->message);
          return CLI_EXIT_INPUT;
        }
      g_hash_table_replace (inputs, g_steal_pointer (&name), rt_any_new_tensor (t));
      tensor_unref (t);
    }
  RtOptions o;
  rt_options_init (&o);
  o.threads = opt_threads;
  o.no_fusion = opt_no_fusion;
  o.profile = opt_profile;
  if (!cli_apply_limits ("run", &o))
    return CLI_EXIT_USAGE;
  if ((code = cli_apply_device ("run", &o)) != CLI_EXIT_OK)
    return code;
  o.extra_outputs = (const char *const *) opt_extra;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  if (s == NULL)
    {
      cli_error ("run", "%s: %s", argv[0], error->message);
      return CLI_EXIT_PROCESS;
    }
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, inputs);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      gboolean known = FALSE;
      for (guint i = 0; i < graph_n_inputs (g) && !known; i++)
        known = g_strcmp0 (graph_value_get_name (graph_input (g, i)), key) == 0;
      if (!known)
        {
          cli_error ("run", "%s: the graph has no input named '%s'", argv[0], (char *) key);
          return CLI_EXIT_USAGE;
        }
    }
  for (guint i = 0; i < rt_session_n_required_inputs (s); i++)
    {
      const char *name = graph_value_get_name (rt_session_required_input (s, i));
      if (name && !g_hash_table_contains (inputs, name))
        {
          cli_error ("run", "%s: missing --input %s=FILE for the graph input '%s'", argv[0], name, name);
          return CLI_EXIT_USAGE;
        }
    }
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) rt_any_free);
  if (!rt_session_run_any (s, inputs, outputs, &error))
    {
      cli_error ("run", "%s: %s", argv[0], error->message);
      return CLI_EXIT_PROCESS;
    }
  cli_device_report (s);
  if (opt_repeat > 0)
    {
      rt_session_profile_reset (s);   /* --profile: the timed runs, not the warm-up */
      g_autofree double *ms = g_new (double, opt_repeat);
      for (int r = 0; r < opt_repeat; r++)
        {
          g_autoptr (GHashTable) tmp = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                              (GDestroyNotify) rt_any_free);
          gint64 t0 = g_get_monotonic_time ();
          if (!rt_session_run_any (s, inputs, tmp, &error))
            {
              cli_error ("run", "%s: %s", argv[0], error->message);
              return CLI_EXIT_PROCESS;
            }
          ms[r] = (double) (g_get_monotonic_time () - t0) / 1000.0;
        }
      qsort (ms, opt_repeat, sizeof (double), compare_doubles);
      double median = opt_repeat % 2 ? ms[opt_repeat / 2]
                                     : (ms[opt_repeat / 2 - 1] + ms[opt_repeat / 2]) / 2;
      printf ("median %.3f ms, min %.3f ms\n", median, ms[0]);
    }
  cli_print_profile (stdout, s);
  if (opt_output_dir)
    {
      if (g_mkdir_with_parents (opt_output_dir, 0755) != 0)
        {
          cli_error ("run", "cannot create %s: %s", opt_output_dir, g_strerror (errno));
          return CLI_EXIT_OUTPUT;
        }
      g_hash_table_iter_init (&it, outputs);
      gpointer value;
      while (g_hash_table_iter_next (&it, &key, &value))
        if (!save_output (opt_output_dir, key, value, &error))
          {
            cli_error ("run", "%s", error->message);
            return CLI_EXIT_OUTPUT;
          }
    }
  else if (opt_repeat == 0)
    {
      /* Without a folder: a summary of each output. */
      for (guint i = 0; i < graph_n_outputs (g); i++)
        {
          const char *name = graph_value_get_name (graph_output (g, i));
          RtAny *a = name ? g_hash_table_lookup (outputs, name) : NULL;
          if (a == NULL)
            continue;
          g_autoptr (GString) line = g_string_new (NULL);
          if (a->kind == RT_ANY_TENSOR)
            append_shape (line, a->tensor);
          else if (a->kind == RT_ANY_NONE)
            g_string_append (line, "none");
          else
            {
              g_string_append_printf (line, "sequence of %u [", a->items->len);
              for (guint k = 0; k < a->items->len; k++)
                {
                  if (k)
                    g_string_append (line, ", ");
                  append_shape (line, a->items->pdata[k]);
                }
              g_string_append_c (line, ']');
            }
          printf ("%s: %s\n", name, line->str);
        }
    }
  return CLI_EXIT_OK;
}

const CliCommand cli_cmd_run = {
  .name = "run",
  .parameters = "MODEL",
  .summary = "Run a model (.onnx or trace text) with the bundled executor (CPU, or CUDA)",
  .description = "Loads MODEL, checks that every node has a kernel (all missing ones are listed at once), "
                 "binds each --input NAME=FILE (.npy or TensorProto .pb) and runs it. With --output-dir, "
                 "each graph output is written as DIR/<output name>.npy (a sequence as <name>_0.npy, "
                 "<name>_1.npy..., an absent optional not at all); without it, the outputs' types and "
                 "shapes are printed. A graph input without an initializer and without --input is an "
                 "error naming it. --repeat N prints the median and minimum time of N runs after one "
                 "warm-up run (model loading excluded). --device cuda runs the nodes that have a CUDA "
                 "kernel on the GPU and the others on the CPU (doc/cuda.md); --verbose says which, and "
                 "what was copied between host and device.",
  .options = run_options,
  .run = run_run,
};
