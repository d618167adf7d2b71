/* Argument access shared by the ATen kernel files (runtime/k-aten*.c):
 * torch 1.13's layout, every schema argument an input, scalars 0-d
 * tensors, int[] 1-D int64 tensors (prim::ListConstruct of a trace, a
 * Constant of an ATen node), None an absent input.  A Tensor[] argument is
 * flattened into its elements, as torch's ATen fallback export does (and
 * `symonnx verify` does to a trace's prim::ListConstruct of tensors); the
 * kernel finds its length from the fixed arguments around it. */
#pragma once

#include "runtime/kernels-private.h"

static inline const RtTensor *
aten_arg (RtCall *call, guint i)
{
  return i < call->n_inputs ? call->inputs[i] : NULL;
}

static inline double
aten_f (RtCall *call, guint i, double def)
{
  const RtTensor *t = aten_arg (call, i);
  return t && t->numel == 1 ? rt_get_f64 (t, 0) : def;
}

static inline gint64
aten_i (RtCall *call, guint i, gint64 def)
{
  const RtTensor *t = aten_arg (call, i);
  return t && t->numel == 1 ? rt_get_i64 (t, 0) : def;
}

/* int[n] argument i into out: a list of n, or one value (0-d or a
 * 1-element list) repeated, as torch expands int[2] arguments.  Absent or
 * empty: def (FALSE when def is NULL). */
static inline gboolean
aten_ints (RtCall *call, guint i, guint n, const gint64 *def, gint64 *out, GError **error)
{
  const RtTensor *t = aten_arg (call, i);
  if (t == NULL || t->numel == 0)
    {
      if (def == NULL)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u (int[%u]) is missing", i, n);
          return FALSE;
        }
      for (guint k = 0; k < n; k++)
        out[k] = def[k];
      return TRUE;
    }
  if (!graph_dtype_is_integer (t->dtype) || t->rank > 1 || (t->numel != 1 && t->numel != n))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "argument %u must be %u integers (or one)", i, n);
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    out[k] = rt_get_i64 (t, t->numel == 1 ? 0 : k);
  return TRUE;
}

/* Whether t is float or double (what the BLAS-backed kernels take). */
static inline gboolean
aten_is_float (const RtTensor *t)
{
  return t && (t->dtype == GRAPH_DTYPE_FLOAT || t->dtype == GRAPH_DTYPE_DOUBLE);
}
