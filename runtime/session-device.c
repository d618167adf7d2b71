/* The session's side of device backends (Note [Backends] in
 * runtime/backend.h): which nodes run on the device, where each value is,
 * the copies between host and device, and the report of both. */
#include "runtime/session-private.h"
#include <stdlib.h>
#include <string.h>

static gboolean
node_has_subgraph (const GraphNode *n)
{
  for (guint a = 0; a < graph_node_n_attrs (n); a++)
    {
      GraphAttrKind kind;
      if (graph_node_attr_kind (n, graph_node_attr_name (n, a), &kind)
          && (kind == GRAPH_ATTR_G || kind == GRAPH_ATTR_GS))
        return TRUE;
    }
  return FALSE;
}

gboolean
rt_device_plan (RtSession *s, GError **error)
{
  const RtBackend *b = s->options.backend;
  if (b == NULL && (b = rt_backend_for_device (s->options.device, error)) == NULL)
    return FALSE;
  s->backend = b;
  s->device = !b->host_memory;
  s->stats.backend = b->name;
  s->stats.n_nodes = s->n_graph_nodes ? s->n_graph_nodes : s->n_nodes;   /* before fusion */
  if (!s->device)
    return TRUE;
  if (b->probe && !b->probe (error))
    {
      g_prefix_error (error, "no %s device: ", b->name);
      if (error && *error)
        (*error)->code = RT_ERROR_NO_DEVICE;
      return FALSE;
    }
  for (guint i = 0; i < s->n_nodes; i++)
    {
      RtNodePlan *p = &s->nodes[i];
      if (node_has_subgraph (p->node))
        p->fallback = g_strdup ("a node with a subgraph: its body runs on the CPU");
      else if (p->fused_in)   /* (not made with a device backend: session.c) */
        p->fallback = g_strdup ("a fused node (runtime/fuse.c) runs on the CPU");
      else if (!b->supports (p->node, p->opset))
        p->fallback = g_strdup_printf ("no %s kernel for %s::%s", b->name,
                                       graph_node_domain (p->node),
                                       graph_node_op_type (p->node));
      else
        p->on_device = TRUE;
      if (!p->on_device)
        s->stats.n_planned_fallbacks++;
    }
  guint max_in = 0;
  for (guint i = 0; i < s->n_nodes; i++)
    max_in = MAX (max_in, s->nodes[i].n_in);
  s->where = g_new0 (guint8, MAX (s->n_values, 1));
  s->drt = g_new0 (RtTensor, MAX (s->n_values, 1));
  s->dev_inputs = g_new0 (const RtTensor *, MAX (max_in, 1));
  return TRUE;
}

void
rt_device_free (RtSession *s)
{
  if (s->device)
    {
      for (guint i = 0; i < s->n_slots; i++)
        if (s->slots[i].dmem)
          s->backend->free (s->slots[i].dmem);
      for (guint i = 0; i < s->n_values; i++)
        if (s->values[i].dev_own)
          s->backend->free (s->values[i].dev_own);
    }
  g_free (s->where);
  g_free (s->drt);
  g_free (s->dev_inputs);
}

void
rt_device_begin_run (RtSession *s)
{
  RtDeviceStats keep = { .backend = s->stats.backend, .n_nodes = s->stats.n_nodes,
                         .n_planned_fallbacks = s->stats.n_planned_fallbacks };
  s->stats = keep;
  memset (s->where, 0, MAX (s->n_values, 1));
}

void
rt_device_bound (RtSession *s, int vi, gboolean from_constant)
{
  RtValue *val = &s->values[vi];
  if (!from_constant)
    val->dev_const = FALSE;
  s->where[vi] = RT_ON_HOST | (val->dev_const ? RT_ON_DEVICE : 0)
                 | (from_constant ? RT_FROM_CONSTANT : 0);
}

static gsize
value_nbytes (const RtTensor *t)
{
  return (gsize) t->numel * rt_dtype_size (t->dtype);
}

/* Grows a device buffer to nbytes (at least 64, so an empty tensor still
 * has an address). */
static gpointer
device_buffer (RtSession *s, void **mem, gsize *cap, gsize nbytes, GError **error)
{
  if (*mem && *cap >= nbytes)
    return *mem;
  if (*mem)
    s->backend->free (*mem);
  *cap = 0;
  gsize want = MAX (nbytes, 64);
  *mem = s->backend->alloc (want, error);
  if (*mem == NULL)
    return NULL;
  *cap = want;
  s->allocations++;
  return *mem;
}

