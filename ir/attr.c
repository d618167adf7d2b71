/* Node attributes, kept sorted by name (as torch.onnx adds them). */
#include "ir/graph-private.h"
#include <string.h>

static const char *const kind_suffixes[] = {
  [GRAPH_ATTR_F] = "f",   [GRAPH_ATTR_I] = "i",   [GRAPH_ATTR_S] = "s",
  [GRAPH_ATTR_T] = "t",   [GRAPH_ATTR_G] = "g",   [GRAPH_ATTR_TP] = "tp",
  [GRAPH_ATTR_FS] = "fs", [GRAPH_ATTR_IS] = "is", [GRAPH_ATTR_SS] = "ss",
  [GRAPH_ATTR_TS] = "ts", [GRAPH_ATTR_GS] = "gs", [GRAPH_ATTR_TPS] = "tps",
};

const char *
graph_attr_kind_suffix (GraphAttrKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (kind_suffixes), NULL);
  return kind_suffixes[kind];
}

gboolean
graph_attr_kind_from_suffix (const char *suffix, GraphAttrKind *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (kind_suffixes); i++)
    if (strcmp (kind_suffixes[i], suffix) == 0)
      {
        *out = (GraphAttrKind) i;
        return TRUE;
      }
  return FALSE;
}

void
graph_attr_clear (GraphAttr *a, GraphNode *owner)
{
  gboolean detach = owner != NULL && !owner->graph->tearing_down;
  switch (a->kind)
    {
    case GRAPH_ATTR_F: case GRAPH_ATTR_I: break;
    case GRAPH_ATTR_S: g_free (a->u.s); break;
    case GRAPH_ATTR_T: tensor_unref (a->u.t); break;
    case GRAPH_ATTR_TP: graph_type_unref (a->u.tp); break;
    case GRAPH_ATTR_G:
      if (detach)
        graph_drop_outer_uses (a->u.g);
      graph_free (a->u.g);
      break;
    case GRAPH_ATTR_FS: g_free (a->u.fs); break;
    case GRAPH_ATTR_IS: g_free (a->u.is); break;
    case GRAPH_ATTR_SS:
      for (gsize i = 0; i < a->len; i++)
        g_free (a->u.ss[i]);
      g_free (a->u.ss);
      break;
    case GRAPH_ATTR_TS:
      for (gsize i = 0; i < a->len; i++)
        tensor_unref (a->u.ts[i]);
      g_free (a->u.ts);
      break;
    case GRAPH_ATTR_GS:
      for (gsize i = 0; i < a->len; i++)
        {
          if (detach)
            graph_drop_outer_uses (a->u.gs[i]);
          graph_free (a->u.gs[i]);
        }
      g_free (a->u.gs);
      break;
    case GRAPH_ATTR_TPS:
      for (gsize i = 0; i < a->len; i++)
        graph_type_unref (a->u.tps[i]);
      g_free (a->u.tps);
      break;
    }
  g_clear_pointer (&a->ss_lens, g_free);
  memset (&a->u, 0, sizeof a->u);
}

GraphAttr *
graph_node_find_attr (const GraphNode *n, const char *name)
{
  const char *key = g_intern_string (name);
  for (guint i = 0; i < n->n_attrs; i++)
    if (n->attrs[i].name == key)
      return &n->attrs[i];
  return NULL;
}

/* Returns a cleared slot for `name`, at its sorted position. */
static GraphAttr *
attr_slot (GraphNode *n, const char *name, GraphAttrKind kind)
{
  GraphAttr *a = graph_node_find_attr (n, name);
  if (a)
    graph_attr_clear (a, n);
  else
    {
      const char *key = g_intern_string (name);
      if (n->n_attrs == n->cap_attrs)
        {
          n->cap_attrs = n->cap_attrs ? n->cap_attrs * 2 : 4;
          n->attrs = g_renew (GraphAttr, n->attrs, n->cap_attrs);
        }
      guint pos = 0;
      while (pos < n->n_attrs && strcmp (n->attrs[pos].name, key) < 0)
        pos++;
      memmove (&n->attrs[pos + 1], &n->attrs[pos], (n->n_attrs - pos) * sizeof (GraphAttr));
      n->n_attrs++;
      a = &n->attrs[pos];
      memset (a, 0, sizeof *a);
      a->name = key;
    }
  a->kind = kind;
  a->len = 0;
  return a;
}

