/* Opset 9: names torch 1.13 registers a symbolic for that only refuses
 * (outside caffe2's ATen fallback, which symonnx's --mode aten-fallback
 * stands for: a declined node becomes an ATen node there) or writes a node
 * ONNX does not define.  Each refuses with torch's reason, so an export
 * says why rather than "no symbolic"; _unique and _unique2 export from
 * opset 11 (opset11-extra.c). */
#include "symbolic/opset-tables.h"

/* aten::_unique(self, sorted, return_inverse), aten::_unique2(self,
 * sorted, return_inverse, return_counts) before opset 11 */
static gboolean
sym_unique_before11 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  /* torch 1.13: also refuses (_onnx_unsupported / _onnx_opset_unsupported: ONNX's Unique is opset 11) */
  return sym_unimplemented (ctx, n, error, "%s needs ONNX's Unique, which starts at opset 11: export "
                            "with opset 11 or later", sym_op_short_name (graph_node_kind (n)));
}

/* aten::_sample_dirichlet(self, generator), aten::_standard_gamma(self,
 * generator): samples of the Dirichlet and Gamma distributions */
static gboolean
sym_sample_dirichlet (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  /* torch 1.13: also refuses (_onnx_unsupported outside caffe2's ATen fallback: ONNX has no
   * Dirichlet sampling) */
  return sym_unimplemented (ctx, n, error, "Dirichlet sampling (ONNX has no such random op)");
}

static gboolean
sym_standard_gamma (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  /* torch 1.13: also refuses (_onnx_unsupported outside caffe2's ATen fallback: ONNX has no Gamma
   * sampling) */
  return sym_unimplemented (ctx, n, error, "Gamma sampling (ONNX has no such random op)");
}

/* aten::_cast_ComplexFloat / _cast_ComplexDouble(self, non_blocking):
 * torch's _cast_ family lists them, though torch 1.13 has no such
 * operator to trace. */
static gboolean
sym_cast_complex (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  /* torch 1.13: writes Cast to=14/15 (complex64/complex128); refused here because ONNX's Cast has
   * no complex types (nor has symonnx's executor) and torch 1.13 has no such operator */
  return sym_unimplemented (ctx, n, error, "a cast to a complex type (ONNX's Cast has none)");
}

static const SymEntry entries[] = {
  SYM_REFUSED ("aten::_unique", sym_unique_before11),
  SYM_REFUSED ("aten::_unique2", sym_unique_before11),
  SYM_REFUSED ("aten::_sample_dirichlet", sym_sample_dirichlet),
  SYM_REFUSED ("aten::_standard_gamma", sym_standard_gamma),
  SYM_REFUSED ("aten::_cast_ComplexFloat", sym_cast_complex),
  SYM_REFUSED ("aten::_cast_ComplexDouble", sym_cast_complex),
};
const SymTable sym_opset9_refused = SYM_TABLE (9, entries);
