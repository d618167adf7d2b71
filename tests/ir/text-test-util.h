/* Helpers shared by the text and DOT tests. */
#pragma once

#include "tests/common/test-util.h"

/* Parses text, failing the test with the parser's message on error. */
Graph     *text_test_parse (const char *text, const char *what);
/* print → parse → print is byte-identical and parse → print → parse gives
 * an equal graph; returns the graph read back from g's text. */
Graph     *text_test_round_trip (const Graph *g);
/* Structural equality: inputs, nodes (kind, inputs, outputs, names, types,
 * attributes, scope, source), outputs, subgraphs.  A NULL type equals
 * "Tensor".  With `data_lossy`, a tensor of b may lack a's data when a's has
 * more than one element (the text prints such tensors as <Tensor>).  On a
 * difference, *why says where. */
gboolean   text_test_graphs_equal (const Graph *a, const Graph *b, gboolean data_lossy,
                                   char **why);
