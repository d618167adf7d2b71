/* Depthwise convolution (group = C = M: one filter per channel, as in
 * MobileNet) with its own loop instead of im2col + one tiny GEMM per
 * channel.  Each plane is first copied into a zero-padded buffer (the
 * pads, plus slack on the right for whole vectors), so that every output
 * row is computed 8 columns at a time with no bounds test, all taps
 * accumulated in a register (GCC vector extensions; AVX2 where the CPU
 * has it).  Every output is bias + its taps in (kh, kw) order, each a
 * separate multiply and add; padding contributes zeros, as in im2col.
 * On AVX-512 CPUs the 3x3 rows of stride 1 or 2 (MobileNet's) skip the
 * copy: 16 columns a vector, loaded from the plane itself with the lanes
 * outside it masked to zero, each input row read once along the output
 * row and the taps made from neighbouring loads by lane shifts and
 * permutes, two output rows at a time (dw_row3x3_avx512; the same bits).
 * One node, 144 channels 56x56 stride 1: 0.32 -> 0.23 ms; 96 channels
 * 112x112 stride 2: 0.43 -> 0.24 ms (a load per tap before). */
#include "runtime/spatial.h"
#include "runtime/simd.h"
#include "runtime/conv-depthwise-lanes.h"

/* The padded plane's geometry: rows PH0 + H + PH1, row length PW. */
typedef struct
{
  gint64 rows, ld;
} Padded;

static Padded
padded_geometry (const RtWindow *w)
{
  /* The last vector of a row reads up to (8 * ceil(OW / 8) - 1) * S + (KW - 1) * D. */
  gint64 ow8 = (w->out[2] + 7) / 8 * 8;
  gint64 need = (ow8 - 1) * w->stride[2] + (w->k[2] - 1) * w->dil[2] + 1 + 8;
  Padded p = { w->pad0[1] + w->in[1] + w->pad1[1],
               MAX (w->pad0[2] + w->in[2] + w->pad1[2], need) };
  /* Rows the windows reach past the bottom padding cannot exist: out is
   * computed from the padded size. */
  return p;
}

gboolean
rt_conv_depthwise_applies (const RtTensor *x, const RtTensor *wt, gint64 group, const RtWindow *w)
{
  if (!(x->dtype == GRAPH_DTYPE_FLOAT && x->rank == 4 && w->nsp == 2 && group > 1
        && group == x->dims[1] && wt->dims[0] == group && wt->dims[1] == 1))
    return FALSE;
  /* Absurd pads would make the padded plane huge: im2col handles those. */
  Padded g = padded_geometry (w);
  return (double) g.rows * (double) g.ld < (double) (1 << 26);
}

static void
pad_plane (const float *x, const RtWindow *w, Padded g, float *dst)
{
  gint64 H = w->in[1], W = w->in[2], PH = w->pad0[1], PW = w->pad0[2];
  memset (dst, 0, (gsize) (PH * g.ld) * sizeof (float));
  for (gint64 h = 0; h < H; h++)
    {
      float *d = dst + (PH + h) * g.ld;
      memset (d, 0, (gsize) PW * sizeof (float));
      memcpy (d + PW, x + h * W, (gsize) W * sizeof (float));
      memset (d + PW + W, 0, (gsize) (g.ld - PW - W) * sizeof (float));
    }
  memset (dst + (PH + H) * g.ld, 0, (gsize) ((g.rows - PH - H) * g.ld) * sizeof (float));
}

/* Output row oh of one channel from its padded plane xp into yr (OW
 * columns; the last partial vector goes through tail), then the
 * activation act in registers (lo, hi: Clip's bounds), with the scalar
 * kernels' comparisons: Relu x > 0 ? x : 0, Clip v < lo ? lo : v then
 * v > hi ? hi : v. */
