/* Einsum (opset 12+): the equation parsed once in prepare() (aten::einsum:
 * at run time, rt_einsum); any number of inputs, broadcasting ellipsis, repeated labels (diagonals, traces),
 * summed labels.
 *
 * Note [Einsum plan]
 * Every dimension gets a label: letters are 0..51, the ellipsis dims are
 * 52.. right-aligned across inputs as in numpy broadcasting.  An input's
 * stride for a label is the sum of the strides of its dims with that label
 * (so "ii" walks the diagonal) and 0 where a dim of size 1 is broadcast.
 * The general loop walks the output labels and, per output element, the
 * summed labels, multiplying the inputs.  Two float inputs whose labels are
 * each batch (both inputs and the output), M (first input and output), N
 * (second input and output) or K (both inputs, summed), with no diagonal
 * and no broadcast, are a batched matrix product: they are packed to
 * [batch, M, K] and [batch, K, N] and go through sgemm/dgemm. */
#include "runtime/kernels-private.h"
#include "runtime/blas.h"
#include <string.h>

#define N_LETTERS 52
#define MAX_LABELS (N_LETTERS + RT_MAX_RANK)
#define MAX_EIN_INPUTS 16

typedef struct
{
  guint    n_terms;
  /* Per input term: its letters in order, and where "..." sits (-1 none). */
  guint8   letters[MAX_EIN_INPUTS][RT_MAX_RANK];
  guint    n_letters[MAX_EIN_INPUTS];
  int      ellipsis_at[MAX_EIN_INPUTS];
  gboolean explicit_out;
  guint8   out_letters[RT_MAX_RANK];
  guint    n_out_letters;
  int      out_ellipsis_at;   /* explicit output: position of "..." (-1 none) */
} EinsumState;

static int
letter_id (char c)
{
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;   /* after 'A'..'Z': ASCII order for implicit outputs */
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  return -1;
}

static char
letter_char (int id)
{
  return id < 26 ? (char) ('A' + id) : (char) ('a' + id - 26);
}

