/* The builder: graph_op / graph_at and friends (see ir/graph.h). */
#include "ir/graph-private.h"
#include <string.h>

/* One parsed key/value pair, applied only once every pair checked out, so a
 * bad call adds nothing to the graph. */
typedef struct
{
  char          *name;
  GraphAttrKind  kind;
  gsize          len;
  union
  {
    double       f;
    gint64       i;
    const char  *s;
    Tensor      *t;
    Graph       *g;
    GraphType   *tp;
    gconstpointer list;
  } u;
} PendingAttr;

G_DEFINE_QUARK (graph-builder-error-quark, graph_builder_error)

void
graph_builder_capture_errors (Graph *g, gboolean capture)
{
  g_return_if_fail (g != NULL);
  g->capture_builder_errors = capture;
}

GError *
graph_builder_take_error (Graph *g)
{
  g_return_val_if_fail (g != NULL, NULL);
  return g_steal_pointer (&g->builder_error);
}

/* Builder misuse: recorded on the graph while it captures errors (the
 * symbolic pass turns that on, so the export fails naming the symbolic),
 * else a g_critical as before.  Either way the call builds nothing. */
static void builder_fail (Graph *g, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
builder_fail (Graph *g, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (g != NULL && g->capture_builder_errors)
    {
      if (g->builder_error == NULL)
        g->builder_error = g_error_new_literal (GRAPH_BUILDER_ERROR, 0, msg);
      return;
    }
  g_critical ("%s", msg);
}

static void
pending_attr_free (gpointer p)
{
  g_free (((PendingAttr *) p)->name);
}

/* Reads the value(s) for `key` from ap.  FALSE (with a g_critical) when the
 * key is malformed or the value is missing. */
static gboolean
read_attr (Graph *g, const char *fn, const char *kind, const char *key, va_list *ap, PendingAttr *out)
{
  const char *us = strrchr (key, '_');
  if (us == NULL || us == key || !graph_attr_kind_from_suffix (us + 1, &out->kind))
    {
      builder_fail (g, "%s(%s): attribute key \"%s\" lacks a type suffix "
                  "(_f _i _s _t _g _tp _fs _is _ss _ts _gs _tps), or an input is not a value of this graph",
                  fn, kind, key);
      return FALSE;
    }
  out->name = g_strndup (key, (gsize) (us - key));
  switch (out->kind)
    {
    case GRAPH_ATTR_F: out->u.f = va_arg (*ap, double); return TRUE;
    case GRAPH_ATTR_I: out->u.i = va_arg (*ap, gint64); return TRUE;
    case GRAPH_ATTR_S: out->u.s = va_arg (*ap, const char *); break;
    case GRAPH_ATTR_T: out->u.t = va_arg (*ap, Tensor *); break;
    case GRAPH_ATTR_G: out->u.g = va_arg (*ap, Graph *); break;
    case GRAPH_ATTR_TP: out->u.tp = va_arg (*ap, GraphType *); break;
    default:
      {
        int count = va_arg (*ap, int);
        out->u.list = va_arg (*ap, gconstpointer);
        if (count < 0 || (count > 0 && out->u.list == NULL))
          {
            builder_fail (g, "%s(%s): attribute \"%s\" needs a count >= 0 and an array", fn, kind, key);
            return FALSE;
          }
        out->len = (gsize) count;
        if (out->kind == GRAPH_ATTR_SS || out->kind == GRAPH_ATTR_TS
            || out->kind == GRAPH_ATTR_GS || out->kind == GRAPH_ATTR_TPS)
          for (gsize i = 0; i < out->len; i++)
            if (((const gconstpointer *) out->u.list)[i] == NULL)
              {
                builder_fail (g, "%s(%s): element %" G_GSIZE_FORMAT " of attribute \"%s\" is NULL",
                            fn, kind, i, key);
                return FALSE;
              }
        return TRUE;
      }
    }
  if (out->u.s == NULL)   /* any of the pointer members */
    {
      builder_fail (g, "%s(%s): attribute \"%s\" has a NULL value", fn, kind, key);
      return FALSE;
    }
  return TRUE;
}

static void
apply_attr (GraphNode *n, const PendingAttr *a)
{
  switch (a->kind)
    {
    case GRAPH_ATTR_F: graph_node_set_f (n, a->name, a->u.f); break;
    case GRAPH_ATTR_I: graph_node_set_i (n, a->name, a->u.i); break;
    case GRAPH_ATTR_S: graph_node_set_s (n, a->name, a->u.s); break;
    case GRAPH_ATTR_T: graph_node_set_t (n, a->name, a->u.t); break;
    case GRAPH_ATTR_G: graph_node_set_g (n, a->name, a->u.g); break;
    case GRAPH_ATTR_TP: graph_node_set_tp (n, a->name, a->u.tp); break;
    case GRAPH_ATTR_FS: graph_node_set_fs (n, a->name, a->len, a->u.list); break;
    case GRAPH_ATTR_IS: graph_node_set_is (n, a->name, a->len, a->u.list); break;
    case GRAPH_ATTR_SS: graph_node_set_ss (n, a->name, a->len, a->u.list); break;
    case GRAPH_ATTR_TS: graph_node_set_ts (n, a->name, a->len, a->u.list); break;
    case GRAPH_ATTR_GS: graph_node_set_gs (n, a->name, a->len, a->u.list); break;
    case GRAPH_ATTR_TPS: graph_node_set_tps (n, a->name, a->len, a->u.list); break;
    }
}

/* The common engine.  `inputs` holds fixed inputs; when `varargs_inputs`,
 * values are read from ap first, until the first key. */
static GraphNode *
build (Graph *g, const char *fn, const char *kind, GPtrArray *inputs, gboolean varargs_inputs,
       guint n_outputs, const char *aten_op, va_list *ap)
{
  g_autoptr (GArray) attrs = g_array_new (FALSE, TRUE, sizeof (PendingAttr));
  g_array_set_clear_func (attrs, pending_attr_free);
  gboolean in_inputs = varargs_inputs;

  g_return_val_if_fail (g != NULL, NULL);
  for (;;)
    {
      gpointer p = va_arg (*ap, gpointer);
      if (p == NULL)
        break;
      if (p == GRAPH_ABSENT || graph_owns_value (g, p))
        {
          if (!in_inputs)
            {
              builder_fail (g, "%s(%s): a value follows the attributes; inputs come first", fn, kind);
              return NULL;
            }
          g_ptr_array_add (inputs, p == GRAPH_ABSENT ? NULL : p);
          continue;
        }
      in_inputs = FALSE;
      PendingAttr a = { 0 };
      gboolean ok = read_attr (g, fn, kind, p, ap, &a);
      g_array_append_val (attrs, a);
      if (!ok)
        return NULL;
    }
  if (aten_op)
    for (guint i = 0; i < attrs->len; i++)
      if (strcmp (g_array_index (attrs, PendingAttr, i).name, "operator") == 0)
        {
          builder_fail (g, "%s(%s): the operator attribute is set by graph_at itself", fn, aten_op);
          return NULL;
        }
  GraphNode *n = graph_create_node (g, kind, inputs->len, (GraphValue *const *) inputs->pdata,
                                    n_outputs);
  if (n == NULL)
    return NULL;
  if (aten_op)
    {
      graph_node_set_s (n, "operator", aten_op);
      graph_node_set_s (n, "overload_name", "");
    }
  for (guint i = 0; i < attrs->len; i++)
    apply_attr (n, &g_array_index (attrs, PendingAttr, i));
  graph_insert_node (g, n);
  return n;
}

static GraphValue *
first_output (GraphNode *n)
{
  return n ? graph_node_output (n, 0) : NULL;
}

GraphValue *
graph_op (Graph *g, const char *kind, ...)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  va_list ap;
  va_start (ap, kind);
  GraphNode *n = build (g, "graph_op", kind, inputs, TRUE, 1, NULL, &ap);
  va_end (ap);
  return first_output (n);
}

