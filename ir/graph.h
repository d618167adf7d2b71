/* symonnx — the graph IR: one data structure for traces, exported ONNX
 * graphs and loaded models.
 *
 * Note [Ownership]
 * A Graph owns everything reachable from it: nodes, values, attributes and
 * names live until graph_free().  Tensors are refcounted and may be shared
 * between graphs, the writer and the runtime; their payload is a GBytes
 * (owned memory or a view into a mapped file).  Types are immutable and
 * refcounted.
 *
 * Note [Topological order]
 * The node list *is* the topological order: every input of a node is a graph
 * input, an output of an earlier node, or a value of an enclosing graph (for
 * subgraphs held in `g`/`gs` attributes).  graph_lint() checks this and every
 * other invariant listed in ir/lint.c.
 *
 * Note [Node kinds]
 * A node's kind is an interned qualified symbol "domain::op" ("aten::elu",
 * "prim::Constant", "onnx::Elu", "org.pytorch.aten::ATen", "mydomain::MyOp"),
 * so kinds compare with ==.  The domain is everything before the last "::".
 * ONNX's default domain is spelled "onnx".
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

#define GRAPH_ERROR (graph_error_quark ())
GQuark graph_error_quark (void);

typedef enum
{
  GRAPH_ERROR_INVALID,   /* a request the graph cannot honour */
  GRAPH_ERROR_PARSE,     /* malformed text */
  GRAPH_ERROR_LINT,      /* a broken invariant */
  GRAPH_ERROR_TENSOR,    /* inconsistent tensor shape/data */
} GraphErrorCode;

/* ------------------------------------------------------------------------ */
/* Element types: the values of ONNX TensorProto.DataType.                   */

/* X(ENUM, onnx value, element byte size (0: not fixed), pytorch name,
 *   lower-case name)
 * Note [One list]: everything about element types is generated from this
 * list; tests/ir/test-dtype.c maps every entry there and back. */
#define GRAPH_DTYPE_LIST(X)                                   \
  X (UNDEFINED,  0, 0, "Tensor",        "undefined")          \
  X (FLOAT,      1, 4, "Float",         "float")              \
  X (UINT8,      2, 1, "Byte",          "uint8")              \
  X (INT8,       3, 1, "Char",          "int8")               \
  X (UINT16,     4, 2, "UInt16",        "uint16")             \
  X (INT16,      5, 2, "Short",         "int16")              \
  X (INT32,      6, 4, "Int",           "int32")              \
  X (INT64,      7, 8, "Long",          "int64")              \
  X (STRING,     8, 0, "String",        "string")             \
  X (BOOL,       9, 1, "Bool",          "bool")               \
  X (FLOAT16,   10, 2, "Half",          "float16")            \
  X (DOUBLE,    11, 8, "Double",        "double")             \
  X (UINT32,    12, 4, "UInt32",        "uint32")             \
  X (UINT64,    13, 8, "UInt64",        "uint64")             \
  X (COMPLEX64, 14, 8, "ComplexFloat",  "complex64")          \
  X (COMPLEX128,15,16, "ComplexDouble", "complex128")         \
  X (BFLOAT16,  16, 2, "BFloat16",      "bfloat16")

typedef enum
{
#define GRAPH_DTYPE_ENUM(e, v, s, p, n) GRAPH_DTYPE_##e = v,
  GRAPH_DTYPE_LIST (GRAPH_DTYPE_ENUM)
#undef GRAPH_DTYPE_ENUM
  GRAPH_DTYPE_LAST
} GraphDType;

gboolean     graph_dtype_is_valid (int dtype);
/* Byte size of one element; 0 for UNDEFINED and STRING. */
gsize        graph_dtype_size (GraphDType dtype);
/* "Float", "Long", ... as PyTorch prints tensor types; "Tensor" for UNDEFINED. */
const char  *graph_dtype_torch_name (GraphDType dtype);
/* "float", "int64", ... */
const char  *graph_dtype_name (GraphDType dtype);
/* Inverse lookups; return FALSE when the name is unknown. */
gboolean     graph_dtype_from_torch_name (const char *name, GraphDType *out);
gboolean     graph_dtype_from_name (const char *name, GraphDType *out);
gboolean     graph_dtype_is_floating (GraphDType dtype);
/* torch's promotion order of the numeric types (bool < 8-bit < int16 <
 * int32 < int64 < 16-bit floats < float < double); -1 for the others. */
int          graph_dtype_promotion_rank (GraphDType dtype);
gboolean     graph_dtype_is_integer (GraphDType dtype);

/* ------------------------------------------------------------------------ */
/* Tensor: element type, shape and a refcounted payload.                     */

typedef struct _Tensor Tensor;

