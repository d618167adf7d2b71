/* Private session state (runtime/session.c). */
#pragma once

#include "runtime/kernel.h"
#include "runtime/backend.h"

typedef struct
{
  GraphValue *v;
  int         slot;        /* -1: no slot (input, constant) */
  int         producer;    /* plan index */
  int         last_use;    /* plan index of the last reader; -1 none */
  gboolean    is_input;
  gboolean    keep;        /* graph output or requested: never released */
  gboolean    released;    /* planning flag */
  gboolean    absent;      /* prim::Constant None */
  gboolean    outer;       /* a subgraph's read of an enclosing graph's value */
  Tensor     *constant;    /* initializer or Constant value */
  void       *own;         /* aligned copy of misaligned data */
  gsize       own_cap;
  struct _RtStore *store;  /* a caller's sequence input, copied */
  void       *dev_own;     /* device copy of an input or constant (Note [Backends]) */
  gsize       dev_own_cap;
  gboolean    dev_const;   /* dev_own holds `constant`'s data, uploaded by an earlier run */
  /* Concat in place (runtime/concat-views.h): the Concat output value
   * this one may be a view into, + 1 (0: none); its place there and size
   * in the last run (view_nbytes 0: none recorded); a Concat output's
   * size then. */
  int         view_of;
  gsize       view_off, view_nbytes, view_total;
} RtValue;

/* Owned memory for a value of any kind (Note [Sequences and optionals]):
 * `value` is what it holds; a sequence's data points to `seq`, whose items
 * live in `mem`.  Memory is kept and reused when the store is refilled. */
typedef struct _RtStore
{
  RtTensor    value;
  RtSequence  seq;
  guint       cap;
  RtTensor   *items;
  void      **mem;
  gsize      *mem_cap;
} RtStore;

RtStore  *rt_store_new (void);
void      rt_store_free (RtStore *st);
/* Empties the store; it then holds a sequence (or none, or nothing yet
 * for RT_KIND_TENSOR) of `elem`. */
void      rt_store_reset (RtStore *st, RtKind kind, GraphDType elem);
/* Appends an item of fresh memory; NULL (with a message for `what`) when
 * its size is invalid or above max_bytes. */
RtTensor *rt_store_append (RtStore *st, GraphDType dt, guint rank, const gint64 *dims,
                           guint64 max_bytes, GError **error);
/* A deep copy of v (any kind); v must not point into st. */
gboolean  rt_store_set (RtStore *st, const RtTensor *v, guint64 max_bytes, GError **error);
/* Whether a kernel may get sequence/optional inputs. */
gboolean  rt_kernel_takes_values (const RtKernelDef *def);
/* def runs input 0 of element type dt: one of its dtypes, or float16 for a
 * kernel that takes float (run on float copies, runtime/half.c). */
gboolean  rt_kernel_takes_dtype (const RtKernelDef *def, GraphDType dt);

typedef struct
{
  void *mem;
  gsize cap;
  RtStore *store;           /* sequences / optionals written to the slot */
  void *dmem;               /* device memory (device backends) */
  gsize dcap;
} RtSlot;

/* Makes slot hold at least nbytes (its contents are lost when it grows);
 * FALSE when memory runs out. */
gboolean  rt_slot_reserve (RtSession *s, RtSlot *slot, gsize nbytes);

typedef struct
{
  GraphNode         *node;
  const RtKernelDef *def;
  gint64             opset;
  gpointer           state;
  guint              n_in, n_out;
  int               *in_idx;    /* value index, -1 absent */
  int               *out_idx;
  int               *release;   /* slots freed after the node (planning record) */
  guint              n_release;
  gboolean           on_device; /* a device backend runs it (Note [Backends]) */
  char              *fallback;  /* why it runs on the CPU under a device backend; NULL */
  /* A fused node's values (Note [Fusion], runtime/fuse.c): n_in inputs and
   * n_out outputs that replace the graph node's own; NULL: the node's. */
  GraphValue       **fused_in;
  GraphValue       **fused_out;
  gint64             prof_ns;   /* RtOptions.profile: time spent in the node */
  gboolean           concat_views;   /* a Concat whose inputs may be views into its output */
  int               *early;     /* values whose slot is taken at this node, before its outputs' */
  guint              n_early;
} RtNodePlan;