gpointer
rt_device_slot_mem (RtSession *s, RtSlot *slot, gsize nbytes, GError **error)
{
  return device_buffer (s, &slot->dmem, &slot->dcap, nbytes, error);
}

/* Value vi (on the host) copied to the device. */
static gboolean
to_device (RtSession *s, int vi, GError **error)
{
  if (s->where[vi] & RT_ON_DEVICE)
    return TRUE;
  RtValue *val = &s->values[vi];
  RtTensor *r = &s->rt[vi];
  gsize nbytes = value_nbytes (r);
  gpointer dev = val->slot >= 0
                   ? rt_device_slot_mem (s, &s->slots[val->slot], nbytes, error)
                   : device_buffer (s, &val->dev_own, &val->dev_own_cap, nbytes, error);
  if (dev == NULL || (nbytes && !s->backend->copy_to_device (dev, r->data, nbytes, error)))
    return FALSE;
  s->drt[vi] = *r;
  s->drt[vi].data = dev;
  s->where[vi] |= RT_ON_DEVICE;
  gboolean boundary = val->is_input || val->constant != NULL;
  if (s->where[vi] & RT_FROM_CONSTANT)
    val->dev_const = TRUE;   /* kept for the next runs */
  if (boundary)
    s->stats.input_copies++, s->stats.input_bytes += nbytes;
  else
    s->stats.fallback_to_device++, s->stats.fallback_to_device_bytes += nbytes;
  return TRUE;
}

gboolean
rt_device_to_host (RtSession *s, int vi, gboolean output, GError **error)
{
  if (!s->device || (s->where[vi] & RT_ON_HOST))
    return TRUE;
  RtValue *val = &s->values[vi];
  const RtTensor *d = &s->drt[vi];
  gsize nbytes = value_nbytes (d);
  if (!(s->where[vi] & RT_ON_DEVICE) || val->slot < 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_FAILED, "value '%s' has no data on the host or "
                   "the device", graph_value_get_name (val->v) ? graph_value_get_name (val->v)
                                                                : "(unnamed)");
      return FALSE;
    }
  RtSlot *slot = &s->slots[val->slot];
  if (slot->cap < nbytes || slot->mem == NULL)
    {
      free (slot->mem);
      gsize cap = MAX (nbytes, 64);
      slot->mem = NULL;
      slot->cap = 0;
      if (posix_memalign (&slot->mem, 64, (cap + 63) & ~(gsize) 63) != 0)
        {
          slot->mem = NULL;
          g_set_error (error, RT_ERROR, RT_ERROR_TOO_LARGE, "cannot allocate %zu bytes", nbytes);
          return FALSE;
        }
      slot->cap = cap;
      s->allocations++;
    }
  if (nbytes && !s->backend->copy_to_host (slot->mem, d->data, nbytes, error))
    return FALSE;
  s->rt[vi] = *d;
  s->rt[vi].data = slot->mem;
  s->where[vi] |= RT_ON_HOST;
  if (output)
    s->stats.output_copies++, s->stats.output_bytes += nbytes;
  else
    s->stats.fallback_to_host++, s->stats.fallback_to_host_bytes += nbytes;
  return TRUE;
}

/* Why the device cannot take this input at all; NULL when it can. */
static const char *
input_refusal (const RtTensor *t)
{
  if (t == NULL)
    return NULL;
  if (t->kind == RT_KIND_SEQUENCE)
    return "a sequence input";
  if (t->kind == RT_KIND_NONE)
    return "an optional input without value";
  if (t->dtype == GRAPH_DTYPE_STRING)
    return "a string input";
  return NULL;
}

static void
note_fallback (RtNodePlan *p, const char *why)
{
  if (p->fallback == NULL)
    p->fallback = g_strdup_printf ("declined at run time: %s", why);
}

