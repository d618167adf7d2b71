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
  gboolean        inherited;    /* diverges, but an input already differs (Note [Blame]) or
                                 * the node alone on the export's inputs agrees */
  gboolean        upstream_noise; /* the latter (Note [Isolating a node] in localize.c) */
  gboolean        near_ties;    /* indices that differ where the values they select agree
                                 * (Note [Blame]); not a divergence */
  double          scale;        /* largest finite |value| of the trace run's output */
  double          node_atol;    /* the absolute tolerance it was compared with:
                                 * atol + node_rtol * scale (Note [Node tolerance]) */
} VerifyNodeResult;

typedef struct
{
  int           opset;
  SymMode       mode;
  double        rtol, atol;
  double        node_rtol;     /* Note [Node tolerance] */
  GArray       *rows;          /* VerifyNodeResult, in trace order */
  gint          first;         /* index in rows of the first output that diverges while
                                * the values it reads agree (Note [Blame]); -1: none */
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

/* Note [Node tolerance]
 * A node's output is compared as allclose with an absolute tolerance that
 * grows with the node's own magnitude: element i diverges when
 *     |onnx_i - trace_i| > atol + node_rtol * scale + rtol * |trace_i|
 * where scale is the largest finite |trace value| of that output.  The
 * two runs compute the same function with float32 sums taken in another
 * order (an im2col GEMM against a direct convolution, a fused Conv+BN
 * against BatchNorm after Conv, a Gemm against MatMul + Add): the rounding
 * error of a sum of n terms is bounded by about n * 2^-24 * sum(|term|),
 * which depends on the magnitude of the terms, not of the result.  An
 * element where the terms cancel (a BatchNorm output near its mean, dx *
 * width near 0 in a box decoder) keeps the absolute error of its
 * neighbours while its own |value| is small, so a tolerance relative to
 * the element flags it; and the outputs' atol, scaled to the model's
 * outputs, is far below the values deep inside a random-weight network
 * (layer3 of a ResNet-101 whose activations grow to thousands).  The
 * node's largest |value| stands for the magnitude of its terms.  The
 * default node_rtol (VERIFY_DEFAULT_NODE_RTOL, 3e-5: about 250 float32
 * ulps of the node's largest value) is three times the largest
 * summation-order noise measured on the torchvision corpus with random
 * weights (max abs error / scale of the nodes a plain allclose flags:
 * 9.7e-6 in Mask R-CNN's box decoder, 5.7e-6 in RetinaNet's BatchNorms,
 * 1.6e-6 in DeepLabV3-ResNet101's layer3), while a wrong symbolic, whose
 * error is a sizeable part of its node's values (a forgotten bias,
 * another epsilon or axis), stays far past it; 0 gives the plain
 * per-element allclose. */
#define VERIFY_DEFAULT_NODE_RTOL 3e-5

/* Note [Blame]
 * The node named is the first whose output diverges while every input it
 * reads agrees.  Selections turn differences below tolerance into
 * discrete ones: topk, sort, and max/min over a dim pick other indices
 * among near-equal values (RPN scores of a detector).  Their indices
 * output is accepted when the values output agrees (`near_ties`), but it
 * differs, and so does what is computed from it (the boxes gathered with
 * those indices): such a node, and any node reading a value that differs
 * past tolerance, is `inherited` (listed as diverging, not named).  A
 * wrong symbolic is named, as the values it reads agree. */

/* verify_localize with the node tolerance's factor (Note [Node
 * tolerance]; 0: the plain allclose of the outputs).  (transfer full) */
VerifyLocalization *verify_localize_full (const Graph *trace, const ExportOptions *options,
                                          GHashTable *inputs, double rtol, double atol,
                                          double node_rtol, GError **error);
void     verify_localization_free (VerifyLocalization *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VerifyLocalization, verify_localization_free)

/* The report `symonnx verify --localize` prints: the first divergent node
 * (kind, scope, source line, symbolic, opset, error figures) or a line
 * saying every compared node matches; with `all`, a table of every row
 * first.  (transfer full) */
char    *verify_localization_format (const VerifyLocalization *l, gboolean all);

G_END_DECLS
