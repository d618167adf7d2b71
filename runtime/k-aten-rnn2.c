/* ATen gru, rnn_tanh and rnn_relu (the input overloads) and lstm_cell: stacked,
 * optionally bidirectional layers with torch's gate order (GRU: r, z, n),
 * computed step by step in double.
 *   gru / rnn_*(input, hx, Tensor[] params, bool has_biases, int num_layers,
 *               float dropout, bool train, bool bidirectional, bool batch_first)
 *   → (output, h_n); params per layer and direction: w_ih, w_hh[, b_ih, b_hh]. */
#include "runtime/k-aten-private.h"
#include <math.h>

typedef enum { CELL_TANH, CELL_RELU, CELL_GRU } Cell;

static double sigmoid (double v) { return 1 / (1 + exp (-v)); }

/* y[r] = sum_c W[r, c] x[c] + (b ? b[r] : 0), for rows [r0, r0 + n). */
static void
affine (const RtTensor *W, const RtTensor *b, const double *x, gint64 cols, gint64 r0, gint64 n, double *y)
{
  for (gint64 r = 0; r < n; r++)
    {
      double s = b ? rt_get_f64 (b, r0 + r) : 0;
      for (gint64 c = 0; c < cols; c++)
        s += rt_get_f64 (W, (r0 + r) * cols + c) * x[c];
      y[r] = s;
    }
}

