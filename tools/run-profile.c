/* `symonnx run --profile`: where a run's time goes, per op type and per
 * node, from rt_session_profile(). */
#include "tools/cli.h"
#include <stdio.h>

#define SLOWEST_NODES 10

typedef struct
{
  const char *op;
  gboolean    fused;
  guint       nodes;
  double      ms;
} OpTotal;

static int
by_ms_desc (gconstpointer a, gconstpointer b)
{
  double x = ((const OpTotal *) a)->ms, y = ((const OpTotal *) b)->ms;
  return x > y ? -1 : x < y;
}

static int
node_by_ms_desc (gconstpointer a, gconstpointer b)
{
  double x = ((const RtNodeTime *) a)->ms, y = ((const RtNodeTime *) b)->ms;
  return x > y ? -1 : x < y;
}

void
cli_print_profile (FILE *out, const RtSession *s)
{
  guint n;
  guint64 runs;
  g_autofree RtNodeTime *t = rt_session_profile (s, &n, &runs);
  if (t == NULL || runs == 0)
    return;
  double total = 0;
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (OpTotal));
  for (guint i = 0; i < n; i++)
    {
      total += t[i].ms;
      guint j = 0;
      for (; j < ops->len; j++)
        {
          OpTotal *o = &g_array_index (ops, OpTotal, j);
          if (g_strcmp0 (o->op, t[i].op) == 0 && o->fused == t[i].fused)
            break;
        }
      if (j == ops->len)
        g_array_append_val (ops, ((OpTotal) { t[i].op, t[i].fused, 0, 0 }));
      OpTotal *o = &g_array_index (ops, OpTotal, j);
      o->nodes++;
      o->ms += t[i].ms;
    }
  g_array_sort (ops, by_ms_desc);
  double share = total > 0 ? 100.0 / total : 0;
  fprintf (out, "profile: %" G_GUINT64_FORMAT " run%s, %.3f ms a run in %u nodes (+: fused at session "
           "creation)\n", runs, runs == 1 ? "" : "s", total / (double) runs, n);
  fprintf (out, "%-28s %6s %12s %7s\n", "op", "nodes", "ms a run", "share");
  for (guint j = 0; j < ops->len; j++)
    {
      OpTotal *o = &g_array_index (ops, OpTotal, j);
      g_autofree char *label = g_strconcat (o->op ? o->op : "?", o->fused ? "+" : "", NULL);
      fprintf (out, "%-28s %6u %12.3f %6.1f%%\n", label, o->nodes, o->ms / (double) runs,
               o->ms * share);
    }
  qsort (t, n, sizeof *t, node_by_ms_desc);
  fprintf (out, "slowest nodes:\n");
  for (guint i = 0; i < MIN (n, SLOWEST_NODES); i++)
    {
      g_autofree char *label = g_strconcat (t[i].op ? t[i].op : "?", t[i].fused ? "+" : "", NULL);
      fprintf (out, "%-28s %-28s %9.3f %6.1f%%\n", label, t[i].name ? t[i].name : "-",
               t[i].ms / (double) runs, t[i].ms * share);
    }
}
