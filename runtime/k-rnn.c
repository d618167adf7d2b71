/* Recurrent layers: LSTM, GRU and RNN (ONNX opsets 1-14: directions,
 * activations with alpha/beta, clip, input_forget, linear_before_reset,
 * layout 0/1, optional B, sequence_lens, initial_h/initial_c, peepholes P;
 * outputs Y, Y_h, Y_c each optional).
 *
 * Note [RNN plan]
 * Per direction: one gemm projects every timestep's input at once
 * (proj[T*B, G*H] = X · Wᵀ + biases that sit outside the recurrence), then
 * each step does one recurrent gemm (gemv at batch 1) of H_{t-1} · Rᵀ into
 * `gates` and the per-batch cell update.  With sequence_lens, batch entry b
 * runs only its first len_b steps (the reverse direction starts at
 * len_b - 1); its state is frozen afterwards, so Y_h / Y_c hold the state of
 * its last valid step, and Y is zero past len_b, as ONNX Runtime does. */
#include "runtime/kernels-private.h"
#include "runtime/blas.h"
#include "runtime/conv-packed.h"
#include "runtime/vexp.h"
#include <math.h>
#include <string.h>

typedef enum { RNN_KIND_RNN, RNN_KIND_GRU, RNN_KIND_LSTM } RnnKind;

typedef enum
{
  ACT_RELU, ACT_TANH, ACT_SIGMOID, ACT_AFFINE, ACT_LEAKYRELU, ACT_THRESHOLDEDRELU,
  ACT_SCALEDTANH, ACT_HARDSIGMOID, ACT_ELU, ACT_SOFTSIGN, ACT_SOFTPLUS,
} ActKind;

/* The activations the spec lists, with the defaults of the ONNX operator
 * of the same name where it takes alpha / beta. */
static const struct
{
  const char *name;
  ActKind     kind;
  gboolean    has_alpha, has_beta;
  double      alpha, beta;
} act_table[] = {
  { "Relu", ACT_RELU, FALSE, FALSE, 0, 0 },
  { "Tanh", ACT_TANH, FALSE, FALSE, 0, 0 },
  { "Sigmoid", ACT_SIGMOID, FALSE, FALSE, 0, 0 },
  { "Affine", ACT_AFFINE, TRUE, TRUE, 1.0, 0.0 },
  { "LeakyRelu", ACT_LEAKYRELU, TRUE, FALSE, 0.01, 0 },
  { "ThresholdedRelu", ACT_THRESHOLDEDRELU, TRUE, FALSE, 1.0, 0 },
  { "ScaledTanh", ACT_SCALEDTANH, TRUE, TRUE, 1.0, 1.0 },
  { "HardSigmoid", ACT_HARDSIGMOID, TRUE, TRUE, 0.2, 0.5 },
  { "Elu", ACT_ELU, TRUE, FALSE, 1.0, 0 },
  { "Softsign", ACT_SOFTSIGN, FALSE, FALSE, 0, 0 },
  { "Softplus", ACT_SOFTPLUS, FALSE, FALSE, 0, 0 },
};

typedef struct
{
  ActKind kind;
  double  alpha, beta;
} Act;

typedef struct
{
  RnnKind  kind;
  guint    n_gates;      /* weight blocks: RNN 1, GRU 3 (z r h), LSTM 4 (i o f c) */
  guint    n_acts;       /* activations per direction: 1, 2 (f g), 3 (f g h) */
  guint    n_dirs;
  gboolean reverse;      /* direction "reverse" (one direction, run backwards) */
  Act      acts[2][3];
  double   clip;         /* <= 0: no clipping */
  gboolean input_forget;
  gboolean linear_before_reset;
  gboolean layout;       /* 1: batch-first X, Y, Y_h, Y_c, initial_h/c */
  gint64   hidden_size;  /* -1: from R */
  /* Constant float W and R per direction packed for the GEMM kernels
   * (conv-packed.h) as the B of X · Wᵀ and H · Rᵀ, or NULL. */
  RtPackedW *pw[2], *pr[2];
} RnnState;

static void
rnn_state_free (gpointer data)
{
  RnnState *st = data;
  for (int d = 0; d < 2; d++)
    {
      rt_conv_packed_free (st->pw[d]);
      rt_conv_packed_free (st->pr[d]);
    }
  g_free (st);
}

static const char *default_acts[3][3] = {
  { "Tanh" }, { "Sigmoid", "Tanh" }, { "Sigmoid", "Tanh", "Tanh" },
};

