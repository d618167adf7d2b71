/* .onnx writer: Graph → ModelProto → file.
 *
 * The ModelProto built here borrows everything it can from the IR (names,
 * dims, tensor bytes); only the message structs themselves are allocated,
 * in a pool freed after packing.  protobuf-c then packs straight into a
 * temporary file (onnx-sink.c): initializer payloads go from the tensors'
 * GBytes to write() with no intermediate copy. */
#include "export/onnx/onnxio-private.h"
#include "export/onnx-schema.h"

#include <string.h>

#define DEFAULT_SIZE_THRESHOLD 1024

typedef struct
{
  OnnxioPool pool;
  const char *path;
  const Graph *model;         /* the top graph (its opset imports) */
  gint64 ir_version;
  GHashTable *taken;          /* every value name in the model */
  GHashTable *generated;      /* GraphValue* → generated name */
  GHashTable *deferred;       /* deferred Tensors the sinks stream */
  OnnxioExternalWriter *ext;  /* NULL: everything inline */
  gsize threshold;
  gboolean ext_attributes;    /* also move attribute tensors out */
} WriteCtx;

#define WRITE_ERROR(...) \
  (g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID, __VA_ARGS__), FALSE)

void
onnxio_save_options_init (OnnxioSaveOptions *o)
{
  o->external_data = FALSE;
  o->size_threshold = DEFAULT_SIZE_THRESHOLD;
  o->allow_incomplete = FALSE;
}

/* ---- ir_version from the opsets (onnx/helper.py VERSION_TABLE) */

static gint64
ir_version_for (const char *domain, gint64 v)
{
  if (*domain == '\0' || strcmp (domain, "ai.onnx") == 0)
    {
      if (v <= 8) return 3;
      if (v == 9) return 4;
      if (v == 10) return 5;
      if (v == 11) return 6;
      if (v <= 14) return 7;
      if (v <= 18) return 8;
      if (v <= 20) return 9;
      return 10;
    }
  if (strcmp (domain, "ai.onnx.ml") == 0)
    {
      if (v <= 1) return 3;
      if (v == 2) return 6;
      if (v == 3) return 8;
      if (v == 4) return 9;
      return 10;
    }
  if (strcmp (domain, "ai.onnx.training") == 0
      || strcmp (domain, "ai.onnx.preview.training") == 0)
    return 7;
  return 3;
}

gint64
onnxio_ir_version_for_graph (const Graph *g)
{
  gint64 ir = 3;
  g_autoptr(GPtrArray) doms = graph_list_opset_domains (g);
  for (guint i = 0; i < doms->len; i++)
    {
      const char *d = g_ptr_array_index (doms, i);
      ir = MAX (ir, ir_version_for (d, graph_get_opset (g, d)));
    }
  return ir;
}

/* ---- walking every graph */

typedef void (*GraphFunc) (const Graph *g, gpointer data);

static void
foreach_graph (const Graph *g, GraphFunc fn, gpointer data)
{
  fn (g, data);
  graph_foreach_node (g, n)
    for (guint i = 0; i < graph_node_n_attrs (n); i++)
      {
        const char *name = graph_node_attr_name (n, i);
        GraphAttrKind kind;
        graph_node_attr_kind (n, name, &kind);
        if (kind == GRAPH_ATTR_G)
          {
            Graph *sub;
            graph_node_get_g (n, name, &sub);
            foreach_graph (sub, fn, data);
          }
        else if (kind == GRAPH_ATTR_GS)
          {
            gsize len;
            Graph *const *subs;
            graph_node_get_gs (n, name, &len, &subs);
            for (gsize k = 0; k < len; k++)
              foreach_graph (subs[k], fn, data);
          }
      }
}

static void
collect_names (const Graph *g, gpointer data)
{
  GHashTable *taken = data;
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      const char *name = graph_value_get_name (graph_input (g, i));
      if (name != NULL)
        g_hash_table_add (taken, (gpointer) name);
    }
  graph_foreach_node (g, n)
    for (guint i = 0; i < graph_node_n_outputs (n); i++)
      {
        const char *name = graph_value_get_name (graph_node_output (n, i));
        if (name != NULL)
          g_hash_table_add (taken, (gpointer) name);
      }
}

typedef struct
{
  guint64 initializers;
  guint64 attributes;
} TensorBytes;

