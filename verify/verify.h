/* symonnx — verification that needs both halves: the export pipeline and
 * the executor (so it is its own module, above export/ and runtime/).
 *
 *   verify_runnable_trace   a trace as the executor runs it (the reference
 *                           run of `symonnx verify` without --expected)
 *   verify_localize         the first traced node whose exported ONNX
 *                           counterpart computes something else
 *
 * Note [Localization]
 * verify_localize exports the trace with export_graph_with_origins, which
 * keeps, for every node a symbolic (or the ATen fallback) translated, the
 * ONNX values that replaced its outputs, followed through the passes
 * (constant folding, Conv+BN fusion, naming).  It then runs the trace's
 * aten:: nodes (the ATen kernels) and the exported graph on the same
 * inputs, asking both runs for every such value, compares each pair as
 * `verify` compares outputs, and reports the first node in the trace's
 * (topological) order whose counterpart is past tolerance.  A node whose
 * output has no counterpart any more (a Conv fused with its BatchNorm) or
 * is not a tensor (aten::size's int) is listed as not compared.
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"
#include "export/export.h"
#include "runtime/runtime.h"

G_BEGIN_DECLS

#define VERIFY_ERROR (verify_error_quark ())
GQuark verify_error_quark (void);

typedef enum
{
  VERIFY_ERROR_INPUT,    /* weights or inputs that do not fit the trace */
  VERIFY_ERROR_RUN,      /* the trace or the exported graph cannot be run */
} VerifyErrorCode;

/* A copy of `trace` the executor runs: prim::GetAttr chains become
 * initializers from `weights` (name → Tensor*, may be NULL); tensor
 * constants take the exact value torch2trace stored as
 * "__constant__.<value name>"; Device constants become None (the CPU is
 * the only device); a prim::ListConstruct of tensors read by an aten::
 * node is spliced into that node's inputs (Tensor[] as torch's ATen
 * fallback passes it); a tuple of outputs becomes its elements (as export
 * flattens it); then dead nodes and the module input (%self) go.
 * Value names are the trace's.  (transfer full) */
Graph   *verify_runnable_trace (const Graph *trace, GHashTable *weights, GError **error);

/* One compared (or skipped) output of a translated trace node. */
typedef struct
{
  GraphNode      *trace_node;   /* (transfer none) */
  const char     *kind;         /* "aten::linear" */
  const char     *scope;        /* may be NULL */
  const char     *source;       /* "/path/file.py:114:0", may be NULL */
  const char     *symbolic;     /* ExportOrigin.symbolic */
  guint           output;       /* output index of trace_node */
  const char     *trace_value;  /* its name in the trace */
  const char     *onnx_value;   /* its counterpart's name, NULL when none */
  const char     *skipped;      /* why it was not compared; NULL when it was */
  RtCompareResult cmp;          /* expected: the trace run; actual: the ONNX run */
  gboolean        diverges;     /* compared and past tolerance (or of another shape) */
} VerifyNodeResult;

typedef struct
{
  int           opset;
  SymMode       mode;
  double        rtol, atol;
  GArray       *rows;          /* VerifyNodeResult, in trace order */
  gint          first;         /* index in rows of the first divergent output, -1: none */
  guint         compared;      /* rows compared */
  gpointer      priv;
} VerifyLocalization;

/* Exports `trace` with `options` (its registry, plugins' symbolics included,
 * mode and weights), runs both graphs on `inputs` (name → Tensor*, the
 * trace's input names) and compares every translated node's outputs
 * within rtol/atol (Note [Localization]).  The trace must outlive the
 * result.  NULL with an error when the trace does not export or either
 * graph cannot run (an op without an ATen kernel is named).
 * (transfer full) */
VerifyLocalization *verify_localize (const Graph *trace, const ExportOptions *options,
                                     GHashTable *inputs, double rtol, double atol,
                                     GError **error);
void     verify_localization_free (VerifyLocalization *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VerifyLocalization, verify_localization_free)

/* The report `symonnx verify --localize` prints: the first divergent node
 * (kind, scope, source line, symbolic, opset, error figures) or a line
 * saying every compared node matches; with `all`, a table of every row
 * first.  (transfer full) */
char    *verify_localization_format (const VerifyLocalization *l, gboolean all);

G_END_DECLS
