/* prim::PythonOp (a torch.autograd.Function call): its arguments in call
 * order, for sym_parse_args, and the inlining of its recorded body.
 *
 * Note [PythonOp arguments]
 * PyTorch prints a Function call as ^Name[attrs](SCALARS)(%tensors): the
 * scalar arguments as Python literals (kept in the python_args attribute)
 * and the tensor arguments as inputs.  Their interleaving is the call's
 * calling convention (torch's Node.cconv: 'd' a tensor, 'c' a scalar), which
 * tools/torch2trace.py writes as a cconv="dcc" attribute; without it the
 * tensors come first.  Each scalar becomes a prim::Constant of a scratch
 * graph, so sym_parse_args reads `apply (x, 2.5, (1, 2))` with "vfis" as it
 * reads an aten node's constants. */
#include "symbolic/translate.h"
#include <stdlib.h>
#include <string.h>

typedef struct
{
  const char *p;
} Lex;

static void
skip_blanks (Lex *l)
{
  while (*l->p == ' ' || *l->p == '\t' || *l->p == '\n')
    l->p++;
}

/* A number token: TRUE with *is_float set, or FALSE. */
static gboolean
lex_number (Lex *l, double *f, gint64 *i, gboolean *is_float)
{
  const char *start = l->p;
  char *end = NULL;
  if (g_str_has_prefix (l->p, "inf") || g_str_has_prefix (l->p, "-inf")
      || g_str_has_prefix (l->p, "nan"))
    {
      *f = g_ascii_strtod (l->p, &end);
      l->p = end;
      *is_float = TRUE;
      return end != start;
    }
  gint64 v = g_ascii_strtoll (l->p, &end, 10);
  if (end == start)
    return FALSE;
  if (*end == '.' || *end == 'e' || *end == 'E')
    {
      *f = g_ascii_strtod (start, &end);
      *is_float = TRUE;
    }
  else
    {
      *i = v;
      *is_float = FALSE;
    }
  l->p = end;
  return TRUE;
}

/* One Python literal as a prim::Constant of `g`: None, True/False, an int,
 * a float, a quoted string, or a tuple/list of numbers.  NULL (and the
 * cursor left) for anything else. */
static GraphValue *
literal (Graph *g, Lex *l)
{
  skip_blanks (l);
  if (g_str_has_prefix (l->p, "None"))
    {
      l->p += 4;
      return graph_op (g, "prim::Constant", NULL);
    }
  if (g_str_has_prefix (l->p, "True") || g_str_has_prefix (l->p, "False"))
    {
      gboolean t = *l->p == 'T';
      l->p += t ? 4 : 5;
      return graph_op (g, "prim::Constant", "value_i", (gint64) t, NULL);
    }
  if (*l->p == '\'' || *l->p == '"')
    {
      char q = *l->p++;
      GString *s = g_string_new (NULL);
      while (*l->p && *l->p != q)
        {
          if (*l->p == '\\' && l->p[1])
            l->p++;
          g_string_append_c (s, *l->p++);
        }
      if (*l->p != q)
        {
          g_string_free (s, TRUE);
          return NULL;
        }
      l->p++;
      GraphValue *v = graph_op (g, "prim::Constant", "value_s", s->str, NULL);
      g_string_free (s, TRUE);
      return v;
    }
  if (*l->p == '(' || *l->p == '[')
    {
      char close = *l->p == '(' ? ')' : ']';
      l->p++;
      g_autoptr (GArray) ints = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr (GArray) floats = g_array_new (FALSE, FALSE, sizeof (double));
      gboolean any_float = FALSE;
      for (;;)
        {
          skip_blanks (l);
          if (*l->p == close)
            break;
          double f = 0;
          gint64 i = 0;
          gboolean is_float;
          if (!lex_number (l, &f, &i, &is_float))
            return NULL;
          any_float |= is_float;
          double d = is_float ? f : (double) i;
          g_array_append_val (ints, i);
          g_array_append_val (floats, d);
          skip_blanks (l);
          if (*l->p == ',')
            l->p++;
          else if (*l->p != close)
            return NULL;
        }
      l->p++;
      if (any_float)
        return graph_op (g, "prim::Constant", "value_fs", (int) floats->len,
                         (const double *) floats->data, NULL);
      return graph_op (g, "prim::Constant", "value_is", (int) ints->len,
                       (const gint64 *) ints->data, NULL);
    }
  double f = 0;
  gint64 i = 0;
  gboolean is_float;
  if (!lex_number (l, &f, &i, &is_float))
    return NULL;
  return is_float ? graph_op (g, "prim::Constant", "value_f", f, NULL)
                  : graph_op (g, "prim::Constant", "value_i", i, NULL);
}