VECTOR_CLONES static void
dw_row (const float *xp, Padded g, const float *k, float b, const RtWindow *w, gint64 oh,
        float *yr, float *tail, RtActKind act, float lo, float hi)
{
  const gint64 KH = w->k[1], KW = w->k[2], SW = w->stride[2], DW = w->dil[2], OW = w->out[2];
  const float *x0 = xp + oh * w->stride[1] * g.ld;
  const v8sf zero = { 0 }, lo8 = zero + lo, hi8 = zero + hi;
  /* 3x3, dilation 1, stride 1 or 2 (MobileNet's): the nine taps unrolled
   * with the weights in registers, the same multiplies and adds in the
   * same order as the general loop (so the same bits); the general loop's
   * tap loops and stride tests per load took most of its time. */
  const int fast = KH == 3 && KW == 3 && DW == 1 && w->dil[1] == 1 ? (int) SW : 0;
#define BCAST(f) ((v8sf) { (f), (f), (f), (f), (f), (f), (f), (f) })
  const float *k9 = fast ? k : (const float[9]) { 0 };   /* (nine weights or zeros) */
  const v8sf k0 = BCAST (k9[0]), k1 = BCAST (k9[1]), k2 = BCAST (k9[2]), k3 = BCAST (k9[3]);
  const v8sf k4 = BCAST (k9[4]), k5 = BCAST (k9[5]), k6 = BCAST (k9[6]), k7 = BCAST (k9[7]);
  const v8sf k8 = BCAST (k9[8]);
#undef BCAST
#define TAPS3(S)                                                                            \
  do                                                                                        \
    {                                                                                       \
      const float *r0 = x0 + ow * (S), *r1 = r0 + g.ld, *r2 = r1 + g.ld;                    \
      LOAD8_STRIDED (v, r0, S); acc = acc + k0 * v;                                         \
      LOAD8_STRIDED (v, r0 + 1, S); acc = acc + k1 * v;                                     \
      LOAD8_STRIDED (v, r0 + 2, S); acc = acc + k2 * v;                                     \
      LOAD8_STRIDED (v, r1, S); acc = acc + k3 * v;                                         \
      LOAD8_STRIDED (v, r1 + 1, S); acc = acc + k4 * v;                                     \
      LOAD8_STRIDED (v, r1 + 2, S); acc = acc + k5 * v;                                     \
      LOAD8_STRIDED (v, r2, S); acc = acc + k6 * v;                                         \
      LOAD8_STRIDED (v, r2 + 1, S); acc = acc + k7 * v;                                     \
      LOAD8_STRIDED (v, r2 + 2, S); acc = acc + k8 * v;                                     \
    }                                                                                       \
  while (0)
  for (gint64 ow = 0; ow < OW; ow += 8)
    {
      v8sf acc = zero + b, v;
      if (fast == 1)
        TAPS3 (1);
      else if (fast == 2)
        TAPS3 (2);
      else
        for (gint64 kh = 0; kh < KH; kh++)
          {
            const float *xr = x0 + kh * w->dil[1] * g.ld + ow * SW;
            const float *kr = k + kh * KW;
            for (gint64 kw = 0; kw < KW; kw++)
              {
                LOAD8_STRIDED (v, xr + kw * DW, SW);
                acc = acc + kr[kw] * v;
              }
          }
      if (act == RT_ACT_RELU)
        acc = (v8sf) ((v8si) acc & (acc > zero));
      else if (act == RT_ACT_CLIP)
        {
          v8si below = acc < lo8;
          acc = (v8sf) (((v8si) lo8 & below) | ((v8si) acc & ~below));
          v8si above = acc > hi8;
          acc = (v8sf) (((v8si) hi8 & above) | ((v8si) acc & ~above));
        }
      if (ow + 8 <= OW)
        memcpy (yr + ow, &acc, sizeof acc);
      else
        {
          memcpy (tail, &acc, sizeof acc);
          for (gint64 i = 0; i < OW - ow; i++)
            yr[ow + i] = tail[i];
        }
    }
#undef TAPS3
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include "runtime/act16.h"
#define DW_AVX512 1

static guint avx512_runs;

guint
rt_conv_depthwise_avx512_runs (void)
{
  return g_atomic_int_get (&avx512_runs);
}

/* Lanes [lo, hi) of a mask (empty where hi <= lo). */
static inline guint32
lane_range (gint64 lo, gint64 hi, gint64 lanes)
{
  lo = CLAMP (lo, 0, lanes);
  hi = CLAMP (hi, 0, lanes);
  if (hi <= lo)
    return 0;
  guint32 upto = hi >= 32 ? 0xffffffffu : (1u << hi) - 1;
  return upto & ~((1u << lo) - 1);
}

/* dw_row's 3x3 case (dilation 1, stride S 1 or 2) 16 columns a vector, read
 * straight from the unpadded plane x (H x W): a tap outside it is a zero
 * lane (a masked load) or a zero vector (a row outside), as the padded
 * plane's zeros are, and every lane does the same operations in the same
 * order (0 + bias, then each tap's multiply and add, -std=c11 keeps them
 * unfused; Relu and Clip with the same comparisons): the same bits as
 * dw_row, without copying the plane.  The last partial vector is stored
 * under a mask. */
/* For each group g of 16 input columns starting at g * 16 - pad (g in
 * [0, S * nv + 1), nv = ceil(OW / 16) output vectors): the lanes whose
 * column is inside the row (the same for every row). */
static guint32 *
lane_masks (const RtWindow *w)
{
  gint64 S = w->stride[2], W = w->in[2], ng = S * ((w->out[2] + 15) / 16) + 1;
  guint32 *mt = g_new (guint32, ng);
  for (gint64 g = 0; g < ng; g++)
    {
      gint64 c = g * 16 - w->pad0[2];
      mt[g] = lane_range (-c, W - c, 16);
    }
  return mt;
}

/* A masked load, plain where every lane is on (most vectors: masked
 * loads cost more on this CPU). */
__attribute__ ((target ("avx512f"), always_inline)) static inline __m512
load_lanes (guint32 m, const float *p)
{
  return (m & 0xffff) == 0xffff ? _mm512_loadu_ps (p) : _mm512_maskz_loadu_ps ((__mmask16) m, p);
}

#define ALIGNR(hi, lo, n)                                                                    \
  _mm512_castsi512_ps (_mm512_alignr_epi32 (_mm512_castps_si512 (hi), _mm512_castps_si512 (lo), n))

/* The vectors of one output row; S a constant in each caller's copy.  Each
 * input row is read once, 16 columns a load, sliding along the row: the
 * taps are lane shifts of two neighbouring loads (stride 1: the vector and
 * the next, shifted by kw; stride 2: the even and odd lanes of a pair of
 * loads, and the even ones shifted by one into the next pair), not a load
 * per tap (9 or 18 loads a vector before). */
__attribute__ ((target ("avx512f"), always_inline)) static inline void
dw_vectors3x3 (const float *const row[6], const guint32 rowm[6], const guint32 *mt, gint64 PW,
               gint64 OW, const int S, const int NR, const __m512 kv[9], __m512 b16, RtActKind act,
               float lo, float hi, float *const yr[2], const float *const ahead[4], int n_ahead)
{
  const __m512 lo16 = _mm512_set1_ps (lo), hi16 = _mm512_set1_ps (hi);
  const __m512i even = _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32 (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  /* rows r = NR * kh + j: tap row kh of output row j (two output rows
   * interleaved: two independent chains of adds) */
  __m512 cur[6];   /* per row: the 16 input columns at the vector's first */
  for (int r = 0; r < 3 * NR; r++)
    cur[r] = _mm512_maskz_loadu_ps ((__mmask16) (mt[0] & rowm[r]), row[r] - PW);
  for (gint64 ow = 0, g = 0; ow < OW; ow += 16, g += S)
    {
      __m512 acc[2] = { b16, b16 };
      /* the input rows the next output rows add, the columns this vector
       * reads: rows of a few hundred bytes are too short for the
       * hardware's prefetchers, and the planes of MobileNet's expanded
       * layers are past L2 (with load_lanes' plain loads: MobileNetV2 -6.6%
       * at 1 thread) */
      for (int q = 0; q < n_ahead; q++)
        for (int i = 0; i < S; i++)
          _mm_prefetch ((const char *) (ahead[q] + g * 16 + i * 16), _MM_HINT_T0);
      for (int kh = 0; kh < 3; kh++)
        for (int jr = 0; jr < NR; jr++)
          {
            const int r = NR * kh + jr;
            const float *p = row[r] + g * 16 - PW;
            __m512 t0, t1, t2, next;
            if (S == 1)
              {
                next = load_lanes (mt[g + 1] & rowm[r], p + 16);
                t0 = cur[r];
                t1 = ALIGNR (next, cur[r], 1);
                t2 = ALIGNR (next, cur[r], 2);
              }
            else
              {
                __m512 b = load_lanes (mt[g + 1] & rowm[r], p + 16);
                next = load_lanes (mt[g + 2] & rowm[r], p + 32);
                t0 = _mm512_permutex2var_ps (cur[r], even, b);
                t1 = _mm512_permutex2var_ps (cur[r], odd, b);
                t2 = ALIGNR (next, t0, 1);
              }
            acc[jr] = _mm512_add_ps (acc[jr], _mm512_mul_ps (kv[kh * 3 + 0], t0));
            acc[jr] = _mm512_add_ps (acc[jr], _mm512_mul_ps (kv[kh * 3 + 1], t1));
            acc[jr] = _mm512_add_ps (acc[jr], _mm512_mul_ps (kv[kh * 3 + 2], t2));
            cur[r] = next;
          }
      for (int jr = 0; jr < NR; jr++)
        {
          __m512 a = acc[jr];
          a = rt_act16 (act, a, lo16, hi16);
          if (ow + 16 <= OW)
            _mm512_storeu_ps (yr[jr] + ow, a);
          else
            _mm512_mask_storeu_ps (yr[jr] + ow, (__mmask16) ((1u << (OW - ow)) - 1), a);
        }
    }
}
#undef ALIGNR

/* dw_row's 3x3 case (dilation 1, stride 1 or 2) 16 columns a vector, read
 * straight from the unpadded plane x (H x W): a tap outside it is a zero
 * lane (a masked load; a row outside: all lanes), as the padded plane's
 * zeros are, and every lane does the same operations in the same order
 * (0 + bias, then each tap's multiply and add, -std=c11 keeps them
 * unfused; Relu and Clip with the same comparisons): the same bits as
 * dw_row, without copying the plane.  The last partial vector is stored
 * under a mask. */
__attribute__ ((target ("avx512f"))) static void
dw_row3x3_avx512 (const float *x, gint64 H, gint64 W, const guint32 *mt, const RtWindow *w,
                  gint64 oh, gint64 nrows, const float *k, float b, float *yr, RtActKind act, float lo,
                  float hi)
{
  __m512 kv[9];
  for (int i = 0; i < 9; i++)
    kv[i] = _mm512_set1_ps (k[i]);
  const __m512 b16 = _mm512_add_ps (_mm512_setzero_ps (), _mm512_set1_ps (b));   /* zero + b */
  const int NR = nrows > 1 ? 2 : 1;
  const float *row[6];
  guint32 rowm[6];
  float *const yrs[2] = { yr, yr + (NR - 1) * w->out[2] };
  for (int kh = 0; kh < 3; kh++)
    for (int jr = 0; jr < NR; jr++)
      {
        gint64 ih = (oh + jr) * w->stride[1] - w->pad0[1] + kh;
        gboolean in = ih >= 0 && ih < H;
        row[NR * kh + jr] = x + (in ? ih * W : 0);   /* (outside: no lane is loaded) */
        rowm[NR * kh + jr] = in ? 0xffffffffu : 0;
      }
  /* Rows the next NR output rows read that these do not (inside the plane). */
  const float *ahead[4];
  int n_ahead = 0;
  gint64 S = w->stride[1];
  for (gint64 ih = (oh + NR - 1) * S - w->pad0[1] + 3; ih <= (oh + 2 * NR - 1) * S - w->pad0[1] + 2 && n_ahead < 4; ih++)
    if (ih >= 0 && ih < H)
      ahead[n_ahead++] = x + ih * W;
  if (w->stride[2] == 1 && NR == 2)
    dw_vectors3x3 (row, rowm, mt, w->pad0[2], w->out[2], 1, 2, kv, b16, act, lo, hi, yrs, ahead, n_ahead);
  else if (w->stride[2] == 1)
    dw_vectors3x3 (row, rowm, mt, w->pad0[2], w->out[2], 1, 1, kv, b16, act, lo, hi, yrs, ahead, n_ahead);
  else if (NR == 2)
    dw_vectors3x3 (row, rowm, mt, w->pad0[2], w->out[2], 2, 2, kv, b16, act, lo, hi, yrs, ahead, n_ahead);
  else
    dw_vectors3x3 (row, rowm, mt, w->pad0[2], w->out[2], 2, 1, kv, b16, act, lo, hi, yrs, ahead, n_ahead);
}
#else
guint
rt_conv_depthwise_avx512_runs (void)
{
  return 0;
}
#endif

typedef struct
{
  const RtTensor   *x, *wt, *bias;
  const RtWindow   *w;
  RtTensor         *y;
  const RtEpilogue *ep;
  Padded            g;
  float            *scratch;   /* per task: a padded plane and 8 floats (NULL: AVX-512 rows) */
  gint64            tasks, planes;
  gboolean          avx512;    /* 3x3 rows through dw_row3x3_avx512 */
  const guint32    *masks;     /* its lane_masks */
} DwJob;

/* Task t: planes [P t / T, P (t + 1) / T) of the N x C. */
static void
dw_task (gint64 t0, gint64 t1, gpointer data)
{
  const DwJob *j = data;
  const RtWindow *w = j->w;
  gint64 C = j->x->dims[1], isz = w->in[1] * w->in[2], osz = w->out[1] * w->out[2];
  gint64 ksz = w->k[1] * w->k[2], OW = w->out[2], row = 8;
  for (gint64 t = t0; t < t1; t++)
    {
      /* (The AVX-512 rows read x itself: no padded plane, no scratch.) */
      float *xp = j->avx512 ? NULL : j->scratch + t * (j->g.rows * j->g.ld + row);
      float *yrow = j->avx512 ? NULL : xp + j->g.rows * j->g.ld;
      for (gint64 p = j->planes * t / j->tasks; p < j->planes * (t + 1) / j->tasks; p++)
        {
          gint64 c = p % C;
          const float *k = (const float *) j->wt->data + c * ksz;
          float b = j->bias ? ((const float *) j->bias->data)[c] : 0.0f;
          float *y = (float *) j->y->data + p * osz;
          if (!j->avx512)
            pad_plane ((const float *) j->x->data + p * isz, w, j->g, xp);
          /* The activation in registers unless a sum comes first. */
          gboolean in_row = rt_epilogue_active (j->ep) && j->ep->sum == NULL;
          for (gint64 oh = 0, n; oh < w->out[1]; oh += n)
            {
              n = 1;
#ifdef DW_AVX512
              if (j->avx512)
                {
                  n = MIN (2, w->out[1] - oh);   /* two rows at a time */
                  dw_row3x3_avx512 ((const float *) j->x->data + p * isz, w->in[1], w->in[2], j->masks, w, oh,
                                    n, k, b, y + oh * OW, in_row ? j->ep->act : RT_ACT_NONE,
                                    in_row ? (float) j->ep->lo : 0, in_row ? (float) j->ep->hi : 0);
                }
              else
#endif
                dw_row (xp, j->g, k, b, w, oh, y + oh * OW, yrow, in_row ? j->ep->act : RT_ACT_NONE,
                        in_row ? (float) j->ep->lo : 0, in_row ? (float) j->ep->hi : 0);
              if (!in_row)
                rt_epilogue_apply (GRAPH_DTYPE_FLOAT, y + oh * OW, p * osz + oh * OW, n * OW, j->ep);
            }
        }
    }
}

gboolean
rt_conv_depthwise (RtCall *call, const RtTensor *x, const RtTensor *wt, const RtTensor *bias,
                   const RtWindow *w, RtTensor *y, const RtEpilogue *ep, GError **error)
{
  if (rt_conv_depthwise_lanes_applies (w))
    return rt_conv_depthwise_lanes (call, x, wt, bias, w, y, ep, error);
  Padded g = padded_geometry (w);
  gint64 planes = x->dims[0] * x->dims[1];
  gboolean avx512 = FALSE;
#ifdef DW_AVX512
  /* SYMONNX_DEPTHWISE_AVX2=1: the 8-wide rows only (for comparing). */
  avx512 = w->k[1] == 3 && w->k[2] == 3 && w->dil[1] == 1 && w->dil[2] == 1
           && (w->stride[2] == 1 || w->stride[2] == 2) && __builtin_cpu_supports ("avx512f")
           && !getenv ("SYMONNX_DEPTHWISE_AVX2");
#endif
  /* Tasks of at least ~64K multiply-adds; those of the AVX-512 rows need no
   * scratch, so up to 4 per thread (a late thread leaves less to wait for). */
  gint64 work = MAX (w->out[1] * w->out[2] * w->k[1] * w->k[2], 1);
  gint64 tasks = MIN (rt_call_threads (call) * (avx512 ? 4 : 1), MAX (planes * work / 65536, 1));
  tasks = CLAMP (tasks, 1, MAX (planes, 1));
  float *scratch = NULL;
  if (!avx512)
    {
      gint64 per_task = g.rows * g.ld + 8;
      scratch = rt_call_scratch_n (call, 1, (gsize) (tasks * per_task) * sizeof (float), error);
      if (scratch == NULL)
        return FALSE;
    }
  DwJob job = { x, wt, bias, w, y, ep, g, scratch, tasks, planes, avx512, NULL };
  g_autofree guint32 *masks = NULL;
#ifdef DW_AVX512
  if (avx512)
    {
      g_atomic_int_inc (&avx512_runs);
      job.masks = masks = lane_masks (w);
    }
#endif
  rt_parallel_for (call, tasks, 1, dw_task, &job);
  return TRUE;
}
