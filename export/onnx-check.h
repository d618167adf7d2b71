/* symonnx — structural validation of a graph as an ONNX model: what
 * `symonnx check FILE.onnx` reports.
 *
 * Checks, for every node of the graph and of its subgraphs:
 * - every input is defined before use (a graph input or initializer, an
 *   output of an earlier node, or a value of an enclosing graph defined
 *   before the node holding the subgraph);
 * - its domain is imported (opset_import) and, for the ONNX domains, its op
 *   exists at the imported version (else: from which opset it exists) and is
 *   not deprecated there;
 * - attributes: known for that op version, of the schema's kind, required
 *   ones present; org.pytorch.aten::ATen needs a string `operator`;
 * - input/output counts within the schema's bounds, single (non-optional)
 *   inputs present;
 * - types, where known: each value's element type is allowed by its formal
 *   parameter, and the actuals bound to one type parameter (both inputs of
 *   Add, say) share one type.
 * Nodes of domains the table does not know are warnings (errors with
 * `strict`).  Every problem is listed, not just the first.
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"

G_BEGIN_DECLS

typedef enum
{
  ONNX_CHECK_ERROR,
  ONNX_CHECK_WARNING,
} OnnxCheckSeverity;

typedef struct
{
  OnnxCheckSeverity severity;
  /* "node 3 'conv1' (onnx::Conv)", "node 2 (onnx::Loop): body: node 0
   * (onnx::Add)", or "model" for model-level problems. */
  char             *where;
  char             *message;
  const GraphNode  *node;     /* (transfer none) NULL for model-level problems */
} OnnxCheckProblem;

typedef struct
{
  gboolean strict;            /* unknown custom domains are errors */
} OnnxCheckOptions;

void      onnx_check_options_init (OnnxCheckOptions *o);
/* Every problem found, in graph order (GPtrArray of OnnxCheckProblem, with
 * its free function set; empty when the graph is fine).  `opts` may be
 * NULL.  Opset imports are read from the outermost graph.  (transfer full) */
GPtrArray *onnx_check_graph (const Graph *g, const OnnxCheckOptions *opts);
/* Loads an .onnx model and checks it.  Unlike onnxio_load, a file whose
 * nodes are not in topological order is still checked: each use before
 * definition is listed (in file terms), and the other checks run on the
 * nodes sorted, with node indices as in the file.  `n_nodes` (may be NULL)
 * receives the top graph's node count.  NULL with `error` (ONNXIO_ERROR)
 * when the file cannot be read or parsed.  (transfer full) */
GPtrArray *onnx_check_file (const char *path, const OnnxCheckOptions *opts, guint *n_nodes,
                            GError **error);
guint     onnx_check_count (const GPtrArray *problems, OnnxCheckSeverity severity);
/* "error: node 3 'conv1' (onnx::Conv): ..."  (transfer full) */
char     *onnx_check_problem_to_string (const OnnxCheckProblem *p);
void      onnx_check_problem_free (OnnxCheckProblem *p);

G_END_DECLS
