/* Conv (im2col + GEMM; groups, dilations, pads and auto_pad, 1-D to 3-D)
 * and ConvTranspose (GEMM + col2im). */
#include "runtime/spatial.h"
#include "runtime/conv-packed.h"
#include "runtime/conv-pixel-rows.h"
#include "runtime/conv-direct.h"
#include "runtime/conv-narrow.h"
#include "runtime/conv-winograd.h"
#include "runtime/blas.h"
#include <string.h>

/* Checks the window's sizes and computes its output size (auto_pad:
 * ONNX's NOTSET, VALID, SAME_UPPER or SAME_LOWER). */
static gboolean
window_finish (RtCall *call, RtWindow *w, const char *auto_pad, gboolean ceil_mode,
               GError **error)
{
  /* Bounded too, so that the window arithmetic below cannot overflow. */
  const gint64 lim = (gint64) 1 << 30;
  for (guint i = 0; i < 3; i++)
    if (w->k[i] <= 0 || w->stride[i] <= 0 || w->dil[i] <= 0 || w->pad0[i] < 0 || w->pad1[i] < 0
        || w->k[i] > lim || w->stride[i] > lim || w->dil[i] > lim || w->pad0[i] > lim
        || w->pad1[i] > lim || w->in[i] > lim)
      {
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                       "kernel sizes, strides and dilations must be positive and pads non-negative "
                       "(and all below 2^30)");
        return FALSE;
      }
  gboolean same = g_str_has_prefix (auto_pad, "SAME");
  for (guint i = 3 - w->nsp; i < 3; i++)
    {
      gint64 ek = (w->k[i] - 1) * w->dil[i] + 1;
      if (same)
        {
          w->out[i] = (w->in[i] + w->stride[i] - 1) / w->stride[i];
          gint64 total = MAX (0, (w->out[i] - 1) * w->stride[i] + ek - w->in[i]);
          gboolean upper = strcmp (auto_pad, "SAME_UPPER") == 0;
          w->pad0[i] = upper ? total / 2 : total - total / 2;
          w->pad1[i] = total - w->pad0[i];
          continue;
        }
      if (strcmp (auto_pad, "VALID") == 0)
        w->pad0[i] = w->pad1[i] = 0;
      gint64 span = w->in[i] + w->pad0[i] + w->pad1[i] - ek;
      if (span < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "the window (%" G_GINT64_FORMAT
                         ") is larger than the padded input (%" G_GINT64_FORMAT ")", ek,
                         w->in[i] + w->pad0[i] + w->pad1[i]);
          return FALSE;
        }
      if (ceil_mode)
        {
          w->out[i] = (span + w->stride[i] - 1) / w->stride[i] + 1;
          /* The last window must start inside the input or the left padding. */
          if ((w->out[i] - 1) * w->stride[i] >= w->in[i] + w->pad0[i])
            w->out[i]--;
        }
      else
        w->out[i] = span / w->stride[i] + 1;
    }
  return TRUE;
}

/* A window over x's spatial dims (sizes 1, no pads) for the callers to fill. */
static gboolean
window_start (RtCall *call, const RtTensor *x, RtWindow *w, GError **error)
{
  memset (w, 0, sizeof *w);
  if (x->rank < 3 || x->rank > 5)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "input rank %u: 1 to 3 spatial dimensions are supported",
                     x->rank);
      return FALSE;
    }
  w->nsp = x->rank - 2;
  for (guint i = 0; i < 3; i++)
    {
      w->in[i] = w->out[i] = w->k[i] = w->stride[i] = w->dil[i] = 1;
      w->pad0[i] = w->pad1[i] = 0;
    }
  for (guint i = 0; i < w->nsp; i++)
    w->in[3 - w->nsp + i] = x->dims[2 + i];
  return TRUE;
}

gboolean
rt_window_init (RtCall *call, const RtTensor *x, const gint64 *kernel_from, gboolean ceil_mode,
                RtWindow *w, GError **error)
{
  if (!window_start (call, x, w, error))
    return FALSE;
  guint n = w->nsp, off = 3 - n;
  gsize len;
  const gint64 *v;
  if (rt_attr_ints (call->node, "kernel_shape", &len, &v))
    {
      if (len != n)
        goto bad;
      for (guint i = 0; i < n; i++)
        w->k[off + i] = v[i];
    }
  else if (kernel_from)
    for (guint i = 0; i < n; i++)
      w->k[off + i] = kernel_from[i];
  else
    goto bad;
  if (rt_attr_ints (call->node, "strides", &len, &v))
    {
      if (len != n)
        goto bad;
      for (guint i = 0; i < n; i++)
        w->stride[off + i] = v[i];
    }
  if (rt_attr_ints (call->node, "dilations", &len, &v))
    {
      if (len != n)
        goto bad;
      for (guint i = 0; i < n; i++)
        w->dil[off + i] = v[i];
    }
  if (rt_attr_ints (call->node, "pads", &len, &v))
    {
      if (len != 2 * n)
        goto bad;
      for (guint i = 0; i < n; i++)
        {
          w->pad0[off + i] = v[i];
          w->pad1[off + i] = v[n + i];
        }
    }
  return window_finish (call, w, rt_attr_s (call->node, "auto_pad", "NOTSET"), ceil_mode, error);
bad:
  rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                 "kernel_shape, strides, dilations or pads do not match %u spatial dimensions", n);
  return FALSE;
}

