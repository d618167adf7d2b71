/* Sequences and optionals (Note [Sequences and optionals] in kernel.h):
 * SequenceEmpty/Construct/At/Insert/Erase/Length, ConcatFromSequence,
 * SplitToSequence, SequenceMap (a body per element, like Loop),
 * Optional/OptionalHasElement/OptionalGetElement, and Identity of any
 * value. */
#include "runtime/session-private.h"
#include <string.h>

/* The element type of node output i as the graph states it (a tensor, a
 * sequence of tensors or an optional of either); UNDEFINED when unknown. */
static GraphDType
output_elem_type (const GraphNode *n, guint i)
{
  GraphType *ty = graph_value_type (graph_node_output ((GraphNode *) n, i));
  while (ty && (graph_type_kind (ty) == GRAPH_TYPE_OPTIONAL
                || graph_type_kind (ty) == GRAPH_TYPE_LIST)
         && graph_type_n_elems (ty) == 1)
    ty = graph_type_elem (ty, 0);
  return ty && graph_type_is_tensor (ty) ? graph_type_dtype (ty) : GRAPH_DTYPE_UNDEFINED;
}

static const RtSequence *
input_sequence (RtCall *call, guint i, GError **error)
{
  const RtSequence *seq = call->inputs[i] ? rt_sequence (call->inputs[i]) : NULL;
  if (seq == NULL)
    rt_call_error (call, error, RT_ERROR_INPUT, "input %u must be a sequence", i);
  return seq;
}

static const RtTensor *
input_tensor (RtCall *call, guint i, GError **error)
{
  const RtTensor *t = i < call->n_inputs ? call->inputs[i] : NULL;
  if (t == NULL || t->kind != RT_KIND_TENSOR)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "input %u must be a tensor", i);
      return NULL;
    }
  return t;
}

/* Optional `position` input i (a one-element integer tensor) in [-n, n - 1]
 * (with `end_ok`, [-n, n]) as an index from 0; `def` when absent. */
static gboolean
position_input (RtCall *call, guint i, guint n, gboolean end_ok, gint64 def, gint64 *out,
                GError **error)
{
  const RtTensor *p = i < call->n_inputs ? call->inputs[i] : NULL;
  if (p == NULL)
    {
      *out = def;
      return TRUE;
    }
  if (p->kind != RT_KIND_TENSOR || p->numel != 1
      || (p->dtype != GRAPH_DTYPE_INT32 && p->dtype != GRAPH_DTYPE_INT64))
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "position must be one int32 or int64");
      return FALSE;
    }
  gint64 v = rt_get_i64 (p, 0);
  gint64 hi = end_ok ? (gint64) n : (gint64) n - 1;
  if (v < -(gint64) n || v > hi)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "position %" G_GINT64_FORMAT
                     " is out of range for a sequence of %u", v, n);
      return FALSE;
    }
  *out = v < 0 ? v + n : v;
  return TRUE;
}

/* Appends a copy of t to output o's sequence. */
static gboolean
append_copy (RtCall *call, guint o, const RtTensor *t, GError **error)
{
  RtTensor *d = rt_call_sequence_append (call, o, t->dtype, t->rank, t->dims, error);
  if (d == NULL)
    return FALSE;
  if (d->numel)
    memcpy (d->data, t->data, (gsize) t->numel * rt_dtype_size (t->dtype));
  return TRUE;
}

static gboolean
k_identity (RtCall *call, GError **error)
{
  return rt_call_output_value (call, 0, call->inputs[0], error);
}

static gboolean
k_sequence_empty (RtCall *call, GError **error)
{
  gint64 dt = rt_attr_i (call->node, "dtype", GRAPH_DTYPE_FLOAT);
  if (dt <= GRAPH_DTYPE_UNDEFINED || graph_dtype_size ((GraphDType) dt) == 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "dtype %" G_GINT64_FORMAT
                     " is not a supported element type", dt);
      return FALSE;
    }
  return rt_call_output_sequence (call, 0, (GraphDType) dt, error);
}