/* A constant input of node (initializer or Constant), or NULL. */
static Tensor *
const_input (const GraphNode *node, guint i)
{
  GraphValue *v = graph_node_n_inputs (node) > i ? graph_node_input (node, i) : NULL;
  Tensor *t = v ? graph_value_get_initializer (v) : NULL;
  if (t == NULL && v)
    t = graph_value_constant_tensor (v);
  return t && tensor_has_data (t) ? t : NULL;
}

/* W (dirs, G*H, I) and R (dirs, G*H, H) packed per direction when they are
 * constant floats of those shapes (the run checks again that the bound
 * data are the ones packed); GRU without linear_before_reset multiplies R
 * in two parts, so its R stays with BLAS. */
static void
pack_weights (const GraphNode *node, RnnState *st)
{
  Tensor *w = const_input (node, 1), *r = const_input (node, 2);
  if (w == NULL || r == NULL || tensor_dtype (w) != GRAPH_DTYPE_FLOAT
      || tensor_dtype (r) != GRAPH_DTYPE_FLOAT || tensor_rank (w) != 3 || tensor_rank (r) != 3
      || tensor_dim (w, 0) != st->n_dirs || tensor_dim (r, 0) != st->n_dirs)
    return;
  gint64 H = tensor_dim (r, 2), GH = tensor_dim (r, 1), NI = tensor_dim (w, 2);
  if (H <= 0 || GH != st->n_gates * H || tensor_dim (w, 1) != GH || NI <= 0)
    return;
  const float *wd = tensor_data (w), *rd = tensor_data (r);
  for (guint d = 0; d < st->n_dirs; d++)
    {
      st->pw[d] = rt_packed_b_new_t (wd + d * GH * NI, NI, GH);
      if (st->kind != RNN_KIND_GRU || st->linear_before_reset)
        st->pr[d] = rt_packed_b_new_t (rd + d * GH * H, H, GH);
    }
}

static gboolean
rnn_prepare (const GraphNode *node, RnnKind kind, gint64 opset, gpointer *state, GError **error)
{
  g_autofree RnnState *st = g_new0 (RnnState, 1);
  st->kind = kind;
  st->n_gates = kind == RNN_KIND_RNN ? 1 : kind == RNN_KIND_GRU ? 3 : 4;
  st->n_acts = kind == RNN_KIND_RNN ? 1 : kind == RNN_KIND_GRU ? 2 : 3;
  const char *dir = rt_attr_s (node, "direction", "forward");
  if (strcmp (dir, "forward") == 0 || strcmp (dir, "reverse") == 0)
    st->n_dirs = 1;
  else if (strcmp (dir, "bidirectional") == 0)
    st->n_dirs = 2;
  else
    {
      rt_node_error (node, error, RT_ERROR_INVALID_GRAPH,
                     "direction '%s' is not forward, reverse or bidirectional", dir);
      return FALSE;
    }
  st->reverse = strcmp (dir, "reverse") == 0;
  st->clip = rt_attr_f (node, "clip", 0.0);
  if (graph_node_has_attr (node, "clip") && !(st->clip > 0))
    {
      rt_node_error (node, error, RT_ERROR_INVALID_GRAPH, "clip must be positive");
      return FALSE;
    }
  st->input_forget = rt_attr_i (node, "input_forget", 0) != 0;
  st->linear_before_reset = rt_attr_i (node, "linear_before_reset", 0) != 0;
  st->layout = opset >= 14 && rt_attr_i (node, "layout", 0) != 0;
  st->hidden_size = rt_attr_i (node, "hidden_size", -1);
  if (graph_node_has_attr (node, "hidden_size") && st->hidden_size <= 0)
    {
      rt_node_error (node, error, RT_ERROR_INVALID_GRAPH, "hidden_size must be positive");
      return FALSE;
    }

  /* activations: n_acts per direction (forward's, then reverse's); a
   * bidirectional node giving only n_acts uses them for both. */
  gsize n_names = 0, n_alpha = 0, n_beta = 0;
  const char *const *names = NULL;
  const double *alphas = NULL, *betas = NULL;
  graph_node_get_ss (node, "activations", &n_names, &names);
  graph_node_get_fs (node, "activation_alpha", &n_alpha, &alphas);
  graph_node_get_fs (node, "activation_beta", &n_beta, &betas);
  if (n_names != 0 && n_names != st->n_acts && n_names != st->n_acts * st->n_dirs)
    {
      rt_node_error (node, error, RT_ERROR_INVALID_GRAPH,
                     "%" G_GSIZE_FORMAT " activations; expected %u per direction", n_names,
                     st->n_acts);
      return FALSE;
    }
  /* alpha / beta values are consumed in order by the activations that
   * take them (as ONNX Runtime does); missing ones take the defaults. */
  gsize ia = 0, ib = 0;
  for (guint d = 0; d < st->n_dirs; d++)
    for (guint k = 0; k < st->n_acts; k++)
      {
        const char *name = n_names == 0 ? default_acts[st->n_acts - 1][k]
                                        : names[(n_names == st->n_acts ? 0 : d * st->n_acts) + k];
        guint a;
        for (a = 0; a < G_N_ELEMENTS (act_table); a++)
          if (g_ascii_strcasecmp (name, act_table[a].name) == 0)
            break;
        if (a == G_N_ELEMENTS (act_table))
          {
            rt_node_error (node, error, RT_ERROR_UNSUPPORTED, "unknown activation '%s'", name);
            return FALSE;
          }
        Act *act = &st->acts[d][k];
        act->kind = act_table[a].kind;
        act->alpha = act_table[a].alpha;
        act->beta = act_table[a].beta;
        if (act_table[a].has_alpha && ia < n_alpha)
          act->alpha = alphas[ia++];
        if (act_table[a].has_beta && ib < n_beta)
          act->beta = betas[ib++];
      }
  pack_weights (node, st);
  *state = g_steal_pointer (&st);
  return TRUE;
}

