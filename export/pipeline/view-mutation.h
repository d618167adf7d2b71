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

/* Whether source node n writes in place into a view (of the kinds above)
 * whose tensor, or a base of it, is read after n: what a node-by-node run
 * of the trace cannot reproduce (verify's trace run refuses it). */
gboolean export_view_write_read_later (GraphNode *n);
/* Whether every view level between n's self argument and its base is an
 * aten::slice, aten::select or an identity view (what can be written back). */
gboolean export_view_chain_is_slices (GraphNode *n);
/* aten::detach / aten::alias: a view of the whole tensor. */
gboolean export_view_is_identity (GraphNode *p);

G_END_DECLS
