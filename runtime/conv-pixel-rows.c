/* Convs (group 1) with small output maps as Yᵀ = colᵀ · Wᵀ.
 *
 * The packed GEMM's vectors run along its B panels' 32 columns.  With W as
 * A and the map's pixels as B's columns (conv-packed.c), a 7x7 map fills
 * 49 of 64 lanes and a 14x14 one 196 of 224, and the 1x1 Convs of
 * MobileNetV2 and ResNet-50's last stages ran at 85-90 GFLOP/s where larger
 * maps reach 150.  Here the pixels are the GEMM's rows (A: colᵀ, packed
 * per run straight from X's channel rows for a 1x1 of stride 1 without
 * pads, else from im2col's rows, ResNet's stride-2 Convs down to 7x7 too;
 * mr pixels a panel, a last panel of fewer rows computing only those) and
 * the output channels its columns (B:
 * Wᵀ, packed once when the session is made, instead of W's panels): every
 * lane works wherever M is a multiple of 32.  The result, pixels x
 * channels, is transposed into Y block by block, then bias, sum and
 * activation (epilogue.h's order).
 *
 * Each output is the same sum as in the other orientation: the same
 * products added in the same order (K slices depend on K alone) by the same
 * kernel, so the bits are those of the A-packed path and do not depend on
 * the thread count (threads split the columns of B panels). */
#include "runtime/conv-pixel-rows.h"
#include "runtime/conv-packed.h"
#include <stdlib.h>
#include <string.h>

static guint runs;

guint
rt_conv_pixel_rows_runs (void)
{
  return g_atomic_int_get (&runs);
}

gboolean
rt_conv_pixel_rows_applies (const RtTensor *x, gint64 group, const RtWindow *w)
{
  return x->dtype == GRAPH_DTYPE_FLOAT && x->rank == 4 && group == 1 && w->nsp == 2;
}

/* A 1x1 of stride 1 without pads: x's rows are col's. */
static gboolean
plain (const RtWindow *w)
{
  return w->k[1] == 1 && w->k[2] == 1 && w->stride[1] == 1 && w->stride[2] == 1 && !w->pad0[1]
         && !w->pad0[2] && !w->pad1[1] && !w->pad1[2];
}

/* Maps of up to RT_PIXEL_ROWS_MAX_PIXELS; and plain 1x1s of up to 256
 * pixels with K >= 256 (the transpose back costs M x pixels against the
 * GEMM's K times that) and at least two 32-channel panels a thread (the
 * threads split them): SqueezeNet's 512->1000 classifier at 13x13 (169
 * pixels fill 88% of 6 panels of 32) 1.19 -> 1.09 ms, ResNet-50's 14x14
 * 1x1s -8%, MobileNetV2's 576->96 at 1 thread. */
void
rt_conv_pixel_rows_adopt (RtPackedW *pw, const RtTensor *x, const RtTensor *wt, gint64 group,
                          const RtWindow *w, gint64 threads)
{
  gint64 pixels = w->out[1] * w->out[2];
  if (rt_conv_packed_usable (pw, wt, group) && rt_conv_pixel_rows_applies (x, group, w)
      && (pixels <= RT_PIXEL_ROWS_MAX_PIXELS
          || (plain (w) && pixels <= RT_PIXEL_ROWS_MAX_PLAIN && x->dims[1] >= 256
              && (wt->dims[0] + 31) / 32 >= 2 * threads)))
    rt_conv_packed_adopt_pixel_rows (pw);
}

typedef struct
{
  const RtPackedW  *bt;
  const float      *ap, *bias;
  float            *ct, *y;      /* ct: pixels x M; y: this image's M x HW */
  const RtEpilogue *ep;
  gint64            HW, M, nr, z0;
} Job;

#if defined(__x86_64__) && defined(__GNUC__)
#include "runtime/transpose16.h"
/* bias (M of them, or NULL) and act applied as each transposed channel row
 * is stored (rt_pixels_to_planes16_act) */
__attribute__ ((target ("avx512f"))) static void
transpose_16 (const float *ct, gint64 HW, gint64 M, gint64 c0, gint64 c1, float *y,
              const float *bias, RtActKind act, float lo, float hi)
{
  const __m512 lo16 = _mm512_set1_ps (lo), hi16 = _mm512_set1_ps (hi);
  for (gint64 m0 = c0; m0 < c1; m0 += 16)
    for (gint64 p0 = 0; p0 < HW; p0 += 16)
      rt_pixels_to_planes16_act (ct + p0 * M + m0, M, MIN (16, HW - p0), y + m0 * HW + p0, HW,
                                 MIN (16, c1 - m0), bias ? bias + m0 : NULL, act, lo16, hi16);
}
#endif

/* y's rows [c0, c1) (HW each) := columns [c0, c1) of ct (HW x M): 16 x 16
 * in registers on AVX-512 CPUs, element by element elsewhere; then the
 * bias and the epilogue.  On AVX-512 without a sum the bias and the
 * activation go on as the rows are stored, with the epilogue's operations
 * (y + b, then the scalar comparisons), instead of a pass over y after it
 * (4% of SqueezeNet's classifier). */
