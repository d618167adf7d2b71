/* symonnx — symbolic functions: how each aten/prim operator of a trace
 * becomes ONNX nodes, per target opset.
 *
 * A symbolic function receives the context, the trace node being
 * translated (an aten:: node of the *source* graph: its inputs are source
 * values, so constants are still visible as prim::Constant producers) and
 * writes the values that replace the node's outputs, built with graph_op /
 * graph_at into sym_graph(ctx), the graph being exported:
 *
 *   static gboolean
 *   sym_elu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
 *   {
 *     GraphValue *self;
 *     double alpha;
 *     if (!sym_parse_args (ctx, n, "vf", &self, &alpha, error))
 *       return FALSE;
 *     out[0] = graph_op (sym_graph (ctx), "Elu", self, "alpha_f", alpha, NULL);
 *     return TRUE;
 *   }
 *
 * Note [Registry layers]
 * Built-in functions come from one table per opset (symbolic/opsetN.c)
 * that lists only what that opset adds or changes; the function used for
 * target opset N is the entry with the newest version <= N.  Custom
 * functions (sym_register) live on a layer above the built-ins and win for
 * every target opset >= their since_opset.  In-place names ("aten::relu_")
 * resolve to the base op ("aten::relu") when no entry names them directly.
 *
 * Note [Declining]
 * A symbolic that cannot handle a particular call (an argument form ONNX
 * cannot express) fails with SYM_ERROR_UNSUPPORTED; in ONNX_ATEN_FALLBACK
 * mode the exporter then emits an ATen node instead.  Any other error code
 * is a hard failure in every mode.
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"

G_BEGIN_DECLS

#define SYM_ERROR (sym_error_quark ())
GQuark sym_error_quark (void);

typedef enum
{
  SYM_ERROR_UNSUPPORTED,  /* no symbolic, or the symbolic declines this form */
  SYM_ERROR_ARGS,         /* an argument is not of the form the symbolic needs */
  SYM_ERROR_INVALID,      /* a malformed source graph or a misbehaving symbolic */
  SYM_ERROR_PLUGIN,       /* a plugin cannot be loaded or fails to register */
} SymErrorCode;

/* The opsets the built-in tables cover. */
#define SYM_OPSET_MIN     9
#define SYM_OPSET_MAX     17
#define SYM_OPSET_DEFAULT 14

/* torch.onnx.OperatorExportTypes */
typedef enum
{
  SYM_MODE_ONNX,                /* every op through a symbolic, else an error */
  SYM_MODE_ONNX_ATEN,           /* every aten op becomes an ATen node */
  SYM_MODE_ONNX_ATEN_FALLBACK,  /* ATen node where no symbolic exists or it declines */
  SYM_MODE_ONNX_FALLTHROUGH,    /* unsupported ops are copied as they are */
} SymMode;

const char *sym_mode_name (SymMode mode);       /* "ONNX", "ONNX_ATEN", ... */
/* Accepts "onnx", "aten", "aten-fallback", "fallthrough" and the
 * torch spellings ("ONNX_ATEN_FALLBACK"...). */
gboolean    sym_mode_from_name (const char *name, SymMode *mode);

typedef struct _SymRegistry SymRegistry;
typedef struct _SymContext SymContext;

/* Writes graph_node_n_outputs(n) values into out[] (NULL for an output
 * nothing uses).  The values must belong to sym_graph(ctx). */
typedef gboolean (*SymFn) (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);

/* A table line: `name` is "aten::elu" (an unqualified name means aten::).
 * `data` is what sym_user_data() returns while `fn` runs for this entry,
 * so one body serves a family ("ReduceSum", "ReduceMean" ...). */
typedef struct
{
  const char   *name;
  SymFn         fn;
  gconstpointer data;
} SymEntry;

/* ------------------------------------------------------------------------ */
/* Registry                                                                  */

/* Threads: lookups (and so export_graph) may run from any number of
 * threads at once on one registry; the built-in tables are constant and
 * their per-opset hashes are built once per process under g_once.
 * sym_register, sym_unregister, sym_registry_set_domain_version and
 * sym_registry_load_plugin change the registry: call them before the
 * registry is shared, not while another thread exports with it.
 * Reference counting is atomic. */

/* A registry holding the built-in tables.  (transfer full) */
SymRegistry *sym_registry_new (void);
/* A registry with no built-ins: only what sym_register() adds.  (transfer full) */
SymRegistry *sym_registry_new_empty (void);
SymRegistry *sym_registry_ref (SymRegistry *reg);
void         sym_registry_unref (SymRegistry *reg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SymRegistry, sym_registry_unref)

