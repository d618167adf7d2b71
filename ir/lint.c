/* graph_lint: checks every invariant of the IR.
 *
 * - the node list is consistent (links, count, owning graph, liveness);
 * - every input is defined before use: a graph input, an output of an
 *   earlier node, or a value of an enclosing graph defined before the node
 *   that owns the subgraph;
 * - use lists are exact: each non-NULL input (n, i) appears once on its
 *   value, and each use listed on a value is such an input;
 * - outputs know their node and offset; graph inputs have no node;
 * - value and node names are unique and the name tables agree with them;
 * - graph outputs are registered on their values;
 * - initializers sit on graph inputs only;
 * - subgraphs point back at their owner and pass the same checks.
 */
#include "ir/graph-private.h"

#define LINT_FAIL(...)                                                       \
  G_STMT_START {                                                             \
    g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_LINT, __VA_ARGS__);         \
    return FALSE;                                                            \
  } G_STMT_END

static gboolean lint_graph (const Graph *g, GHashTable *defined, GError **error);

static gboolean
check_uses (const GraphValue *v, GError **error)
{
  for (guint u = 0; u < v->n_uses; u++)
    {
      const GraphUse *use = &v->uses[u];
      if (!use->node->alive || use->index >= use->node->n_inputs
          || use->node->inputs[use->index] != v)
        LINT_FAIL ("value %%%u lists a use (input %u of %s) that does not use it",
                   v->id, use->index, use->node->alive ? use->node->kind : "a destroyed node");
      for (guint w = u + 1; w < v->n_uses; w++)
        if (v->uses[w].node == use->node && v->uses[w].index == use->index)
          LINT_FAIL ("value %%%u lists input %u of %s twice", v->id, use->index, use->node->kind);
    }
  return TRUE;
}

static gboolean
check_value_name (const Graph *g, const GraphValue *v, GError **error)
{
  if (v->name && g_hash_table_lookup (g->value_names, v->name) != v)
    LINT_FAIL ("value name \"%s\" is not unique or not registered", v->name);
  return TRUE;
}

static gboolean
use_is_listed (const GraphValue *v, const GraphNode *n, guint i)
{
  for (guint u = 0; u < v->n_uses; u++)
    if (v->uses[u].node == n && v->uses[u].index == i)
      return TRUE;
  return FALSE;
}

static gboolean
lint_node (const Graph *g, const GraphNode *n, GHashTable *defined, GError **error)
{
  if (!n->alive || n->graph != g || !n->in_list)
    LINT_FAIL ("node %s is in the list of a graph that does not own it", n->kind);
  if (n->name && g_hash_table_lookup (g->node_names, n->name) != n)
    LINT_FAIL ("node name \"%s\" is not unique or not registered", n->name);
  for (guint i = 0; i < n->n_inputs; i++)
    {
      GraphValue *v = n->inputs[i];
      if (v == NULL)
        continue;
      if (!g_hash_table_contains (defined, v))
        LINT_FAIL ("input %u of %s (%%%s) is used before it is defined", i, n->kind,
                   v->name ? v->name : "unnamed");
      if (!use_is_listed (v, n, i))
        LINT_FAIL ("input %u of %s is missing from the use list of its value", i, n->kind);
    }
  /* Subgraphs see everything defined so far, but not this node's outputs. */
  for (guint a = 0; a < n->n_attrs; a++)
    {
      const GraphAttr *attr = &n->attrs[a];
      gsize count = attr->kind == GRAPH_ATTR_G ? 1 : attr->kind == GRAPH_ATTR_GS ? attr->len : 0;
      for (gsize k = 0; k < count; k++)
        {
          const Graph *sub = attr->kind == GRAPH_ATTR_G ? attr->u.g : attr->u.gs[k];
          if (sub->outer != g || sub->owner != n)
            LINT_FAIL ("subgraph %s of %s does not point back at its node", attr->name, n->kind);
          g_autoptr (GHashTable) inner = g_hash_table_new (NULL, NULL);
          GHashTableIter it;
          gpointer key;
          g_hash_table_iter_init (&it, defined);
          while (g_hash_table_iter_next (&it, &key, NULL))
            g_hash_table_add (inner, key);
          if (!lint_graph (sub, inner, error))
            {
              g_prefix_error (error, "in subgraph %s of %s: ", attr->name, n->kind);
              return FALSE;
            }
        }
    }
  for (guint i = 0; i < n->n_outputs; i++)
    {
      GraphValue *v = n->outputs[i];
      if (!v->alive || v->node != n || v->offset != i || v->graph != g)
        LINT_FAIL ("output %u of %s does not point back at its node", i, n->kind);
      if (v->initializer)
        LINT_FAIL ("output %u of %s carries an initializer", i, n->kind);
      if (!check_value_name (g, v, error) || !check_uses (v, error))
        return FALSE;
      g_hash_table_add (defined, v);
    }
  return TRUE;
}

