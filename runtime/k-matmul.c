/* MatMul (numpy semantics, batched) and Gemm through OpenBLAS. */
#include "runtime/kernels-private.h"
#include "runtime/gemv.h"
#include "runtime/blas.h"
#include "runtime/matmul-packed.h"
#include "runtime/conv-packed.h"
#include <string.h>

/* One generic loop for integer MatMul (no BLAS for integers). */
#define GEN_IMM(E, T)                                                           \
  static void imm_##E (const void *va, const void *vb, void *vc, gint64 M, gint64 N, gint64 K) \
  {                                                                             \
    const T *a = va, *b = vb;                                                   \
    T *c = vc;                                                                  \
    for (gint64 i = 0; i < M; i++)                                              \
      for (gint64 j = 0; j < N; j++)                                            \
        {                                                                       \
          T s = 0;                                                              \
          for (gint64 k = 0; k < K; k++)                                        \
            s += a[i * K + k] * b[k * N + j];                                   \
          c[i * N + j] = s;                                                     \
        }                                                                       \
  }
RT_FOREACH_INT (GEN_IMM)

static void
mm (GraphDType dt, const void *a, const void *b, void *c, gint64 M, gint64 N, gint64 K)
{
  if (M == 0 || N == 0)
    return;
  if (K == 0)
    {
      memset (c, 0, (gsize) (M * N) * rt_dtype_size (dt));
      return;
    }
  switch (dt)
    {
    case GRAPH_DTYPE_FLOAT:
      rt_blas.sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) M, (int) N, (int) K, 1.0f,
                   a, (int) K, b, (int) N, 0.0f, c, (int) N);
      break;
    case GRAPH_DTYPE_DOUBLE:
      rt_blas.dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) M, (int) N, (int) K, 1.0,
                   a, (int) K, b, (int) N, 0.0, c, (int) N);
      break;
#define CASE(E, T) case GRAPH_DTYPE_##E: imm_##E (a, b, c, M, N, K); break;
      RT_FOREACH_INT (CASE)
#undef CASE
    default:
      break;
    }
}

typedef struct
{
  GraphDType    dt;
  const char   *a, *b;
  char         *o;
  gint64        M, N, K;
  gsize         es;
  guint         brank;
  const gint64 *bdims, *sa, *sb;   /* batch dims, a's and b's batch strides (0: broadcast) */
  gboolean      seated;
  RtPackedW   **pb;                /* float: a packed B per seat (NULL: sgemm) */
  float        *ap;                /* and packed A, ap_floats a seat */
  gint64        ap_floats;
} BatchJob;

/* o := a · b (M x K by K x N, float) on the packed GEMM kernels: b into
 * pb's panels, a's rows into ap. */
static void
mm_packed (RtPackedW *pb, float *ap, const float *a, const float *b, float *o, gint64 M, gint64 N,
           gint64 K)
{
  rt_packed_b_repack (pb, b, N);
  rt_packed_pack_a (pb, a, K, M, ap);
  rt_packed_gemm_b (pb, ap, M, o, N, 0, rt_packed_b_panels (pb));
}

static void
batch_range (gint64 begin, gint64 end, gpointer data)
{
  const BatchJob *j = data;
  gint64 es = (gint64) j->es;
  for (gint64 k = begin; k < end; k++)
    {
      gint64 oa = 0, ob = 0, rest = k;
      for (gint64 d = (gint64) j->brank - 1; d >= 0; d--)
        {
          gint64 c = rest % j->bdims[d];
          rest /= j->bdims[d];
          oa += c * j->sa[d];
          ob += c * j->sb[d];
        }
      const char *a = j->a + oa * j->M * j->K * es, *b = j->b + ob * j->K * j->N * es;
      char *o = j->o + k * j->M * j->N * es;
      if (j->pb)
        {
          gint s = j->seated ? rt_parallel_seat () : 0;
          mm_packed (j->pb[s], j->ap + s * j->ap_floats, (const float *) a, (const float *) b,
                     (float *) o, j->M, j->N, j->K);
        }
      else
        mm (j->dt, a, b, o, j->M, j->N, j->K);
    }
}

