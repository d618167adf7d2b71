/* MatMul with a constant B (a Linear layer's weights) on the packed GEMM
 * kernels of conv-packed.c: B packed once when the session is made (sgemm
 * repacks it on every call: 20% of the LSTM model's time), A's rows packed
 * per call, columns of B panels split over the session's threads.
 *
 * Each element of Y is the same sum whichever thread computes it (the K
 * slices depend on K alone), so 1 and N threads give the same bits; the
 * fused kernels (runtime/fused-transformer.c) add the bias and apply the
 * activation to the finished sums, as the Add and activation nodes do. */
#include "runtime/matmul-packed.h"
#include "runtime/kernels-private.h"

RtPackedW *
rt_matmul_pack_b (const Tensor *b)
{
  if (tensor_dtype (b) != GRAPH_DTYPE_FLOAT || tensor_rank (b) != 2 || !tensor_has_data (b))
    return NULL;
  return rt_packed_b_new (tensor_data (b), tensor_dim (b, 0), tensor_dim (b, 1));
}

typedef struct
{
  const RtPackedW *p;
  const float     *ap;
  float           *y;
  gint64           m, N, nr, panels;
  RtTileFn         post;
  gconstpointer    post_data;
} Job;

/* Columns of B panels [begin, end) for all rows, then post over them. */
static void
panels_range (gint64 begin, gint64 end, gpointer data)
{
  const Job *j = data;
  /* post block by block, while the block is in cache */
  gint64 jb = rt_packed_b_block (j->p, j->m);
  for (gint64 b0 = begin; b0 < end; b0 += jb)
    {
      gint64 b1 = MIN (end, b0 + jb);
      rt_packed_gemm_b (j->p, j->ap, j->m, j->y, j->N, b0, b1);
      if (j->post)
        {
          gint64 c0 = b0 * j->nr, c1 = MIN (b1 * j->nr, j->N);
          j->post (j->y + c0, j->m, c1 - c0, j->N, c0, j->post_data);
        }
    }
}

gboolean
rt_matmul_packed (RtCall *call, const RtPackedW *p, const RtTensor *a, const RtTensor *b,
                  RtTileFn post, gconstpointer post_data, gboolean *done, GError **error)
{
  *done = FALSE;
  if (p == NULL || a->dtype != GRAPH_DTYPE_FLOAT || b->dtype != GRAPH_DTYPE_FLOAT || a->rank < 2
      || b->rank != 2 || !rt_packed_b_is (p, b->data, b->dims[0], b->dims[1])
      || a->dims[a->rank - 1] != b->dims[0])
    return TRUE;
  /* A's rows go in panels of mr (the kernel's tile rows): where they would
   * fill less than 3/4 of them (one row in 8), sgemm is the better choice.
   * The choice depends on the shapes alone, so fused and unfused runs of
   * a graph agree. */
  gint64 mr = rt_packed_mr (p), K = b->dims[0], m = K ? a->numel / K : 0;
  if (m * 4 < ((m + mr - 1) / mr * mr) * 3)
    return TRUE;
  Job j = { .p = p, .N = b->dims[1], .m = m, .post = post, .post_data = post_data,
            .panels = rt_packed_b_panels (p) };
  gint64 dims[RT_MAX_RANK];
  for (guint i = 0; i + 1 < a->rank; i++)
    dims[i] = a->dims[i];
  dims[a->rank - 1] = j.N;
  RtTensor *y = rt_call_output (call, 0, GRAPH_DTYPE_FLOAT, a->rank, dims, error);
  if (y == NULL)
    return FALSE;
  *done = TRUE;
  j.y = y->data;
  if (m == 0 || j.N == 0)
    return TRUE;
  float *ap = rt_call_scratch (call, (gsize) rt_packed_a_floats (p, m) * sizeof (float), error);
  if (ap == NULL)
    return FALSE;
  rt_packed_pack_a (p, a->data, K, m, ap);
  j.ap = ap;
  j.nr = rt_packed_nr (p);
  /* chunks of at least ~4 MFLOP */
  rt_parallel_for (call, j.panels, MAX (1, 4 * 1048576 / MAX (m * K * j.nr * 2, 1)),
                   panels_range, &j);
  return TRUE;
}
