/* Unique scoped node and value names, in torch 1.13's style:
 * node "/layer1/0/conv1/Conv", its outputs "/layer1/0/conv1/Conv_output_0". */
#include "export/export.h"
#include <string.h>

/* "__module.layer1/__module.layer1.0/__module.layer1.0.conv1" →
 * "/layer1/0/conv1"; "" when there is no scope. */
static char *
scope_path (const char *scope)
{
  GString *s = g_string_new (NULL);
  if (scope == NULL || *scope == '\0')
    return g_string_free (s, FALSE);
  g_auto (GStrv) parts = g_strsplit (scope, "/", -1);
  const char *parent = NULL;
  for (guint i = 0; parts[i]; i++)
    {
      const char *p = parts[i];
      if (g_str_has_prefix (p, "__module."))
        p += strlen ("__module.");
      else if (strstr (p, "::"))
        p = strstr (p, "::") + 2;   /* "M::/Conv2d::conv" spellings */
      if (*p == '\0')
        continue;
      const char *full = p;
      if (parent && g_str_has_prefix (p, parent) && p[strlen (parent)] == '.')
        p += strlen (parent) + 1;
      g_string_append_c (s, '/');
      g_string_append (s, p);
      parent = full;
    }
  return g_string_free (s, FALSE);
}

void
export_assign_scoped_names (Graph *g)
{
  g_autoptr (GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  graph_foreach_node (g, n)
    {
      g_autofree char *path = scope_path (graph_node_get_scope (n));
      g_autofree char *base = g_strdup_printf ("%s/%s", path, graph_node_op_type (n));
      guint c = GPOINTER_TO_UINT (g_hash_table_lookup (counts, base));
      g_autofree char *name = c == 0 ? g_strdup (base) : g_strdup_printf ("%s_%u", base, c);
      g_hash_table_insert (counts, g_strdup (base), GUINT_TO_POINTER (c + 1));
      const char *set = graph_node_set_name (n, name);
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        {
          GraphValue *v = graph_node_output (n, i);
          if (graph_value_is_graph_output (v))
            continue;   /* keeps the output name */
          g_autofree char *vn = g_strdup_printf ("%s_output_%u", set, i);
          graph_value_set_name (v, vn);
        }
    }
}
