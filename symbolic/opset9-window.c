/* aten::hann_window (issue 12; torch 1.13 registers it in
 * symbolic_opset9.py).  With a constant length torch's export never runs
 * that symbolic: its constant propagation evaluates the op with PyTorch
 * and writes the window as a constant.  We write the same constant,
 * computed in double as sin²(π·n / N) (N − 1 when not periodic; [1] for
 * length 1, as PyTorch) and cast to the window's type.  A computed length
 * (torch's symbolic: arange, Mul, Div, Sin at run time) declines. */
#include "symbolic/opset-tables.h"
#include <math.h>

/* aten::hann_window(window_length, periodic?, dtype, layout, device,
 * pin_memory): the 5- and 6-argument overloads (periodic defaults TRUE). */
static gboolean
sym_hann_window (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 len;
  if (!sym_get_const_int (graph_node_input (n, 0), &len))
    /* torch 1.13: exports a computed length (arange, Mul by pi, Div, Sin, Mul); not yet here */
    return sym_unimplemented (ctx, n, error, "hann_window of a computed length");
  if (len < 0 || len > (1 << 24))
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
