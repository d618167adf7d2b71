/* Checking model files whose nodes are not in topological order.
 *
 * onnxio_load refuses such a file at the first input that is not defined
 * yet, but `symonnx check` must list every problem.  So when loading fails,
 * the file is unpacked here, every use before definition is listed in file
 * terms, the nodes of each graph are sorted (stable: file order among the
 * ready ones), the model is packed again and loaded, and the other checks run
 * on it with node indices mapped back to the file's. */
#include "export/check/checker-private.h"
#include "export/onnx/onnxio-private.h"
#include <string.h>

typedef struct NameScope NameScope;
struct NameScope
{
  GHashTable      *names;   /* char* set */
  const NameScope *outer;
};

typedef struct
{
  GPtrArray  *problems;
  GHashTable *perms;        /* Onnx__GraphProto* → guint* (sorted position → file index) */
  gboolean    reordered;
} OrderCtx;

static gboolean
scope_has (const NameScope *s, const char *name)
{
  for (; s != NULL; s = s->outer)
    if (g_hash_table_contains (s->names, name))
      return TRUE;
  return FALSE;
}

static char *
proto_where (const char *prefix, const Onnx__NodeProto *np, guint index)
{
  g_autofree char *kind = g_strdup_printf ("%s::%s", onnxio_domain_to_ir (np->domain),
                                           onnxio_str_or_empty (np->op_type));
  return onnx_check_node_where (prefix, np->name, kind, index);
}

static void
set_add_all (GHashTable *to, GHashTable *from)
{
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, from);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_hash_table_add (to, key);
}

static gboolean
present (const char *name)
{
  return name != NULL && *name != '\0';
}

static void order_graph (OrderCtx *ctx, Onnx__GraphProto *gp, const NameScope *outer,
                         const char *prefix);

static void
order_subgraphs (OrderCtx *ctx, const Onnx__NodeProto *np, const char *where,
                 const NameScope *scope)
{
  for (gsize a = 0; a < np->n_attribute; a++)
    {
      const Onnx__AttributeProto *ap = np->attribute[a];
      const char *name = onnxio_str_or_empty (ap->name);
      if (ap->g != NULL)
        {
          g_autofree char *p = g_strdup_printf ("%s: attribute '%s'", where, name);
          order_graph (ctx, ap->g, scope, p);
        }
      for (gsize k = 0; k < ap->n_graphs; k++)
        {
          g_autofree char *p = g_strdup_printf ("%s: attribute '%s'[%" G_GSIZE_FORMAT "]", where,
                                                name, k);
          order_graph (ctx, ap->graphs[k], scope, p);
        }
    }
}

