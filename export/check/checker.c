/* Structural validation of a graph as an ONNX model (see onnx-check.h). */
#include "export/check/checker-private.h"
#include "export/onnx-schema.h"
#include <string.h>

typedef struct Scope Scope;
struct Scope
{
  GHashTable  *defined;    /* GraphValue* set */
  GHashTable  *node_index; /* GraphNode* → index + 1 in its graph */
  const Scope *outer;
};

typedef struct
{
  const Graph            *root;
  const OnnxCheckOptions *opts;
  GPtrArray              *problems;
  GHashTable             *domains_reported;  /* domain → TRUE */
  GHashTable             *file_index;        /* GraphNode* → file index + 1, or NULL */
  guint                   n_use_before_def;
} Ctx;

void
onnx_check_options_init (OnnxCheckOptions *o)
{
  memset (o, 0, sizeof *o);
}

void
onnx_check_problem_free (OnnxCheckProblem *p)
{
  if (p == NULL)
    return;
  g_free (p->where);
  g_free (p->message);
  g_free (p);
}

static void add_problem (Ctx *ctx, OnnxCheckSeverity sev, const char *where,
                         const GraphNode *node, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static void
add_problem (Ctx *ctx, OnnxCheckSeverity sev, const char *where, const GraphNode *node,
             const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_ptr_array_add (ctx->problems, onnx_check_problem_new (sev, where, node, msg));
}

OnnxCheckProblem *
onnx_check_problem_new (OnnxCheckSeverity severity, const char *where, const GraphNode *node,
                        char *message)
{
  OnnxCheckProblem *p = g_new0 (OnnxCheckProblem, 1);
  p->severity = severity;
  p->where = g_strdup (where);
  p->node = node;
  p->message = message;
  return p;
}

static char *
value_desc (const GraphValue *v)
{
  const char *name = graph_value_get_name (v);
  return name ? g_strdup_printf ("'%s'", name) : g_strdup_printf ("%%%u", graph_value_id (v));
}

/* "tensor(float)", "seq(tensor(int64))" ...; NULL when the type is unknown
 * or says nothing ONNX types can be checked against. */
static char *
type_desc (const GraphType *t)
{
  if (t == NULL)
    return NULL;
  switch (graph_type_kind (t))
    {
    case GRAPH_TYPE_TENSOR:
      if (graph_type_dtype (t) == GRAPH_DTYPE_UNDEFINED)
        return NULL;
      return g_strdup_printf ("tensor(%s)", graph_dtype_name (graph_type_dtype (t)));
    case GRAPH_TYPE_LIST:
    case GRAPH_TYPE_OPTIONAL:
      {
        g_autofree char *inner = type_desc (graph_type_elem (t, 0));
        if (inner == NULL)
          return NULL;
        return g_strdup_printf ("%s(%s)", graph_type_kind (t) == GRAPH_TYPE_LIST ? "seq" : "optional",
                                inner);
      }
    default:
      return NULL;
    }
}

static gboolean
tensor_dtype_in (const GraphType *t, guint32 mask)
{
  return t != NULL && graph_type_kind (t) == GRAPH_TYPE_TENSOR
         && (mask & (1u << graph_type_dtype (t))) != 0;
}

/* Is a value of (known) type t allowed by ts?  Types type_desc() cannot
 * describe are not judged. */
static gboolean
type_allowed (const GraphType *t, const OnnxTypeSet *ts)
{
  switch (graph_type_kind (t))
    {
    case GRAPH_TYPE_TENSOR:
      return tensor_dtype_in (t, ts->tensor);
    case GRAPH_TYPE_LIST:
      return tensor_dtype_in (graph_type_elem (t, 0), ts->seq);
    case GRAPH_TYPE_OPTIONAL:
      {
        const GraphType *e = graph_type_elem (t, 0);
        if (graph_type_kind (e) == GRAPH_TYPE_LIST)
          return tensor_dtype_in (graph_type_elem (e, 0), ts->opt_seq);
        return tensor_dtype_in (e, ts->opt_tensor);
      }
    default:
      return TRUE;
    }
}

static gboolean
scope_defines (const Scope *s, const GraphValue *v)
{
  for (; s != NULL; s = s->outer)
    if (g_hash_table_contains (s->defined, v))
      return TRUE;
  return FALSE;
}

char *
onnx_check_node_where (const char *prefix, const char *name, const char *kind, guint index)
{
  g_autofree char *self = name && *name
    ? g_strdup_printf ("node %u '%s' (%s)", index, name, kind)
    : g_strdup_printf ("node %u (%s)", index, kind);
  return prefix ? g_strdup_printf ("%s: %s", prefix, self) : g_steal_pointer (&self);
}

/* Nodes are named by their index in the file: their place in the graph,
 * unless the graph was reordered before loading (check-order.c). */
static char *
node_where (const Ctx *ctx, const char *prefix, const GraphNode *n, guint index)
{
  if (ctx->file_index != NULL && g_hash_table_contains (ctx->file_index, n))
    index = GPOINTER_TO_UINT (g_hash_table_lookup (ctx->file_index, n)) - 1;
  return onnx_check_node_where (prefix, graph_node_get_name (n), graph_node_kind (n), index);
}

static char *
count_range (int lo, int hi)
{
  if (lo == hi)
    return g_strdup_printf ("%d", lo);
  if (hi == G_MAXINT32)
    return g_strdup_printf ("at least %d", lo);
  return g_strdup_printf ("%d to %d", lo, hi);
}

/* One type-parameter binding seen so far on a node: the first actual bound
 * to the parameter. */
typedef struct
{
  char *type;   /* type_desc of the first actual */
  char *what;   /* "input 0 'a'" */
} Binding;

static void
check_value_type (Ctx *ctx, const char *where, const GraphNode *n, const OnnxSchema *s,
                  const OnnxSchemaParam *p, const GraphValue *v, const char *dir, guint i,
                  Binding *bindings)
{
  if (p == NULL || v == NULL)
    return;
  const GraphType *t = graph_value_type (v);
  g_autofree char *desc = type_desc (t);
  if (desc == NULL)
    return;
  g_autofree char *vd = value_desc (v);
  g_autofree char *what = g_strdup_printf ("%s %u %s", dir, i, vd);
  const OnnxTypeSet *ts = onnx_schema_typeset (p->typeset);
  if (!type_allowed (t, ts))
    {
      g_autofree char *allowed = onnx_type_set_to_string (ts);
      add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                   "%s is %s; %s-%d allows %s for '%s'%s%s%s", what, desc, s->name,
                   s->since_version, allowed, p->name, p->type_param ? " (" : "",
                   p->type_param ? s->type_params[p->type_param - 1] : "",
                   p->type_param ? ")" : "");
    }
  if (p->type_param == 0 || (p->option == ONNX_PARAM_V && !p->homogeneous))
    return;
  Binding *b = &bindings[p->type_param - 1];
  if (b->type == NULL)
    {
      b->type = g_steal_pointer (&desc);
      b->what = g_steal_pointer (&what);
    }
  else if (strcmp (b->type, desc) != 0)
    add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                 "%s is %s but %s is %s: both are type '%s' of %s-%d and must match", what, desc,
                 b->what, b->type, s->type_params[p->type_param - 1], s->name, s->since_version);
}

