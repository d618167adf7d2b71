/* symonnx — export/pipeline internals: in-place writes into views
 * (view-mutation.c; not installed). */
#pragma once
#include "symbolic/translate.h"

G_BEGIN_DECLS

/* After source node n was translated: when n writes in place into a chain
 * of aten::slice/select views whose base is read later, writes the new
 * value back into each level (ScatterElements) and remaps the chain's
 * source values; refuses (SYM_ERROR_UNSUPPORTED) a write through another
 * kind of view whose base is read later.  TRUE for every other node. */
gboolean export_view_mutation (SymContext *ctx, GraphNode *n, GError **error);

G_END_DECLS
