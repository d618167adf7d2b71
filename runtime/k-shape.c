/* Shape and data-movement kernels: Reshape, Flatten, Squeeze, Unsqueeze,
 * Transpose, Concat, Split, Slice, Gather, GatherElements, ScatterElements,
 * Expand, Tile, Pad, Shape, Size, ConstantOfShape, Range, NonZero, OneHot,
 * Trilu, DepthToSpace, SpaceToDepth, EyeLike.  Element types do not matter
 * here: data moves by element size. */
#include "runtime/kernel.h"
#include "runtime/kernels-private.h"
#include <math.h>
#include <string.h>

/* Copies `out_dims` elements from src (element strides `ss`, possibly 0 or
 * negative, starting at `src`) to a contiguous dst. */
static void
copy_strided (void *dst, const void *src, guint rank, const gint64 *out_dims,
              const gint64 *ss, gsize es)
{
  gint64 n = rt_shape_numel (rank, out_dims);
  if (n == 0)
    return;
  if (rank == 0)
    {
      memcpy (dst, src, es);
      return;
    }
  gint64 idx[RT_MAX_RANK] = { 0 };
  gint64 inner = out_dims[rank - 1], is = ss[rank - 1];
  gint64 off = 0;
  char *d = dst;
  const char *s = src;
  for (gint64 k = 0; k < n; k += inner)
    {
      if (is == 1)
        memcpy (d, s + off * (gint64) es, (gsize) inner * es);
      else if (es == 4)
        for (gint64 i = 0; i < inner; i++)
          ((guint32 *) d)[i] = *(const guint32 *) (s + (off + i * is) * 4);
      else if (es == 8)
        for (gint64 i = 0; i < inner; i++)
          ((guint64 *) d)[i] = *(const guint64 *) (s + (off + i * is) * 8);
      else
        for (gint64 i = 0; i < inner; i++)
          memcpy (d + i * (gint64) es, s + (off + i * is) * (gint64) es, es);
      d += inner * (gint64) es;
      for (gint64 j = (gint64) rank - 2; j >= 0; j--)
        {
          idx[j]++;
          off += ss[j];
          if (idx[j] < out_dims[j])
            break;
          off -= ss[j] * out_dims[j];
          idx[j] = 0;
        }
    }
}

static gboolean
emit_copy (RtCall *call, const RtTensor *a, guint rank, const gint64 *dims, GError **error)
{
  if (rt_shape_numel (rank, dims) != a->numel)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "cannot reshape %" G_GINT64_FORMAT
                     " elements to %" G_GINT64_FORMAT, a->numel, rt_shape_numel (rank, dims));
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  memcpy (o->data, a->data, (gsize) a->numel * rt_dtype_size (a->dtype));
  return TRUE;
}

/* An int64 list from an input tensor (axes, shape, pads ...). */
static gboolean
input_ints (RtCall *call, guint i, gint64 *out, guint max, guint *n, GError **error)
{
  const RtTensor *t = i < call->n_inputs ? call->inputs[i] : NULL;
  if (t == NULL)
    {
      *n = 0;
      return TRUE;
    }
  if (!graph_dtype_is_integer (t->dtype) || t->rank > 1 || t->numel > max)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "input %u must be an integer list of at most %u entries", i, max);
      return FALSE;
    }
  for (gint64 k = 0; k < t->numel; k++)
    out[k] = rt_get_i64 (t, k);
  *n = (guint) t->numel;
  return TRUE;
}

static gboolean
attr_ints (RtCall *call, const char *name, gint64 *out, guint max, guint *n, GError **error)
{
  gsize len;
  const gint64 *v;
  *n = 0;
  if (!rt_attr_ints (call->node, name, &len, &v))
    return TRUE;
  if (len > max)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "attribute '%s' has %zu entries", name, len);
      return FALSE;
    }
  if (len > 0)   /* an empty ints attribute may have no array */
    memcpy (out, v, len * sizeof (gint64));
  *n = (guint) len;
  return TRUE;
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze, Transpose (and Expand) ---------- */

int
rt_shape_op_list_input (const RtCall *call, const char **attr)
{
  const char *op = graph_node_op_type (call->node);
  *attr = NULL;
  if (strcmp (op, "Reshape") == 0)
    {
      if (call->opset >= 5)
        return 1;
      *attr = "shape";
      return -1;
    }
  if (strcmp (op, "Squeeze") == 0 || strcmp (op, "Unsqueeze") == 0)
    {
      if (call->opset >= 13 && strcmp (graph_node_domain (call->node), "onnx") == 0)
        return 1;
      *attr = "axes";
      return -1;
    }
  if (strcmp (op, "Transpose") == 0)
    {
      *attr = "perm";
      return -1;
    }
  return strcmp (op, "Expand") == 0 ? 1 : 0;
}

/* The list argument of a shape op, from its attribute or input. */
static gboolean
shape_op_list (RtCall *call, gint64 *list, guint *n, GError **error)
{
  const char *attr;
  int input = rt_shape_op_list_input (call, &attr);
  *n = 0;
  if (input < 0)
    return attr_ints (call, attr, list, RT_MAX_RANK, n, error);
  return input == 0 || input_ints (call, (guint) input, list, RT_MAX_RANK, n, error);
}