/* Skips one argument's text (balanced brackets, quotes) up to a top-level
 * comma or the end. */
static void
skip_argument (Lex *l)
{
  int depth = 0;
  for (; *l->p; l->p++)
    {
      char ch = *l->p;
      if (ch == '\'' || ch == '"')
        {
          for (l->p++; *l->p && *l->p != ch; l->p++)
            if (*l->p == '\\' && l->p[1])
              l->p++;
          if (*l->p == '\0')
            return;
        }
      else if (ch == '(' || ch == '[' || ch == '{')
        depth++;
      else if (ch == ')' || ch == ']' || ch == '}')
        depth--;
      else if (ch == ',' && depth == 0)
        return;
    }
}

GPtrArray *
sym_python_op_arguments (Graph *scratch, GraphNode *n, GError **error)
{
  const char *text = "";
  gsize len = 0;
  graph_node_get_s (n, GRAPH_PYTHON_OP_ARGS_ATTR, &text, &len);
  g_autofree char *args = g_strndup (text, len);
  g_autoptr (GPtrArray) scalars = g_ptr_array_new ();
  Lex l = { args };
  skip_blanks (&l);
  while (*l.p)
    {
      const char *start = l.p;
      GraphValue *v = literal (scratch, &l);
      skip_blanks (&l);
      if (v == NULL || (*l.p != ',' && *l.p != '\0'))
        {
          /* Kept as its text: a symbolic asking for a number gets a
           * clear "argument N must be ..." error. */
          l.p = start;
          skip_argument (&l);
          g_autofree char *raw = g_strndup (start, (gsize) (l.p - start));
          v = graph_op (scratch, "prim::Constant", "value_s", g_strstrip (raw), NULL);
        }
      g_ptr_array_add (scalars, v);
      if (*l.p == ',')
        l.p++;
      skip_blanks (&l);
    }
  const char *cconv = NULL;
  gsize cconv_len = 0;
  g_autofree char *conv = NULL;
  if (graph_node_get_s (n, "cconv", &cconv, &cconv_len))
    conv = g_strndup (cconv, cconv_len);
  else
    {
      /* tensors first, then the scalars */
      conv = g_malloc (graph_node_n_inputs (n) + scalars->len + 1);
      memset (conv, 'd', graph_node_n_inputs (n));
      memset (conv + graph_node_n_inputs (n), 'c', scalars->len);
      conv[graph_node_n_inputs (n) + scalars->len] = '\0';
    }
  GPtrArray *out = g_ptr_array_new ();
  guint ti = 0, si = 0;
  for (const char *c = conv; *c; c++)
    {
      if (*c == 'd' && ti < graph_node_n_inputs (n))
        g_ptr_array_add (out, graph_node_input (n, ti++));
      else if (*c == 'c' && si < scalars->len)
        g_ptr_array_add (out, scalars->pdata[si++]);
      else
        break;
    }
  if (ti != graph_node_n_inputs (n) || si != scalars->len || out->len != strlen (conv))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "Python operator: its calling convention \"%s\" does not match its %u tensor "
                   "and %u scalar arguments", conv, graph_node_n_inputs (n), scalars->len);
      g_ptr_array_unref (out);
      return NULL;
    }
  return out;
}