static gboolean
k_sequence_construct (RtCall *call, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  for (guint i = 0; i < call->n_inputs; i++)
    {
      const RtTensor *t = input_tensor (call, i, error);
      if (t == NULL)
        return FALSE;
      if (i && t->dtype != dt)
        {
          rt_call_error (call, error, RT_ERROR_INPUT, "input %u is %s, input 0 %s", i,
                         graph_dtype_name (t->dtype), graph_dtype_name (dt));
          return FALSE;
        }
      dt = t->dtype;
    }
  if (!rt_call_output_sequence (call, 0, dt, error))
    return FALSE;
  for (guint i = 0; i < call->n_inputs; i++)
    if (!append_copy (call, 0, call->inputs[i], error))
      return FALSE;
  return TRUE;
}

static gboolean
k_sequence_at (RtCall *call, GError **error)
{
  const RtSequence *seq = input_sequence (call, 0, error);
  gint64 pos;
  if (seq == NULL || !position_input (call, 1, seq->n, FALSE, 0, &pos, error))
    return FALSE;
  if (call->inputs[1] == NULL)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "position is required");
      return FALSE;
    }
  return rt_call_output_value (call, 0, &seq->items[pos], error);
}

static gboolean
k_sequence_length (RtCall *call, GError **error)
{
  const RtSequence *seq = input_sequence (call, 0, error);
  if (seq == NULL)
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  *(gint64 *) o->data = seq->n;
  return TRUE;
}

static gboolean
k_sequence_insert (RtCall *call, GError **error)
{
  const RtSequence *seq = input_sequence (call, 0, error);
  const RtTensor *t = seq ? input_tensor (call, 1, error) : NULL;
  gint64 pos;
  if (t == NULL || !position_input (call, 2, seq->n, TRUE, seq->n, &pos, error))
    return FALSE;
  GraphDType elem = call->inputs[0]->dtype;
  if (elem != GRAPH_DTYPE_UNDEFINED && t->dtype != elem)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "inserting a %s tensor into a sequence of %s",
                     graph_dtype_name (t->dtype), graph_dtype_name (elem));
      return FALSE;
    }
  if (!rt_call_output_sequence (call, 0, t->dtype, error))
    return FALSE;
  for (guint i = 0; i <= seq->n; i++)
    {
      if (i == pos && !append_copy (call, 0, t, error))
        return FALSE;
      if (i < seq->n && !append_copy (call, 0, &seq->items[i], error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
k_sequence_erase (RtCall *call, GError **error)
{
  const RtSequence *seq = input_sequence (call, 0, error);
  gint64 pos;
  if (seq == NULL)
    return FALSE;
  if (seq->n == 0)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "erasing from an empty sequence");
      return FALSE;
    }
  if (!position_input (call, 1, seq->n, FALSE, seq->n - 1, &pos, error)
      || !rt_call_output_sequence (call, 0, call->inputs[0]->dtype, error))
    return FALSE;
  for (guint i = 0; i < seq->n; i++)
    if (i != pos && !append_copy (call, 0, &seq->items[i], error))
      return FALSE;
  return TRUE;
}

static gboolean
k_concat_from_sequence (RtCall *call, GError **error)
{
  const RtSequence *seq = input_sequence (call, 0, error);
  if (seq == NULL)
    return FALSE;
  if (seq->n == 0)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "an empty sequence has nothing to concatenate");
      return FALSE;
    }
  gboolean new_axis = rt_attr_i (call->node, "new_axis", 0) != 0;
  const RtTensor *a = &seq->items[0];
  guint axis;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", G_MININT64), a->rank + (new_axis ? 1 : 0),
                &axis, error))
    return FALSE;
  gint64 dims[RT_MAX_RANK];
  guint rank = a->rank + (new_axis ? 1 : 0);
  if (rank > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "rank %u above %d", rank, RT_MAX_RANK);
      return FALSE;
    }
  for (guint d = 0, s = 0; d < rank; d++)
    {
      dims[d] = d == axis ? 0 : a->dims[s];
      if (d != axis || !new_axis)
        s++;
    }
  for (guint i = 0; i < seq->n; i++)
    {
      const RtTensor *t = &seq->items[i];
      gboolean ok = t->dtype == a->dtype && t->rank == a->rank;
      for (guint d = 0; ok && d < a->rank; d++)
        ok = t->dims[d] == a->dims[d] || (!new_axis && d == axis);
      if (!ok)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "item %u does not match item 0 in type or shape", i);
          return FALSE;
        }
      dims[axis] += new_axis ? 1 : t->dims[axis];
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 outer = rt_shape_numel (axis, dims);
  char *dst = o->data;
  for (gint64 r = 0; r < outer; r++)
    for (guint i = 0; i < seq->n; i++)
      {
        const RtTensor *t = &seq->items[i];
        /* The item's block per outer index: everything from the axis on. */
        gsize block = (gsize) (outer ? t->numel / outer : 0) * es;
        if (block)
          memcpy (dst, (const char *) t->data + (gsize) r * block, block);
        dst += block;
      }
  return TRUE;
}

