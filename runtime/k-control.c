/* Control flow with subgraphs: If (opset 1+), Loop (opset 1+), Scan
 * (opset 9+).  Each body is a session of its own (Note [Subgraphs] in
 * session-private.h), made once in prepare(); a body may read the values
 * of enclosing graphs. */
#include "runtime/session-private.h"
#include <string.h>

typedef struct
{
  RtSession *body[2];
} ControlState;

static void
control_state_free (gpointer p)
{
  ControlState *st = p;
  if (st == NULL)
    return;
  for (guint i = 0; i < 2; i++)
    rt_session_free (st->body[i]);
  g_free (st);
}

static gboolean
prepare_bodies (const GraphNode *node, const char *a, const char *b, gpointer *state,
                GError **error)
{
  ControlState *st = g_new0 (ControlState, 1);
  const char *names[2] = { a, b };
  for (guint i = 0; i < 2 && names[i]; i++)
    {
      Graph *g = NULL;
      if (!graph_node_get_g (node, names[i], &g))
        {
          rt_node_error (node, error, RT_ERROR_INVALID_GRAPH, "no '%s' subgraph", names[i]);
          control_state_free (st);
          return FALSE;
        }
      st->body[i] = rt_body_new (g, error);
      if (st->body[i] == NULL)
        {
          g_prefix_error (error, "%s: %s: ", rt_node_label (node), names[i]);
          control_state_free (st);
          return FALSE;
        }
    }
  *state = st;
  return TRUE;
}

static gboolean
prepare_if (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset;
  return prepare_bodies (node, "then_branch", "else_branch", state, error);
}

/* A trace's prim::If (scripted code inside a trace): its blocks, block0
 * the then branch, run as If's branches. */
static gboolean
prepare_prim_if (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset;
  return prepare_bodies (node, "block0", "block1", state, error);
}

static gboolean
prepare_body (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset;
  return prepare_bodies (node, "body", NULL, state, error);
}

/* A trace's prim::Loop: its block0 is the body. */
static gboolean
prepare_prim_loop (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset;
  return prepare_bodies (node, "block0", NULL, state, error);
}

/* Output i := a copy of t. */
static gboolean
output_copy (RtCall *call, guint i, const RtTensor *t, GError **error)
{
  RtTensor *o = rt_call_output (call, i, t->dtype, t->rank, t->dims, error);
  if (o == NULL)
    return FALSE;
  if (o->numel)
    memmove (o->data, t->data, (gsize) t->numel * rt_dtype_size (t->dtype));
  return TRUE;
}

static gboolean
scalar_true (RtCall *call, const RtTensor *t, const char *what, gboolean *out, GError **error)
{
  if (t->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "%s must have one element", what);
      return FALSE;
    }
  *out = rt_get_f64 (t, 0) != 0;
  return TRUE;
}

static gboolean
k_if (RtCall *call, GError **error)
{
  ControlState *st = call->state;
  gboolean cond;
  if (!scalar_true (call, call->inputs[0], "cond", &cond, error))
    return FALSE;
  RtSession *body = st->body[cond ? 0 : 1];
  g_autofree const RtTensor **outs = g_new0 (const RtTensor *, MAX (call->n_outputs, 1));
  if (!rt_body_run (body, call, 0, NULL, call->n_outputs, outs, error))
    return FALSE;
  for (guint i = 0; i < call->n_outputs; i++)
    if (!rt_call_output_value (call, i, outs[i], error))
      return FALSE;
  return TRUE;
}

/* A tensor with its own memory (loop-carried values, stacked slices). */
typedef struct
{
  RtTensor t;
  GByteArray *mem;
} Held;

static void
held_set (Held *h, const RtTensor *src)
{
  gsize n = (gsize) src->numel * rt_dtype_size (src->dtype);
  if (h->mem == NULL)
    h->mem = g_byte_array_new ();
  g_byte_array_set_size (h->mem, (guint) MAX (n, 1));
  if (n)
    memmove (h->mem->data, src->data, n);
  h->t = *src;
  h->t.data = h->mem->data;
}