static gboolean
reshape_dims (const RtCall *call, const RtTensor *a, const gint64 *list, guint n, gint64 *shape,
              GError **error)
{
  gboolean allowzero = rt_attr_i (call->node, "allowzero", 0) != 0;
  int infer = -1;
  gint64 known = 1;
  for (guint i = 0; i < n; i++)
    {
      shape[i] = list[i];
      if (shape[i] == 0 && !allowzero)
        {
          if (i >= a->rank)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "shape entry %u is 0 but the input has rank %u", i, a->rank);
              return FALSE;
            }
          shape[i] = a->dims[i];
        }
      if (shape[i] == -1)
        {
          if (infer >= 0)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "more than one -1 in the shape");
              return FALSE;
            }
          infer = (int) i;
        }
      else if (shape[i] < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "negative shape entry %" G_GINT64_FORMAT, shape[i]);
          return FALSE;
        }
      else if (!g_uint64_checked_mul ((guint64 *) &known, (guint64) known, (guint64) shape[i])
               || known < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "the shape's element count overflows");
          return FALSE;
        }
    }
  if (infer >= 0)
    {
      if (known == 0 || a->numel % known != 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "cannot infer the -1 entry for %" G_GINT64_FORMAT
                         " elements", a->numel);
          return FALSE;
        }
      shape[infer] = a->numel / known;
    }
  return TRUE;
}

static gboolean
squeeze_dims (const RtCall *call, const RtTensor *a, const gint64 *axes, guint n, guint *r,
              gint64 *dims, GError **error)
{
  gboolean drop[RT_MAX_RANK] = { 0 };
  for (guint i = 0; i < n; i++)
    {
      guint ax;
      if (!rt_axis (call, axes[i], a->rank, &ax, error))
        return FALSE;
      if (a->dims[ax] != 1)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "cannot squeeze axis %u of size %" G_GINT64_FORMAT,
                         ax, a->dims[ax]);
          return FALSE;
        }
      drop[ax] = TRUE;
    }
  *r = 0;
  for (guint i = 0; i < a->rank; i++)
    if (!(n ? drop[i] : a->dims[i] == 1))
      dims[(*r)++] = a->dims[i];
  return TRUE;
}

static gboolean
unsqueeze_dims (const RtCall *call, const RtTensor *a, const gint64 *axes, guint n, guint *r,
                gint64 *dims, GError **error)
{
  gboolean ins[RT_MAX_RANK] = { 0 };
  *r = a->rank + n;
  if (*r > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "rank %u is too large", *r);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      guint ax;
      if (!rt_axis (call, axes[i], *r, &ax, error))
        return FALSE;
      if (ins[ax])
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "axis %u repeated", ax);
          return FALSE;
        }
      ins[ax] = TRUE;
    }
  for (guint i = 0, k = 0; i < *r; i++)
    dims[i] = ins[i] ? 1 : a->dims[k++];
  return TRUE;
}

static gboolean
transpose_dims (const RtCall *call, const RtTensor *a, const gint64 *list, guint n, gint64 *dims,
                gint64 *ss, GError **error)
{
  gint64 perm[RT_MAX_RANK], st[RT_MAX_RANK];
  gboolean seen[RT_MAX_RANK] = { 0 };
  if (n == 0)
    for (guint i = 0; i < a->rank; i++)
      perm[i] = a->rank - 1 - i;
  else if (n != a->rank)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "perm has %u entries for rank %u", n, a->rank);
      return FALSE;
    }
  else
    memcpy (perm, list, n * sizeof (gint64));
  rt_contiguous_strides (a->rank, a->dims, st);
  for (guint i = 0; i < a->rank; i++)
    {
      if (perm[i] < 0 || perm[i] >= a->rank || seen[perm[i]])
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "perm is not a permutation");
          return FALSE;
        }
      seen[perm[i]] = TRUE;
      dims[i] = a->dims[perm[i]];
      ss[i] = st[perm[i]];
    }
  return TRUE;
}

static gboolean
view_dims (const RtCall *call, const RtTensor *a, const gint64 *list, guint n, guint *rank,
           gint64 *dims, GError **error)
{
  const char *op = graph_node_op_type (call->node);
  if (strcmp (op, "Reshape") == 0)
    {
      *rank = n;
      return reshape_dims (call, a, list, n, dims, error);
    }
  if (strcmp (op, "Flatten") == 0)
    {
      gint64 axis = rt_attr_i (call->node, "axis", 1);
      if (axis < 0)
        axis += a->rank;
      if (axis < 0 || axis > (gint64) a->rank)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "axis out of range");
          return FALSE;
        }
      *rank = 2;
      dims[0] = rt_shape_numel ((guint) axis, a->dims);
      dims[1] = rt_shape_numel (a->rank - (guint) axis, a->dims + axis);
      return TRUE;
    }
  if (strcmp (op, "Squeeze") == 0)
    return squeeze_dims (call, a, list, n, rank, dims, error);
  return unsqueeze_dims (call, a, list, n, rank, dims, error);
}

gboolean
rt_shape_op_dims (const RtCall *call, const RtTensor *a, const gint64 *list, guint n,
                  guint *rank, gint64 *dims, gint64 *strides, gboolean *same_bytes, GError **error)
{
  const char *op = graph_node_op_type (call->node);
  *same_bytes = strcmp (op, "Reshape") == 0 || strcmp (op, "Flatten") == 0
                || strcmp (op, "Squeeze") == 0 || strcmp (op, "Unsqueeze") == 0;
  if (*same_bytes)
    {
      if (!view_dims (call, a, list, n, rank, dims, error))
        return FALSE;
      if (rt_shape_numel (*rank, dims) != a->numel)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "cannot reshape %" G_GINT64_FORMAT
                         " elements to %" G_GINT64_FORMAT, a->numel, rt_shape_numel (*rank, dims));
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (op, "Transpose") == 0)
    {
      *rank = a->rank;
      return transpose_dims (call, a, list, n, dims, strides, error);
    }
  if (strcmp (op, "Expand") == 0)
    {
      if (!rt_broadcast_shape (call, a->rank, a->dims, n, list, rank, dims, error))
        return FALSE;
      rt_broadcast_strides (a, *rank, dims, strides);
      return TRUE;
    }
  rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "not a shape op");
  return FALSE;
}

/* copy_strided split over the session's threads along the first dimension
 * above 1 (a copy: the bits do not depend on the split). */
typedef struct
{
  char          *dst;
  const char    *src;
  guint          rank;
  const gint64  *dims, *ss;
  gsize          es;
} CopyJob;

