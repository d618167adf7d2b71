/* symonnx runtime — the kernel interface and registry (for kernel writers).
 *
 * Note [Kernels]
 * A kernel is registered in a table of RtKernelDef, one table per op family
 * file (runtime/k-*.c), listed once in runtime/registry.c.  The key is
 * (domain, op type, opset range): "onnx" is ONNX's default domain, "aten"
 * holds the ATen kernels, which run both `org.pytorch.aten::ATen` nodes (by
 * their `operator` attribute) and the `aten::op` nodes of a trace graph.
 * Opsets do not apply to "aten" and "prim".
 *
 * A kernel reads its attributes from the node (rt_attr_* below, or
 * graph_node_get_*), its inputs from call->inputs (NULL: an absent optional
 * input) and allocates each output with rt_call_output(), which takes the
 * memory from the session's slot for that value.  Inputs are read-only.
 * Errors: return FALSE with rt_call_error(); never abort.
 *
 * Note [RtTensor]
 * Inside a run, tensors are plain structs over borrowed memory (a slot, an
 * initializer, a caller's input) with the shape inline: no refcounting and
 * no allocation per node.  Data is C-contiguous.  Conversion to IR Tensors
 * happens only at the session boundary.  STRING tensors hold `GBytes *`
 * elements (rt_call_keep_string).
 *
 * Note [Sequences and optionals]
 * An RtTensor is also the run-time form of ONNX's other values, told apart
 * by `kind` (0, the default of a zeroed struct, is a tensor):
 * RT_KIND_SEQUENCE has `data` pointing to an RtSequence of tensors and
 * `dtype` its element type (UNDEFINED when unknown); RT_KIND_NONE is an
 * optional without a value.  An optional holding a value is that value.
 * Kernels get sequence/optional inputs only if they are listed in
 * rt_kernel_takes_values() (session.c); the others see tensors only.
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"
#include "runtime/runtime.h"

G_BEGIN_DECLS

#define RT_MAX_RANK 16

typedef struct
{
  GraphDType dtype;
  guint      rank;
  gint64     dims[RT_MAX_RANK];
  gint64     numel;
  void      *data;
  int        kind;      /* RtKind (Note [Sequences and optionals]) */
  double     qscale;    /* > 0: a quantized tensor (Note [Quantized tensors]); 0: not */
  gint64     qzero;     /* its zero point */
} RtTensor;

typedef enum
{
  RT_KIND_TENSOR = 0,
  RT_KIND_SEQUENCE,
  RT_KIND_NONE,
} RtKind;

/* Note [Quantized tensors]
 * A PyTorch quantized tensor (QUInt8, QInt8, QInt32 in a trace) runs as
 * its integer values (UINT8, INT8, INT32 data, what int_repr() gives) with
 * its per-tensor scale and zero point in the struct: qscale > 0 marks it.
 * Nothing else changes, so every loop over elements, the planner and the
 * slots see an ordinary integer tensor, and a zeroed struct is not
 * quantized.  rt_call_output() clears both fields; a kernel making a
 * quantized output sets them (rt_set_quantized).  Per-channel parameters
 * only occur on the weights of quantized::conv2d / linear, which reach
 * the kernel as explicit scale / zero-point tensors (verify/runnable.c's
 * Note [Packed parameters in the trace run]).
 *
 * Dispatch follows PyTorch's (a QuantizedCPU kernel for a quantized
 * argument): a trace's aten:: node whose inputs are declared quantized
 * runs the kernel registered in domain RT_ATEN_QUANTIZED ("relu" there is
 * the quantized relu, clamping at the zero point); the quantized:: ops
 * (quantized::conv2d ...) have their own domain, "quantized".  An
 * ordinary "aten" kernel given a quantized tensor at run time is refused
 * (it would compute on the integers as if they were the values). */
#define RT_ATEN_QUANTIZED "aten-quantized"