gboolean
rt_matmul (RtCall *call, const RtTensor *a, const RtTensor *b, GError **error)
{
  if (a->dtype != b->dtype || a->rank == 0 || b->rank == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "inputs must be of one type and rank >= 1");
      return FALSE;
    }
  /* 1-D operands are promoted ([K] → [1, K] / [K, 1]) and the added dim
   * removed from the result. */
  gint64 ad[RT_MAX_RANK + 1], bd[RT_MAX_RANK + 1];
  guint ar = a->rank, br = b->rank;
  memcpy (ad, a->dims, ar * sizeof (gint64));
  memcpy (bd, b->dims, br * sizeof (gint64));
  if (ar == 1) { ad[1] = ad[0]; ad[0] = 1; ar = 2; }
  if (br == 1) { bd[1] = 1; br = 2; }
  gint64 M = ad[ar - 2], K = ad[ar - 1], N = bd[br - 1];
  if (bd[br - 2] != K)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "inner dimensions differ (%" G_GINT64_FORMAT
                     " and %" G_GINT64_FORMAT ")", K, bd[br - 2]);
      return FALSE;
    }
  guint brank;
  gint64 bdims[RT_MAX_RANK];
  if (!rt_broadcast_shape (call, ar - 2, ad, br - 2, bd, &brank, bdims, error))
    return FALSE;
  gint64 odims[RT_MAX_RANK];
  guint orank = 0;
  for (guint i = 0; i < brank; i++)
    odims[orank++] = bdims[i];
  if (a->rank > 1)
    odims[orank++] = M;
  if (b->rank > 1)
    odims[orank++] = N;
  RtTensor *o = rt_call_output (call, 0, a->dtype, orank, odims, error);
  if (o == NULL)
    return FALSE;
  gint64 batch = rt_shape_numel (brank, bdims);
  /* Batch strides of a and b (0 where broadcast). */
  RtTensor abat = { .dtype = a->dtype, .rank = ar - 2 }, bbat = { .dtype = b->dtype, .rank = br - 2 };
  memcpy (abat.dims, ad, (ar - 2) * sizeof (gint64));
  memcpy (bbat.dims, bd, (br - 2) * sizeof (gint64));
  gint64 sa[RT_MAX_RANK], sb[RT_MAX_RANK];
  rt_broadcast_strides (&abat, brank, bdims, sa);
  rt_broadcast_strides (&bbat, brank, bdims, sb);
  gsize es = rt_dtype_size (a->dtype);
  /* A batch of a against one shared b is one big matrix product. */
  if (br == 2 && batch > 1)
    {
      gboolean contiguous = TRUE;
      for (guint i = 0; i < brank; i++)
        contiguous = contiguous && sa[i] != 0;
      if (contiguous)
        {
          mm (a->dtype, a->data, b->data, o->data, batch * M, N, K);
          return TRUE;
        }
    }
  BatchJob j = { .dt = a->dtype, .a = a->data, .b = b->data, .o = o->data, .M = M, .N = N, .K = K,
                 .es = es, .brank = brank, .bdims = bdims, .sa = sa, .sb = sb };
  gint64 threads = rt_call_threads (call);
  gint64 seats = MIN (threads, batch);
  /* Float products of some size (attention's heads: 128 x 64 by 64 x 128)
   * on the packed GEMM kernels, B packed per product: OpenBLAS runs its
   * AVX2 kernels on CPUs it does not know (AVX-512 ones), at half their
   * rate.  Each element is the same sum whichever thread makes it. */
  if (a->dtype == GRAPH_DTYPE_FLOAT && M >= 8 && N >= 32 && K >= 32 && batch > 0)
    {
      g_autofree RtPackedW **pb = g_new0 (RtPackedW *, seats);
      gint64 made = 0;
      while (made < seats && (pb[made] = rt_packed_b_new_empty (K, N)) != NULL)
        made++;
      gboolean ok = made == seats;   /* none where no packed kernel */
      if (ok)
        {
          j.ap_floats = (rt_packed_a_floats (pb[0], M) + 15) / 16 * 16;
          j.ap = rt_call_scratch (call, (gsize) (seats * j.ap_floats) * sizeof (float), error);
          j.pb = pb;
          j.seated = seats > 1;
          if (j.ap)
            rt_parallel_for (call, batch, 1, batch_range, &j);
        }
      for (gint64 s = 0; s < made; s++)
        rt_conv_packed_free (pb[s]);
      if (ok)
        return j.ap != NULL;
    }
  /* Batches over the threads (attention's heads), each product on one
   * BLAS thread, when there are enough: BLAS splits a product by rows and
   * columns, never along K, so each element is the same sum either way. */
  gboolean split = threads > 1 && batch > 1 && rt_blas.set_num_threads
                   && (a->dtype == GRAPH_DTYPE_FLOAT || a->dtype == GRAPH_DTYPE_DOUBLE);
  if (split)
    rt_blas.set_num_threads (1);
  rt_parallel_for (call, batch, split ? 1 : batch, batch_range, &j);
  if (split)
    rt_blas.set_num_threads ((int) threads);
  return TRUE;
}