static void
transpose (const Job *j, gint64 c0, gint64 c1)
{
  const float *ct = j->ct;
  float *y = j->y;
  gint64 HW = j->HW, M = j->M;
  gboolean act = rt_epilogue_active (j->ep), done = FALSE;
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports ("avx512f"))
    {
      done = !act || j->ep->sum == NULL;
      transpose_16 (ct, HW, M, c0, c1, y, done ? j->bias : NULL,
                    done && act ? j->ep->act : RT_ACT_NONE, done && act ? (float) j->ep->lo : 0,
                    done && act ? (float) j->ep->hi : 0);
    }
  else
#endif
    for (gint64 c = c0; c < c1; c++)
      for (gint64 p = 0; p < HW; p++)
        y[c * HW + p] = ct[p * M + c];
  if (!done)
    rt_epilogue_rows (GRAPH_DTYPE_FLOAT, y + c0 * HW, j->bias ? j->bias + c0 : NULL,
                      j->z0 + c0 * HW, c1 - c0, HW, HW, j->ep);
}

/* Output channels of B panels [begin, end): the GEMM, then each block of
 * channels transposed into y and finished while it is in cache. */
static void
panels_range (gint64 begin, gint64 end, gpointer data)
{
  const Job *j = data;
  gint64 jb = rt_packed_b_block (j->bt, j->HW);
  for (gint64 b0 = begin; b0 < end; b0 += jb)
    {
      gint64 b1 = MIN (end, b0 + jb), c0 = b0 * j->nr, c1 = MIN (b1 * j->nr, j->M);
      rt_packed_gemm_b (j->bt, j->ap, j->HW, j->ct, j->M, b0, b1);
      transpose (j, c0, c1);
    }
}

/* A's panels [p0, p1) packed from xᵀ (one image: K rows of HW). */
typedef struct
{
  const RtPackedW *bt;
  const float     *x;
  gint64           HW;
  float           *ap;
} PackA;

static void
pack_a_range (gint64 p0, gint64 p1, gpointer data)
{
  const PackA *a = data;
  gint64 mr = rt_packed_mr (a->bt), r0 = p0 * mr, r1 = MIN (p1 * mr, a->HW);
  rt_packed_pack_a_t (a->bt, a->x + r0, a->HW, r1 - r0, a->ap + rt_packed_a_floats (a->bt, r0));
}

gboolean
rt_conv_pixel_rows (RtCall *call, const RtPackedW *bt, const RtTensor *x, const RtWindow *w,
                    const RtTensor *bias, const RtEpilogue *ep, RtTensor *y, GError **error)
{
  gint64 N = x->dims[0], C = x->dims[1], HW = w->out[1] * w->out[2], M = rt_packed_b_n (bt);
  gint64 K = C * w->k[1] * w->k[2], isz = C * w->in[1] * w->in[2];
  if (N == 0 || HW == 0 || M == 0)
    return TRUE;
  gboolean from_x = plain (w);   /* else A from im2col's rows */
  float *ap = rt_call_scratch (call, (gsize) rt_packed_a_floats (bt, HW) * sizeof (float), error);
  float *ct = ap ? rt_call_scratch_n (call, 1, (gsize) (HW * M) * sizeof (float), error) : NULL;
  float *col = ct && !from_x
                 ? rt_call_scratch_n (call, 2, (gsize) (K * HW) * sizeof (float), error)
                 : NULL;
  if (ct == NULL || (col == NULL && !from_x))
    return FALSE;
  g_atomic_int_inc (&runs);
  Job j = { .bt = bt, .ap = ap, .ct = ct, .bias = bias ? bias->data : NULL, .ep = ep, .HW = HW,
            .M = M, .nr = rt_packed_nr (bt) };
  for (gint64 n = 0; n < N; n++)
    {
      const float *xn = (const float *) x->data + n * isz;
      if (col)
        {
          rt_im2col (call, GRAPH_DTYPE_FLOAT, xn, C, w, col, 0, w->out[1]);
          xn = col;
        }
      /* xᵀ's (colᵀ's) panels in parallel where there is enough to copy (~32 KiB a chunk) */
      PackA pa = { bt, xn, HW, ap };
      gint64 panel_bytes = rt_packed_a_floats (bt, 1) * (gint64) sizeof (float);
      rt_parallel_for (call, (HW + rt_packed_mr (bt) - 1) / rt_packed_mr (bt),
                       MAX (1, 32768 / MAX (panel_bytes, 1)), pack_a_range, &pa);
      j.y = (float *) y->data + n * M * HW;
      j.z0 = n * M * HW;
      /* chunks of at least ~4 MFLOP */
      rt_parallel_for (call, rt_packed_b_panels (bt),
                       MAX (1, 4 * 1048576 / MAX (HW * K * j.nr * 2, 1)), panels_range, &j);
    }
  return TRUE;
}