static inline gboolean
rt_is_quantized (const RtTensor *t)
{
  return t != NULL && t->kind == RT_KIND_TENSOR && t->qscale > 0;
}

static inline void
rt_set_quantized (RtTensor *t, double scale, gint64 zero_point)
{
  t->qscale = scale;
  t->qzero = zero_point;
}

typedef struct
{
  guint     n;
  RtTensor *items;      /* n tensors */
} RtSequence;

/* The sequence of a RT_KIND_SEQUENCE value; NULL for other kinds. */
static inline const RtSequence *
rt_sequence (const RtTensor *t)
{
  return t && t->kind == RT_KIND_SEQUENCE ? (const RtSequence *) t->data : NULL;
}

typedef struct _RtSession RtContext;

typedef struct
{
  RtContext        *ctx;
  const GraphNode  *node;
  gint64            opset;      /* of the node's domain; 0 for aten/prim */
  gpointer          state;      /* what prepare() returned */
  gconstpointer     data;       /* the kernel row's .data */
  guint             n_inputs;
  const RtTensor  **inputs;     /* NULL entries: absent */
  guint             n_outputs;
  guint             out_base;   /* private */
} RtCall;

typedef gboolean (*RtKernelFn) (RtCall *call, GError **error);
/* Optional, run once when the session is made: validate attributes and
 * precompute.  *state is freed with g_free unless the def names free_state. */
typedef gboolean (*RtPrepareFn) (const GraphNode *node, gint64 opset, gpointer *state,
                                 GError **error);

#define RT_VARIADIC 255

typedef struct
{
  const char *domain;
  const char *op;
  int         since, until;     /* inclusive opset range; until 0: open */
  guint8      min_in, max_in, min_out, max_out;
  guint32     dtypes;           /* element types allowed for input 0; 0: any */
  RtKernelFn  run;
  RtPrepareFn prepare;
  GDestroyNotify free_state;
  gconstpointer data;           /* the row's constant for a shared run(): call->data */
} RtKernelDef;

/* Kernel rows name their fields (designated initialisers):
 *   { RT_ONNX ("IsInf", 10), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS,
 *     .run = k_isinf_isnan },
 * plus `.until = 12` for a closed opset range, `.prepare`/`.free_state`,
 * and `.data` for a family whose rows share one run(). */
#define RT_ONNX(op_, since_)          .domain = "onnx", .op = (op_), .since = (since_)
#define RT_DOMAIN(dom_, op_, since_)  .domain = (dom_), .op = (op_), .since = (since_)
#define RT_ATEN(op_)                  .domain = "aten", .op = (op_)
#define RT_IN(lo, hi)                 .min_in = (lo), .max_in = (hi)
#define RT_OUT(lo, hi)                .min_out = (lo), .max_out = (hi)
/* The usual ATen kernel: lo..hi schema arguments, one output. */
#define RT_ATEN_ROW(op_, lo, hi, fn)  { RT_ATEN (op_), RT_IN (lo, hi), RT_OUT (1, 1), .run = (fn) }

typedef struct
{
  const RtKernelDef *defs;
  gsize              n_defs;
} RtKernelTable;

#define RT_KERNEL_TABLE(name, array) \
  const RtKernelTable name = { array, G_N_ELEMENTS (array) }

#define RT_DT(e) (1u << GRAPH_DTYPE_##e)
#define RT_DT_FLOATS (RT_DT (FLOAT) | RT_DT (DOUBLE))
#define RT_DT_INTS (RT_DT (INT8) | RT_DT (INT16) | RT_DT (INT32) | RT_DT (INT64) \
                    | RT_DT (UINT8) | RT_DT (UINT16) | RT_DT (UINT32) | RT_DT (UINT64))
#define RT_DT_NUMERIC (RT_DT_FLOATS | RT_DT_INTS)
#define RT_DT_ALL (RT_DT_NUMERIC | RT_DT (BOOL))