/* Parses one term ("ab...c") into letters and the ellipsis position. */
static gboolean
parse_term (const GraphNode *node, const char *s, gsize len, guint8 *letters, guint *n,
            int *ellipsis_at, GError **error)
{
  *n = 0;
  *ellipsis_at = -1;
  for (gsize i = 0; i < len; i++)
    {
      if (s[i] == '.')
        {
          if (*ellipsis_at >= 0 || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.')
            {
              rt_node_error (node, error, RT_ERROR_INVALID_GRAPH,
                             "equation term '%.*s': '.' only as one '...'", (int) len, s);
              return FALSE;
            }
          *ellipsis_at = (int) *n;
          i += 2;
          continue;
        }
      int id = letter_id (s[i]);
      if (id < 0 || *n >= RT_MAX_RANK)
        {
          rt_node_error (node, error, RT_ERROR_INVALID_GRAPH,
                         "equation term '%.*s': %s", (int) len, s,
                         id < 0 ? "labels must be letters" : "too many labels");
          return FALSE;
        }
      letters[(*n)++] = (guint8) id;
    }
  return TRUE;
}

/* Parses `eq` into st; n_in: the node's input count to check the terms
 * against (G_MAXUINT: no check). */
static gboolean
parse_equation (const GraphNode *node, const char *eq, guint n_in, EinsumState *st, GError **error)
{
  /* Spaces are allowed anywhere. */
  g_autoptr (GString) e = g_string_new (NULL);
  for (const char *p = eq; *p; p++)
    if (*p != ' ')
      g_string_append_c (e, *p);
  const char *arrow = strstr (e->str, "->");
  gsize lhs_len = arrow ? (gsize) (arrow - e->str) : e->len;
  if (n_in != G_MAXUINT && n_in > MAX_EIN_INPUTS)
    {
      rt_node_error (node, error, RT_ERROR_UNSUPPORTED, "more than %d inputs", MAX_EIN_INPUTS);
      return FALSE;
    }
  const char *p = e->str;
  while (TRUE)
    {
      const char *comma = memchr (p, ',', lhs_len - (gsize) (p - e->str));
      gsize len = comma ? (gsize) (comma - p) : lhs_len - (gsize) (p - e->str);
      if (st->n_terms >= MAX_EIN_INPUTS)
        {
          rt_node_error (node, error, RT_ERROR_UNSUPPORTED, "more than %d terms", MAX_EIN_INPUTS);
          return FALSE;
        }
      guint t = st->n_terms++;
      if (!parse_term (node, p, len, st->letters[t], &st->n_letters[t], &st->ellipsis_at[t], error))
        return FALSE;
      if (comma == NULL)
        break;
      p = comma + 1;
    }
  if (n_in != G_MAXUINT && st->n_terms != n_in)
    {
      rt_node_error (node, error, RT_ERROR_INVALID_GRAPH,
                     "equation '%s' has %u input terms for %u inputs", eq, st->n_terms, n_in);
      return FALSE;
    }
  if (arrow)
    {
      st->explicit_out = TRUE;
      const char *rhs = arrow + 2;
      if (!parse_term (node, rhs, strlen (rhs), st->out_letters, &st->n_out_letters,
                       &st->out_ellipsis_at, error))
        return FALSE;
      guint64 seen = 0;
      for (guint i = 0; i < st->n_out_letters; i++)
        {
          guint id = st->out_letters[i];
          gboolean in_input = FALSE;
          for (guint t = 0; t < st->n_terms; t++)
            for (guint k = 0; k < st->n_letters[t]; k++)
              in_input = in_input || st->letters[t][k] == id;
          if ((seen >> id) & 1 || !in_input)
            {
              rt_node_error (node, error, RT_ERROR_INVALID_GRAPH,
                             "output label '%c' %s", letter_char ((int) id),
                             in_input ? "appears twice" : "is not in any input");
              return FALSE;
            }
          seen |= G_GUINT64_CONSTANT (1) << id;
        }
    }
  return TRUE;
}

static gboolean
prepare_einsum (const GraphNode *node, gint64 opset, gpointer *state, GError **error)
{
  (void) opset;
  const char *eq = rt_attr_s (node, "equation", NULL);
  if (eq == NULL)
    {
      rt_node_error (node, error, RT_ERROR_INVALID_GRAPH, "no equation attribute");
      return FALSE;
    }
  g_autofree EinsumState *st = g_new0 (EinsumState, 1);
  if (!parse_equation (node, eq, graph_node_n_inputs (node), st, error))
    return FALSE;
  *state = g_steal_pointer (&st);
  return TRUE;
}

/* Copies a strided view (n dims of sizes/strides, in elements) to
 * contiguous memory. */
static void
gather (const void *src, gsize es, guint n, const gint64 *sizes, const gint64 *strides, void *dst)
{
  gint64 total = rt_shape_numel (n, sizes), idx[MAX_LABELS] = { 0 }, off = 0;
  for (gint64 i = 0; i < total; i++)
    {
      if (es == 4)
        ((guint32 *) dst)[i] = ((const guint32 *) src)[off];
      else if (es == 8)
        ((guint64 *) dst)[i] = ((const guint64 *) src)[off];
      else
        memcpy ((char *) dst + i * (gint64) es, (const char *) src + off * (gint64) es, es);
      for (int d = (int) n - 1; d >= 0; d--)
        {
          off += strides[d];
          if (++idx[d] < sizes[d])
            break;
          off -= strides[d] * sizes[d];
          idx[d] = 0;
        }
    }
}

/* The general loop (Note [Einsum plan]): `ostr`/`rstr` are per input the
 * strides for the output / summed labels. */
#define GEN_EINSUM(E, T, ACC)                                                               \
  static void einsum_##E (guint n_in, const RtTensor *const *in, guint n_out,             \
                          const gint64 *osz, gint64 ostr[][MAX_LABELS], guint n_red,     \
                          const gint64 *rsz, gint64 rstr[][MAX_LABELS], T *out)          \
  {                                                                                       \
    gint64 total = rt_shape_numel (n_out, osz), red = rt_shape_numel (n_red, rsz);        \
    gint64 oidx[MAX_LABELS] = { 0 }, base[MAX_EIN_INPUTS] = { 0 };                        \
    for (gint64 o = 0; o < total; o++)                                                    \
      {                                                                                   \
        ACC acc = 0;                                                                      \
        gint64 ridx[MAX_LABELS] = { 0 }, off[MAX_EIN_INPUTS];                             \
        memcpy (off, base, sizeof off);                                                   \
        for (gint64 r = 0; r < red; r++)                                                  \
          {                                                                               \
            ACC prod = 1;                                                                 \
            for (guint i = 0; i < n_in; i++)                                              \
              prod *= (ACC) ((const T *) in[i]->data)[off[i]];                            \
            acc += prod;                                                                  \
            for (int d = (int) n_red - 1; d >= 0; d--)                                    \
              {                                                                           \
                for (guint i = 0; i < n_in; i++)                                          \
                  off[i] += rstr[i][d];                                                   \
                if (++ridx[d] < rsz[d])                                                   \
                  break;                                                                  \
                for (guint i = 0; i < n_in; i++)                                          \
                  off[i] -= rstr[i][d] * rsz[d];                                          \
                ridx[d] = 0;                                                              \
              }                                                                           \
          }                                                                               \
        out[o] = (T) acc;                                                                 \
        for (int d = (int) n_out - 1; d >= 0; d--)                                        \
          {                                                                               \
            for (guint i = 0; i < n_in; i++)                                              \
              base[i] += ostr[i][d];                                                      \
            if (++oidx[d] < osz[d])                                                       \
              break;                                                                      \
            for (guint i = 0; i < n_in; i++)                                              \
              base[i] -= ostr[i][d] * osz[d];                                             \
            oidx[d] = 0;                                                                  \
          }                                                                               \
      }                                                                                   \
  }