static gboolean
rnn (RtCall *call, Cell cell, GError **error)
{
  guint n_in = call->n_inputs;
  if (n_in < 9)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "too few arguments");
      return FALSE;
    }
  guint n_params = n_in - 8;
  const RtTensor *x = aten_arg (call, 0), *h0 = aten_arg (call, 1);
  gboolean has_biases = aten_i (call, n_in - 6, 1) != 0;
  gint64 L = aten_i (call, n_in - 5, 1), D = aten_i (call, n_in - 2, 0) ? 2 : 1;
  guint per = has_biases ? 4 : 2;
  gint64 G = cell == CELL_GRU ? 3 : 1;
  gboolean batch_first = aten_i (call, n_in - 1, 0) != 0;
  if (aten_i (call, n_in - 3, 0) != 0 && aten_f (call, n_in - 4, 0) > 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "training-mode dropout is not supported");
      return FALSE;
    }
  if (!aten_is_float (x) || x->rank != 3 || h0 == NULL || h0->rank != 3 || h0->dtype != x->dtype || L <= 0
      || n_params != (guint) (L * D) * per || h0->dims[0] != L * D || h0->dims[1] != x->dims[batch_first ? 0 : 1])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "needs a 3-D float input, hx (layers x directions, batch, H) and %u weights per layer "
                     "and direction", per);
      return FALSE;
    }
  GraphDType dt = x->dtype;
  /* batch_first: input and output (B, T, .) rather than (T, B, .). */
  gint64 T = x->dims[batch_first ? 1 : 0], B = x->dims[batch_first ? 0 : 1], H = h0->dims[2];
  /* Every weight's shape, before anything is read. */
  for (gint64 l = 0; l < L; l++)
    for (gint64 d = 0; d < D; d++)
      {
        const RtTensor *const *p = call->inputs + 2 + (l * D + d) * per;
        gint64 I = l == 0 ? x->dims[2] : D * H;
        gboolean ok = p[0] && p[1] && p[0]->dtype == dt && p[1]->dtype == dt && p[0]->rank == 2
                      && p[0]->dims[0] == G * H && p[0]->dims[1] == I && p[1]->rank == 2
                      && p[1]->dims[0] == G * H && p[1]->dims[1] == H;
        if (ok && has_biases)
          ok = p[2] && p[3] && p[2]->numel == G * H && p[3]->numel == G * H;
        if (!ok)
          {
            rt_call_error (call, error, RT_ERROR_SHAPE, "layer %" G_GINT64_FORMAT " direction %" G_GINT64_FORMAT
                           ": weights of the wrong shape or type", l, d);
            return FALSE;
          }
      }
  gint64 od[3] = { batch_first ? B : T, batch_first ? T : B, D * H };
  RtTensor *out = rt_call_output (call, 0, dt, 3, od, error);
  RtTensor *hy = out && call->n_outputs > 1 ? rt_call_output (call, 1, dt, 3, h0->dims, error) : NULL;
  if (out == NULL || (call->n_outputs > 1 && hy == NULL))
    return FALSE;
  /* Scratch 1: this layer's input (T, B, I) in double; 2: its output
   * (T, B, D H); 3: h, x-part and h-part gate sums. */
  gint64 I_max = MAX (x->dims[2], D * H);
  double *cur = rt_call_scratch_n (call, 1, (gsize) MAX (T * B * I_max, 1) * sizeof (double), error);
  double *nxt = cur ? rt_call_scratch_n (call, 2, (gsize) MAX (T * B * D * H, 1) * sizeof (double), error) : NULL;
  double *tmp = nxt ? rt_call_scratch_n (call, 3, (gsize) (H + 2 * G * H) * sizeof (double), error) : NULL;
  if (tmp == NULL)
    return FALSE;
  double *h = tmp, *gx = tmp + H, *gh = gx + G * H;
  gint64 I = x->dims[2];
  for (gint64 t = 0; t < T; t++)
    for (gint64 b = 0; b < B; b++)
      for (gint64 k = 0; k < I; k++)
        cur[(t * B + b) * I + k] = rt_get_f64 (x, ((batch_first ? b * T + t : t * B + b)) * I + k);
  gsize es = rt_dtype_size (dt);
  for (gint64 l = 0; l < L; l++)
    {
      for (gint64 d = 0; d < D; d++)
        {
          const RtTensor *const *p = call->inputs + 2 + (l * D + d) * per;
          const RtTensor *bi = has_biases ? p[2] : NULL, *bh = has_biases ? p[3] : NULL;
          for (gint64 b = 0; b < B; b++)
            {
              for (gint64 k = 0; k < H; k++)
                h[k] = rt_get_f64 (h0, ((l * D + d) * B + b) * H + k);
              for (gint64 s = 0; s < T; s++)
                {
                  gint64 t = d == 0 ? s : T - 1 - s;
                  affine (p[0], bi, cur + (t * B + b) * I, I, 0, G * H, gx);
                  affine (p[1], bh, h, H, 0, G * H, gh);
                  for (gint64 k = 0; k < H; k++)
                    {
                      if (cell == CELL_GRU)
                        {
                          double r = sigmoid (gx[k] + gh[k]), z = sigmoid (gx[H + k] + gh[H + k]);
                          double nn = tanh (gx[2 * H + k] + r * gh[2 * H + k]);
                          gx[k] = (1 - z) * nn + z * h[k];
                        }
                      else
                        {
                          double v = gx[k] + gh[k];
                          gx[k] = cell == CELL_TANH ? tanh (v) : MAX (v, 0);
                        }
                    }
                  for (gint64 k = 0; k < H; k++)
                    {
                      h[k] = gx[k];
                      nxt[(t * B + b) * D * H + d * H + k] = h[k];
                    }
                }
              for (gint64 k = 0; hy && k < H; k++)
                rt_convert (&h[k], GRAPH_DTYPE_DOUBLE,
                            (char *) hy->data + (((l * D + d) * B + b) * H + k) * (gint64) es, dt, 1);
            }
        }
      memcpy (cur, nxt, (gsize) (T * B * D * H) * sizeof (double));
      I = D * H;
    }
  if (!batch_first)
    return rt_convert (cur, GRAPH_DTYPE_DOUBLE, out->data, dt, T * B * D * H);
  gsize row = (gsize) (D * H) * es;
  for (gint64 t = 0; t < T; t++)
    for (gint64 b = 0; b < B; b++)
      rt_convert (cur + (t * B + b) * D * H, GRAPH_DTYPE_DOUBLE, (char *) out->data + (b * T + t) * (gint64) row, dt,
                  D * H);
  return TRUE;
}

static gboolean a_gru (RtCall *c, GError **e) { return rnn (c, CELL_GRU, e); }
static gboolean a_rnn_tanh (RtCall *c, GError **e) { return rnn (c, CELL_TANH, e); }
static gboolean a_rnn_relu (RtCall *c, GError **e) { return rnn (c, CELL_RELU, e); }