static gboolean
k_matmul (RtCall *call, GError **error)
{
  gboolean done = FALSE;
  if (call->state && !rt_matmul_packed (call, call->state, call->inputs[0], call->inputs[1], NULL,
                                        NULL, &done, error))
    return FALSE;
  return done || rt_matmul (call, call->inputs[0], call->inputs[1], error);
}

/* A constant 2-D float B (a Linear layer's weights) packed once for the
 * packed GEMM (matmul-packed.c); no state otherwise. */
static gboolean
matmul_prepare (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset, (void) error;
  GraphValue *v = graph_node_n_inputs (node) > 1 ? graph_node_input (node, 1) : NULL;
  Tensor *t = v ? graph_value_get_initializer (v) : NULL;
  if (t == NULL && v)
    t = graph_value_constant_tensor (v);
  *state = t && tensor_has_data (t) ? rt_matmul_pack_b (t) : NULL;
  return TRUE;
}

typedef struct
{
  const RtPackedW *p;
  const float     *a;
  float           *o;
  float            alpha, beta;
} GemvJob;

/* o[panels' columns] := alpha (a · B) + beta o, as sgemv does in float. */
static void
gemv_range (gint64 begin, gint64 end, gpointer data)
{
  const GemvJob *j = data;
  gint64 nr = rt_packed_nr (j->p), N = rt_packed_b_n (j->p);
  float t[64];
  for (gint64 jp = begin; jp < end; jp++)
    {
      gint64 c0 = jp * nr, nc = MIN (nr, N - c0);
      rt_packed_gemv_b (j->p, j->a, t, jp, jp + 1);
      for (gint64 c = 0; c < nc; c++)
        j->o[c0 + c] = j->beta == 0 ? j->alpha * t[c] : j->alpha * t[c] + j->beta * j->o[c0 + c];
    }
}

static gboolean gemm_impl (RtCall *call, const RtPackedW *packed, const RtTensor *a,
                           const RtTensor *b, const RtTensor *cc, gboolean ta, gboolean tb,
                           double alpha, double beta, guint out_rank, const gint64 *out_dims,
                           GError **error);

gboolean
rt_gemm (RtCall *call, const RtTensor *a, const RtTensor *b, const RtTensor *cc, gboolean ta,
         gboolean tb, double alpha, double beta, guint out_rank, const gint64 *out_dims,
         GError **error)
{
  return gemm_impl (call, NULL, a, b, cc, ta, tb, alpha, beta, out_rank, out_dims, error);
}