struct _RtSession
{
  Graph          *graph;
  RtOptions       options;
  GHashTable     *index;      /* GraphValue* → value index */
  RtValue        *values;
  guint           n_values;
  RtNodePlan     *nodes;
  guint           n_nodes;
  guint           n_graph_nodes;  /* plan nodes before fusion (the reports count these) */
  RtSlot         *slots;
  guint           n_slots;
  RtTensor       *rt;         /* per value, during a run */
  gboolean       *present;
  const RtTensor **node_inputs;
  GPtrArray      *required;   /* GraphValue*, inputs without initializer */
  GPtrArray      *returned;   /* GraphValue*, outputs then extra outputs */
  void           *scratch[RT_N_SCRATCH];
  gsize           scratch_cap[RT_N_SCRATCH];
  RtNodePlan     *current;
  guint64         allocations;
  guint64         profiled_runs;  /* RtOptions.profile: runs since the last reset */
  /* Subgraph bodies (Note [Subgraphs]): the session of the node running
   * the body, during a body run; NULL for a main graph. */
  RtSession      *parent;
  gboolean       *body_present;
  /* g_get_monotonic_time() past which the run stops (0: no budget); set
   * on the outermost session for each run. */
  gint64          deadline;
  /* GBytes that string tensors of a run point to (rt_call_keep_string);
   * held by the outermost session, emptied when its next run starts. */
  GPtrArray      *strings;
  /* Device backends (Note [Backends], runtime/session-device.c). */
  const RtBackend *backend;
  gboolean        device;     /* backend has memory of its own */
  gboolean        device_node_running;  /* rt_call_output hands out device memory */
  guint8         *where;      /* per value: RT_ON_HOST | RT_ON_DEVICE, during a run */
  RtTensor       *drt;        /* per value: its device view (data: device memory) */
  const RtTensor **dev_inputs;
  RtDeviceStats   stats;
};

/* runtime/session-device.c: the session's side of Note [Backends]. */
/* RT_FROM_CONSTANT: bound from the value's constant in this run. */
enum { RT_ON_HOST = 1, RT_ON_DEVICE = 2, RT_FROM_CONSTANT = 4 };
/* Chooses the backend and which nodes it runs; after plan_values. */
gboolean  rt_device_plan (RtSession *s, GError **error);
void      rt_device_free (RtSession *s);
void      rt_device_begin_run (RtSession *s);
/* Value vi was bound on the host (from its constant or not). */
void      rt_device_bound (RtSession *s, int vi, gboolean from_constant);
/* Runs p on the device when it is planned there and the backend takes
 * these inputs: *ran tells; FALSE only on an error. */
gboolean  rt_device_run_node (RtSession *s, RtNodePlan *p, RtCall *call, gboolean *ran,
                              GError **error);
/* Before a CPU kernel: its inputs on the host; after it: its outputs. */
gboolean  rt_device_inputs_to_host (RtSession *s, RtNodePlan *p, GError **error);
void      rt_device_outputs_on_host (RtSession *s, RtNodePlan *p);
/* Value vi on the host (a graph output when `output`). */
gboolean  rt_device_to_host (RtSession *s, int vi, gboolean output, GError **error);
/* Device memory of at least nbytes for a slot. */
gpointer  rt_device_slot_mem (RtSession *s, RtSlot *slot, gsize nbytes, GError **error);

/* Note [Subgraphs]
 * A body (If's branches, Loop's and Scan's body) is a session of its own,
 * made in the node's prepare() by rt_body_new().  Values of enclosing
 * graphs that the body reads are its "outer" values: at run time they are
 * bound, without copies, to the tensors of the nearest enclosing session
 * that holds them, and the enclosing session keeps them alive up to the
 * node that owns the body.  rt_body_run() binds the body's inputs to
 * borrowed tensors and returns its outputs as tensors that stay valid
 * until the next run of the body (they may alias the inputs or outer
 * values). */
RtSession *rt_body_new (Graph *body, GError **error);
gboolean   rt_body_run (RtSession *body, RtCall *call, guint n_inputs,
                        const RtTensor *const *inputs, guint n_outputs,
                        const RtTensor **outputs, GError **error);

/* Note [Fusion]
 * After the plan's nodes are resolved and before buffers are planned,
 * rt_fuse_plan() (runtime/fuse.c) merges chains of plan nodes into one
 * (Conv + Add + Relu/Clip, Add + Relu, the transformer patterns, the
 * quantized Conv and Add chains): one node's plan entry takes the chain's
 * inputs and last output (fused_in/fused_out) and a fused kernel; the
 * other nodes leave the plan.  All but the quantized Add chain compute
 * what the unfused nodes compute (Note [Quantized Add chains],
 * runtime/fuse-qadd.c: QNNPACK's integers; SYMONNX_NO_QNNPACK_ADD).  Only values with one reader
 * that are neither graph outputs nor requested outputs are fused away.
 * RtOptions.no_fusion turns it off (the tests compare both runs); it is
 * off too with a device backend (the fused kernels are CPU kernels). */
void       rt_fuse_plan (RtSession *s);
/* Whether def is one of the fused kernels rt_fuse_plan puts in a plan (their
 * inputs are the chain's, not the node's operator's). */
gboolean   rt_fuse_is_fused_def (const RtKernelDef *def);

/* CLOCK_MONOTONIC in nanoseconds (RtOptions.profile, runtime/profile.c). */
gint64     rt_profile_clock_ns (void);
