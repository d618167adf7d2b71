/* float16 support for kernels written for float: run them on float copies
 * of the float16 inputs and narrow their float outputs back in place. */
#include "runtime/kernels-private.h"
#include "runtime/session-private.h"
#include <string.h>

gboolean
rt_run_as_float (RtCall *call, RtKernelFn fn, GError **error)
{
  g_autofree RtTensor *copies = g_new0 (RtTensor, MAX (call->n_inputs, 1));
  g_autofree const RtTensor **ins = g_new0 (const RtTensor *, MAX (call->n_inputs, 1));
  g_autoptr (GPtrArray) bufs = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < call->n_inputs; i++)
    {
      const RtTensor *t = call->inputs[i];
      ins[i] = t;
      if (t == NULL || t->dtype != GRAPH_DTYPE_FLOAT16)
        continue;
      copies[i] = *t;
      copies[i].dtype = GRAPH_DTYPE_FLOAT;
      copies[i].data = g_new (float, MAX (t->numel, 1));
      g_ptr_array_add (bufs, copies[i].data);
      rt_convert (t->data, GRAPH_DTYPE_FLOAT16, copies[i].data, GRAPH_DTYPE_FLOAT, t->numel);
      ins[i] = &copies[i];
    }
  RtCall sub = *call;
  sub.inputs = ins;
  if (!fn (&sub, error))
    return FALSE;
  /* Outputs the kernel made as float (runtime internals): converting
   * front to back in place is safe since halves are smaller; re-declaring
   * the output as float16 keeps the slot's memory (it only shrinks). */
  RtSession *s = call->ctx;
  for (guint i = 0; i < call->n_outputs; i++)
    {
      RtTensor *t = &s->rt[s->current->out_idx[i]];
      if (!s->present[s->current->out_idx[i]] || t->dtype != GRAPH_DTYPE_FLOAT)
        continue;
      gint64 dims[RT_MAX_RANK];
      guint rank = t->rank;
      memcpy (dims, t->dims, rank * sizeof (gint64));
      rt_convert (t->data, GRAPH_DTYPE_FLOAT, t->data, GRAPH_DTYPE_FLOAT16, t->numel);
      if (rt_call_output (call, i, GRAPH_DTYPE_FLOAT16, rank, dims, error) == NULL)
        return FALSE;
    }
  return TRUE;
}