static gboolean
prepare_rnn (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  return rnn_prepare (node, RNN_KIND_RNN, opset, state, error);
}

static gboolean
prepare_gru (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  return rnn_prepare (node, RNN_KIND_GRU, opset, state, error);
}

static gboolean
prepare_lstm (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  return rnn_prepare (node, RNN_KIND_LSTM, opset, state, error);
}

static inline double
act_apply (const Act *a, double x)
{
  switch (a->kind)
    {
    case ACT_RELU: return x > 0 ? x : 0;
    case ACT_TANH: return tanh (x);
    case ACT_SIGMOID: return 1.0 / (1.0 + exp (-x));
    case ACT_AFFINE: return a->alpha * x + a->beta;
    case ACT_LEAKYRELU: return x >= 0 ? x : a->alpha * x;
    case ACT_THRESHOLDEDRELU: return x > a->alpha ? x : 0;
    case ACT_SCALEDTANH: return a->alpha * tanh (a->beta * x);
    case ACT_HARDSIGMOID: return fmax (0.0, fmin (1.0, a->alpha * x + a->beta));
    case ACT_ELU: return x >= 0 ? x : a->alpha * (exp (x) - 1.0);
    case ACT_SOFTSIGN: return x / (1.0 + fabs (x));
    case ACT_SOFTPLUS: return x > 30 ? x : log1p (exp (x));
    default: return x;
    }
}

/* Shapes of one call, checked once. */
typedef struct
{
  gint64 nt, nb, ni, nh, nd, ng;
  const gint32 *lens32;      /* sequence_lens, either type */
  const gint64 *lens64;
} RnnDims;

static inline gint64
seq_len (const RnnDims *dm, gint64 b)
{
  return dm->lens32 ? dm->lens32[b] : dm->lens64 ? dm->lens64[b] : dm->nt;
}

/* c[M, N] (ldc) = a[M, K] (lda) · b[N, K]ᵀ (ldb) + beta c: gemv at M = 1. */
#define GEN_GEMM(E, T, P)                                                                  \
  static void gemm_nt_##E (gint64 M, gint64 N, gint64 K, const T *a, gint64 lda, const T *b, \
                           gint64 ldb, T beta, T *c, gint64 ldc)                           \
  {                                                                                        \
    if (M == 0 || N == 0)                                                                  \
      return;                                                                              \
    if (K == 0)                                                                            \
      {                                                                                    \
        for (gint64 i = 0; i < M; i++)                                                     \
          for (gint64 j = 0; j < N; j++)                                                   \
            c[i * ldc + j] = beta * c[i * ldc + j];                                        \
      }                                                                                    \
    else if (M == 1)                                                                       \
      rt_blas.P##gemv (CblasRowMajor, CblasNoTrans, (int) N, (int) K, 1, b, (int) ldb, a, 1, \
                       beta, c, 1);                                                        \
    else                                                                                   \
      rt_blas.P##gemm (CblasRowMajor, CblasNoTrans, CblasTrans, (int) M, (int) N, (int) K, 1, \
                       a, (int) lda, b, (int) ldb, beta, c, (int) ldc);                    \
  }
GEN_GEMM (FLOAT, float, s)
GEN_GEMM (DOUBLE, double, d)

/* tanh (v) from e = exp (-2 v): 2 / (1 + e) - 1, or libm's tanh where |v|
 * is small (there that difference loses the relative precision). */
static inline double
tanh_from (double v, double e)
{
  return fabs (v) < 0.0625 ? tanh (v) : 2.0 / (1.0 + e) - 1.0;
}

