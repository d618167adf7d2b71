/* .onnx reader: ModelProto → Graph.  The file is checked on the wire first
 * (onnx-wire.c), unpacked by protobuf-c, converted at once and the
 * unpacked tree freed. */
#include "export/onnx/onnxio-private.h"

#include <string.h>

typedef struct
{
  const char *display;
  OnnxioExternal *ext;
} ReadCtx;

/* Names visible to a graph's nodes: its own values, then its enclosing
 * graphs' (Note [Topological order] in ir/graph.h). */
typedef struct Scope
{
  GHashTable *names;            /* name → GraphValue* */
  const struct Scope *outer;
} Scope;

static GraphValue *
scope_lookup (const Scope *s, const char *name)
{
  for (; s != NULL; s = s->outer)
    {
      GraphValue *v = g_hash_table_lookup (s->names, name);
      if (v != NULL)
        return v;
    }
  return NULL;
}

#define READ_ERROR(code, ...) \
  (g_set_error (error, ONNXIO_ERROR, (code), __VA_ARGS__), FALSE)

static gboolean read_graph (ReadCtx *ctx, Onnx__GraphProto *gp, Graph *g,
                            const Scope *outer, const char *where, GError **error);

static Onnx__AttributeProto__AttributeType
attribute_type (const Onnx__AttributeProto *a)
{
  if (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
    return a->type;
  /* IR version 1 files may leave `type` out: infer it from the field set. */
  if (a->has_f) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  if (a->has_i) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  if (a->has_s) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
  if (a->t != NULL) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
  if (a->g != NULL) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  if (a->tp != NULL) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO;
  if (a->n_floats) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
  if (a->n_ints) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  if (a->n_strings) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
  if (a->n_tensors) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS;
  if (a->n_graphs) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS;
  if (a->n_type_protos) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS;
  return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static gboolean
read_attribute (ReadCtx *ctx, GraphNode *n, Onnx__AttributeProto *a,
                const Scope *scope, const char *where, GError **error)
{
  const char *name = a->name;
  if (name == NULL || *name == '\0')
    return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: attribute with an empty name",
                       ctx->display, where);
  g_autofree char *what = g_strdup_printf ("%s: attribute '%s'", where, name);
  if (a->ref_attr_name != NULL && *a->ref_attr_name != '\0')
    return READ_ERROR (ONNXIO_ERROR_UNSUPPORTED,
                       "%s: %s: attribute references (ref_attr_name, used in functions) are not supported",
                       ctx->display, what);

  switch (attribute_type (a))
    {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
      graph_node_set_f (n, name, a->f);
      return TRUE;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
      graph_node_set_i (n, name, a->i);
      return TRUE;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
      graph_node_set_s_len (n, name, a->s.data != NULL ? (const char *) a->s.data : "", a->s.len);
      return TRUE;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
      {
        if (a->t == NULL)
          return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: type TENSOR but AttributeProto.t is missing",
                             ctx->display, what);
        g_autoptr(Tensor) t = onnxio_tensor_from_proto (a->t, ctx->ext, ctx->display, what, error);
        if (t == NULL)
          return FALSE;
        if (a->t->name != NULL && *a->t->name != '\0')
          tensor_set_name (t, a->t->name);
        graph_node_set_t (n, name, t);
        return TRUE;
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
      {
        if (a->g == NULL)
          return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: type GRAPH but AttributeProto.g is missing",
                             ctx->display, what);
        /* Attach first, so the subgraph's outer graph is set while its nodes
         * are created with inputs from enclosing graphs. */
        graph_node_set_g (n, name, graph_new ());
        Graph *sub = NULL;
        graph_node_get_g (n, name, &sub);
        return read_graph (ctx, a->g, sub, scope, what, error);
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
      {
        g_autoptr(GraphType) t = NULL;
        if (!onnxio_type_from_proto (a->tp, &t, ctx->display, what, error))
          return FALSE;
        if (t == NULL)
          return READ_ERROR (ONNXIO_ERROR_UNSUPPORTED, "%s: %s: a TypeProto the IR cannot hold",
                             ctx->display, what);
        graph_node_set_tp (n, name, t);
        return TRUE;
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
      {
        g_autofree double *v = g_new (double, MAX (a->n_floats, 1));
        for (gsize i = 0; i < a->n_floats; i++)
          v[i] = a->floats[i];
        graph_node_set_fs (n, name, a->n_floats, v);
        return TRUE;
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
      graph_node_set_is (n, name, a->n_ints, (const gint64 *) a->ints);
      return TRUE;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
      {
        /* Copies: the IR wants NUL-terminated strings. */
        g_autoptr(GPtrArray) v = g_ptr_array_new_with_free_func (g_free);
        for (gsize i = 0; i < a->n_strings; i++)
          g_ptr_array_add (v, a->strings[i].data != NULL   /* an empty element has no data */
                                ? g_strndup ((const char *) a->strings[i].data, a->strings[i].len)
                                : g_strdup (""));
        graph_node_set_ss (n, name, a->n_strings, (const char *const *) v->pdata);
        return TRUE;
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
      {
        g_autoptr(GPtrArray) v = g_ptr_array_new_with_free_func ((GDestroyNotify) tensor_unref);
        for (gsize i = 0; i < a->n_tensors; i++)
          {
            g_autofree char *w = g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", what, i);
            Tensor *t = onnxio_tensor_from_proto (a->tensors[i], ctx->ext, ctx->display, w, error);
            if (t == NULL)
              return FALSE;
            g_ptr_array_add (v, t);
          }
        graph_node_set_ts (n, name, a->n_tensors, (Tensor *const *) v->pdata);
        return TRUE;
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
      {
        g_autofree Graph **subs = g_new0 (Graph *, MAX (a->n_graphs, 1));
        for (gsize i = 0; i < a->n_graphs; i++)
          subs[i] = graph_new ();
        graph_node_set_gs (n, name, a->n_graphs, subs);
        gsize len = 0;
        Graph *const *attached = NULL;
        graph_node_get_gs (n, name, &len, &attached);
        for (gsize i = 0; i < a->n_graphs && i < len; i++)
          {
            g_autofree char *w = g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", what, i);
            if (!read_graph (ctx, a->graphs[i], attached[i], scope, w, error))
              return FALSE;
          }
        return TRUE;
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS:
      {
        g_autoptr(GPtrArray) v = g_ptr_array_new_with_free_func ((GDestroyNotify) graph_type_unref);
        for (gsize i = 0; i < a->n_type_protos; i++)
          {
            GraphType *t = NULL;
            if (!onnxio_type_from_proto (a->type_protos[i], &t, ctx->display, what, error))
              return FALSE;
            if (t == NULL)
              return READ_ERROR (ONNXIO_ERROR_UNSUPPORTED, "%s: %s[%" G_GSIZE_FORMAT "]: a TypeProto the IR cannot hold",
                                 ctx->display, what, i);
            g_ptr_array_add (v, t);
          }
        graph_node_set_tps (n, name, a->n_type_protos, (GraphType *const *) v->pdata);
        return TRUE;
      }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS:
      return READ_ERROR (ONNXIO_ERROR_UNSUPPORTED, "%s: %s: sparse tensor attributes are not supported",
                         ctx->display, what);
    default:
      return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: AttributeProto.type %d is unknown or no value is set",
                         ctx->display, what, (int) a->type);
    }
}

static gboolean
read_node (ReadCtx *ctx, Onnx__NodeProto *np, guint index, Graph *g, Scope *scope,
           const char *where, GError **error)
{
  const char *op = onnxio_str_or_empty (np->op_type);
  g_autofree char *what = np->name != NULL && *np->name != '\0'
    ? g_strdup_printf ("%s: node %u '%s' (%s)", where, index, np->name, op)
    : g_strdup_printf ("%s: node %u (%s)", where, index, op);
  g_autofree char *kind_str = g_strdup_printf ("%s::%s", onnxio_domain_to_ir (np->domain), op);
  const char *kind = *op != '\0' ? graph_symbol (kind_str, NULL) : NULL;
  if (kind == NULL)
    return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: invalid op_type/domain \"%s\"",
                       ctx->display, what, kind_str);
  if (np->n_input > G_MAXUINT / 2 || np->n_output > G_MAXUINT / 2)
    return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: absurd input/output count", ctx->display, what);

  g_autofree GraphValue **inputs = g_new0 (GraphValue *, MAX (np->n_input, 1));
  for (gsize i = 0; i < np->n_input; i++)
    {
      const char *in = np->input[i];
      if (in == NULL || *in == '\0')
        continue;   /* absent optional input */
      inputs[i] = scope_lookup (scope, in);
      if (inputs[i] == NULL)
        return READ_ERROR (ONNXIO_ERROR_PARSE,
                           "%s: %s: input '%s' is not defined before the node (not a graph input, "
                           "initializer or output of an earlier node)",
                           ctx->display, what, in);
    }
  GraphNode *n = graph_create_node (g, kind, (guint) np->n_input, inputs, (guint) np->n_output);
  if (n == NULL)
    return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: the IR refused the node", ctx->display, what);
  graph_insert_node (g, n);

  for (gsize i = 0; i < np->n_output; i++)
    {
      const char *out = np->output[i];
      if (out == NULL || *out == '\0')
        continue;   /* unused optional output: an unnamed value */
      if (g_hash_table_contains (scope->names, out))
        return READ_ERROR (ONNXIO_ERROR_PARSE,
                           "%s: %s: output '%s' is already defined in this graph (not SSA)",
                           ctx->display, what, out);
      GraphValue *v = graph_node_output (n, (guint) i);
      graph_value_set_name (v, out);
      g_hash_table_insert (scope->names, (gpointer) out, v);
    }
  if (np->name != NULL && *np->name != '\0')
    graph_node_set_name (n, np->name);
  if (np->doc_string != NULL && *np->doc_string != '\0')
    graph_node_set_doc_string (n, np->doc_string);
  for (gsize i = 0; i < np->n_attribute; i++)
    if (!read_attribute (ctx, n, np->attribute[i], scope, what, error))
      return FALSE;
  return TRUE;
}

static gboolean
read_graph (ReadCtx *ctx, Onnx__GraphProto *gp, Graph *g, const Scope *outer,
            const char *where, GError **error)
{
  g_autofree char *here = gp->name != NULL && *gp->name != '\0'
    ? g_strdup_printf ("%s%sgraph '%s'", where ? where : "", where ? ": " : "", gp->name)
    : g_strdup_printf ("%s%sgraph", where ? where : "", where ? ": " : "");
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) inits = g_hash_table_new (g_str_hash, g_str_equal);
  Scope scope = { names, outer };

  if (gp->name != NULL && *gp->name != '\0')
    graph_set_name (g, gp->name);
  if (gp->doc_string != NULL && *gp->doc_string != '\0')
    graph_set_doc_string (g, gp->doc_string);
  if (gp->n_sparse_initializer > 0)
    return READ_ERROR (ONNXIO_ERROR_UNSUPPORTED, "%s: %s: sparse_initializer is not supported",
                       ctx->display, here);

  for (gsize i = 0; i < gp->n_initializer; i++)
    {
      const char *name = gp->initializer[i]->name;
      if (name == NULL || *name == '\0')
        return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: initializer %" G_GSIZE_FORMAT " has no name",
                           ctx->display, here, i);
      if (!g_hash_table_insert (inits, (gpointer) name, gp->initializer[i]))
        return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: initializer '%s' appears twice",
                           ctx->display, here, name);
    }

  /* graph.input, in order; an initializer listed there keeps its place. */
  for (gsize i = 0; i < gp->n_input; i++)
    {
      const Onnx__ValueInfoProto *vi = gp->input[i];
      const char *name = vi->name;
      if (name == NULL || *name == '\0')
        return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: input %" G_GSIZE_FORMAT " has no name",
                           ctx->display, here, i);
      if (g_hash_table_contains (names, name))
        return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: input '%s' appears twice",
                           ctx->display, here, name);
      g_autofree char *what = g_strdup_printf ("%s: input '%s'", here, name);
      g_autoptr(GraphType) type = NULL;
      if (!onnxio_type_from_proto (vi->type, &type, ctx->display, what, error))
        return FALSE;
      GraphValue *v = graph_add_input (g, name, type);
      Onnx__TensorProto *tp = g_hash_table_lookup (inits, name);
      if (tp != NULL)
        {
          g_autofree char *iw = g_strdup_printf ("%s: initializer '%s'", here, name);
          g_autoptr(Tensor) t = onnxio_tensor_from_proto (tp, ctx->ext, ctx->display, iw, error);
          if (t == NULL)
            return FALSE;
          graph_value_set_initializer (v, t);
          graph_value_set_initializer_is_input (v, TRUE);
          g_hash_table_remove (inits, name);
        }
      g_hash_table_insert (names, (gpointer) name, v);
    }
  /* Initializers not listed in graph.input (IR version 4 and later). */
  for (gsize i = 0; i < gp->n_initializer; i++)
    {
      Onnx__TensorProto *tp = gp->initializer[i];
      if (!g_hash_table_contains (inits, tp->name))
        continue;
      g_autofree char *iw = g_strdup_printf ("%s: initializer '%s'", here, tp->name);
      g_autoptr(Tensor) t = onnxio_tensor_from_proto (tp, ctx->ext, ctx->display, iw, error);
      if (t == NULL)
        return FALSE;
      GraphValue *v = graph_add_initializer (g, tp->name, t);
      graph_value_set_initializer_is_input (v, FALSE);
      g_hash_table_insert (names, tp->name, v);
    }

  for (gsize i = 0; i < gp->n_node; i++)
    if (!read_node (ctx, gp->node[i], (guint) i, g, &scope, here, error))
      return FALSE;

  for (gsize i = 0; i < gp->n_output; i++)
    {
      const Onnx__ValueInfoProto *vi = gp->output[i];
      const char *name = vi->name;
      if (name == NULL || *name == '\0')
        return READ_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: output %" G_GSIZE_FORMAT " has no name",
                           ctx->display, here, i);
      GraphValue *v = scope_lookup (&scope, name);
      if (v == NULL)
        return READ_ERROR (ONNXIO_ERROR_PARSE,
                           "%s: %s: output '%s' is not produced by any node, input or initializer",
                           ctx->display, here, name);
      g_autofree char *what = g_strdup_printf ("%s: output '%s'", here, name);
      g_autoptr(GraphType) type = NULL;
      if (!onnxio_type_from_proto (vi->type, &type, ctx->display, what, error))
        return FALSE;
      graph_add_output (g, v);
      /* Node outputs of this graph take the declared type; inputs keep theirs. */
      if (type != NULL && graph_value_graph (v) == g && graph_value_node (v) != NULL)
        graph_value_set_type (v, type);
    }

  for (gsize i = 0; i < gp->n_value_info; i++)
    {
      const Onnx__ValueInfoProto *vi = gp->value_info[i];
      GraphValue *v = vi->name != NULL ? g_hash_table_lookup (names, vi->name) : NULL;
      if (v == NULL || graph_value_node (v) == NULL || graph_value_is_graph_output (v))
        continue;   /* value_info of graph inputs/outputs or unknown names adds nothing */
      g_autofree char *what = g_strdup_printf ("%s: value_info '%s'", here, vi->name);
      g_autoptr(GraphType) type = NULL;
      if (!onnxio_type_from_proto (vi->type, &type, ctx->display, what, error))
        return FALSE;
      if (type != NULL)
        graph_value_set_type (v, type);
    }
  return TRUE;
}