static void
copy_range (gint64 begin, gint64 end, gpointer data)
{
  const CopyJob *j = data;
  gint64 d[RT_MAX_RANK];
  memcpy (d, j->dims, j->rank * sizeof (gint64));
  d[0] = end - begin;
  gint64 row = rt_shape_numel (j->rank - 1, j->dims + 1);
  copy_strided (j->dst + begin * row * (gint64) j->es, j->src + begin * j->ss[0] * (gint64) j->es,
                j->rank, d, j->ss, j->es);
}

static void
copy_strided_parallel (RtCall *call, void *dst, const void *src, guint rank, const gint64 *dims,
                       const gint64 *ss, gsize es)
{
  guint lead = 0;
  while (lead + 1 < rank && dims[lead] == 1)
    lead++;   /* dims of 1 move nothing */
  gint64 n = rt_shape_numel (rank, dims);
  if (rank - lead < 2 || n < 65536)
    {
      copy_strided (dst, src, rank, dims, ss, es);
      return;
    }
  CopyJob j = { dst, src, rank - lead, dims + lead, ss + lead, es };
  rt_parallel_for (call, dims[lead], MAX (1, 32768 / MAX (n / dims[lead], 1)), copy_range, &j);
}

/* Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand. */
static gboolean
k_shape_op (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 list[RT_MAX_RANK], dims[RT_MAX_RANK], ss[RT_MAX_RANK];
  guint n, rank;
  gboolean same_bytes;
  if (!shape_op_list (call, list, &n, error)
      || !rt_shape_op_dims (call, a, list, n, &rank, dims, ss, &same_bytes, error))
    return FALSE;
  if (same_bytes)
    return emit_copy (call, a, rank, dims, error);
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  copy_strided_parallel (call, o->data, a->data, rank, dims, ss, rt_dtype_size (a->dtype));
  return TRUE;
}

static gboolean
k_identity_shape (RtCall *call, GError **error)
{
  return emit_copy (call, call->inputs[0], call->inputs[0]->rank, call->inputs[0]->dims, error);
}

/* ---- Concat, Split ----------------------------------------------------------- */

/* Concat's output is its inputs' pieces in order: for each outer index k,
 * input i's len[i] bytes at k * row + off[i].  Blocks of the output's bytes
 * are copied in parallel (a block may span pieces; every byte is one
 * memcpy's, so any split gives the same result).  SqueezeNet 1.1 at 2
 * threads: -7% (its eight Concats were 8% of the run, on one thread). */
#define CONCAT_BLOCK ((gint64) 64 << 10)

typedef struct
{
  char         *out;
  const char  **src;
  const gint64 *off, *len;   /* bytes */
  gint64        row, total;  /* bytes of one outer index; of the output */
  guint         n;
} ConcatJob;

static void
concat_range (gint64 blk0, gint64 blk1, gpointer data)
{
  const ConcatJob *j = data;
  gint64 b0 = blk0 * CONCAT_BLOCK, b1 = MIN (blk1 * CONCAT_BLOCK, j->total);
  for (gint64 k = b0 / j->row; k * j->row < b1; k++)
    for (guint i = 0; i < j->n; i++)
      {
        gint64 s = k * j->row + j->off[i], lo = MAX (s, b0), hi = MIN (s + j->len[i], b1);
        if (lo < hi)
          memcpy (j->out + lo, j->src[i] + k * j->len[i] + (lo - s), (gsize) (hi - lo));
      }
}

static gboolean
k_concat (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", call->opset < 4 ? 1 : 0), a->rank, &ax, error))
    return FALSE;
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, a->rank * sizeof (gint64));
  dims[ax] = 0;
  for (guint i = 0; i < call->n_inputs; i++)
    {
      const RtTensor *b = call->inputs[i];
      if (b == NULL || b->dtype != a->dtype || b->rank != a->rank)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "input %u does not match input 0's type and rank", i);
          return FALSE;
        }
      for (guint k = 0; k < a->rank; k++)
        if (k != ax && b->dims[k] != a->dims[k])
          {
            rt_call_error (call, error, RT_ERROR_SHAPE, "input %u differs in dimension %u", i, k);
            return FALSE;
          }
      dims[ax] += b->dims[ax];
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 outer = rt_shape_numel (ax, dims), inner = rt_shape_inner (a->rank, dims, ax);
  ConcatJob j = { .out = o->data, .row = dims[ax] * inner * (gint64) es, .n = call->n_inputs };
  j.total = outer * j.row;
  if (j.total == 0)
    return TRUE;
  g_autofree const char **src = g_new (const char *, j.n);
  g_autofree gint64 *off = g_new (gint64, 2 * (gsize) j.n);
  gint64 *len = off + j.n;
  for (guint i = 0; i < j.n; i++)
    {
      src[i] = call->inputs[i]->data;
      len[i] = call->inputs[i]->dims[ax] * inner * (gint64) es;
      off[i] = i ? off[i - 1] + len[i - 1] : 0;
    }
  j.src = src;
  j.off = off;
  j.len = len;
  /* Every input already in its place (runtime/concat-views.c): nothing to copy. */
  gboolean in_place = outer == 1;
  for (guint i = 0; in_place && i < j.n; i++)
    in_place = src[i] == j.out + off[i];
  if (in_place)
    return TRUE;
  /* at least 4 blocks (256 KiB) a thread: smaller copies stay on one */
  rt_parallel_for (call, (j.total + CONCAT_BLOCK - 1) / CONCAT_BLOCK, 4, concat_range, &j);
  return TRUE;
}