static void
count_tensor_bytes (const Graph *g, gpointer data)
{
  TensorBytes *tb = data;
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      Tensor *t = graph_value_get_initializer (graph_input (g, i));
      if (t != NULL)
        tb->initializers += tensor_nbytes (t);
    }
  graph_foreach_node (g, n)
    for (guint i = 0; i < graph_node_n_attrs (n); i++)
      {
        const char *name = graph_node_attr_name (n, i);
        Tensor *t;
        gsize len;
        Tensor *const *ts;
        if (graph_node_get_t (n, name, &t))
          tb->attributes += tensor_nbytes (t);
        else if (graph_node_get_ts (n, name, &len, &ts))
          for (gsize k = 0; k < len; k++)
            tb->attributes += tensor_nbytes (ts[k]);
      }
}

/* ---- names */

/* Whether output i of n may be written absent (""): an optional output of
 * its schema at the model's opset, or an op the schema table does not know.
 * A required one (an If's or Loop's, TopK's indices) keeps a name even when
 * nothing reads it: ONNX Runtime refuses a model whose If has an output
 * named "" (PyTorch's suite, test_index_put_if_3). */
static gboolean
may_be_absent (const WriteCtx *w, const GraphNode *n, guint i)
{
  const char *domain = onnxio_domain_from_ir (graph_node_domain (n));   /* "onnx" is "" */
  gint64 opset = graph_get_opset (w->model, domain);
  const OnnxSchema *s = opset > 0 ? onnx_schema_lookup (domain, graph_node_op_type (n), opset) : NULL;
  const OnnxSchemaParam *p = s ? onnx_schema_output_param (s, i) : NULL;
  return s == NULL || (p && p->option == ONNX_PARAM_O);
}

/* A value's name in the file: its IR name, or a fresh one (its id, as
 * PyTorch names values, made unique over the whole model). */
static const char *
value_name (WriteCtx *w, const GraphValue *v)
{
  const char *name = graph_value_get_name (v);
  if (name != NULL)
    return name;
  name = g_hash_table_lookup (w->generated, v);
  if (name != NULL)
    return name;
  char *fresh = g_strdup_printf ("%u", graph_value_id (v));
  for (guint k = 1; g_hash_table_contains (w->taken, fresh); k++)
    {
      g_free (fresh);
      fresh = g_strdup_printf ("%u_%u", graph_value_id (v), k);
    }
  onnxio_pool_take (&w->pool, fresh);
  g_hash_table_add (w->taken, fresh);
  g_hash_table_insert (w->generated, (gpointer) v, fresh);
  return fresh;
}

/* ---- messages */

static Onnx__ValueInfoProto *
value_info (WriteCtx *w, const GraphValue *v)
{
  Onnx__ValueInfoProto *vi = onnxio_pool_new0 (&w->pool, Onnx__ValueInfoProto, 1);
  onnx__value_info_proto__init (vi);
  vi->name = (char *) value_name (w, v);
  vi->type = onnxio_type_to_proto (graph_value_type (v), &w->pool);
  vi->doc_string = NULL;
  return vi;
}

static gboolean
tensor_proto (WriteCtx *w, const Tensor *t, const char *name, gboolean attribute,
              Onnx__TensorProto **out, const char *what, GError **error)
{
  Onnx__TensorProto *tp = onnxio_pool_new0 (&w->pool, Onnx__TensorProto, 1);
  if (!onnxio_tensor_to_proto (t, name, tp, &w->pool, w->deferred, what, error))
    return FALSE;
  tp->doc_string = NULL;
  if (w->ext != NULL && (!attribute || w->ext_attributes)
      && tensor_dtype (t) != GRAPH_DTYPE_STRING && tensor_nbytes (t) >= w->threshold
      && !onnxio_external_writer_add (w->ext, tp, &w->pool, error))
    return FALSE;
  *out = tp;
  return TRUE;
}

static Onnx__GraphProto *graph_proto (WriteCtx *w, const Graph *g, const char *default_name,
                                      GError **error);

