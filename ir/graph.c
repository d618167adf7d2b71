/* Graphs and nodes: creation, the node list, inputs and outputs. */
#include "ir/graph-private.h"
#include <string.h>

static GraphValue *
value_new (Graph *g, GraphNode *node, guint offset)
{
  GraphValue *v = graph_slab_alloc (&g->value_slab);
  v->graph = g;
  v->node = node;
  v->offset = offset;
  v->id = g->next_value_id++;
  v->alive = TRUE;
  return v;
}

/* Frees what a value holds outside the arena (it stays in the slab). */
static void
value_release (GraphValue *v)
{
  Graph *g = v->graph;
  if (v->name && !g->tearing_down && g_hash_table_lookup (g->value_names, v->name) == v)
    g_hash_table_remove (g->value_names, v->name);
  g_clear_pointer (&v->uses, g_free);
  g_clear_pointer (&v->output_refs, g_array_unref);
  g_clear_pointer (&v->type, graph_type_unref);
  g_clear_pointer (&v->initializer, tensor_unref);
  v->alive = FALSE;
}

static void
node_release (GraphNode *n)
{
  for (guint i = 0; i < n->n_attrs; i++)
    graph_attr_clear (&n->attrs[i], n);
  g_clear_pointer (&n->attrs, g_free);
  g_clear_pointer (&n->inputs, g_free);
  g_clear_pointer (&n->outputs, g_free);
  n->alive = FALSE;
}

static void
node_release_if_alive (gpointer p, gpointer user_data)
{
  (void) user_data;
  GraphNode *n = p;
  if (n->alive)
    node_release (n);
}

static void
value_release_if_alive (gpointer p, gpointer user_data)
{
  (void) user_data;
  GraphValue *v = p;
  if (v->alive)
    value_release (v);
}

Graph *
graph_new (void)
{
  Graph *g = g_new0 (Graph, 1);
  graph_slab_init (&g->node_slab, sizeof (GraphNode));
  graph_slab_init (&g->value_slab, sizeof (GraphValue));
  g->strings = g_string_chunk_new (4096);
  g->inputs = g_ptr_array_new ();
  g->outputs = g_ptr_array_new ();
  g->value_names = g_hash_table_new (g_str_hash, g_str_equal);
  g->node_names = g_hash_table_new (g_str_hash, g_str_equal);
  g->opsets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g->props = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return g;
}

Graph *
graph_new_subgraph (Graph *outer)
{
  g_return_val_if_fail (outer != NULL, NULL);
  Graph *g = graph_new ();
  g->outer = outer;
  return g;
}

void
graph_free (Graph *g)
{
  if (g == NULL)
    return;
  /* Note [Teardown]: everything dies together, so use lists and name tables
   * are not maintained; subgraphs freed from here skip dropping their uses
   * of our values. */
  g->tearing_down = TRUE;
  graph_slab_foreach (&g->node_slab, node_release_if_alive, NULL);
  graph_slab_foreach (&g->value_slab, value_release_if_alive, NULL);
  graph_slab_clear (&g->node_slab);
  graph_slab_clear (&g->value_slab);
  g_string_chunk_free (g->strings);
  g_ptr_array_unref (g->inputs);
  g_ptr_array_unref (g->outputs);
  g_hash_table_unref (g->value_names);
  g_hash_table_unref (g->node_names);
  g_hash_table_unref (g->opsets);
  g_hash_table_unref (g->props);
  g_free (g->name);
  g_free (g->doc);
  g_clear_error (&g->builder_error);
  g_free (g);
}

const char *graph_get_name (const Graph *g) { return g->name; }
const char *graph_get_doc_string (const Graph *g) { return g->doc; }
Graph *graph_get_outer (const Graph *g) { return g->outer; }
GraphNode *graph_get_owner_node (const Graph *g) { return g->owner; }

void
graph_set_name (Graph *g, const char *name)
{
  g_free (g->name);
  g->name = g_strdup (name);
}

void
graph_set_doc_string (Graph *g, const char *doc)
{
  g_free (g->doc);
  g->doc = g_strdup (doc);
}

void
graph_set_opset (Graph *g, const char *domain, gint64 version)
{
  g_return_if_fail (domain != NULL);
  g_hash_table_insert (g->opsets, g_strdup (domain), g_memdup2 (&version, sizeof version));
}

