/* String tensors: StringNormalizer, and Cast / CastLike to and from
 * STRING (rt_cast_string).  Elements are `GBytes *` (NULL: ""). */
#include "runtime/kernels-private.h"
#include <math.h>
#include <string.h>

static const char *
str_at (const RtTensor *t, gint64 i, gsize *len)
{
  GBytes *b = ((GBytes *const *) t->data)[i];
  if (b == NULL)
    {
      *len = 0;
      return "";
    }
  return g_bytes_get_data (b, len);
}

/* Shortest text that reads back as the same value, as numpy's str()
 * prints float32/float64 ("0.47892547", "1.0", "nan", "inf"). */
static char *
format_float (double v, gboolean single)
{
  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  char *buf = graph_float_to_shortest (single ? GRAPH_DTYPE_FLOAT : GRAPH_DTYPE_DOUBLE, v);
  if (strpbrk (buf, ".e") == NULL)
    {
      char *dotted = g_strconcat (buf, ".0", NULL);
      g_free (buf);
      return dotted;
    }
  return buf;
}

gboolean
rt_cast_string (RtCall *call, const RtTensor *a, GraphDType to, GError **error)
{
  if (a->dtype == GRAPH_DTYPE_STRING && to == GRAPH_DTYPE_STRING)
    {
      RtTensor *o = rt_call_output (call, 0, to, a->rank, a->dims, error);
      if (o && a->numel)
        memcpy (o->data, a->data, (gsize) a->numel * sizeof (GBytes *));
      return o != NULL;
    }
  if (to != GRAPH_DTYPE_STRING
      && (!graph_dtype_is_valid ((int) to) || !((RT_DT_ALL | RT_DT (FLOAT16)) & (1u << to))))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "cannot cast strings to %s",
                     graph_dtype_name (to));
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, to, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (to);
  for (gint64 i = 0; i < a->numel; i++)
    {
      if (to == GRAPH_DTYPE_STRING)
        {
          char *s;
          if (a->dtype == GRAPH_DTYPE_FLOAT || a->dtype == GRAPH_DTYPE_DOUBLE || a->dtype == GRAPH_DTYPE_FLOAT16)
            s = format_float (rt_get_f64 (a, i), a->dtype != GRAPH_DTYPE_DOUBLE);
          else if (a->dtype == GRAPH_DTYPE_BOOL)
            s = g_strdup (rt_get_i64 (a, i) ? "True" : "False");
          else if (a->dtype == GRAPH_DTYPE_UINT64)
            s = g_strdup_printf ("%" G_GUINT64_FORMAT, ((const guint64 *) a->data)[i]);
          else
            s = g_strdup_printf ("%" G_GINT64_FORMAT, rt_get_i64 (a, i));
          ((GBytes **) o->data)[i] = rt_call_keep_string (call, g_bytes_new_take (s, strlen (s)));
          continue;
        }
      /* Parse (NUL-terminated copy: the bytes need not be). */
      gsize len;
      const char *src = str_at (a, i, &len);
      g_autofree char *s = g_strndup (src, len);
      char *end = NULL;
      if (graph_dtype_is_integer (to) || to == GRAPH_DTYPE_BOOL)
        {
          gint64 v = g_ascii_strtoll (s, &end, 10);
          if (end == s)
            v = (gint64) g_ascii_strtod (s, &end);
          rt_convert (&v, GRAPH_DTYPE_INT64, (char *) o->data + i * (gint64) es, to, 1);
        }
      else
        {
          double v = g_ascii_strtod (s, &end);
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, to, 1);
        }
      if (end == s)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "element %" G_GINT64_FORMAT
                         " ('%s') is not a number", i, s);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
str_in (const char *s, gsize len, const char *const *words, gsize n, gboolean case_sensitive)
{
  g_autofree char *folded = case_sensitive ? NULL : g_utf8_casefold (s, (gssize) len);
  for (gsize i = 0; i < n; i++)
    {
      if (case_sensitive)
        {
          if (strlen (words[i]) == len && memcmp (words[i], s, len) == 0)
            return TRUE;
        }
      else
        {
          g_autofree char *w = g_utf8_casefold (words[i], -1);
          if (strcmp (w, folded) == 0)
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
k_string_normalizer (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  const char *action = rt_attr_s (call->node, "case_change_action", "NONE");
  gboolean cs = rt_attr_i (call->node, "is_case_sensitive", 0) != 0;
  gsize nstop = 0;
  const char *const *stop = NULL;
  if (graph_node_has_attr (call->node, "stopwords"))
    graph_node_get_ss (call->node, "stopwords", &nstop, &stop);
  int change = strcmp (action, "LOWER") == 0 ? 1 : strcmp (action, "UPPER") == 0 ? 2
             : strcmp (action, "NONE") == 0 ? 0 : -1;
  if (change < 0 || (x->rank != 1 && !(x->rank == 2 && x->dims[0] == 1)))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "needs case_change_action LOWER, UPPER or NONE and an input of shape (C) or (1, C)");
      return FALSE;
    }
  gint64 kept = 0;
  for (gint64 i = 0; i < x->numel; i++)
    {
      gsize len;
      const char *s = str_at (x, i, &len);
      if (!g_utf8_validate (s, (gssize) len, NULL))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "element %" G_GINT64_FORMAT
                         " is not UTF-8", i);
          return FALSE;
        }
      kept += !str_in (s, len, stop, nstop, cs);
    }
  /* Everything removed: one empty string. */
  gint64 dims[2] = { 1, MAX (kept, 1) };
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_STRING, x->rank, dims + (x->rank == 1), error);
  if (o == NULL)
    return FALSE;
  GBytes **out = o->data;
  gint64 k = 0;
  for (gint64 i = 0; i < x->numel; i++)
    {
      gsize len;
      const char *s = str_at (x, i, &len);
      if (str_in (s, len, stop, nstop, cs))
        continue;
      char *c = change == 1 ? g_utf8_strdown (s, (gssize) len)
              : change == 2 ? g_utf8_strup (s, (gssize) len) : g_strndup (s, len);
      out[k++] = rt_call_keep_string (call, g_bytes_new_take (c, strlen (c)));
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("StringNormalizer", 10), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT (STRING), .run = k_string_normalizer },
};

RT_KERNEL_TABLE (rt_kernels_string, defs);
