/* MaxPool (with Indices, either storage order; also 8-bit integers),
 * AveragePool (count_include_pad), LpPool, GlobalAveragePool,
 * GlobalMaxPool, GlobalLpPool, MaxUnpool: 1-D to 3-D. */
#include "runtime/spatial.h"
#include "runtime/simd.h"
#include <math.h>
#include <string.h>

typedef enum { P_MAX, P_AVG, P_LP } PoolKind;

/* The taps [*lo, *hi) of a window starting at s (stride dil, k taps) that
 * fall inside [0, in), and in *npad those before in + pad1 (the taps
 * count_include_pad counts): the generic loop visits only the taps inside,
 * in the same order, so a window mostly in padding costs only its inside
 * (an int8 MaxPool with pads 63 read 115M taps for 556K outputs). */
static inline void
window_taps (gint64 s, gint64 dil, gint64 k, gint64 in, gint64 pad1, gint64 *lo, gint64 *hi, gint64 *npad)
{
  gint64 l = s >= 0 ? 0 : (-s + dil - 1) / dil;
  gint64 h = s >= in ? 0 : (in - 1 - s) / dil + 1;
  gint64 lim = in + pad1;
  *lo = MIN (l, k);
  *hi = MAX (MIN (h, k), *lo);
  *npad = s >= lim ? 0 : MIN (k, (lim - 1 - s) / dil + 1);
}