/* X(ENUM, C type): the element types kernels are generated for. */
#define RT_FOREACH_FLOAT(X) X (FLOAT, float) X (DOUBLE, double)
#define RT_FOREACH_INT(X) \
  X (INT8, gint8) X (INT16, gint16) X (INT32, gint32) X (INT64, gint64) \
  X (UINT8, guint8) X (UINT16, guint16) X (UINT32, guint32) X (UINT64, guint64)
#define RT_FOREACH_NUMERIC(X) RT_FOREACH_FLOAT (X) RT_FOREACH_INT (X)
#define RT_FOREACH_ALL(X) RT_FOREACH_NUMERIC (X) X (BOOL, guint8)

/* A computed value stored into element type E (T): a C cast for float
 * types and for results already of an integer type, but a computed double
 * (or float) going to an integer type converts totally, as rt_convert
 * does (graph_double_to_int, then the low bits): a C cast of NaN, ±Inf or
 * an out-of-range value is undefined (Shrink's bias on int8, found by the
 * onnx-run campaign).  RT_STORE_AS (E, T, v) is (T) v with that rule. */
#define RT_DEFINE_F64_TO_FLOAT(E, T) static inline T rt_f64_to_##E (double d) { return (T) d; }
#define RT_DEFINE_F64_TO_INT(E, T)                                                      \
  static inline T rt_f64_to_##E (double d) { return (T) graph_double_to_int (GRAPH_DTYPE_##E, d); }
RT_FOREACH_FLOAT (RT_DEFINE_F64_TO_FLOAT)
RT_FOREACH_INT (RT_DEFINE_F64_TO_INT)
RT_DEFINE_F64_TO_INT (BOOL, guint8)
#define RT_STORE_AS(E, T, v)                                                            \
  _Generic ((v), double: rt_f64_to_##E ((double) (v)), float: rt_f64_to_##E ((double) (v)), \
            default: (T) (v))

/* Finds the kernel for (domain, op, opset); NULL when none. */
const RtKernelDef *rt_registry_lookup (const char *domain, const char *op, gint64 opset);
/* Whether any opset of (domain, op) has a kernel (for error messages). */
gboolean     rt_registry_has_op (const char *domain, const char *op);

/* ---- what kernels call ---------------------------------------------------- */

/* Allocates output i (shape checked against the session's size limit). */
RtTensor    *rt_call_output (RtCall *call, guint i, GraphDType dtype, guint rank,
                             const gint64 *dims, GError **error);
/* STRING tensors (Note [RtTensor]) hold `GBytes *` elements, NULL for "",
 * borrowed: a kernel making a string passes it here, which takes it and
 * returns it, valid until the session's next run. */
GBytes      *rt_call_keep_string (RtCall *call, GBytes *b);
/* Output i := an empty sequence of `elem` / an optional without value.
 * rt_call_sequence_append() adds an item with fresh memory to output i
 * (made a sequence first) and returns it for the kernel to fill; the
 * pointer is valid until the next append. */
gboolean     rt_call_output_sequence (RtCall *call, guint i, GraphDType elem, GError **error);
gboolean     rt_call_output_none (RtCall *call, guint i, GraphDType elem, GError **error);
RtTensor    *rt_call_sequence_append (RtCall *call, guint i, GraphDType dtype, guint rank,
                                      const gint64 *dims, GError **error);
/* Output i := a copy of v, of any kind. */
gboolean     rt_call_output_value (RtCall *call, guint i, const RtTensor *v, GError **error);
/* Output i as the kernel (or a kernel it ran) made it; NULL before. */
RtTensor    *rt_call_output_tensor (RtCall *call, guint i);
/* Output i with the shape and dtype of `like`. */
RtTensor    *rt_call_output_like (RtCall *call, guint i, const RtTensor *like, GError **error);
/* Scratch memory valid until the kernel returns (reused between nodes).
 * rt_call_scratch_n: RT_N_SCRATCH independent buffers (0 is rt_call_scratch's). */
