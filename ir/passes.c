/* Whole-graph passes: dead-code elimination and deep copy. */
#include "ir/graph-private.h"

static gboolean
node_is_dead (const GraphNode *n)
{
  /* Nodes without outputs are kept: they may exist for a side effect. */
  if (n->n_outputs == 0)
    return FALSE;
  for (guint i = 0; i < n->n_outputs; i++)
    if (n->outputs[i]->n_uses > 0 || graph_value_is_graph_output (n->outputs[i]))
      return FALSE;
  return TRUE;
}

guint
graph_eliminate_dead_code (Graph *g)
{
  guint removed = 0;
  /* Walking backwards removes whole dead chains in one pass: a node's users
   * come after it, so they are gone by the time it is looked at. */
  for (GraphNode *n = g->last, *prev; n != NULL; n = prev)
    {
      prev = n->prev;
      if (node_is_dead (n))
        {
          graph_node_destroy (n);
          removed++;
          continue;
        }
      /* control-flow bodies: before the nodes of g their dead nodes read */
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            removed += graph_eliminate_dead_code (subs[k]);
        }
    }
  return removed;
}

static GraphValue *
map_value (GHashTable *value_map, GraphValue *v)
{
  if (v == NULL)
    return NULL;
  GraphValue *mapped = g_hash_table_lookup (value_map, v);
  /* Values of graphs outside the copy (outer scopes) stay as they are. */
  return mapped ? mapped : v;
}

static void
copy_value_info (GraphValue *dst, const GraphValue *src)
{
  if (src->name)
    graph_value_set_name (dst, src->name);
  graph_value_set_type (dst, src->type);
}

void
graph_copy_into (Graph *dst, const Graph *src, GHashTable *value_map)
{
  graph_set_name (dst, src->name);
  graph_set_doc_string (dst, src->doc);
  for (guint i = 0; i < src->inputs->len; i++)
    {
      GraphValue *sv = g_ptr_array_index (src->inputs, i);
      GraphValue *dv = graph_add_input (dst, NULL, NULL);
      copy_value_info (dv, sv);
      graph_value_set_initializer (dv, sv->initializer);
      dv->initializer_is_input = sv->initializer_is_input;
      g_hash_table_insert (value_map, sv, dv);
    }
  for (GraphNode *sn = src->first; sn; sn = sn->next)
    {
      g_autofree GraphValue **inputs = g_new0 (GraphValue *, sn->n_inputs + 1);
      for (guint i = 0; i < sn->n_inputs; i++)
        inputs[i] = map_value (value_map, sn->inputs[i]);
      GraphNode *dn = graph_create_node (dst, sn->kind, sn->n_inputs, inputs, sn->n_outputs);
      graph_insert_node (dst, dn);
      for (guint i = 0; i < sn->n_outputs; i++)
        {
          copy_value_info (dn->outputs[i], sn->outputs[i]);
          g_hash_table_insert (value_map, sn->outputs[i], dn->outputs[i]);
        }
      for (guint i = 0; i < sn->n_attrs; i++)
        graph_attr_copy (NULL, &sn->attrs[i], dn, value_map);
      graph_node_set_scope (dn, sn->scope);
      graph_node_set_source (dn, sn->source);
      graph_node_set_doc_string (dn, sn->doc);
      if (sn->name)
        graph_node_set_name (dn, sn->name);
    }
  for (guint i = 0; i < src->outputs->len; i++)
    graph_add_output (dst, map_value (value_map, g_ptr_array_index (src->outputs, i)));
}

Graph *
graph_copy (const Graph *g)
{
  Graph *dst = graph_new ();
  g_autoptr (GHashTable) map = g_hash_table_new (NULL, NULL);
  graph_copy_into (dst, g, map);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, g->opsets);
  while (g_hash_table_iter_next (&it, &k, &v))
    graph_set_opset (dst, k, *(gint64 *) v);
  g_hash_table_iter_init (&it, g->props);
  while (g_hash_table_iter_next (&it, &k, &v))
    graph_set_property (dst, k, v);
  return dst;
}
