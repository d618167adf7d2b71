/* symonnx info: what a model or a trace holds, in a few lines — inputs and
 * outputs with their types, opsets, parameters, an op histogram, custom
 * domains and Python operators. */
#include "tools/cli.h"
#include "symbolic/translate.h"
#include <stdio.h>
#include <string.h>

static char *opt_weights;

static const GOptionEntry info_entries[] = {
  { "weights", 'w', 0, G_OPTION_ARG_FILENAME, &opt_weights,
    "For a TRACE: the state dict (.safetensors) its prim::GetAttr chains name, to count the "
    "parameters' elements and bytes", "W.safetensors" },
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
info_options (void)
{
  return info_entries;
}

static void
print_values (const char *title, Graph *g, gboolean inputs)
{
  guint n = inputs ? graph_n_inputs (g) : graph_n_outputs (g);
  guint shown = 0;
  for (guint i = 0; i < n; i++)
    {
      GraphValue *v = inputs ? graph_input (g, i) : graph_output (g, i);
      GraphType *t = graph_value_type (v);
      if (inputs && (graph_value_get_initializer (v)
                     || (t && graph_type_kind (t) == GRAPH_TYPE_CLASS)))
        continue;   /* weights and the traced module are counted below */
      g_autofree char *ty = t ? graph_type_to_string (t) : g_strdup ("(no type)");
      const char *name = graph_value_get_name (v);
      printf ("%s%-24s %s\n", shown++ ? "            " : title, name ? name : "?", ty);
    }
  if (shown == 0)
    printf ("%s(none)\n", title);
}

typedef struct
{
  const char *kind;
  guint       count;
} KindCount;

static gint
by_count (gconstpointer a, gconstpointer b)
{
  const KindCount *x = a, *y = b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->kind, y->kind);
}

static gboolean
is_standard_domain (const char *dom)
{
  return strcmp (dom, GRAPH_ONNX_DOMAIN) == 0 || strcmp (dom, "ai.onnx") == 0
         || strcmp (dom, "aten") == 0 || strcmp (dom, "prim") == 0;
}

/* The op histogram, most frequent first, and the custom domains and Python
 * operators found on the way. */
static void
print_ops (Graph *g)
{
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) python = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) domains = g_hash_table_new (g_str_hash, g_str_equal);
  guint total = 0;
  graph_foreach_node (g, n)
    {
      const char *kind = graph_node_kind (n);
      g_hash_table_insert (counts, (gpointer) kind,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, kind)) + 1));
      total++;
      const char *dom = graph_node_domain (n);
      if (!is_standard_domain (dom))
        g_hash_table_insert (domains, (gpointer) dom,
                             GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (domains, dom)) + 1));
      const char *py;
      gsize len;
      if (graph_node_is (n, GRAPH_KIND_PYTHON_OP)
          && graph_node_get_s (n, GRAPH_PYTHON_OP_NAME_ATTR, &py, &len))
        {
          const char *name = graph_symbol (py, "py");   /* interned */
          g_hash_table_insert (python, (gpointer) name,
                               GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (python, name)) + 1));
        }
    }
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (KindCount));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, counts);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_array_append_val (rows, ((KindCount) { k, GPOINTER_TO_UINT (v) }));
  g_array_sort (rows, by_count);
  printf ("ops:        %u nodes, %u kinds\n", total, rows->len);
  for (guint i = 0; i < rows->len; i++)
    printf ("  %6u  %s\n", g_array_index (rows, KindCount, i).count,
            g_array_index (rows, KindCount, i).kind);
  if (g_hash_table_size (domains) > 0)
    {
      g_autoptr (GList) keys = g_list_sort (g_hash_table_get_keys (domains), (GCompareFunc) strcmp);
      printf ("custom domains:");
      for (GList *l = keys; l; l = l->next)
        {
          gint64 ver = graph_get_opset (g, l->data);
          printf (" %s (%u nodes", (const char *) l->data,
                  GPOINTER_TO_UINT (g_hash_table_lookup (domains, l->data)));
          if (ver >= 0)
            printf (", opset %" G_GINT64_FORMAT, ver);
          printf (")%s", l->next ? "," : "\n");
        }
    }
  if (g_hash_table_size (python) > 0)
    {
      g_autoptr (GList) keys = g_list_sort (g_hash_table_get_keys (python), (GCompareFunc) strcmp);
      printf ("Python operators (torch.autograd.Function):");
      for (GList *l = keys; l; l = l->next)
        printf (" %s (%u call%s)%s", strchr (l->data, ':') + 2,
                GPOINTER_TO_UINT (g_hash_table_lookup (python, l->data)),
                GPOINTER_TO_UINT (g_hash_table_lookup (python, l->data)) == 1 ? "" : "s",
                l->next ? "," : "\n");
    }
}

static void
print_opsets (Graph *g)
{
  g_autoptr (GPtrArray) doms = graph_list_opset_domains (g);
  if (doms->len == 0)
    return;
  printf ("opsets:    ");
  for (guint i = 0; i < doms->len; i++)
    {
      const char *d = doms->pdata[i];
      printf (" %s %" G_GINT64_FORMAT "%s", *d ? d : "ai.onnx (default)", graph_get_opset (g, d),
              i + 1 < doms->len ? "," : "\n");
    }
}