/* Largest rank and element count we accept anywhere (bad-input guard). */
#define TENSOR_MAX_RANK 64
/* The largest byte size a declared (traced) tensor type may have: 256 TiB,
 * far beyond any real tensor; larger declared shapes are malformed input. */
#define GRAPH_MAX_DECLARED_BYTES (G_GUINT64_CONSTANT (1) << 48)

/* Creates a tensor over `data` (ref taken; may be NULL for "shape known, data
 * unknown", e.g. a `<Tensor>` constant read from text).  Fails if the byte
 * size does not match the shape, a dim is negative, or the element count
 * overflows.  STRING tensors use tensor_new_strings().  (transfer full) */
Tensor      *tensor_new (GraphDType dtype, guint rank, const gint64 *dims,
                         GBytes *data, GError **error);
/* A zero-filled tensor (fails on overflow or absurd size). */
/* t's elements converted to `to` (numbers through double, as C casts
 * them; booleans are nonzero), a new tensor of t's shape; NULL with
 * GRAPH_ERROR_TENSOR for a data-less or string tensor or an unsupported
 * target.  (transfer full) */
Tensor      *tensor_cast (const Tensor *t, GraphDType to, GError **error);
Tensor      *tensor_new_zeroed (GraphDType dtype, guint rank, const gint64 *dims,
                                GError **error);
/* Copies `nbytes` from `data`. */
Tensor      *tensor_new_from_data (GraphDType dtype, guint rank, const gint64 *dims,
                                   gconstpointer data, gsize nbytes, GError **error);
/* Convenience for 0-d and 1-d constants. */
Tensor      *tensor_new_scalar_double (GraphDType dtype, double v);
Tensor      *tensor_new_scalar_int64 (GraphDType dtype, gint64 v);
Tensor      *tensor_new_int64_vector (gsize n, const gint64 *v);
/* STRING tensor: `strings` holds numel GBytes (refs taken). */
Tensor      *tensor_new_strings (guint rank, const gint64 *dims,
                                 GBytes *const *strings, GError **error);

/* Deferred data: `fill` writes elements [first, first + count) of the
 * tensor into `dst` (count * element size bytes).  The bytes are computed
 * on first use of tensor_data()/tensor_bytes()/tensor_get_*() and kept from
 * then on; a writer can instead stream them with tensor_fill() in pieces,
 * so a large derived tensor (a fused Conv weight) is never held whole.
 * `fill` must be pure: the same range always gives the same bytes, and it
 * may be called from any thread; `dst` is aligned for the element type.
 * Numeric element types only.
 * (transfer full) */
typedef void (*TensorFillFunc) (gconstpointer user_data, gint64 first, gint64 count,
                                gpointer dst);
Tensor      *tensor_new_deferred (GraphDType dtype, guint rank, const gint64 *dims,
                                  TensorFillFunc fill, gpointer user_data,
                                  GDestroyNotify destroy, GError **error);
/* TRUE while a deferred tensor's bytes have not been computed. */
gboolean     tensor_is_deferred (const Tensor *t);
/* Copies elements [first, first + count) into `dst` (aligned for the
 * element type): from the data if it is there, else computed by the fill
 * function without keeping them. */
void         tensor_fill (const Tensor *t, gint64 first, gint64 count, gpointer dst);

Tensor      *tensor_ref (Tensor *t);
void         tensor_unref (Tensor *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Tensor, tensor_unref)

GraphDType   tensor_dtype (const Tensor *t);
guint        tensor_rank (const Tensor *t);
const gint64*tensor_dims (const Tensor *t);
gint64       tensor_dim (const Tensor *t, guint i);
gint64       tensor_numel (const Tensor *t);
gsize        tensor_nbytes (const Tensor *t);
gboolean     tensor_has_data (const Tensor *t);
/* (transfer none) NULL when the data is unknown or for STRING tensors. */
GBytes      *tensor_bytes (const Tensor *t);
gconstpointer tensor_data (const Tensor *t);
/* STRING tensors: element i (transfer none). */
GBytes      *tensor_string (const Tensor *t, gint64 i);
/* Element i converted to double / int64 (any numeric dtype). */
double       tensor_get_double (const Tensor *t, gint64 i);
/* The name a tensor-valued attribute's TensorProto carries (ONNX keeps
 * it; initializers are named by their value instead).  NULL: none.  Set
 * it only on a tensor not yet shared. */
const char  *tensor_get_name (const Tensor *t);
void         tensor_set_name (Tensor *t, const char *name);
gint64       tensor_get_int64 (const Tensor *t, gint64 i);
/* Same dtype, shape and bytes. */
gboolean     tensor_equal (const Tensor *a, const Tensor *b);

/* Checked arithmetic for element counts: FALSE on overflow, negative dims
 * or a count above G_MAXINT64 / elem size. */
