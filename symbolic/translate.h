/* symonnx — the translation interface export/ drives: one source node at a
 * time through the registry into the ONNX graph being built (not
 * installed).  The opset tables are symbolic/opset-tables.h. */
#pragma once

#include "symbolic/symbolic.h"

G_BEGIN_DECLS

/* Which symbolic serves `kind` at `opset`, for reports: "built-in
 * aten::relu (opset 9 table)", "custom aten::linear (sym_register since
 * opset 9, plugin /path/libx.so)"; NULL when none.  (interned) */
const char  *sym_registry_origin (SymRegistry *reg, const char *kind, int opset);

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
  /* Gives an ONNX node's untyped outputs their element type and rank
   * (export_infer_node_types); called for the nodes made for a source
   * node whose traced outputs are untyped (scripted code).  May be NULL. */
  void       (*infer_node) (GraphNode *n, GraphDType default_dtype);
  /* Runs after each source node is translated, at every depth (the nodes
   * of If and Loop blocks too): the export's view write-back
   * (export_view_mutation).  May be NULL. */
  gboolean   (*after_node) (SymContext *ctx, GraphNode *n, GError **error);
  /* The export has dynamic axes: a traced size of a value not yet
   * translated (the current node's outputs) may not hold. */
  gboolean     dynamic_axes;
  /* The trace was recorded in training mode on purpose (ExportOptions'
   * training): batch_norm with training=True exports the batch's
   * statistics instead of being refused as a forgotten model.eval(). */
  gboolean     training;
  /* Source node → why Note [List mutations] left it (may be NULL; not
   * owned): what aten::append & co. refuse with. */
  GHashTable  *list_whys;
  /* PyTorch's default dtype (ExportOptions' default_dtype); UNDEFINED
   * reads as float. */
  GraphDType   default_dtype;
  /* ExportOptions' float_quantized_add. */
  gboolean     float_quantized_add;
} SymContextSetup;

SymContext  *sym_context_new (const SymContextSetup *setup);
/* "node %y, scope ..., at file.py:12": where a source node is, for
 * messages.  (transfer full) */
char        *sym_node_location (GraphNode *n);
void         sym_context_free (SymContext *ctx);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SymContext, sym_context_free)

/* Makes dst the graph symbolics build into (a control-flow body while its
 * block is translated); returns the previous one. */
Graph       *sym_context_swap_graph (SymContext *ctx, Graph *dst);
/* prim::If: the selected block inline for a constant condition, else ONNX
 * If with both blocks as subgraphs (control-flow.c). */