guint graph_node_n_attrs (const GraphNode *n) { return n->n_attrs; }

const char *
graph_node_attr_name (const GraphNode *n, guint i)
{
  g_return_val_if_fail (i < n->n_attrs, NULL);
  return n->attrs[i].name;
}

gboolean
graph_node_has_attr (const GraphNode *n, const char *name)
{
  return graph_node_find_attr (n, name) != NULL;
}

gboolean
graph_node_attr_kind (const GraphNode *n, const char *name, GraphAttrKind *kind)
{
  GraphAttr *a = graph_node_find_attr (n, name);
  if (a && kind)
    *kind = a->kind;
  return a != NULL;
}

gboolean
graph_node_remove_attr (GraphNode *n, const char *name)
{
  GraphAttr *a = graph_node_find_attr (n, name);
  if (a == NULL)
    return FALSE;
  graph_attr_clear (a, n);
  guint pos = (guint) (a - n->attrs);
  memmove (a, a + 1, (n->n_attrs - pos - 1) * sizeof (GraphAttr));
  n->n_attrs--;
  return TRUE;
}

void graph_node_set_f (GraphNode *n, const char *name, double v) { attr_slot (n, name, GRAPH_ATTR_F)->u.f = v; }
void graph_node_set_i (GraphNode *n, const char *name, gint64 v) { attr_slot (n, name, GRAPH_ATTR_I)->u.i = v; }

void
graph_node_set_s_len (GraphNode *n, const char *name, const char *v, gsize len)
{
  g_return_if_fail (v != NULL || len == 0);
  char *copy = g_malloc (len + 1);
  if (len)
    memcpy (copy, v, len);
  copy[len] = '\0';
  GraphAttr *a = attr_slot (n, name, GRAPH_ATTR_S);
  a->u.s = copy;
  a->len = len;
}

void
graph_node_set_s (GraphNode *n, const char *name, const char *v)
{
  g_return_if_fail (v != NULL);
  graph_node_set_s_len (n, name, v, strlen (v));
}

void
graph_node_set_t (GraphNode *n, const char *name, Tensor *v)
{
  g_return_if_fail (v != NULL);
  tensor_ref (v);
  attr_slot (n, name, GRAPH_ATTR_T)->u.t = v;
}

void
graph_node_set_g (GraphNode *n, const char *name, Graph *sub)
{
  g_return_if_fail (sub != NULL && sub != n->graph);
  g_return_if_fail (sub->outer == NULL || sub->outer == n->graph);
  graph_attach_subgraph (sub, n);
  attr_slot (n, name, GRAPH_ATTR_G)->u.g = sub;
}

void
graph_node_set_tp (GraphNode *n, const char *name, GraphType *v)
{
  g_return_if_fail (v != NULL);
  attr_slot (n, name, GRAPH_ATTR_TP)->u.tp = graph_type_ref (v);
}

void
graph_node_set_fs (GraphNode *n, const char *name, gsize len, const double *v)
{
  GraphAttr *a = attr_slot (n, name, GRAPH_ATTR_FS);
  a->u.fs = g_memdup2 (v, len * sizeof (double));
  a->len = len;
}

void
graph_node_set_is (GraphNode *n, const char *name, gsize len, const gint64 *v)
{
  GraphAttr *a = attr_slot (n, name, GRAPH_ATTR_IS);
  a->u.is = g_memdup2 (v, len * sizeof (gint64));
  a->len = len;
}

