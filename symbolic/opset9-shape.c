/* Opset 9 base set: shapes, views, joins and splits, selection. */
#include "symbolic/opset-tables.h"
#include <math.h>
#include <string.h>

#define G sym_graph (ctx)

/* aten::size(self) / size(self, dim) */
static gboolean
sym_size_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) < 2)
    {
      out[0] = sym_size (ctx, self, G_MININT64);
      return TRUE;
    }
  if (!sym_parse_args (ctx, n, "none,d", &dim, error))
    return FALSE;
  if (dim < 0)
    {
      int r = sym_rank (self);
      if (r < 0)
        /* torch 1.13: exports it as Gather(Shape(self), dim) with the negative index counting from
         * the end; not yet here */
        return sym_unimplemented (ctx, n, error, "size with a negative dim on an input of unknown rank");
      dim += r;
    }
  out[0] = sym_size (ctx, self, dim);
  return TRUE;
}

/* Ops that are the identity in inference graphs. */
static gboolean
sym_identity (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return (out[0] = sym_value (ctx, graph_node_input (n, 0), error)) != NULL;
}

/* prim::tolist(x, dim, elem_type) (scripted x.tolist()): x itself, as
 * torch 1.13's prim_tolist, for a tensor of at most one dim whose element
 * kind is the annotation's (elem_type 0: int, 1: float, 2: bool; PyTorch
 * raises on any other), so the list's values are x's. */
static gboolean
sym_tolist (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 dim, kind;
  GraphDType dt = sym_dtype (graph_node_input (n, 0));
  int rank = sym_rank (graph_node_input (n, 0));
  if (graph_node_n_inputs (n) != 3 || !sym_get_const_int (graph_node_input (n, 1), &dim)
      || !sym_get_const_int (graph_node_input (n, 2), &kind))
    /* torch 1.13: also refuses (its _maybe_get_const needs the dim a constant to compare) */
    return sym_unimplemented (ctx, n, error, "tolist with a dim or element type known only at run time");
  if (dim > 1 || rank > 1)
    /* torch 1.13: also refuses ("dim_val > 1") */
    return sym_unimplemented (ctx, n, error, "tolist of a tensor of more than one dim");
  gboolean fits = kind == 0   ? graph_dtype_is_integer (dt) && dt != GRAPH_DTYPE_BOOL
                  : kind == 1 ? graph_dtype_is_floating (dt)
                  : kind == 2 ? dt == GRAPH_DTYPE_BOOL : FALSE;
  if (!fits)
    /* torch 1.13: exports x as it is; refused here because PyTorch raises when the annotation
     * does not fit (no list to compute) */
    return sym_unimplemented (ctx, n, error, "tolist whose element type does not fit the tensor's (PyTorch raises)");
  return sym_identity (ctx, n, out, error);
}

/* aten::set_(self, source): self becomes source (its storage, shape and
 * type), so the result is source itself; a view that is set_ leaves its
 * base alone (export/pipeline/view-mutation.c does not write it back). */
static gboolean
sym_set (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  if (graph_node_n_inputs (n) != 2 || sym_rank (graph_node_input (n, 1)) < 0
      || graph_type_kind (graph_value_type (graph_node_input (n, 1))) != GRAPH_TYPE_TENSOR)
    /* torch 1.13: also refuses set_() of a storage or with offsets (only set_(Tensor) becomes the
     * source in its remove-inplace pass) */
    return sym_unimplemented (ctx, n, error, "set_ of anything but one tensor");
  return (out[0] = sym_value (ctx, graph_node_input (n, 1), error)) != NULL;
}

/* aten::to / type_as / float / long ...: the traced output type says what
 * the element type becomes; a Cast when it differs from the input's. */
static gboolean
sym_to (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self = sym_value (ctx, graph_node_input (n, 0), error);
  if (self == NULL)
    return FALSE;
  GraphDType want = sym_dtype (graph_node_output (n, 0));
  GraphDType have = sym_dtype (self);
  guint nin = graph_node_n_inputs (n);
  /* scripted code records no result type: take it from the arguments,
   * to(other) / type_as(other), to(dtype, ...), to(device, dtype, ...) */
  for (guint i = 1; want == GRAPH_DTYPE_UNDEFINED && i < MIN (nin, 3); i++)
    {
      GraphValue *a = graph_node_input (n, i);
      GraphType *t = graph_value_type (a);
      if (t && graph_type_is_tensor (t))
        {
          want = sym_dtype (a);
          if (want == GRAPH_DTYPE_UNDEFINED && sym_context_mapped (ctx, a))
            want = sym_dtype (sym_context_mapped (ctx, a));
          break;
        }
      gint64 code;
      if (t && graph_type_kind (t) == GRAPH_TYPE_DEVICE)
        continue;
      GraphType *t1 = graph_value_type (graph_node_input (n, 1));
      if ((i == 1 || (i == 2 && t1 && graph_type_kind (t1) == GRAPH_TYPE_DEVICE))
          && sym_get_const_int (a, &code))
        want = sym_scalar_type (a, GRAPH_DTYPE_UNDEFINED);
      break;
    }
  if (want == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: exports Cast to the dtype argument (or to other's type for type_as); not yet here
     * when the trace records no result type */
    return sym_unimplemented (ctx, n, error, "a conversion whose result type the trace does not record");
  out[0] = want == have ? self : sym_cast (ctx, self, want);
  return TRUE;
}

/* aten::view / reshape(self, size) */
static gboolean
sym_view (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *shape;
  if (!sym_parse_args (ctx, n, "vv", &self, &shape, error))
    return FALSE;
  out[0] = sym_reshape (ctx, self, shape);
  return TRUE;
}

static gboolean
sym_view_as (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = sym_reshape (ctx, self, sym_size (ctx, other, G_MININT64));
  return TRUE;
}

/* aten::flatten(self, start_dim, end_dim) */
static gboolean
sym_flatten (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 start, end;
  if (!sym_parse_args (ctx, n, "vdd", &self, &start, &end, error))
    return FALSE;
  int r = sym_rank (self);
  if (r < 0)
    /* torch 1.13: exports start_dim 1 to -1 (and 0 to -2) as one Flatten without the rank and
     * refuses the rest; not yet here */
    return sym_unimplemented (ctx, n, error, "flatten on an input of unknown rank");
  if (start < 0)
    start += r;
  if (end < 0)
    end += r;
  if (r > 0 && start > end)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s: start_dim %" G_GINT64_FORMAT
                   " comes after end_dim %" G_GINT64_FORMAT, graph_node_kind (n), start, end);
      return FALSE;
    }
  if (r == 0)
    {
      static const gint64 one[] = { 1 };
      out[0] = sym_reshape_static (ctx, self, 1, one);
      return TRUE;
    }
  if (start == 1 && end == r - 1)
    {
      out[0] = graph_op (G, "Flatten", self, "axis_i", start, NULL);
      return TRUE;
    }
  if (start == 0 && end == r - 2)
    {
      out[0] = graph_op (G, "Flatten", self, "axis_i", end + 1, NULL);
      return TRUE;
    }
  if (start == end)
    {
      out[0] = self;
      return TRUE;
    }
  /* Keep the leading dims (0 = copy), merge, keep the static trailing dims. */
  gint64 shape[TENSOR_MAX_RANK], dims[TENSOR_MAX_RANK];
  gboolean have = sym_static_shape (self, dims);
  gsize k = 0;
  for (gint64 i = 0; i < start; i++)
    shape[k++] = 0;
  shape[k++] = -1;
  for (gint64 i = end + 1; i < r; i++)
    {
      const GraphDim *d = graph_type_dim (sym_type (self), (guint) i);
      if (!have && (d == NULL || d->kind != GRAPH_DIM_STATIC))
        /* torch 1.13: exports it with run-time sizes (Concat of Slices of Shape(self) and -1,
         * Reshape); not yet here */
        return sym_unimplemented (ctx, n, error, "flatten keeping trailing dims of unknown size");
      shape[k++] = d->value;
    }
  out[0] = sym_reshape_static (ctx, self, k, shape);
  return TRUE;
}

/* aten::transpose(self, dim0, dim1) */
gboolean
sym_transpose (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 a, b;
  if (!sym_parse_args (ctx, n, "vdd", &self, &a, &b, error))
    return FALSE;
  int r = sym_rank (self);
  if (r < 0)
    /* torch 1.13: also refuses ("Unsupported: ONNX export of transpose for tensor of unknown rank") */
    return sym_unimplemented (ctx, n, error, "transpose on an input of unknown rank");
  if (a < 0)
    a += r;
  if (b < 0)
    b += r;
  if (a == b)
    {
      out[0] = self;
      return TRUE;
    }
  gint64 perm[TENSOR_MAX_RANK];
  for (int i = 0; i < r; i++)
    perm[i] = i;
  perm[a] = b;
  perm[b] = a;
  out[0] = graph_op (G, "Transpose", self, "perm_is", r, perm, NULL);
  return TRUE;
}

/* aten::permute(self, dims) */
static gboolean
sym_permute (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize nd;
  const gint64 *dims;
  if (!sym_parse_args (ctx, n, "v,ds", &self, &nd, &dims, error))
    return FALSE;
  gint64 perm[TENSOR_MAX_RANK];
  gboolean ident = TRUE;
  int rank = sym_rank (self);
  if (rank >= 0 && (gsize) rank != nd)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "aten::permute: %zu dims for a tensor of rank %d", nd, rank);
      return FALSE;
    }
  if (nd > TENSOR_MAX_RANK)
    /* torch 1.13: exports a Transpose of any rank; not yet here (symonnx tensors have at most
     * TENSOR_MAX_RANK dims) */
    return sym_unimplemented (ctx, n, error, "permute of rank %zu", nd);
  guint64 seen = 0;
  for (gsize i = 0; i < nd; i++)
    {
      perm[i] = dims[i] < 0 ? dims[i] + (gint64) nd : dims[i];
      /* the rank unknown, ds could not check the dims: nd is the rank */
      if (perm[i] < 0 || perm[i] >= (gint64) nd || (seen & (G_GUINT64_CONSTANT (1) << perm[i])))
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                       "aten::permute: dim %" G_GINT64_FORMAT " is out of range or repeated in "
                       "a permutation of %zu dims", dims[i], nd);
          return FALSE;
        }
      seen |= G_GUINT64_CONSTANT (1) << perm[i];
      ident = ident && perm[i] == (gint64) i;
    }
  out[0] = ident ? self : graph_op (G, "Transpose", self, "perm_is", (int) nd, perm, NULL);
  return TRUE;
}

/* aten::cat(tensors, dim) */
static gboolean
sym_cat (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 dim;
  if (!sym_parse_args (ctx, n, "none,d", &dim, error))
    return FALSE;
  g_autoptr (GPtrArray) vals = sym_list_values (ctx, graph_node_input (n, 0), error);
  if (vals == NULL)
    return FALSE;
  out[0] = graph_opv (G, "Concat", vals->len, (GraphValue *const *) vals->pdata, "axis_i", dim, NULL);
  return out[0] != NULL;
}

/* stack of a list filled by append in a loop: the loop's scan output
 * [iterations, dims...] with its first axis moved to dim. */
static gboolean
stack_scan (SymContext *ctx, GraphNode *n, GraphValue *scan, gint64 dim, GraphValue **out,
            GError **error)
{
  int r = sym_rank (scan);
  if (r < 1 || r > TENSOR_MAX_RANK)
    /* torch 1.13: exports stack of a sequence as ConcatFromSequence (new_axis=1) without the rank;
     * not yet here */
    return sym_unimplemented (ctx, n, error, "stack of a list appended to in a loop whose elements' rank is unknown");
  if (dim < 0)
    dim += r;
  if (dim < 0 || dim >= r)
    /* torch 1.13: also refuses (PyTorch rejects a stack dim out of range) */
    return sym_unimplemented (ctx, n, error, "stack at dim %" G_GINT64_FORMAT " of rank-%d elements",
                              dim, r - 1);
  if (dim == 0)
    {
      out[0] = scan;
      return TRUE;
    }
  gint64 perm[TENSOR_MAX_RANK];
  for (int i = 0, k = 1; i < r; i++)
    perm[i] = i == dim ? 0 : k++;
  out[0] = graph_op (G, "Transpose", scan, "perm_is", r, perm, NULL);
  return out[0] != NULL;
}