/* Registers a custom symbolic for `name` ("mylib::myop", "aten::elu") used
 * for target opsets >= since_opset; it overrides built-ins.  `user_data` is
 * what sym_user_data() returns inside `fn`.  Registering the same name and
 * since_opset again replaces the entry.  FALSE (with a g_critical) on a
 * malformed name or an opset outside 1..SYM_OPSET_MAX. */
gboolean     sym_register (SymRegistry *reg, const char *name, int since_opset,
                           SymFn fn, gpointer user_data);
/* Removes the custom entry for (name, since_opset); since_opset < 0 removes
 * every custom entry of `name`.  Returns whether anything was removed. */
gboolean     sym_unregister (SymRegistry *reg, const char *name, int since_opset);
/* The opset_import version written for a custom `domain` (default 1),
 * as torch.onnx.export's custom_opsets. */
void         sym_registry_set_domain_version (SymRegistry *reg, const char *domain,
                                              gint64 version);
gint64       sym_registry_get_domain_version (SymRegistry *reg, const char *domain);
/* (transfer container) sorted domains with a version set. */
GPtrArray   *sym_registry_list_domains (SymRegistry *reg);

/* The function for `kind` at target `opset` (custom layer first), or NULL.
 * `resolved` (may be NULL) receives the interned name the entry is
 * registered under (the base op for in-place names). */
SymFn        sym_registry_lookup (SymRegistry *reg, const char *kind, int opset,
                                  gpointer *user_data, const char **resolved);
/* Whether the entry serving `kind` at `opset` is built in and only refuses:
 * a name torch 1.13 registers a symbolic for that cannot export it either
 * (it raises), kept so that an export says why.  `symonnx ops` marks them. */
gboolean     sym_registry_only_refuses (SymRegistry *reg, const char *kind, int opset);
/* The lowest opset at which `kind` has any symbolic (built-in or custom),
 * or -1. */
int          sym_registry_first_opset (SymRegistry *reg, const char *kind);
/* Every name with an entry, sorted.  (transfer container; interned strings) */
GPtrArray   *sym_registry_list (SymRegistry *reg);
/* The opset versions at which `kind`'s built-in entry changes, ascending
 * (transfer full; may be empty).  Custom entries are not included. */
GArray      *sym_registry_builtin_versions (SymRegistry *reg, const char *kind);
gboolean     sym_registry_is_custom (SymRegistry *reg, const char *kind);

/* Plugins: a shared object exporting
 *   gboolean symonnx_plugin_register (SymRegistry *reg, GError **error);
 * which calls sym_register() for its ops. */
#define SYM_PLUGIN_SYMBOL "symonnx_plugin_register"
typedef gboolean (*SymPluginRegisterFn) (SymRegistry *reg, GError **error);
gboolean     sym_registry_load_plugin (SymRegistry *reg, const char *path, GError **error);

/* ------------------------------------------------------------------------ */
/* Context: what a symbolic function sees                                    */

/* The graph being built (ONNX form).  (transfer none) */
Graph       *sym_graph (SymContext *ctx);
int          sym_opset (SymContext *ctx);
SymMode      sym_mode (SymContext *ctx);
/* The user_data of the entry being run (custom symbolics). */
gpointer     sym_user_data (SymContext *ctx);
/* The ONNX value for a source value: graph inputs and translated outputs
 * come from the map; prim::Constant, GetAttr (weights), ListConstruct and
 * NumToTensor producers are materialised on first use (constants become
 * onnx::Constant nodes, weights initializers, lists 1-D int64 tensors or a
 * Concat of their elements).  A None constant gives NULL with no error. */
GraphValue  *sym_value (SymContext *ctx, GraphValue *src, GError **error);
/* Records that source value `src` is `dst` in the new graph. */
void         sym_map_value (SymContext *ctx, GraphValue *src, GraphValue *dst);
/* For symbolics of ops returning Tensor[] (split, chunk, unbind): the
 * number of elements its prim::ListUnpack consumer takes, or -1 when the
 * list is not unpacked. */
int          sym_list_unpack_size (SymContext *ctx, GraphNode *n, guint output);
/* The ONNX values of a Tensor[] source value (a prim::ListConstruct, or
 * the recorded elements of a list output).  (transfer container) */
GPtrArray   *sym_list_values (SymContext *ctx, GraphValue *src, GError **error);
/* Records the elements of a list output (each a value of sym_graph). */
void         sym_set_list_output (SymContext *ctx, GraphNode *n, guint output,
                                  guint n_values, GraphValue *const *values);

