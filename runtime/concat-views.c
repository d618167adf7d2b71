/* Concat in place.
 *
 * A Concat copies its inputs into its output: SqueezeNet's eight fire
 * modules each concatenate two Convs' outputs, 5% of the model's time in
 * copies.  Here the producers write straight into the Concat's output: an
 * input (made by a node of the plan, read by nothing after the Concat,
 * not a graph output) is handed out by rt_call_output as a view at its
 * place in the Concat's output (rt_concat_view), and the kernel, finding
 * every input in place, copies nothing.
 *
 * Shapes are known only at run time, so the places are those the last run
 * laid out (rt_concat_views_after): the first run copies as before, the
 * next ones write in place as long as each input has the size it had.
 * Only where the inputs are contiguous parts of the output (every
 * dimension before the axis 1: one image).  The output's slot is taken
 * from the first input's producer on (p->early in plan_values), so no
 * other value lives in it meanwhile.  When a size changes, or the output
 * would no longer be one block per input, the inputs that are views are
 * copied into their own slots before the Concat runs
 * (rt_concat_views_before): the kernel then copies as before and never
 * within its output, whose memory may also be reallocated then.  The
 * results are the same bytes either way. */
#include "runtime/concat-views.h"
#include <string.h>

static guint runs;

guint
rt_concat_views_runs (void)
{
  return g_atomic_int_get (&runs);
}

static gboolean
is_concat (const RtNodePlan *p)
{
  return p->fused_in == NULL && strcmp (p->def->domain, "onnx") == 0
         && strcmp (p->def->op, "Concat") == 0 && p->n_out == 1 && p->n_in >= 2;
}

void
rt_concat_views_plan (RtSession *s)
{
  if (s->options.device != RT_DEVICE_CPU || s->options.backend != NULL
      || getenv ("SYMONNX_NO_CONCAT_VIEWS"))
    return;
  for (guint ni = 0; ni < s->n_nodes; ni++)
    {
      RtNodePlan *p = &s->nodes[ni];
      if (!is_concat (p) || p->out_idx[0] < 0)
        continue;
      int first = (int) ni;
      gboolean ok = TRUE;
      for (guint i = 0; ok && i < p->n_in; i++)
        {
          int vi = p->in_idx[i];
          const RtValue *v = vi >= 0 ? &s->values[vi] : NULL;
          ok = v && !v->is_input && v->constant == NULL && !v->keep && !v->outer && !v->absent
               && v->view_of == 0 && v->producer < (int) ni && v->last_use == (int) ni;
          /* (a value twice in the inputs has one place) */
          for (guint k = 0; ok && k < i; k++)
            ok = p->in_idx[k] != vi;
          if (ok)
            first = MIN (first, v->producer);
        }
      if (!ok)
        continue;
      p->concat_views = TRUE;
      for (guint i = 0; i < p->n_in; i++)
        s->values[p->in_idx[i]].view_of = p->out_idx[0] + 1;
      RtNodePlan *at = &s->nodes[first];
      at->early = g_renew (int, at->early, at->n_early + 1);
      at->early[at->n_early++] = p->out_idx[0];
    }
}

void *
rt_concat_view (RtSession *s, int vi, gsize nbytes)
{
  const RtValue *v = &s->values[vi];
  if (v->view_of == 0 || v->view_nbytes == 0 || v->view_nbytes != nbytes)
    return NULL;
  const RtValue *c = &s->values[v->view_of - 1];
  const RtSlot *cs = &s->slots[c->slot];
  if (cs->mem == NULL || c->view_total == 0 || cs->cap < c->view_total
      || v->view_off + nbytes > c->view_total)
    return NULL;
  return (char *) cs->mem + v->view_off;
}

/* The product of the dimensions before the Concat's axis in t (its
 * inputs' and output's alike), or -1 for an axis out of range. */
static gint64
outer_size (const RtNodePlan *p, const RtTensor *t)
{
  gint64 ax = rt_attr_i (p->node, "axis", p->opset < 4 ? 1 : 0);
  if (ax < 0)
    ax += t->rank;
  if (ax < 0 || ax >= (gint64) t->rank)
    return -1;
  return rt_shape_numel ((guint) ax, t->dims);
}

static gsize
value_bytes (const RtTensor *t)
{
  return (gsize) t->numel * rt_dtype_size (t->dtype);
}

gboolean
rt_concat_views_before (RtSession *s, RtNodePlan *p, GError **error)
{
  if (!p->concat_views)
    return TRUE;
  const RtValue *c = &s->values[p->out_idx[0]];
  const RtSlot *cs = &s->slots[c->slot];
  const char *mem = cs->mem;
  gboolean in_place = mem != NULL && c->view_total > 0;
  for (guint i = 0; in_place && i < p->n_in; i++)
    {
      int vi = p->in_idx[i];
      const RtTensor *t = &s->rt[vi];
      in_place = s->present[vi] && t->kind == RT_KIND_TENSOR && t->dtype != GRAPH_DTYPE_STRING
                 && outer_size (p, t) == 1 && s->values[vi].view_nbytes == value_bytes (t)
                 && t->data == mem + s->values[vi].view_off;
    }
  if (in_place)
    {
      g_atomic_int_inc (&runs);
      return TRUE;
    }
  for (guint i = 0; mem && i < p->n_in; i++)
    {
      int vi = p->in_idx[i];
      RtTensor *t = &s->rt[vi];
      const char *d = t->data;
      if (!s->present[vi] || t->kind != RT_KIND_TENSOR || d < mem || d >= mem + cs->cap)
        continue;
      /* a view: into the value's own slot, kept for it from its producer on */
      RtSlot *own = &s->slots[s->values[vi].slot];
      gsize nb = value_bytes (t);
      if (!rt_slot_reserve (s, own, nb))
        {
          rt_node_error (p->node, error, RT_ERROR_TOO_LARGE, "input %u: cannot allocate %zu bytes",
                         i, nb);
          return FALSE;
        }
      memcpy (own->mem, d, nb);
      t->data = own->mem;
    }
  return TRUE;
}

void
rt_concat_views_after (RtSession *s, RtNodePlan *p)
{
  if (!p->concat_views)
    return;
  RtValue *c = &s->values[p->out_idx[0]];
  const RtTensor *o = &s->rt[p->out_idx[0]];
  gboolean ok = s->present[p->out_idx[0]] && o->kind == RT_KIND_TENSOR
                && o->dtype != GRAPH_DTYPE_STRING && outer_size (p, o) == 1;
  gsize off = 0;
  for (guint i = 0; i < p->n_in; i++)
    {
      RtValue *v = &s->values[p->in_idx[i]];
      gsize nb = value_bytes (&s->rt[p->in_idx[i]]);
      v->view_off = off;
      v->view_nbytes = ok ? nb : 0;
      off += nb;
    }
  c->view_total = ok && off == value_bytes (o) ? off : 0;
}