/* packed: B packed at session creation (gemm_prepare), or NULL. */
static gboolean
gemm_impl (RtCall *call, const RtPackedW *packed, const RtTensor *a, const RtTensor *b,
           const RtTensor *cc, gboolean ta, gboolean tb, double alpha, double beta,
           guint out_rank, const gint64 *out_dims, GError **error)
{
  if (a->rank != 2 || b->rank != 2 || a->dtype != b->dtype)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "A and B must be 2-D of one type");
      return FALSE;
    }
  gint64 M = ta ? a->dims[1] : a->dims[0], K = ta ? a->dims[0] : a->dims[1];
  gint64 N = tb ? b->dims[0] : b->dims[1], Kb = tb ? b->dims[1] : b->dims[0];
  if (K != Kb)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "inner dimensions differ (%" G_GINT64_FORMAT
                     " and %" G_GINT64_FORMAT ")", K, Kb);
      return FALSE;
    }
  gint64 dims[2] = { M, N };
  if (out_dims && rt_shape_numel (out_rank, out_dims) != M * N)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the output shape does not hold M x N elements");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, out_dims ? out_rank : 2, out_dims ? out_dims : dims,
                                error);
  if (o == NULL)
    return FALSE;
  double bb = 0;
  if (cc && beta != 0)
    {
      /* C broadcast to (M, N) into the output, then C := alpha AB + beta C. */
      gint64 st[RT_MAX_RANK];
      if (cc->dtype != a->dtype)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "C must be of A's type");
          return FALSE;
        }
      if (!rt_broadcasts_to (call, cc, 2, dims, "C", error))
        return FALSE;
      rt_broadcast_strides (cc, 2, dims, st);
      for (gint64 i = 0; i < M; i++)
        for (gint64 j = 0; j < N; j++)
          {
            gint64 src = i * st[0] + j * st[1];
            if (a->dtype == GRAPH_DTYPE_FLOAT)
              ((float *) o->data)[i * N + j] = ((const float *) cc->data)[src];
            else
              ((double *) o->data)[i * N + j] = ((const double *) cc->data)[src];
          }
      bb = beta;
    }
  if (M == 0 || N == 0)
    return TRUE;
  if (K == 0)
    {
      for (gint64 i = 0; i < M * N; i++)
        {
          if (a->dtype == GRAPH_DTYPE_FLOAT)
            ((float *) o->data)[i] = (float) (bb * ((float *) o->data)[i]);
          else
            ((double *) o->data)[i] = bb * ((double *) o->data)[i];
        }
      return TRUE;
    }
  if (a->dtype == GRAPH_DTYPE_FLOAT && M == 1 && packed && rt_packed_b_is (packed, b->data, K, N))
    {
      /* One row against B packed once (a classifier's weights): a GEMV
       * over its panels, split over the threads (each column's sum is the
       * same whichever thread makes it). */
      GemvJob j = { packed, a->data, o->data, (float) alpha, (float) bb };
      rt_parallel_for (call, rt_packed_b_panels (packed),
                       MAX (1, 2 * 1048576 / MAX (K * rt_packed_nr (packed) * 2, 1)), gemv_range, &j);
    }
  else if (a->dtype == GRAPH_DTYPE_FLOAT && M == 1)
    /* One row (batch 1): y = B^T a or B a as a GEMV on the executor's
     * threads (runtime/gemv.c); sgemm would pack all of B first. */
    rt_gemv (call, tb, K, N, a->data, b->data, (float) alpha, (float) bb, o->data);
  else if (a->dtype == GRAPH_DTYPE_FLOAT)
    rt_blas.sgemm (CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                 (int) M, (int) N, (int) K, (float) alpha, a->data, (int) a->dims[1], b->data,
                 (int) b->dims[1], (float) bb, o->data, (int) N);
  else
    rt_blas.dgemm (CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                 (int) M, (int) N, (int) K, alpha, a->data, (int) a->dims[1], b->data,
                 (int) b->dims[1], bb, o->data, (int) N);
  return TRUE;
}

static gboolean
k_gemm (RtCall *call, GError **error)
{
  return gemm_impl (call, call->state, call->inputs[0], call->inputs[1],
                    call->n_inputs > 2 ? call->inputs[2] : NULL,
                    rt_attr_i (call->node, "transA", 0) != 0, rt_attr_i (call->node, "transB", 0) != 0,
                    rt_attr_f (call->node, "alpha", 1.0), rt_attr_f (call->node, "beta", 1.0), 0,
                    NULL, error);
}

/* A constant 2-D float B of at most 32 MB (a classifier's weights: the
 * packed copy doubles them; AlexNet's 151 MB FC layers stay with sgemv)
 * packed once for the one-row GEMV over its panels; no state otherwise. */
static gboolean
gemm_prepare (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset, (void) error;
  *state = NULL;
  GraphValue *v = graph_node_n_inputs (node) > 1 ? graph_node_input (node, 1) : NULL;
  Tensor *t = v ? graph_value_get_initializer (v) : NULL;
  if (t == NULL && v)
    t = graph_value_constant_tensor (v);
  if (t == NULL || !tensor_has_data (t) || tensor_dtype (t) != GRAPH_DTYPE_FLOAT
      || tensor_rank (t) != 2 || tensor_numel (t) > 8 * 1048576)
    return TRUE;
  const float *d = tensor_data (t);
  gint64 r = tensor_dim (t, 0), c = tensor_dim (t, 1);
  *state = rt_attr_i (node, "transB", 0) != 0 ? rt_packed_b_new_t (d, c, r) : rt_packed_b_new (d, r, c);
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("MatMul", 1), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS | RT_DT_INTS, .run = k_matmul,
    .prepare = matmul_prepare, .free_state = (GDestroyNotify) rt_conv_packed_free },
  { RT_ONNX ("Gemm", 1), RT_IN (2, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_gemm,
    .prepare = gemm_prepare, .free_state = (GDestroyNotify) rt_conv_packed_free },
};

RT_KERNEL_TABLE (rt_kernels_matmul, defs);