/* Argument parsing, as torch's parse_args.  `spec` is one code per input of
 * n, either one character each ("vif") or comma-separated ("v,is,i"):
 *   v   GraphValue **   the ONNX value (NULL for None)
 *   i   gint64 *        a constant int (also a 0-d/1-element int tensor)
 *   d   gint64 *        a constant dim of the first 'v' argument (of
 *                       input 0 when no 'v' comes before it), checked to
 *                       be in [-rank, rank-1] as torch's dim wrapping does
 *                       (an error otherwise; unchecked when the rank is
 *                       unknown); returned as given.  For a Tensor[]
 *                       input 0 (cat) the rank is its elements' when
 *                       they all have the same known rank
 *   dn  gint64 *        a dim where a new axis goes (unsqueeze, stack):
 *                       as 'd' but in [-rank-1, rank]
 *   ds  gsize *, const gint64 **   a constant dim list: each element a dim
 *                       checked as 'd' (a single int is a 1-element list),
 *                       no dim twice after wrapping (sum, permute, flip...)
 *   dr  gsize *, const gint64 **   as ds, a dim may repeat (roll)
 *   f   double *        a constant number
 *   b   gboolean *      a constant bool (or int)
 *   s   const char **   a constant string (owned by the context)
 *   t   Tensor **       a constant as a tensor (owned by the context; a
 *                       number becomes a 0-d tensor)
 *   is  gsize *, const gint64 **   a constant int list (a single int is a
 *                       1-element list; owned by the context)
 *   fs  gsize *, const double **   a constant float list
 *   none                (skipped)
 * A missing trailing input reads as None.  A non-constant input where a
 * constant is required fails with SYM_ERROR_UNSUPPORTED naming the
 * argument. */
gboolean     sym_parse_args (SymContext *ctx, GraphNode *n, const char *spec, ...);

/* Run-time values.  Input i of n, an int that may be computed at run time
 * (x.size(1) // 2): a constant gives a 1-element int64 constant, a computed
 * 0-d int its value cast to int64 and unsqueezed to [1] — the form of
 * Slice's bounds, TopK's k, Split's sizes.  Constant folding turns it back
 * into a constant when the shapes it reads are static.  NULL with an error
 * for None, floats and tensors of rank > 1. */
GraphValue  *sym_int_input_1d (SymContext *ctx, GraphNode *n, guint i, GError **error);

/* Constants in the source graph (torch's _maybe_get_const / _is_none). */
gboolean     sym_is_none (GraphValue *src);
gboolean     sym_is_constant (GraphValue *src);
gboolean     sym_get_const_int (GraphValue *src, gint64 *v);
/* An int the trace computes from sizes (x.size(0) - 1), folded from the
 * declared static shapes as torch does, when the export has no dynamic
 * axes (Note [Traced sizes folded], context.c); a constant otherwise. */
gboolean     sym_traced_int (SymContext *ctx, GraphValue *src, gint64 *v);
/* An int list whose elements sym_traced_int folds; NULL otherwise. */
GArray      *sym_traced_ints (SymContext *ctx, GraphValue *src);
gboolean     sym_get_const_double (GraphValue *src, double *v);
gboolean     sym_get_const_bool (GraphValue *src, gboolean *v);
/* A constant int list (ListConstruct of constants, int[] constant, 1-D
 * int tensor).  (transfer full) */
GArray      *sym_get_const_ints (GraphValue *src);

/* New constants in sym_graph(ctx) (onnx::Constant nodes). */
GraphValue  *sym_constant (SymContext *ctx, Tensor *t /* transfer none */);
GraphValue  *sym_const_i64 (SymContext *ctx, gint64 v);                   /* 0-d */
GraphValue  *sym_const_ints (SymContext *ctx, gsize n, const gint64 *v);  /* 1-D */
GraphValue  *sym_const_scalar (SymContext *ctx, GraphDType dtype, double v); /* 0-d */
/* torch's _if_scalar_type_as: a 0-d constant of v's element type (float
 * when unknown). */
GraphValue  *sym_scalar_like (SymContext *ctx, double v, GraphValue *like);

/* Types: of source or new values. */
int          sym_rank (GraphValue *v);                       /* -1 unknown */
GraphDType   sym_dtype (GraphValue *v);                      /* UNDEFINED unknown */
/* TRUE and dims[0..rank) when fully static. */
gboolean     sym_static_shape (GraphValue *v, gint64 *dims);
/* The rank (-1 unknown) and dims[0..rank), -1 for each dim that is not
 * static (a dynamic axis, a data-dependent size): for symbolics that need
 * only some dims (split's, the last two of tril). */