static gboolean
attribute_proto (WriteCtx *w, const GraphNode *n, const char *name,
                 Onnx__AttributeProto **out, const char *where, GError **error)
{
  Onnx__AttributeProto *a = onnxio_pool_new0 (&w->pool, Onnx__AttributeProto, 1);
  onnx__attribute_proto__init (a);
  a->name = (char *) name;
  a->ref_attr_name = NULL;
  a->doc_string = NULL;
  g_autofree char *what = g_strdup_printf ("%s: attribute '%s'", where, name);
  GraphAttrKind kind;
  graph_node_attr_kind (n, name, &kind);
  gsize len = 0;

  switch (kind)
    {
    case GRAPH_ATTR_F:
      {
        double v;
        graph_node_get_f (n, name, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
        ONNXIO_PB_SET_FLOAT (a, f, (float) v);
        break;
      }
    case GRAPH_ATTR_I:
      {
        gint64 v;
        graph_node_get_i (n, name, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
        ONNXIO_PB_SET_INT64 (a, i, v);
        break;
      }
    case GRAPH_ATTR_S:
      {
        const char *v;
        graph_node_get_s (n, name, &v, &len);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
        ONNXIO_PB_SET_BYTES (a, s, v, len);
        break;
      }
    case GRAPH_ATTR_T:
      {
        Tensor *t;
        graph_node_get_t (n, name, &t);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
        if (!tensor_proto (w, t, tensor_get_name (t), TRUE, &a->t, what, error))
          return FALSE;
        break;
      }
    case GRAPH_ATTR_G:
      {
        Graph *sub;
        graph_node_get_g (n, name, &sub);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
        a->g = graph_proto (w, sub, name, error);
        if (a->g == NULL)
          return FALSE;
        break;
      }
    case GRAPH_ATTR_TP:
      {
        GraphType *t;
        graph_node_get_tp (n, name, &t);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO);
        a->tp = onnxio_type_to_proto (t, &w->pool);
        if (a->tp == NULL)
          {
            g_autofree char *s = graph_type_to_string (t);
            return WRITE_ERROR ("%s: type %s has no ONNX TypeProto", what, s);
          }
        break;
      }
    case GRAPH_ATTR_FS:
      {
        const double *v;
        graph_node_get_fs (n, name, &len, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
        a->n_floats = len;
        a->floats = onnxio_pool_new0 (&w->pool, float, len);
        for (gsize i = 0; i < len; i++)
          a->floats[i] = (float) v[i];
        break;
      }
    case GRAPH_ATTR_IS:
      {
        const gint64 *v;
        graph_node_get_is (n, name, &len, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
        a->n_ints = len;
        a->ints = (int64_t *) v;
        break;
      }
    case GRAPH_ATTR_SS:
      {
        const char *const *v;
        graph_node_get_ss (n, name, &len, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
        a->n_strings = len;
        a->strings = onnxio_pool_new0 (&w->pool, ProtobufCBinaryData, len);
        for (gsize i = 0; i < len; i++)
          {
            a->strings[i].data = (uint8_t *) v[i];
            a->strings[i].len = strlen (v[i]);
          }
        break;
      }
    case GRAPH_ATTR_TS:
      {
        Tensor *const *v;
        graph_node_get_ts (n, name, &len, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS);
        a->n_tensors = len;
        a->tensors = onnxio_pool_new0 (&w->pool, Onnx__TensorProto *, len);
        for (gsize i = 0; i < len; i++)
          if (!tensor_proto (w, v[i], NULL, TRUE, &a->tensors[i], what, error))
            return FALSE;
        break;
      }
    case GRAPH_ATTR_GS:
      {
        Graph *const *v;
        graph_node_get_gs (n, name, &len, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS);
        a->n_graphs = len;
        a->graphs = onnxio_pool_new0 (&w->pool, Onnx__GraphProto *, len);
        for (gsize i = 0; i < len; i++)
          {
            g_autofree char *sub_name = g_strdup_printf ("%s_%" G_GSIZE_FORMAT, name, i);
            a->graphs[i] = graph_proto (w, v[i], sub_name, error);
            if (a->graphs[i] == NULL)
              return FALSE;
          }
        break;
      }
    case GRAPH_ATTR_TPS:
      {
        GraphType *const *v;
        graph_node_get_tps (n, name, &len, &v);
        ONNXIO_PB_SET_ENUM (a, type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS);
        a->n_type_protos = len;
        a->type_protos = onnxio_pool_new0 (&w->pool, Onnx__TypeProto *, len);
        for (gsize i = 0; i < len; i++)
          {
            a->type_protos[i] = onnxio_type_to_proto (v[i], &w->pool);
            if (a->type_protos[i] == NULL)
              {
                g_autofree char *s = graph_type_to_string (v[i]);
                return WRITE_ERROR ("%s[%" G_GSIZE_FORMAT "]: type %s has no ONNX TypeProto",
                                    what, i, s);
              }
          }
        break;
      }
    default:
      return WRITE_ERROR ("%s: unknown attribute kind %d", what, (int) kind);
    }
  *out = a;
  return TRUE;
}

static Onnx__NodeProto *
node_proto (WriteCtx *w, const GraphNode *n, const char *where, GError **error)
{
  Onnx__NodeProto *np = onnxio_pool_new0 (&w->pool, Onnx__NodeProto, 1);
  onnx__node_proto__init (np);
  np->op_type = (char *) graph_node_op_type (n);
  np->domain = onnxio_pb_str (onnxio_domain_from_ir (graph_node_domain (n)));
  np->name = onnxio_pb_str (graph_node_get_name (n));
  np->doc_string = onnxio_pb_str (graph_node_get_doc_string (n));
  g_autofree char *what = np->name != NULL
    ? g_strdup_printf ("%s: node '%s' (%s)", where, np->name, np->op_type)
    : g_strdup_printf ("%s: node %s", where, graph_node_kind (n));

  np->n_input = graph_node_n_inputs (n);
  np->input = onnxio_pool_new0 (&w->pool, char *, np->n_input);
  for (guint i = 0; i < np->n_input; i++)
    {
      GraphValue *v = graph_node_input (n, i);
      np->input[i] = v != NULL ? (char *) value_name (w, v) : (char *) "";
    }
  np->n_output = graph_node_n_outputs (n);
  np->output = onnxio_pool_new0 (&w->pool, char *, np->n_output);
  for (guint i = 0; i < np->n_output; i++)
    {
      GraphValue *v = graph_node_output (n, i);
      /* An unnamed output nothing reads is an absent optional output. */
      gboolean absent = graph_value_get_name (v) == NULL && graph_value_n_uses (v) == 0
                        && !graph_value_is_graph_output (v) && may_be_absent (w, n, i);
      np->output[i] = absent ? (char *) "" : (char *) value_name (w, v);
    }
  np->n_attribute = graph_node_n_attrs (n);
  np->attribute = onnxio_pool_new0 (&w->pool, Onnx__AttributeProto *, np->n_attribute);
  for (guint i = 0; i < np->n_attribute; i++)
    if (!attribute_proto (w, n, graph_node_attr_name (n, i), &np->attribute[i], what, error))
      return NULL;
  return np;
}

static Onnx__GraphProto *
graph_proto (WriteCtx *w, const Graph *g, const char *default_name, GError **error)
{
  Onnx__GraphProto *gp = onnxio_pool_new0 (&w->pool, Onnx__GraphProto, 1);
  onnx__graph_proto__init (gp);
  const char *gname = graph_get_name (g);
  gp->name = (char *) (gname != NULL && *gname != '\0' ? gname : default_name);
  gp->doc_string = onnxio_pb_str (graph_get_doc_string (g));
  g_autofree char *where = g_strdup_printf ("%s: graph '%s'", w->path, gp->name);

  guint n_in = graph_n_inputs (g);
  gp->input = onnxio_pool_new0 (&w->pool, Onnx__ValueInfoProto *, n_in);
  gp->initializer = onnxio_pool_new0 (&w->pool, Onnx__TensorProto *, n_in);
  for (guint i = 0; i < n_in; i++)
    {
      GraphValue *v = graph_input (g, i);
      Tensor *t = graph_value_get_initializer (v);
      /* IR version 3 requires every initializer in graph.input. */
      if (t == NULL || graph_value_initializer_is_input (v) || w->ir_version < 4)
        gp->input[gp->n_input++] = value_info (w, v);
      if (t != NULL)
        {
          g_autofree char *what = g_strdup_printf ("%s: initializer '%s'", where, value_name (w, v));
          if (!tensor_proto (w, t, value_name (w, v), FALSE,
                             &gp->initializer[gp->n_initializer++], what, error))
            return NULL;
        }
    }

  guint n_nodes = graph_n_nodes (g), k = 0, n_vi = 0;
  gp->node = onnxio_pool_new0 (&w->pool, Onnx__NodeProto *, n_nodes);
  graph_foreach_node (g, n)
    {
      gp->node[k] = node_proto (w, n, where, error);
      if (gp->node[k++] == NULL)
        return NULL;
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        n_vi++;
    }
  gp->n_node = k;

  gp->n_output = graph_n_outputs (g);
  gp->output = onnxio_pool_new0 (&w->pool, Onnx__ValueInfoProto *, gp->n_output);
  for (guint i = 0; i < gp->n_output; i++)
    gp->output[i] = value_info (w, graph_output (g, i));

  /* value_info: intermediate values whose type ONNX can spell. */
  gp->value_info = onnxio_pool_new0 (&w->pool, Onnx__ValueInfoProto *, n_vi);
  graph_foreach_node (g, n)
    for (guint i = 0; i < graph_node_n_outputs (n); i++)
      {
        GraphValue *v = graph_node_output (n, i);
        if (graph_value_is_graph_output (v) || graph_value_type (v) == NULL
            || (graph_value_get_name (v) == NULL && graph_value_n_uses (v) == 0))
          continue;
        Onnx__ValueInfoProto *vi = value_info (w, v);
        if (vi->type != NULL)
          gp->value_info[gp->n_value_info++] = vi;
      }
  return gp;
}

/* Domains used by nodes but not imported get version 1, so the file passes
 * onnx.checker; the default domain cannot be guessed and is left alone. */
static void
collect_domains (const Graph *g, gpointer data)
{
  GHashTable *domains = data;
  graph_foreach_node (g, n)
    {
      const char *d = graph_node_domain (n);
      if (strcmp (d, GRAPH_ONNX_DOMAIN) != 0)
        g_hash_table_add (domains, (gpointer) d);
    }
}

static Onnx__OperatorSetIdProto *
opset_proto (WriteCtx *w, const char *domain, gint64 version)
{
  Onnx__OperatorSetIdProto *o = onnxio_pool_new0 (&w->pool, Onnx__OperatorSetIdProto, 1);
  onnx__operator_set_id_proto__init (o);
  o->domain = onnxio_pb_str (domain);
  ONNXIO_PB_SET_INT64 (o, version, version);
  return o;
}

static gboolean
parse_int_property (const Graph *g, const char *key, gint64 *out)
{
  const char *s = graph_get_property (g, key);
  return s != NULL && g_ascii_string_to_signed (s, 10, G_MININT64, G_MAXINT64, out, NULL);
}

static Onnx__ModelProto *
model_proto (WriteCtx *w, const Graph *g, GError **error)
{
  Onnx__ModelProto *m = onnxio_pool_new0 (&w->pool, Onnx__ModelProto, 1);
  onnx__model_proto__init (m);
  ONNXIO_PB_SET_INT64 (m, ir_version, w->ir_version);

  g_autoptr(GPtrArray) doms = graph_list_opset_domains (g);
  g_autoptr(GHashTable) used = g_hash_table_new (g_str_hash, g_str_equal);
  foreach_graph (g, collect_domains, used);
  for (guint i = 0; i < doms->len; i++)
    g_hash_table_remove (used, g_ptr_array_index (doms, i));
  g_autoptr(GList) missing = g_list_sort (g_hash_table_get_keys (used), (GCompareFunc) strcmp);

  m->opset_import = onnxio_pool_new0 (&w->pool, Onnx__OperatorSetIdProto *,
                                      doms->len + g_list_length (missing));
  for (guint i = 0; i < doms->len; i++)
    {
      const char *d = g_ptr_array_index (doms, i);
      m->opset_import[m->n_opset_import++] = opset_proto (w, d, graph_get_opset (g, d));
    }
  for (GList *l = missing; l != NULL; l = l->next)
    m->opset_import[m->n_opset_import++] = opset_proto (w, l->data, 1);

  const char *pn = graph_get_property (g, "producer_name");
  const char *pv = graph_get_property (g, "producer_version");
  m->producer_name = (char *) (pn != NULL ? pn : "symonnx");
  m->producer_version = onnxio_pb_str (pn != NULL ? pv : SYMONNX_VERSION);
  m->domain = onnxio_pb_str (graph_get_property (g, "model_domain"));
  m->doc_string = onnxio_pb_str (graph_get_property (g, "model_doc_string"));
  gint64 mv;
  if (parse_int_property (g, "model_version", &mv))
    ONNXIO_PB_SET_INT64 (m, model_version, mv);

  g_autoptr(GPtrArray) keys = graph_list_properties (g);
  m->metadata_props = onnxio_pool_new0 (&w->pool, Onnx__StringStringEntryProto *, keys->len);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      if (!g_str_has_prefix (key, "metadata:"))
        continue;
      Onnx__StringStringEntryProto *e = onnxio_pool_new0 (&w->pool, Onnx__StringStringEntryProto, 1);
      onnx__string_string_entry_proto__init (e);
      e->key = (char *) key + strlen ("metadata:");
      e->value = (char *) graph_get_property (g, key);
      m->metadata_props[m->n_metadata_props++] = e;
    }

  m->graph = graph_proto (w, g, "main_graph", error);
  return m->graph != NULL ? m : NULL;
}

/* What ONNX requires of a model that a graph built by hand may lack (the
 * checker rejects the file otherwise): a default-domain opset when ONNX ops
 * are used, and an element type and shape on every graph input and output. */
static gboolean
writable_as_onnx (const Graph *g, const char *path, GError **error)
{
  if (graph_get_opset (g, "") < 0)
    graph_foreach_node ((Graph *) g, n)
      if (strcmp (graph_node_domain (n), GRAPH_ONNX_DOMAIN) == 0)
        {
          g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID,
                       "%s: not written: the graph uses ONNX ops (%s) but imports no opset for "
                       "them: call graph_set_opset (g, \"\", N) first", path, graph_node_kind (n));
          return FALSE;
        }
  for (int out = 0; out < 2; out++)
    {
      guint count = out ? graph_n_outputs (g) : graph_n_inputs (g);
      for (guint i = 0; i < count; i++)
        {
          GraphValue *v = out ? graph_output (g, i) : graph_input (g, i);
          GraphType *t = graph_value_type (v);
          if (t && (!graph_type_is_tensor (t)
                    || (graph_type_dtype (t) != GRAPH_DTYPE_UNDEFINED && graph_type_rank (t) >= 0)))
            continue;
          if (t == NULL && !out && graph_value_get_initializer (v))
            continue;   /* the initializer's own type is written */
          const char *name = graph_value_get_name (v);
          g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID,
                       "%s: not written: graph %s %u '%s' has no element type and shape, which "
                       "ONNX requires of graph inputs and outputs: set it with "
                       "graph_value_set_type, or compute it with export_infer_types (g, &error)",
                       path, out ? "output" : "input", i, name ? name : "?");
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
opts_allow_incomplete (const OnnxioSaveOptions *opts)
{
  return opts != NULL && opts->allow_incomplete;
}

gboolean
onnxio_save (const Graph *g, const char *path, const OnnxioSaveOptions *opts,
             GError **error)
{
  g_return_val_if_fail (g != NULL && path != NULL, FALSE);
  if (!opts_allow_incomplete (opts) && !writable_as_onnx (g, path, error))
    return FALSE;
  OnnxioSaveOptions defaults;
  if (opts == NULL)
    {
      onnxio_save_options_init (&defaults);
      opts = &defaults;
    }

  WriteCtx w = { .path = path, .model = g };
  onnxio_pool_init (&w.pool);
  w.taken = g_hash_table_new (g_str_hash, g_str_equal);
  w.generated = g_hash_table_new (g_direct_hash, g_direct_equal);
  w.deferred = g_hash_table_new (g_direct_hash, g_direct_equal);
  foreach_graph (g, collect_names, w.taken);

  /* A loaded model keeps its ir_version (even one lower than its opsets
   * imply: some of ONNX's own test models are like that); a built graph
   * gets the one its opsets need. */
  gint64 kept;
  if (parse_int_property (g, "ir_version", &kept) && kept > 0)
    w.ir_version = kept;
  else
    w.ir_version = onnxio_ir_version_for_graph (g);

  TensorBytes tb = { 0, 0 };
  foreach_graph (g, count_tensor_bytes, &tb);
  gboolean auto_ext = tb.initializers + tb.attributes > ONNXIO_EXTERNAL_DATA_AUTO;
  w.threshold = opts->size_threshold;
  w.ext_attributes = auto_ext;

  OnnxioSink *sink = NULL;
  gboolean ok = FALSE;
  if (opts->external_data || auto_ext)
    {
      w.ext = onnxio_external_writer_new (path, w.deferred, error);
      if (w.ext == NULL)
        goto out;
    }
  Onnx__ModelProto *m = model_proto (&w, g, error);
  if (m == NULL)
    goto out;
  sink = onnxio_sink_open (path, w.ext ? 0 : tb.initializers + tb.attributes, error);
  if (sink == NULL)
    goto out;
  onnxio_sink_set_deferred (sink, w.deferred);
  onnx__model_proto__pack_to_buffer (m, onnxio_sink_buffer (sink));
  if (w.ext != NULL && !onnxio_external_writer_commit (w.ext, error))
    goto out;
  ok = onnxio_sink_finish (sink, error);

out:
  onnxio_sink_free (sink);
  onnxio_external_writer_free (w.ext);
  g_hash_table_unref (w.generated);
  g_hash_table_unref (w.deferred);
  g_hash_table_unref (w.taken);
  onnxio_pool_clear (&w.pool);
  return ok;
}