/* aten::stack(tensors, dim) */
static gboolean
sym_stack (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 dim;
  if (!sym_parse_args (ctx, n, "none,dn", &dim, error))
    return FALSE;
  GraphValue *scan = sym_context_scan_list (ctx, graph_node_input (n, 0));
  if (scan)
    return stack_scan (ctx, n, scan, dim, out, error);
  g_autoptr (GPtrArray) vals = sym_list_values (ctx, graph_node_input (n, 0), error);
  if (vals == NULL)
    return FALSE;
  if (dim < 0)
    {
      int r = vals->len ? sym_rank (vals->pdata[0]) : -1;
      if (r < 0)
        /* torch 1.13: refuses before opset 11 (negative axis with unknown input rank) and exports
         * Unsqueeze with the negative axis from 11; not yet here */
        return sym_unimplemented (ctx, n, error, "stack with a negative dim on inputs of unknown rank");
      dim += r + 1;
    }
  for (guint i = 0; i < vals->len; i++)
    vals->pdata[i] = sym_unsqueeze (ctx, vals->pdata[i], 1, &dim);
  out[0] = graph_opv (G, "Concat", vals->len, (GraphValue *const *) vals->pdata, "axis_i", dim, NULL);
  return out[0] != NULL;
}

/* The k pieces of a split as n's outputs, or as the elements of its
 * Tensor[] output. */
/* k Slices of self along dim, piece i from starts[i] to ends[i] (1-D
 * int64 values computed at run time).  (transfer container) */
static GraphValue **
slice_pieces (SymContext *ctx, GraphValue *self, gint64 dim, guint k, GraphValue *starts, GraphValue *ends)
{
  GraphValue **pieces = g_new (GraphValue *, k);
  for (guint i = 0; i < k; i++)
    {
      const gint64 a = i, b = i + 1, zero = 0;
      GraphValue *st = sym_slice (ctx, starts, 1, &zero, &a, &b, NULL);
      GraphValue *en = sym_slice (ctx, ends, 1, &zero, &a, &b, NULL);
      pieces[i] = graph_op (G, "Slice", self, st, en, sym_const_ints (ctx, 1, &dim), NULL);
    }
  return pieces;
}

static void
finish_pieces (SymContext *ctx, GraphNode *n, guint k, GraphValue **vals, GraphValue **out)
{
  if (graph_node_n_outputs (n) == k && k > 1)
    {
      for (guint i = 0; i < k; i++)
        out[i] = vals[i];
      return;
    }
  sym_set_list_output (ctx, n, 0, k, vals);
  out[0] = NULL;
}

/* Splits producing a Tensor[]: the element count comes from the
 * prim::ListUnpack consumer. */
gboolean
sym_finish_split (SymContext *ctx, GraphNode *n, GraphNode *sp, GraphValue **out, gboolean squeeze,
              gint64 dim)
{
  guint k = graph_node_n_outputs (sp);
  g_autofree GraphValue **vals = g_new0 (GraphValue *, k);
  for (guint i = 0; i < k; i++)
    vals[i] = squeeze ? sym_squeeze (ctx, graph_node_output (sp, i), 1, &dim)
                      : graph_node_output (sp, i);
  finish_pieces (ctx, n, k, vals, out);
  return TRUE;
}

static gboolean
split_sizes (SymContext *ctx, GraphNode *n, GraphValue *self, gint64 dim, gint64 chunk,
             guint *count, gint64 *sizes, GError **error)
{
  gint64 d[TENSOR_MAX_RANK];
  int r = sym_static_dims (self, d);
  if (r <= 0 || dim < -r || dim >= r || d[dim < 0 ? dim + r : dim] < 0)
    /* torch 1.13: takes the size as split_size x outputs (wrong when the last piece is shorter);
     * refused here because that guesses the size */
    return sym_unimplemented (ctx, n, error, "split along a dim of unknown size");
  gint64 len = d[dim < 0 ? dim + r : dim];
  if (chunk <= 0)
    /* torch 1.13: also refuses (PyTorch rejects a split size of 0 or less) */
    return sym_unimplemented (ctx, n, error, "split size %" G_GINT64_FORMAT, chunk);
  guint k = (guint) ((len + chunk - 1) / chunk);
  if (k > 256)
    /* torch 1.13: exports a Split into that many outputs; not yet here (more than 256 pieces) */
    return sym_unimplemented (ctx, n, error, "a split into more than 256 pieces");
  for (guint i = 0; i < k; i++)
    sizes[i] = MIN (chunk, len - (gint64) i * chunk);
  *count = k;
  return TRUE;
}

static void type_pieces (GraphValue *self, gint64 dim, guint k, GraphValue *const *pieces);

/* aten::split(self, split_size, dim) (also with a size list) */
gboolean
sym_split_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim, chunk;
  gint64 sizes[256];
  guint k;
  if (!sym_parse_args (ctx, n, "v,none,d", &self, &dim, error))
    return FALSE;
  GraphNode *lc = graph_value_node (graph_node_input (n, 1));
  g_autoptr (GArray) const_sizes = sym_get_const_ints (graph_node_input (n, 1));
  if (const_sizes == NULL && sym_opset (ctx) >= 11 && lc && graph_node_is (lc, "prim::ListConstruct")
      && graph_node_n_inputs (lc) > 0 && graph_node_n_inputs (lc) <= 256)
    {
      /* sizes computed at run time (anchors per level), their count the
       * list's: Split takes them as an input from opset 13; at 11 and 12
       * each piece is a Slice between the sizes' running sums */
      guint k = graph_node_n_inputs (lc);
      GraphValue *sv = sym_value (ctx, graph_node_input (n, 1), error);
      if (sv == NULL)
        return FALSE;
      if (sym_opset (ctx) >= 13)
        {
          GraphNode *sp = graph_op_outputs (G, "Split", k, self, sv, "axis_i", dim, NULL);
          return sp && sym_finish_split (ctx, n, sp, out, FALSE, dim);
        }
      GraphValue *ends = graph_op (G, "CumSum", sv, sym_const_i64 (ctx, 0), NULL);
      GraphValue *starts = graph_op (G, "Sub", ends, sv, NULL);
      g_autofree GraphValue **pieces = slice_pieces (ctx, self, dim, k, starts, ends);
      type_pieces (self, dim, k, pieces);   /* a graph output needs a type (test_split_size_with_slice) */
      finish_pieces (ctx, n, k, pieces, out);
      return TRUE;
    }
  if (!sym_get_const_int (graph_node_input (n, 1), &chunk))
    {
      gsize ns;
      const gint64 *ss;
      if (!sym_parse_args (ctx, n, "none,is", &ns, &ss, error))
        return FALSE;
      if (ns > 256)
        /* torch 1.13: exports a Split into that many outputs; not yet here (more than 256 pieces) */
        return sym_unimplemented (ctx, n, error, "a split into more than 256 pieces");
      memcpy (sizes, ss, ns * sizeof (gint64));
      k = (guint) ns;
    }
  else if (!split_sizes (ctx, n, self, dim, chunk, &k, sizes, error))
    return FALSE;
  GraphNode *sp = sym_split (ctx, self, dim, k, sizes);
  return sp && sym_finish_split (ctx, n, sp, out, FALSE, dim);
}

/* Each piece's type: self's, the split dim unknown. */
static void
type_pieces (GraphValue *self, gint64 dim, guint k, GraphValue *const *pieces)
{
  GraphType *t = sym_type (self);
  int r = t && graph_type_is_tensor (t) ? graph_type_rank (t) : -1;
  if (r <= 0 || r > TENSOR_MAX_RANK || dim < 0 || dim >= r)
    return;
  GraphDim dd[TENSOR_MAX_RANK];
  for (int i = 0; i < r; i++)
    dd[i] = *graph_type_dim (t, (guint) i);
  dd[dim] = (GraphDim) { .kind = GRAPH_DIM_UNKNOWN };
  for (guint i = 0; i < k; i++)
    {
      g_autoptr (GraphType) pt = graph_type_new_tensor (graph_type_dtype (t), r, dd);
      graph_value_set_type (pieces[i], pt);
    }
}

/* chunk's pieces when the dim's size (or the chunk count) is known only at
 * run time: the chunk size cs = ceil(len / chunks), and as many pieces as
 * the trace unpacks, piece i the sizes min(cs, max(len - i * cs, 0)) — one
 * Split with its sizes as an input from opset 13, a Slice per piece at 11
 * and 12 (torch 1.13 writes Shape, Div and a Split too).  A run with
 * another length gives the same number of pieces, the last ones shorter or
 * empty, where PyTorch would return fewer: a trace cannot say otherwise. */
static gboolean
chunk_at_run_time (SymContext *ctx, GraphNode *n, GraphValue *self, gint64 dim, GraphValue **out,
                   GError **error)
{
  int k = sym_list_unpack_size (ctx, n, 0);
  if (k <= 0 || k > 256 || sym_rank (self) < 0)
    /* torch 1.13: exports a chunk count it cannot unpack as a sequence (SplitToSequence); not yet
     * here (a chunk of unknown rank or whose pieces the trace does not unpack) */
    return sym_unimplemented (ctx, n, error, "chunk of a dim known only at run time whose pieces the "
                              "trace does not unpack");
  dim = sym_dim (self, dim);
  GraphValue *chunks = sym_int_input_1d (ctx, n, 1, error);
  if (chunks == NULL)
    return FALSE;
  static const gint64 one = 1;
  GraphValue *len = sym_unsqueeze (ctx, sym_size (ctx, self, dim), 1, (gint64[]) { 0 });
  GraphValue *cs = graph_op (G, "Div", graph_op (G, "Sub", graph_op (G, "Add", len, chunks, NULL),
                                                 sym_const_ints (ctx, 1, &one), NULL), chunks, NULL);
  g_autofree gint64 *idx = g_new (gint64, k);
  for (int i = 0; i < k; i++)
    idx[i] = i;
  GraphValue *starts = graph_op (G, "Mul", cs, sym_const_ints (ctx, (gsize) k, idx), NULL);
  if (sym_opset (ctx) >= 13)
    {
      static const gint64 zero = 0;
      GraphValue *left = graph_op (G, "Max", graph_op (G, "Sub", len, starts, NULL),
                                   sym_const_ints (ctx, 1, &zero), NULL);
      GraphValue *sizes = graph_op (G, "Min", left, cs, NULL);
      GraphNode *sp = graph_op_outputs (G, "Split", (guint) k, self, sizes, "axis_i", dim, NULL);
      if (sp == NULL)
        return FALSE;
      for (int i = 0; i < k; i++)
        type_pieces (self, dim, 1, (GraphValue *[]) { graph_node_output (sp, (guint) i) });
      return sym_finish_split (ctx, n, sp, out, FALSE, dim);
    }
  GraphValue *ends = graph_op (G, "Add", starts, cs, NULL);   /* Slice clamps past the end */
  g_autofree GraphValue **pieces = slice_pieces (ctx, self, dim, (guint) k, starts, ends);
  type_pieces (self, dim, (guint) k, pieces);
  finish_pieces (ctx, n, (guint) k, pieces, out);
  return TRUE;
}

/* aten::chunk(self, chunks, dim) */
gboolean
sym_chunk (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 chunks, dim;
  gint64 sizes[256];
  guint k;
  if (!sym_parse_args (ctx, n, "v,none,d", &self, &dim, error))
    return FALSE;
  gint64 len = sym_static_dim_size (self, dim);
  gboolean const_chunks = sym_get_const_int (graph_node_input (n, 1), &chunks);
  if (const_chunks && chunks <= 0)
    /* torch 1.13: also refuses (PyTorch rejects a chunk count of 0 or less before the trace) */
    return sym_unimplemented (ctx, n, error, "chunk into %" G_GINT64_FORMAT " pieces", chunks);
  if ((len < 0 || !const_chunks) && sym_opset (ctx) >= 11)
    return chunk_at_run_time (ctx, n, self, dim, out, error);
  if (len < 0 || !const_chunks)
    /* torch 1.13: also refuses before opset 11 (unknown dimension size) */
    return sym_unimplemented (ctx, n, error, "chunk along a dim of unknown size (from opset 11)");
  if (!split_sizes (ctx, n, self, dim, (len + chunks - 1) / chunks, &k, sizes, error))
    return FALSE;
  GraphNode *sp = sym_split (ctx, self, dim, k, sizes);
  return sp && sym_finish_split (ctx, n, sp, out, FALSE, dim);
}

