/* Argument access shared by the ATen kernel files (runtime/k-aten*.c):
 * torch 1.13's layout, every schema argument an input, scalars 0-d
 * tensors, int[] 1-D int64 tensors (prim::ListConstruct of a trace, a
 * Constant of an ATen node), None an absent input.  A Tensor[] argument is
 * flattened into its elements, as torch's ATen fallback export does (and
 * `symonnx verify` does to a trace's prim::ListConstruct of tensors); the
 * kernel finds its length from the fixed arguments around it. */
#pragma once

#include "runtime/kernels-private.h"
#include <string.h>

static inline const RtTensor *
aten_arg (RtCall *call, guint i)
{
  return i < call->n_inputs ? call->inputs[i] : NULL;
}

/* cat's output dims: tensors 0 .. n-1 of the call (rank >= 1) joined
 * along dim, which *ax receives; each must have tensor 0's element type
 * and its dims outside ax (shared by aten::cat and quantized::cat). */
static inline gboolean
aten_cat_dims (RtCall *call, guint n, gint64 dim, guint *ax, gint64 *dims, GError **error)
{
  const RtTensor *first = aten_arg (call, 0);
  if (first == NULL || first->rank == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs tensors of rank >= 1");
      return FALSE;
    }
  if (!rt_axis (call, dim, first->rank, ax, error))
    return FALSE;
  memcpy (dims, first->dims, first->rank * sizeof (gint64));
  dims[*ax] = 0;
  for (guint i = 0; i < n; i++)
    {
      const RtTensor *t = aten_arg (call, i);
      gboolean ok = t && t->dtype == first->dtype && t->rank == first->rank;
      for (guint d = 0; ok && d < first->rank; d++)
        ok = d == *ax || t->dims[d] == first->dims[d];
      if (!ok)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "tensor %u's type or shape does not match tensor 0's outside dim %u", i, *ax);
          return FALSE;
        }
      dims[*ax] += t->dims[*ax];
    }
  return TRUE;
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

/* str argument i (a 0-d STRING tensor), or def when absent. */
static inline const char *
aten_s (RtCall *call, guint i, const char *def, gsize *len)
{
  const RtTensor *t = aten_arg (call, i);
  if (t == NULL || t->dtype != GRAPH_DTYPE_STRING || t->numel != 1)
    {
      *len = def ? strlen (def) : 0;
      return def;
    }
  GBytes *b = ((GBytes *const *) t->data)[0];
  if (b == NULL)
    {
      *len = 0;
      return "";
    }
  return g_bytes_get_data (b, len);
}