#define GEN_POOL(E, T)                                                                 \
  static void pool_##E (const T *x, T *y, gint64 *ind, gint64 planes, const RtWindow *w, \
                        PoolKind kind, gboolean include_pad, double p, gboolean colmajor) \
  {                                                                                     \
    gint64 isz = w->in[0] * w->in[1] * w->in[2];                                        \
    gint64 osz = w->out[0] * w->out[1] * w->out[2];                                     \
    for (gint64 pl = 0; pl < planes; pl++)                                              \
      for (gint64 od = 0; od < w->out[0]; od++)                                         \
        for (gint64 oh = 0; oh < w->out[1]; oh++)                                       \
          for (gint64 ow = 0; ow < w->out[2]; ow++)                                     \
            {                                                                           \
              gint64 d0 = od * w->stride[0] - w->pad0[0];                               \
              gint64 h0 = oh * w->stride[1] - w->pad0[1];                               \
              gint64 w0 = ow * w->stride[2] - w->pad0[2];                               \
              double acc = kind == P_MAX ? -INFINITY : 0;                               \
              gint64 best = -1, count = 0, lo[3], hi[3], np[3];                         \
              window_taps (d0, w->dil[0], w->k[0], w->in[0], w->pad1[0], &lo[0], &hi[0], &np[0]); \
              window_taps (h0, w->dil[1], w->k[1], w->in[1], w->pad1[1], &lo[1], &hi[1], &np[1]); \
              window_taps (w0, w->dil[2], w->k[2], w->in[2], w->pad1[2], &lo[2], &hi[2], &np[2]); \
              gint64 padded = np[0] * np[1] * np[2];                                    \
              for (gint64 kd = lo[0]; kd < hi[0]; kd++)                                 \
                {                                                                       \
                  gint64 id = d0 + kd * w->dil[0];                                      \
                  for (gint64 kh = lo[1]; kh < hi[1]; kh++)                             \
                    {                                                                   \
                      gint64 ih = h0 + kh * w->dil[1];                                  \
                      for (gint64 kw = lo[2]; kw < hi[2]; kw++)                         \
                        {                                                               \
                          gint64 iw = w0 + kw * w->dil[2];                              \
                          gint64 idx = (id * w->in[1] + ih) * w->in[2] + iw;            \
                          double v = x[pl * isz + idx];                                 \
                          count++;                                                      \
                          if (kind == P_MAX)                                            \
                            {                                                           \
                              if (v > acc || best < 0)                                  \
                                {                                                       \
                                  acc = v;                                              \
                                  best = idx;                                           \
                                }                                                       \
                            }                                                           \
                          else if (kind == P_AVG)                                       \
                            acc += v;                                                   \
                          else                                                          \
                            acc += pow (fabs (v), p);                                   \
                        }                                                               \
                    }                                                               \
                }                                                                       \
              gint64 o = pl * osz + (od * w->out[1] + oh) * w->out[2] + ow;             \
              if (kind == P_AVG)                                                        \
                acc = acc / (double) (include_pad ? padded : MAX (count, 1));           \
              else if (kind == P_LP)                                                    \
                acc = pow (acc, 1.0 / p);                                               \
              y[o] = (T) rt_saturate (GRAPH_DTYPE_##E, acc);                            \
              if (ind && colmajor)                                                      \
                {                                                                       \
                  /* storage_order 1: the index of the column-major layout */           \
                  gint64 b = MAX (best, 0), bw = b % w->in[2], bh = b / w->in[2] % w->in[1]; \
                  best = (bw * w->in[1] + bh) * w->in[0] + b / (w->in[2] * w->in[1]);   \
                }                                                                       \
              if (ind)                                                                  \
                ind[o] = pl * isz + MAX (best, 0);                                      \
            }                                                                           \
  }
RT_FOREACH_FLOAT (GEN_POOL)
GEN_POOL (UINT8, guint8)
GEN_POOL (INT8, gint8)

/* Fast path: float, 1-D or 2-D, dilation 1, no Indices output.  The valid
 * window is clipped once per output instead of testing every tap, and max
 * is branchless (first element, then v > m ? v : m: the generic loop's
 * NaN behaviour).  Planes [p0, p1) so rt_parallel_for can split them. */
typedef struct
{
  const float    *x;
  float          *y;
  const RtWindow *w;
  PoolKind        kind;
  gboolean        include_pad;
  gboolean        wide;   /* max rows 16 columns a vector (max_row_interior16) */
} Pool2d;

/* Max pooling of output row oh, columns [lo, hi) whose windows lie inside
 * the row, 8 at a time: each lane takes the window's taps in the scalar
 * loop's order with its comparison (v > m), so NaNs fall the same way.
 * Returns the first column not done. */
VECTOR_CLONES static gint64
max_row_interior (const float *xp, const RtWindow *w, gint64 hs, gint64 he, gint64 lo, gint64 hi,
                  float *yr)
{
  gint64 W = w->in[2], KW = w->k[2], SW = w->stride[2], PW = w->pad0[2];
  /* The last input a block's strided loads read, past its first tap. */
  gint64 reach = SW == 2 ? 15 : 7 * SW;
  gint64 ow = lo;
  for (; ow + 8 <= hi && ow * SW - PW + KW - 1 + reach <= W - 1; ow += 8)
    {
      const float *x0 = xp + ow * SW - PW;
      v8sf m, v;
      LOAD8_STRIDED (m, x0 + hs * W, SW);
      for (gint64 h = hs; h < he; h++)
        for (gint64 c = h == hs ? 1 : 0; c < KW; c++)
          {
            LOAD8_STRIDED (v, x0 + h * W + c, SW);
            v8si gt = v > m;
            m = (v8sf) (((v8si) v & gt) | ((v8si) m & ~gt));
          }
      memcpy (yr + ow, &m, sizeof m);
    }
  return ow;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* max_row_interior 16 columns a vector for strides 1 and 2 on AVX-512
 * CPUs (stride 2: the even lanes of two loads), each lane with the same
 * comparisons in the same order: _mm512_max_ps (v, m) is v > m ? v : m,
 * NaNs included.  Returns hi: all of [lo, hi) done.  Only where
 * wide_rows () says so. */
__attribute__ ((target ("avx512f"))) static gint64
max_row_interior16 (const float *xp, const RtWindow *w, gint64 hs, gint64 he, gint64 lo, gint64 hi,
                    float *yr)
{
  gint64 W = w->in[2], KW = w->k[2], SW = w->stride[2], PW = w->pad0[2];
  const __m512i even = _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  /* The last input a vector's loads read, past its first tap. */
  gint64 reach = SW == 2 ? 31 : 15;
  gint64 ow = lo;
#define LOAD16(p) (SW == 1 ? _mm512_loadu_ps (p)                                                                        : _mm512_permutex2var_ps (_mm512_loadu_ps (p), even,                                                                   _mm512_loadu_ps ((p) + 16)))
  /* 3 wide of stride 2 (ResNet's, SqueezeNet's, GoogLeNet's): a row's
   * three taps from two loads, their even and odd lanes and the evens
   * moved one lane on (the last from a broadcast), in the same order: 2
   * loads and 3 shuffles a row instead of 6 and 3. */
  if (SW == 2 && KW == 3)
    for (; ow + 16 <= hi && ow * SW - PW + KW - 1 + reach <= W - 1; ow += 16)
      {
        const float *x0 = xp + ow * SW - PW;
        const __m512i odd = _mm512_setr_epi32 (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        __m512 m = _mm512_undefined_ps ();
        for (gint64 h = hs; h < he; h++)
          {
            const float *r = x0 + h * W;
            __m512 a = _mm512_loadu_ps (r), b = _mm512_loadu_ps (r + 16);
            __m512 e = _mm512_permutex2var_ps (a, even, b), o = _mm512_permutex2var_ps (a, odd, b);
            __m512 e2 = _mm512_castsi512_ps (_mm512_alignr_epi32 (
              _mm512_castps_si512 (_mm512_set1_ps (r[32])), _mm512_castps_si512 (e), 1));
            m = h == hs ? e : _mm512_max_ps (e, m);
            m = _mm512_max_ps (o, m);
            m = _mm512_max_ps (e2, m);
          }
        _mm512_storeu_ps (yr + ow, m);
      }
  for (; ow + 16 <= hi && ow * SW - PW + KW - 1 + reach <= W - 1; ow += 16)
    {
      const float *x0 = xp + ow * SW - PW;
      __m512 m = LOAD16 (x0 + hs * W);
      for (gint64 h = hs; h < he; h++)
        for (gint64 c = h == hs ? 1 : 0; c < KW; c++)
          m = _mm512_max_ps (LOAD16 (x0 + h * W + c), m);
      _mm512_storeu_ps (yr + ow, m);
    }
#undef LOAD16
  /* The rest, fewer than 16 columns (or too near the row's end for whole
   * loads): lane i reads only its own window's inputs, which are inside
   * the row, under a mask; the others stay unread and unstored. */
  while (ow < hi)
    {
      gint64 n = MIN (16, hi - ow);
      guint32 need = n * SW >= 32 ? 0xffffffffu : (1u << (n * SW)) - 1;
      const float *x0 = xp + ow * SW - PW;
      if (SW == 2 && KW == 3 && n < 16)
        {
          /* 3 wide of stride 2, as above from two masked loads a row: the
           * 2n + 1 inputs of the n windows (inside the row), the third
           * tap's lanes the evens moved one lane on (lane 15 unused) */
          const __m512i odd = _mm512_setr_epi32 (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
          guint32 in3 = (1u << (2 * n + 1)) - 1;
          __m512 m = _mm512_undefined_ps ();
          for (gint64 h = hs; h < he; h++)
            {
              const float *r = x0 + h * W;
              __m512 a = _mm512_maskz_loadu_ps ((__mmask16) in3, r);
              __m512 b = _mm512_maskz_loadu_ps ((__mmask16) (in3 >> 16), r + 16);
              __m512 e = _mm512_permutex2var_ps (a, even, b), o = _mm512_permutex2var_ps (a, odd, b);
              __m512 e2 = _mm512_castsi512_ps (_mm512_alignr_epi32 (_mm512_setzero_si512 (),
                                                                    _mm512_castps_si512 (e), 1));
              m = h == hs ? e : _mm512_max_ps (e, m);
              m = _mm512_max_ps (o, m);
              m = _mm512_max_ps (e2, m);
            }
          _mm512_mask_storeu_ps (yr + ow, (__mmask16) ((1u << n) - 1), m);
          ow += n;
          continue;
        }
#define MLOAD16(p) (SW == 1 ? _mm512_maskz_loadu_ps ((__mmask16) need, p)                                                    : _mm512_permutex2var_ps (_mm512_maskz_loadu_ps ((__mmask16) need, p),                                                       even,                                                                                            _mm512_maskz_loadu_ps (                                                                            (__mmask16) (need >> 16), (p) + 16)))
      __m512 m = MLOAD16 (x0 + hs * W);
      for (gint64 h = hs; h < he; h++)
        for (gint64 c = h == hs ? 1 : 0; c < KW; c++)
          m = _mm512_max_ps (MLOAD16 (x0 + h * W + c), m);
#undef MLOAD16
      _mm512_mask_storeu_ps (yr + ow, (__mmask16) ((1u << n) - 1), m);
      ow += n;
    }
  return ow;
}
#else
static gint64
max_row_interior16 (const float *xp, const RtWindow *w, gint64 hs, gint64 he, gint64 lo, gint64 hi,
                    float *yr)
{
  (void) xp, (void) w, (void) hs, (void) he, (void) hi, (void) yr;
  return lo;   /* (not called: wide_rows is FALSE here) */
}
#endif

/* Whether the max rows of a pool over w go 16 columns a vector: stride 1
 * or 2 on an AVX-512F CPU, SYMONNX_POOL_AVX2 unset (the 8-wide loop, for
 * comparisons).  Decided once a node, not per row. */
static gboolean
wide_rows (const RtWindow *w)
{
#if defined(__x86_64__) && defined(__GNUC__)
  return w->stride[2] <= 2 && __builtin_cpu_supports ("avx512f") && !getenv ("SYMONNX_POOL_AVX2");
#else
  (void) w;
  return FALSE;
#endif
}

static void
pool2d_float (gint64 p0, gint64 p1, gpointer data)
{
  const Pool2d *j = data;
  const RtWindow *w = j->w;
  gint64 H = w->in[1], W = w->in[2], OH = w->out[1], OW = w->out[2];
  gint64 KH = w->k[1], KW = w->k[2], SH = w->stride[1], SW = w->stride[2];
  gint64 PH = w->pad0[1], PW = w->pad0[2];
  for (gint64 pl = p0; pl < p1; pl++)
    {
      const float *xp = j->x + pl * H * W;
      float *yp = j->y + pl * OH * OW;
      for (gint64 oh = 0; oh < OH; oh++)
        {
          gint64 h0 = oh * SH - PH, hs = MAX (h0, 0), he = MIN (h0 + KH, H);
          gint64 ph = MIN (h0 + KH, H + w->pad1[1]) - h0;
          /* Columns whose window is inside the row: [lo, hi). */
          gint64 lo = (PW + SW - 1) / SW, hi = W - KW + PW < 0 ? 0 : (W - KW + PW) / SW + 1;
          hi = MIN (hi, OW);
          lo = MIN (lo, hi);
          gint64 done = lo;
          if (j->kind == P_MAX && he > hs)
            {
              if (j->wide)
                done = max_row_interior16 (xp, w, hs, he, lo, hi, yp + oh * OW);
              done = max_row_interior (xp, w, hs, he, done, hi, yp + oh * OW);
            }
          for (gint64 ow = 0; ow < OW; ow++)
            {
              if (ow == lo)
                ow = done;   /* [lo, done) computed above */
              if (ow >= OW)
                break;
              gint64 w0 = ow * SW - PW, ws = MAX (w0, 0), we = MIN (w0 + KW, W);
              float r;
              if (he <= hs || we <= ws)
                r = j->kind == P_MAX ? -INFINITY : 0.0f;
              else if (j->kind == P_MAX)
                {
                  float m = xp[hs * W + ws];
                  for (gint64 h = hs; h < he; h++)
                    for (gint64 c = ws; c < we; c++)
                      {
                        float v = xp[h * W + c];
                        m = v > m ? v : m;
                      }
                  r = m;
                }
              else
                {
                  float acc = 0;
                  for (gint64 h = hs; h < he; h++)
                    for (gint64 c = ws; c < we; c++)
                      acc += xp[h * W + c];
                  gint64 pw = MIN (w0 + KW, W + w->pad1[2]) - w0;
                  r = acc / (float) (j->include_pad ? ph * pw : (he - hs) * (we - ws));
                }
              yp[oh * OW + ow] = r;
            }
        }
    }
}

/* Output 0 (and 1, the indices, when with_indices) of pooling x over w. */
static gboolean
pool_compute (RtCall *call, const RtTensor *x, const RtWindow *w, PoolKind kind,
              gboolean include_pad, double p, gboolean colmajor, gboolean with_indices,
              GError **error)
{
  gint64 dims[5] = { x->dims[0], x->dims[1] };
  for (guint i = 0; i < w->nsp; i++)
    dims[2 + i] = w->out[3 - w->nsp + i];
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  RtTensor *ind = NULL;
  if (with_indices)
    {
      if ((ind = rt_call_output (call, 1, GRAPH_DTYPE_INT64, x->rank, dims, error)) == NULL)
        return FALSE;
    }
  gint64 planes = x->dims[0] * x->dims[1];
  gint64 *id = ind ? ind->data : NULL;
  if (x->dtype == GRAPH_DTYPE_FLOAT && ind == NULL && kind != P_LP && w->in[0] == 1 && w->k[0] == 1
      && w->dil[1] == 1 && w->dil[2] == 1)
    {
      Pool2d job = { x->data, y->data, w, kind, include_pad, kind == P_MAX && wide_rows (w) };
      gint64 per = MAX (w->out[1] * w->out[2] * w->k[1] * w->k[2], 1);
      rt_parallel_for (call, planes, MAX (1, 65536 / per), pool2d_float, &job);
      return TRUE;
    }
  switch (x->dtype)
    {
    case GRAPH_DTYPE_FLOAT: pool_FLOAT (x->data, y->data, id, planes, w, kind, include_pad, p, colmajor); break;
    case GRAPH_DTYPE_DOUBLE: pool_DOUBLE (x->data, y->data, id, planes, w, kind, include_pad, p, colmajor); break;
    case GRAPH_DTYPE_UINT8: pool_UINT8 (x->data, y->data, id, planes, w, kind, include_pad, p, colmajor); break;
    case GRAPH_DTYPE_INT8: pool_INT8 (x->data, y->data, id, planes, w, kind, include_pad, p, colmajor); break;
    default:
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "element type %s", rt_dtype_name (x->dtype));
      return FALSE;
    }
  return TRUE;
}

static gboolean
pool_run (RtCall *call, const RtWindow *w, PoolKind kind, GError **error)
{
  gboolean with_indices = call->n_outputs > 1
                          && graph_value_n_uses (graph_node_output (call->node, 1)) + 1 > 0;
  return pool_compute (call, call->inputs[0], w, kind,
                       rt_attr_i (call->node, "count_include_pad", 0) != 0,
                       (double) rt_attr_i (call->node, "p", 2),
                       rt_attr_i (call->node, "storage_order", 0) != 0, with_indices, error);
}

gboolean
rt_pool (RtCall *call, const RtTensor *x, const RtWindow *w, gboolean max,
         gboolean count_include_pad, GError **error)
{
  if (x->dtype != GRAPH_DTYPE_FLOAT && x->dtype != GRAPH_DTYPE_DOUBLE)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "element type %s", rt_dtype_name (x->dtype));
      return FALSE;
    }
  return pool_compute (call, x, w, max ? P_MAX : P_AVG, count_include_pad, 2, FALSE, FALSE, error);
}

static gboolean
k_pool (RtCall *call, GError **error)
{
  const char *op = graph_node_op_type (call->node);
  PoolKind kind = strcmp (op, "MaxPool") == 0 ? P_MAX : strcmp (op, "AveragePool") == 0 ? P_AVG : P_LP;
  RtWindow w;
  if (!rt_window_init (call, call->inputs[0], NULL, rt_attr_i (call->node, "ceil_mode", 0) != 0,
                       &w, error))
    return FALSE;
  if (kind == P_AVG && (w.dil[0] != 1 || w.dil[1] != 1 || w.dil[2] != 1))
    {
      /* AveragePool has no dilations before opset 19. */
      for (guint i = 0; i < 3; i++)
        w.dil[i] = 1;
    }
  return pool_run (call, &w, kind, error);
}

/* GlobalAveragePool on floats: each plane's sum 8 lanes side by side
 * (then the lanes added in order), divided by its size.  The window loop
 * added a 169-pixel plane one element at a time, a chain of dependent
 * adds (SqueezeNet's 1000 planes: 0.07 ms, 1.5% of the model). */
typedef struct
{
  const float *x;
  float       *y;
  gint64       n;
} PlaneMeans;

VECTOR_CLONES static void
plane_means (gint64 p0, gint64 p1, gpointer data)
{
  const PlaneMeans *j = data;
  for (gint64 pl = p0; pl < p1; pl++)
    {
      const float *x = j->x + pl * j->n;
      v8sf acc = { 0 }, v;
      gint64 i = 0;
      for (; i + 8 <= j->n; i += 8)
        {
          LOAD8 (v, x + i);
          acc = acc + v;
        }
      float s = 0;
      for (int l = 0; l < 8; l++)
        s += acc[l];
      for (; i < j->n; i++)
        s += x[i];
      j->y[pl] = s / (float) j->n;
    }
}

static gboolean
k_global_pool (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  const char *op = graph_node_op_type (call->node);
  PoolKind kind = strcmp (op, "GlobalMaxPool") == 0 ? P_MAX : strcmp (op, "GlobalAveragePool") == 0 ? P_AVG : P_LP;
  if (x->rank < 3 || x->rank > 5)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs 1 to 3 spatial dimensions");
      return FALSE;
    }
  if (kind == P_AVG && x->dtype == GRAPH_DTYPE_FLOAT)
    {
      gint64 dims[5] = { x->dims[0], x->dims[1], 1, 1, 1 };
      RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
      if (y == NULL)
        return FALSE;
      gint64 planes = x->dims[0] * x->dims[1], n = rt_shape_numel (x->rank - 2, x->dims + 2);
      PlaneMeans j = { x->data, y->data, n };
      if (planes > 0 && n > 0)
        rt_parallel_for (call, planes, MAX (1, 65536 / n), plane_means, &j);
      else
        for (gint64 pl = 0; pl < planes; pl++)
          j.y[pl] = 0;   /* (an empty plane: 0, as the window loop gives) */
      return TRUE;
    }
  RtWindow w;
  memset (&w, 0, sizeof w);
  w.nsp = x->rank - 2;
  for (guint i = 0; i < 3; i++)
    {
      guint k = i + w.nsp;
      w.in[i] = w.k[i] = k >= 3 ? x->dims[k - 1] : 1;
      w.out[i] = w.stride[i] = w.dil[i] = 1;
    }
  return pool_run (call, &w, kind, error);
}