static void
order_graph (OrderCtx *ctx, Onnx__GraphProto *gp, const NameScope *outer, const char *prefix)
{
  g_autoptr(GHashTable) defined = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal); /* name → index + 1 */
  g_autoptr(GHashTable) all = g_hash_table_new (g_str_hash, g_str_equal);
  for (gsize i = 0; i < gp->n_input; i++)
    if (present (gp->input[i]->name))
      g_hash_table_add (defined, gp->input[i]->name);
  for (gsize i = 0; i < gp->n_initializer; i++)
    if (present (gp->initializer[i]->name))
      g_hash_table_add (defined, gp->initializer[i]->name);
  for (gsize i = 0; i < gp->n_node; i++)
    for (gsize o = 0; o < gp->node[i]->n_output; o++)
      if (present (gp->node[i]->output[o]))
        g_hash_table_insert (producer, gp->node[i]->output[o], GSIZE_TO_POINTER (i + 1));

  /* Subgraphs see every name of this graph (sorted, they all precede). */
  set_add_all (all, defined);
  set_add_all (all, producer);
  NameScope sub_scope = { all, outer };

  /* Uses before definition, in file order. */
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  set_add_all (seen, defined);
  NameScope seen_scope = { seen, outer };
  gboolean out_of_order = FALSE;
  for (gsize i = 0; i < gp->n_node; i++)
    {
      const Onnx__NodeProto *np = gp->node[i];
      g_autofree char *where = proto_where (prefix, np, (guint) i);
      for (gsize k = 0; k < np->n_input; k++)
        {
          const char *in = np->input[k];
          if (!present (in) || scope_has (&seen_scope, in))
            continue;
          gsize p = GPOINTER_TO_SIZE (g_hash_table_lookup (producer, in));
          char *msg;
          if (p > 0)
            {
              const Onnx__NodeProto *pn = gp->node[p - 1];
              g_autofree char *pw = proto_where (NULL, pn, (guint) (p - 1));
              guint out = 0;
              while (out < pn->n_output && g_strcmp0 (pn->output[out], in) != 0)
                out++;
              msg = g_strdup_printf ("input %u '%s' is used before it is defined (it is output %u "
                                     "of %s, later in the graph)", (guint) k, in, out, pw);
              out_of_order = TRUE;
            }
          else
            msg = g_strdup_printf ("input %u '%s' is not defined in this graph nor in an "
                                   "enclosing one", (guint) k, in);
          g_ptr_array_add (ctx->problems, onnx_check_problem_new (ONNX_CHECK_ERROR, where, NULL, msg));
        }
      for (gsize o = 0; o < np->n_output; o++)
        if (present (np->output[o]))
          g_hash_table_add (seen, np->output[o]);
      order_subgraphs (ctx, np, where, &sub_scope);
    }
  if (!out_of_order)
    return;

  /* Stable sort: repeated passes emit, in file order, every node whose
   * inputs are all defined; what never becomes ready keeps its order at the
   * end (the loader then reports it). */
  ctx->reordered = TRUE;
  gsize n = gp->n_node;
  guint *perm = g_new (guint, MAX (n, 1));
  g_autofree gboolean *done = g_new0 (gboolean, MAX (n, 1));
  g_autoptr(GHashTable) ready = g_hash_table_new (g_str_hash, g_str_equal);
  set_add_all (ready, defined);
  NameScope ready_scope = { ready, outer };
  gsize m = 0;
  for (gboolean progress = TRUE; progress && m < n;)
    {
      progress = FALSE;
      for (gsize i = 0; i < n; i++)
        {
          if (done[i])
            continue;
          const Onnx__NodeProto *np = gp->node[i];
          gboolean ok = TRUE;
          for (gsize k = 0; k < np->n_input && ok; k++)
            ok = !present (np->input[k]) || scope_has (&ready_scope, np->input[k])
                 || !g_hash_table_contains (producer, np->input[k]);
          if (!ok)
            continue;
          done[i] = TRUE;
          perm[m++] = (guint) i;
          progress = TRUE;
          for (gsize o = 0; o < np->n_output; o++)
            if (present (np->output[o]))
              g_hash_table_add (ready, np->output[o]);
        }
    }
  for (gsize i = 0; i < n; i++)
    if (!done[i])
      perm[m++] = (guint) i;
  g_autofree Onnx__NodeProto **sorted = g_new (Onnx__NodeProto *, MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    sorted[i] = gp->node[perm[i]];
  memcpy (gp->node, sorted, n * sizeof *sorted);
  g_hash_table_insert (ctx->perms, gp, perm);
}

