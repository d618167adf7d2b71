/* symonnx runtime — execution backends (for backend writers and tests).
 *
 * Note [Backends]
 * A session runs every node through one backend, a table of functions:
 * what memory it computes in, how data gets there and back, and which
 * nodes it has a kernel for.  The CPU backend (rt_backend_cpu) computes in
 * host memory with the kernels of runtime/k-*.c and is the default.  A
 * device backend (cuda/, loaded as a plugin; or a test's mock) has memory
 * of its own:
 *
 * - At session creation each node is asked once, supports(node, opset);
 *   a node it has no kernel for is planned on the CPU (a "fallback").
 * - A run binds inputs and constants on the host; a device node copies
 *   each input it reads to the device when it is not there yet (a graph
 *   input or an initializer: an "input copy"; an initializer stays on the
 *   device between runs), and its outputs stay on the device.  A fallback
 *   node copies its device-resident inputs to the host ("fallback
 *   copies") and its outputs stay on the host until a device node reads
 *   them.  The graph's outputs are copied to the host at the end ("output
 *   copies").  Device buffers live in the same liveness-planned slots as
 *   the host buffers (a slot has host and device memory, each allocated on
 *   first use and kept between runs).
 * - run() gets an RtCall whose inputs point to device memory and
 *   allocates its outputs with rt_call_output(), which hands out device
 *   memory while a device node runs.  It must not use rt_call_scratch()
 *   (host memory) nor produce sequences or strings.  It may decline a
 *   node for these inputs (an element type or rank it has no kernel for)
 *   before allocating any output: the node then runs on the CPU for this
 *   run and is reported as a fallback with the reason.
 * - Nodes with sequence, optional or string inputs, and subgraph nodes
 *   (If, Loop, Scan: their bodies run on the CPU) always run on the CPU.
 *
 * rt_session_device_stats() and rt_session_fallback_report() say what ran
 * where and what was copied in the last run.
 */
#pragma once

#include "runtime/kernel.h"

G_BEGIN_DECLS

typedef enum
{
  RT_BACKEND_FAILED = 0,   /* *error is set */
  RT_BACKEND_DONE,
  RT_BACKEND_DECLINED,     /* not for these inputs: *error says why; no output was made */
} RtBackendStatus;

struct _RtBackend
{
  const char *name;                 /* "cpu", "cuda" */
  /* TRUE: the backend computes in host memory with the CPU kernels (the
   * CPU backend); the other fields below are then unused. */
  gboolean    host_memory;
  /* Whether a device can be used now; FALSE with why. */
  gboolean  (*probe) (GError **error);
  gpointer  (*alloc) (gsize nbytes, GError **error);
  void      (*free) (gpointer mem);
  /* Complete when they return (the host memory may be reused at once). */
  gboolean  (*copy_to_device) (gpointer dst, gconstpointer src, gsize nbytes, GError **error);
  gboolean  (*copy_to_host) (gpointer dst, gconstpointer src, gsize nbytes, GError **error);
  /* Whether the backend has a kernel for this node (its domain, op type,
   * attributes; element types may be declined later by run()). */
  gboolean  (*supports) (const GraphNode *node, gint64 opset);
  RtBackendStatus (*run) (RtCall *call, GError **error);
};

/* The default backend: the CPU kernels, in host memory. */
extern const RtBackend rt_backend_cpu;

/* The backend of `device` (the CUDA one is loaded on first use, see
 * doc/cuda.md), probed: RT_ERROR_NO_DEVICE "no CUDA device: <reason>" when
 * it is not built, cannot be loaded, or finds no device.  (transfer none) */
const RtBackend *rt_backend_for_device (RtDevice device, GError **error);

G_END_DECLS
