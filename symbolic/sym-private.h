/* symonnx — symbolic/ internals shared with export/ (not installed). */
#pragma once

#include "symbolic/symbolic.h"

G_BEGIN_DECLS

/* One built-in table: the entries an opset adds or changes. */
typedef struct
{
  int             version;
  const SymEntry *entries;
  gsize           n_entries;
} SymTable;

/* Each opsetN file defines its table once: `const SymTable sym_opset11 =
 * SYM_TABLE (11, entries);`, and registry.c lists the tables. */
#define SYM_TABLE(version, entries) { version, entries, G_N_ELEMENTS (entries) }

/* Table lines.  SYM_FN: a symbolic of its own.  SYM_DATA: a family body
 * that reads its constant through sym_user_data().  SYM_ONNX: an aten op
 * that is one ONNX op on its single tensor argument ("aten::abs" → Abs).
 * SYM_REDUCE: aten::sum-style (self, dims?, keepdim?, dtype?) reductions. */
#define SYM_FN(name_, fn_)          { .name = (name_), .fn = (fn_), .data = NULL }
#define SYM_DATA(name_, fn_, data_) { .name = (name_), .fn = (fn_), .data = (data_) }
#define SYM_ONNX(name_, onnx_op)    SYM_DATA (name_, sym_onnx_unary, (onnx_op))
#define SYM_REDUCE(name_, onnx_op)  SYM_DATA (name_, sym_reduce_dims, (onnx_op))
/* aten::_cast_Float(self, non_blocking) style: Cast to GRAPH_DTYPE_<dt>. */
#define SYM_CAST(name_, dt)         SYM_DATA (name_, sym_cast_to, &(const GraphDType) { GRAPH_DTYPE_##dt })

/* Family bodies shared by table lines (opset9-math.c). */
gboolean     sym_onnx_unary (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_reduce_dims (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_cast_to (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);

extern const SymTable sym_opset9_math, sym_opset9_reduce, sym_opset9_nn, sym_opset9_shape,
                      sym_opset9_index, sym_opset9_create, sym_opset9_misc, sym_opset9_rnn,
                      sym_opset10, sym_opset11, sym_opset12, sym_opset13, sym_opset14,
                      sym_opset16, sym_opset17;

/* Helpers shared between the opset-9 files. */
/* A 1-element 1-D float constant, as torch's torch.tensor([v]) (opset9-math.c). */
GraphValue  *sym_float_1d (SymContext *ctx, double v);
/* ConstantOfShape of `shape` filled with `value` in `dt` (opset9-create.c). */
GraphValue  *sym_constant_of_shape (SymContext *ctx, GraphValue *shape, GraphDType dt, double value);
/* A constant of `dims` filled with v in dt, or NULL when too large (opset9-create.c). */
GraphValue  *sym_const_filled (SymContext *ctx, gsize rank, const gint64 *dims, GraphDType dt,
                               double v);
/* Symbolics listed again by a later opset's table, whose translation
 * depends on the target opset (defined in the opset-9 files). */
gboolean     sym_layer_norm_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_scatter_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_frobenius_norm_any (SymContext *ctx, GraphNode *n, GraphValue **out,
                                     GError **error);

/* ---- the translation context (driven by export/) ------------------------ */

typedef struct
{
  SymRegistry *reg;
  Graph       *src;        /* aten/prim graph (not modified) */
  Graph       *dst;        /* ONNX graph being built */
  int          opset;
  SymMode      mode;
  /* name → Tensor* (state_dict), may be NULL */
  GHashTable  *weights;
  /* TRUE: a weight missing from `weights` is an error; FALSE: it becomes
   * a graph input of its traced type (export_params = False). */
  gboolean     require_weights;
} SymContextSetup;

SymContext  *sym_context_new (const SymContextSetup *setup);
void         sym_context_free (SymContext *ctx);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SymContext, sym_context_free)

/* Translates one source node into dst.  Returns FALSE with an error for an
 * unconvertible node; the caller collects them.  prim:: nodes are handled
 * here too (lowering). */
gboolean     sym_context_translate (SymContext *ctx, GraphNode *n, GError **error);
/* The list elements recorded for a source value, or NULL. */
GPtrArray   *sym_context_list_elements (SymContext *ctx, GraphValue *src);
/* Records the elements of a tuple/list source value (a flattened tuple
 * graph input), so prim::TupleUnpack / ListUnpack of it take them. */
void         sym_context_set_list_elements (SymContext *ctx, GraphValue *src, guint n_values,
                                            GraphValue *const *values);
/* The state_dict name a prim::GetAttr chain resolves to ("layer1.0.conv1.weight")
 * or NULL when the value is not such a chain.  (transfer full) */
char        *sym_getattr_path (GraphValue *src);
/* "aten::elu" → "elu" for messages; interned kind otherwise. */
const char  *sym_op_short_name (const char *kind);

/* A prim::Constant as torch lowers it: int → 0-d int64, float → 0-d
 * double, bool → 0-d bool, int[] → 1-D int64.  NULL for None, strings and
 * non-constants.  (transfer full) */
Tensor      *sym_const_as_tensor (GraphValue *src);

/* Element type helpers used by the passes. */
Tensor      *sym_tensor_cast (const Tensor *t, GraphDType to, GError **error);

G_END_DECLS