static void
check_schema (Ctx *ctx, const char *where, const GraphNode *n, const OnnxSchema *s)
{
  guint nin = graph_node_n_inputs (n), nout = graph_node_n_outputs (n);
  if ((gint64) nin < s->min_inputs || (gint64) nin > s->max_inputs)
    {
      g_autofree char *r = count_range (s->min_inputs, s->max_inputs);
      add_problem (ctx, ONNX_CHECK_ERROR, where, n, "has %u inputs; %s-%d takes %s", nin,
                   s->name, s->since_version, r);
    }
  if ((gint64) nout < s->min_outputs || (gint64) nout > s->max_outputs)
    {
      g_autofree char *r = count_range (s->min_outputs, s->max_outputs);
      add_problem (ctx, ONNX_CHECK_ERROR, where, n, "has %u outputs; %s-%d gives %s", nout,
                   s->name, s->since_version, r);
    }
  for (guint i = 0; i < nin; i++)
    {
      const OnnxSchemaParam *p = onnx_schema_input_param (s, i);
      if (p != NULL && p->option == ONNX_PARAM_S && graph_node_input (n, i) == NULL)
        add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                     "input %u ('%s' of %s-%d) is absent but not optional", i, p->name, s->name,
                     s->since_version);
    }

  /* Attributes */
  for (guint i = 0; i < graph_node_n_attrs (n); i++)
    {
      const char *name = graph_node_attr_name (n, i);
      const OnnxSchemaAttr *sa = onnx_schema_find_attr (s, name);
      GraphAttrKind kind;
      graph_node_attr_kind (n, name, &kind);
      if (sa == NULL)
        {
          if (g_str_has_prefix (name, "__"))
            continue;   /* ONNX's internal attribute names are not checked */
          g_autoptr(GString) known = g_string_new (NULL);
          for (int k = 0; k < s->n_attrs; k++)
            g_string_append_printf (known, "%s%s", k ? ", " : "", s->attrs[k].name);
          add_problem (ctx, ONNX_CHECK_ERROR, where, n, "unknown attribute '%s' for %s-%d (%s%s)",
                       name, s->name, s->since_version, s->n_attrs ? "it has: " : "it has none",
                       known->str);
          continue;
        }
      OnnxAttrType got = onnx_attr_type_from_graph (kind);
      if (got != sa->type)
        add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                     "attribute '%s' is of kind %s; %s-%d expects %s", name,
                     onnx_attr_type_name (got), s->name, s->since_version,
                     onnx_attr_type_name (sa->type));
    }
  for (int k = 0; k < s->n_attrs; k++)
    if (s->attrs[k].required && !graph_node_has_attr (n, s->attrs[k].name))
      add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                   "required attribute '%s' (%s) of %s-%d is missing", s->attrs[k].name,
                   onnx_attr_type_name (s->attrs[k].type), s->name, s->since_version);

  /* Types */
  g_autofree Binding *bindings = g_new0 (Binding, MAX (s->n_type_params, 1));
  for (guint i = 0; i < nin; i++)
    check_value_type (ctx, where, n, s, onnx_schema_input_param (s, i), graph_node_input (n, i),
                      "input", i, bindings);
  for (guint i = 0; i < nout; i++)
    check_value_type (ctx, where, n, s, onnx_schema_output_param (s, i), graph_node_output (n, i),
                      "output", i, bindings);
  for (int k = 0; k < s->n_type_params; k++)
    {
      g_free (bindings[k].type);
      g_free (bindings[k].what);
    }
}

