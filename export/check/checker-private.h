/* Shared by checker.c and check-order.c. */
#pragma once

#include "export/onnx-check.h"

/* onnx_check_graph appending to `problems`; `node_index` (may be NULL) maps
 * GraphNode* → GUINT_TO_POINTER (index in the file + 1), for graphs that
 * were reordered before loading. */
void onnx_check_graph_into (const Graph *g, const OnnxCheckOptions *opts,
                            GHashTable *node_index, GPtrArray *problems);
/* "node 3 'conv1' (onnx::Conv)", after "PREFIX: " when prefix is not NULL. */
char *onnx_check_node_where (const char *prefix, const char *name, const char *kind,
                             guint index);
OnnxCheckProblem *onnx_check_problem_new (OnnxCheckSeverity severity, const char *where,
                                          const GraphNode *node, char *message /* taken */);
