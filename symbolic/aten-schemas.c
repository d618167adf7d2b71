/* symonnx — lookup in the generated aten schema table, and the check of an
 * aten node's arguments against it (symbolic/aten-schemas.h). */
#include "symbolic/aten-schemas.h"
#include "symbolic/translate.h"
#include <stdlib.h>
#include <string.h>

static int
compare_entry (const void *key, const void *entry)
{
  return strcmp (key, ((const SymAtenArity *) entry)->name);
}

/* Names our registry has (as torch 1.13's symbolic registry does) that no
 * aten schema defines, so that they are checked as well: symbolics read
 * input 0 of a node the fuzzer gave none (aten::int()).  Sorted by name.
 * The test /symbolic/schemas/every-registered-name keeps it complete. */
#define SELF "T self Tensor"
#define SELF_MEMORY_FORMAT SELF "|" SELF ";?i memory_format MemoryFormat?"
static const SymAtenArity extra_arities[] = {
  { "aten::_cast_BFloat16", 1, 2, SELF ";b non_blocking bool", 1, 1 },
  { "aten::_cast_Bool", 1, 2, SELF ";b non_blocking bool", 1, 1 },
  { "aten::_cast_ComplexDouble", 1, 2, SELF ";b non_blocking bool", 1, 1 },
  { "aten::_cast_ComplexFloat", 1, 2, SELF ";b non_blocking bool", 1, 1 },
  /* torch 1.13's name for its floor-rounding helper (floor_divide's arguments) */
  { "aten::_floor_divide", 2, 2, SELF ";T other Tensor|" SELF ";n other Scalar", 1, 1 },
  { "aten::bool", 1, 2, SELF_MEMORY_FORMAT, 1, 1 },
  { "aten::double", 1, 2, SELF_MEMORY_FORMAT, 1, 1 },
  { "aten::float", 1, 2, SELF_MEMORY_FORMAT, 1, 1 },
  { "aten::half", 1, 2, SELF_MEMORY_FORMAT, 1, 1 },
  { "aten::int", 1, 2, SELF_MEMORY_FORMAT, 1, 1 },
  { "aten::long", 1, 2, SELF_MEMORY_FORMAT, 1, 1 },
  /* block-listed by torch 1.13; no PyTorch operator has this name */
  { "aten::scan", 0, 0, "", 0, 255 },
  { "aten::softsign", 1, 1, SELF, 1, 1 },
  { "aten::tanhshrink", 1, 1, SELF, 1, 1 },
};

const SymAtenArity *
sym_aten_arity (const char *kind)
{
  const SymAtenArity *a = bsearch (kind, sym_aten_arities, sym_aten_arities_len, sizeof (SymAtenArity),
                                   compare_entry);
  return a ? a : bsearch (kind, extra_arities, G_N_ELEMENTS (extra_arities), sizeof (SymAtenArity),
                          compare_entry);
}

/* A trace records every argument of an aten call: a count outside what
 * torch's schemas allow is a malformed node. */
static gboolean
check_arity (GraphNode *n, const SymAtenArity *a, GError **error)
{
  guint k = graph_node_n_inputs (n);
  if (k >= a->min_args && k <= a->max_args)
    return TRUE;
  g_autofree char *where = sym_node_location (n);
  if (a->min_args == a->max_args)
    g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                 "%s (%s) has %u input%s, but torch's schema takes %u argument%s",
                 graph_node_kind (n), where, k, k == 1 ? "" : "s", a->min_args,
                 a->min_args == 1 ? "" : "s");
  else
    g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                 "%s (%s) has %u input%s, but torch's schemas take %u to %u arguments",
                 graph_node_kind (n), where, k, k == 1 ? "" : "s", a->min_args, a->max_args);
  return FALSE;
}

static gboolean
is_number_code (char c)
{
  return c == 'i' || c == 'b' || c == 'f' || c == 'n' || c == 'c';
}

static gboolean
is_list_code (char c)
{
  return c == 'L' || c == 'l' || c == 'B' || c == 'F' || c == 'S' || c == 'N';
}

/* A tensor a Python number can have become in a trace (a 0-d constant,
 * NumToTensor): rank 0, one element, or a shape not declared. */
static gboolean
may_be_number (const GraphType *t)
{
  int r = graph_type_rank (t);
  if (r < 0 || r == 0)
    return TRUE;
  for (int i = 0; i < r; i++)
    {
      const GraphDim *d = graph_type_dim (t, (guint) i);
      if (d == NULL || d->kind != GRAPH_DIM_STATIC || d->value != 1)
        return FALSE;
    }
  return TRUE;
}

/* Whether a list's declared element type fits list kind `c`. */
static gboolean
elem_accepts (const GraphType *e, char c)
{
  if (e == NULL)
    return TRUE;
  if (graph_type_kind (e) == GRAPH_TYPE_OPTIONAL)
    e = graph_type_elem ((GraphType *) e, 0);
  switch (graph_type_kind (e))
    {
    case GRAPH_TYPE_TENSOR:
    case GRAPH_TYPE_SPARSE_TENSOR:
      return c == 'L';
    case GRAPH_TYPE_INT:
    case GRAPH_TYPE_BOOL:
      return c == 'l' || c == 'B' || c == 'F' || c == 'N';
    case GRAPH_TYPE_FLOAT:
    case GRAPH_TYPE_NUMBER:
      return c == 'F' || c == 'N';
    case GRAPH_TYPE_STR:
      return c == 'S';
    case GRAPH_TYPE_NONE:
      return c == 'L';
    default:
      return TRUE;
    }
}