static gboolean
k_split_to_sequence (RtCall *call, GError **error)
{
  const RtTensor *x = input_tensor (call, 0, error);
  if (x == NULL)
    return FALSE;
  const RtTensor *split = call->n_inputs > 1 ? call->inputs[1] : NULL;
  guint axis;
  if (x->rank == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the input must have rank >= 1");
      return FALSE;
    }
  if (!rt_axis (call, rt_attr_i (call->node, "axis", 0), x->rank, &axis, error))
    return FALSE;
  gint64 len = x->dims[axis];
  gboolean squeeze = split == NULL && rt_attr_i (call->node, "keepdims", 1) == 0;
  gint64 chunk = 1, n_parts = len;
  if (split && (split->kind != RT_KIND_TENSOR
                || (split->dtype != GRAPH_DTYPE_INT32 && split->dtype != GRAPH_DTYPE_INT64)
                || split->rank > 1))
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "split must be an int32/int64 scalar or 1-D");
      return FALSE;
    }
  if (split && split->rank == 0)
    {
      chunk = rt_get_i64 (split, 0);
      if (chunk <= 0)
        {
          rt_call_error (call, error, RT_ERROR_INPUT, "split %" G_GINT64_FORMAT
                         " must be positive", chunk);
          return FALSE;
        }
      n_parts = (len + chunk - 1) / chunk;
    }
  else if (split)
    {
      gint64 sum = 0;
      for (gint64 i = 0; i < split->numel; i++)
        {
          gint64 v = rt_get_i64 (split, i);
          if (v < 0 || v > len - sum)
            {
              rt_call_error (call, error, RT_ERROR_INPUT,
                             "split sizes must be >= 0 and add up to %" G_GINT64_FORMAT, len);
              return FALSE;
            }
          sum += v;
        }
      if (sum != len)
        {
          rt_call_error (call, error, RT_ERROR_INPUT, "split sizes add up to %" G_GINT64_FORMAT
                         ", the axis has %" G_GINT64_FORMAT, sum, len);
          return FALSE;
        }
      n_parts = split->numel;
    }
  if (!rt_call_output_sequence (call, 0, x->dtype, error))
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  gint64 outer = rt_shape_numel (axis, x->dims);
  gint64 inner = rt_shape_inner (x->rank, x->dims, axis);
  gint64 start = 0;
  for (gint64 p = 0; p < n_parts; p++)
    {
      gint64 n = split && split->rank == 1 ? rt_get_i64 (split, p) : MIN (chunk, len - start);
      gint64 dims[RT_MAX_RANK];
      guint rank = 0;
      for (guint d = 0; d < x->rank; d++)
        if (d != axis)
          dims[rank++] = x->dims[d];
        else if (!squeeze)
          dims[rank++] = n;
      RtTensor *o = rt_call_sequence_append (call, 0, x->dtype, rank, dims, error);
      if (o == NULL)
        return FALSE;
      gsize row = (gsize) (n * inner) * es;
      for (gint64 r = 0; r < outer && row; r++)
        memcpy ((char *) o->data + (gsize) r * row,
                (const char *) x->data + (gsize) ((r * len + start) * inner) * es, row);
      start += n;
    }
  return TRUE;
}

/* ---- SequenceMap ------------------------------------------------------------ */

static void
body_free (gpointer p)
{
  rt_session_free (p);
}

