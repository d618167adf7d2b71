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

#define SYM_TABLE(version, entries) { version, entries, G_N_ELEMENTS (entries) }

/* Defined in the opsetN.c files; registry.c lists them. */
extern const SymEntry sym_opset9_math[];    extern const gsize sym_opset9_math_len;
extern const SymEntry sym_opset9_reduce[];  extern const gsize sym_opset9_reduce_len;
extern const SymEntry sym_opset9_nn[];      extern const gsize sym_opset9_nn_len;
extern const SymEntry sym_opset9_shape[];   extern const gsize sym_opset9_shape_len;
extern const SymEntry sym_opset9_index[];   extern const gsize sym_opset9_index_len;
extern const SymEntry sym_opset9_create[];  extern const gsize sym_opset9_create_len;
extern const SymEntry sym_opset9_misc[];    extern const gsize sym_opset9_misc_len;
extern const SymEntry sym_opset9_rnn[];     extern const gsize sym_opset9_rnn_len;
extern const SymEntry sym_opset10_table[];  extern const gsize sym_opset10_table_len;
extern const SymEntry sym_opset11_table[];  extern const gsize sym_opset11_table_len;
extern const SymEntry sym_opset12_table[];  extern const gsize sym_opset12_table_len;
extern const SymEntry sym_opset13_table[];  extern const gsize sym_opset13_table_len;
extern const SymEntry sym_opset14_table[];  extern const gsize sym_opset14_table_len;
extern const SymEntry sym_opset16_table[];  extern const gsize sym_opset16_table_len;
extern const SymEntry sym_opset17_table[];  extern const gsize sym_opset17_table_len;
/* Issue 12's additions, one table per family and opset. */
extern const SymEntry sym_opset9_extra[];   extern const gsize sym_opset9_extra_len;
extern const SymEntry sym_opset11_extra[];  extern const gsize sym_opset11_extra_len;

/* Helpers shared between the opset-9 files. */
/* A 1-element 1-D float constant, as torch's torch.tensor([v]) (opset9-math.c). */
GraphValue  *sym_float_1d (SymContext *ctx, double v);
/* ConstantOfShape of `shape` filled with `value` in `dt` (opset9-create.c). */
GraphValue  *sym_constant_of_shape (SymContext *ctx, GraphValue *shape, GraphDType dt, double value);
/* A constant of `dims` filled with v in dt, or NULL when too large (opset9-create.c). */
GraphValue  *sym_const_filled (SymContext *ctx, gsize rank, const gint64 *dims, GraphDType dt,
                               double v);
/* Shared with opset9-extra.c: torch ScalarType code → element type, dflt
 * when src is not a constant code (opset9-create.c); the pairwise distance
 * as torch writes it (opset9-reduce.c); a Split node's outputs as the
 * node's results or list output, squeezed along dim for unbind
 * (opset9-shape.c); and the symbolics whose aliases it lists. */
GraphDType   sym_scalar_type (GraphValue *src, GraphDType dflt);
GraphValue  *sym_pairwise_distance_values (SymContext *ctx, GraphValue *a, GraphValue *b,
                                           double p, double eps, gboolean keep);
gboolean     sym_finish_split (SymContext *ctx, GraphNode *n, GraphNode *sp, GraphValue **out,
                               gboolean squeeze, gint64 dim);
gboolean     sym_chunk (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_split_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_unbind (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_transpose (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_upsample_mode (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error,
                                const char *mode);
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