gboolean     tensor_shape_numel (guint rank, const gint64 *dims, gint64 *numel);
gboolean     tensor_shape_nbytes (GraphDType dtype, guint rank, const gint64 *dims,
                                  gsize *nbytes);

/* ------------------------------------------------------------------------ */
/* Types                                                                     */

typedef struct _GraphType GraphType;

typedef enum
{
  GRAPH_TYPE_TENSOR,        /* Float(1, 3, *, batch) / Tensor */
  GRAPH_TYPE_SPARSE_TENSOR, /* ONNX sparse tensors (shape as TENSOR) */
  GRAPH_TYPE_INT,
  GRAPH_TYPE_FLOAT,
  GRAPH_TYPE_BOOL,
  GRAPH_TYPE_STR,
  GRAPH_TYPE_NONE,          /* NoneType */
  GRAPH_TYPE_DEVICE,
  GRAPH_TYPE_NUMBER,        /* Scalar */
  GRAPH_TYPE_NAMED,         /* other builtin trace types: Layout, ScalarType,
                               MemoryFormat, Generator, Any, Storage ... */
  GRAPH_TYPE_LIST,          /* int[], Tensor[]; ONNX sequence */
  GRAPH_TYPE_TUPLE,         /* (Tensor, Tensor) */
  GRAPH_TYPE_OPTIONAL,      /* Tensor? ; ONNX optional */
  GRAPH_TYPE_DICT,          /* Dict(str, Tensor); ONNX map */
  GRAPH_TYPE_CLASS,         /* __torch__.torchvision.models.resnet.ResNet */
} GraphTypeKind;

typedef enum
{
  GRAPH_DIM_UNKNOWN,        /* printed "*" */
  GRAPH_DIM_STATIC,         /* printed as the number */
  GRAPH_DIM_SYMBOLIC,       /* printed by name, e.g. "batch" */
} GraphDimKind;

typedef struct
{
  GraphDimKind kind;
  gint64       value;       /* STATIC */
  const char  *symbol;      /* SYMBOLIC (interned) */
} GraphDim;

/* Tensor types.  rank < 0: rank unknown.  dims may be NULL when rank <= 0.
 * (transfer full) */
GraphType   *graph_type_new_tensor (GraphDType dtype, int rank, const GraphDim *dims);
/* All-static shape helper. */
GraphType   *graph_type_new_tensor_static (GraphDType dtype, guint rank, const gint64 *dims);
GraphType   *graph_type_new_sparse_tensor (GraphDType dtype, int rank, const GraphDim *dims);
/* Optional trace annotations on tensor types, as PyTorch prints them:
 * strides=[...] (NULL: absent), requires_grad (-1 absent, 0/1), device
 * (NULL absent).  Returns a new type. */
GraphType   *graph_type_with_trace_info (const GraphType *t, const gint64 *strides,
                                         int requires_grad, const char *device);
/* A copy marked quantized (UINT8/INT8/INT32 only): Note [Quantized tensor types] */
GraphType   *graph_type_with_quantized (const GraphType *t);
gboolean     graph_type_is_quantized (const GraphType *t);
/* "QUInt8", "QInt8", "QInt32" for UINT8, INT8, INT32; NULL otherwise */
const char  *graph_type_quantized_name (GraphDType dtype);
GraphType   *graph_type_new_simple (GraphTypeKind kind);   /* INT, FLOAT, BOOL, STR, NONE, DEVICE, NUMBER */
GraphType   *graph_type_new_named (const char *name);      /* GRAPH_TYPE_NAMED */
GraphType   *graph_type_new_class (const char *qualified_name);
GraphType   *graph_type_new_list (GraphType *elem);        /* elem: transfer full */
GraphType   *graph_type_new_optional (GraphType *elem);    /* elem: transfer full */
GraphType   *graph_type_new_dict (GraphType *key, GraphType *value);  /* transfer full */
GraphType   *graph_type_new_tuple (guint n, GraphType *const *elems); /* transfer full each */

GraphType   *graph_type_ref (GraphType *t);
void         graph_type_unref (GraphType *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GraphType, graph_type_unref)

GraphTypeKind graph_type_kind (const GraphType *t);
gboolean     graph_type_is_tensor (const GraphType *t);   /* TENSOR or SPARSE_TENSOR */
GraphDType   graph_type_dtype (const GraphType *t);        /* tensor types */
int          graph_type_rank (const GraphType *t);         /* -1 unknown */
const GraphDim *graph_type_dim (const GraphType *t, guint i);
/* TRUE and the static shape in dims[] (rank entries) if every dim is static. */
gboolean     graph_type_static_shape (const GraphType *t, gint64 *dims);
const gint64*graph_type_strides (const GraphType *t);      /* NULL: absent */
int          graph_type_requires_grad (const GraphType *t);/* -1: absent */
const char  *graph_type_device (const GraphType *t);       /* NULL: absent */
const char  *graph_type_name (const GraphType *t);         /* NAMED, CLASS */
guint        graph_type_n_elems (const GraphType *t);      /* LIST/OPTIONAL 1, DICT 2, TUPLE n */
GraphType   *graph_type_elem (const GraphType *t, guint i);/* (transfer none) */
gboolean     graph_type_equal (const GraphType *a, const GraphType *b);
/* PyTorch spelling: "Float(1, 3, *, batch)", "int[]", "(Tensor, int)", ...
 * (transfer full) */