static gboolean
prepare_sequence_map (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  Graph *g = NULL;
  (void) opset;
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

static gboolean
k_sequence_map (RtCall *call, GError **error)
{
  const RtSequence *seq0 = input_sequence (call, 0, error);
  if (seq0 == NULL)
    return FALSE;
  guint n = seq0->n;
  for (guint j = 1; j < call->n_inputs; j++)
    {
      const RtSequence *sj = call->inputs[j] ? rt_sequence (call->inputs[j]) : NULL;
      if (call->inputs[j] == NULL || call->inputs[j]->kind == RT_KIND_NONE)
        {
          rt_call_error (call, error, RT_ERROR_INPUT, "input %u has no value", j);
          return FALSE;
        }
      if (sj && sj->n != n)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "input %u is a sequence of %u, input 0 "
                         "of %u", j, sj->n, n);
          return FALSE;
        }
    }
  for (guint k = 0; k < call->n_outputs; k++)
    if (!rt_call_output_sequence (call, k, output_elem_type (call->node, k), error))
      return FALSE;
  g_autofree const RtTensor **ins = g_new0 (const RtTensor *, call->n_inputs);
  g_autofree const RtTensor **outs = g_new0 (const RtTensor *, MAX (call->n_outputs, 1));
  for (guint i = 0; i < n; i++)
    {
      for (guint j = 0; j < call->n_inputs; j++)
        {
          const RtSequence *sj = rt_sequence (call->inputs[j]);
          ins[j] = sj ? &sj->items[i] : call->inputs[j];
        }
      if (!rt_body_run (call->state, call, call->n_inputs, ins, call->n_outputs, outs, error))
        return FALSE;
      for (guint k = 0; k < call->n_outputs; k++)
        {
          if (outs[k]->kind != RT_KIND_TENSOR)
            {
              rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                             "body output %u is not a tensor", k);
              return FALSE;
            }
          if (!append_copy (call, k, outs[k], error))
            return FALSE;
        }
    }
  return TRUE;
}

/* ---- optionals ------------------------------------------------------------- */

static gboolean
k_optional (RtCall *call, GError **error)
{
  const RtTensor *v = call->n_inputs ? call->inputs[0] : NULL;
  if (v)
    return rt_call_output_value (call, 0, v, error);
  return rt_call_output_none (call, 0, output_elem_type (call->node, 0), error);
}

static gboolean
k_optional_has_element (RtCall *call, GError **error)
{
  const RtTensor *v = call->n_inputs ? call->inputs[0] : NULL;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_BOOL, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  *(guint8 *) o->data = v != NULL && v->kind != RT_KIND_NONE;
  return TRUE;
}

static gboolean
k_optional_get_element (RtCall *call, GError **error)
{
  const RtTensor *v = call->inputs[0];
  if (v->kind == RT_KIND_NONE)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "the optional input has no value");
      return FALSE;
    }
  return rt_call_output_value (call, 0, v, error);
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("Identity", 1), RT_IN (1, 1), RT_OUT (1, 1), .run = k_identity },
  { RT_ONNX ("SequenceEmpty", 11), RT_IN (0, 0), RT_OUT (1, 1), .run = k_sequence_empty },
  { RT_ONNX ("SequenceConstruct", 11), RT_IN (1, RT_VARIADIC), RT_OUT (1, 1), .run = k_sequence_construct },
  { RT_ONNX ("SequenceAt", 11), RT_IN (2, 2), RT_OUT (1, 1), .run = k_sequence_at },
  { RT_ONNX ("SequenceLength", 11), RT_IN (1, 1), RT_OUT (1, 1), .run = k_sequence_length },
  { RT_ONNX ("SequenceInsert", 11), RT_IN (2, 3), RT_OUT (1, 1), .run = k_sequence_insert },
  { RT_ONNX ("SequenceErase", 11), RT_IN (1, 2), RT_OUT (1, 1), .run = k_sequence_erase },
  { RT_ONNX ("ConcatFromSequence", 11), RT_IN (1, 1), RT_OUT (1, 1), .run = k_concat_from_sequence },
  { RT_ONNX ("SplitToSequence", 11), RT_IN (1, 2), RT_OUT (1, 1), .run = k_split_to_sequence },
  { RT_ONNX ("SequenceMap", 17), RT_IN (1, RT_VARIADIC), RT_OUT (1, RT_VARIADIC), .run = k_sequence_map, .prepare = prepare_sequence_map, .free_state = body_free },
  { RT_ONNX ("Optional", 15), RT_IN (0, 1), RT_OUT (1, 1), .run = k_optional },
  { RT_ONNX ("OptionalHasElement", 15), RT_IN (0, 1), RT_OUT (1, 1), .run = k_optional_has_element },
  { RT_ONNX ("OptionalGetElement", 15), RT_IN (1, 1), RT_OUT (1, 1), .run = k_optional_get_element },
};

RT_KERNEL_TABLE (rt_kernels_sequence, defs);