gint64
graph_get_opset (const Graph *g, const char *domain)
{
  const gint64 *v = g_hash_table_lookup (g->opsets, domain);
  return v ? *v : -1;
}

void
graph_clear_opsets (Graph *g)
{
  g_hash_table_remove_all (g->opsets);
}

static int
compare_str_ptrs (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static GPtrArray *
sorted_keys (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_ptr_array_add (keys, k);
  g_ptr_array_sort (keys, compare_str_ptrs);
  return keys;
}

GPtrArray *graph_list_opset_domains (const Graph *g) { return sorted_keys (g->opsets); }
GPtrArray *graph_list_properties (const Graph *g) { return sorted_keys (g->props); }

const char *
graph_get_property (const Graph *g, const char *key)
{
  return g_hash_table_lookup (g->props, key);
}

void
graph_set_property (Graph *g, const char *key, const char *value)
{
  g_return_if_fail (key != NULL);
  if (value == NULL)
    g_hash_table_remove (g->props, key);
  else
    g_hash_table_insert (g->props, g_strdup (key), g_strdup (value));
}

/* ------------------------------------------------------------------------ */
/* Graph inputs and outputs                                                  */

GraphValue *
graph_add_input (Graph *g, const char *name, GraphType *type)
{
  GraphValue *v = value_new (g, NULL, g->inputs->len);
  if (name)
    graph_value_set_name (v, name);
  graph_value_set_type (v, type);
  g_ptr_array_add (g->inputs, v);
  return v;
}

guint graph_n_inputs (const Graph *g) { return g->inputs->len; }
guint graph_n_outputs (const Graph *g) { return g->outputs->len; }

GraphValue *
graph_input (const Graph *g, guint i)
{
  g_return_val_if_fail (i < g->inputs->len, NULL);
  return g_ptr_array_index (g->inputs, i);
}

gboolean
graph_remove_input (Graph *g, guint i)
{
  g_return_val_if_fail (i < g->inputs->len, FALSE);
  GraphValue *v = g_ptr_array_index (g->inputs, i);
  if (v->n_uses > 0 || graph_value_is_graph_output (v))
    return FALSE;
  g_ptr_array_remove_index (g->inputs, i);
  for (guint j = i; j < g->inputs->len; j++)
    ((GraphValue *) g_ptr_array_index (g->inputs, j))->offset = j;
  value_release (v);
  return TRUE;
}

GraphValue *
graph_add_initializer (Graph *g, const char *name, Tensor *t)
{
  g_return_val_if_fail (t != NULL, NULL);
  GraphType *type = NULL;
  if (tensor_dtype (t) != GRAPH_DTYPE_UNDEFINED)
    type = graph_type_new_tensor_static (tensor_dtype (t), tensor_rank (t), tensor_dims (t));
  GraphValue *v = graph_add_input (g, name, type);
  g_clear_pointer (&type, graph_type_unref);
  graph_value_set_initializer (v, t);
  return v;
}

static void
output_ref_add (GraphValue *v, Graph *g, guint index)
{
  if (v->output_refs == NULL)
    v->output_refs = g_array_new (FALSE, FALSE, sizeof (GraphOutputRef));
  GraphOutputRef r = { g, index };
  g_array_append_val (v->output_refs, r);
}

static void
output_ref_remove (GraphValue *v, Graph *g, guint index)
{
  for (guint i = 0; v->output_refs && i < v->output_refs->len; i++)
    {
      GraphOutputRef *r = &g_array_index (v->output_refs, GraphOutputRef, i);
      if (r->graph == g && r->index == index)
        {
          g_array_remove_index (v->output_refs, i);
          return;
        }
    }
  g_critical ("value %%%u is not output %u of its graph", v->id, index);
}

void
graph_add_output (Graph *g, GraphValue *v)
{
  g_return_if_fail (graph_owns_value (g, v));
  output_ref_add (v, g, g->outputs->len);
  g_ptr_array_add (g->outputs, v);
}

GraphValue *
graph_output (const Graph *g, guint i)
{
  g_return_val_if_fail (i < g->outputs->len, NULL);
  return g_ptr_array_index (g->outputs, i);
}

void
graph_set_output (Graph *g, guint i, GraphValue *v)
{
  g_return_if_fail (i < g->outputs->len && graph_owns_value (g, v));
  output_ref_remove (g_ptr_array_index (g->outputs, i), g, i);
  output_ref_add (v, g, i);
  g_ptr_array_index (g->outputs, i) = v;
}

void
graph_remove_output (Graph *g, guint i)
{
  g_return_if_fail (i < g->outputs->len);
  /* Later outputs move down one slot: renumber their refs. */
  for (guint j = i; j < g->outputs->len; j++)
    output_ref_remove (g_ptr_array_index (g->outputs, j), g, j);
  g_ptr_array_remove_index (g->outputs, i);
  for (guint j = i; j < g->outputs->len; j++)
    output_ref_add (g_ptr_array_index (g->outputs, j), g, j);
}

/* ------------------------------------------------------------------------ */
/* Symbols                                                                   */

const char *
graph_symbol (const char *kind, const char *default_domain)
{
  if (kind == NULL || *kind == '\0' || !g_utf8_validate (kind, -1, NULL))
    return NULL;
  for (const char *p = kind; *p; p++)
    if ((guchar) *p <= ' ' || *p == 0x7f || strchr ("()[]{},=%\"'", *p))
      return NULL;
  const char *sep = g_strrstr (kind, "::");
  if (sep == NULL)
    {
      if (default_domain == NULL || strchr (kind, ':'))
        return NULL;
      g_autofree char *q = g_strconcat (default_domain, "::", kind, NULL);
      return g_intern_string (q);
    }
  if (sep == kind || sep[2] == '\0' || strchr (sep + 2, ':'))
    return NULL;
  return g_intern_string (kind);
}

/* ------------------------------------------------------------------------ */
/* Nodes                                                                     */

GraphNode *
graph_create_node (Graph *g, const char *kind, guint n_inputs, GraphValue *const *inputs,
                   guint n_outputs)
{
  const char *sym = graph_symbol (kind, GRAPH_ONNX_DOMAIN);
  if (sym == NULL)
    {
      g_critical ("graph_create_node: \"%s\" is not a valid node kind (expected \"Op\" or \"domain::Op\")",
                  kind ? kind : "(null)");
      return NULL;
    }
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] != NULL && !graph_owns_value (g, inputs[i]))
      {
        g_critical ("graph_create_node: input %u of %s is not a value of this graph or an enclosing one",
                    i, sym);
        return NULL;
      }
  GraphNode *n = graph_slab_alloc (&g->node_slab);
  n->graph = g;
  n->kind = sym;
  const char *sep = g_strrstr (sym, "::");
  g_autofree char *domain = g_strndup (sym, (gsize) (sep - sym));
  n->domain = g_intern_string (domain);
  n->op_type = g_intern_string (sep + 2);
  n->alive = TRUE;
  for (guint i = 0; i < n_inputs; i++)
    graph_node_add_input (n, inputs[i]);
  for (guint i = 0; i < n_outputs; i++)
    graph_node_add_output (n);
  return n;
}