/* The default LSTM cell (sigmoid, tanh, tanh; no clip, peepholes or
 * input_forget) of one batch entry, float, H units: the loop in
 * direction_ with its exps 8 at a time (rt_vexp) — σ (v) = 1 / (1 +
 * exp (-v)) as act_apply computes it, tanh through tanh_from.  w: 6 H
 * doubles. */
static void
lstm_cell_f (const float *x, const float *g, float *h, float *c, gint64 H, double *w)
{
  double *e = w, *v = w + 4 * H, *ec = w + 5 * H;   /* e: i, o, f, c blocks */
  for (gint64 k = 0; k < 4 * H; k++)
    {
      v[k % H] = (double) x[k] + (double) g[k];   /* (the c block's is kept) */
      e[k] = k < 3 * H ? -v[k % H] : -2.0 * v[k % H];
    }
  rt_vexp (e, 4 * H);
  for (gint64 k = 0; k < H; k++)
    {
      double ig = 1.0 / (1.0 + e[k]), fg = 1.0 / (1.0 + e[2 * H + k]);
      double cn = fg * (double) c[k] + ig * tanh_from (v[k], e[3 * H + k]);
      c[k] = (float) cn;
      v[k] = cn;
      ec[k] = -2.0 * cn;
    }
  rt_vexp (ec, H);
  for (gint64 k = 0; k < H; k++)
    h[k] = (float) ((1.0 / (1.0 + e[H + k])) * tanh_from (v[k], ec[k]));
}

/* c[M, N] = a[M, K] · bᵀ with b packed as p (N = p's columns, whole rows
 * of c): a GEMV over its panels at M = 1, the packed GEMM otherwise; or
 * gemm_nt when p is NULL.  Each row's sums do not depend on M. */
static void
rnn_gemm_FLOAT (const RtPackedW *p, gint64 M, gint64 N, gint64 K, const float *a, gint64 lda,
                const float *b, gint64 ldb, float *c, gint64 ldc)
{
  if (p == NULL || M == 0)
    gemm_nt_FLOAT (M, N, K, a, lda, b, ldb, 0, c, ldc);
  else if (M == 1)
    rt_packed_gemv_b (p, a, c, 0, rt_packed_b_panels (p));
  else
    {
      g_autofree float *ap = g_new (float, rt_packed_a_floats (p, M));
      rt_packed_pack_a (p, a, lda, M, ap);
      rt_packed_gemm_b (p, ap, M, c, ldc, 0, rt_packed_b_panels (p));
    }
}
static void
rnn_gemm_DOUBLE (const RtPackedW *p, gint64 M, gint64 N, gint64 K, const double *a, gint64 lda,
                 const double *b, gint64 ldb, double *c, gint64 ldc)
{
  (void) p;   /* (only float weights are packed) */
  gemm_nt_DOUBLE (M, N, K, a, lda, b, ldb, 0, c, ldc);
}

/* One direction of one layer over all steps (Note [RNN plan]).  `work`
 * holds T*B*G*H + B*G*H + 3*B*H elements. */