/* aten::unfold(self, dimension, size, step): each window of `size` along
 * `dimension`, `step` apart, moved to a new last axis.  torch 1.13's form
 * (opset 9; opset 12 falls back to it for constant size and step): one
 * Slice per window, Transpose `dimension` last, Unsqueeze, one Concat. */
static gboolean
sym_unfold (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim, size, step;
  if (!sym_parse_args (ctx, n, "v,d", &self, &dim, error))
    return FALSE;
  /* size and step as constants, or folded from the static shapes
   * (x.unfold(2, x.shape[1], x.shape[1] - 1), as torch's shape inference) */
  if (!sym_traced_int (ctx, graph_node_input (n, 2), &size) || !sym_traced_int (ctx, graph_node_input (n, 3), &step))
    /* torch 1.13: exports a size or step computed at run time from opset 12 (a Loop of Slices); not
     * yet here */
    return sym_unimplemented (ctx, n, error, "Unfold with a size or step computed at run time");
  int r = sym_rank (self);
  dim = sym_dim (self, dim);
  GraphType *t = sym_type (self);
  const GraphDim *d = (t && r > 0 && dim >= 0 && dim < r) ? graph_type_dim (t, (guint) dim) : NULL;
  if (d == NULL || d->kind != GRAPH_DIM_STATIC)
    /* torch 1.13: also refuses (_unimplemented "Unfold: input size not accessible") */
    return sym_unimplemented (ctx, n, error, "Unfold: input size not accessible");
  if (size <= 0 || step <= 0 || size > d->value)
    /* torch 1.13: also refuses (PyTorch rejects a window larger than the dim or a size/step of 0) */
    return sym_unimplemented (ctx, n, error, "Unfold: no window of size %" G_GINT64_FORMAT
                              " with step %" G_GINT64_FORMAT " in a dimension of %" G_GINT64_FORMAT,
                              size, step, d->value);
  gint64 perm[TENSOR_MAX_RANK];
  for (int i = 0, k = 0; i < r; i++)
    if (i != dim)
      perm[k++] = i;
  perm[r - 1] = dim;
  /* all the Slices, then each window's Transpose + Unsqueeze (torch's order) */
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  for (gint64 lo = 0, hi = size; hi <= d->value; lo += step, hi += step)
    g_ptr_array_add (parts, sym_slice (ctx, self, 1, &dim, &lo, &hi, NULL));
  for (guint i = 0; i < parts->len; i++)
    {
      GraphValue *tr = graph_op (G, "Transpose", parts->pdata[i], "perm_is", r, perm, NULL);
      parts->pdata[i] = sym_unsqueeze (ctx, tr, 1, &dim);
    }
  out[0] = graph_opv (G, "Concat", parts->len, (GraphValue *const *) parts->pdata,
                      "axis_i", dim, NULL);
  return TRUE;
}

/* Whether aten::len is the only reader of v (and one reads it). */
static gboolean
only_len_reads (GraphValue *v)
{
  guint uses = graph_value_n_uses (v);
  for (guint u = 0; u < uses; u++)
    if (!graph_node_is (graph_value_use (v, u)->node, "aten::len"))
      return FALSE;
  return uses > 0;
}

/* aten::unbind(self, dim) */
gboolean
sym_unbind (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  gint64 sizes[256];
  guint k = 0;
  if (!sym_parse_args (ctx, n, "vd", &self, &dim, error))
    return FALSE;
  int unpacked = sym_list_unpack_size (ctx, n, 0);
  if (sym_static_dim_size (graph_node_input (n, 0), dim) < 0 && unpacked > 0 && unpacked <= 256)
    {
      /* a length known only from the consumer (boxes.unbind(1) of a
       * data-dependent count of boxes: 4 coordinates): equal pieces */
      GraphNode *sp = sym_split (ctx, self, dim, (guint) unpacked, NULL);
      return sp && sym_finish_split (ctx, n, sp, out, TRUE, dim);
    }
  if (only_len_reads (graph_node_output (n, 0)))
    {
      /* len(x.unbind(d)) (scripted code; its dim may be dynamic): x.size(d),
       * which sym_len reads from the unbind's input and constant folding
       * makes a constant when it is static; the list itself is never made
       * (torch 1.13: SplitToSequence and SequenceLength, from opset 11) */
      out[0] = self;
      return TRUE;
    }
  if (!split_sizes (ctx, n, self, dim, 1, &k, sizes, error))
    return FALSE;
  GraphNode *sp = sym_split (ctx, self, dim, k, sizes);
  return sp && sym_finish_split (ctx, n, sp, out, TRUE, dim);
}

/* squeeze/unsqueeze(self, dim) with a dim known only at run time (an int
 * argument of the model): from opset 13, whose Squeeze and Unsqueeze take
 * their axes as an input, as torch 1.13 writes them; the output's rank is
 * self's + delta.  A run-time squeeze of a dim whose size is not 1 fails
 * in the executor (PyTorch leaves the tensor as it is): an error, not
 * other numbers. */
static gboolean
runtime_dim_op (SymContext *ctx, GraphNode *n, GraphValue *self, const char *op, int delta, GraphValue **out,
                GError **error)
{
  int r = sym_rank (self);
  if (sym_opset (ctx) < 13 || r < 0 || r + delta < 0 || r + delta > TENSOR_MAX_RANK)
    /* torch 1.13: also refuses before opset 13 (the axes are an attribute there: "dim must be
     * constant") and for an input of unknown rank */
    return sym_unimplemented (ctx, n, error, "a dim known only at run time (from opset 13, on an input "
                              "of known rank)");
  GraphValue *axes = sym_int_input_1d (ctx, n, 1, error);
  if (axes == NULL)
    return FALSE;
  out[0] = graph_op (G, op, self, axes, NULL);
  if (out[0])
    sym_set_type (out[0], sym_dtype (self), r + delta, NULL);
  return out[0] != NULL;
}

/* Note [Squeeze of a run-time size]
 * squeeze(x, d) leaves x as it is when dim d's size is not 1, so with that
 * size known only at run time the output's rank is known only then too.
 * torch 1.13 writes If(Shape(x)[d] == 1, Squeeze, Identity) and declares
 * the traced rank for the result; ONNX Runtime runs it (warning of the
 * other rank) and gives PyTorch's values.  We write the same If, but only
 * where the result is a model output and nothing else reads it: a later
 * symbolic would build on the traced rank (axes, reshapes) and compute
 * other numbers at the other size.  Elsewhere: refused. */
static gboolean
feeds_only_the_model_output (GraphNode *n)
{
  GraphValue *v = graph_node_output (n, 0);
  return graph_value_n_uses (v) == 0 && graph_value_is_graph_output (v)
         && graph_get_outer (graph_value_graph (v)) == NULL;
}

static gboolean
squeeze_if_size_one (SymContext *ctx, GraphValue *self, gint64 dim, GraphValue **out)
{
  Graph *outer = sym_graph (ctx);
  GraphValue *size = sym_size (ctx, self, dim);
  GraphValue *cond = size ? graph_op (outer, "Equal", size, sym_const_i64 (ctx, 1), NULL) : NULL;
  if (cond == NULL)
    return FALSE;
  sym_set_type (cond, GRAPH_DTYPE_BOOL, 0, NULL);
  Graph *then_g = graph_new_subgraph (outer);
  Graph *else_g = graph_new_subgraph (outer);
  sym_context_swap_graph (ctx, then_g);
  GraphValue *squeezed = sym_squeeze (ctx, self, 1, &dim);
  sym_context_swap_graph (ctx, outer);
  GraphValue *same = graph_op (else_g, "Identity", self, NULL);
  GraphNode *ifn = squeezed && same ? graph_op_outputs (outer, "If", 1, cond, NULL) : NULL;
  if (ifn == NULL)
    {
      graph_free (then_g);
      graph_free (else_g);
      return FALSE;
    }
  sym_set_type (squeezed, sym_dtype (self), sym_rank (self) - 1, NULL);
  sym_set_type (same, sym_dtype (self), sym_rank (self), NULL);
  graph_add_output (then_g, squeezed);
  graph_add_output (else_g, same);
  graph_node_set_g (ifn, "then_branch", then_g);
  graph_node_set_g (ifn, "else_branch", else_g);
  out[0] = graph_node_output (ifn, 0);
  return TRUE;
}

/* aten::squeeze(self) / squeeze(self, dim) */
static gboolean
sym_squeeze_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) < 2)
    {
      out[0] = sym_squeeze (ctx, self, 0, NULL);
      return TRUE;
    }
  gint64 c;
  if (!sym_get_const_int (graph_node_input (n, 1), &c))
    return runtime_dim_op (ctx, n, self, "Squeeze", -1, out, error);
  if (!sym_parse_args (ctx, n, "none,d", &dim, error))
    return FALSE;
  int r = sym_rank (self);
  if (dim < 0 && r >= 0)
    dim += r;
  gint64 size = r > 0 && dim >= 0 && dim < r ? sym_static_dim_size (self, dim) : -1;
  if (size >= 0 && size != 1)
    {
      out[0] = self;    /* squeezing a dim that is not 1 is a no-op */
      return TRUE;
    }
  /* PyTorch squeezes only a dim of size 1: with the size known only at
   * run time (a dynamic axis, a size read from data) the output's rank is
   * too (Note [Squeeze of a run-time size]). */
  if (size < 0)
    {
      if (sym_opset (ctx) >= 11 && r > 0 && dim >= 0 && dim < r && feeds_only_the_model_output (n))
        return squeeze_if_size_one (ctx, self, dim, out);
      /* torch 1.13: exports If(size == 1, Squeeze, Identity) from 11 wherever the squeeze stands, and below 11
       * a plain Squeeze that fails at other sizes; refused here because a node reading it would build on
       * the traced rank, and below 11 ONNX has no If of two ranks */
      return sym_unimplemented (ctx, n, error, "squeeze of a dim whose size is known only at run time, "
                                "read by other nodes (its rank would depend on the size; exported from opset "
                                "11 only where the squeeze is a model output)");
    }
  out[0] = sym_squeeze (ctx, self, 1, &dim);
  return TRUE;
}

/* aten::unsqueeze(self, dim) */
static gboolean
sym_unsqueeze_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  if (graph_node_n_inputs (n) == 2 && !sym_get_const_int (graph_node_input (n, 1), &dim)
      && sym_parse_args (ctx, n, "v", &self, error))
    return runtime_dim_op (ctx, n, self, "Unsqueeze", 1, out, error);
  if (!sym_parse_args (ctx, n, "v,dn", &self, &dim, error))
    return FALSE;
  if (dim < 0)
    {
      int r = sym_rank (self);
      if (r < 0)
        /* torch 1.13: refuses before opset 11 (negative axis with unknown input rank) and exports
         * Unsqueeze with the negative axis from 11; not yet here */
        return sym_unimplemented (ctx, n, error, "unsqueeze with a negative dim on an input of unknown rank");
      dim += r + 1;
    }
  out[0] = sym_unsqueeze (ctx, self, 1, &dim);
  return TRUE;
}

