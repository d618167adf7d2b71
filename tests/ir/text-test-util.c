/* Graph equality and round-trip helpers for the text tests. */
#include "tests/ir/text-test-util.h"
#include <math.h>
#include <string.h>

Graph *
text_test_parse (const char *text, const char *what)
{
  g_autoptr (GError) error = NULL;
  Graph *g = graph_parse (text, strlen (text), what, &error);
  if (g == NULL)
    g_error ("parsing %s failed: %s\n%s", what, error->message, text);
  assert_lint (g);
  return g;
}

typedef struct
{
  GHashTable *map;     /* value of a → value of b */
  gboolean    lossy;
  GString    *why;
} Eq;

static gboolean
fail (Eq *e, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (Eq *e, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_string_append_vprintf (e->why, fmt, ap);
  va_end (ap);
  return FALSE;
}

static gboolean
types_equal (const GraphType *a, const GraphType *b)
{
  g_autoptr (GraphType) unknown = graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL);
  return graph_type_equal (a ? a : unknown, b ? b : unknown);
}

static gboolean
values_match (Eq *e, const GraphValue *a, const GraphValue *b, const char *where)
{
  if ((a == NULL) != (b == NULL))
    return fail (e, "%s: one value is absent", where);
  if (a == NULL)
    return TRUE;
  const GraphValue *mapped = g_hash_table_lookup (e->map, a);
  if (mapped != b)
    return fail (e, "%s: refers to a different value", where);
  return TRUE;
}

static gboolean
define (Eq *e, const GraphValue *a, const GraphValue *b, const char *where)
{
  g_hash_table_insert (e->map, (gpointer) a, (gpointer) b);
  if (!types_equal (graph_value_type (a), graph_value_type (b)))
    {
      g_autofree char *ta = graph_type_to_string (graph_value_type (a));
      g_autofree char *tb = graph_type_to_string (graph_value_type (b));
      return fail (e, "%s: type %s vs %s", where, ta, tb);
    }
  /* A value named "x" keeps it; an unnamed one gets its printed id. */
  const char *na = graph_value_get_name (a), *nb = graph_value_get_name (b);
  if (na != NULL && g_strcmp0 (na, nb) != 0)
    return fail (e, "%s: name %s vs %s", where, na, nb ? nb : "(none)");
  return TRUE;
}

static gboolean tensors_equal (Eq *e, const Tensor *a, const Tensor *b);
static gboolean graphs_equal (Eq *e, const Graph *a, const Graph *b);

static gboolean
tensors_equal (Eq *e, const Tensor *a, const Tensor *b)
{
  if (tensor_equal (a, b))
    return TRUE;
  if (e->lossy && tensor_numel (a) != 1 && !tensor_has_data (b)
      && tensor_dtype (a) == tensor_dtype (b) && tensor_rank (a) == tensor_rank (b)
      && (tensor_rank (a) == 0
          || memcmp (tensor_dims (a), tensor_dims (b), tensor_rank (a) * sizeof (gint64)) == 0))
    return TRUE;
  return fail (e, "tensors differ (%s[%u] vs %s[%u])", graph_dtype_name (tensor_dtype (a)),
               tensor_rank (a), graph_dtype_name (tensor_dtype (b)), tensor_rank (b));
}

static gboolean
doubles_equal (double a, double b)
{
  return (isnan (a) && isnan (b)) || memcmp (&a, &b, sizeof a) == 0;
}

