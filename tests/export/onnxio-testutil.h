/* Helpers shared by the ONNX reader/writer tests. */
#pragma once

#include "symonnx.h"
#include "export/onnxio.h"

#define ONNXIO_TESTDATA "/usr/share/libonnx-testdata/data"

/* Structural equality of two graphs (recursively, subgraphs included):
 * names, model properties, opsets, inputs, initializers, nodes, attributes,
 * types and outputs.  On FALSE `why` says where they differ. */
gboolean onnxio_test_graph_equal (const Graph *a, const Graph *b, GString *why);

/* Runs /usr/bin/python3 SCRIPT ARGS... (script from tests/export/ in the
 * source tree); returns TRUE when it exits 0.  Its output goes to the test
 * log.  Skips (FALSE, *skipped TRUE) when python3 or onnx is missing. */
gboolean onnxio_test_run_python (const char *script, const char *const *args,
                                 gboolean *skipped);

/* Every model.onnx under the four libonnx-testdata folders, sorted. */
GPtrArray *onnxio_test_list_models (void);

/* A fresh temporary folder (removed by onnxio_test_rmtree). */
char *onnxio_test_mkdtemp (void);
void  onnxio_test_rmtree (const char *dir);