#define GEN_DIRECTION(E, T)                                                                 \
  static void direction_##E (const RnnState *st, const RnnDims *dm, gint64 d,              \
                             const RtTensor *const *in, RtTensor *Y, RtTensor *Yh,         \
                             RtTensor *Yc, T *work)                                        \
  {                                                                                         \
    const gint64 Tn = dm->nt, B = dm->nb, NI = dm->ni, H = dm->nh, D = dm->nd, G = dm->ng;         \
    const gint64 GH = G * H;                                                                \
    const gboolean back = st->reverse || d == 1;                                            \
    const Act *acts = st->acts[d];                                                          \
    const double clip = st->clip;                                                           \
    const T *X = in[0]->data;                                                               \
    const T *W = (const T *) in[1]->data + d * GH * NI;                                      \
    const T *R = (const T *) in[2]->data + d * GH * H;                                      \
    const T *Wb = in[3] ? (const T *) in[3]->data + d * 2 * GH : NULL;                      \
    const T *Rb = Wb ? Wb + GH : NULL;                                                      \
    const T *h0 = in[5] ? in[5]->data : NULL;                                               \
    const T *c0 = st->kind == RNN_KIND_LSTM && in[6] ? in[6]->data : NULL;                  \
    const T *P = st->kind == RNN_KIND_LSTM && in[7] ? (const T *) in[7]->data + d * 3 * H   \
                                                    : NULL;                                 \
    T *proj = work, *gates = proj + Tn * B * GH, *h = gates + B * GH, *c = h + B * H;       \
    T *tmp = c + B * H;                                                                     \
    /* GRU's recurrent h-gate bias stays inside r ⊙ (...) with linear_before_reset. */      \
    const gboolean rbh_inside = st->kind == RNN_KIND_GRU && st->linear_before_reset;        \
    /* the packed weights, where they are the data bound now */                            \
    const RtPackedW *pw = rt_packed_b_is (st->pw[d], W, NI, GH) ? st->pw[d] : NULL;          \
    const RtPackedW *pr = rt_packed_b_is (st->pr[d], R, H, GH) ? st->pr[d] : NULL;           \
    rnn_gemm_##E (pw, Tn * B, GH, NI, X, NI, W, NI, proj, GH);                               \
    if (Wb)                                                                                 \
      for (gint64 r = 0; r < Tn * B; r++)                                                   \
        for (gint64 j = 0; j < GH; j++)                                                     \
          proj[r * GH + j] += Wb[j] + (rbh_inside && j >= 2 * H ? 0 : Rb[j]);               \
    for (gint64 b = 0; b < B; b++)                                                          \
      {                                                                                     \
        gint64 so = (st->layout ? b * D + d : d * B + b) * H;                               \
        for (gint64 k = 0; k < H; k++)                                                      \
          {                                                                                 \
            h[b * H + k] = h0 ? h0[so + k] : 0;                                             \
            c[b * H + k] = c0 ? c0[so + k] : 0;                                             \
          }                                                                                 \
      }                                                                                     \
    const gboolean gru_split = st->kind == RNN_KIND_GRU && !st->linear_before_reset;        \
    /* float LSTMs with the default cell: lstm_cell_f, with its work memory */              \
    g_autofree double *cell_w = NULL;                                                       \
    if (sizeof (T) == sizeof (float) && st->kind == RNN_KIND_LSTM && P == NULL && clip <= 0 \
        && !st->input_forget && acts[0].kind == ACT_SIGMOID && acts[1].kind == ACT_TANH     \
        && acts[2].kind == ACT_TANH)                                                        \
      cell_w = g_new (double, 6 * H);                                                       \
    for (gint64 s = 0; s < Tn; s++)                                                         \
      {                                                                                     \
        if (gru_split)                                                                      \
          gemm_nt_##E (B, 2 * H, H, h, H, R, H, 0, gates, GH);                              \
        else                                                                                \
          rnn_gemm_##E (pr, B, GH, H, h, H, R, H, gates, GH);                               \
        if (gru_split)                                                                      \
          {                                                                                 \
            /* z and r first, then (r ⊙ H_{t-1}) · Rhᵀ. */                                 \
            for (gint64 b = 0; b < B; b++)                                                  \
              {                                                                             \
                gint64 len = seq_len (dm, b);                                               \
                T *g = gates + b * GH;                                                      \
                if (s >= len)                                                               \
                  {                                                                         \
                    memset (tmp + b * H, 0, (gsize) H * sizeof (T));                        \
                    continue;                                                               \
                  }                                                                         \
                gint64 t = back ? len - 1 - s : s;                                          \
                const T *x = proj + (st->layout ? b * Tn + t : t * B + b) * GH;             \
                for (gint64 k = 0; k < 2 * H; k++)                                          \
                  {                                                                         \
                    double v = (double) x[k] + (double) g[k];                               \
                    if (clip > 0)                                                           \
                      v = fmin (clip, fmax (-clip, v));                                     \
                    g[k] = (T) act_apply (&acts[0], v);                                     \
                  }                                                                         \
                for (gint64 k = 0; k < H; k++)                                              \
                  tmp[b * H + k] = g[H + k] * h[b * H + k];                                 \
              }                                                                             \
            gemm_nt_##E (B, H, H, tmp, H, R + 2 * H * H, H, 0, gates + 2 * H, GH);          \
          }                                                                                 \
        for (gint64 b = 0; b < B; b++)                                                      \
          {                                                                                 \
            gint64 len = seq_len (dm, b);                                                   \
            if (s >= len)                                                                   \
              continue;                                                                     \
            gint64 t = back ? len - 1 - s : s;                                              \
            const T *x = proj + (st->layout ? b * Tn + t : t * B + b) * GH;                 \
            T *g = gates + b * GH, *hb = h + b * H, *cb = c + b * H;                        \
            if (cell_w)                                                                     \
              lstm_cell_f ((const float *) x, (const float *) g, (float *) hb, (float *) cb, H, \
                           cell_w);                                                         \
            else                                                                            \
            for (gint64 k = 0; k < H; k++)                                                  \
              {                                                                             \
                double nh;                                                                  \
                if (st->kind == RNN_KIND_RNN)                                               \
                  {                                                                         \
                    double v = (double) x[k] + (double) g[k];                               \
                    if (clip > 0)                                                           \
                      v = fmin (clip, fmax (-clip, v));                                     \
                    nh = act_apply (&acts[0], v);                                           \
                  }                                                                         \
                else if (st->kind == RNN_KIND_GRU)                                          \
                  {                                                                         \
                    double z, r, v;                                                         \
                    if (gru_split)                                                          \
                      {                                                                     \
                        z = g[k];                                                           \
                        v = (double) x[2 * H + k] + (double) g[2 * H + k];                  \
                      }                                                                     \
                    else                                                                    \
                      {                                                                     \
                        double zp = (double) x[k] + (double) g[k];                          \
                        double rp = (double) x[H + k] + (double) g[H + k];                  \
                        if (clip > 0)                                                       \
                          {                                                                 \
                            zp = fmin (clip, fmax (-clip, zp));                             \
                            rp = fmin (clip, fmax (-clip, rp));                             \
                          }                                                                 \
                        z = act_apply (&acts[0], zp);                                       \
                        r = act_apply (&acts[0], rp);                                       \
                        double rec = (double) g[2 * H + k] + (Rb ? (double) Rb[2 * H + k] : 0); \
                        v = (double) x[2 * H + k] + r * rec;                                \
                      }                                                                     \
                    if (clip > 0)                                                           \
                      v = fmin (clip, fmax (-clip, v));                                     \
                    double hh = act_apply (&acts[1], v);                                    \
                    nh = (1.0 - z) * hh + z * (double) hb[k];                               \
                  }                                                                         \
                else                                                                        \
                  {                                                                         \
                    /* Gate blocks i, o, f, c; peepholes P = [Pi, Po, Pf]. */               \
                    double cprev = cb[k];                                                   \
                    double ip = (double) x[k] + (double) g[k] + (P ? P[k] * cprev : 0);     \
                    double fp = (double) x[2 * H + k] + (double) g[2 * H + k]               \
                                + (P ? P[2 * H + k] * cprev : 0);                           \
                    double cp = (double) x[3 * H + k] + (double) g[3 * H + k];              \
                    if (clip > 0)                                                           \
                      {                                                                     \
                        ip = fmin (clip, fmax (-clip, ip));                                 \
                        fp = fmin (clip, fmax (-clip, fp));                                 \
                        cp = fmin (clip, fmax (-clip, cp));                                 \
                      }                                                                     \
                    double ig = act_apply (&acts[0], ip);                                   \
                    double fg = st->input_forget ? 1.0 - ig : act_apply (&acts[0], fp);     \
                    double cg = act_apply (&acts[1], cp);                                   \
                    double cn = fg * cprev + ig * cg;                                       \
                    double op = (double) x[H + k] + (double) g[H + k] + (P ? P[H + k] * cn : 0); \
                    if (clip > 0)                                                           \
                      op = fmin (clip, fmax (-clip, op));                                   \
                    nh = act_apply (&acts[0], op) * act_apply (&acts[2], cn);               \
                    cb[k] = (T) cn;                                                         \
                  }                                                                         \
                hb[k] = (T) nh;                                                             \
              }                                                                             \
            if (Y)                                                                          \
              memcpy ((T *) Y->data + (st->layout ? (b * Tn + t) * D + d : (t * D + d) * B + b) * H, \
                      hb, (gsize) H * sizeof (T));                                          \
          }                                                                                 \
      }                                                                                     \
    for (gint64 b = 0; b < B; b++)                                                          \
      {                                                                                     \
        gint64 so = (st->layout ? b * D + d : d * B + b) * H;                               \
        if (Yh)                                                                             \
          memcpy ((T *) Yh->data + so, h + b * H, (gsize) H * sizeof (T));                  \
        if (Yc)                                                                             \
          memcpy ((T *) Yc->data + so, c + b * H, (gsize) H * sizeof (T));                  \
      }                                                                                     \
  }