static gboolean
lint_graph (const Graph *g, GHashTable *defined, GError **error)
{
  for (guint i = 0; i < g->inputs->len; i++)
    {
      GraphValue *v = g_ptr_array_index (g->inputs, i);
      if (!v->alive || v->node != NULL || v->graph != g || v->offset != i)
        LINT_FAIL ("graph input %u is not a live input value of this graph", i);
      if (!check_value_name (g, v, error) || !check_uses (v, error))
        return FALSE;
      g_hash_table_add (defined, v);
    }
  guint count = 0;
  const GraphNode *prev = NULL;
  for (const GraphNode *n = g->first; n; prev = n, n = n->next)
    {
      if (n->prev != prev)
        LINT_FAIL ("node list links are broken at %s", n->kind);
      if (++count > g->n_nodes)
        LINT_FAIL ("node list is longer than its count (%u)", g->n_nodes);
      if (!lint_node (g, n, defined, error))
        return FALSE;
    }
  if (prev != g->last || count != g->n_nodes)
    LINT_FAIL ("node count %u or last node does not match the list (%u nodes)", g->n_nodes, count);
  if (g->insert_point && (!g->insert_point->in_list || g->insert_point->graph != g))
    LINT_FAIL ("the insert point is not a node of this graph");
  for (guint i = 0; i < g->outputs->len; i++)
    {
      GraphValue *v = g_ptr_array_index (g->outputs, i);
      gboolean registered = FALSE;
      if (!g_hash_table_contains (defined, v))
        LINT_FAIL ("graph output %u is not defined in the graph", i);
      for (guint r = 0; v->output_refs && r < v->output_refs->len; r++)
        {
          GraphOutputRef *ref = &g_array_index (v->output_refs, GraphOutputRef, r);
          registered |= ref->graph == g && ref->index == i;
        }
      if (!registered)
        LINT_FAIL ("graph output %u is not registered on its value", i);
    }
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init (&it, g->value_names);
  while (g_hash_table_iter_next (&it, &key, &val))
    if (!((GraphValue *) val)->alive || ((GraphValue *) val)->name != key)
      LINT_FAIL ("name table entry \"%s\" points at a value with another name", (char *) key);
  return TRUE;
}

gboolean
graph_lint (const Graph *g, GError **error)
{
  g_return_val_if_fail (g != NULL, FALSE);
  g_autoptr (GHashTable) defined = g_hash_table_new (NULL, NULL);
  /* A subgraph linted on its own may use any value of its enclosing graphs. */
  for (const Graph *o = g->outer; o; o = o->outer)
    {
      for (guint i = 0; i < o->inputs->len; i++)
        g_hash_table_add (defined, g_ptr_array_index (o->inputs, i));
      for (const GraphNode *n = o->first; n; n = n->next)
        for (guint i = 0; i < n->n_outputs; i++)
          g_hash_table_add (defined, n->outputs[i]);
    }
  return lint_graph (g, defined, error);
}