/* aten::slice(self, dim, start, end, step) */
static gboolean
sym_slice_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim = 0, start = 0, end = G_MAXINT64, step = 1;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  guint nin = graph_node_n_inputs (n);
  if (nin == 5 && !sym_parse_args (ctx, n, "none,d", &dim, error))
    return FALSE;
  GraphValue *s = graph_node_input (n, nin - 3), *e = graph_node_input (n, nin - 2);
  if (!sym_get_const_int (graph_node_input (n, nin - 1), &step))
    /* torch 1.13: also refuses (parse_args 'i': the step must be a constant) */
    return sym_unimplemented (ctx, n, error, "slice with a computed step");
  gboolean s_const = sym_is_none (s) || sym_get_const_int (s, &start);
  gboolean e_const = sym_is_none (e) || sym_get_const_int (e, &end);
  if (!s_const || !e_const)
    {
      /* x[:, :H] with H = x.size(1) computed: Slice takes its bounds as
       * inputs from opset 10, as torch writes it (folded again when the
       * shapes are static) */
      if (sym_opset (ctx) < 10)
        /* torch 1.13: also refuses ("Unsupported: ONNX export of Slice with dynamic inputs" before
         * opset 10) */
        return sym_unimplemented (ctx, n, error, "slice with computed bounds (from opset 10)");
      GraphValue *sv = s_const ? sym_const_ints (ctx, 1, &start) : sym_int_input_1d (ctx, n, nin - 3, error);
      GraphValue *ev = sv == NULL ? NULL
                       : e_const ? sym_const_ints (ctx, 1, &end) : sym_int_input_1d (ctx, n, nin - 2, error);
      if (ev == NULL)
        return FALSE;
      out[0] = graph_op (G, "Slice", self, sv, ev, sym_const_ints (ctx, 1, &dim), sym_const_ints (ctx, 1, &step),
                         NULL);
      return TRUE;
    }
  if (step != 1 && sym_opset (ctx) < 10)
    /* torch 1.13: also refuses ("step!=1 is currently not supported" before opset 10) */
    return sym_unimplemented (ctx, n, error, "slice with step != 1 (supported from opset 10)");
  if (start == 0 && end == G_MAXINT64 && step == 1)
    {
      out[0] = self;
      return TRUE;
    }
  out[0] = sym_slice (ctx, self, 1, &dim, &start, &end, &step);
  return TRUE;
}

/* aten::select(self, dim, index) */
static gboolean
sym_select (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdv", &self, &dim, &index, error))
    return FALSE;
  out[0] = graph_op (G, "Gather", self, index, "axis_i", dim, NULL);
  return TRUE;
}

/* aten::narrow(self, dim, start, length) */
static gboolean
sym_narrow (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim, start, length, end;
  if (!sym_parse_args (ctx, n, "v,d", &self, &dim, error))
    return FALSE;
  /* from opset 10 a computed start or length stays computed (Slice's
   * inputs; folded later where static), before it is folded here */
  gboolean at10 = sym_opset (ctx) >= 10;
  if (at10 ? sym_get_const_int (graph_node_input (n, 2), &start) && sym_get_const_int (graph_node_input (n, 3), &length)
           : sym_traced_int (ctx, graph_node_input (n, 2), &start)
               && sym_traced_int (ctx, graph_node_input (n, 3), &length))
    {
      if (length < 0 || __builtin_add_overflow (start, length, &end))
        /* torch 1.13: also refuses (PyTorch rejects a negative length or a window past the dim) */
        return sym_unimplemented (ctx, n, error, "narrow from %" G_GINT64_FORMAT " of length %"
                                  G_GINT64_FORMAT, start, length);
      /* a negative start counts from the end: the window ending at the
       * end has end 0, which Slice reads as the start */
      if (start < 0 && end == 0)
        end = G_MAXINT64;
      out[0] = sym_slice (ctx, self, 1, &dim, &start, &end, NULL);
      return TRUE;
    }
  if (!at10)
    /* torch 1.13: also refuses before opset 10 (Slice with dynamic inputs) where its shape
     * inference cannot fold them (dynamic axes) */
    return sym_unimplemented (ctx, n, error, "narrow with a start or length computed at run time "
                              "(from opset 10)");
  /* x.narrow(0, 0, x.shape[0] - 1): Slice's bounds as inputs, the end
   * start + length (torch's form), to the end where a negative start's
   * window reaches it */
  GraphValue *sv = sym_int_input_1d (ctx, n, 2, error);
  GraphValue *lv = sv ? sym_int_input_1d (ctx, n, 3, error) : NULL;
  if (lv == NULL)
    return FALSE;
  static const gint64 zero = 0, max = G_MAXINT64;
  GraphValue *z = sym_const_ints (ctx, 1, &zero);
  GraphValue *ev = graph_op (G, "Add", sv, lv, NULL);
  GraphValue *to_end = graph_op (G, "And", graph_op (G, "Less", sv, z, NULL), graph_op (G, "Equal", ev, z, NULL),
                                 NULL);
  ev = graph_op (G, "Where", to_end, sym_const_ints (ctx, 1, &max), ev, NULL);
  out[0] = graph_op (G, "Slice", self, sv, ev, sym_const_ints (ctx, 1, &dim), NULL);
  return TRUE;
}

/* aten::expand(self, size, implicit) */
static gboolean
sym_expand (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  g_autoptr (GArray) size = sym_get_const_ints (graph_node_input (n, 1));
  GraphValue *shape;
  if (size)
    {
      /* -1 keeps the dim: 1 broadcasts to it in ONNX's Expand. */
      for (guint i = 0; i < size->len; i++)
        if (g_array_index (size, gint64, i) == -1)
          g_array_index (size, gint64, i) = 1;
      shape = sym_const_ints (ctx, size->len, (const gint64 *) size->data);
    }
  else
    {
      /* Sizes computed at run time may hold -1 (keep the dim): 1 there, by
       * Where(Equal(shape, -1), ones, shape), as torch does. */
      if ((shape = sym_value (ctx, graph_node_input (n, 1), error)) == NULL)
        return FALSE;
      if (sym_dtype (shape) != GRAPH_DTYPE_INT64)
        shape = sym_cast (ctx, shape, GRAPH_DTYPE_INT64);
      GraphValue *ones = sym_constant_of_shape (ctx, graph_op (G, "Shape", shape, NULL),
                                                GRAPH_DTYPE_INT64, 1.0);
      GraphValue *is_keep = graph_op (G, "Equal", shape,
                                      sym_const_scalar (ctx, GRAPH_DTYPE_INT64, -1.0), NULL);
      shape = graph_op (G, "Where", is_keep, ones, shape, NULL);
    }
  out[0] = graph_op (G, "Expand", self, shape, NULL);
  return TRUE;
}

static gboolean
sym_expand_as (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "Expand", self, sym_size (ctx, other, G_MININT64), NULL);
  return TRUE;
}

/* aten::repeat(self, repeats) */
static gboolean
sym_repeat (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *reps;
  if (!sym_parse_args (ctx, n, "vv", &self, &reps, error))
    return FALSE;
  /* More repeats than dims: self gains leading dims of size 1 first (Tile
   * wants one repeat per dim; torch: Expand(self, ones_like(repeats))). */
  int rank = sym_rank (self);
  gint64 nrep = sym_static_dim_size (reps, 0);
  if (rank >= 0 && nrep >= 0 && nrep < rank)
    /* torch 1.13: also refuses (PyTorch rejects fewer repeats than dims) */
    return sym_unimplemented (ctx, n, error, "fewer repeats than dims");
  if (rank >= 0 && nrep > rank)
    {
      gint64 axes[TENSOR_MAX_RANK];
      for (gint64 i = 0; i < nrep - rank && i < TENSOR_MAX_RANK; i++)
        axes[i] = i;
      self = sym_unsqueeze (ctx, self, (gsize) (nrep - rank), axes);
    }
  else if (rank < 0 || nrep < 0)
    {
      gint64 len1 = 1, v1 = 1;
      g_autoptr (Tensor) one = tensor_new_from_data (GRAPH_DTYPE_INT64, 1, &len1, &v1, sizeof v1, NULL);
      GraphValue *ones = graph_op (G, "ConstantOfShape", graph_op (G, "Shape", reps, NULL),
                                   "value_t", one, NULL);
      self = graph_op (G, "Expand", self, ones, NULL);
    }
  out[0] = graph_op (G, "Tile", self, reps, NULL);
  return TRUE;
}

static gboolean
sym_where (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *cond, *self, *other;
  if (graph_node_n_inputs (n) == 1)
    return sym_nonzero_numpy (ctx, n, out, error);   /* where(condition): nonzero(as_tuple=True) */
  if (graph_node_n_inputs (n) < 3)
    /* torch 1.13: also refuses (where has one or three arguments) */
    return sym_unimplemented (ctx, n, error, "where with %u arguments", graph_node_n_inputs (n));
  if (!sym_parse_args (ctx, n, "vvv", &cond, &self, &other, error))
    return FALSE;
  if (sym_dtype (cond) != GRAPH_DTYPE_BOOL)
    cond = sym_cast (ctx, cond, GRAPH_DTYPE_BOOL);
  out[0] = graph_op (G, "Where", cond, self, other, NULL);
  return TRUE;
}

/* aten::masked_fill(self, mask, value) */
static gboolean
sym_masked_fill (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *mask, *value;
  if (!sym_parse_args (ctx, n, "vvv", &self, &mask, &value, error))
    return FALSE;
  mask = sym_cast (ctx, mask, GRAPH_DTYPE_BOOL);   /* torch casts even a bool mask */
  out[0] = graph_op (G, "Where", mask, value, self, NULL);
  return TRUE;
}

/* aten::topk(self, k, dim, largest, sorted) at opset 9: k attribute,
 * largest only. */
static gboolean
sym_topk (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *kv = NULL;
  gint64 k = 0, dim;
  gboolean largest, sorted;
  if (!sym_parse_args (ctx, n, "v,none,d,b,b", &self, &dim, &largest, &sorted, error))
    return FALSE;
  if (!largest && sym_opset (ctx) < 11)
    /* torch 1.13: also refuses (_unimplemented "Ascending TopK is not supported" before opset 11) */
    return sym_unimplemented (ctx, n, error, "topk with largest=False (supported from opset 11)");
  /* k may be computed (min(pre_nms_top_n, anchors)) from opset 10, where
   * TopK takes it as an input */
  if (sym_opset (ctx) >= 10 ? (kv = sym_int_input_1d (ctx, n, 1, error)) == NULL
                            : !sym_parse_args (ctx, n, "none,i", &k, error))
    return FALSE;
  GraphNode *tk;
  if (sym_opset (ctx) >= 11)
    tk = graph_op_outputs (G, "TopK", 2, self, kv, "axis_i", dim,
                           "largest_i", (gint64) largest, "sorted_i", (gint64) sorted, NULL);
  else if (sym_opset (ctx) >= 10)
    tk = graph_op_outputs (G, "TopK", 2, self, kv, "axis_i", dim, NULL);
  else
    tk = graph_op_outputs (G, "TopK", 2, self, "axis_i", dim, "k_i", k, NULL);
  if (tk == NULL)
    return FALSE;
  out[0] = graph_node_output (tk, 0);
  out[1] = graph_node_output (tk, 1);
  return TRUE;
}

/* aten::upsample_{nearest,bilinear,bicubic}2d(input, output_size,
 * [align_corners,] scale_factors) — the .vec overloads traces record; mode
 * is Resize's ("nearest", "linear", "cubic"). */
gboolean
sym_upsample_mode (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error,
                   const char *mode)
{
  gboolean linear = strcmp (mode, "nearest") != 0;
  guint nin = graph_node_n_inputs (n);
  gboolean align = FALSE;
  if (linear && nin >= 4 && !sym_parse_args (ctx, n, "none,none,b", &align, error))
    return FALSE;
  return sym_upsample_at (ctx, n, out, error, mode, 1, nin > 2 ? (int) nin - 1 : -1, align);
}

/* Note [Linear upsampling before opset 11]
 * Upsample-9 and Resize-10 take the source coordinate as o / scale (ONNX's
 * "asymmetric"), where PyTorch's linear modes take (o + 0.5) · ratio - 0.5
 * clamped at 0 (align_corners=False) or o · (I - 1) / (O - 1) (True): torch
 * 1.13 writes Upsample(linear) all the same, a wrong number wherever the
 * scale is not 1 (max abs 1.07 on a 5x4 → 12x10 bilinear; 5 of torchvision's
 * 6 segmentation models).  With the spatial sizes known, each output
 * position's two source positions and weights are constants, so PyTorch's
 * own formula is written out, one spatial dim at a time from the last:
 * λ0 · Gather(x, i0) + λ1 · Gather(x, i1) along that dim, the weights
 * computed in the input's precision as PyTorch's CPU kernel does.  (A
 * MatMul by the O x I weight matrix would also multiply the zero weights,
 * so an inf or NaN anywhere in a row would reach every output of it.) */
