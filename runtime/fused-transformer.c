/* Kernels of the transformer fusions (runtime/fuse-transformer.c finds the
 * chains):
 *
 *   MatMul + Add (bias along the last axis) [+ Relu | Gelu]
 *   LayerNorm as torch exports it below opset 17:
 *     ReduceMean, Sub, Pow (2), ReduceMean, Add (eps), Sqrt, Div, Mul, Add
 *   Gelu as torch exports it: x * (Erf (x / c1) + c2) * c3
 *
 * Each element goes through the same operations, in the same order and
 * precision, as the unfused kernels (k-elementwise.c: float ops in float,
 * Erf/Sqrt/Pow in double then rounded; k-reduce.c: ReduceMean sums in
 * double in index order), so a fused run gives the same bits.  The build
 * is ISO C11 (meson.build's c_std), where GCC does not contract a * b + c
 * into one fma: each product is rounded, as the separate Mul node's is.
 * Rows are independent and split over the session's threads: 1 and N
 * threads give the same bits. */
#include "runtime/fuse-private.h"
#include "runtime/verf.h"
#include "runtime/kernels-private.h"
#include "runtime/matmul-packed.h"
#include "runtime/row-sums8.h"
#include <math.h>

/* Refusal when the tensors bound at run time do not fit the fused kernel
 * (a caller overriding a weight by name with another shape or type). */
static gboolean
unfit (RtCall *call, GError **error, const char *chain, const char *what)
{
  rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                 "fused %s: %s; run without fusion (RtOptions.no_fusion, symonnx run --no-fusion)",
                 chain, what);
  return FALSE;
}

/* Whether t is a float tensor of n elements (n < 0: one element). */
static gboolean
is_float_n (const RtTensor *t, gint64 n)
{
  return t && t->dtype == GRAPH_DTYPE_FLOAT && t->numel == (n < 0 ? 1 : n);
}

/* ---- Gelu ------------------------------------------------------------------- */

typedef struct
{
  float c1, c2, c3;   /* x * (Erf (x / c1) + c2) * c3 */
  RtVerfPath erf;     /* rt_verf's loop, asked once a node, not once a block */
} GeluK;

/* y[i] := x[i] * (erf (x[i] / c1) + c2) * c3 for i < n (y may be x), by
 * blocks: the division and the products in loops the compiler vectorises,
 * rt_verf between them (the Erf node's kernel); each element's operations
 * and roundings are the unfused nodes'. */
static void
gelu_block (const float *x, float *y, gint64 n, const GeluK *g)
{
  float t[256];
  for (gint64 i0 = 0; i0 < n; i0 += 256)
    {
      gint64 len = MIN (256, n - i0);
      for (gint64 i = 0; i < len; i++)
        t[i] = x[i0 + i] / g->c1;
      rt_verf_on (g->erf, t, t, len);
      for (gint64 i = 0; i < len; i++)
        {
          float a = t[i] + g->c2;
          float m = x[i0 + i] * a;
          y[i0 + i] = m * g->c3;
        }
    }
}

static gboolean
gelu_consts (RtCall *call, guint at, GeluK *g, GError **error)
{
  for (guint k = 0; k < 3; k++)
    if (!is_float_n (call->inputs[at + k], -1))
      return unfit (call, error, "Gelu", "Gelu's constants are not float scalars");
  g->c1 = ((const float *) call->inputs[at]->data)[0];
  g->c2 = ((const float *) call->inputs[at + 1]->data)[0];
  g->c3 = ((const float *) call->inputs[at + 2]->data)[0];
  g->erf = rt_verf_path ();
  return TRUE;
}

typedef struct
{
  const float *x;
  float       *y;
  GeluK        g;
} GeluJob;

static void
gelu_range (gint64 begin, gint64 end, gpointer data)
{
  const GeluJob *j = data;
  gelu_block (j->x + begin, j->y + begin, end - begin, &j->g);
}