RT_FOREACH_FLOAT (GEN_DIRECTION)

/* Checks that `t` (when present) has dtype `dt` and the given shape. */
static gboolean
check_shape (RtCall *call, const RtTensor *t, const char *what, GraphDType dt, guint rank,
             const gint64 *dims, GError **error)
{
  if (t == NULL)
    return TRUE;
  gboolean ok = t->dtype == dt && t->rank == rank;
  for (guint i = 0; ok && i < rank; i++)
    ok = t->dims[i] == dims[i];
  if (!ok)
    {
      GString *want = g_string_new (NULL);
      for (guint i = 0; i < rank; i++)
        g_string_append_printf (want, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
      rt_call_error (call, error, RT_ERROR_SHAPE, "%s must be %s of shape (%s)", what,
                     rt_dtype_name (dt), want->str);
      g_string_free (want, TRUE);
    }
  return ok;
}

static gboolean
k_rnn (RtCall *call, GError **error)
{
  const RnnState *st = call->state;
  const RtTensor *in[8] = { NULL };
  for (guint i = 0; i < MIN (call->n_inputs, 8); i++)
    in[i] = call->inputs[i];
  if (st->kind != RNN_KIND_LSTM)
    in[6] = in[7] = NULL;
  const RtTensor *X = in[0], *W = in[1], *R = in[2];
  if (X->rank != 3 || W->rank != 3 || R->rank != 3)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "X, W and R must be 3-D");
      return FALSE;
    }
  RnnDims dm = { 0 };
  dm.nt = st->layout ? X->dims[1] : X->dims[0];
  dm.nb = st->layout ? X->dims[0] : X->dims[1];
  dm.ni = X->dims[2];
  dm.nd = st->n_dirs;
  dm.ng = st->n_gates;
  dm.nh = R->dims[2];
  if ((st->hidden_size > 0 && st->hidden_size != dm.nh) || dm.nh <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "hidden_size %" G_GINT64_FORMAT
                     " does not match R's last dimension %" G_GINT64_FORMAT,
                     st->hidden_size, dm.nh);
      return FALSE;
    }
  gint64 GH = dm.ng * dm.nh;
  gint64 wd[3] = { dm.nd, GH, dm.ni }, rd[3] = { dm.nd, GH, dm.nh }, bd[2] = { dm.nd, 2 * GH };
  gint64 hd[3] = { dm.nd, dm.nb, dm.nh }, hdl[3] = { dm.nb, dm.nd, dm.nh }, pd[2] = { dm.nd, 3 * dm.nh };
  GraphDType dt = X->dtype;
  if (!check_shape (call, W, "W", dt, 3, wd, error) || !check_shape (call, R, "R", dt, 3, rd, error)
      || !check_shape (call, in[3], "B", dt, 2, bd, error)
      || !check_shape (call, in[5], "initial_h", dt, 3, st->layout ? hdl : hd, error)
      || !check_shape (call, in[6], "initial_c", dt, 3, st->layout ? hdl : hd, error)
      || !check_shape (call, in[7], "P", dt, 2, pd, error))
    return FALSE;
  const RtTensor *lens = in[4];
  if (lens)
    {
      if ((lens->dtype != GRAPH_DTYPE_INT32 && lens->dtype != GRAPH_DTYPE_INT64)
          || lens->numel != dm.nb || lens->rank != 1)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "sequence_lens must be an int32 vector of batch_size elements");
          return FALSE;
        }
      for (gint64 b = 0; b < dm.nb; b++)
        {
          gint64 l = rt_get_i64 (lens, b);
          if (l < 0 || l > dm.nt)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "sequence_lens[%" G_GINT64_FORMAT
                             "] = %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT "]",
                             b, l, dm.nt);
              return FALSE;
            }
        }
      if (lens->dtype == GRAPH_DTYPE_INT32)
        dm.lens32 = lens->data;
      else
        dm.lens64 = lens->data;
    }
  /* Outputs: Y (T, D, B, H) or batch-first (B, T, D, H); Y_h, Y_c like initial_h. */
  RtTensor *Y = NULL, *Yh = NULL, *Yc = NULL;
  gint64 yd[4] = { dm.nt, dm.nd, dm.nb, dm.nh }, ydl[4] = { dm.nb, dm.nt, dm.nd, dm.nh };
  gsize es = rt_dtype_size (dt);
  if (call->n_outputs > 0)
    {
      if ((Y = rt_call_output (call, 0, dt, 4, st->layout ? ydl : yd, error)) == NULL)
        return FALSE;
      memset (Y->data, 0, (gsize) Y->numel * es);
    }
  if (call->n_outputs > 1
      && (Yh = rt_call_output (call, 1, dt, 3, st->layout ? hdl : hd, error)) == NULL)
    return FALSE;
  if (call->n_outputs > 2 && st->kind == RNN_KIND_LSTM
      && (Yc = rt_call_output (call, 2, dt, 3, st->layout ? hdl : hd, error)) == NULL)
    return FALSE;
  /* Work memory (Note [RNN plan]); the sizes come from real tensors, but
   * T*B*G*H may still overflow. */
  gsize n_work, a, b2;
  if (!g_size_checked_mul (&a, (gsize) (dm.nt * dm.nb), (gsize) GH)
      || !g_size_checked_add (&b2, a, (gsize) (dm.nb * (GH + 3 * dm.nh)))
      || !g_size_checked_mul (&n_work, b2, es))
    {
      rt_call_error (call, error, RT_ERROR_TOO_LARGE, "work memory size overflows");
      return FALSE;
    }
  void *work = rt_call_scratch (call, n_work, error);
  if (work == NULL)
    return FALSE;
  for (gint64 d = 0; d < dm.nd; d++)
    {
      if (dt == GRAPH_DTYPE_FLOAT)
        direction_FLOAT (st, &dm, d, in, Y, Yh, Yc, work);
      else
        direction_DOUBLE (st, &dm, d, in, Y, Yh, Yc, work);
    }
  return TRUE;
}