#define LINEAR_POSITIONS_LIMIT (G_GINT64_CONSTANT (1) << 24)

/* PyTorch's linear taps from I source to O output positions: ratio from the
 * scale given (1 / scale) or the sizes (area_pixel_compute_scale), source
 * index clamped at 0, the upper neighbour clamped at I - 1; computed in T
 * (double, or float as PyTorch for float). */
#define LINEAR_TAPS(T, FLOOR)                                                                      \
  static void linear_taps_##T (gint64 in, gint64 out, double scale, gboolean align, gint64 *i0,     \
                               gint64 *i1, double *l0, double *l1)                                  \
  {                                                                                                 \
    T ratio = align ? (out > 1 ? (T) (in - 1) / (T) (out - 1) : (T) 0)                               \
              : scale > 0 ? (T) (1.0 / scale) : (T) in / (T) out;                                    \
    for (gint64 o = 0; o < out; o++)                                                                \
      {                                                                                             \
        T src = align ? ratio * (T) o : ratio * ((T) o + (T) 0.5) - (T) 0.5;                         \
        src = src < 0 ? 0 : src;                                                                    \
        i0[o] = MIN ((gint64) FLOOR (src), in - 1);                                                 \
        T lam = CLAMP (src - (T) i0[o], (T) 0, (T) 1);                                              \
        l1[o] = lam;                                                                                \
        l0[o] = (T) 1 - lam;                                                                        \
        i1[o] = i0[o] + (i0[o] < in - 1 ? 1 : 0);                                                   \
      }                                                                                             \
  }
LINEAR_TAPS (float, floorf)
LINEAR_TAPS (double, floor)

/* A weight vector along dim d of a rank-r tensor: shape (O, 1, ..., 1). */
static GraphValue *
tap_weights (SymContext *ctx, GraphDType dt, int r, int d, gint64 out, const double *l)
{
  gint64 dims[TENSOR_MAX_RANK];
  int wr = r - d;
  dims[0] = out;
  for (int i = 1; i < wr; i++)
    dims[i] = 1;
  g_autoptr (Tensor) t = tensor_new_zeroed (dt, (guint) wr, dims, NULL);
  for (gint64 o = 0; o < out; o++)
    if (dt == GRAPH_DTYPE_DOUBLE)
      ((double *) tensor_data (t))[o] = l[o];
    else
      ((float *) tensor_data (t))[o] = (float) l[o];
  return sym_constant (ctx, t);
}

/* Note [Linear upsampling before opset 11]: input (rank r, spatial sizes
 * in_d[2..]) to out_d[2..]; scales[i] > 0 when the scale was given. */
static GraphValue *
linear_upsample_taps (SymContext *ctx, GraphNode *n, GraphValue *input, int r, const gint64 *in_d,
                      const gint64 *out_d, const double *scales, gboolean align, GError **error)
{
  GraphDType dt = sym_dtype (input);
  if (dt != GRAPH_DTYPE_FLOAT && dt != GRAPH_DTYPE_DOUBLE)
    /* torch 1.13: writes Upsample(linear), whose asymmetric coordinates are not PyTorch's;
     * refused here because the exact form is written for float and double only */
    return sym_unimplemented (ctx, n, error, "linear upsampling of this element type before opset 11"), NULL;
  GraphValue *x = input;
  for (int d = r - 1; d >= 2; d--)
    {
      gint64 in = in_d[d], out = out_d[d];
      if (in == out && (scales[d] <= 0 || (float) (1.0 / scales[d]) == 1.0f))
        continue;   /* the identity (a ratio of 1) */
      if (out > LINEAR_POSITIONS_LIMIT)
        /* torch 1.13: writes Upsample(linear), whose asymmetric coordinates are not PyTorch's;
         * refused here because the exact form's position tables would be too large */
        return sym_unimplemented (ctx, n, error, "linear upsampling to %" G_GINT64_FORMAT " elements "
                                  "before opset 11 (past 2^24 positions)", out), NULL;
      g_autofree gint64 *i0 = g_new (gint64, out), *i1 = g_new (gint64, out);
      g_autofree double *l0 = g_new (double, out), *l1 = g_new (double, out);
      if (dt == GRAPH_DTYPE_DOUBLE)
        linear_taps_double (in, out, scales[d], align, i0, i1, l0, l1);
      else
        linear_taps_float (in, out, scales[d], align, i0, i1, l0, l1);
      /* PyTorch's λ0 · x[i0] + λ1 · x[i1], the last dim innermost */
      GraphValue *g0 = graph_op (G, "Gather", x, sym_const_ints (ctx, (gsize) out, i0), "axis_i", (gint64) d, NULL);
      GraphValue *g1 = graph_op (G, "Gather", x, sym_const_ints (ctx, (gsize) out, i1), "axis_i", (gint64) d, NULL);
      x = graph_op (G, "Add", graph_op (G, "Mul", tap_weights (ctx, dt, r, d, out, l0), g0, NULL),
                    graph_op (G, "Mul", tap_weights (ctx, dt, r, d, out, l1), g1, NULL), NULL);
    }
  return x;
}

/* The body of sym_upsample_mode, the arguments by position: input 0 the
 * tensor, input size_idx the output size (None, int[]), input scale_idx
 * (-1: none) the scale factors (None, float[], float), align_corners given. */
gboolean
sym_upsample_at (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error,
                 const char *mode, guint size_idx, int scale_idx, gboolean align)
{
  gboolean linear = strcmp (mode, "nearest") != 0;
  GraphValue *input;
  if (!sym_parse_args (ctx, n, "v", &input, error))
    return FALSE;
  guint nin = scale_idx >= 0 ? (guint) scale_idx + 1 : 2;
  GraphValue *size_src = graph_node_input (n, size_idx);
  GraphValue *scale_src = scale_idx >= 0 ? graph_node_input (n, scale_idx) : NULL;
  int r = sym_rank (input);
  gint64 in_d[TENSOR_MAX_RANK], out_d[TENSOR_MAX_RANK];
  if (r < 3)
    /* torch 1.13: takes the rank from the op (upsample_nearest2d: 4) and exports it; not yet here */
    return sym_unimplemented (ctx, n, error, "upsampling an input of unknown rank");
  double scales[TENSOR_MAX_RANK];
  for (int i = 0; i < r; i++)
    scales[i] = 1.0;
  g_autoptr (GArray) sizes = sym_is_none (size_src) ? NULL : sym_get_const_ints (size_src);
  /* Before opset 11 a size read from static shapes (segmentation models'
   * interpolate(size=x.shape[-2:])) is folded, as torch's constant folding
   * folds its run-time scales; not with dynamic axes (sym_traced_ints) */
  if (sizes == NULL && !sym_is_none (size_src) && sym_opset (ctx) < 11)
    sizes = sym_traced_ints (ctx, size_src);
  /* an int size (aten::__interpolate's) is every spatial dim's */
  GraphType *size_t = sizes ? graph_value_type (size_src) : NULL;
  if (sizes && sizes->len == 1 && size_t && graph_type_kind (size_t) == GRAPH_TYPE_INT)
    {
      gint64 one = g_array_index (sizes, gint64, 0);
      for (int i = 3; i < r; i++)
        g_array_append_val (sizes, one);
    }
  gboolean have_scales = FALSE;
  if (!sym_is_none (scale_src) && nin > 2)
    {
      gsize ns;
      const double *sv;
      guint idx = nin - 1;
      g_autofree char *spec = g_strnfill (idx, 'n');
      (void) spec;
      GraphValue *s = graph_node_input (n, idx);
      GraphNode *p = graph_value_node (s);
      if (p && (graph_node_is (p, "prim::ListConstruct") || graph_node_is (p, "prim::Constant")))
        {
          GString *code = g_string_new (NULL);
          for (guint i = 0; i < idx; i++)
            g_string_append (code, "none,");
          g_string_append (code, "fs");
          gboolean ok = sym_parse_args (ctx, n, code->str, &ns, &sv, error);
          g_string_free (code, TRUE);
          if (!ok)
            return FALSE;
          /* one scale (aten::__interpolate's float scale_factor) is every
           * spatial dim's: it scaled the first only (a 5-D input came out
           * (1, 2, 8, 4, 6) for PyTorch's (1, 2, 8, 8, 12): the suite's
           * test_interpolate_function_substitution) */
          for (gsize i = 0; i + 2 < (gsize) r && (ns == 1 || i < ns); i++)
            scales[2 + i] = sv[ns == 1 ? 0 : i];
          have_scales = TRUE;
        }
    }
  /* A size computed at run time (interpolate(size=y.shape[-2:])): the
   * declared output shape holds only the traced sizes, so Resize takes
   * `sizes` computed in the graph, as torch does from opset 11. */
  gboolean spatial_static = sym_static_dims (input, in_d) == r;
  for (int i = 2; spatial_static && i < r; i++)
    spatial_static = in_d[i] >= 0;
  gboolean all_static = spatial_static && in_d[0] >= 0 && in_d[1] >= 0;
  /* So is a constant size of an input with dynamic dims: the scales of
   * the traced sizes (before 11), or the sizes with the traced batch and
   * channels (from 11), would not hold. */
  if (!have_scales && !sym_is_none (size_src)
      && (sizes == NULL || !(sym_opset (ctx) < 11 ? spatial_static : all_static)))
    {
      if (sym_opset (ctx) < 11)
        /* torch 1.13: exports a computed size at opsets 9-10 as run-time scales (Div of Cast(size)
         * by Cast(Shape(input)[2:])); not yet here */
        return sym_unimplemented (ctx, n, error, "upsampling to a size computed at run time "
                                  "or of an input of dynamic size (supported from opset 11)");
      GraphValue *sz = sizes ? sym_const_ints (ctx, sizes->len, (const gint64 *) sizes->data)
                             : sym_value (ctx, size_src, error);
      if (sz == NULL)
        return FALSE;
      if (sym_dtype (sz) != GRAPH_DTYPE_INT64)
        sz = sym_cast (ctx, sz, GRAPH_DTYPE_INT64);
      g_autoptr (Tensor) t0 = tensor_new_int64_vector (1, (gint64[]) { 0 });
      g_autoptr (Tensor) t2 = tensor_new_int64_vector (1, (gint64[]) { 2 });
      GraphValue *lead = graph_op (G, "Slice", graph_op (G, "Shape", input, NULL), sym_constant (ctx, t0),
                                   sym_constant (ctx, t2), NULL);
      GraphValue *full = graph_op (G, "Concat", lead, sz, "axis_i", (gint64) 0, NULL);
      g_autoptr (Tensor) none = tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 1, (gint64[]) { 0 }, NULL);
      GraphValue *empty = sym_constant (ctx, none);
      const char *ctm = linear ? (align ? "align_corners" : "half_pixel") : "asymmetric";
      out[0] = graph_op (G, "Resize", input, empty, empty, full,
                         "coordinate_transformation_mode_s", ctm, "cubic_coeff_a_f", -0.75,
                         "mode_s", mode, "nearest_mode_s", "floor", NULL);
      return TRUE;
    }
  if (linear && sym_opset (ctx) < 11)
    {
      /* Note [Linear upsampling before opset 11] */
      double given[TENSOR_MAX_RANK] = { 0 };
      if (!spatial_static)
        /* torch 1.13: writes Upsample(linear), whose asymmetric coordinates are not PyTorch's;
         * refused here because the exact form needs the spatial sizes */
        return sym_unimplemented (ctx, n, error, "linear upsampling of an input of run-time spatial size "
                                  "(supported from opset 11)");
      memcpy (out_d, in_d, sizeof (gint64) * (gsize) r);
      if (have_scales)
        for (int i = 2; i < r; i++)
          {
            double o = floor ((double) in_d[i] * scales[i]);
            if (!(o >= 1 && o <= (double) G_MAXINT32))
              /* torch 1.13: also refuses (PyTorch rejects an output size below 1) */
              return sym_unimplemented (ctx, n, error, "an upsampled size below 1 or past 2^31");
            out_d[i] = (gint64) o;
            given[i] = scales[i];
          }
      else if (sizes)
        for (guint i = 0; i < sizes->len && i + 2 < (guint) r; i++)
          out_d[2 + i] = g_array_index (sizes, gint64, i);
      else if (sym_has_dynamic_axes (ctx) || !sym_static_shape (graph_node_output (n, 0), out_d))
        /* torch 1.13: writes Upsample(linear) of run-time scales, whose asymmetric coordinates are
         * not PyTorch's; refused here because the exact form needs the output sizes */
        return sym_unimplemented (ctx, n, error, "upsampling to a computed size");
      for (int i = 2; i < r; i++)
        if (out_d[i] < 1 || in_d[i] < 1)
          /* torch 1.13: also refuses (PyTorch rejects input and output sizes below 1) */
          return sym_unimplemented (ctx, n, error, "upsampling from or to a size below 1");
      out[0] = linear_upsample_taps (ctx, n, input, r, in_d, out_d, given, align, error);
      return out[0] != NULL;
    }
  if (!have_scales)
    {
      if (sizes == NULL)
        {
          /* neither size nor scales: the traced output size, which holds
           * only without dynamic axes */
          if (sym_has_dynamic_axes (ctx) || !spatial_static
              || !sym_static_shape (graph_node_output (n, 0), out_d))
            /* torch 1.13: exports run-time scale factors as Resize's scales input (from opset 11);
             * not yet here */
            return sym_unimplemented (ctx, n, error, "upsampling to a computed size");
        }
      else
        {
          memcpy (out_d, in_d, sizeof (gint64) * r);
          for (guint i = 0; i < sizes->len && i + 2 < (guint) r; i++)
            out_d[2 + i] = g_array_index (sizes, gint64, i);
        }
      for (int i = 2; i < r; i++)
        scales[i] = (double) out_d[i] / (double) in_d[i];
      /* Before opset 11 the sizes travel as float scales: Upsample/Resize
       * make floor(in · scale), which can be one fewer (3 · (float) 5/3). */
      for (int i = 2; i < r && sym_opset (ctx) < 11; i++)
        if (floor ((double) in_d[i] * (double) (float) scales[i]) != (double) out_d[i]
            || floorf ((float) in_d[i] * (float) scales[i]) != (float) out_d[i])
          /* torch 1.13: writes the scales out/in, whose float product floors to another size;
           * refused here because that size is wrong (Resize takes sizes from opset 11) */
          return sym_unimplemented (ctx, n, error, "upsampling %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                                    " elements before opset 11 (a float scale cannot give that "
                                    "size)", in_d[i], out_d[i]);
    }
  gint64 nr = r;
  g_autoptr (Tensor) st = tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 1, &nr, NULL);
  for (int i = 0; i < r; i++)
    ((float *) tensor_data (st))[i] = (float) scales[i];
  if (sym_opset (ctx) < 10)
    {
      if (linear && align)
        /* torch 1.13: also refuses (_unimplemented "align_corners == True" before opset 11) */
        return sym_unimplemented (ctx, n, error, "align_corners=True (supported from opset 11)");
      out[0] = graph_op (G, "Upsample", input, sym_constant (ctx, st), "mode_s", mode, NULL);
      return TRUE;
    }
  if (sym_opset (ctx) < 11)
    {
      if (linear && align)
        /* torch 1.13: also refuses (_unimplemented "align_corners == True" before opset 11) */
        return sym_unimplemented (ctx, n, error, "align_corners=True (supported from opset 11)");
      out[0] = graph_op (G, "Resize", input, sym_constant (ctx, st), "mode_s", mode, NULL);
      return TRUE;
    }
  g_autoptr (Tensor) empty = tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 1, (gint64[]) { 0 }, NULL);
  GraphValue *roi = sym_constant (ctx, empty);
  GraphValue *scale_in = sym_constant (ctx, st), *sizes_in = NULL;
  if (!have_scales && sizes)
    {
      /* Given sizes, Resize gets them (as torch writes it): a float scale
       * such as 5/3 can floor to one element fewer. */
      scale_in = sym_constant (ctx, empty);
      sizes_in = sym_const_ints (ctx, (gsize) r, out_d);
    }
  const char *ctm = linear ? (align ? "align_corners" : "half_pixel") : "asymmetric";
  GraphValue *ins[] = { input, roi, scale_in, sizes_in };
  GraphNode *rs = graph_opv_outputs (G, "Resize", sizes_in ? 4 : 3, ins, 1,
                                     "coordinate_transformation_mode_s", ctm, "cubic_coeff_a_f", -0.75,
                                     "mode_s", mode, "nearest_mode_s", "floor", NULL);
  if (rs == NULL)
    return FALSE;
  out[0] = graph_node_output (rs, 0);
  return TRUE;
}