gboolean
rt_split_sizes (const RtCall *call, const RtTensor *a, gint64 *split, guint n, guint *axis,
                GError **error)
{
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", 0), a->rank, &ax, error))
    return FALSE;
  *axis = ax;
  gint64 total = a->dims[ax];
  if (n == 0)
    {
      /* Equal parts; the last may be smaller (opset 18). */
      gint64 part = (total + call->n_outputs - 1) / call->n_outputs;
      for (guint i = 0; i < call->n_outputs; i++)
        split[i] = MAX (0, MIN (part, total - part * i));
      n = call->n_outputs;
    }
  gint64 sum = 0;
  gboolean bad = FALSE;
  for (guint i = 0; i < call->n_outputs && !bad; i++)   /* the file's sizes: checked sums */
    bad = split[i] < 0 || __builtin_add_overflow (sum, split[i], &sum);
  if (bad || n != call->n_outputs || sum != total)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "split sizes do not add up to dimension %u (%"
                     G_GINT64_FORMAT ")", ax, total);
      return FALSE;
    }
  return TRUE;
}

static gboolean
k_split (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  g_autofree gint64 *split = g_new0 (gint64, call->n_outputs);
  guint n = 0;
  gboolean from_attr = FALSE;
  if (call->opset < 13)
    {
      gsize len;
      const gint64 *v;
      if ((from_attr = rt_attr_ints (call->node, "split", &len, &v)))
        {
          n = (guint) len;
          memcpy (split, v, MIN (len, call->n_outputs) * sizeof (gint64));
        }
    }
  if (!from_attr && call->n_inputs > 1 && call->inputs[1])
    {
      n = (guint) call->inputs[1]->numel;
      for (guint i = 0; i < MIN (n, call->n_outputs); i++)
        split[i] = rt_get_i64 (call->inputs[1], i);
    }
  guint ax;
  if (!rt_split_sizes (call, a, split, n, &ax, error))
    return FALSE;
  gint64 total = a->dims[ax];
  gsize es = rt_dtype_size (a->dtype);
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_inner (a->rank, a->dims, ax);
  gint64 off = 0;
  for (guint i = 0; i < call->n_outputs; i++)
    {
      gint64 dims[RT_MAX_RANK];
      memcpy (dims, a->dims, a->rank * sizeof (gint64));
      dims[ax] = split[i];
      RtTensor *o = rt_call_output (call, i, a->dtype, a->rank, dims, error);
      if (o == NULL)
        return FALSE;
      gint64 chunk = split[i] * inner;
      for (gint64 k = 0; k < outer; k++)
        memcpy ((char *) o->data + k * chunk * es,
                (const char *) a->data + (k * total * inner + off) * es, (gsize) chunk * es);
      off += chunk;
    }
  return TRUE;
}

/* ---- Slice ------------------------------------------------------------------ */

static gboolean
k_slice (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 starts[RT_MAX_RANK], ends[RT_MAX_RANK], axes[RT_MAX_RANK], steps[RT_MAX_RANK];
  guint ns, ne, na, nst;
  if (call->opset < 10)
    {
      if (!attr_ints (call, "starts", starts, RT_MAX_RANK, &ns, error)
          || !attr_ints (call, "ends", ends, RT_MAX_RANK, &ne, error)
          || !attr_ints (call, "axes", axes, RT_MAX_RANK, &na, error))
        return FALSE;
      nst = 0;
    }
  else if (!input_ints (call, 1, starts, RT_MAX_RANK, &ns, error)
           || !input_ints (call, 2, ends, RT_MAX_RANK, &ne, error)
           || !input_ints (call, 3, axes, RT_MAX_RANK, &na, error)
           || !input_ints (call, 4, steps, RT_MAX_RANK, &nst, error))
    return FALSE;
  if (ns != ne || (na && na != ns) || (nst && nst != ns))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "starts, ends, axes and steps differ in length");
      return FALSE;
    }
  gint64 st[RT_MAX_RANK], dims[RT_MAX_RANK], ss[RT_MAX_RANK], first[RT_MAX_RANK];
  rt_contiguous_strides (a->rank, a->dims, st);
  for (guint i = 0; i < a->rank; i++)
    {
      dims[i] = a->dims[i];
      ss[i] = st[i];
      first[i] = 0;
    }
  for (guint i = 0; i < ns; i++)
    {
      guint ax;
      if (!rt_axis (call, na ? axes[i] : (gint64) i, a->rank, &ax, error))
        return FALSE;
      gint64 step = nst ? steps[i] : 1, d = a->dims[ax];
      if (step == 0)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "slice step 0");
          return FALSE;
        }
      /* A step beyond the dimension takes one element: clamp it so the
       * stride arithmetic below cannot overflow. */
      step = CLAMP (step, -(d + 1), d + 1);
      gint64 s = starts[i], e = ends[i];
      if (s < 0)
        s += d;
      if (e < 0 && e > G_MININT64 / 2)
        e += d;
      gint64 count;
      if (step > 0)
        {
          s = CLAMP (s, 0, d);
          e = CLAMP (e, 0, d);
          count = e > s ? (e - s + step - 1) / step : 0;
        }
      else
        {
          s = CLAMP (s, 0, d - 1);
          e = CLAMP (e, -1, d - 1);
          count = s > e ? (s - e + (-step) - 1) / (-step) : 0;
        }
      dims[ax] = count;
      first[ax] = s;
      ss[ax] = st[ax] * step;
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 off = 0;
  for (guint i = 0; i < a->rank; i++)
    off += first[i] * st[i];
  if (o->numel)
    copy_strided (o->data, (const char *) a->data + off * (gint64) rt_dtype_size (a->dtype),
                  a->rank, dims, ss, rt_dtype_size (a->dtype));
  return TRUE;
}

/* ---- Gather, GatherElements, ScatterElements ---------------------------------- */

static gboolean
index_at (RtCall *call, const RtTensor *idx, gint64 k, gint64 limit, gint64 *out, GError **error)
{
  gint64 v = rt_get_i64 (idx, k);
  if (v < 0)
    v += limit;
  if (v < 0 || v >= limit)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "index %" G_GINT64_FORMAT " is out of range [%"
                     G_GINT64_FORMAT ", %" G_GINT64_FORMAT ")", rt_get_i64 (idx, k), -limit, limit);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