static void
check_aten (Ctx *ctx, const char *where, const GraphNode *n)
{
  GraphAttrKind kind;
  if (!graph_node_attr_kind (n, "operator", &kind))
    add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                 "ATen node has no 'operator' attribute (the aten operator's name, a string)");
  else if (kind != GRAPH_ATTR_S)
    add_problem (ctx, ONNX_CHECK_ERROR, where, n, "attribute 'operator' is of kind %s; ATen expects string",
                 onnx_attr_type_name (onnx_attr_type_from_graph (kind)));
  if (graph_node_attr_kind (n, "overload_name", &kind) && kind != GRAPH_ATTR_S)
    add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                 "attribute 'overload_name' is of kind %s; ATen expects string",
                 onnx_attr_type_name (onnx_attr_type_from_graph (kind)));
}

/* FALSE (after reporting it once per domain) when the model imports no
 * opset for the domain. */
static gboolean
domain_imported (Ctx *ctx, const char *where, const GraphNode *n, const char *file_domain,
                 gint64 opset)
{
  if (opset >= 0)
    return TRUE;
  g_autofree char *key = g_strconcat ("import:", file_domain, NULL);
  if (!g_hash_table_contains (ctx->domains_reported, key))
    {
      add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                   "the model imports no opset for domain '%s' (opset_import)%s", file_domain,
                   *file_domain ? "" : ": its ONNX ops cannot be checked");
      g_hash_table_add (ctx->domains_reported, g_steal_pointer (&key));
    }
  return FALSE;
}

static void check_graph (Ctx *ctx, const Graph *g, const Scope *outer, const char *prefix);