#define GEN_EINSUM_F(E, T) GEN_EINSUM (E, T, double)
#define GEN_EINSUM_I(E, T) GEN_EINSUM (E, T, T)
RT_FOREACH_FLOAT (GEN_EINSUM_F)
RT_FOREACH_INT (GEN_EINSUM_I)

typedef struct
{
  guint  n_labels;                     /* labels in use, in first-seen order */
  int    label[MAX_LABELS];            /* index → label id */
  gint64 size[MAX_LABELS];             /* by label id */
  /* by input, by label id: stride sum, count of dims carrying it */
  gint64 stride[MAX_EIN_INPUTS][MAX_LABELS];
  guint  count[MAX_EIN_INPUTS][MAX_LABELS];
  gboolean broadcast;                  /* some dim of size 1 was broadcast */
  int    out[RT_MAX_RANK];             /* output label ids */
  guint  n_out;
} EinsumLabels;

/* The label id of input t's dim d (ellipsis dims right-aligned to ell_rank). */
static int
dim_label (const EinsumState *st, guint t, guint d, guint ell, guint ell_rank)
{
  int at = st->ellipsis_at[t];
  if (at < 0 || d < (guint) at)
    return st->letters[t][d];
  if (d < (guint) at + ell)
    return N_LETTERS + (int) (ell_rank - ell + (d - (guint) at));
  return st->letters[t][d - ell];
}

/* Resolves labels against the actual input shapes. */
static gboolean
resolve_labels (RtCall *call, const EinsumState *st, EinsumLabels *L, GError **error)
{
  memset (L, 0, sizeof *L);
  for (guint l = 0; l < MAX_LABELS; l++)
    L->size[l] = -1;
  guint ell_rank = 0;
  guint ell[MAX_EIN_INPUTS];
  for (guint t = 0; t < st->n_terms; t++)
    {
      const RtTensor *x = call->inputs[t];
      if (x == NULL || x->dtype != call->inputs[0]->dtype)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "inputs must be present and of one type");
          return FALSE;
        }
      if (st->ellipsis_at[t] < 0 ? x->rank != st->n_letters[t] : x->rank < st->n_letters[t])
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "input %u has rank %u for %u labels%s", t,
                         x->rank, st->n_letters[t], st->ellipsis_at[t] < 0 ? "" : " and '...'");
          return FALSE;
        }
      ell[t] = x->rank - st->n_letters[t];
      ell_rank = MAX (ell_rank, ell[t]);
    }
  /* Sizes: equal, or 1 (broadcast). */
  for (guint t = 0; t < st->n_terms; t++)
    {
      const RtTensor *x = call->inputs[t];
      for (guint d = 0; d < x->rank; d++)
        {
          int id = dim_label (st, t, d, ell[t], ell_rank);
          gint64 n = x->dims[d];
          if (L->size[id] < 0)
            {
              L->size[id] = n;
              L->label[L->n_labels++] = id;
            }
          else if (L->size[id] != n && n != 1 && L->size[id] != 1)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE,
                             "label '%c' has sizes %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT,
                             id < N_LETTERS ? letter_char (id) : '.', L->size[id], n);
              return FALSE;
            }
          else if (L->size[id] == 1)
            L->size[id] = n;
        }
    }
  /* Strides; a broadcast dim (size 1 under a larger label) does not move. */
  for (guint t = 0; t < st->n_terms; t++)
    {
      const RtTensor *x = call->inputs[t];
      gint64 cs[RT_MAX_RANK];
      rt_contiguous_strides (x->rank, x->dims, cs);
      for (guint d = 0; d < x->rank; d++)
        {
          int id = dim_label (st, t, d, ell[t], ell_rank);
          if (x->dims[d] != L->size[id])
            {
              L->broadcast = TRUE;
              continue;
            }
          L->stride[t][id] += cs[d];
          L->count[t][id]++;
        }
    }
  /* Output labels. */
  if (st->explicit_out)
    {
      for (guint i = 0; i <= st->n_out_letters; i++)
        {
          if ((int) i == st->out_ellipsis_at)
            for (guint j = 0; j < ell_rank; j++)
              L->out[L->n_out++] = N_LETTERS + (int) j;
          if (i < st->n_out_letters)
            L->out[L->n_out++] = st->out_letters[i];
        }
    }
  else
    {
      /* numpy's implicit mode: ellipsis dims, then the letters that appear
       * once over all terms, in ASCII order. */
      for (guint j = 0; j < ell_rank; j++)
        L->out[L->n_out++] = N_LETTERS + (int) j;
      for (int id = 0; id < N_LETTERS; id++)
        {
          guint times = 0;
          for (guint t = 0; t < st->n_terms; t++)
            for (guint k = 0; k < st->n_letters[t]; k++)
              times += st->letters[t][k] == id;
          if (times == 1)
            L->out[L->n_out++] = id;
        }
    }
  if (L->n_out > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "output rank above %d", RT_MAX_RANK);
      return FALSE;
    }
  return TRUE;
}