static gboolean
attr_equal (Eq *e, const GraphNode *a, const GraphNode *b, const char *name)
{
  GraphAttrKind ka, kb;
  graph_node_attr_kind (a, name, &ka);
  if (!graph_node_attr_kind (b, name, &kb) || ka != kb)
    return fail (e, "attribute %s: kind differs", name);
  gsize la, lb;
  switch (ka)
    {
    case GRAPH_ATTR_F:
      {
        double x, y;
        graph_node_get_f (a, name, &x);
        graph_node_get_f (b, name, &y);
        return doubles_equal (x, y) || fail (e, "attribute %s: %.17g vs %.17g", name, x, y);
      }
    case GRAPH_ATTR_I:
      {
        gint64 x, y;
        graph_node_get_i (a, name, &x);
        graph_node_get_i (b, name, &y);
        return x == y || fail (e, "attribute %s: %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT,
                               name, x, y);
      }
    case GRAPH_ATTR_S:
      {
        const char *x, *y;
        graph_node_get_s (a, name, &x, &la);
        graph_node_get_s (b, name, &y, &lb);
        return (la == lb && memcmp (x, y, la) == 0) || fail (e, "attribute %s: strings differ", name);
      }
    case GRAPH_ATTR_T:
      {
        Tensor *x, *y;
        graph_node_get_t (a, name, &x);
        graph_node_get_t (b, name, &y);
        return tensors_equal (e, x, y);
      }
    case GRAPH_ATTR_G:
      {
        Graph *x, *y;
        graph_node_get_g (a, name, &x);
        graph_node_get_g (b, name, &y);
        return graphs_equal (e, x, y);
      }
    case GRAPH_ATTR_TP:
      {
        GraphType *x, *y;
        graph_node_get_tp (a, name, &x);
        graph_node_get_tp (b, name, &y);
        return graph_type_equal (x, y) || fail (e, "attribute %s: types differ", name);
      }
    case GRAPH_ATTR_FS:
      {
        const double *x, *y;
        graph_node_get_fs (a, name, &la, &x);
        graph_node_get_fs (b, name, &lb, &y);
        if (la != lb)
          return fail (e, "attribute %s: lengths differ", name);
        for (gsize i = 0; i < la; i++)
          if (!doubles_equal (x[i], y[i]))
            return fail (e, "attribute %s[%" G_GSIZE_FORMAT "] differs", name, i);
        return TRUE;
      }
    case GRAPH_ATTR_IS:
      {
        const gint64 *x, *y;
        graph_node_get_is (a, name, &la, &x);
        graph_node_get_is (b, name, &lb, &y);
        return (la == lb && (la == 0 || memcmp (x, y, la * sizeof *x) == 0))
               || fail (e, "attribute %s: ints differ", name);
      }
    case GRAPH_ATTR_SS:
      {
        const char *const *x, *const *y;
        graph_node_get_ss (a, name, &la, &x);
        graph_node_get_ss (b, name, &lb, &y);
        if (la != lb)
          return fail (e, "attribute %s: lengths differ", name);
        for (gsize i = 0; i < la; i++)
          if (strcmp (x[i], y[i]) != 0)
            return fail (e, "attribute %s[%" G_GSIZE_FORMAT "] differs", name, i);
        return TRUE;
      }
    case GRAPH_ATTR_TS:
      {
        Tensor *const *x, *const *y;
        graph_node_get_ts (a, name, &la, &x);
        graph_node_get_ts (b, name, &lb, &y);
        if (la != lb)
          return fail (e, "attribute %s: lengths differ", name);
        for (gsize i = 0; i < la; i++)
          if (!tensors_equal (e, x[i], y[i]))
            return fail (e, " in attribute %s[%" G_GSIZE_FORMAT "]", name, i);
        return TRUE;
      }
    case GRAPH_ATTR_GS:
      {
        Graph *const *x, *const *y;
        graph_node_get_gs (a, name, &la, &x);
        graph_node_get_gs (b, name, &lb, &y);
        if (la != lb)
          return fail (e, "attribute %s: lengths differ", name);
        for (gsize i = 0; i < la; i++)
          if (!graphs_equal (e, x[i], y[i]))
            return fail (e, " in attribute %s[%" G_GSIZE_FORMAT "]", name, i);
        return TRUE;
      }
    case GRAPH_ATTR_TPS:
      {
        GraphType *const *x, *const *y;
        graph_node_get_tps (a, name, &la, &x);
        graph_node_get_tps (b, name, &lb, &y);
        if (la != lb)
          return fail (e, "attribute %s: lengths differ", name);
        for (gsize i = 0; i < la; i++)
          if (!graph_type_equal (x[i], y[i]))
            return fail (e, "attribute %s[%" G_GSIZE_FORMAT "] differs", name, i);
        return TRUE;
      }
    }
  return FALSE;
}