#define RT_N_SCRATCH 5   /* Conv: 0-2 its paths, 3 a 1x1's sampled x, 4 a fused Conv's output */
gpointer     rt_call_scratch (RtCall *call, gsize nbytes, GError **error);
gpointer     rt_call_scratch_n (RtCall *call, guint which, gsize nbytes, GError **error);
/* Number of OpenBLAS/kernel threads the session runs with (>= 1). */
int          rt_call_threads (const RtCall *call);
/* Runs fn over [0, n) split into at most rt_call_threads() contiguous
 * ranges of at least min_chunk indices (one range, on this thread, when n
 * is small), and returns when all are done.  fn must only write what its
 * range owns; results are then identical to a single-threaded run. */
typedef void (*RtRangeFn) (gint64 begin, gint64 end, gpointer data);
void         rt_parallel_for (const RtCall *call, gint64 n, gint64 min_chunk, RtRangeFn fn,
                              gpointer data);
/* Inside rt_parallel_for's fn: the calling thread's seat, 0 (the thread
 * that called rt_parallel_for, or any thread outside one) to MIN
 * (rt_call_threads (), n) - 1, for picking per-thread scratch: chunks go
 * to whichever thread is free, so a range's seat is not a function of it. */
gint         rt_parallel_seat (void);
/* Sets an RT_ERROR naming the node ("Conv 'conv1': ..."). */
void         rt_call_error (const RtCall *call, GError **error, RtErrorCode code,
                            const char *fmt, ...) G_GNUC_PRINTF (4, 5);
/* Same for prepare(). */
void         rt_node_error (const GraphNode *node, GError **error, RtErrorCode code,
                            const char *fmt, ...) G_GNUC_PRINTF (4, 5);
/* "Conv 'conv1'" (static buffer per thread). */
const char  *rt_node_label (const GraphNode *node);

/* ---- helpers -------------------------------------------------------------- */

gint64       rt_attr_i (const GraphNode *n, const char *name, gint64 def);
double       rt_attr_f (const GraphNode *n, const char *name, double def);
const char  *rt_attr_s (const GraphNode *n, const char *name, const char *def);
/* Integer list attribute; FALSE when absent. */
gboolean     rt_attr_ints (const GraphNode *n, const char *name, gsize *len,
                           const gint64 **v);

/* axis in [-rank, rank) → [0, rank). */
gboolean     rt_axis (const RtCall *call, gint64 axis, guint rank, guint *out,
                      GError **error);
gint64       rt_shape_numel (guint rank, const gint64 *dims);
/* Whether a tensor of this shape may exist in the executor: valid dims, at
 * most max_bytes (its size in *nbytes), and its extent (the dims with each
 * 0 as 1) within max_bytes too (Note [Extent of an empty tensor], util.c). */
gboolean     rt_shape_admissible (GraphDType dtype, guint rank, const gint64 *dims,
                                  guint64 max_bytes, gsize *nbytes);
/* Appends "(3, 0, 8)" to s: a shape for messages. */
void         rt_append_shape (GString *s, guint rank, const gint64 *dims);
/* The product of the dims after `axis` (1 when axis is the last one or
 * past the rank, as for a rank-0 tensor): never reads past dims[rank - 1]. */
gint64       rt_shape_inner (guint rank, const gint64 *dims, guint axis);
/* v for storing into dtype: clamped to an integer type's range (NaN → 0;
 * a max over an empty window, -inf, → the type's lowest, as ONNX Runtime's
 * initial value), unchanged for float types. */
double       rt_saturate (GraphDType dtype, double v);
/* Element i as int64 / double (any numeric or bool dtype, float16 and
 * bfloat16 included; 0 for a string).  An i outside [0, numel) reads 0:
 * kernels check their inputs' sizes, and this is the last guard against a
 * read past the buffer where one does not (Trilu's k, STFT's frame_step
 * and the optimizers' R given as empty tensors read past them). */