GraphNode *graph_first_node (const Graph *g) { return g->first; }
GraphNode *graph_last_node (const Graph *g) { return g->last; }
GraphNode *graph_node_next (const GraphNode *n) { return n->next; }
GraphNode *graph_node_prev (const GraphNode *n) { return n->prev; }
guint graph_n_nodes (const Graph *g) { return g->n_nodes; }
GraphNode *graph_get_insert_point (const Graph *g) { return g->insert_point; }

void
graph_set_insert_point (Graph *g, GraphNode *before)
{
  g_return_if_fail (before == NULL || (before->graph == g && before->in_list));
  g->insert_point = before;
}

static void
node_unlink (GraphNode *n)
{
  Graph *g = n->graph;
  if (!n->in_list)
    return;
  if (g->insert_point == n)
    g->insert_point = n->next;
  if (n->prev)
    n->prev->next = n->next;
  else
    g->first = n->next;
  if (n->next)
    n->next->prev = n->prev;
  else
    g->last = n->prev;
  n->prev = n->next = NULL;
  n->in_list = FALSE;
  g->n_nodes--;
}

/* Links n before ref (ref NULL: at the end). */
static void
node_link_before (GraphNode *n, GraphNode *ref)
{
  Graph *g = n->graph;
  n->next = ref;
  n->prev = ref ? ref->prev : g->last;
  if (n->prev)
    n->prev->next = n;
  else
    g->first = n;
  if (ref)
    ref->prev = n;
  else
    g->last = n;
  n->in_list = TRUE;
  g->n_nodes++;
}