static gboolean
graphs_equal (Eq *e, const Graph *a, const Graph *b)
{
  if (graph_n_inputs (a) != graph_n_inputs (b))
    return fail (e, "input counts %u vs %u", graph_n_inputs (a), graph_n_inputs (b));
  for (guint i = 0; i < graph_n_inputs (a); i++)
    if (!define (e, graph_input (a, i), graph_input (b, i), "graph input"))
      return FALSE;
  if (graph_n_nodes (a) != graph_n_nodes (b))
    return fail (e, "node counts %u vs %u", graph_n_nodes (a), graph_n_nodes (b));
  guint index = 0;
  for (GraphNode *x = graph_first_node (a), *y = graph_first_node (b); x;
       x = graph_node_next (x), y = graph_node_next (y), index++)
    {
      g_autofree char *where = g_strdup_printf ("node %u (%s)", index, graph_node_kind (x));
      if (graph_node_kind (x) != graph_node_kind (y))
        return fail (e, "%s: kind %s", where, graph_node_kind (y));
      if (graph_node_n_inputs (x) != graph_node_n_inputs (y)
          || graph_node_n_outputs (x) != graph_node_n_outputs (y)
          || graph_node_n_attrs (x) != graph_node_n_attrs (y))
        return fail (e, "%s: input/output/attribute counts differ", where);
      for (guint i = 0; i < graph_node_n_inputs (x); i++)
        if (!values_match (e, graph_node_input (x, i), graph_node_input (y, i), where))
          return FALSE;
      if (g_strcmp0 (graph_node_get_scope (x), graph_node_get_scope (y)) != 0
          || g_strcmp0 (graph_node_get_source (x), graph_node_get_source (y)) != 0)
        return fail (e, "%s: scope or source differ", where);
      for (guint i = 0; i < graph_node_n_attrs (x); i++)
        {
          const char *name = graph_node_attr_name (x, i);
          if (strcmp (name, graph_node_attr_name (y, i)) != 0)
            return fail (e, "%s: attribute names differ", where);
          if (!attr_equal (e, x, y, name))
            return fail (e, " (%s)", where);
        }
      for (guint i = 0; i < graph_node_n_outputs (x); i++)
        if (!define (e, graph_node_output (x, i), graph_node_output (y, i), where))
          return FALSE;
    }
  if (graph_n_outputs (a) != graph_n_outputs (b))
    return fail (e, "output counts differ");
  for (guint i = 0; i < graph_n_outputs (a); i++)
    if (!values_match (e, graph_output (a, i), graph_output (b, i), "graph output"))
      return FALSE;
  return TRUE;
}

gboolean
text_test_graphs_equal (const Graph *a, const Graph *b, gboolean data_lossy, char **why)
{
  Eq e = { g_hash_table_new (NULL, NULL), data_lossy, g_string_new (NULL) };
  gboolean ok = graphs_equal (&e, a, b);
  g_hash_table_unref (e.map);
  if (why)
    *why = g_string_free (e.why, FALSE);
  else
    g_string_free (e.why, TRUE);
  return ok;
}

Graph *
text_test_round_trip (const Graph *g)
{
  g_autofree char *s1 = graph_to_string (g);
  Graph *g1 = text_test_parse (s1, "first print");
  g_autofree char *s2 = graph_to_string (g1);
  g_assert_cmpstr (s1, ==, s2);
  g_autoptr (Graph) g2 = text_test_parse (s2, "second print");
  g_autofree char *why = NULL;
  if (!text_test_graphs_equal (g1, g2, FALSE, &why))
    g_error ("parse → print → parse changed the graph: %s\n%s", why, s1);
  /* And the text kept everything of the original but multi-element data. */
  g_free (why);
  why = NULL;
  if (!text_test_graphs_equal (g, g1, TRUE, &why))
    g_error ("print → parse lost something: %s\n%s", why, s1);
  return g1;
}