gboolean
rt_device_run_node (RtSession *s, RtNodePlan *p, RtCall *call, gboolean *ran, GError **error)
{
  *ran = FALSE;
  if (!p->on_device)
    {
      s->stats.n_fallback_runs++;
      return TRUE;
    }
  for (guint i = 0; i < p->n_in; i++)
    {
      const char *why = input_refusal (s->node_inputs[i]);
      if (why)
        {
          note_fallback (p, why);
          s->stats.n_fallback_runs++;
          return TRUE;
        }
    }
  for (guint i = 0; i < p->n_in; i++)
    {
      int vi = p->in_idx[i];
      if (vi < 0)
        {
          s->dev_inputs[i] = NULL;
          continue;
        }
      if (!to_device (s, vi, error))
        {
          g_prefix_error (error, "%s: input %u to the %s device: ", rt_node_label (p->node), i,
                          s->backend->name);
          return FALSE;
        }
      s->dev_inputs[i] = &s->drt[vi];
    }
  g_autoptr (GError) why = NULL;
  call->inputs = s->dev_inputs;
  s->device_node_running = TRUE;
  RtBackendStatus status = s->backend->run (call, &why);
  s->device_node_running = FALSE;
  call->inputs = s->node_inputs;
  switch (status)
    {
    case RT_BACKEND_DONE:
      for (guint i = 0; i < p->n_out; i++)
        if (s->present[p->out_idx[i]])
          s->where[p->out_idx[i]] = RT_ON_DEVICE;
      s->stats.n_device_runs++;
      *ran = TRUE;
      return TRUE;
    case RT_BACKEND_DECLINED:
      for (guint i = 0; i < p->n_out; i++)
        s->present[p->out_idx[i]] = FALSE;
      note_fallback (p, why ? why->message : "(no reason given)");
      s->stats.n_fallback_runs++;
      return TRUE;
    case RT_BACKEND_FAILED:
    default:
      if (why == NULL)
        rt_node_error (p->node, error, RT_ERROR_FAILED, "the %s backend failed without a reason",
                       s->backend->name);
      else
        g_propagate_error (error, g_steal_pointer (&why));
      return FALSE;
    }
}

gboolean
rt_device_inputs_to_host (RtSession *s, RtNodePlan *p, GError **error)
{
  for (guint i = 0; i < p->n_in; i++)
    if (p->in_idx[i] >= 0 && !rt_device_to_host (s, p->in_idx[i], FALSE, error))
      {
        g_prefix_error (error, "%s: input %u to the host: ", rt_node_label (p->node), i);
        return FALSE;
      }
  return TRUE;
}

void
rt_device_outputs_on_host (RtSession *s, RtNodePlan *p)
{
  for (guint i = 0; i < p->n_out; i++)
    if (s->present[p->out_idx[i]])
      s->where[p->out_idx[i]] = RT_ON_HOST;
}

/* ---- reporting -------------------------------------------------------------- */

void
rt_session_device_stats (const RtSession *s, RtDeviceStats *stats)
{
  g_return_if_fail (s != NULL && stats != NULL);
  *stats = s->stats;
}

guint
rt_session_n_fallbacks (const RtSession *s)
{
  guint n = 0;
  for (guint i = 0; i < s->n_nodes; i++)
    n += s->nodes[i].fallback != NULL;
  return n;
}

const GraphNode *
rt_session_fallback (const RtSession *s, guint i, const char **reason)
{
  for (guint k = 0; k < s->n_nodes; k++)
    if (s->nodes[k].fallback && i-- == 0)
      {
        if (reason)
          *reason = s->nodes[k].fallback;
        return s->nodes[k].node;
      }
  g_return_val_if_reached (NULL);
}

static void
append_count (GString *out, guint64 n, const char *what, guint64 bytes)
{
  g_string_append_printf (out, "%" G_GUINT64_FORMAT " %s%s (%" G_GUINT64_FORMAT " bytes)", n,
                          what, n == 1 ? "" : "s", bytes);
}

char *
rt_session_fallback_report (const RtSession *s)
{
  const RtDeviceStats *st = &s->stats;
  GString *out = g_string_new (NULL);
  if (!s->device)
    {
      g_string_append_printf (out, "device %s: %u node%s, all on the CPU\n", st->backend,
                              st->n_nodes, st->n_nodes == 1 ? "" : "s");
      return g_string_free (out, FALSE);
    }
  g_string_append_printf (out, "device %s: %u node%s, %u planned on the CPU; last run: %u node "
                          "run%s on the device, %u on the CPU\n", st->backend, st->n_nodes,
                          st->n_nodes == 1 ? "" : "s", st->n_planned_fallbacks, st->n_device_runs,
                          st->n_device_runs == 1 ? "" : "s", st->n_fallback_runs);
  g_string_append (out, "copies to the device: ");
  append_count (out, st->input_copies, "input", st->input_bytes);
  g_string_append (out, ", ");
  append_count (out, st->fallback_to_device, "fallback result", st->fallback_to_device_bytes);
  g_string_append (out, "\ncopies to the host: ");
  append_count (out, st->output_copies, "output", st->output_bytes);
  g_string_append (out, ", ");
  append_count (out, st->fallback_to_host, "fallback input", st->fallback_to_host_bytes);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < s->n_nodes; i++)
    if (s->nodes[i].fallback)
      g_string_append_printf (out, "fallback: %s (%s)\n", rt_node_label (s->nodes[i].node),
                              s->nodes[i].fallback);
  return g_string_free (out, FALSE);
}