k_gather (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0], *idx = call->inputs[1];
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", 0), a->rank, &ax, error))
    return FALSE;
  guint r = a->rank - 1 + idx->rank;
  if (r > RT_MAX_RANK || !graph_dtype_is_integer (idx->dtype))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad indices");
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  guint k = 0;
  for (guint i = 0; i < ax; i++)
    dims[k++] = a->dims[i];
  for (guint i = 0; i < idx->rank; i++)
    dims[k++] = idx->dims[i];
  for (guint i = ax + 1; i < a->rank; i++)
    dims[k++] = a->dims[i];
  RtTensor *o = rt_call_output (call, 0, a->dtype, r, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_inner (a->rank, a->dims, ax);
  gint64 d = a->dims[ax];
  char *po = o->data;
  for (gint64 i = 0; i < outer; i++)
    for (gint64 j = 0; j < idx->numel; j++)
      {
        gint64 v;
        if (!index_at (call, idx, j, d, &v, error))
          return FALSE;
        memcpy (po, (const char *) a->data + ((i * d + v) * inner) * (gint64) es, (gsize) inner * es);
        po += inner * (gint64) es;
      }
  return TRUE;
}

/* Walks every index of `idx`'s shape; calls back with the flat position in
 * idx and the flat position in data (axis coordinate replaced). */
static gboolean
elements_walk (RtCall *call, const RtTensor *data, const RtTensor *idx, guint ax,
               gboolean (*fn) (gint64 ii, gint64 di, gpointer u), gpointer u, GError **error)
{
  gint64 ds[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (data->rank, data->dims, ds);
  if (idx->rank != data->rank)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "indices and data differ in rank");
      return FALSE;
    }
  /* Off the axis, an index position is also a data position: it must be
   * inside data (ONNX: indices' dims at most data's). */
  for (guint i = 0; i < idx->rank; i++)
    if (i != ax && idx->dims[i] > data->dims[i])
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "indices dim %u is %" G_GINT64_FORMAT
                       ", more than data's %" G_GINT64_FORMAT, i, idx->dims[i], data->dims[i]);
        return FALSE;
      }
  for (gint64 k = 0; k < idx->numel; k++)
    {
      gint64 v;
      if (!index_at (call, idx, k, data->dims[ax], &v, error))
        return FALSE;
      gint64 off = 0;
      for (guint i = 0; i < idx->rank; i++)
        off += (i == ax ? v : c[i]) * ds[i];
      fn (k, off, u);
      rt_index_next (c, idx->dims, idx->rank);
    }
  return TRUE;
}

typedef struct
{
  const char *src;
  char *dst;
  gsize es;
  const char *upd;
  const char *reduction;
  GraphDType dtype;
} WalkCtx;

static gboolean
gather_el (gint64 ii, gint64 di, gpointer u)
{
  WalkCtx *w = u;
  memcpy (w->dst + ii * (gint64) w->es, w->src + di * (gint64) w->es, w->es);
  return TRUE;
}

static gboolean
scatter_el (gint64 ii, gint64 di, gpointer u)
{
  WalkCtx *w = u;
  if (strcmp (w->reduction, "none") == 0)
    {
      memcpy (w->dst + di * (gint64) w->es, w->upd + ii * (gint64) w->es, w->es);
      return TRUE;
    }
  switch (w->dtype)
    {
#define CASE(E, T)                                                          \
    case GRAPH_DTYPE_##E:                                                   \
      {                                                                     \
        T *d = (T *) w->dst + di;                                           \
        T x = ((const T *) w->upd)[ii];                                     \
        if (w->reduction[0] == 'a') *d = *d + x;                            \
        else if (w->reduction[0] == 'm' && w->reduction[1] == 'u') *d = *d * x; \
        else if (w->reduction[1] == 'a') *d = *d > x ? *d : x;              \
        else *d = *d < x ? *d : x;                                          \
        break;                                                              \
      }
      RT_FOREACH_NUMERIC (CASE)
#undef CASE
    default:
      break;
    }
  return TRUE;
}

static gboolean
k_gather_elements (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0], *idx = call->inputs[1];
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", 0), a->rank, &ax, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, a->dtype, idx->rank, idx->dims, error);
  if (o == NULL)
    return FALSE;
  WalkCtx w = { a->data, o->data, rt_dtype_size (a->dtype), NULL, NULL, a->dtype };
  return elements_walk (call, a, idx, ax, gather_el, &w, error);
}

static gboolean
k_scatter_elements (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0], *idx = call->inputs[1], *upd = call->inputs[2];
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", 0), a->rank, &ax, error))
    return FALSE;
  if (upd->dtype != a->dtype || upd->numel != idx->numel)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "updates do not match indices");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  memcpy (o->data, a->data, (gsize) a->numel * rt_dtype_size (a->dtype));
  WalkCtx w = { NULL, o->data, rt_dtype_size (a->dtype), upd->data,
                rt_attr_s (call->node, "reduction", "none"), a->dtype };
  return elements_walk (call, a, idx, ax, scatter_el, &w, error);
}

/* ---- Expand, Tile ------------------------------------------------------------ */

static gboolean
k_tile (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 reps[RT_MAX_RANK];
  guint n;
  if (!input_ints (call, 1, reps, RT_MAX_RANK, &n, error))
    return FALSE;
  if (n != a->rank)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "repeats has %u entries for rank %u", n, a->rank);
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  for (guint i = 0; i < a->rank; i++)
    {
      if (reps[i] < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "negative repeat");
          return FALSE;
        }
      /* An absurd product is left for rt_call_output to refuse (-1). */
      dims[i] = a->dims[i] != 0 && reps[i] > G_MAXINT64 / a->dims[i] ? -1 : a->dims[i] * reps[i];
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 st[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (a->rank, a->dims, st);
  for (gint64 k = 0; k < o->numel; k++)
    {
      gint64 off = 0;
      for (guint i = 0; i < a->rank; i++)
        off += (c[i] % a->dims[i]) * st[i];
      memcpy ((char *) o->data + k * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, a->rank);
    }
  return TRUE;
}

