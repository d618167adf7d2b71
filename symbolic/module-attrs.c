/* Note [Module attributes written in forward]
 * Scripted code may assign a module's attributes in forward
 * (`self.b = True`, `self.conv.weight = w + w`) and read them back:
 *    = prim::SetAttr[name="weight"](%conv.5, %12)
 *   %w : Tensor = prim::GetAttr[name="weight"](%conv.7)   # reads %12
 * Translated node by node, the GetAttr would read the state_dict's weight
 * (a wrong number), and prim::SetAttr has no ONNX form.  As torch 1.13's
 * export does first (it turns such attributes into values flowing through
 * the graph), sym_fold_set_attrs() rewrites a copy of the trace: walking
 * the nodes in order, each SetAttr records the value for its attribute
 * path ("conv.weight", the prim::GetAttr chain from the module) and is
 * removed; each later GetAttr of that path reads the recorded value
 * instead (its uses are replaced).  A SetAttr in the branch an If takes at
 * export time (a condition sym_static_bool() fixes: `if self.b:` after
 * `self.b = True`, `if self.conv.bias is not None:`) counts as in the
 * enclosing block, since translation inlines that branch.  So that such a
 * condition is fixed, `self.conv.bias is (not) None` of an attribute the
 * weights hold (an Optional[Tensor] to the trace) becomes a constant.
 *
 * Left in the graph, and so refused by the export (no symbolic): a
 * SetAttr inside a Loop body or a branch chosen at run time (torch carries
 * the attribute as a loop-carried value or an If output; not yet here),
 * and one that assigns a module rather than a value.  An attribute such a
 * SetAttr writes is not rewritten after it: the export fails at that
 * SetAttr, never reads a stale value.  The module's state after forward
 * (an ONNX graph has none) is not kept, as by torch. */
#include "symbolic/translate.h"
#include <string.h>

typedef struct
{
  GHashTable *state;     /* attribute path → the value it holds now (not owned) */
  GHashTable *stale;     /* paths a SetAttr left in the graph writes */
  GHashTable *weights;   /* name → Tensor* (may be NULL) */
  GPtrArray  *doomed;    /* folded SetAttrs, destroyed after the walk */
} Walk;

/* "conv.weight" for a SetAttr[name=weight](%conv) of %conv = GetAttr[conv](%self). */
static char *
set_path (GraphNode *n)
{
  const char *name;
  if (graph_node_n_inputs (n) != 2 || !graph_node_get_s (n, "name", &name, NULL))
    return NULL;
  GraphValue *obj = graph_node_input (n, 0);
  if (obj && graph_value_node (obj) == NULL)
    return g_strdup (name);   /* on the module itself */
  g_autofree char *base = obj ? sym_getattr_path (obj) : NULL;
  return base ? g_strconcat (base, ".", name, NULL) : NULL;
}

/* A value that is itself a module (or other class object): not folded. */
static gboolean
is_object (GraphValue *v)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  return t == NULL || graph_type_kind (t) == GRAPH_TYPE_CLASS;
}

/* Whether g (or a block in it) has a prim::SetAttr.  With `paths`, the
 * whole of g is scanned and the attribute path each one writes added. */
static gboolean
scan_set_attrs (const Graph *g, GHashTable *paths)
{
  gboolean found = FALSE;
  for (GraphNode *n = graph_first_node (g); n && (paths || !found); n = graph_node_next (n))
    {
      if (graph_node_is (n, "prim::SetAttr"))
        {
          found = TRUE;
          char *path = paths ? set_path (n) : NULL;
          if (path)
            g_hash_table_add (paths, path);
        }
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            found = scan_set_attrs (subs[k], paths) || found;
        }
    }
  return found;
}

/* n is `x is None` or `x is not None` of an attribute the weights hold:
 * its output replaced by a constant bool (a weight is never None). */