char        *graph_type_to_string (const GraphType *t);

/* ------------------------------------------------------------------------ */
/* Graphs, nodes, values                                                     */

typedef struct _Graph Graph;
typedef struct _GraphNode GraphNode;
typedef struct _GraphValue GraphValue;

typedef struct
{
  GraphNode *node;
  guint      index;   /* input slot of `node` */
} GraphUse;

Graph       *graph_new (void);
void         graph_free (Graph *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Graph, graph_free)

/* Model-level information carried with the graph (ONNX ModelProto fields). */
const char  *graph_get_name (const Graph *g);
void         graph_set_name (Graph *g, const char *name);
const char  *graph_get_doc_string (const Graph *g);
void         graph_set_doc_string (Graph *g, const char *doc);
/* Opset imports: domain ("" = ONNX default domain) → version. */
void         graph_set_opset (Graph *g, const char *domain, gint64 version);
/* Returns -1 when the domain is not imported. */
gint64       graph_get_opset (const Graph *g, const char *domain);
/* Sorted by domain; (transfer container) array of const char* domains. */
GPtrArray   *graph_list_opset_domains (const Graph *g);
void         graph_clear_opsets (Graph *g);
/* Free-form model properties: "producer_name", "producer_version",
 * "ir_version", "model_domain", "model_version", "model_doc_string" and
 * "metadata:KEY" entries; NULL when unset. */
const char  *graph_get_property (const Graph *g, const char *key);
void         graph_set_property (Graph *g, const char *key, const char *value);
/* (transfer container) sorted keys */
GPtrArray   *graph_list_properties (const Graph *g);

/* A graph whose nodes may use values of `outer` (for If/Loop/Scan bodies);
 * attach it with graph_node_set_g() on a node of `outer`.  (transfer full) */
Graph       *graph_new_subgraph (Graph *outer);
/* The enclosing graph of a subgraph. */
Graph       *graph_get_outer (const Graph *g);
/* Whether g is root or a subgraph nested in it (its values may be read
 * from g). */
gboolean     graph_is_within (const Graph *g, const Graph *root);
GraphNode   *graph_get_owner_node (const Graph *g);

/* Inputs and outputs.
 * Before: graph(%x : Float(2)):\n  return ()
 * graph_add_input (g, "w", Float(2)) → graph(%x : Float(2),\n      %w : Float(2)) */
GraphValue  *graph_add_input (Graph *g, const char *name, GraphType *type /* transfer none, may be NULL */);
guint        graph_n_inputs (const Graph *g);
GraphValue  *graph_input (const Graph *g, guint i);
/* Removes an unused graph input.  FALSE (and nothing changes) if it has uses. */
gboolean     graph_remove_input (Graph *g, guint i);
/* Before: return (%y)      graph_add_output (g, z) → return (%y, %z) */
void         graph_add_output (Graph *g, GraphValue *v);
guint        graph_n_outputs (const Graph *g);
GraphValue  *graph_output (const Graph *g, guint i);
void         graph_set_output (Graph *g, guint i, GraphValue *v);
void         graph_remove_output (Graph *g, guint i);

/* Initializers: a graph input that carries a constant tensor (weights).
 * Note [Initializers]: in the IR every initializer is a graph input with a
 * tensor attached, as in PyTorch's exported graphs; the ONNX writer lists it
 * in graph.input only if graph_value_initializer_is_input() says so. */
GraphValue  *graph_add_initializer (Graph *g, const char *name, Tensor *t /* transfer none */);
Tensor      *graph_value_get_initializer (const GraphValue *v);   /* (transfer none) */
/* The tensor of an onnx::Constant node's `value` that v is the output of,
 * or NULL (an initializer is not a Constant).  (transfer none) */
Tensor      *graph_value_constant_tensor (const GraphValue *v);
void         graph_value_set_initializer (GraphValue *v, Tensor *t);/* ref taken; NULL clears */
gboolean     graph_value_initializer_is_input (const GraphValue *v);
void         graph_value_set_initializer_is_input (GraphValue *v, gboolean is_input);

