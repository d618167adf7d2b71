/* Note [Arity of structural nodes]
 * Constants, lists, tuples, dicts, attribute reads and the scalar casts of
 * scripted code (prim::ListConstruct, aten::Int ...) have no symbolic of
 * their own: they are read where they are used, by sym_value, the list
 * helpers, the list-mutation fold and the output collection, each of which
 * reads their inputs by position.  The trace parser accepts any number of
 * inputs on any node, so a hostile trace's prim::ListUnpack() or
 * aten::IntImplicit() reached those readers with no input 0 (trace-export
 * fuzzing, sessions 10 and 11).  Instead of a check at every reader, the
 * whole trace (control-flow bodies and Python op bodies too) is checked
 * once against this table before anything reads it. */
#include "symbolic/translate.h"

#include <string.h>

typedef struct
{
  const char *kind;
  guint min_inputs;
  guint max_inputs;   /* G_MAXUINT: any */
  gboolean pairs;     /* key, value, key, value ... */
} StructuralArity;

static const StructuralArity arities[] = {
  { "prim::Constant", 0, 0, FALSE },
  { "prim::Uninitialized", 0, 0, FALSE },
  { "prim::GetAttr", 1, 1, FALSE },
  { "prim::device", 1, 1, FALSE },
  { "prim::dtype", 1, 1, FALSE },
  { "prim::NumToTensor", 1, 1, FALSE },
  { "prim::unchecked_cast", 1, 1, FALSE },
  { "prim::ListUnpack", 1, 1, FALSE },
  { "prim::TupleUnpack", 1, 1, FALSE },
  { "prim::ListConstruct", 0, G_MAXUINT, FALSE },
  { "prim::TupleConstruct", 0, G_MAXUINT, FALSE },
  { "prim::DictConstruct", 0, G_MAXUINT, TRUE },
  { "aten::Int", 1, 1, FALSE },
  { "aten::Float", 1, 1, FALSE },
  { "aten::IntImplicit", 1, 1, FALSE },
  { "aten::FloatImplicit", 1, 1, FALSE },
  { "aten::ScalarImplicit", 1, 1, FALSE },
};

static gboolean
check_node (GraphNode *n, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (arities); i++)
    {
      const StructuralArity *a = &arities[i];
      if (!graph_node_is (n, a->kind))
        continue;
      guint got = graph_node_n_inputs (n);
      if (got >= a->min_inputs && got <= a->max_inputs && (!a->pairs || got % 2 == 0))
        return TRUE;
      GraphValue *out = graph_node_n_outputs (n) > 0 ? graph_node_output (n, 0) : NULL;
      const char *name = out ? graph_value_get_name (out) : NULL;
      g_autofree char *label = name ? g_strdup_printf ("%%%s", name)
                               : out ? g_strdup_printf ("%%%u", graph_value_id (out))
                                     : g_strdup ("(no output)");
      /* (a bounded entry takes an exact count) */
      g_autofree char *want
        = a->pairs ? g_strdup ("an even number of inputs (key, value pairs)")
                   : g_strdup_printf ("%u input%s", a->min_inputs, a->min_inputs == 1 ? "" : "s");
      const char *at = graph_node_get_source (n);
      g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS, "%s (node %s%s%s) has %u input%s, but it takes %s",
                   a->kind, label, at ? ", at " : "", at ? at : "", got, got == 1 ? "" : "s", want);
      return FALSE;
    }
  return TRUE;
}

gboolean
sym_check_structural_arity (const Graph *g, GError **error)
{
  graph_foreach_node (g, n)
    {
      if (!check_node (n, error))
        return FALSE;
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            if (!sym_check_structural_arity (subs[k], error))
              return FALSE;
        }
    }
  return TRUE;
}