static void
fold_is_none (GraphNode *n, Walk *w)
{
  if (w->weights == NULL || graph_node_n_inputs (n) != 2 || graph_node_n_outputs (n) != 1
      || !sym_is_none (graph_node_input (n, 1)))
    return;
  g_autofree char *path = sym_getattr_path (graph_node_input (n, 0));
  if (path == NULL || g_hash_table_contains (w->stale, path)
      || !g_hash_table_contains (w->weights, path))
    return;
  GraphNode *c = graph_create_node (graph_node_graph (n), "prim::Constant", 0, NULL, 1);
  if (c == NULL)
    return;
  graph_node_set_i (c, "value", graph_node_is (n, "aten::__isnot__"));
  g_autoptr (GraphType) t = graph_type_new_simple (GRAPH_TYPE_BOOL);
  graph_value_set_type (graph_node_output (c, 0), t);
  graph_node_insert_before (c, n);
  graph_value_replace_all_uses (graph_node_output (n, 0), graph_node_output (c, 0));
}

static void
walk (Graph *g, Walk *w, gboolean fold)
{
  for (GraphNode *n = graph_first_node (g); n; n = graph_node_next (n))
    {
      if (graph_node_is (n, "prim::GetAttr") && graph_node_n_outputs (n) == 1)
        {
          g_autofree char *path = sym_getattr_path (graph_node_output (n, 0));
          GraphValue *now = path && !g_hash_table_contains (w->stale, path)
                              ? g_hash_table_lookup (w->state, path) : NULL;
          if (now)
            graph_value_replace_all_uses (graph_node_output (n, 0), now);
          continue;
        }
      if (graph_node_is (n, "aten::__is__") || graph_node_is (n, "aten::__isnot__"))
        {
          fold_is_none (n, w);
          continue;
        }
      if (graph_node_is (n, "prim::SetAttr"))
        {
          g_autofree char *path = set_path (n);
          /* (a SetAttr has no result; one that has, in a malformed trace, stays) */
          if (!fold || path == NULL || graph_node_n_outputs (n) > 0
              || is_object (graph_node_input (n, 1)))
            {
              if (path)
                g_hash_table_add (w->stale, g_steal_pointer (&path));
              continue;
            }
          g_hash_table_insert (w->state, g_steal_pointer (&path), graph_node_input (n, 1));
          g_ptr_array_add (w->doomed, n);
          continue;
        }
      gboolean taken;
      if (graph_node_is (n, "prim::If") && graph_node_n_inputs (n) == 1
          && sym_static_bool (graph_node_input (n, 0), &taken))
        {
          /* the branch translation inlines; the other never runs */
          Graph *block = NULL;
          if (graph_node_get_g (n, taken ? "block0" : "block1", &block))
            walk (block, w, fold);
          continue;
        }
      /* a run-time If, a Loop...: reads see the state as it is here; a
       * write inside stays (refused) and what it writes is stale after */
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            scan_set_attrs (subs[k], w->stale);
          for (gsize k = 0; k < len; k++)
            walk (subs[k], w, FALSE);
        }
    }
}

gboolean
sym_graph_has_set_attrs (const Graph *g)
{
  return g && scan_set_attrs (g, NULL);
}

guint
sym_fold_set_attrs (Graph *g, GHashTable *back, GHashTable *weights)
{
  g_return_val_if_fail (g != NULL, 0);
  Walk w = {
    .state = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .stale = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .weights = weights,
    .doomed = g_ptr_array_new (),
  };
  walk (g, &w, TRUE);
  guint folded = w.doomed->len;
  for (guint i = 0; i < folded; i++)
    {
      if (back)
        g_hash_table_remove (back, w.doomed->pdata[i]);
      graph_node_destroy (w.doomed->pdata[i]);
    }
  g_hash_table_unref (w.state);
  g_hash_table_unref (w.stale);
  g_ptr_array_unref (w.doomed);
  return folded;
}