/* ---- Pad --------------------------------------------------------------------- */

static gboolean
k_pad (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 pads[2 * RT_MAX_RANK], axes[RT_MAX_RANK];
  guint np, na = 0;
  double value = 0;
  const char *mode = rt_attr_s (call->node, "mode", "constant");
  if (call->opset < 11)
    {
      if (!attr_ints (call, call->opset < 2 ? "paddings" : "pads", pads, 2 * RT_MAX_RANK, &np, error))
        return FALSE;
      value = rt_attr_f (call->node, "value", 0);
    }
  else
    {
      if (!input_ints (call, 1, pads, 2 * RT_MAX_RANK, &np, error)
          || !input_ints (call, 3, axes, RT_MAX_RANK, &na, error))
        return FALSE;
      if (call->n_inputs > 2 && call->inputs[2] && call->inputs[2]->numel > 0)
        value = rt_get_f64 (call->inputs[2], 0);
    }
  gint64 before[RT_MAX_RANK] = { 0 }, after[RT_MAX_RANK] = { 0 };
  guint nax = na ? na : a->rank;
  if (np != 2 * nax)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "pads has %u entries for %u axes", np, nax);
      return FALSE;
    }
  for (guint i = 0; i < nax; i++)
    {
      guint ax = i;
      if (na && !rt_axis (call, axes[i], a->rank, &ax, error))
        return FALSE;
      before[ax] = pads[i];
      after[ax] = pads[i + nax];
    }
  gint64 dims[RT_MAX_RANK];
  for (guint i = 0; i < a->rank; i++)
    {
      /* pads are the file's: checked sums (a pad of INT64_MAX overflowed) */
      if (__builtin_add_overflow (a->dims[i], before[i], &dims[i])
          || __builtin_add_overflow (dims[i], after[i], &dims[i]) || dims[i] < 0 || (a->dims[i] == 0 && dims[i] > 0 && strcmp (mode, "constant") != 0))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "padding gives a negative or impossible size");
          return FALSE;
        }
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  guint8 fill[16];
  rt_convert (&value, GRAPH_DTYPE_DOUBLE, fill, a->dtype, 1);
  gint64 st[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (a->rank, a->dims, st);
  int m = strcmp (mode, "reflect") == 0 ? 1 : strcmp (mode, "edge") == 0 ? 2 : strcmp (mode, "wrap") == 0 ? 3 : 0;
  for (gint64 k = 0; k < o->numel; k++)
    {
      gint64 off = 0;
      gboolean outside = FALSE;
      for (guint i = 0; i < a->rank; i++)
        {
          gint64 x = c[i] - before[i], d = a->dims[i];
          if (x < 0 || x >= d)
            {
              if (m == 0)
                outside = TRUE;
              else if (m == 2)
                x = x < 0 ? 0 : d - 1;
              else if (m == 3)
                x = ((x % d) + d) % d;
              else
                {
                  gint64 period = 2 * (d - 1);
                  if (period == 0)
                    x = 0;
                  else
                    {
                      x = ((x % period) + period) % period;
                      if (x >= d)
                        x = period - x;
                    }
                }
            }
          off += x * st[i];
        }
      memcpy ((char *) o->data + k * (gint64) es,
              outside ? (const char *) fill : (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, a->rank);
    }
  return TRUE;
}

/* ---- Shape, Size, ConstantOfShape, Range, EyeLike --------------------------- */

static gboolean
k_shape (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 r = a->rank, s = rt_attr_i (call->node, "start", 0), e = rt_attr_i (call->node, "end", r);
  if (s < 0) s += r;
  if (e < 0) e += r;
  s = CLAMP (s, 0, r);
  e = CLAMP (e, 0, r);
  gint64 n = MAX (e - s, 0);
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 1, &n, error);
  if (o == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    ((gint64 *) o->data)[i] = a->dims[s + i];
  return TRUE;
}

static gboolean
k_size (RtCall *call, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  *(gint64 *) o->data = call->inputs[0]->numel;
  return TRUE;
}

static gboolean
k_constant_of_shape (RtCall *call, GError **error)
{
  gint64 shape[RT_MAX_RANK];
  guint n;
  if (!input_ints (call, 0, shape, RT_MAX_RANK, &n, error))
    return FALSE;
  Tensor *v = NULL;
  GraphDType dt = GRAPH_DTYPE_FLOAT;
  if (graph_node_get_t (call->node, "value", &v))
    {
      dt = tensor_dtype (v);
      if (tensor_numel (v) != 1 || rt_dtype_size (dt) == 0 || !tensor_has_data (v))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "value must be a one-element tensor");
          return FALSE;
        }
    }
  RtTensor *o = rt_call_output (call, 0, dt, n, shape, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (dt);
  if (v == NULL)
    memset (o->data, 0, (gsize) o->numel * es);
  else
    for (gint64 i = 0; i < o->numel; i++)
      memcpy ((char *) o->data + i * (gint64) es, tensor_data (v), es);
  return TRUE;
}

