/* Scan, opset 8: like Scan 9 but every input and output has a leading
 * batch dimension (the scan axis is 1), the first input is the optional
 * sequence_lens, and `directions` reverses scan inputs.  Each batch entry
 * runs the body over its own states. */
#include "runtime/session-private.h"
#include <string.h>

static void
body_free (gpointer p)
{
  rt_session_free (p);
}

static gboolean
prepare_scan8 (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset;
  Graph *g = NULL;
  if (!graph_node_get_g (node, "body", &g))
    {
      rt_node_error (node, error, RT_ERROR_INVALID_GRAPH, "no 'body' subgraph");
      return FALSE;
    }
  RtSession *body = rt_body_new (g, error);
  if (body == NULL)
    {
      g_prefix_error (error, "%s: body: ", rt_node_label (node));
      return FALSE;
    }
  *state = body;
  return TRUE;
}

/* t[b] (and, when `step` >= 0, t[b, step]) as a view. */
static RtTensor
view (const RtTensor *t, gint64 b, gint64 step)
{
  RtTensor v = *t;
  guint drop = step >= 0 ? 2 : 1;
  v.rank = t->rank - drop;
  memcpy (v.dims, t->dims + drop, v.rank * sizeof (gint64));
  v.numel = rt_shape_numel (v.rank, v.dims);
  gint64 idx = step >= 0 ? b * t->dims[1] + step : b;
  v.data = (char *) t->data + idx * v.numel * (gint64) rt_dtype_size (t->dtype);
  return v;
}

static gboolean
same_shape (const RtTensor *a, const RtTensor *b)
{
  return a->dtype == b->dtype && a->rank == b->rank
         && memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) == 0;
}

static gboolean
k_scan8 (RtCall *call, GError **error)
{
  RtSession *body = call->state;
  gint64 Mi = rt_attr_i (call->node, "num_scan_inputs", -1);
  if (Mi < 1 || (guint64) Mi + 1 > call->n_inputs)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "num_scan_inputs does not fit the inputs");
      return FALSE;
    }
  guint M = (guint) Mi, N = call->n_inputs - 1 - M;
  if (call->n_outputs < N)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "fewer outputs than states");
      return FALSE;
    }
  guint K = call->n_outputs - N;
  gsize n_dir = 0;
  const gint64 *dir = NULL;
  if (rt_attr_ints (call->node, "directions", &n_dir, &dir) && n_dir != M)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "directions needs one value per scan input");
      return FALSE;
    }
  const RtTensor *const *in = call->inputs + 1;
  const RtTensor *lens = call->inputs[0];
  gint64 B = -1, L = -1;
  for (guint i = 0; i < N + M; i++)
    {
      if (in[i] == NULL || in[i]->rank < (i < N ? 1u : 2u) || (B >= 0 && in[i]->dims[0] != B)
          || (i >= N && L >= 0 && in[i]->dims[1] != L))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "states must be (batch, ...) and scan inputs (batch, sequence, ...)");
          return FALSE;
        }
      B = in[i]->dims[0];
      if (i >= N)
        L = in[i]->dims[1];
    }
  for (gint64 b = 0; lens && b < B; b++)
    if (lens->numel != B || rt_get_i64 (lens, b) != L)
      {
        rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                       "sequence_lens shorter than the scan inputs is not supported");
        return FALSE;
      }
  /* Outputs, made once the body's first results give their shapes. */
  g_autofree RtTensor **outs = g_new0 (RtTensor *, call->n_outputs);
  g_autofree const RtTensor **bin = g_new0 (const RtTensor *, N + M);
  g_autofree const RtTensor **bout = g_new0 (const RtTensor *, N + K);
  g_autofree RtTensor *bt = g_new0 (RtTensor, N + M);
  g_autofree RtTensor *cur = g_new0 (RtTensor, MAX (N, 1));
  g_autoptr (GPtrArray) bufs = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < N; i++)
    {
      cur[i] = view (in[i], 0, -1);
      cur[i].data = g_malloc (MAX ((gsize) cur[i].numel * rt_dtype_size (cur[i].dtype), 1));
      g_ptr_array_add (bufs, cur[i].data);
    }
  for (guint i = 0; i < N && B > 0; i++)
    if ((outs[i] = rt_call_output (call, i, in[i]->dtype, in[i]->rank, in[i]->dims, error)) == NULL)
      return FALSE;
  for (gint64 b = 0; b < B; b++)
    {
      for (guint i = 0; i < N; i++)
        {
          RtTensor v = view (in[i], b, -1);
          memcpy (cur[i].data, v.data, (gsize) v.numel * rt_dtype_size (v.dtype));
          bin[i] = &cur[i];
        }
      for (gint64 t = 0; t < L; t++)
        {
          for (guint j = 0; j < M; j++)
            {
              bt[N + j] = view (in[N + j], b, dir && dir[j] ? L - 1 - t : t);
              bin[N + j] = &bt[N + j];
            }
          if (!rt_body_run (body, call, N + M, bin, N + K, bout, error))
            return FALSE;
          for (guint i = 0; i < N; i++)
            {
              if (!same_shape (bout[i], &cur[i]))
                {
                  rt_call_error (call, error, RT_ERROR_SHAPE, "state %u changes shape", i);
                  return FALSE;
                }
              memcpy (cur[i].data, bout[i]->data, (gsize) cur[i].numel * rt_dtype_size (cur[i].dtype));
            }
          for (guint k = 0; k < K; k++)
            {
              const RtTensor *o = bout[N + k];
              if (outs[N + k] == NULL)
                {
                  gint64 dims[RT_MAX_RANK];
                  if (o->rank + 2 > RT_MAX_RANK)
                    {
                      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "scan output rank too large");
                      return FALSE;
                    }
                  dims[0] = B;
                  dims[1] = L;
                  memcpy (dims + 2, o->dims, o->rank * sizeof (gint64));
                  if ((outs[N + k] = rt_call_output (call, N + k, o->dtype, o->rank + 2, dims, error)) == NULL)
                    return FALSE;
                }
              RtTensor dst = view (outs[N + k], b, t);
              if (!same_shape (o, &dst))
                {
                  rt_call_error (call, error, RT_ERROR_SHAPE, "scan output %u changes shape", k);
                  return FALSE;
                }
              memcpy (dst.data, o->data, (gsize) o->numel * rt_dtype_size (o->dtype));
            }
        }
      for (guint i = 0; i < N; i++)
        {
          RtTensor dst = view (outs[i], b, -1);
          memcpy (dst.data, cur[i].data, (gsize) cur[i].numel * rt_dtype_size (cur[i].dtype));
        }
    }
  /* No iterations: empty outputs. */
  for (guint i = 0; i < call->n_outputs; i++)
    if (outs[i] == NULL)
      {
        gint64 dims[2] = { MAX (B, 0), MAX (L, 0) };
        const RtTensor *like = i < N ? in[i] : in[N];
        if (i < N ? rt_call_output (call, i, like->dtype, like->rank, like->dims, error) == NULL
                  : rt_call_output (call, i, like->dtype, 2, dims, error) == NULL)
          return FALSE;
      }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("Scan", 8), .until = 8, RT_IN (0, RT_VARIADIC), RT_OUT (1, RT_VARIADIC), .run = k_scan8, .prepare = prepare_scan8, .free_state = body_free },
};

RT_KERNEL_TABLE (rt_kernels_scan8, defs);
