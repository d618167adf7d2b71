/* Depthwise convolution of narrow maps (at most 16 output columns: 14x14
 * and 7x7, MobileNet's last stages) with 16 channels in a vector's lanes.
 *
 * conv-depthwise.c runs along a plane's rows, 16 (AVX-512) or 8 columns a
 * vector: on a 7x7 map 7 of 16 lanes work and every row pays a vector's
 * setup, and MobileNetV2's 7x7 and 14x14 depthwise Convs ran at 7-17
 * GFLOP/s against 25-30 on its larger maps.  Here a block of 16 channels of
 * one image is copied into a zero-padded pixel-major buffer (pixel (h, w)
 * holds the 16 channels' values side by side), each output pixel is one
 * vector of 16 channels, and the result is copied back to the channels'
 * planes.  Every lane does what conv-depthwise.c does for its channel, in
 * the same order: 0 + bias, then each tap's multiply and add in (kh, kw)
 * order, padding taps included (zeros), Relu and Clip with the same
 * comparisons, a sum then the activation over each finished plane: the
 * same bits, whichever path or thread count.  AVX-512F only. */
#include "runtime/conv-depthwise-lanes.h"
#include <string.h>

#define LANES 16
#define MAX_TAPS 64

static guint runs;

guint
rt_conv_depthwise_lanes_runs (void)
{
  return g_atomic_int_get (&runs);
}

/* The padded map: rows x cols pixels of LANES floats. */
static void
padded_size (const RtWindow *w, gint64 *rows, gint64 *cols)
{
  *rows = w->pad0[1] + w->in[1] + w->pad1[1];
  *cols = w->pad0[2] + w->in[2] + w->pad1[2];
}

#if defined(__x86_64__) && defined(__GNUC__)
#include "runtime/transpose16.h"
#include "runtime/act16.h"

gboolean
rt_conv_depthwise_lanes_applies (const RtWindow *w)
{
  gint64 rows, cols;
  padded_size (w, &rows, &cols);
  return w->out[2] <= RT_DEPTHWISE_LANES_MAX_OW && w->k[1] * w->k[2] <= MAX_TAPS
         && rows * cols <= 64 * 64 && __builtin_cpu_supports ("avx512f")
         && !getenv ("SYMONNX_DEPTHWISE_ROWS");
}

typedef struct
{
  const float      *x, *wt, *bias;
  float            *y;
  const RtWindow   *w;
  const RtEpilogue *ep;
  gint64            C, blocks, rows, cols;  /* blocks: of LANES channels, per image */
  float            *scratch;                /* per seat: the padded map, then the output pixels */
  gint64            per_seat;
  gboolean          seated;
} Job;

/* What pixels() needs: the padded map, the taps' weights (LANES each),
 * strides in floats, and the epilogue in registers. */
typedef struct
{
  const float *xt, *kt;
  gint64       row, sw, dh, dw;   /* floats: a padded row, stride, dilations */
  gint64       KH, KW;
  __m512       b16, lo16, hi16;
  RtActKind    act;
} Pixels;

/* N consecutive output pixels of one row (N a constant: independent sums,
 * so the adds' latency overlaps), x0 at the first one's window origin. */
__attribute__ ((target ("avx512f"), always_inline)) static inline void
pixels (const Pixels *p, const int N, const float *x0, float *y0)
{
  __m512 acc[8];
  for (int i = 0; i < N; i++)
    acc[i] = p->b16;
  for (gint64 kh = 0; kh < p->KH; kh++)
    for (gint64 kw = 0; kw < p->KW; kw++)
      {
        const float *xk = x0 + kh * p->dh + kw * p->dw;
        __m512 k = _mm512_loadu_ps (p->kt + (kh * p->KW + kw) * LANES);
        for (int i = 0; i < N; i++)
          acc[i] = _mm512_add_ps (acc[i], _mm512_mul_ps (k, _mm512_loadu_ps (xk + i * p->sw)));
      }
  for (int i = 0; i < N; i++)
    {
      __m512 a = acc[i];
      _mm512_storeu_ps (y0 + i * LANES, rt_act16 (p->act, a, p->lo16, p->hi16));
    }
}