static void
held_clear (Held *h, guint n)
{
  for (guint i = 0; i < n; i++)
    if (h[i].mem)
      g_byte_array_unref (h[i].mem);
}

/* (*cur)[i] := outs[i] for i < n, through *spare: an output may alias any
 * of *cur (a body that swaps two carried values). */
static void
held_update (Held **cur, Held **spare, guint n, const RtTensor *const *outs)
{
  for (guint i = 0; i < n; i++)
    held_set (&(*spare)[i], outs[i]);
  Held *t = *cur;
  *cur = *spare;
  *spare = t;
}

/* Loop-carried values of any kind (Note [Sequences and optionals]). */
static void
stores_free (RtStore **st, guint n)
{
  for (guint i = 0; i < n; i++)
    rt_store_free (st[i]);
  g_free (st);
}

/* (*cur)[i] := copies of outs[i] for i < n, through *spare (an output may
 * alias any of *cur). */
static gboolean
stores_update (RtCall *call, RtStore ***cur, RtStore ***spare, guint n,
               const RtTensor *const *outs, GError **error)
{
  for (guint i = 0; i < n; i++)
    if (!rt_store_set ((*spare)[i], outs[i], call->ctx->options.max_tensor_bytes, error))
      {
        g_prefix_error (error, "%s: ", rt_node_label (call->node));
        return FALSE;
      }
  RtStore **t = *cur;
  *cur = *spare;
  *spare = t;
  return TRUE;
}

static gboolean
same_shape (const RtTensor *a, const RtTensor *b)
{
  return a->dtype == b->dtype && a->rank == b->rank
         && memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) == 0;
}

/* Loop: inputs M, cond (both optional), N carried values; body (iter_num,
 * cond, carried...) → (cond, carried..., K scan outputs); outputs the N
 * final carried values and the K scan outputs stacked on a new axis 0.
 * A trace's prim::Loop (scripted `for`/`while` inside a trace) is the same
 * with a body that does not read the condition: block0 (i, carried...) →
 * (cond, carried...), `body_cond` FALSE. */