static void
check_node (Ctx *ctx, const GraphNode *n, const char *where, const Scope *scope)
{
  /* Defined before use */
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      const GraphValue *v = graph_node_input (n, i);
      if (v == NULL || scope_defines (scope, v))
        continue;
      ctx->n_use_before_def++;
      g_autofree char *vd = value_desc (v);
      const GraphNode *producer = graph_value_node (v);
      const Scope *s;
      for (s = scope; s != NULL; s = s->outer)
        if (producer != NULL && g_hash_table_contains (s->node_index, producer))
          break;
      if (s != NULL)
        {
          guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (s->node_index, producer)) - 1;
          g_autofree char *pw = node_where (ctx, NULL, producer, idx);
          add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                       "input %u %s is used before it is defined (it is output %u of %s%s)",
                       i, vd, graph_value_offset (v), pw,
                       s == scope ? ", later in the graph" : ", after this node's enclosing node");
        }
      else
        add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                     "input %u %s is not defined in this graph nor in an enclosing one", i, vd);
    }

  const char *dom = graph_node_domain (n);
  const char *op = graph_node_op_type (n);
  const char *file_domain = strcmp (dom, GRAPH_ONNX_DOMAIN) == 0 ? "" : dom;
  gint64 opset = graph_get_opset (ctx->root, file_domain);
  if (onnx_schema_domain_known (file_domain))
    {
      if (domain_imported (ctx, where, n, file_domain, opset))
        {
          const OnnxSchema *s = onnx_schema_lookup (file_domain, op, opset);
          const OnnxSchema *first = onnx_schema_first (file_domain, op);
          if (s == NULL && first != NULL)
            add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                         "%s does not exist at opset %" G_GINT64_FORMAT " of domain '%s' (the model's); "
                         "it exists from opset %d", op, opset, file_domain, first->since_version);
          else if (s == NULL)
            add_problem (ctx, ONNX_CHECK_ERROR, where, n, "unknown operator '%s' in domain '%s'", op,
                         file_domain);
          else if (s->deprecated)
            add_problem (ctx, ONNX_CHECK_ERROR, where, n,
                         "%s is deprecated at opset %" G_GINT64_FORMAT " (since opset %d)", op, opset,
                         s->since_version);
          else
            check_schema (ctx, where, n, s);
        }
    }
  else if (strcmp (dom, GRAPH_ATEN_DOMAIN) == 0 && strcmp (op, "ATen") == 0)
    {
      domain_imported (ctx, where, n, file_domain, opset);
      check_aten (ctx, where, n);
    }
  else
    {
      domain_imported (ctx, where, n, file_domain, opset);
      g_autofree char *key = g_strconcat ("custom:", dom, NULL);
      if (!g_hash_table_contains (ctx->domains_reported, key))
        {
          add_problem (ctx, ctx->opts->strict ? ONNX_CHECK_ERROR : ONNX_CHECK_WARNING, where, n,
                       "domain '%s' is not an ONNX domain: its nodes' ops and attributes are not checked",
                       dom);
          g_hash_table_add (ctx->domains_reported, g_steal_pointer (&key));
        }
    }

  /* Subgraphs see what is defined so far, not this node's outputs. */
  for (guint a = 0; a < graph_node_n_attrs (n); a++)
    {
      const char *name = graph_node_attr_name (n, a);
      Graph *sub = NULL;
      gsize len = 0;
      Graph *const *subs = NULL;
      if (graph_node_get_g (n, name, &sub))
        {
          g_autofree char *p = g_strdup_printf ("%s: attribute '%s'", where, name);
          check_graph (ctx, sub, scope, p);
        }
      else if (graph_node_get_gs (n, name, &len, &subs))
        for (gsize k = 0; k < len; k++)
          {
            g_autofree char *p = g_strdup_printf ("%s: attribute '%s'[%" G_GSIZE_FORMAT "]", where,
                                                  name, k);
            check_graph (ctx, subs[k], scope, p);
          }
    }
}

/* ONNX requires a type (and a tensor's element type) on every input and
 * output of the main graph (onnx.checker accepts untyped ones in subgraphs,
 * e.g. Loop bodies in the backend tests); initializers take theirs from
 * the tensor. */