int          sym_static_dims (GraphValue *v, gint64 *dims);
/* One dim's static size (dim may be negative); -1 when it is not static
 * or out of the rank. */
gint64       sym_static_dim_size (GraphValue *v, gint64 dim);
/* The export has dynamic axes (Note [Dynamic axes during translation]):
 * the traced shapes of the node being translated may not hold. */
gboolean     sym_has_dynamic_axes (SymContext *ctx);
/* Whether the export is of a trace recorded in training mode on purpose
 * (ExportOptions' training). */
gboolean     sym_training (SymContext *ctx);
/* Whether quantized::add is exported in torch's float form
 * (ExportOptions' float_quantized_add) rather than QNNPACK's integers. */
gboolean     sym_float_quantized_add (SymContext *ctx);
/* PyTorch's default dtype at export time (ExportOptions' default_dtype:
 * float unless the exporter was told double, float16 or bfloat16). */
GraphDType   sym_default_dtype (SymContext *ctx);
/* The type of `v`; NULL unknown.  (transfer none) */
GraphType   *sym_type (GraphValue *v);
/* Sets a new value's type (for outputs a symbolic computes itself). */
void         sym_set_type (GraphValue *v, GraphDType dtype, int rank, const gint64 *dims);

/* Opset-aware building blocks. */
GraphValue  *sym_unsqueeze (SymContext *ctx, GraphValue *v, gsize n, const gint64 *axes);
GraphValue  *sym_squeeze (SymContext *ctx, GraphValue *v, gsize n, const gint64 *axes);
GraphValue  *sym_reshape (SymContext *ctx, GraphValue *v, GraphValue *shape);
GraphValue  *sym_reshape_static (SymContext *ctx, GraphValue *v, gsize n, const gint64 *shape);
/* Slice along axes with constant bounds (steps may be NULL). */
GraphValue  *sym_slice (SymContext *ctx, GraphValue *v, gsize n, const gint64 *axes,
                        const gint64 *starts, const gint64 *ends, const gint64 *steps);
/* Reduce op ("ReduceSum", "ReduceMean"...); n == 0 reduces every axis. */
GraphValue  *sym_reduce (SymContext *ctx, const char *op, GraphValue *v, gsize n,
                         const gint64 *axes, gboolean keepdims);
/* Split into n_outputs along axis with the given sizes (NULL: equal). */
GraphNode   *sym_split (SymContext *ctx, GraphValue *v, gint64 axis, guint n_outputs,
                        const gint64 *sizes);
/* size(v, dim) as a 0-d int64 value (Shape + Gather), or a 1-D shape when
 * dim < 0 is not given (dim = G_MININT64). */
GraphValue  *sym_size (SymContext *ctx, GraphValue *v, gint64 dim);
/* Dims [start, end) of v's shape as a 1-D int64 value (Shape + Slice; end
 * G_MAXINT64: to the last). */
GraphValue  *sym_shape_dims (SymContext *ctx, GraphValue *v, gint64 start, gint64 end);
GraphValue  *sym_cast (SymContext *ctx, GraphValue *v, GraphDType to);
/* Elu(x, alpha): x above 0, alpha * (exp(x) - 1) below.  For double the
 * formula itself (Greater, Exp, Where), as ONNX Runtime implements Elu
 * for float only (ONNX allows double). */
GraphValue  *sym_elu_of (SymContext *ctx, GraphValue *x, double alpha);
/* v cast to the element type the trace declares for n's output `i`, when
 * both are known and differ: torch's result type (integer true division →
 * float, sum/prod of small integers → int64, an explicit dtype=) as the
 * trace recorded it.  v itself otherwise. */
GraphValue  *sym_cast_to_output_dtype (SymContext *ctx, GraphNode *n, guint i, GraphValue *v);
/* Normalises a possibly negative dim against the rank; -1 if the rank is
 * unknown and dim < 0. */
gint64       sym_dim (GraphValue *v, gint64 dim);

/* Fails with SYM_ERROR_UNSUPPORTED: "aten::op: <reason> (opset N)".
 * Always returns FALSE, so `return sym_unimplemented (...)`. */
gboolean     sym_unimplemented (SymContext *ctx, GraphNode *n, GError **error,
                                const char *fmt, ...) G_GNUC_PRINTF (4, 5);

/* The ATen node for `n` as torch 1.13 writes it (op_type ATen, domain
 * org.pytorch.aten, operator/overload_name, every argument an input with
 * scalars and lists as Constant tensors, None as an absent input). */
gboolean     sym_emit_aten (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);

G_END_DECLS
