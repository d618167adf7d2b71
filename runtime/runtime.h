/* symonnx — the bundled executor: run a Graph (a loaded .onnx model, a
 * freshly exported graph, or a trace graph of aten:: nodes) on the CPU, and
 * compare its outputs with expected ones.
 *
 * Note [Session lifecycle]
 * rt_session_new() checks the whole graph before anything runs: every node
 * must have a kernel for its (domain, op type, opset) — all missing ones are
 * reported in one error — with a valid arity and, where the graph states
 * types, supported element types; the graph must lint (no cycles, no
 * undefined values).  It then plans buffers by liveness: every intermediate
 * value gets a slot that is released after the value's last use and reused
 * by later values, and a slot keeps its memory between runs, so a second
 * run with the same input shapes allocates nothing per node.
 * rt_session_run() checks the inputs against the graph's declared types,
 * runs the nodes in order and returns the outputs as IR Tensors.
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"

G_BEGIN_DECLS

#define RT_ERROR (rt_error_quark ())
GQuark rt_error_quark (void);

typedef enum
{
  RT_ERROR_UNSUPPORTED,   /* no kernel for a node / dtype */
  RT_ERROR_INVALID_GRAPH, /* lint failure, wrong arity, bad attribute */
  RT_ERROR_INPUT,         /* missing input, wrong dtype or shape */
  RT_ERROR_SHAPE,         /* shapes that do not fit at run time */
  RT_ERROR_TOO_LARGE,     /* a tensor above RtOptions.max_tensor_bytes */
  RT_ERROR_FAILED,        /* anything else raised by a kernel */
  RT_ERROR_NO_DEVICE,     /* the chosen device cannot be used ("no CUDA device: ...") */
} RtErrorCode;

/* Where a session computes (Note [Backends] in runtime/backend.h). */
typedef enum
{
  RT_DEVICE_CPU = 0,      /* the default */
  RT_DEVICE_CUDA,         /* an NVIDIA GPU through the CUDA backend plugin (doc/cuda.md) */
} RtDevice;

/* "cpu", "cuda". */
const char  *rt_device_name (RtDevice device);
/* "cpu" or "cuda" → *device; FALSE with RT_ERROR_INPUT otherwise. */
gboolean     rt_device_parse (const char *name, RtDevice *device, GError **error);
/* Whether `device` can be used here: FALSE with RT_ERROR_NO_DEVICE
 * ("no CUDA device: <reason>") when its backend is not built, cannot be
 * loaded or finds no device. */
gboolean     rt_device_available (RtDevice device, GError **error);

typedef struct _RtBackend RtBackend;

typedef struct
{
  int          threads;            /* 0: leave OpenBLAS's setting alone */
  /* NULL-terminated names of intermediate values to return from
   * rt_session_run() besides the graph outputs (NULL: none). */
  const char *const *extra_outputs;
  /* 0: default (RT_DEFAULT_MAX_TENSOR_BYTES).  Bounds every tensor the
   * executor makes or takes; an empty one is sized as if each 0 dim were 1
   * (Note [Extent of an empty tensor], util.c). */
  guint64      max_tensor_bytes;
  /* Most iterations one Loop node may run (0: RT_DEFAULT_MAX_LOOP_ITERATIONS),
   * so a Loop whose condition never turns false ends with an error. */
  guint64      max_loop_iterations;
  /* Wall-clock budget of one rt_session_run in seconds (0: none); past it
   * the run stops at the next node with RT_ERROR_TOO_LARGE. */
  double       max_seconds;
  /* Where nodes run (RT_DEVICE_CPU, the default of a zeroed struct); a
   * node the device has no kernel for runs on the CPU with counted copies
   * (rt_session_device_stats). */
  RtDevice     device;
  /* Another backend instead of `device`'s (runtime/backend.h; tests use a
   * mock); NULL: the device's. */
  const RtBackend *backend;
  /* Run every node as its own kernel: no Conv+Relu-style fusion at
   * session creation (runtime/fuse.c), for comparing against. */
  gboolean     no_fusion;
  /* Time each node of the main graph (a Loop or If counts its bodies);
   * rt_session_profile() returns the totals since the last reset. */
  gboolean     profile;
} RtOptions;

#define RT_DEFAULT_MAX_TENSOR_BYTES (G_GUINT64_CONSTANT (1) << 33)  /* 8 GiB */
#define RT_DEFAULT_MAX_LOOP_ITERATIONS G_GUINT64_CONSTANT (10000000)

void         rt_options_init (RtOptions *o);

typedef struct _RtSession RtSession;

/* The graph must outlive the session.  (transfer full) */
RtSession   *rt_session_new (Graph *graph, const RtOptions *options, GError **error);
void         rt_session_free (RtSession *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtSession, rt_session_free)

/* `inputs`: name → Tensor* for the graph inputs without an initializer
 * (inputs with an initializer may be overridden).  `outputs` receives
 * name → Tensor* (new refs; the table should be made with
 * g_hash_table_new_full (g_str_hash, g_str_equal, g_free, tensor_unref))
 * for every graph output and every requested extra output. */
gboolean     rt_session_run (RtSession *s, GHashTable *inputs, GHashTable *outputs,
                             GError **error);

/* Sequence and optional values at the session boundary (ONNX
 * `seq(tensor)` and `optional(...)` types); an optional holding a value is
 * that value.  rt_session_run() takes and returns tensors only, and fails
 * on a sequence or none value; rt_session_run_any() takes and returns
 * RtAny.  A none of an optional sequence and of an optional tensor are
 * not told apart. */