/* Whether str argument i is `want` (def when absent). */
static inline gboolean
aten_s_is (RtCall *call, guint i, const char *def, const char *want)
{
  gsize len;
  const char *s = aten_s (call, i, def, &len);
  return s && len == strlen (want) && memcmp (s, want, len) == 0;
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

static inline int
aten_dtype_rank (GraphDType d)
{
  int r = graph_dtype_promotion_rank (d);
  return r < 0 ? 8 : r;   /* other types win, as a kernel then refuses them */
}

/* torch.result_type for two operands (dimensioned tensors win over 0-d
 * ones of the same category; a float 0-d with an integer tensor gives the
 * default float type). */
static inline GraphDType
aten_result_type (const RtTensor *a, const RtTensor *b)
{
  gboolean af = graph_dtype_is_floating (a->dtype), bf = graph_dtype_is_floating (b->dtype);
  gboolean a0 = a->rank == 0, b0 = b->rank == 0;
  if (a0 != b0)
    {
      const RtTensor *dim = a0 ? b : a, *zero = a0 ? a : b;
      gboolean df = graph_dtype_is_floating (dim->dtype), zf = graph_dtype_is_floating (zero->dtype);
      if (df || !zf)
        return (dim->dtype == GRAPH_DTYPE_BOOL && zero->dtype != GRAPH_DTYPE_BOOL) ? zero->dtype : dim->dtype;
      return GRAPH_DTYPE_FLOAT;
    }
  if (af != bf)
    return af ? a->dtype : b->dtype;
  return aten_dtype_rank (a->dtype) >= aten_dtype_rank (b->dtype) ? a->dtype : b->dtype;
}

/* The result type of an arithmetic node: `computed` (aten_result_type of
 * its operands), or the type the node's output 0 is declared with where
 * both are floating (or both integer) and differ.  A trace declares
 * torch's own result type, which knows what the operands here do not: a
 * 0-d Double constant that stands for a Python number (x.reciprocal() *
 * 320 in torchvision's transform) does not widen a Float. */
static inline GraphDType
aten_declared_dtype (RtCall *call, GraphDType computed)
{
  if (call->node == NULL || graph_node_n_outputs (call->node) == 0)
    return computed;
  GraphType *t = graph_value_type (graph_node_output (call->node, 0));
  GraphDType d = t && graph_type_is_tensor (t) ? graph_type_dtype (t) : GRAPH_DTYPE_UNDEFINED;
  if (d == GRAPH_DTYPE_UNDEFINED || d == computed)
    return computed;
  if ((graph_dtype_is_floating (d) && graph_dtype_is_floating (computed))
      || (graph_dtype_is_integer (d) && d != GRAPH_DTYPE_BOOL && graph_dtype_is_integer (computed)
          && computed != GRAPH_DTYPE_BOOL))
    return d;
  return computed;
}

/* `t` converted to `dt` in scratch buffer `which` (or `t` itself). */
static inline gboolean
aten_as_dtype (RtCall *call, const RtTensor *t, GraphDType dt, guint which, RtTensor *out, GError **error)
{
  *out = *t;
  if (t->dtype == dt)
    return TRUE;
  out->dtype = dt;
  out->data = rt_call_scratch_n (call, which, (gsize) MAX (t->numel, 1) * rt_dtype_size (dt), error);
  return out->data && rt_convert (t->data, t->dtype, out->data, dt, t->numel);
}

/* c10::ScalarType codes → element types. */
static inline gboolean
aten_scalar_type (gint64 code, GraphDType *out)
{
  static const int map[] = {
    GRAPH_DTYPE_UINT8, GRAPH_DTYPE_INT8, GRAPH_DTYPE_INT16, GRAPH_DTYPE_INT32, GRAPH_DTYPE_INT64,
    GRAPH_DTYPE_FLOAT16, GRAPH_DTYPE_FLOAT, GRAPH_DTYPE_DOUBLE, -1, -1, -1, GRAPH_DTYPE_BOOL,
  };
  if (code < 0 || code >= (gint64) G_N_ELEMENTS (map) || map[code] < 0)
    return FALSE;
  *out = (GraphDType) map[code];
  return TRUE;
}

/* The ScalarType argument i (def when absent) and the int[] size argument
 * i (no negative sizes), with an error naming the argument
 * (k-aten-create.c). */
gboolean aten_dtype_arg (RtCall *call, guint i, GraphDType def, GraphDType *dt, GError **error);
gboolean aten_size_arg (RtCall *call, guint i, guint *rank, gint64 *dims, GError **error);

/* Element-wise loops of the ATen kernels (runtime/k-aten-math.c) for what
 * ONNX's element-wise kernels do not compute.  Floating outputs are
 * computed in double by the F functions (params: the kernel's scalars);
 * integer and bool outputs in int64 by the I ones, when given (an I
 * function returns FALSE for a division by zero). */
typedef double   (*AtenF1) (double x, const double *params);
typedef gint64   (*AtenI1) (gint64 x);
typedef double   (*AtenFn) (const double *x, const double *params);
typedef gboolean (*AtenIn) (const gint64 *x, gint64 *result);
/* Output 0 (out_dt, a's shape) := f(a) element by element. */
gboolean aten_map1 (RtCall *call, const RtTensor *a, GraphDType out_dt, AtenF1 f, AtenI1 fi,
                    const double *params, GError **error);
/* Output 0 (out_dt) := f(ts[0][i], ..., ts[n-1][i]) with numpy broadcasting,
 * n at most 3. */
gboolean aten_mapn (RtCall *call, guint n, const RtTensor *const *ts, GraphDType out_dt, AtenFn f,
                    AtenIn fi, const double *params, GError **error);
/* Output 0 := maximum (max) or minimum of arguments 0 and 1, torch's
 * promotion, NaN propagated (aten::maximum; aten::max(self, other)). */
gboolean aten_elementwise_extreme (RtCall *call, gboolean max, GError **error);
/* Outputs := the indices of argument 0's nonzero elements, one 1-D int64
 * tensor per dim (nonzero_numpy; where with one argument). */
gboolean aten_nonzero_numpy (RtCall *call, GError **error);
/* Output 0 := arguments 0 / 1 rounded down (floor_mode) or toward zero,
 * torch's promotion (integers stay integers): div's rounding_mode. */
gboolean aten_div_rounded (RtCall *call, gboolean floor_mode, GError **error);

/* Argument i as a tensor (not a sequence, not absent), else an error. */
static inline gboolean
aten_tensor_arg (RtCall *call, guint i, const RtTensor **t, GError **error)
{
  *t = aten_arg (call, i);
  if (*t == NULL || (*t)->kind != RT_KIND_TENSOR)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a tensor", i);
      return FALSE;
    }
  return TRUE;
}

/* Contiguous (element) strides of a. */
static inline void
aten_strides (const RtTensor *a, gint64 *strides)
{
  rt_contiguous_strides (a->rank, a->dims, strides);
}
