/* rt_compare: numpy.testing.assert_allclose's test, with a report. */
#include "runtime/kernel.h"
#include <math.h>

gboolean
rt_compare (const Tensor *expected, const Tensor *actual, double rtol, double atol,
            gboolean nan_equal, RtCompareResult *result)
{
  RtCompareResult r = { 0, 0, 0, -1, FALSE };
  gboolean same_shape = tensor_dtype (expected) == tensor_dtype (actual)
                        && tensor_rank (expected) == tensor_rank (actual);
  for (guint i = 0; same_shape && i < tensor_rank (expected); i++)
    same_shape = tensor_dim (expected, i) == tensor_dim (actual, i);
  if (!same_shape || !tensor_has_data (expected) || !tensor_has_data (actual))
    {
      r.shape_mismatch = TRUE;
      if (result)
        *result = r;
      return FALSE;
    }
  gint64 n = tensor_numel (expected);
  GraphDType dt = tensor_dtype (expected);
  gboolean exact = !graph_dtype_is_floating (dt);
  for (gint64 i = 0; i < n; i++)
    {
      gboolean bad;
      double e, a;
      if (dt == GRAPH_DTYPE_STRING)
        {
          /* Strings: equal bytes; the errors stay 0. */
          e = a = 0;
          bad = !g_bytes_equal (tensor_string (expected, i), tensor_string (actual, i));
        }
      else if (exact)
        {
          gint64 ei = tensor_get_int64 (expected, i), ai = tensor_get_int64 (actual, i);
          e = (double) ei;
          a = (double) ai;
          bad = ei != ai;
        }
      else
        {
          e = tensor_get_double (expected, i);
          a = tensor_get_double (actual, i);
          if (isnan (e) || isnan (a))
            bad = !(nan_equal && isnan (e) && isnan (a));
          else if (isinf (e) || isinf (a))
            bad = e != a;
          else
            bad = fabs (a - e) > atol + rtol * fabs (e);
        }
      if (!isnan (e) && !isnan (a) && !isinf (e) && !isinf (a))
        {
          double d = fabs (a - e);
          r.max_abs_error = MAX (r.max_abs_error, d);
          if (e != 0)
            r.max_rel_error = MAX (r.max_rel_error, d / fabs (e));
        }
      if (bad)
        {
          if (r.first_mismatch < 0)
            r.first_mismatch = i;
          r.mismatches++;
        }
    }
  if (result)
    *result = r;
  return r.mismatches == 0;
}

char *
rt_compare_result_to_string (const RtCompareResult *r, const Tensor *expected,
                             const Tensor *actual)
{
  if (r->shape_mismatch)
    {
      g_autoptr (GString) s = g_string_new ("shape or type mismatch: expected ");
      const Tensor *ts[2] = { expected, actual };
      for (guint k = 0; k < 2; k++)
        {
          g_string_append_printf (s, "%s%s(", k ? ", got " : "",
                                  graph_dtype_name (tensor_dtype (ts[k])));
          for (guint i = 0; i < tensor_rank (ts[k]); i++)
            g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", tensor_dim (ts[k], i));
          g_string_append (s, ")");
        }
      return g_string_free (g_steal_pointer (&s), FALSE);
    }
  if (r->first_mismatch < 0)
    return g_strdup_printf ("max abs error %.3g, max rel error %.3g, 0 mismatches",
                            r->max_abs_error, r->max_rel_error);
  return g_strdup_printf ("max abs error %.3g, max rel error %.3g, %" G_GINT64_FORMAT
                          " of %" G_GINT64_FORMAT " elements differ, first at index %"
                          G_GINT64_FORMAT " (expected %.9g, got %.9g)",
                          r->max_abs_error, r->max_rel_error, r->mismatches,
                          tensor_numel (expected), r->first_mismatch,
                          tensor_get_double (expected, r->first_mismatch),
                          tensor_get_double (actual, r->first_mismatch));
}
