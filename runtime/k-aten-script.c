/* TorchScript's own operators, as scripted code inside a trace records
 * them (torchvision's @torch.jit._script_if_tracing helpers: Mask R-CNN's
 * paste-masks loop, Keypoint R-CNN's heatmaps loop, and the checks
 * F.interpolate makes): `is`/`is not` None, `in` on a list, a str.format
 * for an error message, list(), range()'s trip count and loop variable, and
 * prim::RaiseException.  Only the
 * trace's run (`symonnx verify` without --expected) executes them; an
 * export never emits them as ATen nodes.  Numbers are 0-d tensors, int[]
 * and str[] 1-D tensors, None an absent input (runtime/k-aten-private.h). */
#include "runtime/k-aten-private.h"
#include <stdio.h>

/* prim::RaiseException(str msg, str? cls): reached only when the branch
 * that raises is taken (If runs one branch), so the run stops here as
 * PyTorch's would. */
static gboolean
p_raise (RtCall *call, GError **error)
{
  gsize len = 0, clen = 0;
  const char *msg = aten_s (call, 0, "", &len);
  const char *cls = aten_s (call, 1, "Exception", &clen);
  rt_call_error (call, error, RT_ERROR_FAILED, "the scripted code raised %.*s: %.*s", (int) clen,
                 cls, (int) len, msg);
  return FALSE;
}

/* a is None / a is not None: TorchScript writes `is` for None tests;
 * identity of two present values cannot be told from their contents, so
 * that is refused. */
static gboolean
is_none_test (RtCall *call, gboolean negate, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *b = aten_arg (call, 1);
  if (a != NULL && b != NULL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                     "'is' between two values that are not None cannot be executed");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_BOOL, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  gboolean same = a == NULL && b == NULL;
  *(guint8 *) o->data = negate ? !same : same;
  return TRUE;
}

static gboolean p_is (RtCall *c, GError **e) { return is_none_test (c, FALSE, e); }
static gboolean p_isnot (RtCall *c, GError **e) { return is_none_test (c, TRUE, e); }

static gboolean
string_at (const RtTensor *t, gint64 i, const char **s, gsize *len)
{
  GBytes *b = ((GBytes *const *) t->data)[i];
  *s = b ? g_bytes_get_data (b, len) : "";
  if (b == NULL)
    *len = 0;
  return TRUE;
}

/* aten::__contains__(list, x): x in a str[] or a list of numbers. */
static gboolean
p_contains (RtCall *call, GError **error)
{
  const RtTensor *l = aten_arg (call, 0), *x = aten_arg (call, 1);
  if (l == NULL || x == NULL || l->rank != 1 || x->rank != 0
      || (l->dtype == GRAPH_DTYPE_STRING) != (x->dtype == GRAPH_DTYPE_STRING))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                     "only 'x in list' of a str in a str[] or a number in a list of numbers can be "
                     "executed");
      return FALSE;
    }
  gboolean found = FALSE;
  for (gint64 i = 0; i < l->numel && !found; i++)
    if (l->dtype == GRAPH_DTYPE_STRING)
      {
        const char *a, *b;
        gsize la, lb;
        string_at (l, i, &a, &la);
        string_at (x, 0, &b, &lb);
        found = la == lb && memcmp (a, b, la) == 0;
      }
    else
      found = rt_get_f64 (l, i) == rt_get_f64 (x, 0);
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_BOOL, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  *(guint8 *) o->data = found;
  return TRUE;
}

/* One argument of str.format as Python prints it: None, a number, a str,
 * a list as [a, b]. */
static void
append_arg (GString *s, const RtTensor *t)
{
  if (t == NULL)
    {
      g_string_append (s, "None");
      return;
    }
  if (t->rank > 0)
    g_string_append_c (s, '[');
  for (gint64 i = 0; i < t->numel; i++)
    {
      if (i)
        g_string_append (s, ", ");
      if (t->dtype == GRAPH_DTYPE_STRING)
        {
          const char *p;
          gsize len;
          string_at (t, i, &p, &len);
          g_string_append_len (s, p, (gssize) len);
        }
      else if (t->dtype == GRAPH_DTYPE_BOOL)
        g_string_append (s, rt_get_i64 (t, i) ? "True" : "False");
      else if (graph_dtype_is_floating (t->dtype))
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append (s, g_ascii_dtostr (buf, sizeof buf, rt_get_f64 (t, i)));
        }
      else
        g_string_append_printf (s, "%" G_GINT64_FORMAT, rt_get_i64 (t, i));
    }
  if (t->rank > 0)
    g_string_append_c (s, ']');
}