gboolean
rt_lstm_layer (RtCall *call, const RtTensor *X, const RtTensor *W, const RtTensor *R,
               const RtTensor *B, const RtTensor *h0, const RtTensor *c0, RtTensor *Y,
               RtTensor *Yh, RtTensor *Yc, GError **error)
{
  RnnState st = { .kind = RNN_KIND_LSTM, .n_gates = 4, .n_acts = 3, .hidden_size = -1 };
  st.n_dirs = W->rank == 3 ? (guint) W->dims[0] : 0;
  if (X->rank != 3 || W->rank != 3 || R->rank != 3 || (st.n_dirs != 1 && st.n_dirs != 2)
      || X->dtype != W->dtype || (X->dtype != GRAPH_DTYPE_FLOAT && X->dtype != GRAPH_DTYPE_DOUBLE))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "X, W and R must be 3-D float of 1 or 2 directions");
      return FALSE;
    }
  for (guint d = 0; d < 2; d++)
    {
      st.acts[d][0].kind = ACT_SIGMOID;
      st.acts[d][1].kind = st.acts[d][2].kind = ACT_TANH;
    }
  RnnDims dm = { .nt = X->dims[0], .nb = X->dims[1], .ni = X->dims[2], .nd = st.n_dirs,
                 .ng = 4, .nh = R->dims[2] };
  gint64 GH = 4 * dm.nh;
  gint64 wd[3] = { dm.nd, GH, dm.ni }, rd[3] = { dm.nd, GH, dm.nh }, bd[2] = { dm.nd, 2 * GH };
  gint64 hd[3] = { dm.nd, dm.nb, dm.nh }, yd[4] = { dm.nt, dm.nd, dm.nb, dm.nh };
  GraphDType dt = X->dtype;
  if (!check_shape (call, W, "W", dt, 3, wd, error) || !check_shape (call, R, "R", dt, 3, rd, error)
      || !check_shape (call, B, "B", dt, 2, bd, error)
      || !check_shape (call, h0, "initial_h", dt, 3, hd, error)
      || !check_shape (call, c0, "initial_c", dt, 3, hd, error)
      || !check_shape (call, Y, "Y", dt, 4, yd, error) || !check_shape (call, Yh, "Y_h", dt, 3, hd, error)
      || !check_shape (call, Yc, "Y_c", dt, 3, hd, error))
    return FALSE;
  gsize es = rt_dtype_size (dt), n_work, a, b2;
  if (!g_size_checked_mul (&a, (gsize) (dm.nt * dm.nb), (gsize) GH)
      || !g_size_checked_add (&b2, a, (gsize) (dm.nb * (GH + 3 * dm.nh)))
      || !g_size_checked_mul (&n_work, b2, es))
    {
      rt_call_error (call, error, RT_ERROR_TOO_LARGE, "work memory size overflows");
      return FALSE;
    }
  void *work = rt_call_scratch (call, n_work, error);
  if (work == NULL)
    return FALSE;
  if (Y)
    memset (Y->data, 0, (gsize) Y->numel * es);
  const RtTensor *in[8] = { X, W, R, B, NULL, h0, c0, NULL };
  for (gint64 d = 0; d < dm.nd; d++)
    {
      if (dt == GRAPH_DTYPE_FLOAT)
        direction_FLOAT (&st, &dm, d, in, Y, Yh, Yc, work);
      else
        direction_DOUBLE (&st, &dm, d, in, Y, Yh, Yc, work);
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("RNN", 1), RT_IN (3, 6), RT_OUT (0, 2), .dtypes = RT_DT_FLOATS, .run = k_rnn, .prepare = prepare_rnn, .free_state = rnn_state_free },
  { RT_ONNX ("GRU", 1), RT_IN (3, 6), RT_OUT (0, 2), .dtypes = RT_DT_FLOATS, .run = k_rnn, .prepare = prepare_gru, .free_state = rnn_state_free },
  { RT_ONNX ("LSTM", 1), RT_IN (3, 8), RT_OUT (0, 3), .dtypes = RT_DT_FLOATS, .run = k_rnn, .prepare = prepare_lstm, .free_state = rnn_state_free },
};

RT_KERNEL_TABLE (rt_kernels_rnn, defs);