static void
set_property_int (Graph *g, const char *key, gint64 v)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, v);
  graph_set_property (g, key, buf);
}

static void
set_property_str (Graph *g, const char *key, const char *v)
{
  if (v != NULL && *v != '\0')
    graph_set_property (g, key, v);
}

static Graph *
model_to_graph (ReadCtx *ctx, Onnx__ModelProto *m, GError **error)
{
  if (m->graph == NULL)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE, "%s: ModelProto.graph is missing",
                   ctx->display);
      return NULL;
    }
  if (m->n_functions > 0)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_UNSUPPORTED,
                   "%s: model-local functions (ModelProto.functions) are not supported", ctx->display);
      return NULL;
    }
  if (m->n_training_info > 0)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_UNSUPPORTED,
                   "%s: ModelProto.training_info is not supported", ctx->display);
      return NULL;
    }

  g_autoptr(Graph) g = graph_new ();
  if (m->has_ir_version)
    set_property_int (g, "ir_version", m->ir_version);
  for (gsize i = 0; i < m->n_opset_import; i++)
    {
      const Onnx__OperatorSetIdProto *o = m->opset_import[i];
      const char *dom = onnxio_domain_to_ir (o->domain);
      if (!o->has_version)
        {
          g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                       "%s: opset_import[%" G_GSIZE_FORMAT "] (domain \"%s\") has no version",
                       ctx->display, i, onnxio_str_or_empty (o->domain));
          return NULL;
        }
      graph_set_opset (g, strcmp (dom, GRAPH_ONNX_DOMAIN) == 0 ? "" : dom, o->version);
    }
  set_property_str (g, "producer_name", m->producer_name);
  set_property_str (g, "producer_version", m->producer_version);
  set_property_str (g, "model_domain", m->domain);
  if (m->has_model_version)
    set_property_int (g, "model_version", m->model_version);
  set_property_str (g, "model_doc_string", m->doc_string);
  for (gsize i = 0; i < m->n_metadata_props; i++)
    {
      const Onnx__StringStringEntryProto *e = m->metadata_props[i];
      g_autofree char *key = g_strconcat ("metadata:", onnxio_str_or_empty (e->key), NULL);
      graph_set_property (g, key, onnxio_str_or_empty (e->value));
    }

  if (!read_graph (ctx, m->graph, g, NULL, NULL, error))
    return NULL;
  return g_steal_pointer (&g);
}