gboolean
rt_window_set (RtCall *call, const RtTensor *x, const gint64 *k, const gint64 *stride,
               const gint64 *dil, const gint64 *pad0, const gint64 *pad1, gboolean ceil_mode,
               RtWindow *w, GError **error)
{
  if (!window_start (call, x, w, error))
    return FALSE;
  guint n = w->nsp, off = 3 - n;
  for (guint i = 0; i < n; i++)
    {
      w->k[off + i] = k[i];
      w->stride[off + i] = stride ? stride[i] : 1;
      w->dil[off + i] = dil ? dil[i] : 1;
      w->pad0[off + i] = pad0 ? pad0[i] : 0;
      w->pad1[off + i] = pad1 ? pad1[i] : 0;
    }
  return window_finish (call, w, "NOTSET", ceil_mode, error);
}

/* col[(c, kd, kh, kw), (od, oh, ow)] for one image and one group. */
#define GEN_IM2COL(E, T)                                                                    \
  static void im2col_##E (const T *x, gint64 c0, gint64 c1, const RtWindow *w, T *col,     \
                          gint64 oh0, gint64 oh1)                                            \
  {                                                                                          \
    gint64 osz = w->out[0] * (oh1 - oh0) * w->out[2];                                        \
    for (gint64 c = c0; c < c1; c++)                                                         \
      for (gint64 kd = 0; kd < w->k[0]; kd++)                                                \
        for (gint64 kh = 0; kh < w->k[1]; kh++)                                              \
          for (gint64 kw = 0; kw < w->k[2]; kw++)                                            \
            {                                                                                \
              T *dst = col + (((c * w->k[0] + kd) * w->k[1] + kh) * w->k[2] + kw) * osz;     \
              for (gint64 od = 0; od < w->out[0]; od++)                                      \
                {                                                                            \
                  gint64 id = od * w->stride[0] - w->pad0[0] + kd * w->dil[0];               \
                  for (gint64 oh = oh0; oh < oh1; oh++)                                      \
                    {                                                                        \
                      gint64 ih = oh * w->stride[1] - w->pad0[1] + kh * w->dil[1];           \
                      T *d = dst + (od * (oh1 - oh0) + oh - oh0) * w->out[2];                 \
                      if (id < 0 || id >= w->in[0] || ih < 0 || ih >= w->in[1])             \
                        {                                                                    \
                          memset (d, 0, (gsize) w->out[2] * sizeof (T));                      \
                          continue;                                                          \
                        }                                                                    \
                      const T *src = x + ((c * w->in[0] + id) * w->in[1] + ih) * w->in[2];    \
                      gint64 iw0 = -w->pad0[2] + kw * w->dil[2], S = w->stride[2];            \
                      gint64 OW = w->out[2], W = w->in[2];                                   \
                      /* ow in [lo, hi) reads inside the row; the rest is padding. */        \
                      gint64 lo = iw0 >= 0 ? 0 : (-iw0 + S - 1) / S;                          \
                      gint64 hi = iw0 > W - 1 ? 0 : (W - 1 - iw0) / S + 1;                    \
                      hi = MIN (hi, OW);                                                     \
                      lo = MIN (lo, hi);                                                     \
                      if (lo > 0)                                                            \
                        memset (d, 0, (gsize) lo * sizeof (T));                               \
                      if (S == 1 && hi > lo)                                                 \
                        memcpy (d + lo, src + iw0 + lo, (gsize) (hi - lo) * sizeof (T));      \
                      else                                                                   \
                        for (gint64 ow = lo; ow < hi; ow++)                                  \
                          d[ow] = src[iw0 + ow * S];                                         \
                      if (hi < OW)                                                           \
                        memset (d + hi, 0, (gsize) (OW - hi) * sizeof (T));                   \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
  }                                                                                          \
  /* Accumulates col into y (ConvTranspose): w->in is y's size, w->out x's. */               \
  static void col2im_##E (const T *col, gint64 C, const RtWindow *w, T *y)                  \
  {                                                                                          \
    gint64 osz = w->out[0] * w->out[1] * w->out[2];                                          \
    for (gint64 c = 0; c < C; c++)                                                           \
      for (gint64 kd = 0; kd < w->k[0]; kd++)                                                \
        for (gint64 kh = 0; kh < w->k[1]; kh++)                                              \
          for (gint64 kw = 0; kw < w->k[2]; kw++)                                            \
            {                                                                                \
              const T *src = col + (((c * w->k[0] + kd) * w->k[1] + kh) * w->k[2] + kw) * osz; \
              for (gint64 od = 0; od < w->out[0]; od++)                                      \
                {                                                                            \
                  gint64 id = od * w->stride[0] - w->pad0[0] + kd * w->dil[0];               \
                  if (id < 0 || id >= w->in[0])                                              \
                    continue;                                                                \
                  for (gint64 oh = 0; oh < w->out[1]; oh++)                                  \
                    {                                                                        \
                      gint64 ih = oh * w->stride[1] - w->pad0[1] + kh * w->dil[1];           \
                      if (ih < 0 || ih >= w->in[1])                                          \
                        continue;                                                            \
                      T *dst = y + ((c * w->in[0] + id) * w->in[1] + ih) * w->in[2];          \
                      const T *s = src + (od * w->out[1] + oh) * w->out[2];                   \
                      for (gint64 ow = 0; ow < w->out[2]; ow++)                              \
                        {                                                                    \
                          gint64 iw = ow * w->stride[2] - w->pad0[2] + kw * w->dil[2];       \
                          if (iw >= 0 && iw < w->in[2])                                      \
                            dst[iw] += s[ow];                                                \
                        }                                                                    \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
  }
RT_FOREACH_FLOAT (GEN_IM2COL)

static void
gemm (GraphDType dt, gboolean ta, gboolean tb, gint64 M, gint64 N, gint64 K, const void *a,
      gint64 lda, const void *b, gint64 ldb, double beta, void *c, gint64 ldc)
{
  if (dt == GRAPH_DTYPE_FLOAT)
    rt_blas.sgemm (CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                 (int) M, (int) N, (int) K, 1.0f, a, (int) lda, b, (int) ldb, (float) beta, c, (int) ldc);
  else
    rt_blas.dgemm (CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                 (int) M, (int) N, (int) K, 1.0, a, (int) lda, b, (int) ldb, beta, c, (int) ldc);
}

static void
add_bias (GraphDType dt, void *y, const RtTensor *bias, gint64 N, gint64 M, gint64 sz)
{
  for (gint64 n = 0; n < N; n++)
    for (gint64 m = 0; m < M; m++)
      {
        if (dt == GRAPH_DTYPE_FLOAT)
          {
            float b = ((const float *) bias->data)[m], *p = (float *) y + (n * M + m) * sz;
            for (gint64 i = 0; i < sz; i++)
              p[i] += b;
          }
        else
          {
            double b = ((const double *) bias->data)[m], *p = (double *) y + (n * M + m) * sz;
            for (gint64 i = 0; i < sz; i++)
              p[i] += b;
          }
      }
}

typedef struct
{
  GraphDType      dt;
  const void     *x;
  const RtWindow *w;
  void           *col;
  gint64          oh0, oh1;
} Im2col;

static void
im2col_range (gint64 c0, gint64 c1, gpointer data)
{
  Im2col *j = data;
  if (j->dt == GRAPH_DTYPE_FLOAT)
    im2col_FLOAT (j->x, c0, c1, j->w, j->col, j->oh0, j->oh1);
  else
    im2col_DOUBLE (j->x, c0, c1, j->w, j->col, j->oh0, j->oh1);
}

void
rt_im2col (const RtCall *call, GraphDType dt, const void *x, gint64 C, const RtWindow *w,
           void *col, gint64 oh0, gint64 oh1)
{
  Im2col job = { dt, x, w, col, oh0, oh1 };
  gint64 per_channel = w->k[0] * w->k[1] * w->k[2] * w->out[0] * (oh1 - oh0) * w->out[2];
  rt_parallel_for (call, C, MAX (1, 16384 / MAX (per_channel, 1)), im2col_range, &job);
}

/* Blocks per thread to aim at when there are several threads: taken by
 * whichever thread is free, so a slower core (a VM's vCPUs differ by 30%)
 * does fewer instead of holding the others up. */
#define BLOCKS_PER_THREAD 4

typedef struct
{
  const RtCall     *call;
  GraphDType        dt;
  const RtWindow   *w;
  const RtEpilogue *ep;
  const char       *x, *wt, *bias;
  char             *y;
  gint64            C, M, group, Cg, Mg, isz, osz, ksz, es;
  gboolean          direct;          /* 1x1, stride 1, no pads: x is col */
  gint64            block, nblocks;  /* columns (direct) or output rows per block, per (n, g) */
  gint64            items;           /* N x group x nblocks */
  gint64            tasks;           /* 1: all blocks on this thread; else threads, one col each */
  char             *col;             /* tasks x col_elems */
  gint64            col_elems;
  gboolean          inner_parallel;  /* one task: im2col over channels in parallel */
  const RtPackedW  *pw;              /* packed weights (conv-packed.c), or NULL: sgemm */
} ConvJob;

/* Packed B (im2col) of block b of xi (one image and group) into bp; *c0,
 * *bn: the block's first output column and its width.  (A 1x1's B is x's
 * rows, read where they lie: rt_conv_packed_gemm_rows.) */
static void
pack_block (const ConvJob *j, const char *xi, gint64 b, float *bp, gint64 *c0, gint64 *bn)
{
  const RtWindow *w = j->w;
  gint64 oh0 = b * j->block, oh1 = MIN (oh0 + j->block, w->out[1]);
  *c0 = oh0 * w->out[2];
  *bn = (oh1 - oh0) * w->out[2];
  rt_conv_pack_b_im2col (j->pw, (const float *) xi, j->Cg, w, oh0, oh1, bp,
                         bp + rt_conv_packed_b_floats (j->pw, *bn));
}

/* Output channels split over the threads: one image, one group, all
 * columns in one block, B packed once (bp, bn columns) or a 1x1's x rows
 * (bp: their last partial panel), panels of A [mb0, mb1). */
typedef struct
{
  const ConvJob *j;
  const float   *bp;
  gint64         bn;
  gboolean       rows;   /* a 1x1's B read from x's rows, bp its last partial panel */
} ChannelSplit;

static void
channel_range (gint64 mb0, gint64 mb1, gpointer data)
{
  const ChannelSplit *s = data;
  const ConvJob *j = s->j;
  const float *z = rt_epilogue_active (j->ep) && j->ep->sum ? (const float *) j->ep->sum->data : NULL;
  if (s->rows)   /* B is x's rows, bp the last partial panel */
    rt_conv_packed_gemm_rows_panels (j->pw, 0, (const float *) j->x, j->osz, j->osz, s->bp,
                                     (float *) j->y, j->osz, (const float *) j->bias, z, j->ep,
                                     mb0, mb1);
  else
    rt_conv_packed_gemm_panels (j->pw, 0, s->bp, s->bn, (float *) j->y, j->osz,
                                (const float *) j->bias, z, j->ep, mb0, mb1);
}

static guint channel_splits, column_splits;

guint
rt_conv_channel_splits (void)
{
  return g_atomic_int_get (&channel_splits);
}

guint
rt_conv_column_splits (void)
{
  return g_atomic_int_get (&column_splits);
}

/* Block `item` of the output: im2col, GEMM, then bias and epilogue while
 * the block is in cache. */
static void
conv_block (const ConvJob *j, gint64 item, char *col)
{
  const RtWindow *w = j->w;
  gint64 b = item % j->nblocks, ng = item / j->nblocks, g = ng % j->group, n = ng / j->group;
  const char *xi = j->x + ((n * j->C + g * j->Cg) * j->isz) * j->es;
  const char *wg = j->wt + g * j->Mg * j->ksz * j->es;
  char *yg = j->y + ((n * j->M + g * j->Mg) * j->osz) * j->es;
  const char *bg = j->bias ? j->bias + g * j->Mg * j->es : NULL;
  gint64 z0 = (n * j->M + g * j->Mg) * j->osz;
  if (j->pw)
    {
      /* Packed B then the packed GEMM; col holds B and a row of im2col.
       * A 1x1's B is x's rows: the kernel reads them where they are (the
       * copy into panels was 8% of MobileNetV2; its 1x1s -8%, ResNet-50's
       * -5%, 256->64 at 56x56 -23%), col only the last partial panel. */
      gint64 c0, bn;
      float *bp = (float *) col;
      if (j->direct)
        {
          c0 = b * j->block;
          bn = MIN (j->block, j->osz - c0);
          const float *z = rt_epilogue_active (j->ep) && j->ep->sum
                             ? (const float *) j->ep->sum->data + z0 + c0 : NULL;
          rt_conv_packed_gemm_rows (j->pw, g, (const float *) xi + c0, j->osz, bn, bp, (float *) yg + c0,
                                    j->osz, (const float *) bg, z, j->ep);
          return;
        }
      pack_block (j, xi, b, bp, &c0, &bn);
      const float *z = rt_epilogue_active (j->ep) && j->ep->sum
                         ? (const float *) j->ep->sum->data + z0 + c0 : NULL;
      rt_conv_packed_gemm (j->pw, g, bp, bn, (float *) yg + c0, j->osz, (const float *) bg, z,
                           j->ep);
      return;
    }
  if (j->direct)
    {
      gint64 c0 = b * j->block, bn = MIN (j->block, j->osz - c0);
      gemm (j->dt, FALSE, FALSE, j->Mg, bn, j->ksz, wg, j->ksz, xi + c0 * j->es, j->osz, 0.0,
            yg + c0 * j->es, j->osz);
      rt_epilogue_rows (j->dt, yg + c0 * j->es, bg, z0 + c0, j->Mg, bn, j->osz, j->ep);
      return;
    }
  gint64 oh0 = b * j->block, oh1 = MIN (oh0 + j->block, w->out[1]);
  gint64 bn = w->out[0] * (oh1 - oh0) * w->out[2];
  if (j->inner_parallel)   /* channels in parallel: each writes its own rows of col */
    rt_im2col (j->call, j->dt, xi, j->Cg, w, col, oh0, oh1);
  else
    {
      Im2col job = { j->dt, xi, w, col, oh0, oh1 };
      im2col_range (0, j->Cg, &job);
    }
  char *yb = yg + oh0 * w->out[2] * j->es;
  gemm (j->dt, FALSE, FALSE, j->Mg, bn, j->ksz, wg, j->ksz, col, bn, 0.0, yb, j->osz);
  rt_epilogue_rows (j->dt, yb, bg, z0 + oh0 * w->out[2], j->Mg, bn, j->osz, j->ep);
}

/* Blocks [i0, i1), with the col of this thread's seat. */
static void
conv_items (gint64 i0, gint64 i1, gpointer data)
{
  const ConvJob *j = data;
  char *col = j->col ? j->col + (j->tasks > 1 ? rt_parallel_seat () : 0) * j->col_elems * j->es
                     : NULL;
  for (gint64 i = i0; i < i1; i++)
    conv_block (j, i, col);
}

gboolean
rt_conv_window (RtCall *call, const RtTensor *x, const RtTensor *wt, gint64 *group, RtWindow *w,
                GError **error)
{
  *group = rt_attr_i (call->node, "group", 1);
  if (wt->dtype != x->dtype || wt->rank != x->rank || *group <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "W must match X's type and rank, group >= 1");
      return FALSE;
    }
  return rt_window_init (call, x, wt->dims + 2, FALSE, w, error);
}

static gboolean
k_conv (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *wt = call->inputs[1];
  const RtTensor *bias = call->n_inputs > 2 ? call->inputs[2] : NULL;
  gint64 group;
  RtWindow w;
  if (!rt_conv_window (call, x, wt, &group, &w, error))
    return FALSE;
  return rt_conv_ex (call, x, wt, bias, group, &w, NULL, NULL, call->state, error);
}

/* A constant W (an initializer or a Constant node's value), or NULL. */
static Tensor *
constant_weights (const GraphNode *node)
{
  GraphValue *v = graph_node_n_inputs (node) > 1 ? graph_node_input (node, 1) : NULL;
  if (v == NULL)
    return NULL;
  Tensor *t = graph_value_get_initializer (v);
  GraphNode *src = graph_value_node (v);
  if (t == NULL && src && strcmp (graph_node_kind (src), "onnx::Constant") == 0)
    graph_node_get_t (src, "value", &t);
  return t && tensor_has_data (t) ? t : NULL;
}

/* Whether the attributes say a 2-D 3x3 Conv of stride 1, dilation 1 and
 * group 1 (the input's shape is checked at run time: rt_winograd_applies). */
static gboolean
winograd_node (const GraphNode *node, const Tensor *t)
{
  gsize len;
  const gint64 *v;
  if (rt_attr_i (node, "group", 1) != 1 || tensor_rank (t) != 4 || tensor_dim (t, 2) != 3
      || tensor_dim (t, 3) != 3)
    return FALSE;
  if (rt_attr_ints (node, "kernel_shape", &len, &v) && (len != 2 || v[0] != 3 || v[1] != 3))
    return FALSE;
  if (rt_attr_ints (node, "strides", &len, &v) && (len != 2 || v[0] != 1 || v[1] != 1))
    return FALSE;
  if (rt_attr_ints (node, "dilations", &len, &v) && (len != 2 || v[0] != 1 || v[1] != 1))
    return FALSE;
  return TRUE;
}

/* W transformed once for Winograd (conv-winograd.c) where that applies,
 * laid out by taps for the direct loop (conv-direct.c) where that does,
 * else packed once for the packed GEMM (conv-packed.c), when it is
 * constant (a 1x1 Conv's may switch to the pixel-rows GEMM at its first
 * run: conv-pixel-rows.h); no state otherwise. */
static gboolean
conv_prepare (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset, (void) error;
  Tensor *t = constant_weights (node);
  *state = NULL;
  if (t == NULL)
    return TRUE;
  if (winograd_node (node, t))
    {
      RtWinograd *wg = rt_winograd_new (t);
      if (wg)
        {
          *state = rt_conv_packed_for_winograd (wg);
          return TRUE;
        }
    }
  gboolean narrow = rt_conv_narrow_node (node, t);
  gboolean direct = !narrow && rt_conv_direct_node (node, t);
  /* 5 to 16 input channels: direct on large maps (SqueezeNet's 16 -> 64
   * 3x3s at 55x55: -10% at 1 thread, -32% at 2, against im2col's K = 144),
   * W packed too for the pixel-rows GEMM of small maps */
  if (direct && tensor_dim (t, 1) > RT_CONV_DIRECT_ALONE_C)
    {
      *state = rt_conv_packed_with_taps (t);
      return TRUE;
    }
  if ((narrow || direct) && (*state = rt_conv_packed_for_taps (t, narrow)) != NULL)
    return TRUE;
  *state = rt_conv_pack_weights (t, rt_attr_i (node, "group", 1));
  return TRUE;
}

gboolean
rt_conv (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias, gint64 group,
         const RtWindow *win, GError **error)
{
  return rt_conv_ex (call, x, wt, bias, group, win, NULL, NULL, NULL, error);
}

typedef struct
{
  const float    *x;
  float          *xs;
  const RtWindow *w;
} Subsample;

static void
subsample_planes (gint64 p0, gint64 p1, gpointer data)
{
  const Subsample *s = data;
  const RtWindow *w = s->w;
  gint64 H = w->in[1], W = w->in[2], OH = w->out[1], OW = w->out[2];
  for (gint64 p = p0; p < p1; p++)
    for (gint64 oh = 0; oh < OH; oh++)
      {
        const float *src = s->x + (p * H + oh * w->stride[1]) * W;
        rt_gather_strided (s->xs + (p * OH + oh) * OW, src, 0, OW, w->stride[2], W);
      }
}

static guint subsampled_runs;

guint
rt_conv_subsampled_runs (void)
{
  return g_atomic_int_get (&subsampled_runs);
}

/* A 1x1 Conv of stride > 1 without pads on packed W: x's sampled pixels
 * gathered once (a quarter of x for stride 2), then the 1x1 of stride 1
 * over them, which reads its B where it lies, instead of im2col's copy
 * packed again (ResNet-50's 256 -> 512 and 512 -> 1024 downsamples -12
 * to -14% at 1 thread, -24 to -29% at 2).  The same sums, so the same
 * bits; SYMONNX_NO_CONV_SUBSAMPLE (read when W is packed) keeps im2col. */
static gboolean
conv_subsampled (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
                 const RtWindow *w, const RtEpilogue *ep, RtTensor *y, const RtPackedW *pw,
                 GError **error)
{
  RtTensor xs = { .dtype = x->dtype, .rank = 4, .dims = { x->dims[0], x->dims[1], w->out[1], w->out[2] } };
  xs.numel = rt_shape_numel (4, xs.dims);
  if ((xs.data = rt_call_scratch_n (call, RT_N_SCRATCH - 2, (gsize) MAX (xs.numel, 1) * sizeof (float),
                                    error)) == NULL)
    return FALSE;
  g_atomic_int_inc (&subsampled_runs);
  Subsample s = { x->data, xs.data, w };
  rt_parallel_for (call, x->dims[0] * x->dims[1], 16, subsample_planes, &s);
  RtWindow ws = *w;
  ws.in[1] = w->out[1];
  ws.in[2] = w->out[2];
  ws.stride[1] = ws.stride[2] = 1;
  return rt_conv_ex (call, &xs, wt, bias, 1, &ws, ep, y, pw, error);
}

gboolean
rt_conv_ex (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
            gint64 group, const RtWindow *win, const RtEpilogue *ep, RtTensor *into,
            const RtPackedW *pw, GError **error)
{
  const RtWindow w = *win;
  gint64 N = x->dims[0], C = x->dims[1], M = wt->dims[0];
  if (C % group != 0 || M % group != 0 || wt->dims[1] != C / group)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "channels (%" G_GINT64_FORMAT ", W %" G_GINT64_FORMAT
                     "x%" G_GINT64_FORMAT ") do not fit group %" G_GINT64_FORMAT, C, M, wt->dims[1], group);
      return FALSE;
    }
  for (guint i = 0; i < w.nsp; i++)
    if (wt->dims[2 + i] != w.k[3 - w.nsp + i])
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "kernel_shape does not match W");
        return FALSE;
      }
  if (bias && (bias->dtype != x->dtype || bias->numel != M))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "B must have M = %" G_GINT64_FORMAT " elements", M);
      return FALSE;
    }
  gint64 dims[5] = { N, M };
  for (guint i = 0; i < w.nsp; i++)
    dims[2 + i] = w.out[3 - w.nsp + i];
  RtTensor *y = into;
  if (y)
    {
      /* The caller's buffer (a fused kernel's scratch), large enough. */
      y->dtype = x->dtype;
      y->rank = x->rank;
      memcpy (y->dims, dims, sizeof (gint64) * x->rank);
      y->numel = rt_shape_numel (x->rank, dims);
    }
  else if ((y = rt_call_output (call, 0, x->dtype, x->rank, dims, error)) == NULL)
    return FALSE;
  if (pw && group == 1 && x->dtype == GRAPH_DTYPE_FLOAT && x->rank == 4
      && w.nsp == 2 && w.k[1] == 1 && w.k[2] == 1 && (w.stride[1] > 1 || w.stride[2] > 1)
      && !w.pad0[1] && !w.pad0[2] && !w.pad1[1] && !w.pad1[2] && rt_conv_packed_usable (pw, wt, 1)
      && rt_conv_packed_subsample_ok (pw))
    return conv_subsampled (call, x, wt, bias, &w, ep, y, pw, error);
  /* pw is the Conv's state, which a kernel may change (rt_conv_ex takes
   * it const for its other readers). */
  rt_conv_pixel_rows_adopt ((RtPackedW *) pw, x, wt, group, &w, rt_call_threads (call));
  /* the pixel-rows GEMM first: a W packed and laid out as taps too takes
   * it on the small maps it switched to it for */
  const RtPackedW *bt = rt_conv_packed_pixel_rows (pw, wt);
  if (bt && rt_conv_pixel_rows_applies (x, group, &w))
    return rt_conv_pixel_rows (call, bt, x, &w, bias, ep, y, error);
  gint64 mpad;
  gboolean narrow;
  const float *taps = rt_conv_packed_taps (pw, wt, &mpad, &narrow);
  if (taps && narrow && rt_conv_narrow_applies (x, wt, group, &w))
    return rt_conv_narrow (call, taps, mpad, x, wt, bias, &w, y, ep, error);
  if (taps && rt_conv_direct_applies (x, group, &w))
    return rt_conv_direct (call, taps, mpad, x, wt, bias, &w, NULL, y, ep, error);
  if (rt_conv_depthwise_applies (x, wt, group, &w))
    return rt_conv_depthwise (call, x, wt, bias, &w, y, ep, error);
  const RtWinograd *wg = rt_conv_packed_winograd (pw);
  if (wg && rt_winograd_applies (wg, x, wt, group, &w))
    return rt_conv_winograd (call, wg, x, bias, &w, y, ep, error);
  ConvJob j = { .call = call, .dt = x->dtype, .w = &w, .ep = ep, .x = x->data, .wt = wt->data,
                .bias = bias ? bias->data : NULL, .y = y->data, .C = C, .M = M, .group = group };
  j.Cg = C / group;
  j.Mg = M / group;
  j.isz = w.in[0] * w.in[1] * w.in[2];
  j.osz = w.out[0] * w.out[1] * w.out[2];
  j.ksz = j.Cg * w.k[0] * w.k[1] * w.k[2];
  j.es = (gint64) rt_dtype_size (x->dtype);
  if (j.osz == 0)
    return TRUE;
  j.direct = w.k[0] * w.k[1] * w.k[2] == 1 && w.stride[0] * w.stride[1] * w.stride[2] == 1
             && !w.pad0[0] && !w.pad0[1] && !w.pad0[2] && !w.pad1[0] && !w.pad1[1] && !w.pad1[2];
  gint64 threads = rt_call_threads (call);
  if (j.direct)
    {
      /* Blocks of columns whose Mg rows of y are about 1 MiB, so that the
       * GEMM and the epilogue meet y in cache; at least one per thread. */
      j.block = MAX ((1 << 20) / MAX (j.Mg * j.es, 1), 512);
      if (threads > 1)
        j.block = MIN (j.block, MAX ((j.osz + BLOCKS_PER_THREAD * threads - 1)
                                     / (BLOCKS_PER_THREAD * threads), 256) + 15) / 16 * 16;
      j.block = CLAMP (j.block, 1, j.osz);
      j.nblocks = (j.osz + j.block - 1) / j.block;
    }
  else
    {
      /* 2-D: im2col a block of output rows at a time, about 1 MiB of col (at
       * least 1024 columns, so the GEMM stays efficient), so col stays in
       * cache; at least one block per thread.  3-D: one block. */
      j.block = w.out[1];
      if (w.out[0] == 1)
        {
          j.block = MAX ((1 << 20) / MAX (j.ksz * w.out[2] * j.es, 1),
                         (1024 + w.out[2] - 1) / w.out[2]);
          if (threads > 1)
            j.block = MIN (j.block, MAX ((w.out[1] + BLOCKS_PER_THREAD * threads - 1)
                                         / (BLOCKS_PER_THREAD * threads),
                                         (256 + w.out[2] - 1) / w.out[2]));
          j.block = CLAMP (j.block, 1, w.out[1]);
        }
      j.nblocks = (w.out[1] + j.block - 1) / j.block;
    }
  j.items = N * group * j.nblocks;
  /* Threads each take whole blocks (im2col, GEMM on one BLAS thread,
   * epilogue) when there are enough blocks and work; otherwise one block
   * at a time, im2col split over channels and BLAS's own threads. */
  double work = (double) N * (double) M * (double) j.osz * (double) j.ksz;
  j.tasks = MIN (MIN (threads, j.items), (gint64) MAX (1.0, work / (1 << 20)));
  j.inner_parallel = j.tasks == 1 && threads > 1;
  if (rt_conv_packed_usable (pw, wt, group) && x->rank == 4)
    j.pw = pw;
  gboolean one_image = threads > 1 && N * group == 1 && j.pw != NULL;
  gboolean small_map = one_image && j.osz <= 256;
  gint64 panels = j.pw ? rt_conv_packed_panels (pw) : 0;
  if (small_map && j.direct && M <= j.osz
      && (j.osz + rt_packed_nr (pw) - 1) / rt_packed_nr (pw) >= 2 * threads)
    {
      /* A one-image 1x1 of few pixels with fewer output channels than
       * pixels (MobileNetV2's 576 -> 96 projections at 14x14): blocks of
       * columns a panel wide, each thread reading all of W and the x
       * columns of its own panels. */
      g_atomic_int_inc (&column_splits);
      j.block = rt_packed_nr (pw);
      j.nblocks = (j.osz + j.block - 1) / j.block;
      j.items = j.nblocks;
      j.tasks = threads;
    }
  else if (one_image && j.direct && j.osz <= 16 * M && panels >= 2 * threads)
    {
      /* Other one-image 1x1s of stride 1 whose x is at most 16 times W
       * (pixels <= 16 x output channels): the threads split the output
       * channels, each reading all of x where it lies and its own panels
       * of W, instead of the columns, each reading all of W (2 threads:
       * ResNet-50's 128 -> 512 and 512 -> 256 at 28x28 -16%, 64 -> 256 at
       * 56x56 -7%, the model -2.6%; 256 -> 64 at 56x56, x 49 times W, +25%
       * that way).  Each panel's sums are made the same way whichever
       * thread makes them. */
      float *tail = rt_call_scratch (call, (gsize) rt_conv_packed_b_floats (pw, 1) * sizeof (float),
                                     error);
      if (tail == NULL)
        return FALSE;
      rt_conv_packed_rows_tail (pw, (const float *) j.x, j.osz, j.osz, tail);
      ChannelSplit cs = { &j, tail, j.osz, TRUE };
      g_atomic_int_inc (&channel_splits);
      rt_parallel_for (call, panels, 1, channel_range, &cs);
      return TRUE;
    }
  else if (small_map && !j.direct && panels >= 2 * threads)
    {
      /* Windows on few output pixels (ResNet's stride-2 Convs into 14x14):
       * blocks of columns would leave each thread a few partly filled
       * 32-wide panels; instead B is packed once, whole, and the threads
       * split the output channels. */
      j.block = w.out[1];
      gint64 bn = j.osz;
      gint64 elems = (rt_conv_packed_b_floats (pw, bn) + bn + 15) / 16 * 16;
      float *bp = rt_call_scratch (call, (gsize) elems * sizeof (float), error);
      if (bp == NULL)
        return FALSE;
      gint64 c0;
      pack_block (&j, j.x, 0, bp, &c0, &bn);
      ChannelSplit cs = { &j, bp, bn, FALSE };
      g_atomic_int_inc (&channel_splits);
      rt_parallel_for (call, panels, 1, channel_range, &cs);
      return TRUE;
    }
  j.col_elems = j.direct ? 0 : j.ksz * w.out[0] * j.block * w.out[2];
  if (j.pw)
    {
      /* Packed B and a row of im2col, in 64-byte multiples (a 1x1: one
       * panel, its last partial one). */
      gint64 bn = j.direct ? 1 : j.block * w.out[2];
      j.col_elems = (rt_conv_packed_b_floats (j.pw, bn) + bn + 15) / 16 * 16;
      j.inner_parallel = FALSE;
    }
  /* Blocks go to whichever thread is free (rt_parallel_seat picks its col). */
  if (j.tasks > 1)
    j.tasks = threads;
  if (j.col_elems && (j.col = rt_call_scratch (call, (gsize) (j.tasks * j.col_elems * j.es),
                                             error)) == NULL)
    return FALSE;
  gboolean one_blas_thread = j.tasks > 1 && j.pw == NULL && rt_blas.set_num_threads;
  if (one_blas_thread)
    rt_blas.set_num_threads (1);
  if (j.tasks > 1)
    rt_parallel_for (call, j.items, 1, conv_items, &j);
  else
    conv_items (0, j.items, &j);
  if (one_blas_thread)
    rt_blas.set_num_threads ((int) threads);
  return TRUE;
}