/* Inputs: x, c1, c2, c3. */
static gboolean
k_gelu (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  GeluJob j;
  if (x->dtype != GRAPH_DTYPE_FLOAT)
    return unfit (call, error, "Gelu", "x is not float");
  if (!gelu_consts (call, 1, &j.g, error))
    return FALSE;
  RtTensor *y = rt_call_output_like (call, 0, x, error);
  if (y == NULL)
    return FALSE;
  j.x = x->data;
  j.y = y->data;
  rt_parallel_for (call, x->numel, 16384, gelu_range, &j);
  return TRUE;
}

const RtKernelDef rt_fused_gelu_def = {
  RT_ONNX ("Gelu", 1), RT_IN (4, 4), RT_OUT (1, 1), .dtypes = RT_DT (FLOAT), .run = k_gelu,
  .free_state = g_free,
};

/* ---- MatMul + bias [+ activation] ------------------------------------------- */

typedef struct
{
  float       *y;
  const float *bias;
  gint64       n;
  const RtFusedMatMul *f;
  GeluK        g;
} BiasJob;

static void
bias_rows (gint64 begin, gint64 end, gpointer data)
{
  const BiasJob *j = data;
  for (gint64 r = begin; r < end; r++)
    {
      float *p = j->y + r * j->n;
      for (gint64 i = 0; i < j->n; i++)
        p[i] = p[i] + j->bias[i];
      if (j->f->act == RT_FUSED_RELU)
        for (gint64 i = 0; i < j->n; i++)
          p[i] = p[i] > 0 ? p[i] : 0;
      else if (j->f->act == RT_FUSED_GELU)
        gelu_block (p, p, j->n, &j->g);
    }
}

/* Bias, then the activation, over a part of the packed MatMul's result. */
static void
bias_tile (float *y, gint64 rows, gint64 cols, gint64 ld, gint64 col0, gconstpointer data)
{
  const BiasJob *j = data;
  for (gint64 r = 0; r < rows; r++)
    {
      float *p = y + r * ld;
      const float *b = j->bias + col0;
      for (gint64 i = 0; i < cols; i++)
        p[i] = p[i] + b[i];
      if (j->f->act == RT_FUSED_RELU)
        for (gint64 i = 0; i < cols; i++)
          p[i] = p[i] > 0 ? p[i] : 0;
      else if (j->f->act == RT_FUSED_GELU)
        gelu_block (p, p, cols, &j->g);
    }
}

/* Inputs: A, B, bias (1-D, B's columns), Gelu's c1, c2, c3 (absent unless Gelu). */
static gboolean
k_matmul_bias (RtCall *call, GError **error)
{
  const RtFusedMatMul *f = call->state;
  const RtTensor *a = call->inputs[0], *b = call->inputs[1], *bias = call->inputs[2];
  if (a->dtype != GRAPH_DTYPE_FLOAT || b->dtype != GRAPH_DTYPE_FLOAT || b->rank != 2
      || !is_float_n (bias, b->dims[1]) || bias->rank != 1)
    return unfit (call, error, "MatMul + Add", "the bias is not one float per column of a 2-D B");
  BiasJob j = { .bias = bias->data, .n = b->dims[1], .f = f };
  if (f->act == RT_FUSED_GELU && !gelu_consts (call, 3, &j.g, error))
    return FALSE;
  /* Packed weights: bias and activation over each thread's columns while
   * in cache. */
  gboolean done = FALSE;
  if (f->packed && !rt_matmul_packed (call, f->packed, a, b, bias_tile, &j, &done, error))
    return FALSE;
  if (done)
    return TRUE;
  if (!rt_matmul (call, a, b, error))
    return FALSE;
  RtTensor *y = rt_fuse_output (call);
  j.y = y->data;
  rt_parallel_for (call, j.n ? y->numel / j.n : 0, MAX (1, 16384 / MAX (j.n, 1)), bias_rows, &j);
  return TRUE;
}

static void
fused_matmul_free (gpointer state)
{
  RtFusedMatMul *f = state;
  rt_conv_packed_free (f->packed);
  g_free (f);
}