/* Node list, in topological order. */
GraphNode   *graph_first_node (const Graph *g);
GraphNode   *graph_last_node (const Graph *g);
GraphNode   *graph_node_next (const GraphNode *n);
GraphNode   *graph_node_prev (const GraphNode *n);
guint        graph_n_nodes (const Graph *g);
#define graph_foreach_node(g, n) \
  for (GraphNode *n = graph_first_node (g); n != NULL; n = graph_node_next (n))

/* Creating nodes.
 * graph_create_node makes a detached node of `kind` with the given inputs
 * (NULL entries are absent optional inputs) and n_outputs fresh outputs; it
 * is not in the node list until inserted.  Returns NULL with a g_critical
 * when `kind` is not a valid symbol. */
GraphNode   *graph_create_node (Graph *g, const char *kind, guint n_inputs,
                                GraphValue *const *inputs, guint n_outputs);
/* Insert point: graph_insert_node() and the builder put new nodes before
 * `before`; NULL (the default) means at the end, before the return.
 * Before: %a = A(), %b = B()  set_insert_point(B); op(C) → %a = A(), %c = C(), %b = B() */
void         graph_set_insert_point (Graph *g, GraphNode *before);
GraphNode   *graph_get_insert_point (const Graph *g);
void         graph_insert_node (Graph *g, GraphNode *n);
/* Before: %a = A(), %b = B()   insert_before(C, B) → %a = A(), %c = C(), %b = B()
 * Moves the node if it is already in the list. */
void         graph_node_insert_before (GraphNode *n, GraphNode *ref);
/* Before: %a = A(), %b = B()   insert_after(C, A) → %a = A(), %c = C(), %b = B() */
void         graph_node_insert_after (GraphNode *n, GraphNode *ref);
/* Removes the node from the list and frees it, dropping its input uses.
 * Fails (g_critical, FALSE) if any output still has uses or is a graph
 * output.  Before: %a = A(), %b = B(%a) [b unused]  destroy(B) → %a = A() */
gboolean     graph_node_destroy (GraphNode *n);

/* Node accessors */
Graph       *graph_node_graph (const GraphNode *n);
const char  *graph_node_kind (const GraphNode *n);     /* interned "dom::op" */
/* The op part ("Elu") and the domain part ("onnx"); both interned. */
const char  *graph_node_op_type (const GraphNode *n);
const char  *graph_node_domain (const GraphNode *n);
gboolean     graph_node_is (const GraphNode *n, const char *kind);
guint        graph_node_n_inputs (const GraphNode *n);
GraphValue  *graph_node_input (const GraphNode *n, guint i);   /* NULL: absent */
guint        graph_node_n_outputs (const GraphNode *n);
GraphValue  *graph_node_output (const GraphNode *n, guint i);
/* Before: %c = Add(%a, %b)   set_input(n, 1, %x) → %c = Add(%a, %x) */
void         graph_node_set_input (GraphNode *n, guint i, GraphValue *v);
/* Before: %c = Concat(%a)   add_input(n, %b) → %c = Concat(%a, %b) */
void         graph_node_add_input (GraphNode *n, GraphValue *v);
/* Before: %c = Concat(%a, %b)   remove_input(n, 0) → %c = Concat(%b) */
void         graph_node_remove_input (GraphNode *n, guint i);
/* Before: %a, %b = Split(%x)  add_output(n) → %a, %b, %c = Split(%x) */
GraphValue  *graph_node_add_output (GraphNode *n);
/* Removes an unused output (FALSE if used or a graph output). */
gboolean     graph_node_remove_output (GraphNode *n, guint i);
/* Scope ("M::/Conv2d::conv", "__module.conv1") and source location
 * ("/path/file.py:12:0"), as PyTorch prints them; NULL when absent. */
const char  *graph_node_get_scope (const GraphNode *n);
void         graph_node_set_scope (GraphNode *n, const char *scope);
const char  *graph_node_get_source (const GraphNode *n);
void         graph_node_set_source (GraphNode *n, const char *source);
/* Node names are unique within a graph: a taken name gets ".1", ".2"... */
const char  *graph_node_get_name (const GraphNode *n);
const char  *graph_node_set_name (GraphNode *n, const char *name);
const char  *graph_node_get_doc_string (const GraphNode *n);
void         graph_node_set_doc_string (GraphNode *n, const char *doc);
GraphNode   *graph_find_node (const Graph *g, const char *name);

/* Values */
Graph       *graph_value_graph (const GraphValue *v);
/* The node producing v, or NULL for a graph input. */
/* The value readers below take NULL (an absent optional input) and give
 * NULL / 0 for it. */
GraphNode   *graph_value_node (const GraphValue *v);
guint        graph_value_offset (const GraphValue *v);  /* output index in its node */
GraphType   *graph_value_type (const GraphValue *v);    /* (transfer none), NULL: unknown */
void         graph_value_set_type (GraphValue *v, GraphType *t);  /* ref taken; NULL clears */
/* Value names are unique within a graph: setting a name another value holds
 * gives this value "name.1" (then ".2"...).  NULL clears.  Returns the name
 * actually set.  Unnamed values print as %<id>. */