static gboolean
k_conv_transpose (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *wt = call->inputs[1];
  const RtTensor *bias = call->n_inputs > 2 ? call->inputs[2] : NULL;
  gint64 group = rt_attr_i (call->node, "group", 1);
  if (wt->dtype != x->dtype || wt->rank != x->rank || x->rank < 3 || x->rank > 5 || group <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "W must match X's type and rank (3 to 5), group >= 1");
      return FALSE;
    }
  guint ns = x->rank - 2, off = 3 - ns;
  gint64 C = x->dims[1];
  if (wt->dims[0] != C || C % group != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "W's first dimension must be C");
      return FALSE;
    }
  /* The window maps y (the "input" of the equivalent Conv) to x. */
  RtWindow w;
  memset (&w, 0, sizeof w);
  w.nsp = ns;
  for (guint i = 0; i < 3; i++)
    w.in[i] = w.out[i] = w.k[i] = w.stride[i] = w.dil[i] = 1;
  gsize len;
  const gint64 *v;
  gint64 opad[3] = { 0, 0, 0 }, oshape[3] = { -1, -1, -1 };
  for (guint i = 0; i < ns; i++)
    {
      w.out[off + i] = x->dims[2 + i];
      w.k[off + i] = wt->dims[2 + i];
    }
#define READ(name, arr, n_expected)                                               \
  if (rt_attr_ints (call->node, name, &len, &v))                                  \
    {                                                                             \
      if (len != (n_expected))                                                    \
        {                                                                         \
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "attribute %s has %zu entries", name, len); \
          return FALSE;                                                           \
        }                                                                         \
      for (guint i = 0; i < ns; i++)                                              \
        arr[off + i] = v[i];                                                      \
    }
  READ ("strides", w.stride, ns)
  READ ("dilations", w.dil, ns)
  READ ("output_padding", opad, ns)
  READ ("kernel_shape", w.k, ns)