/* Channels [c0, c0 + nc) of image n. */
__attribute__ ((target ("avx512f"))) static void
one_block (const Job *j, gint64 n, gint64 c0, gint64 nc, float *xt, float *yt)
{
  const RtWindow *w = j->w;
  gint64 H = w->in[1], W = w->in[2], OH = w->out[1], OW = w->out[2], KH = w->k[1], KW = w->k[2];
  gint64 SH = w->stride[1], SW = w->stride[2], DH = w->dil[1], DW = w->dil[2];
  gint64 cols = j->cols, isz = H * W, osz = OH * OW, ksz = KH * KW;
  /* Zeros where the map is padded: the rows above and below, then each
   * row's left and right. */
  gint64 top = w->pad0[1] * cols * LANES, mid = H * cols * LANES;
  gint64 left = w->pad0[2] * LANES, right = (cols - w->pad0[2] - W) * LANES;
  memset (xt, 0, (gsize) top * sizeof (float));
  memset (xt + top + mid, 0, (gsize) ((j->rows - w->pad0[1] - H) * cols * LANES) * sizeof (float));
  for (gint64 h = 0; h < H; h++)
    {
      float *row = xt + top + h * cols * LANES;
      memset (row, 0, (gsize) left * sizeof (float));
      memset (row + left + W * LANES, 0, (gsize) right * sizeof (float));
    }
  const float *xb = j->x + (n * j->C + c0) * isz;
  __m512 r[LANES];
  for (gint64 p0 = 0; p0 < isz; p0 += LANES)
    {
      /* 16 pixels of the 16 channels, transposed: r[i] is pixel p0 + i */
      gint64 np = MIN (LANES, isz - p0);
      __mmask16 m = (__mmask16) ((1u << np) - 1);
      if (np == LANES && nc == LANES)   /* (plain loads: most blocks) */
        for (gint64 ci = 0; ci < LANES; ci++)
          r[ci] = _mm512_loadu_ps (xb + ci * isz + p0);
      else
        for (gint64 ci = 0; ci < LANES; ci++)
          r[ci] = ci < nc ? _mm512_maskz_loadu_ps (m, xb + ci * isz + p0) : _mm512_setzero_ps ();
      rt_transpose16 (r);
      for (gint64 i = 0, h = p0 / W, c = p0 % W; i < np; i++)
        {
          _mm512_storeu_ps (xt + ((w->pad0[1] + h) * cols + w->pad0[2] + c) * LANES, r[i]);
          if (++c == W)
            c = 0, h++;
        }
    }
  float kt[MAX_TAPS][LANES], bt[LANES];
  memset (kt, 0, (gsize) ksz * sizeof kt[0]);
  memset (bt, 0, sizeof bt);
  for (gint64 ci = 0; ci < nc; ci++)
    {
      for (gint64 t = 0; t < ksz; t++)
        kt[t][ci] = j->wt[(c0 + ci) * ksz + t];
      bt[ci] = j->bias ? j->bias[c0 + ci] : 0.0f;
    }
  gboolean in_row = rt_epilogue_active (j->ep) && j->ep->sum == NULL;
  RtActKind act = in_row ? j->ep->act : RT_ACT_NONE;
  const __m512 zero = _mm512_setzero_ps ();
  const __m512 lo16 = _mm512_set1_ps (in_row ? (float) j->ep->lo : 0);
  const __m512 hi16 = _mm512_set1_ps (in_row ? (float) j->ep->hi : 0);
  const __m512 b16 = _mm512_add_ps (zero, _mm512_loadu_ps (bt));   /* 0 + bias */
  const Pixels px = { xt, (const float *) kt, cols * LANES, SW * LANES, DH * cols * LANES,
                      DW * LANES, KH, KW, b16, lo16, hi16, act };
  for (gint64 oh = 0; oh < OH; oh++)
    {
      const float *x0 = xt + oh * SH * cols * LANES;
      float *y0 = yt + oh * OW * LANES;
      gint64 ow = 0;
      for (; ow + 8 <= OW; ow += 8)
        pixels (&px, 8, x0 + ow * SW * LANES, y0 + ow * LANES);
      for (; ow + 4 <= OW; ow += 4)
        pixels (&px, 4, x0 + ow * SW * LANES, y0 + ow * LANES);
      for (; ow < OW; ow++)
        pixels (&px, 1, x0 + ow * SW * LANES, y0 + ow * LANES);
    }
  float *yb = j->y + (n * j->C + c0) * osz;
  for (gint64 p0 = 0; p0 < osz; p0 += LANES)
    rt_pixels_to_planes16 (yt + p0 * LANES, LANES, MIN (LANES, osz - p0), yb + p0, osz, nc);
  for (gint64 ci = 0; !in_row && ci < nc; ci++)
    rt_epilogue_apply (GRAPH_DTYPE_FLOAT, yb + ci * osz, (n * j->C + c0 + ci) * osz, osz, j->ep);
}

static void
blocks_range (gint64 b0, gint64 b1, gpointer data)
{
  const Job *j = data;
  float *xt = j->scratch + (j->seated ? rt_parallel_seat () : 0) * j->per_seat;
  float *yt = xt + j->rows * j->cols * LANES;
  for (gint64 b = b0; b < b1; b++)
    {
      gint64 n = b / j->blocks, c0 = b % j->blocks * LANES;
      one_block (j, n, c0, MIN (LANES, j->C - c0), xt, yt);
    }
}

gboolean
rt_conv_depthwise_lanes (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
                         const RtWindow *w, RtTensor *y, const RtEpilogue *ep, GError **error)
{
  Job j = { .x = x->data, .wt = wt->data, .bias = bias ? bias->data : NULL, .y = y->data,
            .w = w, .ep = ep, .C = x->dims[1] };
  padded_size (w, &j.rows, &j.cols);
  j.blocks = (j.C + LANES - 1) / LANES;
  gint64 items = x->dims[0] * j.blocks, threads = MIN (rt_call_threads (call), items);
  if (items == 0 || w->out[1] * w->out[2] == 0)
    return TRUE;
  j.per_seat = (j.rows * j.cols + w->out[1] * w->out[2]) * LANES;
  j.seated = threads > 1;
  j.scratch = rt_call_scratch_n (call, 1, (gsize) (MAX (threads, 1) * j.per_seat) * sizeof (float),
                                 error);
  if (j.scratch == NULL)
    return FALSE;
  g_atomic_int_inc (&runs);
  if (j.seated)
    rt_parallel_for (call, items, 1, blocks_range, &j);
  else
    blocks_range (0, items, &j);
  return TRUE;
}
#else
gboolean
rt_conv_depthwise_lanes_applies (const RtWindow *w)
{
  (void) w;
  return FALSE;
}

gboolean
rt_conv_depthwise_lanes (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
                         const RtWindow *w, RtTensor *y, const RtEpilogue *ep, GError **error)
{
  (void) call, (void) x, (void) wt, (void) bias, (void) w, (void) y, (void) ep, (void) error;
  return FALSE;
}
#endif