static gboolean
sym_upsample_nearest (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return sym_upsample_mode (ctx, n, out, error, "nearest");
}

static gboolean
sym_upsample_bilinear (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return sym_upsample_mode (ctx, n, out, error, "linear");
}

/* x rolled by `shift` along `dim`: Concat of two Slices */
static GraphValue *
roll_one (SymContext *ctx, GraphValue *x, gint64 shift, gint64 dim)
{
  gint64 s = -shift, big = G_MAXINT64, zero = 0;
  GraphValue *parts[2];
  parts[0] = sym_slice (ctx, x, 1, &dim, &s, &big, NULL);
  parts[1] = sym_slice (ctx, x, 1, &dim, &zero, &s, NULL);
  return graph_opv (G, "Concat", 2, parts, "axis_i", dim, NULL);
}

/* aten::roll(self, shifts, dims): per dim, Concat of two Slices */
static gboolean
sym_roll (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize ns, nd;
  const gint64 *shifts, *dims;
  if (!sym_parse_args (ctx, n, "v,is,dr", &self, &ns, &shifts, &nd, &dims, error))
    return FALSE;
  if (ns != nd)
    /* torch 1.13: also refuses (its roll asserts as many shifts as dims) */
    return sym_unimplemented (ctx, n, error, "roll with %zu shifts for %zu dims", ns, nd);
  GraphValue *r = self;
  for (gsize i = 0; i < nd; i++)
    r = roll_one (ctx, r, shifts[i], dims[i]);
  out[0] = r;
  return TRUE;
}

/* aten::cross / linalg_cross(self, other, dim): torch's four rolls;
 * dim None is the first dim of size 3. */
static gboolean
sym_cross (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *a, *b;
  gint64 dim = -1;
  if (!sym_parse_args (ctx, n, "vv", &a, &b, error))
    return FALSE;
  int rank = sym_rank (a);
  GraphValue *d = graph_node_n_inputs (n) > 2 ? graph_node_input (n, 2) : NULL;
  if (d && !sym_is_none (d))
    {
      if (!sym_parse_args (ctx, n, "none,none,d", &dim, error))
        return FALSE;
      if (dim == -1 && rank > 0)
        dim += rank;
    }
  else
    {
      gint64 dims[TENSOR_MAX_RANK];
      dim = -1;
      if (rank > 0 && rank <= TENSOR_MAX_RANK && sym_static_shape (a, dims))
        for (int i = rank - 1; i >= 0; i--)
          if (dims[i] == 3)
            dim = i;
      if (dim < 0)
        /* torch 1.13: also refuses (its cross needs a constant dim; PyTorch rejects inputs without
         * a dim of size 3) */
        return sym_unimplemented (ctx, n, error, "cross without a dim of size 3");
    }
  GraphValue *x1 = roll_one (ctx, a, 2, dim);
  GraphValue *y1 = roll_one (ctx, b, 1, dim);
  GraphValue *x2 = roll_one (ctx, a, 1, dim);
  GraphValue *y2 = roll_one (ctx, b, 2, dim);
  GraphValue *m1 = graph_op (G, "Mul", x1, y1, NULL);
  GraphValue *m2 = graph_op (G, "Mul", x2, y2, NULL);
  out[0] = graph_op (G, "Sub", m1, m2, NULL);
  return TRUE;
}

/* aten::sort(self, dim, descending) / argsort: TopK over the whole dim
 * (largest from 11; before, only descending).  torch reads the dim's size
 * with Shape/Gather at run time; a static size is written as a constant. */
static gboolean
sort_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean arg)
{
  GraphValue *self;
  gint64 dim;
  gboolean desc;
  if (!sym_parse_args (ctx, n, "vdb", &self, &dim, &desc, error))
    return FALSE;
  if (!desc && sym_opset (ctx) < 11)
    /* torch 1.13: writes a descending TopK at opset 9 whatever `descending` says, and refuses at
     * 10; refused here because the order would be reversed */
    return sym_unimplemented (ctx, n, error, "ascending sort (supported from opset 11)");
  int rank = sym_rank (self);
  gint64 dims[TENSOR_MAX_RANK];
  gint64 ax = dim < 0 && rank > 0 ? dim + rank : dim;
  GraphValue *k;
  if (rank > 0 && rank <= TENSOR_MAX_RANK && ax >= 0 && ax < rank && sym_static_shape (self, dims))
    {
      if (sym_opset (ctx) < 10)
        {
          GraphNode *tk = graph_op_outputs (G, "TopK", 2, self, "axis_i", dim, "k_i", dims[ax], NULL);
          if (tk == NULL)
            return FALSE;
          out[0] = arg ? graph_node_output (tk, 1) : graph_node_output (tk, 0);
          if (!arg && graph_node_n_outputs (n) > 1)
            out[1] = graph_node_output (tk, 1);
          return TRUE;
        }
      k = sym_const_ints (ctx, 1, &dims[ax]);
    }
  else if (sym_opset (ctx) >= 10)
    k = graph_op (G, "Gather", sym_size (ctx, self, G_MININT64), sym_const_ints (ctx, 1, &dim), NULL);
  else
    /* torch 1.13: also refuses (_unimplemented "Sort: input size not accessible" at opset 9) */
    return sym_unimplemented (ctx, n, error, "sort of a dynamic size at opset 9");
  GraphNode *tk = sym_opset (ctx) >= 11
    ? graph_op_outputs (G, "TopK", 2, self, k, "axis_i", dim, "largest_i", (gint64) desc, NULL)
    : graph_op_outputs (G, "TopK", 2, self, k, "axis_i", dim, NULL);
  if (tk == NULL)
    return FALSE;
  out[0] = arg ? graph_node_output (tk, 1) : graph_node_output (tk, 0);
  if (!arg && graph_node_n_outputs (n) > 1)
    out[1] = graph_node_output (tk, 1);
  return TRUE;
}

static gboolean
sym_sort (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return sort_any (ctx, n, out, error, FALSE);
}

static gboolean
sym_argsort (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return sort_any (ctx, n, out, error, TRUE);
}

/* aten::movedim(self, source, destination): one Transpose */
static gboolean
sym_movedim (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize ns, nd;
  const gint64 *src, *dst;
  if (!sym_parse_args (ctx, n, "v,ds,ds", &self, &ns, &src, &nd, &dst, error))
    return FALSE;
  int rank = sym_rank (self);
  if (rank < 0 || rank > TENSOR_MAX_RANK || ns != nd)
    /* torch 1.13: also refuses (movedim needs the rank for its permutation) */
    return sym_unimplemented (ctx, n, error, "movedim of an input of unknown rank");
  gboolean same = TRUE;
  for (gsize i = 0; i < ns; i++)
    same = same && src[i] == dst[i];
  if (same)
    {
      out[0] = self;
      return TRUE;
    }
  gint64 perm[TENSOR_MAX_RANK], sd[TENSOR_MAX_RANK], dd[TENSOR_MAX_RANK];
  for (int i = 0; i < rank; i++)
    perm[i] = sd[i] = dd[i] = i;
  for (gsize i = 0; i < ns; i++)
    {
      gint64 s = src[i] < 0 ? src[i] + rank : src[i], d = dst[i] < 0 ? dst[i] + rank : dst[i];
      if (s < 0 || s >= rank || d < 0 || d >= rank)
        /* torch 1.13: also refuses (PyTorch rejects a dim out of range) */
        return sym_unimplemented (ctx, n, error, "movedim with a dim out of range");
      perm[d] = s;
      sd[s] = -1;
      dd[d] = -1;
    }
  int a = 0, b = 0;
  for (;;)
    {
      while (a < rank && sd[a] == -1)
        a++;
      while (b < rank && dd[b] == -1)
        b++;
      if (a >= rank || b >= rank)
        break;
      perm[dd[b]] = sd[a];
      a++;
      b++;
    }
  out[0] = graph_op (G, "Transpose", self, "perm_is", rank, perm, NULL);
  return TRUE;
}

