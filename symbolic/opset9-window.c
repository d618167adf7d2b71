/* aten::hann_window (issue 12; torch 1.13 registers it in
 * symbolic_opset9.py).  With a constant length torch's export never runs
 * that symbolic: its constant propagation evaluates the op with PyTorch
 * and writes the window as a constant.  We write the same constant,
 * computed in double as sin²(π·n / N) (N − 1 when not periodic; [1] for
 * length 1, as PyTorch) and cast to the window's type.  A computed length
 * (torch's symbolic: arange, Mul, Div, Sin at run time), from opset 11:
 * PyTorch's own formula in the window's type, 0.5 − 0.5·cos(n · 2π/N), with
 * [1] for length 1. */
#include "symbolic/opset-tables.h"
#include <math.h>

/* The window of a length known only at run time, as PyTorch computes it
 * (hamming_window with alpha = beta = 0.5): n = 0..N-1 in the window's type,
 * 0.5 − 0.5·cos(n · 2π/d) with d = N (periodic) or N − 1, the factor
 * computed in double; ones for N = 1. */
static gboolean
hann_computed (SymContext *ctx, GraphNode *n, gboolean periodic, GraphDType dt, GraphValue **out,
               GError **error)
{
  Graph *g = sym_graph (ctx);
  GraphValue *len = sym_value (ctx, graph_node_input (n, 0), error);
  if (len == NULL)
    return FALSE;
  if (sym_rank (len) != 0)
    /* torch 1.13: also refuses (the length is an int) */
    return sym_unimplemented (ctx, n, error, "a window length that is not a scalar");
  if (sym_dtype (len) != GRAPH_DTYPE_INT64)
    len = sym_cast (ctx, len, GRAPH_DTYPE_INT64);
  GraphValue *idx = sym_iota (ctx, len);
  if (idx == NULL)
    return FALSE;
  GraphValue *d = periodic ? len : graph_op (g, "Sub", len, sym_const_i64 (ctx, 1), NULL);
  sym_set_type (d, GRAPH_DTYPE_INT64, 0, NULL);
  GraphValue *step = graph_op (g, "Div", sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, 2.0 * G_PI),
                               sym_cast (ctx, d, GRAPH_DTYPE_DOUBLE), NULL);
  sym_set_type (step, GRAPH_DTYPE_DOUBLE, 0, NULL);
  GraphValue *x = graph_op (g, "Mul", sym_cast (ctx, idx, dt), sym_cast (ctx, step, dt), NULL);
  sym_set_type (x, dt, 1, NULL);
  GraphValue *c = graph_op (g, "Cos", x, NULL);
  sym_set_type (c, dt, 1, NULL);
  GraphValue *w = graph_op (g, "Sub", sym_const_scalar (ctx, dt, 0.5),
                            graph_op (g, "Mul", c, sym_const_scalar (ctx, dt, 0.5), NULL), NULL);
  sym_set_type (w, dt, 1, NULL);
  GraphValue *one = graph_op (g, "Equal", len, sym_const_i64 (ctx, 1), NULL);
  out[0] = graph_op (g, "Where", one, sym_const_scalar (ctx, dt, 1.0), w, NULL);
  return TRUE;
}

/* aten::hann_window(window_length, periodic?, dtype, layout, device,
 * pin_memory): the 5- and 6-argument overloads (periodic defaults TRUE). */
static gboolean
sym_hann_window (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 len;
  gboolean computed = !sym_get_const_int (graph_node_input (n, 0), &len);
  if (!computed && (len < 0 || len > (1 << 24)))
    /* torch 1.13: exports any length (PyTorch rejects a negative one); not yet here (over symonnx's
     * constant limit) */
    return sym_unimplemented (ctx, n, error, "hann_window of length %" G_GINT64_FORMAT, len);
  /* hann_window(N, dtype, ...) has 5 inputs; hann_window(N, periodic, dtype, ...) 6 */
  gboolean six = graph_node_n_inputs (n) >= 6, periodic = TRUE;
  if (six && !sym_get_const_bool (graph_node_input (n, 1), &periodic))
    /* torch 1.13: treats a computed periodic as True (its `is False` test); refused here because
     * PyTorch reads its value */
    return sym_unimplemented (ctx, n, error, "hann_window with a computed `periodic`");
  GraphDType traced = sym_dtype (graph_node_output (n, 0));
  GraphDType dt = sym_scalar_type (graph_node_input (n, six ? 2 : 1),
                                   graph_dtype_is_floating (traced) ? traced : GRAPH_DTYPE_FLOAT);
  if (!graph_dtype_is_floating (dt))
    /* torch 1.13: also refuses (PyTorch's hann_window needs a floating dtype) */
    return sym_unimplemented (ctx, n, error, "hann_window of a non-floating type");
  if (computed)
    return hann_computed (ctx, n, periodic, dt, out, error);
  g_autofree double *v = g_new (double, MAX (len, 1));
  double denom = (double) (periodic ? len : len - 1);
  for (gint64 i = 0; i < len; i++)
    {
      double s = sin (G_PI * (double) i / denom);
      v[i] = len == 1 ? 1.0 : s * s;
    }
  return (out[0] = sym_const_doubles (ctx, dt, 1, &len, v, error)) != NULL;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::hann_window", sym_hann_window),
};
const SymTable sym_opset9_window = SYM_TABLE (9, entries);