gint64       rt_get_i64 (const RtTensor *t, gint64 i);
double       rt_get_f64 (const RtTensor *t, gint64 i);
/* Input i of call, which ONNX defines as a scalar: present and holding
 * exactly one element (rank 0 or [1]), else an error naming `what`.  NULL
 * when absent and `optional`, without an error. */
gboolean     rt_scalar_input (const RtCall *call, guint i, const char *what, gboolean optional,
                              const RtTensor **out, GError **error);
/* Parameters given per tensor (one element) or per channel (quantization
 * scales and zero points, weights): element i, or the one element. */
static inline double
rt_get_f64_per (const RtTensor *t, gint64 i)
{
  return rt_get_f64 (t, t->numel == 1 ? 0 : i);
}
/* Whether t (NULL: absent) holds one value or one per each of n channels. */
static inline gboolean
rt_per_tensor_or (const RtTensor *t, gint64 n)
{
  return t == NULL || t->numel == 1 || t->numel == n;
}
/* Numpy broadcast of a and b's shapes. */
gboolean     rt_broadcast_shape (const RtCall *call, guint ra, const gint64 *da,
                                 guint rb, const gint64 *db, guint *rank, gint64 *dims,
                                 GError **error);
/* Whether t broadcasts *to* rank/dims (numpy rules, the result exactly that
 * shape: a dim of 0 against 1 does not), else an RT_ERROR_SHAPE error
 * naming `what`.  The check before rt_broadcast_strides of an operand that
 * must fit a shape fixed by another (LayerNorm's Scale, Gemm's C...). */
gboolean     rt_broadcasts_to (const RtCall *call, const RtTensor *t, guint rank, const gint64 *dims,
                               const char *what, GError **error);
/* Strides (elements) of `t` broadcast to `rank`/`dims` (0 where broadcast). */
void         rt_broadcast_strides (const RtTensor *t, guint rank, const gint64 *dims,
                                   gint64 *strides);
/* Contiguous strides of a shape. */
void         rt_contiguous_strides (guint rank, const gint64 *dims, gint64 *strides);
gsize        rt_dtype_size (GraphDType d);
/* Steps the row-major multi-index c[0..rank) over dims (last index fastest),
 * wrapping to all zeros after the last element. */
static inline void
rt_index_next (gint64 *c, const gint64 *dims, gint64 rank)
{
  for (gint64 j = rank - 1; j >= 0; j--)
    {
      if (++c[j] < dims[j])
        return;
      c[j] = 0;
    }
}
/* Reshape, Flatten, Squeeze, Unsqueeze, Transpose and Expand, for backends
 * that run them elsewhere: where the op's list argument is (the input
 * index, or -1 and *attr the attribute's name, or 0: none), and the output
 * shape from that list as the CPU kernel computes it (its errors too).
 * *same_bytes: the output is the input's bytes in order (the first four);
 * otherwise output element i is the input's at the offset `strides` gives
 * for i's index (element strides, 0 where Expand broadcasts). */
int          rt_shape_op_list_input (const RtCall *call, const char **attr);
gboolean     rt_shape_op_dims (const RtCall *call, const RtTensor *a, const gint64 *list, guint n,
                               guint *rank, gint64 *dims, gint64 *strides, gboolean *same_bytes,
                               GError **error);
/* Split: checks the n sizes in split[0 .. n_outputs) (read from the
 * attribute or input, as the CPU kernel reads them; n = 0: equal parts,
 * filled in) against the input's `axis` dimension. */
gboolean     rt_split_sizes (const RtCall *call, const RtTensor *a, gint64 *split, guint n,
                             guint *axis, GError **error);
/* Element-wise conversion between any two supported dtypes (Cast). */
gboolean     rt_convert (const void *src, GraphDType sdt, void *dst, GraphDType ddt,
                         gint64 n);
/* "float", "int64" ... */
#define rt_dtype_name graph_dtype_name

G_END_DECLS