#undef READ
  if (rt_attr_ints (call->node, "output_shape", &len, &v))
    {
      if (len != ns && len != ns + 2)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "output_shape has %zu entries", len);
          return FALSE;
        }
      for (guint i = 0; i < ns; i++)
        oshape[off + i] = v[len - ns + i];
    }
  if (rt_attr_ints (call->node, "pads", &len, &v))
    {
      if (len != 2 * ns)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "pads has %zu entries", len);
          return FALSE;
        }
      for (guint i = 0; i < ns; i++)
        {
          w.pad0[off + i] = v[i];
          w.pad1[off + i] = v[ns + i];
        }
    }
  const char *auto_pad = rt_attr_s (call->node, "auto_pad", "NOTSET");
  for (guint i = off; i < 3; i++)
    {
      /* Bounded first, so the sizes below cannot overflow. */
      const gint64 lim = (gint64) 1 << 30;
      if (w.stride[i] <= 0 || w.stride[i] > lim || w.dil[i] <= 0 || w.dil[i] > lim
          || w.k[i] <= 0 || w.k[i] > lim || w.out[i] > lim || opad[i] < 0 || opad[i] > lim
          || w.pad0[i] < 0 || w.pad0[i] > lim || w.pad1[i] < 0 || w.pad1[i] > lim
          || oshape[i] > lim)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "kernel, strides, dilations, pads, output_padding or output_shape out of "
                         "range (kernel, strides and dilations positive, the rest non-negative)");
          return FALSE;
        }
      gint64 ek = (w.k[i] - 1) * w.dil[i] + 1;
      gint64 full = w.stride[i] * (w.out[i] - 1) + opad[i] + ek;
      if (oshape[i] >= 0 || g_str_has_prefix (auto_pad, "SAME"))
        {
          gint64 target = oshape[i] >= 0 ? oshape[i] : w.out[i] * w.stride[i];
          gint64 total = MAX (full - target, 0);
          gboolean lower = strcmp (auto_pad, "SAME_LOWER") == 0;
          w.pad0[i] = lower ? total - total / 2 : total / 2;
          w.pad1[i] = total - w.pad0[i];
          w.in[i] = target;
        }
      else
        w.in[i] = full - w.pad0[i] - w.pad1[i];
      if (w.in[i] < 0 || w.stride[i] <= 0 || w.dil[i] <= 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "invalid output size");
          return FALSE;
        }
    }
  return rt_conv_transpose (call, x, wt, bias, group, &w, error);
}