static void
print_size (const char *what, guint n_tensors, gint64 numel, gint64 bytes)
{
  printf ("parameters: %u %s, %" G_GINT64_FORMAT " elements, %" G_GINT64_FORMAT " bytes (%.1f MiB)\n",
          n_tensors, what, numel, bytes, (double) bytes / (1024.0 * 1024.0));
}

static void
model_parameters (Graph *g)
{
  guint n = 0;
  gint64 numel = 0, bytes = 0;
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      Tensor *t = graph_value_get_initializer (graph_input (g, i));
      if (t == NULL)
        continue;
      n++;
      numel += tensor_numel (t);
      bytes += (gint64) tensor_nbytes (t);
    }
  print_size ("initializers", n, numel, bytes);
}

/* The state-dict names of a trace's prim::GetAttr tensors, each once. */
static GPtrArray *
trace_parameter_names (Graph *g)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  graph_foreach_node (g, n)
    {
      if (!graph_node_is (n, "prim::GetAttr"))
        continue;
      GraphValue *v = graph_node_output (n, 0);
      GraphType *t = graph_value_type (v);
      if (t == NULL || !graph_type_is_tensor (t))
        continue;
      char *path = sym_getattr_path (v);
      if (path == NULL || g_hash_table_contains (seen, path))
        {
          g_free (path);
          continue;
        }
      g_hash_table_add (seen, path);
      g_ptr_array_add (names, path);
    }
  return names;
}

static int
trace_parameters (Graph *g)
{
  g_autoptr (GPtrArray) names = trace_parameter_names (g);
  if (opt_weights == NULL)
    {
      printf ("parameters: %u tensors named by prim::GetAttr (give --weights for their sizes)\n",
              names->len);
      return CLI_EXIT_OK;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) weights = export_safetensors_load (opt_weights, &error);
  if (weights == NULL)
    {
      cli_error ("info", "%s", error->message);
      return CLI_EXIT_INPUT;
    }
  guint found = 0;
  gint64 numel = 0, bytes = 0;
  g_autoptr (GString) missing = g_string_new (NULL);
  for (guint i = 0; i < names->len; i++)
    {
      Tensor *t = g_hash_table_lookup (weights, names->pdata[i]);
      if (t == NULL)
        {
          g_string_append_printf (missing, "%s%s", missing->len ? ", " : "",
                                  (const char *) names->pdata[i]);
          continue;
        }
      found++;
      numel += tensor_numel (t);
      bytes += (gint64) tensor_nbytes (t);
    }
  print_size ("tensors", found, numel, bytes);
  if (missing->len)
    printf ("missing from %s: %s\n", opt_weights, missing->str);
  return CLI_EXIT_OK;
}

static int
info_run (int argc, char **argv)
{
  if (argc != 1)
    {
      cli_error ("info", "expected exactly one MODEL or TRACE, got %d (run 'symonnx info --help')",
                 argc);
      return CLI_EXIT_USAGE;
    }
  CliExit code;
  g_autoptr (Graph) g = cli_load_graph ("info", argv[0], &code);
  if (g == NULL)
    return code;
  gboolean trace = FALSE;
  graph_foreach_node (g, n)
    trace = trace || strcmp (graph_node_domain (n), "aten") == 0
            || strcmp (graph_node_domain (n), "prim") == 0;
  if (!trace && opt_weights)
    {
      cli_error ("info", "--weights is for a trace; %s is a model (its weights are in it)", argv[0]);
      return CLI_EXIT_USAGE;
    }
  printf ("%s: %s\n", argv[0], trace ? "PyTorch trace (aten/prim operators)" : "ONNX graph");
  const char *producer = graph_get_property (g, "producer_name");
  if (producer)
    printf ("producer:   %s %s\n", producer,
            graph_get_property (g, "producer_version") ? graph_get_property (g, "producer_version") : "");
  print_opsets (g);
  print_values ("inputs:     ", g, TRUE);
  print_values ("outputs:    ", g, FALSE);
  int rc = trace ? trace_parameters (g) : CLI_EXIT_OK;
  if (!trace)
    model_parameters (g);
  print_ops (g);
  return rc;
}

const CliCommand cli_cmd_info = {
  .name = "info",
  .parameters = "MODEL|TRACE",
  .summary = "Summarise a model or trace: inputs, outputs, opsets, parameters, ops",
  .description = "Prints what MODEL (.onnx, or graph text) or TRACE (PyTorch's inlined_graph) "
                 "holds: the graph inputs and outputs with their types and shapes, the imported "
                 "opsets, the parameters (a model's initializers; a trace's prim::GetAttr "
                 "tensors, sized from --weights), a histogram of the operators, most frequent "
                 "first, the custom domains, and the Python operators (autograd Functions) a "
                 "trace calls.",
  .options = info_options,
  .run = info_run,
};
