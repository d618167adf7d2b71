/* symonnx — the export pipeline: a trace graph (aten::/prim:: form) plus
 * weights in, an ONNX graph out; what torch.onnx.export does.
 *
 *   ExportOptions o;
 *   export_options_init (&o);
 *   o.opset = 13;
 *   o.weights = export_safetensors_load ("w.safetensors", &error);
 *   Graph *onnx = export_graph (trace, &o, &error);
 *   export_options_clear (&o);
 *   g_hash_table_unref (o.weights);     (the registry and weights stay yours)
 *
 * Steps: graph inputs (a module-typed first input is the module whose
 * prim::GetAttr chains name the weights), the symbolic pass (one node at a
 * time through the registry, prim:: nodes lowered on the way; every
 * unconvertible node is collected before failing), graph outputs (tuples
 * flattened), then the passes: Conv+BatchNormalization fusion, scalar type
 * analysis, constant folding, dead-code elimination, dynamic axes, scoped
 * names, initializer deduplication.
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"
#include "symbolic/symbolic.h"

G_BEGIN_DECLS

#define EXPORT_ERROR (export_error_quark ())
GQuark export_error_quark (void);

typedef enum
{
  EXPORT_ERROR_OPTIONS,      /* an option value that cannot be honoured */
  EXPORT_ERROR_UNSUPPORTED,  /* operators that could not be exported */
  EXPORT_ERROR_GRAPH,        /* a malformed trace graph */
  EXPORT_ERROR_WEIGHTS,      /* a weight missing or of the wrong shape */
  EXPORT_ERROR_CHECK,        /* ONNX mode: the result fails the model checker */
} ExportErrorCode;

typedef struct
{
  const char *name;      /* an input or output name */
  gint64      axis;
  const char *symbol;    /* dim_param */
} ExportDynamicAxis;

typedef struct
{
  int          opset;                       /* 9..17, default 14 */
  SymMode      mode;                        /* default SYM_MODE_ONNX */
  /* NULL-terminated; may be shorter than the inputs/outputs (torch's
   * partial naming).  Inputs default to the trace's names, outputs to
   * "output", "output_1", ... */
  const char *const *input_names;
  const char *const *output_names;
  GArray      *dynamic_axes;                /* of ExportDynamicAxis; may be NULL */
  gboolean     do_constant_folding;         /* default TRUE */
  gboolean     keep_initializers_as_inputs; /* default FALSE */
  gboolean     export_params;               /* default TRUE: weights become initializers */
  /* TRUE: the trace was recorded in training mode on purpose (the model in
   * model.train()): batch_norm with training=True and running statistics
   * exports the batch's statistics (the running statistics' update, state
   * an ONNX graph cannot keep, is left out).  FALSE (the default): such a
   * node is refused as a forgotten model.eval().  Dropout and batch norm
   * without running statistics follow the trace's own flags either way. */
  gboolean     training;
  SymRegistry *registry;                    /* NULL: the built-ins */
  GHashTable  *weights;                     /* name → Tensor*; may be NULL */
  /* default TRUE: run the model checker (onnx-check.h) on the result.  In
   * ONNX mode an error is EXPORT_ERROR_CHECK naming each bad node and the
   * symbolic that made it; in the other modes problems are warnings
   * (export_graph_report). */
  gboolean     check;
  /* PyTorch's default dtype when the trace was made
   * (torch.get_default_dtype(); default GRAPH_DTYPE_FLOAT): the result type
   * of true division of integers where scripted code declares none, as
   * torch.onnx.export reads it at export time. */
  GraphDType   default_dtype;
  /* FALSE (the default): quantized::add and add_relu of uint8 tensors of
   * one shape with constant scales are exported as the integer arithmetic
   * PyTorch's qnnpack engine runs (Note [QNNPACK's add in ONNX],
   * symbolic/quantized.c), which standard ONNX runtimes then compute
   * exactly.  TRUE: DequantizeLinear → Add → QuantizeLinear, torch.onnx's
   * form, whose float rounding is the fbgemm/x86 engines' arithmetic
   * rather than qnnpack's. */
  gboolean     float_quantized_add;
} ExportOptions;

void     export_options_init (ExportOptions *o);
/* Frees the dynamic_axes entries added with
 * export_options_add_dynamic_axis.  `registry` and `weights` are not
 * touched: they stay the caller's to unref. */
void     export_options_clear (ExportOptions *o);
void     export_options_add_dynamic_axis (ExportOptions *o, const char *name, gint64 axis,
                                          const char *symbol);
/* Parses "NAME:AXIS=SYM,NAME:AXIS=SYM" (SYM optional: "NAME:0" gives
 * "NAME_dynamic_axes_1" as torch names it). */
gboolean export_options_parse_dynamic_axes (ExportOptions *o, const char *spec, GError **error);

/* The ONNX graph for `trace` (not modified).  A symbolic that misuses the
 * builder (a key without a type suffix...) fails the export, named, in
 * every mode.  (transfer full) */
Graph   *export_graph (const Graph *trace, const ExportOptions *o, GError **error);
/* export_graph, and `warnings` (may be NULL; NULL when the export fails)
 * receives one line per checker problem that did not fail it (the modes
 * other than ONNX): "error: node 3 (onnx::Sigmiod): ... [made by the
 * symbolic for aten::sigmoid, ...]".  (transfer full) */