static gboolean
run_loop (RtCall *call, gboolean body_cond, GError **error)
{
  ControlState *st = call->state;
  const RtTensor *M = call->n_inputs > 0 ? call->inputs[0] : NULL;
  const RtTensor *c0 = call->n_inputs > 1 ? call->inputs[1] : NULL;
  guint N = call->n_inputs > 2 ? call->n_inputs - 2 : 0;
  if (call->n_outputs < N || (!body_cond && call->n_outputs != N))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "%u outputs for %u loop-carried values",
                     call->n_outputs, N);
      return FALSE;
    }
  guint K = call->n_outputs - N;
  gint64 max_trip = G_MAXINT64;
  gboolean cond = TRUE;
  if (M)
    {
      if (M->numel != 1)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "M must have one element");
          return FALSE;
        }
      max_trip = rt_get_i64 (M, 0);
    }
  if (c0 && !scalar_true (call, c0, "cond", &cond, error))
    return FALSE;
  RtStore **carried = g_new0 (RtStore *, MAX (N, 1));
  RtStore **spare = g_new0 (RtStore *, MAX (N, 1));
  for (guint i = 0; i < N; i++)
    {
      carried[i] = rt_store_new ();
      spare[i] = rt_store_new ();
    }
  for (guint i = 0; i < N; i++)
    {
      if (call->inputs[2 + i] == NULL)
        {
          rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "absent loop-carried value %u", i);
          stores_free (carried, N);
          stores_free (spare, N);
          return FALSE;
        }
      if (!rt_store_set (carried[i], call->inputs[2 + i], call->ctx->options.max_tensor_bytes,
                         error))
        {
          stores_free (carried, N);
          stores_free (spare, N);
          return FALSE;
        }
    }
  /* Per scan output: the slices so far, appended. */
  g_autofree Held *scans = g_new0 (Held, MAX (K, 1));
  g_autofree RtTensor *first = g_new0 (RtTensor, MAX (K, 1));
  g_autofree const RtTensor **ins = g_new0 (const RtTensor *, 2 + N);
  guint c = body_cond ? 1 : 0;   /* where the carried values start, after iter_num (and cond) */
  g_autofree const RtTensor **outs = g_new0 (const RtTensor *, 1 + N + K);
  gint64 it = 0;
  guint8 cond_byte = 1;
  RtTensor it_t = { .dtype = GRAPH_DTYPE_INT64, .rank = 0, .numel = 1, .data = &it };
  RtTensor cond_t = { .dtype = GRAPH_DTYPE_BOOL, .rank = 0, .numel = 1, .data = &cond_byte };
  gboolean ok = TRUE;
  guint64 limit = call->ctx->options.max_loop_iterations;
  for (; ok && it < max_trip && cond; it++)
    {
      if (limit && (guint64) it >= limit)
        {
          rt_call_error (call, error, RT_ERROR_TOO_LARGE,
                         "the loop did not end within %" G_GUINT64_FORMAT " iterations "
                         "(RtOptions.max_loop_iterations, --max-loop-iterations)", limit);
          ok = FALSE;
          break;
        }
      cond_byte = 1;
      ins[0] = &it_t;
      ins[1] = &cond_t;
      for (guint i = 0; i < N; i++)
        ins[1 + c + i] = &carried[i]->value;
      ok = rt_body_run (st->body[0], call, 1 + c + N, ins, 1 + N + K, outs, error)
           && scalar_true (call, outs[0], "the body's cond output", &cond, error);
      if (ok)
        ok = stores_update (call, &carried, &spare, N, outs + 1, error);
      for (guint k = 0; ok && k < K; k++)
        {
          const RtTensor *o = outs[1 + N + k];
          if (o->kind != RT_KIND_TENSOR)
            {
              rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                             "scan output %u is not a tensor", k);
              ok = FALSE;
              break;
            }
          if (it == 0)
            first[k] = *o;
          else if (!same_shape (&first[k], o))
            {
              rt_call_error (call, error, RT_ERROR_SHAPE,
                             "scan output %u changes shape between iterations", k);
              ok = FALSE;
              break;
            }
          if (scans[k].mem == NULL)
            scans[k].mem = g_byte_array_new ();
          gsize n = (gsize) o->numel * rt_dtype_size (o->dtype);
          if ((guint64) scans[k].mem->len + n > call->ctx->options.max_tensor_bytes)
            {
              rt_call_error (call, error, RT_ERROR_TOO_LARGE, "scan output %u grows past the "
                             "tensor size limit", k);
              ok = FALSE;
              break;
            }
          g_byte_array_append (scans[k].mem, o->data, (guint) n);
        }
    }
  for (guint i = 0; ok && i < N; i++)
    ok = rt_call_output_value (call, i, &carried[i]->value, error);
  for (guint k = 0; ok && k < K; k++)
    {
      RtTensor stacked = { .dtype = it ? first[k].dtype : GRAPH_DTYPE_FLOAT, .rank = 1 };
      stacked.dims[0] = it;
      if (it)
        {
          stacked.rank = first[k].rank + 1;
          memcpy (stacked.dims + 1, first[k].dims, first[k].rank * sizeof (gint64));
        }
      stacked.numel = rt_shape_numel (stacked.rank, stacked.dims);
      stacked.data = scans[k].mem ? scans[k].mem->data : NULL;
      ok = output_copy (call, N + k, &stacked, error);
    }
  stores_free (carried, N);
  stores_free (spare, N);
  held_clear (scans, K);
  return ok;
}

static gboolean
k_loop (RtCall *call, GError **error)
{
  return run_loop (call, TRUE, error);
}

static gboolean
k_prim_loop (RtCall *call, GError **error)
{
  return run_loop (call, FALSE, error);
}

/* Copies slice `index` along `axis` of t into dst (rank - 1 dims), or the
 * other way round with `to_t`. */