gboolean
rt_conv_transpose (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
                   gint64 group, const RtWindow *win, GError **error)
{
  const RtWindow w = *win;
  guint ns = w.nsp, off = 3 - ns;
  gint64 N = x->dims[0], C = x->dims[1], Mg = wt->dims[1], M = Mg * group;
  if (wt->dims[0] != C || C % group != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "W's first dimension must be C");
      return FALSE;
    }
  gint64 dims[5] = { N, M };
  for (guint i = 0; i < ns; i++)
    dims[2 + i] = w.in[off + i];
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  memset (y->data, 0, (gsize) y->numel * es);
  gint64 Cg = C / group, xsz = w.out[0] * w.out[1] * w.out[2], ysz = w.in[0] * w.in[1] * w.in[2];
  gint64 ksz = Mg * w.k[0] * w.k[1] * w.k[2];
  void *col = rt_call_scratch (call, (gsize) MAX (ksz * xsz, 1) * es, error);
  if (col == NULL)
    return FALSE;
  for (gint64 n = 0; n < N && xsz > 0; n++)
    for (gint64 g = 0; g < group; g++)
      {
        /* col (ksz × xsz) = W_gᵀ (ksz × Cg) · X_g (Cg × xsz) */
        gemm (x->dtype, TRUE, FALSE, ksz, xsz, Cg,
              (const char *) wt->data + g * Cg * ksz * (gint64) es, ksz,
              (const char *) x->data + (n * C + g * Cg) * xsz * (gint64) es, xsz, 0.0, col, xsz);
        char *yo = (char *) y->data + (n * M + g * Mg) * ysz * (gint64) es;
        if (x->dtype == GRAPH_DTYPE_FLOAT)
          col2im_FLOAT (col, Mg, &w, (float *) yo);
        else
          col2im_DOUBLE (col, Mg, &w, (double *) yo);
      }
  if (bias)
    {
      if (bias->numel != M || bias->dtype != x->dtype)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "B must have M elements");
          return FALSE;
        }
      add_bias (x->dtype, y->data, bias, N, M, ysz);
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("Conv", 1), RT_IN (2, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_conv,
    .prepare = conv_prepare, .free_state = (GDestroyNotify) rt_conv_packed_free },
  { RT_ONNX ("ConvTranspose", 1), RT_IN (2, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_conv_transpose },
};

RT_KERNEL_TABLE (rt_kernels_conv, defs);