Graph   *export_graph_report (const Graph *trace, const ExportOptions *o, GPtrArray **warnings,
                              GError **error);

/* Where a translated trace node went (export_graph_with_origins): one per
 * node a symbolic (or the ATen fallback) translated, in trace order. */
typedef struct
{
  GraphNode  *trace_node;    /* in the trace (transfer none) */
  const char *symbolic;      /* "built-in aten::relu (opset 9 table)", "custom ... (sym_register
                              * since opset 9, plugin PATH)", "ATen fallback", "fallthrough" */
  /* Per output of trace_node: the name of the value of the exported graph
   * that computes it, or NULL when none does (folded into a fused node,
   * unused and removed, a list).  (char *, owned) */
  GPtrArray  *onnx_values;
} ExportOrigin;

void     export_origin_free (ExportOrigin *origin);
/* export_graph, and in *origins (a GPtrArray of ExportOrigin*) each
 * translated node's symbolic and its outputs' ONNX counterparts, followed
 * through every pass (graph_value_resolve).  (transfer full) */
Graph   *export_graph_with_origins (const Graph *trace, const ExportOptions *o,
                                    GPtrArray **origins, GError **error);

/* Every node kind of `trace` that would not export with these options (in
 * ONNX mode: no symbolic, or the symbolic declines), each once, in graph
 * order; `messages` (may be NULL) receives one message per failing node.
 * (transfer full; interned strings) */
GPtrArray *export_find_unsupported (const Graph *trace, const ExportOptions *o,
                                    GPtrArray **messages, GError **error);

/* Passes, usable on their own.  Each returns the number of changes. */
guint    export_fold_constants (Graph *g, GError **error);
/* Eval-mode Conv+BatchNormalization fusion (torch's _jit_pass_onnx_eval_peephole);
 * returns the number of BN nodes folded away. */
guint    export_fuse_conv_batchnorm (Graph *g);
/* Concat of a single-use Concat on the same axis becomes one Concat (as
 * torch writes nested torch.cat calls). */
guint    export_flatten_concats (Graph *g);
/* default_dtype: PyTorch's default dtype (ExportOptions'), what an integer
 * or bool tensor with a floating scalar computes in. */
guint    export_scalar_type_analysis (Graph *g, GraphDType default_dtype);
/* Nodes whose inputs have an element type their ONNX schema does not allow
 * compute in a wider type that holds every value, between Casts
 * (Note [Element types a schema does not allow], export/pipeline/legalize-types.c). */
guint    export_legalize_element_types (Graph *g, int opset);
/* The element type export_scalar_type_analysis makes node n compute (a
 * standard op: Add, Mul, Concat, Where...), UNDEFINED for other ops. */
GraphDType export_promoted_dtype (GraphNode *n, GraphDType default_dtype);
/* Symbolic shape propagation (export/pipeline/shape-propagation.c): every value computed
 * from one of `dynamic_inputs` (a set of graph inputs whose types already
 * carry their symbolic dims) gets the shape its node's input shapes give,
 * as ONNX shape inference computes it: static dims, symbols passed through
 * unchanged where an output dim is an input dim, every other dim computed
 * from a symbol unknown.  Ops without a rule keep element type and rank
 * with unknown dims.  `dynamic_inputs` NULL: nothing is dynamic. */
void     export_infer_shapes (Graph *g, GHashTable *dynamic_inputs);
/* Types for a graph built by hand (graph_op ... with no types set): every
 * value without an element type and rank gets what its node's inputs give,
 * by the same rules (static dims, symbols passed through, unknown dims
 * where no rule decides); values that have a type keep it.  FALSE with an
 * error naming the value when a graph input (not an initializer) has no
 * type, or a graph output is left without one (its op has no rule, or its
 * inputs' types are unknown: set it with graph_value_set_type).  NULL is an
 * error, not a crash. */
gboolean export_infer_types (Graph *g, GError **error);
/* One node's outputs that have no element type or rank get them (and the
 * dims the rules compute) from the same rules: scripted code's values,
 * which a trace declares only as "Tensor", typed as they are translated.
 * Dynamic axes reach into control-flow bodies through
 * export_infer_shapes. */
void     export_infer_node_types (GraphNode *n, GraphDType default_dtype);
/* The first top-level node whose inputs all have static shapes and whose
 * output 0 has a static declared shape that the node's shape rule
 * contradicts (a trace that declares `aten::eye(0, 3)` as Float(2, 3)):
 * NULL when none; else *detail gets "declared (2, 3), computed (0, 3)"
 * (free it). */
GraphNode *export_find_declared_shape_conflict (Graph *g, char **detail);
void     export_assign_scoped_names (Graph *g);
/* Initializers equal to an earlier one (same dtype, shape and values by
 * ==, as torch's eval-mode _jit_pass_onnx_deduplicate_initializers) are
 * removed; each becomes Identity(kept one) under its name at the start of
 * the graph, named Identity_0, Identity_1... as torch writes them.  Run it
 * after export_assign_scoped_names (which would rename those outputs).
 * Returns the number of initializers removed. */
guint    export_deduplicate_initializers (Graph *g);

G_END_DECLS