/* lstm_cell(input (B, I), Tensor[] hx (h, c), w_ih (4H, I), w_hh (4H, H),
 * b_ih?, b_hh?) → (h', c'); torch's gates i, f, g, o. */
static gboolean
a_lstm_cell (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *h = aten_arg (call, 1), *c = aten_arg (call, 2);
  const RtTensor *wi = aten_arg (call, 3), *wh = aten_arg (call, 4), *bi = aten_arg (call, 5), *bh = aten_arg (call, 6);
  if (!aten_is_float (x) || x->rank != 2 || h == NULL || c == NULL || wi == NULL || wh == NULL || h->rank != 2
      || c->rank != 2 || h->dims[0] != x->dims[0] || memcmp (c->dims, h->dims, sizeof (gint64) * 2) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs input (B, I), h and c (B, H), w_ih (4H, I), w_hh (4H, H)");
      return FALSE;
    }
  gint64 B = x->dims[0], I = x->dims[1], H = h->dims[1];
  if (wi->rank != 2 || wi->dims[0] != 4 * H || wi->dims[1] != I || wh->rank != 2 || wh->dims[0] != 4 * H
      || wh->dims[1] != H || (bi && bi->numel != 4 * H) || (bh && bh->numel != 4 * H)
      || wi->dtype != x->dtype || wh->dtype != x->dtype || h->dtype != x->dtype || c->dtype != x->dtype)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "weights of the wrong shape or type");
      return FALSE;
    }
  RtTensor *ho = rt_call_output (call, 0, x->dtype, 2, h->dims, error);
  RtTensor *co = ho && call->n_outputs > 1 ? rt_call_output (call, 1, x->dtype, 2, h->dims, error) : NULL;
  double *hv = ho ? rt_call_scratch_n (call, 1, (gsize) (H + 8 * H + I) * sizeof (double), error) : NULL;
  if (hv == NULL || (call->n_outputs > 1 && co == NULL))
    return FALSE;
  double *gx = hv + H, *gh = gx + 4 * H, *xv = gh + 4 * H;
  gsize es = rt_dtype_size (x->dtype);
  for (gint64 b = 0; b < B; b++)
    {
      for (gint64 k = 0; k < I; k++)
        xv[k] = rt_get_f64 (x, b * I + k);
      for (gint64 k = 0; k < H; k++)
        hv[k] = rt_get_f64 (h, b * H + k);
      affine (wi, bi, xv, I, 0, 4 * H, gx);
      affine (wh, bh, hv, H, 0, 4 * H, gh);
      for (gint64 k = 0; k < H; k++)
        {
          double ig = sigmoid (gx[k] + gh[k]), fg = sigmoid (gx[H + k] + gh[H + k]);
          double gg = tanh (gx[2 * H + k] + gh[2 * H + k]), og = sigmoid (gx[3 * H + k] + gh[3 * H + k]);
          double cn = fg * rt_get_f64 (c, b * H + k) + ig * gg, hn = og * tanh (cn);
          rt_convert (&hn, GRAPH_DTYPE_DOUBLE, (char *) ho->data + (b * H + k) * (gint64) es, x->dtype, 1);
          if (co)
            rt_convert (&cn, GRAPH_DTYPE_DOUBLE, (char *) co->data + (b * H + k) * (gint64) es, x->dtype, 1);
        }
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ATEN ("lstm_cell"), RT_IN (5, 7), RT_OUT (1, 2), .run = a_lstm_cell },
  { RT_ATEN ("gru"), RT_IN (10, RT_VARIADIC), RT_OUT (1, 2), .run = a_gru },
  { RT_ATEN ("rnn_tanh"), RT_IN (10, RT_VARIADIC), RT_OUT (1, 2), .run = a_rnn_tanh },
  { RT_ATEN ("rnn_relu"), RT_IN (10, RT_VARIADIC), RT_OUT (1, 2), .run = a_rnn_relu },
};

RT_KERNEL_TABLE (rt_kernels_aten_rnn2, defs);