void
graph_insert_node (Graph *g, GraphNode *n)
{
  g_return_if_fail (n != NULL && n->graph == g && n->alive);
  node_unlink (n);
  node_link_before (n, g->insert_point);
}

void
graph_node_insert_before (GraphNode *n, GraphNode *ref)
{
  g_return_if_fail (n != NULL && ref != NULL && n != ref && n->graph == ref->graph && ref->in_list);
  node_unlink (n);
  node_link_before (n, ref);
}

void
graph_node_insert_after (GraphNode *n, GraphNode *ref)
{
  g_return_if_fail (n != NULL && ref != NULL && n != ref && n->graph == ref->graph && ref->in_list);
  node_unlink (n);
  node_link_before (n, ref->next);
}

gboolean
graph_node_destroy (GraphNode *n)
{
  g_return_val_if_fail (n != NULL && n->alive, FALSE);
  for (guint i = 0; i < n->n_outputs; i++)
    if (n->outputs[i]->n_uses > 0 || graph_value_is_graph_output (n->outputs[i]))
      {
        g_critical ("graph_node_destroy: output %u of %s is still used", i, n->kind);
        return FALSE;
      }
  for (guint i = 0; i < n->n_inputs; i++)
    if (n->inputs[i])
      graph_value_remove_use (n->inputs[i], n, i);
  node_unlink (n);
  if (n->name && g_hash_table_lookup (n->graph->node_names, n->name) == n)
    g_hash_table_remove (n->graph->node_names, n->name);
  for (guint i = 0; i < n->n_outputs; i++)
    value_release (n->outputs[i]);
  node_release (n);
  return TRUE;
}

Graph *graph_node_graph (const GraphNode *n) { return n->graph; }
const char *graph_node_kind (const GraphNode *n) { return n->kind; }
const char *graph_node_op_type (const GraphNode *n) { return n->op_type; }
const char *graph_node_domain (const GraphNode *n) { return n->domain; }
guint graph_node_n_inputs (const GraphNode *n) { return n->n_inputs; }
guint graph_node_n_outputs (const GraphNode *n) { return n->n_outputs; }
const char *graph_node_get_scope (const GraphNode *n) { return n->scope; }
const char *graph_node_get_source (const GraphNode *n) { return n->source; }
const char *graph_node_get_name (const GraphNode *n) { return n->name; }
const char *graph_node_get_doc_string (const GraphNode *n) { return n->doc; }

gboolean
graph_node_is (const GraphNode *n, const char *kind)
{
  /* n->kind is interned, but interning `kind` here (a locked hash lookup)
   * cost more than comparing: passes call this for every node. */
  return n->kind == kind || strcmp (n->kind, kind) == 0;
}

GraphValue *
graph_node_input (const GraphNode *n, guint i)
{
  g_return_val_if_fail (i < n->n_inputs, NULL);
  return n->inputs[i];
}

GraphValue *
graph_node_output (const GraphNode *n, guint i)
{
  g_return_val_if_fail (i < n->n_outputs, NULL);
  return n->outputs[i];
}

void
graph_node_set_input (GraphNode *n, guint i, GraphValue *v)
{
  g_return_if_fail (i < n->n_inputs);
  g_return_if_fail (v == NULL || graph_owns_value (n->graph, v));
  if (n->inputs[i])
    graph_value_remove_use (n->inputs[i], n, i);
  n->inputs[i] = v;
  if (v)
    graph_value_add_use (v, n, i);
}

void
graph_node_add_input (GraphNode *n, GraphValue *v)
{
  g_return_if_fail (v == NULL || graph_owns_value (n->graph, v));
  if (n->n_inputs == n->cap_inputs)
    {
      n->cap_inputs = n->cap_inputs ? n->cap_inputs * 2 : 4;
      n->inputs = g_renew (GraphValue *, n->inputs, n->cap_inputs);
    }
  n->inputs[n->n_inputs] = v;
  if (v)
    graph_value_add_use (v, n, n->n_inputs);
  n->n_inputs++;
}