typedef enum
{
  RT_ANY_TENSOR,
  RT_ANY_SEQUENCE,
  RT_ANY_NONE,
} RtAnyKind;

typedef struct
{
  RtAnyKind   kind;
  GraphDType  elem_type;  /* SEQUENCE, NONE: element type (UNDEFINED: unknown) */
  Tensor     *tensor;     /* TENSOR (owned) */
  GPtrArray  *items;      /* SEQUENCE: Tensor* (owned; add with tensor_ref) */
} RtAny;

RtAny       *rt_any_new_tensor (Tensor *t);   /* (transfer none): holds its own ref */
RtAny       *rt_any_new_sequence (GraphDType elem_type);
RtAny       *rt_any_new_none (GraphDType elem_type);
void         rt_any_free (RtAny *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtAny, rt_any_free)

/* Like rt_session_run with name → RtAny* tables; `outputs` should be made
 * with g_hash_table_new_full (g_str_hash, g_str_equal, g_free, rt_any_free). */
gboolean     rt_session_run_any (RtSession *s, GHashTable *inputs, GHashTable *outputs,
                                 GError **error);

/* Graph inputs the caller must provide (no initializer), in order.
 * (transfer none) */
guint        rt_session_n_required_inputs (const RtSession *s);
GraphValue  *rt_session_required_input (const RtSession *s, guint i);

/* The op types with a kernel in `domain` ("onnx", "aten" for the ATen
 * kernels, which run org.pytorch.aten::ATen nodes by their operator and
 * the aten:: nodes of traces, "prim"), sorted.  (transfer container;
 * interned strings) */
GPtrArray   *rt_kernel_ops (const char *domain);

/* Buffer allocations (fresh or grown slot memory) made by the last run;
 * 0 on a repeated run with the same shapes. */
guint64      rt_session_last_run_allocations (const RtSession *s);

/* One node's time under RtOptions.profile, summed over the runs since the
 * session was made or rt_session_profile_reset() was called. */
typedef struct
{
  const char *op;           /* the node's op type ("Conv") */
  const char *name;         /* the node's name, or its first output's; may be NULL */
  gboolean    fused;        /* a node fused at session creation (it also does its neighbours' work) */
  double      ms;           /* total wall time */
} RtNodeTime;

/* The main graph's nodes in run order (*n of them; NULL and 0 when the
 * session was made without RtOptions.profile).  (transfer container) */
RtNodeTime  *rt_session_profile (const RtSession *s, guint *n, guint64 *runs);
void         rt_session_profile_reset (RtSession *s);

/* What ran where in the last run, under a device backend (all counts
 * 0 on the CPU backend, where nothing is copied). */
typedef struct
{
  const char *backend;              /* "cpu", "cuda", or a custom backend's name */
  guint    n_nodes;                 /* nodes with a kernel (Constants excluded) */
  guint    n_planned_fallbacks;     /* nodes the backend has no kernel for */
  guint    n_device_runs;           /* node runs on the device in the last run */
  guint    n_fallback_runs;         /* node runs on the CPU in the last run (declined ones included) */
  guint64  input_copies, input_bytes;         /* host→device: graph inputs, initializers' first upload */
  guint64  output_copies, output_bytes;       /* device→host: graph (and extra) outputs */
  guint64  fallback_to_host, fallback_to_host_bytes;     /* device→host for fallback nodes */
  guint64  fallback_to_device, fallback_to_device_bytes; /* host→device of fallback results */
} RtDeviceStats;

void         rt_session_device_stats (const RtSession *s, RtDeviceStats *stats);
/* The nodes that ran (or are planned to run) on the CPU under a device
 * backend, in graph order: node i and why (the backend has no kernel, or
 * it declined these inputs).  (transfer none) */
guint        rt_session_n_fallbacks (const RtSession *s);
const GraphNode *rt_session_fallback (const RtSession *s, guint i, const char **reason);
/* The stats and one line per fallback node, for `symonnx run --verbose`:
 *   device cuda: 12 nodes, 11 on the device, 1 on the CPU
 *   copies: inputs 1 (602112 bytes), outputs 1 (4000 bytes), fallback 2 to host ...
 *   fallback: TopK node 'topk1' (no cuda kernel for onnx::TopK)
 * (transfer full) */
char        *rt_session_fallback_report (const RtSession *s);

/* ---- verification -------------------------------------------------------- */

typedef struct
{
  double  max_abs_error;
  double  max_rel_error;   /* |a - e| / |e| over elements with e != 0 */
  gint64  mismatches;      /* elements with |a - e| > atol + rtol * |e| */
  gint64  first_mismatch;  /* flat index, -1 when none */
  gboolean shape_mismatch; /* dtype or shape differ: nothing else compared */
} RtCompareResult;

#define RT_DEFAULT_RTOL 1e-3
#define RT_DEFAULT_ATOL 1e-7

/* allclose as numpy.testing.assert_allclose (the ONNX backend tests'
 * check): |actual - expected| <= atol + rtol * |expected|.  Integer and
 * bool tensors compare exactly at rtol = atol = 0 semantics as well (any
 * difference counts).  With nan_equal, NaN matches NaN.  Returns TRUE when
 * there are no mismatches and the shapes and dtypes agree. */
gboolean     rt_compare (const Tensor *expected, const Tensor *actual,
                         double rtol, double atol, gboolean nan_equal,
                         RtCompareResult *result);
/* "max abs 1.2e-05, max rel 3e-06, 0 mismatches" or the first mismatch.
 * (transfer full) */
char        *rt_compare_result_to_string (const RtCompareResult *r,
                                          const Tensor *expected, const Tensor *actual);

G_END_DECLS