static gboolean
k_range (RtCall *call, GError **error)
{
  const RtTensor *s = call->inputs[0], *l = call->inputs[1], *d = call->inputs[2];
  if (s->numel != 1 || l->numel != 1 || d->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "start, limit and delta must be scalars");
      return FALSE;
    }
  double start = rt_get_f64 (s, 0), limit = rt_get_f64 (l, 0), delta = rt_get_f64 (d, 0);
  gboolean integer = graph_dtype_is_integer (s->dtype);
  gint64 st = integer ? rt_get_i64 (s, 0) : 0, li = integer ? rt_get_i64 (l, 0) : 0;
  gint64 de = integer ? rt_get_i64 (d, 0) : 0;
  if (integer ? de == 0 : delta == 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "delta is 0");
      return FALSE;
    }
  /* The element count: exact for integers (start to limit spans up to
   * 2^64 - 1, so in unsigned arithmetic), else ceil((limit - start) /
   * delta) checked before it becomes an integer (an int64 Range from
   * -5e18 to 5.7e18 counted 1.09e19 elements, past int64: the onnx-run
   * campaign; NaN counts nothing). */
  guint64 count;
  if (integer)
    {
      gboolean up = de > 0;
      guint64 span = up ? (li > st ? (guint64) li - (guint64) st : 0) : (st > li ? (guint64) st - (guint64) li : 0);
      guint64 step = up ? (guint64) de : (guint64) -(de + 1) + 1;
      count = span == 0 ? 0 : (span - 1) / step + 1;
    }
  else
    {
      double c = ceil ((limit - start) / delta);
      count = c >= 0x1p63 ? G_MAXUINT64 : c > 0 ? (guint64) c : 0;   /* NaN: 0 */
    }
  if (count > (guint64) G_MAXINT64)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "Range(%g, %g, %g) has more elements than any tensor can hold",
                     start, limit, delta);
      return FALSE;
    }
  gint64 n = (gint64) count;
  RtTensor *o = rt_call_output (call, 0, s->dtype, 1, &n, error);
  if (o == NULL)
    return FALSE;
  if (integer)
    for (gint64 i = 0; i < n; i++)
      {
        /* start + i * delta lies between start and limit: exact in
         * wrapping unsigned arithmetic, then back to int64 */
        gint64 x = (gint64) ((guint64) st + (guint64) i * (guint64) de);
        rt_convert (&x, GRAPH_DTYPE_INT64, (char *) o->data + i * (gint64) rt_dtype_size (s->dtype), s->dtype, 1);
      }
  else
    for (gint64 i = 0; i < n; i++)
      {
        /* As the reference: start + i * delta in the input's precision. */
        if (s->dtype == GRAPH_DTYPE_FLOAT)
          ((float *) o->data)[i] = (float) start + (float) i * (float) delta;
        else
          ((double *) o->data)[i] = start + (double) i * delta;
      }
  return TRUE;
}

static gboolean
k_eye_like (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 dt = rt_attr_i (call->node, "dtype", a->dtype), kd = rt_attr_i (call->node, "k", 0);
  if (a->rank != 2 || !graph_dtype_is_valid ((int) dt) || rt_dtype_size ((GraphDType) dt) == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a 2-D input and a numeric dtype");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, (GraphDType) dt, 2, a->dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (o->dtype);
  memset (o->data, 0, (gsize) o->numel * es);
  double one = 1;
  for (gint64 i = 0; i < a->dims[0]; i++)
    {
      gint64 j = i + kd;
      if (j >= 0 && j < a->dims[1])
        rt_convert (&one, GRAPH_DTYPE_DOUBLE, (char *) o->data + (i * a->dims[1] + j) * (gint64) es, o->dtype, 1);
    }
  return TRUE;
}

/* ---- NonZero, OneHot, Trilu --------------------------------------------------- */

static gboolean
k_nonzero (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 count = 0;
  for (gint64 i = 0; i < a->numel; i++)
    count += rt_get_f64 (a, i) != 0;
  gint64 dims[2] = { a->rank, count };
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 2, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 c[RT_MAX_RANK] = { 0 }, k = 0;
  for (gint64 i = 0; i < a->numel; i++)
    {
      if (rt_get_f64 (a, i) != 0)
        {
          for (guint r = 0; r < a->rank; r++)
            ((gint64 *) o->data)[r * count + k] = c[r];
          k++;
        }
      rt_index_next (c, a->dims, a->rank);
    }
  return TRUE;
}

static gboolean
k_onehot (RtCall *call, GError **error)
{
  const RtTensor *idx = call->inputs[0], *depth = call->inputs[1], *vals = call->inputs[2];
  if (depth->numel != 1 || vals->numel != 2 || idx->rank + 1 > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "depth must be a scalar and values have 2 entries");
      return FALSE;
    }
  /* depth and the indices may be floats: converted totally (NaN, ±Inf and
   * out-of-range values were C casts, undefined) */
  gint64 d = graph_double_to_int64 (rt_get_f64 (depth, 0));
  guint r = idx->rank + 1, ax;
  if (d < 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "depth %g is negative or not a number",
                     rt_get_f64 (depth, 0));
      return FALSE;
    }
  if (!rt_axis (call, rt_attr_i (call->node, "axis", -1), r, &ax, error))
    return FALSE;
  gint64 dims[RT_MAX_RANK];
  for (guint i = 0, k = 0; i < r; i++)
    dims[i] = i == ax ? d : idx->dims[k++];
  RtTensor *o = rt_call_output (call, 0, vals->dtype, r, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (vals->dtype);
  gint64 outer = rt_shape_numel (ax, dims), inner = rt_shape_numel (r - ax - 1, dims + ax + 1);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 j = 0; j < d; j++)
      for (gint64 k = 0; k < inner; k++)
        {
          gint64 v = graph_double_to_int64 (rt_get_f64 (idx, i * inner + k));
          if (v < 0)
            v += d;
          memcpy ((char *) o->data + ((i * d + j) * inner + k) * (gint64) es,
                  (const char *) vals->data + (v == j ? es : 0), es);
        }
  return TRUE;
}

/* Output 0 := a with the entries outside the k-th diagonal band zeroed
 * (upper: below it), over the last two dims; shared with aten::triu/tril. */