/* IR node → file index, walking the loaded graph beside the sorted proto. */
static void
map_graph (OrderCtx *ctx, const Onnx__GraphProto *gp, const Graph *g, GHashTable *index)
{
  const guint *perm = g_hash_table_lookup (ctx->perms, gp);
  gsize i = 0;
  graph_foreach_node (g, n)
    {
      if (i >= gp->n_node)
        return;
      if (perm != NULL)
        g_hash_table_insert (index, n, GUINT_TO_POINTER (perm[i] + 1));
      const Onnx__NodeProto *np = gp->node[i++];
      for (gsize a = 0; a < np->n_attribute; a++)
        {
          const Onnx__AttributeProto *ap = np->attribute[a];
          Graph *sub = NULL;
          gsize len = 0;
          Graph *const *subs = NULL;
          if (ap->g != NULL && graph_node_get_g (n, ap->name, &sub))
            map_graph (ctx, ap->g, sub, index);
          if (ap->n_graphs > 0 && graph_node_get_gs (n, ap->name, &len, &subs))
            for (gsize k = 0; k < ap->n_graphs && k < len; k++)
              map_graph (ctx, ap->graphs[k], subs[k], index);
        }
    }
}

GPtrArray *
onnx_check_file (const char *path, const OnnxCheckOptions *opts, guint *n_nodes, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autoptr(GError) load_error = NULL;
  g_autoptr(GPtrArray) problems =
    g_ptr_array_new_with_free_func ((GDestroyNotify) onnx_check_problem_free);
  g_autoptr(Graph) g = onnxio_load (path, &load_error);
  if (n_nodes != NULL)
    *n_nodes = 0;
  if (g != NULL)
    {
      onnx_check_graph_into (g, opts, NULL, problems);
      if (n_nodes != NULL)
        *n_nodes = graph_n_nodes (g);
      return g_steal_pointer (&problems);
    }
  if (!g_error_matches (load_error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE))
    {
      g_propagate_error (error, g_steal_pointer (&load_error));
      return NULL;
    }

  /* The file parsed as far as the wire check: look at the node order. */
  g_autoptr(GMappedFile) mf = g_mapped_file_new (path, FALSE, NULL);
  const guint8 *data = mf ? (const guint8 *) g_mapped_file_get_contents (mf) : NULL;
  gsize len = mf ? g_mapped_file_get_length (mf) : 0;
  Onnx__ModelProto *m = NULL;
  if (len > 0 && onnxio_wire_check (data, len, &onnx__model_proto__descriptor, path, NULL))
    m = onnx__model_proto__unpack (&onnxio_pb_allocator, len, data);
  if (m == NULL || m->graph == NULL)
    {
      if (m != NULL)
        onnx__model_proto__free_unpacked (m, &onnxio_pb_allocator);
      g_propagate_error (error, g_steal_pointer (&load_error));
      return NULL;
    }
  OrderCtx ctx = { problems, g_hash_table_new_full (NULL, NULL, NULL, g_free), FALSE };
  order_graph (&ctx, m->graph, NULL, NULL);
  if (!ctx.reordered)
    {
      g_hash_table_unref (ctx.perms);
      onnx__model_proto__free_unpacked (m, &onnxio_pb_allocator);
      g_propagate_error (error, g_steal_pointer (&load_error));
      return NULL;
    }
  gsize size = onnx__model_proto__get_packed_size (m);
  g_autofree guint8 *packed = g_try_malloc (MAX (size, 1));
  g_autoptr(GError) sorted_error = NULL;
  if (packed != NULL)
    {
      onnx__model_proto__pack (m, packed);
      g_autofree char *dir = g_path_get_dirname (path);
      g = onnxio_load_from_data (packed, size, dir, path, &sorted_error);
    }
  if (g == NULL)
    g_ptr_array_add (problems, onnx_check_problem_new (
      ONNX_CHECK_ERROR, "model", NULL,
      g_strdup_printf ("with its nodes sorted, the model still does not load: %s",
                       sorted_error ? sorted_error->message : "out of memory")));
  else
    {
      g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);
      map_graph (&ctx, m->graph, g, index);
      onnx_check_graph_into (g, opts, index, problems);
      if (n_nodes != NULL)
        *n_nodes = graph_n_nodes (g);
    }
  g_hash_table_unref (ctx.perms);
  onnx__model_proto__free_unpacked (m, &onnxio_pb_allocator);
  return g_steal_pointer (&problems);
}
