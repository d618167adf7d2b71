/* What the fusion tests share (test-fusion.c, test-fusion-transformer.c):
 * reproducible random float tensors, graph inputs and weights, and runs of
 * one graph with and without fusion. */
#pragma once

#include "tests/runtime/test-runtime.h"

extern guint32 fz_rng_state;   /* fz_new_graph_at resets it */

/* Uniform in [-1, 1), reproducible. */
float       fz_rnd (void);
Tensor     *fz_random_tensor (guint rank, const gint64 *dims);
/* A float graph input, weight (random) or scalar weight. */
GraphValue *fz_input (Graph *g, const char *name, guint rank, const gint64 *dims);
GraphValue *fz_weights (Graph *g, const char *name, guint rank, const gint64 *dims);
GraphValue *fz_scalar (Graph *g, const char *name, float v);
/* Runs g on `in`; returns output `name` and the plan's node count. */
Tensor     *fz_run (Graph *g, GHashTable *in, gboolean no_fusion, const char *name, guint *n_nodes);
/* The same with `threads` threads (fusion on). */
Tensor     *fz_run_threads (Graph *g, GHashTable *in, int threads, const char *name);
/* A session of g with `threads` threads (fusion on; 0: the default). */
RtSession  *fz_session_new (Graph *g, int threads);
/* Runs s on `in`; returns output `name`. */
Tensor     *fz_session_run (RtSession *s, GHashTable *in, const char *name);
/* name → Tensor table (owns both). */
GHashTable *fz_inputs_new (void);
/* An empty graph at `opset` of the default domain. */
Graph      *fz_new_graph_at (gint64 opset);
/* Fused and unfused runs of g agree bit for bit; the fused plan has
 * `fused_nodes` nodes, the unfused one `plain_nodes`.  Returns the fused
 * run's output. */
Tensor     *fusion_check_same (Graph *g, GHashTable *in, const char *out, guint fused_nodes,
                               guint plain_nodes);
