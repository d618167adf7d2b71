/* RtStore: owned memory for sequence, optional and tensor values
 * (Note [Sequences and optionals] in kernel.h). */
#include "runtime/session-private.h"
#include <stdlib.h>
#include <string.h>

RtStore *
rt_store_new (void)
{
  return g_new0 (RtStore, 1);
}

void
rt_store_free (RtStore *st)
{
  if (st == NULL)
    return;
  for (guint i = 0; i < st->cap; i++)
    free (st->mem[i]);
  g_free (st->mem);
  g_free (st->mem_cap);
  g_free (st->items);
  g_free (st);
}

void
rt_store_reset (RtStore *st, RtKind kind, GraphDType elem)
{
  st->seq.n = 0;
  st->seq.items = st->items;
  memset (&st->value, 0, sizeof st->value);
  st->value.kind = kind;
  st->value.dtype = elem;
  if (kind == RT_KIND_SEQUENCE)
    st->value.data = &st->seq;
}

RtTensor *
rt_store_append (RtStore *st, GraphDType dt, guint rank, const gint64 *dims, guint64 max_bytes,
                 GError **error)
{
  gsize nbytes;
  if (!rt_shape_admissible (dt, rank, dims, max_bytes, &nbytes))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_TOO_LARGE,
                   "a sequence item of rank %u is invalid or larger than the limit of %"
                   G_GUINT64_FORMAT " bytes", rank, max_bytes);
      return NULL;
    }
  if (st->seq.n == G_MAXINT32)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_TOO_LARGE, "sequence too long");
      return NULL;
    }
  guint k = st->seq.n;
  if (k == st->cap)
    {
      guint cap = MAX (4, st->cap * 2);
      st->items = g_renew (RtTensor, st->items, cap);
      st->mem = g_renew (void *, st->mem, cap);
      st->mem_cap = g_renew (gsize, st->mem_cap, cap);
      for (guint i = st->cap; i < cap; i++)
        {
          st->mem[i] = NULL;
          st->mem_cap[i] = 0;
        }
      st->cap = cap;
    }
  if (st->mem_cap[k] < nbytes || st->mem[k] == NULL)
    {
      free (st->mem[k]);
      st->mem[k] = NULL;
      gsize cap = (MAX (nbytes, 64) + 63) & ~(gsize) 63;
      if (posix_memalign (&st->mem[k], 64, cap) != 0)
        {
          st->mem[k] = NULL;
          st->mem_cap[k] = 0;
          g_set_error (error, RT_ERROR, RT_ERROR_TOO_LARGE, "cannot allocate %zu bytes", nbytes);
          return NULL;
        }
      st->mem_cap[k] = cap;
    }
  RtTensor *t = &st->items[k];
  memset (t, 0, sizeof *t);
  t->dtype = dt;
  t->rank = rank;
  if (rank)
    memcpy (t->dims, dims, rank * sizeof (gint64));
  t->numel = rt_shape_numel (rank, dims);
  t->data = st->mem[k];
  if (dt == GRAPH_DTYPE_STRING && nbytes)
    memset (t->data, 0, nbytes);
  st->seq.n = k + 1;
  st->seq.items = st->items;
  return t;
}

static gboolean
append_copy (RtStore *st, const RtTensor *t, guint64 max_bytes, GError **error)
{
  RtTensor *o = rt_store_append (st, t->dtype, t->rank, t->dims, max_bytes, error);
  if (o == NULL)
    return FALSE;
  if (t->numel)
    memcpy (o->data, t->data, (gsize) t->numel * rt_dtype_size (t->dtype));
  return TRUE;
}

gboolean
rt_store_set (RtStore *st, const RtTensor *v, guint64 max_bytes, GError **error)
{
  rt_store_reset (st, v->kind, v->dtype);
  if (v->kind == RT_KIND_NONE)
    return TRUE;
  if (v->kind == RT_KIND_TENSOR)
    {
      if (!append_copy (st, v, max_bytes, error))
        return FALSE;
      st->value = st->items[0];
      return TRUE;
    }
  const RtSequence *seq = v->data;
  for (guint i = 0; i < seq->n; i++)
    if (!append_copy (st, &seq->items[i], max_bytes, error))
      return FALSE;
  return TRUE;
}

gboolean
rt_kernel_takes_dtype (const RtKernelDef *def, GraphDType dt)
{
  if (def->dtypes == 0 || (def->dtypes & (1u << dt)))
    return TRUE;
  return dt == GRAPH_DTYPE_FLOAT16 && (def->dtypes & RT_DT (FLOAT));
}

gboolean
rt_kernel_takes_values (const RtKernelDef *def)
{
  static const char *const ops[] = {
    "Identity", "If", "Loop", "ConcatFromSequence", "Optional", "OptionalHasElement",
    "OptionalGetElement",
  };
  if (strcmp (def->domain, "onnx") != 0)
    return FALSE;
  if (g_str_has_prefix (def->op, "Sequence"))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (def->op, ops[i]) == 0)
      return TRUE;
  return FALSE;
}