void
graph_node_set_ss (GraphNode *n, const char *name, gsize len, const char *const *v)
{
  for (gsize i = 0; i < len; i++)
    g_return_if_fail (v[i] != NULL);
  GraphAttr *a = attr_slot (n, name, GRAPH_ATTR_SS);
  a->u.ss = g_new0 (char *, len + 1);
  a->ss_lens = g_new0 (gsize, len + 1);
  for (gsize i = 0; i < len; i++)
    {
      a->u.ss[i] = g_strdup (v[i]);
      a->ss_lens[i] = strlen (v[i]);
    }
  a->len = len;
}

void
graph_node_set_ts (GraphNode *n, const char *name, gsize len, Tensor *const *v)
{
  for (gsize i = 0; i < len; i++)
    g_return_if_fail (v[i] != NULL);
  GraphAttr *a = attr_slot (n, name, GRAPH_ATTR_TS);
  a->u.ts = g_new0 (Tensor *, len + 1);
  for (gsize i = 0; i < len; i++)
    a->u.ts[i] = tensor_ref (v[i]);
  a->len = len;
}

void
graph_node_set_gs (GraphNode *n, const char *name, gsize len, Graph *const *v)
{
  for (gsize i = 0; i < len; i++)
    g_return_if_fail (v[i] != NULL && (v[i]->outer == NULL || v[i]->outer == n->graph));
  GraphAttr *a = attr_slot (n, name, GRAPH_ATTR_GS);
  a->u.gs = g_new0 (Graph *, len + 1);
  for (gsize i = 0; i < len; i++)
    {
      graph_attach_subgraph (v[i], n);
      a->u.gs[i] = v[i];
    }
  a->len = len;
}

void
graph_node_set_tps (GraphNode *n, const char *name, gsize len, GraphType *const *v)
{
  for (gsize i = 0; i < len; i++)
    g_return_if_fail (v[i] != NULL);
  GraphAttr *a = attr_slot (n, name, GRAPH_ATTR_TPS);
  a->u.tps = g_new0 (GraphType *, len + 1);
  for (gsize i = 0; i < len; i++)
    a->u.tps[i] = graph_type_ref (v[i]);
  a->len = len;
}

static const GraphAttr *
attr_get (const GraphNode *n, const char *name, GraphAttrKind kind)
{
  const GraphAttr *a = graph_node_find_attr (n, name);
  return a && a->kind == kind ? a : NULL;
}

#define SCALAR_GETTER(fn, KIND, T, field)                                   \
  gboolean fn (const GraphNode *n, const char *name, T *v)                  \
  {                                                                         \
    const GraphAttr *a = attr_get (n, name, KIND);                          \
    if (a && v)                                                             \
      *v = a->u.field;                                                      \
    return a != NULL;                                                       \
  }
SCALAR_GETTER (graph_node_get_f, GRAPH_ATTR_F, double, f)
SCALAR_GETTER (graph_node_get_i, GRAPH_ATTR_I, gint64, i)
SCALAR_GETTER (graph_node_get_t, GRAPH_ATTR_T, Tensor *, t)
SCALAR_GETTER (graph_node_get_g, GRAPH_ATTR_G, Graph *, g)
SCALAR_GETTER (graph_node_get_tp, GRAPH_ATTR_TP, GraphType *, tp)
#undef SCALAR_GETTER

gboolean
graph_node_get_s (const GraphNode *n, const char *name, const char **v, gsize *len)
{
  const GraphAttr *a = attr_get (n, name, GRAPH_ATTR_S);
  if (a && v)
    *v = a->u.s;
  if (a && len)
    *len = a->len;
  return a != NULL;
}

/* An empty list reads as a valid pointer to no elements, never NULL, so
 * callers may memcpy/loop over (v, len) without a special case. */
static const union { double d; gint64 i; gpointer p; } empty_list[1];

#define LIST_GETTER(fn, KIND, T, field)                                     \
  gboolean fn (const GraphNode *n, const char *name, gsize *len, T **v)     \
  {                                                                         \
    const GraphAttr *a = attr_get (n, name, KIND);                          \
    if (a && len)                                                           \
      *len = a->len;                                                        \
    if (a && v)                                                             \
      *v = a->u.field ? (T *) a->u.field : (T *) (gconstpointer) empty_list; \
    return a != NULL;                                                       \
  }