/* aten::pixel_unshuffle(self, r) with static C, H, W: Reshape, Transpose,
 * Reshape. */
static gboolean
sym_pixel_unshuffle (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 r;
  if (!sym_parse_args (ctx, n, "vi", &self, &r, error))
    return FALSE;
  GraphType *t = sym_type (self);
  if (t == NULL || graph_type_rank (t) != 4)
    /* torch 1.13: also refuses (_unimplemented "pixel_unshuffle: only support 4d input") */
    return sym_unimplemented (ctx, n, error, "pixel_unshuffle of a non-4-D input");
  if (r <= 0 || r > (1 << 20))
    /* torch 1.13: also refuses (PyTorch rejects a factor of 0 or less; larger than any dim here) */
    return sym_unimplemented (ctx, n, error, "pixel_unshuffle factor %" G_GINT64_FORMAT, r);
  gint64 d[4];
  for (guint i = 1; i < 4; i++)
    {
      const GraphDim *gd = graph_type_dim (t, i);
      if (gd->kind != GRAPH_DIM_STATIC)
        {
          out[0] = sym_pixel_shuffle_dynamic (ctx, self, r, TRUE);
          return TRUE;
        }
      d[i] = gd->value;
    }
  const gint64 s1[] = { -1, d[1], d[2] / r, r, d[3] / r, r };
  static const gint64 perm[] = { 0, 1, 3, 5, 2, 4 };
  const gint64 s2[] = { -1, d[1] * r * r, d[2] / r, d[3] / r };
  GraphValue *v = sym_reshape_static (ctx, self, 6, s1);
  v = graph_op (G, "Transpose", v, "perm_is", 6, perm, NULL);
  out[0] = sym_reshape_static (ctx, v, 4, s2);
  return TRUE;
}

GraphValue *
sym_pixel_shuffle_dynamic (SymContext *ctx, GraphValue *self, gint64 r, gboolean unshuffle)
{
  GraphValue *shape = graph_op (G, "Shape", self, NULL);
  GraphValue *dim[4];
  for (gint64 i = 0; i < 4; i++)
    {
      const gint64 zero = 0, end = i + 1;
      dim[i] = sym_slice (ctx, shape, 1, &zero, &i, &end, NULL);
    }
  const gint64 rr = r * r;
  GraphValue *R = sym_const_ints (ctx, 1, &r), *RR = sym_const_ints (ctx, 1, &rr);
  static const gint64 perm_un[] = { 0, 1, 3, 5, 2, 4 }, perm_sh[] = { 0, 1, 4, 2, 5, 3 };
  GraphValue *s1, *s2;
  if (unshuffle)
    {
      GraphValue *h = graph_op (G, "Div", dim[2], R, NULL), *w = graph_op (G, "Div", dim[3], R, NULL);
      s1 = graph_op (G, "Concat", dim[0], dim[1], h, R, w, R, "axis_i", (gint64) 0, NULL);
      s2 = graph_op (G, "Concat", dim[0], graph_op (G, "Mul", dim[1], RR, NULL), h, w, "axis_i", (gint64) 0, NULL);
    }
  else
    {
      GraphValue *c = graph_op (G, "Div", dim[1], RR, NULL);
      s1 = graph_op (G, "Concat", dim[0], c, R, R, dim[2], dim[3], "axis_i", (gint64) 0, NULL);
      s2 = graph_op (G, "Concat", dim[0], c, graph_op (G, "Mul", dim[2], R, NULL), graph_op (G, "Mul", dim[3], R, NULL),
                     "axis_i", (gint64) 0, NULL);
    }
  GraphValue *v = graph_op (G, "Reshape", self, s1, NULL);
  v = graph_op (G, "Transpose", v, "perm_is", 6, unshuffle ? perm_un : perm_sh, NULL);
  return graph_op (G, "Reshape", v, s2, NULL);
}

/* aten::meshgrid(tensors, indexing="ij"|"xy"): each input flattened,
 * reshaped to 1 everywhere but its own axis and expanded to the grid.
 * torch reads the lengths with Shape at run time; we need them static. */
static gboolean
sym_meshgrid (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *indexing = "ij";
  if (graph_node_n_inputs (n) > 1 && !sym_is_none (graph_node_input (n, 1))
      && !sym_parse_args (ctx, n, "none,s", &indexing, error))
    return FALSE;
  gboolean xy = g_str_equal (indexing, "xy");
  if (!xy && !g_str_equal (indexing, "ij"))
    /* torch 1.13: also refuses ("Unsupported indexing"; PyTorch has only ij and xy) */
    return sym_unimplemented (ctx, n, error, "meshgrid indexing '%s'", indexing);
  g_autoptr (GPtrArray) ts = sym_list_values (ctx, graph_node_input (n, 0), error);
  if (ts == NULL)
    return FALSE;
  guint k = ts->len;
  if (k == 0 || k > TENSOR_MAX_RANK || (xy && k < 2))
    /* torch 1.13: refuses none or xy of one tensor (its swap fails) and exports more tensors than
     * TENSOR_MAX_RANK; not yet here */
    return sym_unimplemented (ctx, n, error, "meshgrid of %u tensors", k);
  if (xy)
    {
      gpointer t = ts->pdata[0];
      ts->pdata[0] = ts->pdata[1];
      ts->pdata[1] = t;
    }
  gint64 len[TENSOR_MAX_RANK];
  for (guint i = 0; i < k; i++)
    {
      gint64 d[TENSOR_MAX_RANK];
      int r = sym_rank (ts->pdata[i]);
      if (r < 0 || r > 1 || !sym_static_shape (ts->pdata[i], d))
        /* torch 1.13: exports dynamic shapes (Reshape to -1, Concat of Shapes, Expand); not yet
         * here */
        return sym_unimplemented (ctx, n, error, "meshgrid of inputs of dynamic shape");
      len[i] = r == 0 ? 1 : d[0];
    }
  static const gint64 flat[] = { -1 };
  GraphValue *vals[TENSOR_MAX_RANK];
  GraphValue *flats[TENSOR_MAX_RANK];
  for (guint i = 0; i < k; i++)
    flats[i] = sym_reshape_static (ctx, ts->pdata[i], 1, flat);
  for (guint i = 0; i < k; i++)
    {
      gint64 shape[TENSOR_MAX_RANK];
      for (guint j = 0; j < k; j++)
        shape[j] = j == i ? len[i] : 1;
      GraphValue *t = sym_reshape_static (ctx, flats[i], k, shape);
      vals[i] = graph_op (G, "Expand", t, sym_const_ints (ctx, k, len), NULL);
    }
  if (xy)
    {
      GraphValue *t = vals[0];
      vals[0] = vals[1];
      vals[1] = t;
    }
  sym_set_list_output (ctx, n, 0, k, vals);
  out[0] = NULL;
  return TRUE;
}

/* aten::broadcast_tensors(tensors): each Expanded to the broadcast shape.
 * torch finds that shape at run time (ConstantOfShape of Shape, Adds,
 * Shape); we need static input shapes and write it as a constant. */
static gboolean
sym_broadcast_tensors (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  g_autoptr (GPtrArray) ts = sym_list_values (ctx, graph_node_input (n, 0), error);
  if (ts == NULL)
    return FALSE;
  if (ts->len == 0 || ts->len > 64)
    /* torch 1.13: refuses none (IndexError) and exports any other count with Add and Expand; not
     * yet here (more than 64) */
    return sym_unimplemented (ctx, n, error, "broadcast_tensors of %u tensors", ts->len);
  gint64 shape[TENSOR_MAX_RANK];
  int rank = 0;
  for (guint i = 0; i < ts->len; i++)
    {
      gint64 d[TENSOR_MAX_RANK];
      int r = sym_rank (ts->pdata[i]);
      if (r < 0 || r > TENSOR_MAX_RANK || !sym_static_shape (ts->pdata[i], d))
        /* torch 1.13: exports dynamic shapes (a zeros_like sum for the shape, expand_as); not yet
         * here */
        return sym_unimplemented (ctx, n, error, "broadcast_tensors of dynamic shapes");
      /* right-aligned numpy broadcasting */
      for (int k = 0; k < r; k++)
        {
          int pos = TENSOR_MAX_RANK - r + k;
          gint64 cur = TENSOR_MAX_RANK - pos <= rank ? shape[pos] : 1;
          if (cur != 1 && d[k] != 1 && cur != d[k])
            /* torch 1.13: also refuses (PyTorch rejects shapes that do not broadcast) */
            return sym_unimplemented (ctx, n, error, "shapes that do not broadcast");
          shape[pos] = cur == 1 ? d[k] : cur;
        }
      rank = MAX (rank, r);
    }
  GraphValue *vals[64];
  for (guint i = 0; i < ts->len; i++)
    vals[i] = graph_op (G, "Expand", ts->pdata[i],
                        sym_const_ints (ctx, (gsize) rank, shape + TENSOR_MAX_RANK - rank), NULL);
  sym_set_list_output (ctx, n, 0, ts->len, vals);
  out[0] = NULL;
  return TRUE;
}

/* The pieces [0, a) and [b, rank) of a 1-D shape value around a middle
 * part, concatenated (the empty ones left out). */
static GraphValue *
shape_around (SymContext *ctx, GraphValue *shape, int rank, gint64 a, gint64 b, GraphValue *mid)
{
  GraphValue *parts[3];
  guint k = 0;
  gint64 zero = 0, r = rank;
  if (a > 0)
    parts[k++] = sym_slice (ctx, shape, 1, &zero, &zero, &a, NULL);
  parts[k++] = mid;
  if (b < rank)
    parts[k++] = sym_slice (ctx, shape, 1, &zero, &b, &r, NULL);
  GraphValue *out = k == 1 ? mid : graph_opv (G, "Concat", k, parts, "axis_i", (gint64) 0, NULL);
  sym_set_type (out, GRAPH_DTYPE_INT64, 1, NULL);
  return out;
}

/* repeat_interleave with counts r known only at run time (1 or dim's
 * length of them), from opset 11: the source index of output position j is
 * the number of i with cumsum(r)[i] <= j, computed as a (total x len)
 * comparison summed over i, and one Gather along dim (torch 1.13 writes a
 * Loop from opset 13).  Exact for non-negative counts; the comparison
 * takes total x len elements of memory. */
