/* Per-node timing under RtOptions.profile (`symonnx run --profile`). */
#include "runtime/session-private.h"
#include <time.h>

gint64
rt_profile_clock_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

RtNodeTime *
rt_session_profile (const RtSession *s, guint *n, guint64 *runs)
{
  g_return_val_if_fail (s != NULL && n != NULL, NULL);
  *n = 0;
  if (runs)
    *runs = s->options.profile ? s->profiled_runs : 0;
  if (!s->options.profile || s->n_nodes == 0)
    return NULL;
  RtNodeTime *t = g_new0 (RtNodeTime, s->n_nodes);
  for (guint i = 0; i < s->n_nodes; i++)
    {
      const RtNodePlan *p = &s->nodes[i];
      t[i].op = graph_node_op_type (p->node);
      t[i].name = graph_node_get_name (p->node);
      if (t[i].name == NULL && graph_node_n_outputs (p->node) > 0)
        t[i].name = graph_value_get_name (graph_node_output (p->node, 0));
      t[i].fused = rt_fuse_is_fused_def (p->def);
      t[i].ms = (double) p->prof_ns / 1e6;
    }
  *n = s->n_nodes;
  return t;
}

void
rt_session_profile_reset (RtSession *s)
{
  g_return_if_fail (s != NULL);
  for (guint i = 0; i < s->n_nodes; i++)
    s->nodes[i].prof_ns = 0;
  s->profiled_runs = 0;
}