LIST_GETTER (graph_node_get_fs, GRAPH_ATTR_FS, const double, fs)
LIST_GETTER (graph_node_get_is, GRAPH_ATTR_IS, const gint64, is)
LIST_GETTER (graph_node_get_ss, GRAPH_ATTR_SS, const char *const, ss)
LIST_GETTER (graph_node_get_ts, GRAPH_ATTR_TS, Tensor *const, ts)
LIST_GETTER (graph_node_get_gs, GRAPH_ATTR_GS, Graph *const, gs)

gsize
graph_node_attr_subgraphs (const GraphNode *n, const char *name, Graph **one, Graph *const **subs)
{
  gsize len = 0;
  if (graph_node_get_g (n, name, one))
    {
      *subs = one;
      return 1;
    }
  if (graph_node_get_gs (n, name, &len, subs))
    return len;
  *subs = NULL;
  return 0;
}
LIST_GETTER (graph_node_get_tps, GRAPH_ATTR_TPS, GraphType *const, tps)
#undef LIST_GETTER

static Graph *
subgraph_copy (const Graph *src, GraphNode *owner, GHashTable *value_map)
{
  Graph *dst = graph_new_subgraph (owner->graph);
  graph_copy_into (dst, src, value_map);
  return dst;
}

void
graph_attr_copy (GraphAttr *dst, const GraphAttr *src, GraphNode *owner, GHashTable *value_map)
{
  const char *name = src->name;
  switch (src->kind)
    {
    case GRAPH_ATTR_F: graph_node_set_f (owner, name, src->u.f); break;
    case GRAPH_ATTR_I: graph_node_set_i (owner, name, src->u.i); break;
    case GRAPH_ATTR_S: graph_node_set_s_len (owner, name, src->u.s, src->len); break;
    case GRAPH_ATTR_T: graph_node_set_t (owner, name, src->u.t); break;
    case GRAPH_ATTR_TP: graph_node_set_tp (owner, name, src->u.tp); break;
    case GRAPH_ATTR_G: graph_node_set_g (owner, name, subgraph_copy (src->u.g, owner, value_map)); break;
    case GRAPH_ATTR_FS: graph_node_set_fs (owner, name, src->len, src->u.fs); break;
    case GRAPH_ATTR_IS: graph_node_set_is (owner, name, src->len, src->u.is); break;
    case GRAPH_ATTR_SS:
      {
        graph_node_set_ss (owner, name, src->len, (const char *const *) src->u.ss);
        /* keep embedded NULs */
        GraphAttr *a = graph_node_find_attr (owner, name);
        for (gsize i = 0; i < src->len; i++)
          {
            g_free (a->u.ss[i]);
            a->u.ss[i] = g_malloc (src->ss_lens[i] + 1);
            memcpy (a->u.ss[i], src->u.ss[i], src->ss_lens[i] + 1);
            a->ss_lens[i] = src->ss_lens[i];
          }
        break;
      }
    case GRAPH_ATTR_TS: graph_node_set_ts (owner, name, src->len, src->u.ts); break;
    case GRAPH_ATTR_TPS: graph_node_set_tps (owner, name, src->len, src->u.tps); break;
    case GRAPH_ATTR_GS:
      {
        g_autofree Graph **subs = g_new0 (Graph *, src->len + 1);
        for (gsize i = 0; i < src->len; i++)
          subs[i] = subgraph_copy (src->u.gs[i], owner, value_map);
        graph_node_set_gs (owner, name, src->len, subs);
        break;
      }
    }
  (void) dst;
}

void
graph_node_copy_attrs (GraphNode *to, const GraphNode *from)
{
  g_autoptr (GHashTable) map = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < from->n_attrs; i++)
    graph_attr_copy (NULL, &from->attrs[i], to, map);
}