gboolean     sym_lower_if (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
/* prim::RaiseException: refused with the reason (control-flow.c). */
gboolean     sym_lower_raise (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
/* prim::Loop: ONNX Loop with the block as its body (control-flow.c). */
gboolean     sym_lower_loop (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
/* A list filled by append in a loop (Note [Loops], control-flow.c): the
 * Loop's scan output, [iterations, element dims...], that aten::stack
 * reads; sym_list_values refuses such a list.  NULL for other lists. */
void         sym_context_set_scan_list (SymContext *ctx, GraphValue *list_src, GraphValue *scan);
GraphValue  *sym_context_scan_list (SymContext *ctx, GraphValue *list_src);
/* Note [List mutations] (list-mutations.c): list.append/insert/pop, `del
 * l[i]` and `l[i] = v` of scripted code, folded into new
 * prim::ListConstruct values before translation.
 * sym_is_list_mutation: n changes its input 0, a list or dict, in place.
 * sym_graph_has_list_mutations: g (or a block in it) has such a node.
 * sym_fold_list_mutations: rewrites g (a copy of the trace: export and
 * verify's trace run) and returns how many mutations it folded; `whys`
 * (may be NULL; node → g_free'd string) gets the reason for each change of
 * a list it follows but cannot fold.
 * sym_list_mutation_why: why a mutation left in the graph was not folded.
 * (transfer full)
 * sym_context_list_why: the reason the fold recorded for n (SymContextSetup
 * list_whys), or NULL. */
/* Note [Arity of structural nodes] (structural-arity.c): the input counts
 * of the nodes read where they are used (prim::ListConstruct, ListUnpack,
 * GetAttr, aten::Int ...), checked over g and every block in it before
 * translation; SYM_ERROR_ARGS naming the node otherwise. */
gboolean     sym_check_structural_arity (const Graph *g, GError **error);
gboolean     sym_is_list_mutation (const GraphNode *n);
/* Note [Module attributes written in forward] (module-attrs.c): scripted
 * code's prim::SetAttr folded into the GetAttrs that read the attribute
 * after it, on a copy of the trace (export and verify's trace run);
 * returns how many it folded.  `back` (may be NULL): copied node → trace
 * node, whose entries for the removed SetAttrs are dropped; `weights`
 * (may be NULL): the state_dict, whose attributes are never None. */
gboolean     sym_graph_has_set_attrs (const Graph *g);
guint        sym_fold_set_attrs (Graph *g, GHashTable *back, GHashTable *weights);
gboolean     sym_graph_has_list_mutations (const Graph *g);
guint        sym_fold_list_mutations (Graph *g, GHashTable *whys);
char        *sym_list_mutation_why (GraphNode *n);
const char  *sym_context_list_why (SymContext *ctx, GraphNode *n);
/* A bool or int of scripted code evaluated at export time (Note [Static
 * scalars in scripted code], context.c): constants, ranks, `x is None`, a
 * constant string in a constant list, int arithmetic and comparisons. */
gboolean     sym_static_bool (GraphValue *src, gboolean *v);
gboolean     sym_static_int (GraphValue *src, gint64 *v);
/* A source value's rank: declared, else that of its translation (-1). */
int          sym_known_rank (SymContext *ctx, GraphValue *src);
/* The rank torch gives trace value v from its op, its inputs' ranks and
 * its size lists, for values the trace types only as "Tensor"; -1 when
 * unknown (trace-rank.c). */
int          sym_trace_rank (SymContext *ctx, GraphValue *v);
/* The same for its element type: UNDEFINED when unknown. */
GraphDType   sym_trace_dtype (SymContext *ctx, GraphValue *v);
/* Whether source value src's shape (or int value) depends on the data
 * (Note [Data-dependent shapes] in context.c): sym_static_shape() calls
 * it unknown while a symbolic runs. */
gboolean     sym_context_is_data_dependent (SymContext *ctx, GraphValue *src);
/* torch ScalarType code → element type (UNDEFINED for ComplexHalf); FALSE
 * for a code out of range.  The one table of them (context.c). */
gboolean     sym_scalar_type_dtype (gint64 code, GraphDType *dt);
/* Whether `kind` names an in-place op ("aten::relu_", not "aten::__and__"):
 * the registry resolves it to its base op, and its output is self's new
 * value (the rule the registry, data-dependent shapes and view-mutation.c
 * share). */
gboolean     sym_kind_is_inplace (const char *kind);
/* The views an in-place write is carried back through to its base
 * (aten::slice, select, and detach/alias, which are the whole tensor):
 * export/pipeline/view-mutation.c, the trace run (verify/runnable.c) and
 * Note [Writes in If branches]. */
gboolean     sym_kind_is_writable_view (const char *kind);
/* Nodes translated on first use of their value, not in order (constants,
 * attributes, list/tuple/dict constructions, scalar conversions). */
gboolean     sym_context_is_lazy (GraphNode *n);
/* Translates one source node into dst.  Returns FALSE with an error for an
 * unconvertible node; the caller collects them.  prim:: nodes are handled
 * here too (lowering). */
gboolean     sym_context_translate (SymContext *ctx, GraphNode *n, GError **error);
/* Makes ctx the context whose shape knowledge sym_static_shape() and
 * sym_static_dims() use (data-dependent values, dynamic axes), for steps
 * that run between translations (view mutation); returns the previous
 * one, to be made current again after. */
SymContext  *sym_context_make_current (SymContext *ctx);
/* What to do about an unconvertible node of `kind` (one sentence, for the
 * end of the message listing every failing node). */
const char  *sym_unsupported_hint (const char *kind);
/* A prim::PythonOp's arguments in call order (Note [PythonOp arguments],
 * python-op.c): its tensor inputs and, for each scalar argument, a
 * prim::Constant built in `scratch`.  (transfer container) */
GPtrArray   *sym_python_op_arguments (Graph *scratch, GraphNode *n, GError **error);
/* How source node n was translated (after sym_context_translate): its
 * symbolic's sym_registry_origin(), "ATen fallback", "fallthrough", or
 * NULL for nodes lowered or not translated.  (interned) */
const char  *sym_context_node_origin (SymContext *ctx, GraphNode *n);
/* The value a source value was mapped to, or NULL (nothing materialised). */
GraphValue  *sym_context_mapped (SymContext *ctx, GraphValue *src);
/* Note [Writes in If branches] (context.c): whether an enclosing If carries
 * source value src out as an output; sym_context_track turns it on/off. */
void         sym_context_track (SymContext *ctx, GraphValue *src, gboolean on);
gboolean     sym_context_tracks (SymContext *ctx, GraphValue *src);
/* Replaces the set of tracked values (a loop body tracks none: a write
 * there to an enclosing If's tensor is not that If's); returns the old. */
GHashTable  *sym_context_swap_tracked (SymContext *ctx, GHashTable *set);
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


/* Note [Quantized values] (quantized.c): a source value of a quantized
 * type (QUInt8...) is mapped to its integer tensor (QuantizeLinear's
 * output) and recorded with its scale, zero point and axis — torch's
 * (tensor, scale, zero_point[, axis]) tuple. */
typedef struct
{
  GraphValue *value;        /* the integer tensor */
  GraphValue *scale;        /* float, 0-d or 1-D along axis */
  GraphValue *zero_point;   /* of value's element type */
  gint64      axis;         /* -1: per tensor */
} SymQuantized;

const SymQuantized *sym_quantized_lookup (SymContext *ctx, GraphValue *src);
void         sym_quantized_record (SymContext *ctx, GraphValue *src, const SymQuantized *q);
/* Whether an input of n is of a quantized type in the trace. */
gboolean     sym_has_quantized_input (SymContext *ctx, GraphNode *n);
/* Runs fn on n with its quantized inputs dequantized and its output
 * quantized again, as torch's quantized_args; refuses (SYM_ERROR_ARGS)
 * an op torch has no quantized form of. */
gboolean     sym_quantized_call (SymContext *ctx, GraphNode *n, SymFn fn, GraphValue **out,
                                 GError **error);
/* The refusal for an op with quantized inputs and no quantized form. */
gboolean     sym_quantized_refuse (SymContext *ctx, GraphNode *n, GError **error);
/* A tensor of the weights, or NULL.  (transfer none) */
Tensor      *sym_weight_tensor (SymContext *ctx, const char *name);
/* The weights' tensor `name` as an initializer of the export (one per name). */
GraphValue  *sym_weight_initializer (SymContext *ctx, const char *name, GError **error);
/* The scratch graph for values symbolics build outside the export. */
Graph       *sym_context_scratch (SymContext *ctx);
gboolean     sym_call_op (SymContext *ctx, const char *kind, guint n_args, GraphValue *const *args,
                          GraphType *const *types, GraphType *out_type, GraphValue **out,
                          GError **error);

G_END_DECLS
