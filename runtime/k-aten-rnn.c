/* ATen recurrent layers: lstm (the input overload), a stack of k-rnn.c's
 * LSTM layers with the weights reordered from torch's gates (i, f, g, o)
 * to ONNX's (i, o, f, c). */
#include "runtime/k-aten-private.h"
#include <string.h>

/* ONNX gate block k takes torch's block torch_gate[k]. */
static const int torch_gate[4] = { 0, 3, 1, 2 };

/* dst (4H rows of `cols`) := src's gate blocks in ONNX order. */
static void
reorder_gates (const RtTensor *src, gint64 H, gint64 cols, char *dst, gsize es)
{
  gsize block = (gsize) (H * cols) * es;
  for (int k = 0; k < 4; k++)
    memcpy (dst + k * block, (const char *) src->data + torch_gate[k] * block, block);
}

/* lstm(input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers,
 * float dropout, bool train, bool bidirectional, bool batch_first) →
 * (output, h_n, c_n).  Flattened: input, h0, c0, params..., then the six
 * scalars; params per layer and direction: w_ih, w_hh[, b_ih, b_hh]. */
static gboolean
a_lstm (RtCall *call, GError **error)
{
  guint n_in = call->n_inputs, n_params = n_in - 9;
  const RtTensor *x = aten_arg (call, 0), *h0 = aten_arg (call, 1), *c0 = aten_arg (call, 2);
  gboolean has_biases = aten_i (call, n_in - 6, 1) != 0;
  gint64 L = aten_i (call, n_in - 5, 1), D = aten_i (call, n_in - 2, 0) ? 2 : 1;
  guint per = has_biases ? 4 : 2;
  gboolean batch_first = aten_i (call, n_in - 1, 0) != 0;
  if (aten_i (call, n_in - 3, 0) != 0 && aten_f (call, n_in - 4, 0) > 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "training-mode dropout is not supported");
      return FALSE;
    }
  if (!aten_is_float (x) || x->rank != 3 || h0 == NULL || c0 == NULL || h0->rank != 3 || L <= 0
      || n_params != (guint) (L * D) * per)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "needs a 3-D float input, hx = (h0, c0) and %u weights per layer and direction "
                     "(projections are not supported)", per);
      return FALSE;
    }
  GraphDType dt = x->dtype;
  gsize es = rt_dtype_size (dt);
  /* batch_first: input and output (B, T, .); the layers run on (T, B, .). */
  gint64 T = x->dims[batch_first ? 1 : 0], B = x->dims[batch_first ? 0 : 1], H = h0->dims[2];
  gint64 hd[3] = { L * D, B, H };
  if (h0->dims[0] != L * D || h0->dims[1] != B || c0->rank != 3 || memcmp (c0->dims, h0->dims, sizeof hd) != 0
      || h0->dtype != dt || c0->dtype != dt)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "h0 and c0 must be (%" G_GINT64_FORMAT ", %"
                     G_GINT64_FORMAT ", H) of the input's type", L * D, B);
      return FALSE;
    }
  for (guint i = 3; i < 3 + n_params; i++)
    if (aten_arg (call, i) == NULL || aten_arg (call, i)->dtype != dt)
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "weight %u must be a tensor of the input's type", i - 3);
        return FALSE;
      }
  gint64 od[3] = { batch_first ? B : T, batch_first ? T : B, D * H };
  RtTensor *out = rt_call_output (call, 0, dt, 3, od, error), *hy = NULL, *cy = NULL;
  if (out == NULL || (call->n_outputs > 1 && (hy = rt_call_output (call, 1, dt, 3, hd, error)) == NULL)
      || (call->n_outputs > 2 && (cy = rt_call_output (call, 2, dt, 3, hd, error)) == NULL))
    return FALSE;
  /* Scratch 1: the layer's W | R | B; 2: its Y (T, D, B, H); 3: the next
   * layer's input (T, B, D H), or the batch_first input transposed.  (0 is
   * rt_lstm_layer's.) */
  gint64 I_max = MAX (x->dims[2], D * H);
  gint64 n_w = D * 4 * H * (I_max + H + 2);
  char *wbuf = rt_call_scratch_n (call, 1, (gsize) n_w * es, error);
  char *ybuf = wbuf ? rt_call_scratch_n (call, 2, (gsize) MAX (T * D * B * H, 1) * es, error) : NULL;
  char *nbuf = ybuf ? rt_call_scratch_n (call, 3, (gsize) MAX (MAX (T * B * D * H, x->numel), 1) * es, error) : NULL;
  if (nbuf == NULL)
    return FALSE;
  RtTensor in = *x;
  if (batch_first)
    {
      /* The input as (T, B, I), in scratch 3 until layer 0 has read it. */
      gint64 I = x->dims[2];
      gsize row = (gsize) I * es;
      char *tb = nbuf;
      for (gint64 t = 0; t < T; t++)
        for (gint64 b = 0; b < B; b++)
          memcpy (tb + (t * B + b) * (gint64) row, (const char *) x->data + (b * T + t) * (gint64) row, row);
      in = (RtTensor) { .dtype = dt, .rank = 3, .dims = { T, B, I }, .numel = x->numel, .data = tb };
    }
  for (gint64 l = 0; l < L; l++)
    {
      gint64 I = in.dims[2];
      RtTensor W = { .dtype = dt, .rank = 3, .dims = { D, 4 * H, I }, .numel = D * 4 * H * I, .data = wbuf };
      RtTensor R = { .dtype = dt, .rank = 3, .dims = { D, 4 * H, H }, .numel = D * 4 * H * H };
      RtTensor Bt = { .dtype = dt, .rank = 2, .dims = { D, 8 * H }, .numel = D * 8 * H };
      R.data = wbuf + W.numel * (gint64) es;
      Bt.data = (char *) R.data + R.numel * (gint64) es;
      for (gint64 d = 0; d < D; d++)
        {
          const RtTensor *const *p = call->inputs + 3 + (l * D + d) * per;
          gint64 wshape[2] = { 4 * H, I }, rshape[2] = { 4 * H, H };
          if (p[0]->rank != 2 || memcmp (p[0]->dims, wshape, sizeof wshape) != 0 || p[1]->rank != 2
              || memcmp (p[1]->dims, rshape, sizeof rshape) != 0
              || (has_biases && (p[2]->numel != 4 * H || p[3]->numel != 4 * H)))
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "layer %" G_GINT64_FORMAT
                             " direction %" G_GINT64_FORMAT ": weights of the wrong shape", l, d);
              return FALSE;
            }
          reorder_gates (p[0], H, I, (char *) W.data + d * 4 * H * I * (gint64) es, es);
          reorder_gates (p[1], H, H, (char *) R.data + d * 4 * H * H * (gint64) es, es);
          char *bd = (char *) Bt.data + d * 8 * H * (gint64) es;
          if (has_biases)
            {
              reorder_gates (p[2], H, 1, bd, es);
              reorder_gates (p[3], H, 1, bd + 4 * H * (gint64) es, es);
            }
          else
            memset (bd, 0, (gsize) (8 * H) * es);
        }
      gsize state = (gsize) (D * B * H) * es;
      /* This layer's slices of h0, c0, h_n and c_n. */
      RtTensor lh0 = { .dtype = dt, .rank = 3, .dims = { D, B, H }, .numel = D * B * H };
      RtTensor lc0 = lh0, lhy = lh0, lcy = lh0;
      RtTensor Y = { .dtype = dt, .rank = 4, .dims = { T, D, B, H }, .numel = T * D * B * H, .data = ybuf };
      lh0.data = (char *) h0->data + l * state;
      lc0.data = (char *) c0->data + l * state;
      lhy.data = hy ? (char *) hy->data + l * state : NULL;
      lcy.data = cy ? (char *) cy->data + l * state : NULL;
      if (!rt_lstm_layer (call, &in, &W, &R, &Bt, &lh0, &lc0, &Y, hy ? &lhy : NULL, cy ? &lcy : NULL, error))
        return FALSE;
      /* Y (T, D, B, H) → (T, B, D H): the output, or the next layer's input. */
      gboolean last = l == L - 1;
      char *dst = last ? out->data : nbuf;
      gsize row = (gsize) H * es;
      for (gint64 t = 0; t < T; t++)
        for (gint64 d = 0; d < D; d++)
          for (gint64 b = 0; b < B; b++)
            {
              gint64 at = last && batch_first ? b * T + t : t * B + b;
              memcpy (dst + (at * D + d) * (gint64) row, ybuf + ((t * D + d) * B + b) * (gint64) row, row);
            }
      in = (RtTensor) { .dtype = dt, .rank = 3, .dims = { T, B, D * H }, .numel = T * B * D * H, .data = nbuf };
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ATEN ("lstm"), RT_IN (12, RT_VARIADIC), RT_OUT (1, 3), .run = a_lstm },
};

RT_KERNEL_TABLE (rt_kernels_aten_rnn, defs);