const char  *graph_value_get_name (const GraphValue *v);
const char  *graph_value_set_name (GraphValue *v, const char *name);
guint        graph_value_id (const GraphValue *v);     /* unique per graph, stable */
GraphValue  *graph_find_value (const Graph *g, const char *name);
guint        graph_value_n_uses (const GraphValue *v);
const GraphUse *graph_value_use (const GraphValue *v, guint i);
gboolean     graph_value_is_graph_output (const GraphValue *v);
/* Every use of `old` (node inputs and graph outputs) now uses `new_v`.
 * Before: %b = Relu(%a); %c = Add(%a, %b); return (%a)
 * replace_all_uses(%a, %x) → %b = Relu(%x); %c = Add(%x, %b); return (%x) */
void         graph_value_replace_all_uses (GraphValue *old, GraphValue *new_v);
/* The live value that now stands for v: v itself while it is alive and was
 * never replaced, else the end of its chain of replace_all_uses targets;
 * NULL when that value is gone (its node destroyed).  Values stay
 * addressable until graph_free, so a pass's caller can keep pointers to
 * values across passes and ask where they went (export keeps each trace
 * value's ONNX counterpart this way).
 * Before: %b = Relu(%a) ... replace_all_uses(%b, %c); destroy(Relu) → resolve(%b) = %c */
GraphValue  *graph_value_resolve (GraphValue *v);

/* Absent optional input marker for the builder (stored as NULL). */
extern GraphValue graph_absent_input_;
#define GRAPH_ABSENT (&graph_absent_input_)

/* ------------------------------------------------------------------------ */
/* Attributes                                                                */

typedef enum
{
  GRAPH_ATTR_F,   /* double */
  GRAPH_ATTR_I,   /* gint64 */
  GRAPH_ATTR_S,   /* string */
  GRAPH_ATTR_T,   /* Tensor* */
  GRAPH_ATTR_G,   /* Graph* (owned by the node) */
  GRAPH_ATTR_TP,  /* GraphType* (ONNX TYPE_PROTO) */
  GRAPH_ATTR_FS,
  GRAPH_ATTR_IS,
  GRAPH_ATTR_SS,
  GRAPH_ATTR_TS,
  GRAPH_ATTR_GS,
  GRAPH_ATTR_TPS,
} GraphAttrKind;

/* "f", "i", "s", "t", "g", "tp", "fs", ... (the builder suffixes) */
const char  *graph_attr_kind_suffix (GraphAttrKind kind);
gboolean     graph_attr_kind_from_suffix (const char *suffix, GraphAttrKind *out);

/* Attributes are kept sorted by name, as PyTorch's exporter adds them. */
guint        graph_node_n_attrs (const GraphNode *n);
const char  *graph_node_attr_name (const GraphNode *n, guint i);  /* interned */
gboolean     graph_node_has_attr (const GraphNode *n, const char *name);
/* FALSE when absent. */
gboolean     graph_node_attr_kind (const GraphNode *n, const char *name, GraphAttrKind *kind);
gboolean     graph_node_remove_attr (GraphNode *n, const char *name);

/* Setters replace an attribute of the same name whatever its kind. */
void         graph_node_set_f (GraphNode *n, const char *name, double v);
void         graph_node_set_i (GraphNode *n, const char *name, gint64 v);
void         graph_node_set_s (GraphNode *n, const char *name, const char *v);
/* Byte strings (ONNX attribute `s` is bytes and may hold NULs). */
void         graph_node_set_s_len (GraphNode *n, const char *name, const char *v, gsize len);
void         graph_node_set_t (GraphNode *n, const char *name, Tensor *v);      /* ref taken */
/* Takes ownership of `sub` and makes `n`'s graph its outer graph. */
void         graph_node_set_g (GraphNode *n, const char *name, Graph *sub);
void         graph_node_set_tp (GraphNode *n, const char *name, GraphType *v);  /* ref taken */
void         graph_node_set_fs (GraphNode *n, const char *name, gsize len, const double *v);
void         graph_node_set_is (GraphNode *n, const char *name, gsize len, const gint64 *v);
void         graph_node_set_ss (GraphNode *n, const char *name, gsize len, const char *const *v);
void         graph_node_set_ts (GraphNode *n, const char *name, gsize len, Tensor *const *v);
void         graph_node_set_gs (GraphNode *n, const char *name, gsize len, Graph *const *v);
void         graph_node_set_tps (GraphNode *n, const char *name, gsize len, GraphType *const *v);