const RtKernelDef rt_fused_matmul_def = {
  RT_ONNX ("MatMul", 1), RT_IN (6, 6), RT_OUT (1, 1), .dtypes = RT_DT (FLOAT),
  .run = k_matmul_bias, .free_state = fused_matmul_free,
};

/* ---- LayerNorm (opset 13 pattern) -------------------------------------------- */

typedef struct
{
  const float *x, *w, *b;
  float       *y;
  gint64       n;
  double       e;   /* Pow's exponent */
  float        eps;
} LnJob;

/* Rows [r, r + rows) of the LayerNorm, rows <= 8: their two sums side by
 * side (rt_row_sums8), each row's in the unfused ReduceMeans' order. */
static void
ln_block (const LnJob *j, gint64 r, int rows)
{
  gint64 n = j->n;
  double acc[8];
  float s[8];
  rt_row_sums8 (j->x + r * n, n, n, rows, RT_ROW_SUM, NULL, acc);   /* ReduceMean */
  for (int k = 0; k < rows; k++)
    {
      const float *x = j->x + (r + k) * n;
      float *y = j->y + (r + k) * n;
      float mean = (float) (acc[k] / (double) n);
      for (gint64 i = 0; i < n; i++)          /* Sub */
        y[i] = x[i] - mean;
    }
  if (j->e == 2.0)
    /* pow (d, 2) is d * d exactly: the product of two floats fits in a
     * double, and pow's result is then the exact one. */
    rt_row_sums8 (j->y + r * n, n, n, rows, RT_ROW_SUM_SQUARE, NULL, acc);
  else
    for (int k = 0; k < rows; k++)
      {
        const float *y = j->y + (r + k) * n;
        acc[k] = 0;
        for (gint64 i = 0; i < n; i++)
          acc[k] += (double) (float) pow ((double) y[i], j->e);
      }
  for (int k = 0; k < rows; k++)
    {
      float var = (float) (acc[k] / (double) n);  /* ReduceMean */
      float v = var + j->eps;                     /* Add */
      s[k] = (float) sqrt ((double) v);           /* Sqrt */
    }
  for (int k = 0; k < rows; k++)
    {
      float *y = j->y + (r + k) * n;
      for (gint64 i = 0; i < n; i++)              /* Div, Mul, Add */
        {
          float q = y[i] / s[k];
          float m = q * j->w[i];
          y[i] = m + j->b[i];
        }
    }
}

static void
ln_rows (gint64 begin, gint64 end, gpointer data)
{
  for (gint64 r = begin; r < end; r += 8)
    ln_block (data, r, (int) MIN (8, end - r));
}

/* Inputs: x, Pow's exponent, eps, scale, bias (1-D, x's last dimension). */
static gboolean
k_layernorm13 (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  if (x->dtype != GRAPH_DTYPE_FLOAT || x->rank == 0)
    return unfit (call, error, "LayerNorm", "x is not a float tensor of rank >= 1");
  gint64 n = x->dims[x->rank - 1];
  if (!is_float_n (call->inputs[1], -1) || !is_float_n (call->inputs[2], -1)
      || !is_float_n (call->inputs[3], n) || !is_float_n (call->inputs[4], n)
      || call->inputs[3]->rank != 1 || call->inputs[4]->rank != 1)
    return unfit (call, error, "LayerNorm", "the exponent, epsilon, scale or bias do not fit");
  RtTensor *y = rt_call_output_like (call, 0, x, error);
  if (y == NULL)
    return FALSE;
  if (n == 0)
    return TRUE;
  LnJob j = { x->data, call->inputs[3]->data, call->inputs[4]->data, y->data, n,
              ((const float *) call->inputs[1]->data)[0], ((const float *) call->inputs[2]->data)[0] };
  rt_parallel_for (call, x->numel / n, MAX (1, 16384 / n), ln_rows, &j);
  return TRUE;
}

const RtKernelDef rt_fused_layernorm_def = {
  RT_ONNX ("LayerNormalization", 1), RT_IN (5, 5), RT_OUT (1, 1), .dtypes = RT_DT (FLOAT),
  .run = k_layernorm13, .free_state = g_free,
};