static void
slice_copy (const RtTensor *t, guint axis, gint64 index, void *dst, gboolean to_t)
{
  gsize es = rt_dtype_size (t->dtype);
  gint64 outer = rt_shape_numel (axis, t->dims), len = t->dims[axis];
  gint64 inner = rt_shape_inner (t->rank, t->dims, axis);
  gsize row = (gsize) inner * es;
  for (gint64 o = 0; o < outer; o++)
    {
      char *tp = (char *) t->data + (gsize) ((o * len + index) * inner) * es;
      char *dp = (char *) dst + (gsize) o * row;
      if (to_t)
        memcpy (tp, dp, row);
      else
        memcpy (dp, tp, row);
    }
}

/* Scan (opset 9+): N states then M scan inputs (num_scan_inputs), sliced
 * along scan_input_axes in scan_input_directions; the body maps (states,
 * slices) → (states, K output slices), stacked along scan_output_axes. */
static gboolean
k_scan (RtCall *call, GError **error)
{
  ControlState *st = call->state;
  gint64 Mi = rt_attr_i (call->node, "num_scan_inputs", -1);
  if (Mi < 1 || (guint64) Mi > call->n_inputs)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "num_scan_inputs %" G_GINT64_FORMAT
                     " does not fit %u inputs", Mi, call->n_inputs);
      return FALSE;
    }
  guint M = (guint) Mi, N = call->n_inputs - M;
  if (call->n_outputs < N)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "fewer outputs than states");
      return FALSE;
    }
  guint K = call->n_outputs - N;
  gsize n_ia = 0, n_id = 0, n_oa = 0, n_od = 0;
  const gint64 *ia = NULL, *id = NULL, *oa = NULL, *od = NULL;
  rt_attr_ints (call->node, "scan_input_axes", &n_ia, &ia);
  rt_attr_ints (call->node, "scan_input_directions", &n_id, &id);
  rt_attr_ints (call->node, "scan_output_axes", &n_oa, &oa);
  rt_attr_ints (call->node, "scan_output_directions", &n_od, &od);
  if ((ia && n_ia != M) || (id && n_id != M) || (oa && n_oa != K) || (od && n_od != K))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "scan_input_* need one value per scan input, scan_output_* per scan output");
      return FALSE;
    }
  g_autofree guint *in_axis = g_new0 (guint, M);
  gint64 L = -1;
  for (guint j = 0; j < M; j++)
    {
      const RtTensor *x = call->inputs[N + j];
      if (x == NULL || x->rank == 0 || !rt_axis (call, ia ? ia[j] : 0, x->rank, &in_axis[j], error))
        {
          if (error && *error == NULL)
            rt_call_error (call, error, RT_ERROR_SHAPE, "scan input %u must have rank >= 1", j);
          return FALSE;
        }
      if (L >= 0 && x->dims[in_axis[j]] != L)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "scan inputs of different lengths");
          return FALSE;
        }
      L = x->dims[in_axis[j]];
    }
  g_autofree Held *states = g_new0 (Held, MAX (N, 1));
  g_autofree Held *spare = g_new0 (Held, MAX (N, 1));
  for (guint i = 0; i < N; i++)
    held_set (&states[i], call->inputs[i]);
  g_autofree Held *slices = g_new0 (Held, M);
  g_autofree RtTensor *slice_t = g_new0 (RtTensor, M);
  for (guint j = 0; j < M; j++)
    {
      const RtTensor *x = call->inputs[N + j];
      RtTensor *s = &slice_t[j];
      s->dtype = x->dtype;
      s->rank = x->rank - 1;
      for (guint d = 0, k = 0; d < x->rank; d++)
        if (d != in_axis[j])
          s->dims[k++] = x->dims[d];
      s->numel = rt_shape_numel (s->rank, s->dims);
      slices[j].mem = g_byte_array_sized_new (1);
      g_byte_array_set_size (slices[j].mem, (guint) MAX ((gsize) s->numel * rt_dtype_size (s->dtype), 1));
      s->data = slices[j].mem->data;
    }
  g_autofree const RtTensor **ins = g_new0 (const RtTensor *, N + M);
  g_autofree const RtTensor **outs = g_new0 (const RtTensor *, N + K);
  g_autofree RtTensor **ys = g_new0 (RtTensor *, MAX (K, 1));
  g_autofree guint *out_axis = g_new0 (guint, MAX (K, 1));
  gboolean ok = TRUE;
  for (gint64 t = 0; ok && t < L; t++)
    {
      for (guint j = 0; j < M; j++)
        {
          const RtTensor *x = call->inputs[N + j];
          slice_copy (x, in_axis[j], (id && id[j]) ? L - 1 - t : t, slice_t[j].data, FALSE);
          ins[N + j] = &slice_t[j];
        }
      for (guint i = 0; i < N; i++)
        ins[i] = &states[i].t;
      ok = rt_body_run (st->body[0], call, N + M, ins, N + K, outs, error);
      if (ok)
        held_update (&states, &spare, N, outs);
      for (guint k = 0; ok && k < K; k++)
        {
          const RtTensor *o = outs[N + k];
          if (t == 0)
            {
              /* Output k: o's shape with L inserted at the output axis. */
              if (!rt_axis (call, oa ? oa[k] : 0, o->rank + 1, &out_axis[k], error))
                {
                  ok = FALSE;
                  break;
                }
              gint64 dims[RT_MAX_RANK];
              for (guint d = 0, s = 0; d < o->rank + 1; d++)
                dims[d] = d == out_axis[k] ? L : o->dims[s++];
              ys[k] = rt_call_output (call, N + k, o->dtype, o->rank + 1, dims, error);
              if (ys[k] == NULL)
                {
                  ok = FALSE;
                  break;
                }
            }
          RtTensor want = *ys[k];
          want.rank--;
          for (guint d = 0, s = 0; d < ys[k]->rank; d++)
            if (d != out_axis[k])
              want.dims[s++] = ys[k]->dims[d];
          if (o->dtype != want.dtype || o->rank != want.rank
              || memcmp (o->dims, want.dims, o->rank * sizeof (gint64)) != 0)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE,
                             "scan output %u changes shape between iterations", k);
              ok = FALSE;
              break;
            }
          slice_copy (ys[k], out_axis[k], (od && od[k]) ? L - 1 - t : t, (void *) o->data, TRUE);
        }
    }
  for (guint i = 0; ok && i < N; i++)
    ok = output_copy (call, i, &states[i].t, error);
  for (guint k = 0; ok && L == 0 && k < K; k++)
    {
      gint64 zero = 0;
      ok = rt_call_output (call, N + k, call->inputs[N]->dtype, 1, &zero, error) != NULL;
    }
  held_clear (states, N);
  held_clear (spare, N);
  held_clear (slices, M);
  return ok;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("If", 1), RT_IN (1, 1), RT_OUT (1, RT_VARIADIC), .dtypes = RT_DT (BOOL), .run = k_if, .prepare = prepare_if, .free_state = control_state_free },
  { RT_DOMAIN ("prim", "If", 0), RT_IN (1, 1), RT_OUT (0, RT_VARIADIC), .run = k_if, .prepare = prepare_prim_if, .free_state = control_state_free },
  { RT_ONNX ("Loop", 1), RT_IN (0, RT_VARIADIC), RT_OUT (1, RT_VARIADIC), .run = k_loop, .prepare = prepare_body, .free_state = control_state_free },
  { RT_DOMAIN ("prim", "Loop", 0), RT_IN (2, RT_VARIADIC), RT_OUT (0, RT_VARIADIC), .run = k_prim_loop, .prepare = prepare_prim_loop, .free_state = control_state_free },
  { RT_ONNX ("Scan", 9), RT_IN (1, RT_VARIADIC), RT_OUT (1, RT_VARIADIC), .run = k_scan, .prepare = prepare_body, .free_state = control_state_free },
};

RT_KERNEL_TABLE (rt_kernels_control, defs);