/* Getters return FALSE when the attribute is absent or of another kind. */
gboolean     graph_node_get_f (const GraphNode *n, const char *name, double *v);
gboolean     graph_node_get_i (const GraphNode *n, const char *name, gint64 *v);
/* (transfer none); len may be NULL */
gboolean     graph_node_get_s (const GraphNode *n, const char *name, const char **v, gsize *len);
gboolean     graph_node_get_t (const GraphNode *n, const char *name, Tensor **v);
gboolean     graph_node_get_g (const GraphNode *n, const char *name, Graph **v);
gboolean     graph_node_get_tp (const GraphNode *n, const char *name, GraphType **v);
gboolean     graph_node_get_fs (const GraphNode *n, const char *name, gsize *len, const double **v);
gboolean     graph_node_get_is (const GraphNode *n, const char *name, gsize *len, const gint64 **v);
gboolean     graph_node_get_ss (const GraphNode *n, const char *name, gsize *len, const char *const **v);
gboolean     graph_node_get_ts (const GraphNode *n, const char *name, gsize *len, Tensor *const **v);
gboolean     graph_node_get_gs (const GraphNode *n, const char *name, gsize *len, Graph *const **v);
/* The subgraphs attribute `name` holds: one (a graph attribute, stored in
 * *one and pointed to by *subs) or a list; 0 for any other attribute.
 *   Graph *one; Graph *const *subs;
 *   for (gsize k = 0, len = graph_node_attr_subgraphs (n, name, &one, &subs); k < len; k++) */
gsize        graph_node_attr_subgraphs (const GraphNode *n, const char *name, Graph **one,
                                        Graph *const **subs);
gboolean     graph_node_get_tps (const GraphNode *n, const char *name, gsize *len, GraphType *const **v);
/* Copies every attribute of `from` onto `to` (deep-copying subgraphs). */
void         graph_node_copy_attrs (GraphNode *to, const GraphNode *from);

/* ------------------------------------------------------------------------ */
/* Builder: what symbolic functions are written with.
 *
 *   graph_op (g, "Elu", x, "alpha_f", 1.0, NULL);
 *   graph_op (g, "Transpose", x, "perm_is", 2, perm, NULL);
 *   graph_op (g, "mydomain::MyOp", a, b, NULL);
 *   graph_at (g, "mul", x, x, NULL);         → ATen[operator="mul", overload_name=""]
 *   graph_at (g, "pow", x, "exponent_f", 2.0, NULL);
 *   graph_at (g, "ones", "type_s", "float", "size_is", 2, sizes, NULL);
 *
 * Arguments: input values (GRAPH_ABSENT for an absent optional input), then
 * key/value pairs, then one NULL.  The key's suffix says what C type is read:
 *   _f  double        _i  gint64          _s  const char *
 *   _t  Tensor *      _g  Graph * (ownership passes to the node)
 *   _tp GraphType *
 *   _fs int count, const double *         _is int count, const gint64 *
 *   _ss int count, const char *const *    _ts int count, Tensor *const *
 *   _gs int count, Graph *const *         _tps int count, GraphType *const *
 * Pass `_i` values as gint64 and `_f` values as double (write 1.0, not 1, and
 * (gint64) -1 or G_GINT64_CONSTANT (-1)): C varargs do not convert.
 * An unqualified kind is an ONNX op ("Elu" → "onnx::Elu").  A malformed
 * kind, a key without a known suffix, a NULL string, tensor or graph value,
 * or a negative count is a g_critical and a NULL return, and nothing is
 * added to the graph — or, while the graph captures builder errors, no
 * critical but an error kept on the graph (Note [Builder errors]). */
GraphValue  *graph_op (Graph *g, const char *kind, ...) G_GNUC_NULL_TERMINATED;
/* Several outputs (e.g. Split): returns the node. */
GraphNode   *graph_op_outputs (Graph *g, const char *kind, guint n_outputs, ...)
                               G_GNUC_NULL_TERMINATED;
/* Inputs from an array (e.g. Concat), then only key/value pairs. */
GraphValue  *graph_opv (Graph *g, const char *kind, guint n_inputs,
                        GraphValue *const *inputs, ...) G_GNUC_NULL_TERMINATED;
/* General form: input array, n outputs, key/value pairs; returns the node. */
GraphNode   *graph_opv_outputs (Graph *g, const char *kind, guint n_inputs,
                                GraphValue *const *inputs, guint n_outputs, ...)
                                G_GNUC_NULL_TERMINATED;
GraphNode   *graph_opv_outputs_valist (Graph *g, const char *kind, guint n_inputs,
                                       GraphValue *const *inputs, guint n_outputs,
                                       va_list ap);
/* An org.pytorch.aten::ATen node with operator=`op` (and overload_name ""
 * unless "overload_name_s" is given). */
