/* Values: names, types, initializers, use lists, replace-all-uses. */
#include "ir/graph-private.h"
#include <string.h>

GraphValue graph_absent_input_;

const char *
graph_unique_name (GHashTable *taken, GStringChunk *chunk, const char *name)
{
  if (!g_hash_table_contains (taken, name))
    return g_string_chunk_insert_const (chunk, name);
  /* "x.3" taken → try "x.4", "x.5"...; "x" taken → "x.1", "x.2"... */
  gsize base_len = strlen (name);
  const char *dot = strrchr (name, '.');
  guint64 start = 1;
  if (dot && dot[1] && strspn (dot + 1, "0123456789") == strlen (dot + 1) && strlen (dot + 1) < 10)
    {
      base_len = (gsize) (dot - name);
      start = g_ascii_strtoull (dot + 1, NULL, 10) + 1;
    }
  g_autofree char *base = g_strndup (name, base_len);
  for (guint64 k = start;; k++)
    {
      g_autofree char *candidate = g_strdup_printf ("%s.%" G_GUINT64_FORMAT, base, k);
      if (!g_hash_table_contains (taken, candidate))
        return g_string_chunk_insert_const (chunk, candidate);
    }
}

/* The readers take NULL, an absent optional input (a trace's `None`
 * argument), as a value with no graph, node, type, name or uses: input
 * lists may hold one anywhere (a fuzzed trace put one in a list). */
Graph *graph_value_graph (const GraphValue *v) { return v ? v->graph : NULL; }
GraphNode *graph_value_node (const GraphValue *v) { return v ? v->node : NULL; }
guint graph_value_offset (const GraphValue *v) { return v ? v->offset : 0; }
GraphType *graph_value_type (const GraphValue *v) { return v ? v->type : NULL; }
const char *graph_value_get_name (const GraphValue *v) { return v ? v->name : NULL; }
guint graph_value_id (const GraphValue *v) { return v ? v->id : 0; }
guint graph_value_n_uses (const GraphValue *v) { return v ? v->n_uses : 0; }
Tensor *graph_value_get_initializer (const GraphValue *v) { return v->initializer; }

Tensor *
graph_value_constant_tensor (const GraphValue *v)
{
  GraphNode *p = v ? graph_value_node (v) : NULL;
  Tensor *t = NULL;
  if (p && graph_node_is (p, "onnx::Constant") && graph_node_get_t (p, "value", &t))
    return t;
  return NULL;
}
gboolean graph_value_initializer_is_input (const GraphValue *v) { return v->initializer_is_input; }

void
graph_value_set_initializer_is_input (GraphValue *v, gboolean is_input)
{
  v->initializer_is_input = is_input;
}

void
graph_value_set_type (GraphValue *v, GraphType *t)
{
  if (t)
    graph_type_ref (t);
  g_clear_pointer (&v->type, graph_type_unref);
  v->type = t;
}

const char *
graph_value_set_name (GraphValue *v, const char *name)
{
  Graph *g = v->graph;
  if (v->name && g_hash_table_lookup (g->value_names, v->name) == v)
    g_hash_table_remove (g->value_names, v->name);
  v->name = NULL;
  if (name == NULL)
    return NULL;
  v->name = graph_unique_name (g->value_names, g->strings, name);
  g_hash_table_insert (g->value_names, (gpointer) v->name, v);
  return v->name;
}

GraphValue *
graph_find_value (const Graph *g, const char *name)
{
  return g_hash_table_lookup (g->value_names, name);
}

const GraphUse *
graph_value_use (const GraphValue *v, guint i)
{
  g_return_val_if_fail (i < v->n_uses, NULL);
  return &v->uses[i];
}

gboolean
graph_value_is_graph_output (const GraphValue *v)
{
  return v->output_refs != NULL && v->output_refs->len > 0;
}

void
graph_value_add_use (GraphValue *v, GraphNode *n, guint index)
{
  if (v->n_uses == v->cap_uses)
    {
      v->cap_uses = v->cap_uses ? v->cap_uses * 2 : 4;
      v->uses = g_renew (GraphUse, v->uses, v->cap_uses);
    }
  v->uses[v->n_uses++] = (GraphUse) { n, index };
}

/* Keeps the remaining uses in order (PyTorch's use lists are ordered). */
void
graph_value_remove_use (GraphValue *v, GraphNode *n, guint index)
{
  for (guint i = 0; i < v->n_uses; i++)
    if (v->uses[i].node == n && v->uses[i].index == index)
      {
        memmove (&v->uses[i], &v->uses[i + 1], (v->n_uses - i - 1) * sizeof (GraphUse));
        v->n_uses--;
        return;
      }
  g_critical ("use list of value %%%u has no entry for input %u of %s", v->id, index, n->kind);
}

void
graph_value_replace_all_uses (GraphValue *old, GraphValue *new_v)
{
  g_return_if_fail (old != NULL && new_v != NULL);
  if (old == new_v)
    return;
  for (guint i = 0; i < old->n_uses; i++)
    {
      GraphUse u = old->uses[i];
      u.node->inputs[u.index] = new_v;
      graph_value_add_use (new_v, u.node, u.index);
    }
  old->n_uses = 0;
  old->replaced_by = new_v;
  if (old->output_refs)
    {
      for (guint i = 0; i < old->output_refs->len; i++)
        {
          GraphOutputRef r = g_array_index (old->output_refs, GraphOutputRef, i);
          g_ptr_array_index (r.graph->outputs, r.index) = new_v;
          if (new_v->output_refs == NULL)
            new_v->output_refs = g_array_new (FALSE, FALSE, sizeof (GraphOutputRef));
          g_array_append_val (new_v->output_refs, r);
        }
      g_array_set_size (old->output_refs, 0);
    }
}

void
graph_value_set_initializer (GraphValue *v, Tensor *t)
{
  g_return_if_fail (v->node == NULL);
  if (t)
    tensor_ref (t);
  g_clear_pointer (&v->initializer, tensor_unref);
  v->initializer = t;
}

gboolean
graph_owns_value (const Graph *g, gconstpointer p)
{
  for (const Graph *x = g; x != NULL; x = x->outer)
    if (graph_slab_contains (&x->value_slab, p))
      return ((const GraphValue *) p)->alive;
  return FALSE;
}

GraphValue *
graph_value_resolve (GraphValue *v)
{
  /* Bounded: a value replaced back by one it replaced would loop. */
  for (guint steps = 0; v && v->replaced_by && steps < 4096; steps++)
    v = v->replaced_by;
  return v && v->alive && (v->replaced_by == NULL) ? v : NULL;
}