static gboolean
in_output (const EinsumLabels *L, int id)
{
  for (guint i = 0; i < L->n_out; i++)
    if (L->out[i] == id)
      return TRUE;
  return FALSE;
}

/* The batched-matmul form (Note [Einsum plan]): *done says whether it
 * applied and ran; FALSE only on error. */
static gboolean
try_gemm (RtCall *call, const EinsumLabels *L, RtTensor *o, gboolean *done, GError **error)
{
  *done = FALSE;
  if (call->n_inputs != 2)
    return TRUE;
  const RtTensor *a = call->inputs[0], *b = call->inputs[1];
  if (L->broadcast || (a->dtype != GRAPH_DTYPE_FLOAT && a->dtype != GRAPH_DTYPE_DOUBLE))
    return TRUE;
  int bat[MAX_LABELS], m[MAX_LABELS], n[MAX_LABELS], k[MAX_LABELS];
  guint nb = 0, nm = 0, nn = 0, nk = 0;
  gint64 B = 1, M = 1, N = 1, K = 1;
  for (guint i = 0; i < L->n_labels; i++)
    {
      int id = L->label[i];
      guint ca = L->count[0][id], cb = L->count[1][id];
      gboolean out = in_output (L, id);
      if (ca > 1 || cb > 1)
        return TRUE;
      if (ca && cb && out)
        bat[nb++] = id, B *= L->size[id];
      else if (ca && out)
        m[nm++] = id, M *= L->size[id];
      else if (cb && out)
        n[nn++] = id, N *= L->size[id];
      else if (ca && cb)
        k[nk++] = id, K *= L->size[id];
      else
        return TRUE;
    }
  if (B * M * N == 0 || K == 0 || M > G_MAXINT || N > G_MAXINT || K > G_MAXINT)
    return TRUE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 sz[MAX_LABELS], sa[MAX_LABELS], sb[MAX_LABELS];
  void *pa = rt_call_scratch_n (call, 0, (gsize) (B * M * K) * es, error);
  void *pb = pa ? rt_call_scratch_n (call, 1, (gsize) (B * K * N) * es, error) : NULL;
  void *pc = pb ? rt_call_scratch_n (call, 2, (gsize) (B * M * N) * es, error) : NULL;
  if (pc == NULL)
    return FALSE;
  guint r = 0;
  for (guint i = 0; i < nb; i++, r++)
    sz[r] = L->size[bat[i]], sa[r] = L->stride[0][bat[i]], sb[r] = L->stride[1][bat[i]];
  guint rb = r;
  for (guint i = 0; i < nm; i++, r++)
    sz[r] = L->size[m[i]], sa[r] = L->stride[0][m[i]];
  for (guint i = 0; i < nk; i++, r++)
    sz[r] = L->size[k[i]], sa[r] = L->stride[0][k[i]];
  gather (a->data, es, r, sz, sa, pa);
  r = rb;
  for (guint i = 0; i < nk; i++, r++)
    sz[r] = L->size[k[i]], sb[r] = L->stride[1][k[i]];
  for (guint i = 0; i < nn; i++, r++)
    sz[r] = L->size[n[i]], sb[r] = L->stride[1][n[i]];
  gather (b->data, es, r, sz, sb, pb);
  for (gint64 i = 0; i < B; i++)
    {
      if (a->dtype == GRAPH_DTYPE_FLOAT)
        rt_blas.sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) M, (int) N, (int) K, 1.0f,
                     (const float *) pa + i * M * K, (int) K, (const float *) pb + i * K * N,
                     (int) N, 0.0f, (float *) pc + i * M * N, (int) N);
      else
        rt_blas.dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) M, (int) N, (int) K, 1.0,
                     (const double *) pa + i * M * K, (int) K, (const double *) pb + i * K * N,
                     (int) N, 0.0, (double *) pc + i * M * N, (int) N);
    }
  /* pc is [batch labels, M labels, N labels]: its stride per label, read
   * in output order. */
  gint64 cstride[MAX_LABELS] = { 0 }, s = 1;
  for (int i = (int) nn - 1; i >= 0; i--)
    cstride[n[i]] = s, s *= L->size[n[i]];
  for (int i = (int) nm - 1; i >= 0; i--)
    cstride[m[i]] = s, s *= L->size[m[i]];
  for (int i = (int) nb - 1; i >= 0; i--)
    cstride[bat[i]] = s, s *= L->size[bat[i]];
  gint64 osz[RT_MAX_RANK], ost[RT_MAX_RANK];
  for (guint i = 0; i < L->n_out; i++)
    osz[i] = L->size[L->out[i]], ost[i] = cstride[L->out[i]];
  gather (pc, es, L->n_out, osz, ost, o->data);
  *done = TRUE;
  return TRUE;
}