static void
check_io_types (Ctx *ctx, const Graph *g)
{
  for (guint dir = 0; dir < 2; dir++)
    for (guint i = 0; i < (dir ? graph_n_outputs (g) : graph_n_inputs (g)); i++)
      {
        GraphValue *v = dir ? graph_output (g, i) : graph_input (g, i);
        if (!dir && graph_value_get_initializer (v) != NULL)
          continue;
        const GraphType *t = graph_value_type (v);
        const char *lack = t == NULL ? "no type"
                           : graph_type_kind (t) == GRAPH_TYPE_TENSOR
                               && graph_type_dtype (t) == GRAPH_DTYPE_UNDEFINED
                             ? "no element type" : NULL;
        if (lack == NULL)
          continue;
        g_autofree char *vd = value_desc (v);
        add_problem (ctx, ONNX_CHECK_ERROR, "graph", NULL,
                     "%s %u %s has %s (ONNX requires one on graph inputs and outputs)",
                     dir ? "output" : "input", i, vd, lack);
      }
}

static void
check_graph (Ctx *ctx, const Graph *g, const Scope *outer, const char *prefix)
{
  g_autoptr(GHashTable) defined = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) node_index = g_hash_table_new (NULL, NULL);
  Scope scope = { defined, node_index, outer };
  guint idx = 0;
  graph_foreach_node (g, n)
    g_hash_table_insert (node_index, n, GUINT_TO_POINTER (++idx));
  for (guint i = 0; i < graph_n_inputs (g); i++)
    g_hash_table_add (defined, graph_input (g, i));
  if (prefix == NULL)
    check_io_types (ctx, g);
  idx = 0;
  graph_foreach_node (g, n)
    {
      g_autofree char *where = node_where (ctx, prefix, n, idx++);
      check_node (ctx, n, where, &scope);
      for (guint o = 0; o < graph_node_n_outputs (n); o++)
        g_hash_table_add (defined, graph_node_output (n, o));
    }
}

void
onnx_check_graph_into (const Graph *g, const OnnxCheckOptions *opts, GHashTable *node_index,
                       GPtrArray *problems)
{
  OnnxCheckOptions defaults;
  onnx_check_options_init (&defaults);
  Ctx ctx = { 0 };
  ctx.root = g;
  while (graph_get_outer (ctx.root) != NULL)
    ctx.root = graph_get_outer (ctx.root);
  ctx.opts = opts ? opts : &defaults;
  ctx.problems = problems;
  ctx.file_index = node_index;
  ctx.domains_reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  gint64 opset = graph_get_opset (ctx.root, "");
  if (opset > onnx_schema_max_opset ())
    add_problem (&ctx, ONNX_CHECK_WARNING, "model", NULL,
                 "default-domain opset %" G_GINT64_FORMAT " is newer than the schemas this checker "
                 "knows (up to %d): checked against those", opset, onnx_schema_max_opset ());

  check_graph (&ctx, g, NULL, NULL);

  /* Other IR invariants; use-before-def ones are already listed in full. */
  g_autoptr(GError) error = NULL;
  if (ctx.n_use_before_def == 0 && !graph_lint (g, &error))
    add_problem (&ctx, ONNX_CHECK_ERROR, "model", NULL, "%s", error->message);
  g_hash_table_unref (ctx.domains_reported);
}

GPtrArray *
onnx_check_graph (const Graph *g, const OnnxCheckOptions *opts)
{
  g_return_val_if_fail (g != NULL, NULL);
  GPtrArray *problems = g_ptr_array_new_with_free_func ((GDestroyNotify) onnx_check_problem_free);
  onnx_check_graph_into (g, opts, NULL, problems);
  return problems;
}

guint
onnx_check_count (const GPtrArray *problems, OnnxCheckSeverity severity)
{
  guint c = 0;
  for (guint i = 0; i < problems->len; i++)
    if (((const OnnxCheckProblem *) problems->pdata[i])->severity == severity)
      c++;
  return c;
}

char *
onnx_check_problem_to_string (const OnnxCheckProblem *p)
{
  return g_strdup_printf ("%s: %s: %s", p->severity == ONNX_CHECK_ERROR ? "error" : "warning",
                          p->where, p->message);
}
