/* symonnx — export/pipeline internals: in-place writes into views
 * (view-mutation.c; not installed). */
#pragma once
#include "symbolic/translate.h"

G_BEGIN_DECLS

/* After source node n was translated: when n writes in place into a
 * tensor, carries the write to every value read after n (Note [Aliases of
 * a written tensor], view-mutation.c): writes the new value back into each
 * slice/select level of its chain of views (ScatterElements), makes the
 * stale views read later again from the written values, and remaps the
 * source values; refuses (SYM_ERROR_UNSUPPORTED) a write that cannot reach
 * a value read later.  TRUE for every other node. */
gboolean export_view_mutation (SymContext *ctx, GraphNode *n, GError **error);

/* What an in-place write at source node n must change (the export above
 * and verify's run of the trace share it). */
typedef struct
{
  GPtrArray  *levels;      /* the view nodes written back, self's producer first */
  GraphValue *top;         /* the last value written back (self when no level) */
  GraphNode  *blocked;     /* the first view above them of another kind, or NULL */
  gboolean    read_later;  /* a written value (or a stale view) is read after n */
  GPtrArray  *rederive;    /* view nodes before n, in graph order, to run again */
  const char *why;         /* why a value read after n cannot see the write, or NULL */
} ExportViewWrite;

/* FALSE (plan empty) when n is not an in-place node. */
gboolean export_view_write_plan (GraphNode *n, ExportViewWrite *plan);
void     export_view_write_clear (ExportViewWrite *plan);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ExportViewWrite, export_view_write_clear)

/* aten::detach / aten::alias: a view of the whole tensor. */
gboolean export_view_is_identity (GraphNode *p);

G_END_DECLS