static gboolean run_einsum (RtCall *call, const EinsumState *st, GError **error);

static gboolean
k_einsum (RtCall *call, GError **error)
{
  return run_einsum (call, call->state, error);
}

gboolean
rt_einsum (RtCall *call, const char *equation, guint first, GError **error)
{
  g_autofree EinsumState *st = g_new0 (EinsumState, 1);
  if (!parse_equation (call->node, equation, G_MAXUINT, st, error))
    return FALSE;
  if (call->n_inputs < first + st->n_terms)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "equation '%s' has %u terms for %u tensors",
                     equation, st->n_terms, call->n_inputs - MIN (first, call->n_inputs));
      return FALSE;
    }
  for (guint t = 0; t < st->n_terms; t++)
    if (call->inputs[first + t] == NULL || call->inputs[first + t]->kind != RT_KIND_TENSOR)
      {
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "operand %u is missing", t);
        return FALSE;
      }
  RtCall sub = *call;
  sub.inputs = call->inputs + first;
  sub.n_inputs = st->n_terms;
  return run_einsum (&sub, st, error);
}

static gboolean
run_einsum (RtCall *call, const EinsumState *st, GError **error)
{
  g_autofree EinsumLabels *L = g_new (EinsumLabels, 1);
  if (!resolve_labels (call, st, L, error))
    return FALSE;
  gint64 odims[RT_MAX_RANK];
  for (guint i = 0; i < L->n_out; i++)
    odims[i] = L->size[L->out[i]];
  GraphDType dt = call->inputs[0]->dtype;
  RtTensor *o = rt_call_output (call, 0, dt, L->n_out, odims, error);
  if (o == NULL)
    return FALSE;
  gboolean done;
  if (!try_gemm (call, L, o, &done, error))
    return FALSE;
  if (done)
    return TRUE;
  typedef gint64 LabelStrides[MAX_LABELS];
  g_autofree LabelStrides *ostr = g_new0 (LabelStrides, MAX_EIN_INPUTS);
  g_autofree LabelStrides *rstr = g_new0 (LabelStrides, MAX_EIN_INPUTS);
  gint64 rsz[MAX_LABELS];
  guint n_red = 0;
  for (guint k = 0; k < L->n_labels; k++)
    {
      int id = L->label[k];
      if (in_output (L, id))
        continue;
      rsz[n_red] = L->size[id];
      for (guint t = 0; t < call->n_inputs; t++)
        rstr[t][n_red] = L->stride[t][id];
      n_red++;
    }
  for (guint i = 0; i < L->n_out; i++)
    for (guint t = 0; t < call->n_inputs; t++)
      ostr[t][i] = L->stride[t][L->out[i]];
  switch (dt)
    {
#define CASE(E, T)                                                                      \
    case GRAPH_DTYPE_##E:                                                               \
      einsum_##E (call->n_inputs, call->inputs, L->n_out, odims, ostr, n_red, rsz, rstr,  \
                  o->data);                                                             \
      break;
      RT_FOREACH_NUMERIC (CASE)
#undef CASE
    default:
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "element type %s",
                     rt_dtype_name (dt));
      return FALSE;
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("Einsum", 12), RT_IN (1, RT_VARIADIC), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_einsum, .prepare = prepare_einsum },
};

RT_KERNEL_TABLE (rt_kernels_einsum, defs);