/* Whether a value whose trace declares type t can be an argument of kind
 * `code` (see SymAtenArity).  Lenient where a trace is: a Python number is
 * often a 0-d tensor, an int stands for a bool, a float or a Scalar, one int
 * for an int[N]; types the table does not judge, and values with no declared
 * type, are accepted. */
static gboolean
kind_accepts (const GraphType *t, const char *code)
{
  gboolean optional = code[0] == '?';
  char c = optional ? code[1] : code[0];
  if (t == NULL || c == '*')
    return TRUE;
  switch (graph_type_kind (t))
    {
    case GRAPH_TYPE_TENSOR:
    case GRAPH_TYPE_SPARSE_TENSOR:
      return c == 'T' || (is_number_code (c) && may_be_number (t));
    case GRAPH_TYPE_INT:
    case GRAPH_TYPE_BOOL:
      return is_number_code (c) || c == 'l' || c == 'B';
    case GRAPH_TYPE_FLOAT:
      return c == 'f' || c == 'n' || c == 'c';
    case GRAPH_TYPE_NUMBER:
      return is_number_code (c);
    case GRAPH_TYPE_STR:
      return c == 's' || c == 'D';
    case GRAPH_TYPE_DEVICE:
      return c == 'D' || c == 's';
    case GRAPH_TYPE_NONE:
      return optional;
    case GRAPH_TYPE_OPTIONAL:
      return graph_type_n_elems (t) == 0 || kind_accepts (graph_type_elem ((GraphType *) t, 0), code);
    case GRAPH_TYPE_LIST:
      return is_list_code (c)
             && elem_accepts (graph_type_n_elems (t) ? graph_type_elem ((GraphType *) t, 0) : NULL, c);
    case GRAPH_TYPE_NAMED:   /* ScalarType, Layout, MemoryFormat, Generator... */
      return c != 'T' && !is_list_code (c);
    default:                 /* tuples, dicts, classes: not judged */
      return TRUE;
    }
}

/* The elements of a list argument built in the trace (prim::ListConstruct)
 * against list kind `code`'s element kind: a Tensor[] of ints, or an int[]
 * holding a Float(3, 4), is a malformed node whatever the list's own
 * declared type says.  Elements fit as kind_accepts judges an argument (a
 * 0-d tensor for a number; None in a Tensor?[]). */
static gboolean
list_elements_accept (GraphValue *v, const char *code)
{
  char c = code[0] == '?' ? code[1] : code[0];
  const char *elem = c == 'L' ? "?T" : c == 'l' ? "i" : c == 'B' ? "b" : c == 'F' ? "f" : c == 'S' ? "s"
                     : c == 'N' ? "n" : NULL;
  GraphNode *list = v ? graph_value_node (v) : NULL;
  if (elem == NULL || list == NULL || !graph_node_is (list, "prim::ListConstruct"))
    return TRUE;
  for (guint i = 0; i < graph_node_n_inputs (list); i++)
    {
      GraphValue *e = graph_node_input (list, i);
      if (e && !kind_accepts (graph_value_type (e), elem))
        return FALSE;
    }
  return TRUE;
}

/* The printed kind of a declared type, for messages. */
static char *
declared_kind (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  if (t == NULL)
    return g_strdup ("untyped");
  if (graph_type_is_tensor (t))
    return g_strdup ("a Tensor");
  g_autofree char *s = graph_type_to_string (t);
  return g_strdup_printf ("of type %s", s);
}

