/* Concat in place (runtime/concat-views.c): the Concat's inputs are
 * written by their producers straight into the Concat's output. */
#pragma once
#include "runtime/session-private.h"

/* At planning, after liveness and before slots: marks the Concats whose
 * inputs may be views into their output (p->concat_views, the inputs'
 * view_of) and, on the node producing the first of them, the output's
 * slot to take there (p->early), so it is not lent to another value while
 * the inputs are made.  Off with SYMONNX_NO_CONCAT_VIEWS=1 (for
 * comparisons) and under device backends. */
void     rt_concat_views_plan (RtSession *s);
/* Where output value vi (nbytes, not strings) goes when it is a view: its
 * place in its Concat's output as the last run laid it out; NULL:
 * its own slot. */
void    *rt_concat_view (RtSession *s, int vi, gsize nbytes);
/* Before a marked Concat runs: TRUE when every input is in place (the
 * kernel then finds them there and copies nothing); otherwise inputs
 * that are views are first copied into their own slots (a shape changed),
 * so that the kernel never copies within its output.  FALSE only when
 * memory runs out. */
gboolean rt_concat_views_before (RtSession *s, RtNodePlan *p, GError **error);
/* After a marked Concat ran: records its layout for the next run. */
void     rt_concat_views_after (RtSession *s, RtNodePlan *p);
/* Concats run with every input in place, for tests. */
guint    rt_concat_views_runs (void);