/* MaxUnpool: y is zero but for x's values at the flat positions `indices`
 * holds (positions in the shape MaxPool's input had; with output_shape,
 * the same coordinates in the larger output, as ONNX's test data has it). */
static gboolean
k_max_unpool (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *ind = call->inputs[1];
  const RtTensor *os = call->n_inputs > 2 ? call->inputs[2] : NULL;
  RtWindow w;
  if (!rt_window_init (call, x, NULL, FALSE, &w, error))
    return FALSE;
  if (ind->numel != x->numel || (os && os->numel != x->rank))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "indices must match X and output_shape its rank");
      return FALSE;
    }
  /* The pooled input's shape: (out - 1) * stride + kernel - pads. */
  gint64 in[RT_MAX_RANK], dims[RT_MAX_RANK];
  in[0] = x->dims[0];
  in[1] = x->dims[1];
  for (guint i = 0; i < w.nsp; i++)
    {
      guint k = 3 - w.nsp + i;
      in[2 + i] = (x->dims[2 + i] - 1) * w.stride[k] + (w.k[k] - 1) * w.dil[k] + 1 - w.pad0[k] - w.pad1[k];
    }
  for (guint i = 0; i < x->rank; i++)
    dims[i] = os ? rt_get_i64 (os, i) : in[i];
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  memset (y->data, 0, (gsize) y->numel * es);
  gint64 total = rt_shape_numel (x->rank, in);
  for (gint64 i = 0; i < x->numel; i++)
    {
      gint64 f = rt_get_i64 (ind, i), o = 0, m = 1;
      if (f < 0 || f >= total)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "index %" G_GINT64_FORMAT " is out of range", f);
          return FALSE;
        }
      for (int d = (int) x->rank - 1; d >= 0; d--)
        {
          gint64 c = f % in[d];
          f /= in[d];
          if (c >= dims[d])
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "output_shape is smaller than the pooled input");
              return FALSE;
            }
          o += c * m;
          m *= dims[d];
        }
      memcpy ((char *) y->data + o * (gint64) es, (const char *) x->data + i * (gint64) es, es);
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("MaxPool", 1), RT_IN (1, 1), RT_OUT (1, 2), .dtypes = RT_DT_FLOATS | RT_DT (UINT8) | RT_DT (INT8), .run = k_pool },
  { RT_ONNX ("MaxUnpool", 9), RT_IN (2, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_max_unpool },
  { RT_ONNX ("AveragePool", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_pool },
  { RT_ONNX ("LpPool", 2), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_pool },
  { RT_ONNX ("GlobalAveragePool", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_global_pool },
  { RT_ONNX ("GlobalMaxPool", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_global_pool },
  { RT_ONNX ("GlobalLpPool", 2), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_global_pool },
};

RT_KERNEL_TABLE (rt_kernels_pool, defs);