/* aten::format(str self, ...): each "{}" takes the next argument (the
 * message of an exception the scripted code may raise). */
static gboolean
p_format (RtCall *call, GError **error)
{
  const RtTensor *f = aten_arg (call, 0);
  if (f == NULL || f->dtype != GRAPH_DTYPE_STRING || f->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "the format must be a str");
      return FALSE;
    }
  gsize len;
  const char *p;
  string_at (f, 0, &p, &len);
  g_autoptr (GString) s = g_string_new (NULL);
  guint next = 1;
  for (gsize i = 0; i < len; i++)
    if (p[i] == '{' && i + 1 < len && p[i + 1] == '}')
      {
        append_arg (s, next < call->n_inputs ? call->inputs[next] : NULL);
        next++;
        i++;
      }
    else
      g_string_append_c (s, p[i]);
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_STRING, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  gsize n = s->len;
  ((GBytes **) o->data)[0] = rt_call_keep_string (call, g_bytes_new_take (g_string_free (g_steal_pointer (&s), FALSE), n));
  return TRUE;
}

/* aten::list(t[] l): a copy of a list of numbers or strs. */
static gboolean
p_list (RtCall *call, GError **error)
{
  const RtTensor *l = aten_arg (call, 0);
  if (l == NULL || l->rank != 1)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "only list() of a list can be executed");
      return FALSE;
    }
  return rt_call_output_value (call, 0, l, error);
}

static gboolean
int_result (RtCall *call, gint64 v, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 0, NULL, error);
  if (o)
    *(gint64 *) o->data = v;
  return o != NULL;
}

/* aten::__range_length(lo, hi, step): the trip count of `for i in
 * range(lo, hi, step)`, as torch computes it (a zero step raises). */
static gboolean
p_range_length (RtCall *call, GError **error)
{
  gint64 lo = aten_i (call, 0, 0), hi = aten_i (call, 1, 0), step = aten_i (call, 2, 0);
  if (step == 0)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "range() arg 3 must not be zero");
      return FALSE;
    }
  /* in unsigned arithmetic: hi - lo of two int64s can overflow int64 */
  guint64 n = 0;
  if (step > 0 && lo < hi)
    n = 1 + ((guint64) hi - 1 - (guint64) lo) / (guint64) step;
  else if (step < 0 && lo > hi)
    n = 1 + ((guint64) lo - 1 - (guint64) hi) / (0 - (guint64) step);
  return int_result (call, (gint64) n, error);
}

/* aten::__derive_index(index, start, step): the loop variable of
 * iteration `index` of range(start, ..., step). */
static gboolean
p_derive_index (RtCall *call, GError **error)
{
  guint64 index = (guint64) aten_i (call, 0, 0), start = (guint64) aten_i (call, 1, 0);
  guint64 step = (guint64) aten_i (call, 2, 0);
  return int_result (call, (gint64) (start + index * step), error);   /* wraps as torch's int64 */
}

static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("__range_length", 3, 3, p_range_length), RT_ATEN_ROW ("__derive_index", 3, 3, p_derive_index),
  { RT_DOMAIN ("prim", "RaiseException", 0), RT_IN (1, 2), RT_OUT (0, 0), .run = p_raise },
  RT_ATEN_ROW ("__is__", 2, 2, p_is), RT_ATEN_ROW ("__isnot__", 2, 2, p_isnot),
  RT_ATEN_ROW ("__contains__", 2, 2, p_contains), RT_ATEN_ROW ("format", 1, RT_VARIADIC, p_format),
  RT_ATEN_ROW ("list", 1, 1, p_list),
};

RT_KERNEL_TABLE (rt_kernels_aten_script, defs);