static gboolean
repeat_interleave_computed (SymContext *ctx, GraphNode *n, GraphValue *self, gint64 dim,
                            GraphValue **out, GError **error)
{
  GraphValue *r = sym_value (ctx, graph_node_input (n, 1), error);
  if (r == NULL)
    return FALSE;
  if (sym_rank (r) > 1)
    /* torch 1.13: also refuses (PyTorch takes 0-d or 1-D repeats) */
    return sym_unimplemented (ctx, n, error, "repeats of rank %d", sym_rank (r));
  if (sym_dtype (r) != GRAPH_DTYPE_INT64)
    r = sym_cast (ctx, r, GRAPH_DTYPE_INT64);
  static const gint64 flat[] = { -1 };
  gint64 zero = 0, one = 1;
  r = sym_reshape_static (ctx, r, 1, flat);
  GraphValue *len = sym_unsqueeze (ctx, sym_size (ctx, self, dim), 1, &zero);
  r = graph_op (G, "Expand", r, len, NULL);   /* one count for every element */
  sym_set_type (r, GRAPH_DTYPE_INT64, 1, NULL);
  GraphValue *cum = graph_op (G, "CumSum", r, sym_const_i64 (ctx, 0), NULL);
  sym_set_type (cum, GRAPH_DTYPE_INT64, 1, NULL);
  GraphValue *total = sym_reduce (ctx, "ReduceSum", r, 0, NULL, FALSE);
  GraphValue *j = graph_op (G, "Range", sym_const_i64 (ctx, 0), total, sym_const_i64 (ctx, 1), NULL);
  sym_set_type (j, GRAPH_DTYPE_INT64, 1, NULL);
  GraphValue *row = sym_unsqueeze (ctx, cum, 1, &zero), *col = sym_unsqueeze (ctx, j, 1, &one);
  GraphValue *le = sym_opset (ctx) >= 12 ? graph_op (G, "LessOrEqual", row, col, NULL)
                   /* LessOrEqual is opset 12: Not(Greater) before */
                   : graph_op (G, "Not", graph_op (G, "Greater", row, col, NULL), NULL);
  sym_set_type (le, GRAPH_DTYPE_BOOL, 2, NULL);
  GraphValue *counts = sym_cast (ctx, le, GRAPH_DTYPE_INT64);
  GraphValue *idx = sym_reduce (ctx, "ReduceSum", counts, 1, &one, FALSE);
  out[0] = graph_op (G, "Gather", self, idx, "axis_i", dim, NULL);
  return TRUE;
}

/* aten::repeat_interleave(self, repeats, dim, output_size) with constant
 * repeats.  A scalar count (an int or 1 element): Unsqueeze after dim,
 * Expand by it, Reshape (dim None: of the flattened input), with shapes
 * computed in the graph when a size is dynamic; torch splits the input into
 * its elements along dim and expands each, the same result.  Per-element
 * counts: a Gather of constant indices.  Counts known only at run time are
 * not handled. */
static gboolean
sym_repeat_interleave (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 reps = 0, dim = 0;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  /* torch.tensor([4]) in a trace: a constant through aten::to and detach */
  GraphValue *rsrc = graph_node_input (n, 1);
  for (GraphNode *p = rsrc ? graph_value_node (rsrc) : NULL;
       p && graph_node_n_inputs (p) > 0
       && (graph_node_is (p, "aten::to") || graph_node_is (p, "aten::detach")
           || graph_node_is (p, "aten::clone") || graph_node_is (p, "aten::lift_fresh")
           || graph_node_is (p, "aten::contiguous"));
       p = graph_value_node (rsrc))
    rsrc = graph_node_input (p, 0);
  g_autoptr (GArray) rv = sym_get_const_ints (rsrc);
  GraphNode *rp = rsrc ? graph_value_node (rsrc) : NULL;
  if (rv == NULL && rp && graph_node_is (rp, "prim::Constant") && graph_value_get_name (rsrc))
    {
      /* a tensor constant the trace text prints as <Tensor>: its exact
       * values come with the weights (tools/torch2trace.py) */
      g_autofree char *key = g_strconcat ("__constant__.", graph_value_get_name (rsrc), NULL);
      Tensor *t = sym_weight_tensor (ctx, key);
      if (t && tensor_has_data (t) && tensor_rank (t) <= 1 && graph_dtype_is_integer (tensor_dtype (t)))
        {
          rv = g_array_new (FALSE, FALSE, sizeof (gint64));
          for (gint64 i = 0; i < tensor_numel (t); i++)
            {
              gint64 v = tensor_get_int64 (t, i);
              g_array_append_val (rv, v);
            }
        }
    }
  gboolean scalar = sym_get_const_int (rsrc, &reps);
  if (!scalar && rv && rv->len == 1)
    {
      scalar = TRUE;
      reps = g_array_index (rv, gint64, 0);
    }
  if (!scalar && rv == NULL && sym_opset (ctx) < 11)
    /* torch 1.13: exports repeats known only at run time with Split/Expand/Concat of a static size
     * before opset 13; not yet here before 11 (CumSum) */
    return sym_unimplemented (ctx, n, error, "repeat_interleave with per-element repeats known "
                              "only at run time");
  int rank = sym_rank (self);
  if (rank < 0 || rank >= TENSOR_MAX_RANK)
    /* torch 1.13: also refuses (its symbolic needs the input's rank) */
    return sym_unimplemented (ctx, n, error, "repeat_interleave of an input of unknown rank");
  GraphValue *d = graph_node_n_inputs (n) > 2 ? graph_node_input (n, 2) : NULL;
  if (d == NULL || sym_is_none (d))
    {
      static const gint64 flat[] = { -1 };
      self = sym_reshape_static (ctx, self, 1, flat);
      rank = 1;
    }
  else if (!sym_parse_args (ctx, n, "none,none,i", &dim, error))
    return FALSE;
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    /* torch 1.13: also refuses (PyTorch rejects a dim out of range) */
    return sym_unimplemented (ctx, n, error, "dim out of range");
  gint64 dims[TENSOR_MAX_RANK];
  gboolean fixed = sym_static_shape (self, dims);
  if (!scalar && rv == NULL)
    return repeat_interleave_computed (ctx, n, self, dim, out, error);
  if (!scalar)
    {
      /* Constant per-element repeats: the source index of each output
       * position, a constant, and one Gather along dim (exact, any opset;
       * torch writes a Split, Expands and a Concat, or a Loop from 13). */
      gint64 len = sym_static_dim_size (self, dim), total = 0;
      if (len < 0 || len != (gint64) rv->len)
        /* torch 1.13: also refuses a size it cannot check (PyTorch rejects repeats of another
         * length than the dim) */
        return sym_unimplemented (ctx, n, error, "%u per-element repeats along a dim of %s size",
                                  rv->len, len < 0 ? "unknown" : "another");
      for (guint i = 0; i < rv->len; i++)
        {
          gint64 r = g_array_index (rv, gint64, i);
          if (r < 0 || r > (1 << 24) || (total += r) > (1 << 24))
            /* torch 1.13: exports any count (PyTorch rejects a negative one); not yet here (a
             * negative repeat or more than 2^24 elements as a constant index) */
            return sym_unimplemented (ctx, n, error, "repeats of %" G_GINT64_FORMAT, r);
        }
      g_autoptr (Tensor) idx = tensor_new_zeroed (GRAPH_DTYPE_INT64, 1, &total, error);
      if (idx == NULL)
        return FALSE;
      gint64 *p = (gint64 *) tensor_data (idx), k = 0;
      for (guint i = 0; i < rv->len; i++)
        for (gint64 j = 0; j < g_array_index (rv, gint64, i); j++)
          p[k++] = i;
      out[0] = graph_op (G, "Gather", self, sym_constant (ctx, idx), "axis_i", dim, NULL);
      return TRUE;
    }
  if (reps < 0)
    /* torch 1.13: exports it (PyTorch rejects a negative repeat); refused here because PyTorch
     * raises */
    return sym_unimplemented (ctx, n, error, "a negative repeat count");
  gint64 ax = dim + 1;
  GraphValue *u = sym_unsqueeze (ctx, self, 1, &ax);
  if (fixed)
    {
      gint64 ex[TENSOR_MAX_RANK], res[TENSOR_MAX_RANK];
      for (int i = 0, j = 0; i < rank; i++)
        {
          ex[j++] = dims[i];
          if (i == dim)
            ex[j++] = reps;
          res[i] = i == dim ? dims[i] * reps : dims[i];
        }
      u = graph_op (G, "Expand", u, sym_const_ints (ctx, (gsize) rank + 1, ex), NULL);
      out[0] = sym_reshape_static (ctx, u, (gsize) rank, res);
      return TRUE;
    }
  /* Sizes known only at run time: the same Unsqueeze, Expand and Reshape
   * with shapes computed from Shape(self). */
  GraphValue *shape = sym_size (ctx, self, G_MININT64);
  GraphValue *ex = shape_around (ctx, shape, rank, dim + 1, dim + 1, sym_const_ints (ctx, 1, &reps));
  gint64 d0 = dim, d1 = dim + 1, zero = 0;
  GraphValue *len = sym_slice (ctx, shape, 1, &zero, &d0, &d1, NULL);
  GraphValue *grown = graph_op (G, "Mul", len, sym_const_ints (ctx, 1, &reps), NULL);
  sym_set_type (grown, GRAPH_DTYPE_INT64, 1, NULL);
  GraphValue *res = shape_around (ctx, shape, rank, dim, dim + 1, grown);
  out[0] = graph_op (G, "Reshape", graph_op (G, "Expand", u, ex, NULL), res, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::size", sym_size_op),
  SYM_FN ("aten::contiguous", sym_identity),
  SYM_FN ("aten::detach", sym_identity),
  SYM_FN ("aten::clone", sym_identity),
  SYM_FN ("aten::alias", sym_identity),
  SYM_FN ("prim::data", sym_identity),   /* x.data in scripted code: x, as torch's prim_data */
  SYM_FN ("prim::tolist", sym_tolist),
  SYM_FN ("aten::set_", sym_set),
  SYM_FN ("aten::lift_fresh", sym_identity),
  SYM_FN ("aten::to", sym_to),
  SYM_FN ("aten::type_as", sym_to),
  SYM_FN ("aten::float", sym_to),
  SYM_FN ("aten::double", sym_to),
  SYM_FN ("aten::long", sym_to),
  SYM_FN ("aten::int", sym_to),
  SYM_FN ("aten::bool", sym_to),
  SYM_FN ("aten::half", sym_to),
  SYM_FN ("aten::view", sym_view),
  SYM_FN ("aten::reshape", sym_view),
  SYM_FN ("aten::view_as", sym_view_as),
  SYM_FN ("aten::reshape_as", sym_view_as),
  SYM_FN ("aten::flatten", sym_flatten),
  SYM_FN ("aten::unfold", sym_unfold),
  SYM_FN ("aten::transpose", sym_transpose),
  SYM_FN ("aten::permute", sym_permute),
  SYM_FN ("aten::cat", sym_cat),
  SYM_FN ("aten::concat", sym_cat),
  SYM_FN ("aten::stack", sym_stack),
  SYM_FN ("aten::split", sym_split_op),
  SYM_FN ("aten::split_with_sizes", sym_split_op),
  SYM_FN ("aten::chunk", sym_chunk),
  SYM_FN ("aten::unbind", sym_unbind),
  SYM_FN ("aten::squeeze", sym_squeeze_op),
  SYM_FN ("aten::unsqueeze", sym_unsqueeze_op),
  SYM_FN ("aten::slice", sym_slice_op),
  SYM_FN ("aten::select", sym_select),
  SYM_FN ("aten::narrow", sym_narrow),
  SYM_FN ("aten::expand", sym_expand),
  SYM_FN ("aten::expand_as", sym_expand_as),
  SYM_FN ("aten::repeat", sym_repeat),
  SYM_FN ("aten::where", sym_where),
  SYM_FN ("aten::masked_fill", sym_masked_fill),
  SYM_FN ("aten::roll", sym_roll),
  SYM_FN ("aten::movedim", sym_movedim),
  SYM_FN ("aten::meshgrid", sym_meshgrid),
  SYM_FN ("aten::repeat_interleave", sym_repeat_interleave),
  SYM_FN ("aten::broadcast_tensors", sym_broadcast_tensors),
  SYM_FN ("aten::cross", sym_cross),
  SYM_FN ("aten::linalg_cross", sym_cross),
  SYM_FN ("aten::sort", sym_sort),
  SYM_FN ("aten::argsort", sym_argsort),
  SYM_FN ("aten::pixel_unshuffle", sym_pixel_unshuffle),
  SYM_FN ("aten::topk", sym_topk),
  SYM_FN ("aten::upsample_nearest2d", sym_upsample_nearest),
  SYM_FN ("aten::upsample_nearest1d", sym_upsample_nearest),
  SYM_FN ("aten::upsample_nearest3d", sym_upsample_nearest),
  SYM_FN ("aten::upsample_linear1d", sym_upsample_bilinear),
  SYM_FN ("aten::upsample_trilinear3d", sym_upsample_bilinear),
  SYM_FN ("aten::upsample_bilinear2d", sym_upsample_bilinear),
};
const SymTable sym_opset9_shape = SYM_TABLE (9, entries);