gboolean
sym_aten_check_arguments (GraphNode *n, GError **error)
{
  const char *kind = graph_node_kind (n);
  const SymAtenArity *a = sym_aten_arity (kind);
  gsize len = strlen (kind);
  if (a == NULL && len > 1 && kind[len - 1] == '_' && kind[len - 2] != '_')
    {
      /* an in-place name torch has no schema for (the registry runs it as
       * the out-of-place op, aten::slice_ as aten::slice): that op's */
      g_autofree char *base = g_strndup (kind, len - 1);
      a = sym_aten_arity (base);
    }
  if (a == NULL)
    return TRUE;
  if (!check_arity (n, a, error))
    return FALSE;
  guint r = graph_node_n_outputs (n);
  if (r < a->min_returns || r > a->max_returns)
    {
      /* a symbolic reads output 0's declared type (the fuzzer's result-less
       * `= aten::sub(...)` reached a GLib critical there) */
      g_autofree char *where = sym_node_location (n);
      if (a->min_returns == a->max_returns)
        g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s (%s) has %u result%s, but torch's "
                     "schema returns %u", graph_node_kind (n), where, r, r == 1 ? "" : "s",
                     a->min_returns);
      else
        g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s (%s) has %u result%s, but torch's "
                     "schemas return %u to %u", graph_node_kind (n), where, r, r == 1 ? "" : "s",
                     a->min_returns, a->max_returns);
      return FALSE;
    }
  guint k = graph_node_n_inputs (n);
  for (guint i = 0; i < k; i++)
    if (graph_node_input (n, i) == NULL)
      {
        /* the text's `None` in an input list: an absent ONNX-style input,
         * which no aten call has (a trace passes a NoneType constant) */
        g_autofree char *where = sym_node_location (n);
        g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s (%s): input %u is absent (an aten call "
                     "passes None as a NoneType constant)", graph_node_kind (n), where, i);
        return FALSE;
      }
  g_auto (GStrv) overloads = g_strsplit (a->overloads, "|", -1);
  /* Over the overloads that take k arguments: an overload every input fits
   * passes; else the one that fits the longest prefix names the problem. */
  int worst = -1;   /* the best overload's first misfit, over them all */
  gboolean by_elements = FALSE;   /* a list fitting that argument's kind, whose elements do not */
  g_autoptr (GString) wanted = g_string_new (NULL);
  for (guint o = 0; overloads[o]; o++)
    {
      g_auto (GStrv) args = g_strsplit (overloads[o], ";", -1);
      guint n_args = g_strv_length (args);
      gboolean vararg = n_args > 0 && g_str_has_suffix (args[n_args - 1], " ...");
      guint fixed = vararg ? n_args - 1 : n_args;
      if (k != fixed && !(vararg && k > fixed))
        continue;   /* a trace records every argument: only an exact count fits */
      guint i = 0;
      gboolean elements = FALSE;
      for (; i < k && i < fixed; i++)
        if (!kind_accepts (graph_value_type (graph_node_input (n, i)), args[i])
            || (elements = !list_elements_accept (graph_node_input (n, i), args[i])))
          break;
      if (i == k || i == fixed)
        return TRUE;
      if ((int) i > worst)
        {
          worst = (int) i;
          by_elements = FALSE;
          g_string_truncate (wanted, 0);
        }
      if ((int) i == worst)
        {
          by_elements |= elements;
          g_auto (GStrv) f = g_strsplit (args[i], " ", 3);
          if (g_strv_length (f) == 3)
            {
              g_autofree char *item = g_strdup_printf ("%s `%s`", f[2], f[1]);
              if (strstr (wanted->str, item) == NULL)
                g_string_append_printf (wanted, "%s%s", wanted->len ? ", " : "", item);
            }
        }
    }
  if (worst < 0)
    {
      /* within [min, max] yet no overload takes exactly k: a trace writes
       * defaults out, so such a node is malformed (symbolics read inputs at
       * fixed positions) */
      guint32 seen = 0, vararg_from = 32;   /* bit c: an overload takes c arguments */
      for (guint o = 0; overloads[o]; o++)
        {
          g_auto (GStrv) args = g_strsplit (overloads[o], ";", -1);
          guint c = g_strv_length (args);
          if (c > 0 && g_str_has_suffix (args[c - 1], " ..."))
            vararg_from = MIN (vararg_from, c - 1);
          else if (c < 32)
            seen |= 1u << c;
        }
      g_autoptr (GString) counts = g_string_new (NULL);
      for (guint c = 0; c < 32; c++)
        if ((seen & (1u << c)) && c < vararg_from)
          g_string_append_printf (counts, "%s%u", counts->len ? " or " : "", c);
      if (vararg_from < 32)
        g_string_append_printf (counts, "%s%u or more", counts->len ? " or " : "", vararg_from);
      g_autofree char *where = sym_node_location (n);
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "%s (%s) has %u input%s, but torch's schemas take %s (a trace writes every "
                   "argument, defaults too)", graph_node_kind (n), where, k, k == 1 ? "" : "s", counts->str);
      return FALSE;
    }
  GraphValue *v = graph_node_input (n, (guint) worst);
  g_autofree char *kind_of = declared_kind (v);
  g_autoptr (GString) elems = g_string_new (NULL);
  GraphNode *list = graph_value_node (v);
  if (by_elements && list && graph_node_is (list, "prim::ListConstruct"))
    for (guint i = 0; i < graph_node_n_inputs (list) && i < 4; i++)
      {
        GraphValue *e = graph_node_input (list, i);
        g_autofree char *ek = e ? declared_kind (e) : g_strdup ("absent");
        const char *en = e ? graph_value_get_name (e) : NULL;
        g_string_append_printf (elems, "%s%%%s (%s)%s", i ? ", " : " built from ", en ? en : "?", ek,
                                i == 3 && graph_node_n_inputs (list) > 4 ? ", ..." : "");
      }
  g_autofree char *got = g_strconcat (kind_of, elems->str, NULL);
  g_autofree char *where = sym_node_location (n);
  const char *name = graph_value_get_name (v);
  g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
               "%s (%s): input %d (%%%s) is %s, but torch's schemas take %s there",
               graph_node_kind (n), where, worst, name ? name : "?", got, wanted->str);
  return FALSE;
}