void
graph_node_remove_input (GraphNode *n, guint i)
{
  g_return_if_fail (i < n->n_inputs);
  /* Inputs after i move down one slot: re-register their uses. */
  for (guint j = i; j < n->n_inputs; j++)
    if (n->inputs[j])
      graph_value_remove_use (n->inputs[j], n, j);
  memmove (&n->inputs[i], &n->inputs[i + 1], (n->n_inputs - i - 1) * sizeof (GraphValue *));
  n->n_inputs--;
  for (guint j = i; j < n->n_inputs; j++)
    if (n->inputs[j])
      graph_value_add_use (n->inputs[j], n, j);
}

GraphValue *
graph_node_add_output (GraphNode *n)
{
  if (n->n_outputs == n->cap_outputs)
    {
      n->cap_outputs = n->cap_outputs ? n->cap_outputs * 2 : 2;
      n->outputs = g_renew (GraphValue *, n->outputs, n->cap_outputs);
    }
  GraphValue *v = value_new (n->graph, n, n->n_outputs);
  n->outputs[n->n_outputs++] = v;
  return v;
}

gboolean
graph_node_remove_output (GraphNode *n, guint i)
{
  g_return_val_if_fail (i < n->n_outputs, FALSE);
  GraphValue *v = n->outputs[i];
  if (v->n_uses > 0 || graph_value_is_graph_output (v))
    return FALSE;
  value_release (v);
  memmove (&n->outputs[i], &n->outputs[i + 1], (n->n_outputs - i - 1) * sizeof (GraphValue *));
  n->n_outputs--;
  for (guint j = i; j < n->n_outputs; j++)
    n->outputs[j]->offset = j;
  return TRUE;
}

void
graph_node_set_scope (GraphNode *n, const char *scope)
{
  n->scope = scope ? g_string_chunk_insert_const (n->graph->strings, scope) : NULL;
}

void
graph_node_set_source (GraphNode *n, const char *source)
{
  n->source = source ? g_string_chunk_insert_const (n->graph->strings, source) : NULL;
}

void
graph_node_set_doc_string (GraphNode *n, const char *doc)
{
  n->doc = doc ? g_string_chunk_insert_const (n->graph->strings, doc) : NULL;
}

const char *
graph_node_set_name (GraphNode *n, const char *name)
{
  Graph *g = n->graph;
  if (n->name && g_hash_table_lookup (g->node_names, n->name) == n)
    g_hash_table_remove (g->node_names, n->name);
  n->name = NULL;
  if (name == NULL)
    return NULL;
  n->name = graph_unique_name (g->node_names, g->strings, name);
  g_hash_table_insert (g->node_names, (gpointer) n->name, n);
  return n->name;
}

GraphNode *
graph_find_node (const Graph *g, const char *name)
{
  return g_hash_table_lookup (g->node_names, name);
}

/* ------------------------------------------------------------------------ */
/* Subgraphs                                                                 */

gboolean
graph_is_within (const Graph *g, const Graph *root)
{
  for (; g != NULL; g = g->outer)
    if (g == root)
      return TRUE;
  return FALSE;
}

static void
drop_uses_outside (Graph *g, Graph *root)
{
  for (GraphNode *n = g->first; n; n = n->next)
    {
      for (guint i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] && !graph_is_within (n->inputs[i]->graph, root))
          {
            graph_value_remove_use (n->inputs[i], n, i);
            n->inputs[i] = NULL;
          }
      for (guint a = 0; a < n->n_attrs; a++)
        {
          GraphAttr *attr = &n->attrs[a];
          if (attr->kind == GRAPH_ATTR_G)
            drop_uses_outside (attr->u.g, root);
          else if (attr->kind == GRAPH_ATTR_GS)
            for (gsize k = 0; k < attr->len; k++)
              drop_uses_outside (attr->u.gs[k], root);
        }
    }
  for (guint i = 0; i < g->outputs->len; i++)
    {
      GraphValue *v = g_ptr_array_index (g->outputs, i);
      if (!graph_is_within (v->graph, root))
        output_ref_remove (v, g, i);
    }
  g_ptr_array_set_size (g->outputs, 0);
}

void
graph_drop_outer_uses (Graph *sub)
{
  drop_uses_outside (sub, sub);
}

void
graph_attach_subgraph (Graph *sub, GraphNode *owner)
{
  g_return_if_fail (sub->outer == NULL || sub->outer == owner->graph);
  sub->outer = owner->graph;
  sub->owner = owner;
}