GraphValue  *graph_at (Graph *g, const char *op, ...) G_GNUC_NULL_TERMINATED;

/* Note [Builder errors]
 * Code that runs other people's builder calls (the symbolic pass runs each
 * symbolic function) turns capturing on: then a misused call (a key without
 * a type suffix...) still returns NULL and builds nothing, but instead of a
 * g_critical its message is kept on the graph — the first one — until
 * graph_builder_take_error, so the caller can fail with a GError naming the
 * function that misbehaved.  A NULL from an inner call can end an outer
 * call's argument list early (graph_op (g, "Add", x, graph_op (...), NULL)
 * builds Add(x)): a captured error means the whole function's output is to
 * be thrown away. */
#define GRAPH_BUILDER_ERROR (graph_builder_error_quark ())
GQuark       graph_builder_error_quark (void);
void         graph_builder_capture_errors (Graph *g, gboolean capture);
/* The first error captured since the last call, or NULL.  (transfer full) */
GError      *graph_builder_take_error (Graph *g);

/* Symbols */
/* Interned "dom::op" for `kind`; unqualified names get `default_domain`.
 * NULL if the kind is malformed (empty op or domain, whitespace, control
 * characters). */
const char  *graph_symbol (const char *kind, const char *default_domain);
#define GRAPH_ONNX_DOMAIN "onnx"
#define GRAPH_ATEN_DOMAIN "org.pytorch.aten"
#define GRAPH_KIND_ATEN   "org.pytorch.aten::ATen"
/* A torch.autograd.Function call in a trace, printed by PyTorch as
 * `^MyFunction[attrs](scalar args)(%inputs)`: kind prim::PythonOp, with the
 * Function's name and the scalar-argument text kept in these attributes.
 * Its body is not in the text: its `Subgraph` attribute is an empty graph. */
#define GRAPH_KIND_PYTHON_OP      "prim::PythonOp"
#define GRAPH_PYTHON_OP_NAME_ATTR "python_name"
#define GRAPH_PYTHON_OP_ARGS_ATTR "python_args"
/* The Function's body as the trace recorded it (PyTorch's Subgraph
 * attribute; tools/torch2trace.py writes it as a block). */
#define GRAPH_PYTHON_OP_BODY_ATTR "Subgraph"

/* ------------------------------------------------------------------------ */
/* Passes and checks                                                         */

/* Removes nodes whose outputs are unused and not graph outputs, repeatedly,
 * in control-flow bodies (subgraph attributes) too.  Returns the number
 * removed.
 * Before: %a = A(%x); %b = B(%a); return (%x)  → return (%x) */
guint        graph_eliminate_dead_code (Graph *g);
/* Checks every invariant (see ir/lint.c); the first broken one is reported. */
gboolean     graph_lint (const Graph *g, GError **error);
/* Deep copy (subgraphs included).  (transfer full) */
Graph       *graph_copy (const Graph *g);

/* ------------------------------------------------------------------------ */
/* Text (PyTorch 1.13's verbose format) and DOT                              */

/* The shortest decimal text (C locale) that reads back to the same value
 * of `dtype` (FLOAT, DOUBLE, FLOAT16, BFLOAT16): "0.1", "1e+20", "nan".
 * (transfer full) */
char        *graph_float_to_shortest (GraphDType dtype, double v);
/* float16 and bfloat16 bit patterns from and to float (round to nearest
 * even for float16, truncation for bfloat16, as numpy and ONNX's tests). */
float        graph_half_to_float (guint16 h);
guint16      graph_float_to_half (float f);
float        graph_bfloat16_to_float (guint16 h);
guint16      graph_float_to_bfloat16 (float f);
/* Total float → integer conversion, defined where C leaves it undefined,
 * as numpy gives on x86 (cvttsd2si): NaN, ±Inf and values out of range
 * give INT64_MIN, or INT32_MIN for int32 and for the 8/16-bit types (which
 * numpy converts through int32 and then truncate to their low bits); in
 * range it truncates toward zero.  graph_double_to_int picks the rule for
 * the target type; the result is then cast to it. */
gint64       graph_double_to_int64 (double d);
gint32       graph_double_to_int32 (double d);
guint64      graph_double_to_uint64 (double d);
gint64       graph_double_to_int (GraphDType to, double d);
/* (transfer full) */
char        *graph_to_string (const Graph *g);
void         graph_print (const Graph *g, GString *out);
/* Parses our own output and PyTorch's `str(traced.inlined_graph)`.
 * `filename` is only used in error messages ("file:line:col: ...").
 * (transfer full) */
Graph       *graph_parse (const char *text, gsize len, const char *filename, GError **error);
Graph       *graph_parse_file (const char *path, GError **error);
/* Graphviz DOT. */
void         graph_print_dot (const Graph *g, GString *out);

G_END_DECLS