GraphNode *
graph_op_outputs (Graph *g, const char *kind, guint n_outputs, ...)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  va_list ap;
  va_start (ap, n_outputs);
  GraphNode *n = build (g, "graph_op_outputs", kind, inputs, TRUE, n_outputs, NULL, &ap);
  va_end (ap);
  return n;
}

static GPtrArray *
input_array (guint n_inputs, GraphValue *const *inputs)
{
  GPtrArray *arr = g_ptr_array_sized_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_add (arr, inputs[i] == GRAPH_ABSENT ? NULL : inputs[i]);
  return arr;
}

GraphNode *
graph_opv_outputs_valist (Graph *g, const char *kind, guint n_inputs, GraphValue *const *inputs,
                          guint n_outputs, va_list ap)
{
  g_return_val_if_fail (n_inputs == 0 || inputs != NULL, NULL);
  g_autoptr (GPtrArray) arr = input_array (n_inputs, inputs);
  va_list copy;
  va_copy (copy, ap);
  GraphNode *n = build (g, "graph_opv", kind, arr, FALSE, n_outputs, NULL, &copy);
  va_end (copy);
  return n;
}

GraphNode *
graph_opv_outputs (Graph *g, const char *kind, guint n_inputs, GraphValue *const *inputs,
                   guint n_outputs, ...)
{
  va_list ap;
  va_start (ap, n_outputs);
  GraphNode *n = graph_opv_outputs_valist (g, kind, n_inputs, inputs, n_outputs, ap);
  va_end (ap);
  return n;
}

GraphValue *
graph_opv (Graph *g, const char *kind, guint n_inputs, GraphValue *const *inputs, ...)
{
  va_list ap;
  va_start (ap, inputs);
  GraphNode *n = graph_opv_outputs_valist (g, kind, n_inputs, inputs, 1, ap);
  va_end (ap);
  return first_output (n);
}

GraphValue *
graph_at (Graph *g, const char *op, ...)
{
  if (op == NULL || *op == '\0')
    {
      builder_fail (g, "graph_at: the ATen operator name is empty");
      return NULL;
    }
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  va_list ap;
  va_start (ap, op);
  GraphNode *n = build (g, "graph_at", GRAPH_KIND_ATEN, inputs, TRUE, 1, op, &ap);
  va_end (ap);
  return first_output (n);
}