gboolean
rt_trilu (RtCall *call, const RtTensor *a, gint64 k, gboolean upper, GError **error)
{
  if (a->rank < 2)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs rank >= 2");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 rows = a->dims[a->rank - 2], cols = a->dims[a->rank - 1];
  memcpy (o->data, a->data, (gsize) a->numel * es);
  for (gint64 b = 0; rows * cols > 0 && b < a->numel / (rows * cols); b++)
    for (gint64 i = 0; i < rows; i++)
      for (gint64 j = 0; j < cols; j++)
        if (upper ? j - i < k : j - i > k)
          memset ((char *) o->data + ((b * rows + i) * cols + j) * (gint64) es, 0, es);
  return TRUE;
}

static gboolean
k_trilu (RtCall *call, GError **error)
{
  const RtTensor *kt;
  if (!rt_scalar_input (call, 1, "k", TRUE, &kt, error))
    return FALSE;
  gint64 k = kt ? rt_get_i64 (kt, 0) : 0;
  return rt_trilu (call, call->inputs[0], k, rt_attr_i (call->node, "upper", 1) != 0, error);
}

/* ---- DepthToSpace, SpaceToDepth ----------------------------------------------- */

static gboolean
k_depth_space (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 bs = rt_attr_i (call->node, "blocksize", 0);
  gboolean to_space = strcmp (graph_node_op_type (call->node), "DepthToSpace") == 0;
  gboolean crd = strcmp (rt_attr_s (call->node, "mode", "DCR"), "CRD") == 0;
  if (a->rank != 4 || bs <= 0 || bs > (gint64) 1 << 20 || (to_space && a->dims[1] % (bs * bs) != 0)
      || (!to_space && (a->dims[2] % bs != 0 || a->dims[3] % bs != 0)))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a 4-D input divisible by the block size");
      return FALSE;
    }
  gint64 N = a->dims[0], C = a->dims[1], H = a->dims[2], W = a->dims[3];
  /* Both are a reshape to 6-D, a transpose and a reshape back. */
  gint64 d6[6], perm[6], out[4];
  if (to_space)
    {
      if (crd)
        {
          gint64 t[6] = { N, C / (bs * bs), bs, bs, H, W }, p[6] = { 0, 1, 4, 2, 5, 3 };
          memcpy (d6, t, sizeof t); memcpy (perm, p, sizeof p);
        }
      else
        {
          gint64 t[6] = { N, bs, bs, C / (bs * bs), H, W }, p[6] = { 0, 3, 4, 1, 5, 2 };
          memcpy (d6, t, sizeof t); memcpy (perm, p, sizeof p);
        }
      out[0] = N; out[1] = C / (bs * bs); out[2] = H * bs; out[3] = W * bs;
    }
  else
    {
      gint64 t[6] = { N, C, H / bs, bs, W / bs, bs }, p[6] = { 0, 3, 5, 1, 2, 4 };
      memcpy (d6, t, sizeof t); memcpy (perm, p, sizeof p);
      out[0] = N; out[1] = C * bs * bs; out[2] = H / bs; out[3] = W / bs;
    }
  gint64 st[6], dims[6], ss[6];
  rt_contiguous_strides (6, d6, st);
  for (guint i = 0; i < 6; i++)
    {
      dims[i] = d6[perm[i]];
      ss[i] = st[perm[i]];
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, 4, out, error);
  if (o == NULL)
    return FALSE;
  copy_strided (o->data, a->data, 6, dims, ss, rt_dtype_size (a->dtype));
  return TRUE;
}

#define K(op_, since_, until_, mi, ma, mo, mxo, fn) \
  { RT_ONNX (op_, since_), .until = (until_), RT_IN (mi, ma), RT_OUT (mo, mxo), .dtypes = RT_DT_ALL, \
    .run = (fn) }

static const RtKernelDef defs[] = {
  K ("Reshape", 1, 0, 1, 2, 1, 1, k_shape_op),
  K ("Flatten", 1, 0, 1, 1, 1, 1, k_shape_op),
  K ("Squeeze", 1, 0, 1, 2, 1, 1, k_shape_op),
  K ("Unsqueeze", 1, 0, 1, 2, 1, 1, k_shape_op),
  K ("Transpose", 1, 0, 1, 1, 1, 1, k_shape_op),
  K ("Concat", 1, 0, 1, RT_VARIADIC, 1, 1, k_concat),
  K ("Split", 1, 0, 1, 2, 1, RT_VARIADIC, k_split),
  K ("Slice", 1, 0, 1, 5, 1, 1, k_slice),
  K ("Gather", 1, 0, 2, 2, 1, 1, k_gather),
  K ("GatherElements", 11, 0, 2, 2, 1, 1, k_gather_elements),
  K ("ScatterElements", 11, 0, 3, 3, 1, 1, k_scatter_elements),
  K ("Expand", 8, 0, 2, 2, 1, 1, k_shape_op),
  K ("Tile", 6, 0, 2, 2, 1, 1, k_tile),
  K ("Pad", 1, 0, 1, 4, 1, 1, k_pad),
  K ("Shape", 1, 0, 1, 1, 1, 1, k_shape),
  K ("Size", 1, 0, 1, 1, 1, 1, k_size),
  K ("ConstantOfShape", 9, 0, 1, 1, 1, 1, k_constant_of_shape),
  K ("Range", 11, 0, 3, 3, 1, 1, k_range),
  K ("EyeLike", 9, 0, 1, 1, 1, 1, k_eye_like),
  K ("NonZero", 9, 0, 1, 1, 1, 1, k_nonzero),
  K ("OneHot", 9, 0, 3, 3, 1, 1, k_onehot),
  K ("Trilu", 14, 0, 1, 2, 1, 1, k_trilu),
  K ("DepthToSpace", 1, 0, 1, 1, 1, 1, k_depth_space),
  K ("SpaceToDepth", 1, 0, 1, 1, 1, 1, k_depth_space),
};

RT_KERNEL_TABLE (rt_kernels_shape, defs);
/* Identity-like copy used by ATen kernels. */
gboolean rt_kernel_copy (RtCall *call, GError **error);
gboolean
rt_kernel_copy (RtCall *call, GError **error)
{
  return k_identity_shape (call, error);
}