/* `mapped`: data is a read-only private mapping of the file, whose pages
 * the unpack may drop (OnnxioDropper). */
static Graph *
load_data (const guint8 *data, gsize len, const char *base_dir, const char *display_name,
           gboolean mapped, GError **error)
{
  ReadCtx ctx = { display_name != NULL ? display_name : "<memory>", NULL };

  if (len == 0)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE, "%s: empty file, not an ONNX model",
                   ctx.display);
      return NULL;
    }
  g_autoptr (GArray) spans = mapped ? g_array_new (FALSE, FALSE, sizeof (OnnxioSpan)) : NULL;
  if (!onnxio_wire_check_spans (data, len, &onnx__model_proto__descriptor, ctx.display, spans,
                                error))
    return NULL;
  Onnx__ModelProto *m;
  if (spans != NULL && spans->len > 0)
    {
      OnnxioDropper d;
      onnxio_dropper_init (&d, data, spans);
      m = onnx__model_proto__unpack (&d.allocator, len, data);
      onnxio_dropper_finish (&d);
    }
  else
    m = onnx__model_proto__unpack (&onnxio_pb_allocator, len, data);
  if (m == NULL)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                   "%s: not a valid ONNX ModelProto (protobuf-c could not unpack it, "
                   "or memory ran out)", ctx.display);
      return NULL;
    }
  ctx.ext = onnxio_external_new (base_dir);
  Graph *g = model_to_graph (&ctx, m, error);
  onnx__model_proto__free_unpacked (m, &onnxio_pb_allocator);
  onnxio_external_free (ctx.ext);
  return g;
}

Graph *
onnxio_load (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  GError *local = NULL;
  g_autoptr(GMappedFile) mf = g_mapped_file_new (path, FALSE, &local);
  if (mf == NULL)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO, "%s", local->message);
      g_error_free (local);
      return NULL;
    }
  g_autofree char *dir = g_path_get_dirname (path);
  const guint8 *data = (const guint8 *) g_mapped_file_get_contents (mf);
  gsize len = g_mapped_file_get_length (mf);
  return load_data (len ? data : (const guint8 *) "", len, dir, path, TRUE, error);
}

Graph *
onnxio_load_from_data (const guint8 *data, gsize len, const char *base_dir,
                       const char *display_name, GError **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);
  return load_data (data, len, base_dir, display_name, FALSE, error);
}
