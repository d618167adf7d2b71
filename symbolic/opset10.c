/* Opset 10: what changed from 9 (Slice inputs, TopK k input, Resize and
 * MaxPool ceil_mode are handled by the opset-aware helpers the opset 9
 * functions call); new here: flip, embedding_bag. */
#include <math.h>
#include "symbolic/opset-tables.h"

/* aten::flip(self, dims): Slice with step -1 on each dim (Slice steps
 * exist from 10). */
static gboolean
sym_flip (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize nd;
  const gint64 *dims;
  if (!sym_parse_args (ctx, n, "v,ds", &self, &nd, &dims, error))
    return FALSE;
  if (nd > TENSOR_MAX_RANK)
    /* torch 1.13: writes a Slice per dim; refused here because more dims than a tensor's maximum
     * rank repeat a dim, which PyTorch rejects */
    return sym_unimplemented (ctx, n, error, "flip of %zu dims", nd);
  gint64 starts[TENSOR_MAX_RANK], ends[TENSOR_MAX_RANK], steps[TENSOR_MAX_RANK];
  for (gsize i = 0; i < nd; i++)
    {
      starts[i] = -1;
      ends[i] = G_MININT64;
      steps[i] = -1;
    }
  out[0] = sym_slice (ctx, self, nd, dims, starts, ends, steps);
  return TRUE;
}

/* embedding_bag with a number of bags known only at run time (offsets
 * computed from a dynamic size; torch 1.13 builds a Loop), and at opset 9
 * (where torch refuses): a mask
 * M[b, j] = start_b <= j < end_b over the bags and the index positions,
 * the rows Gathered once, and a masked reduction over j (Where, then
 * ReduceSum/ReduceMax: exact, and a non-finite row stays in its bags).
 * Empty bags give 0 in every mode, as PyTorch.  The positions j are a
 * Range from opset 11, before it a constant (n_static: the number of
 * indices, which must then be static). */
static GraphValue *
embedding_bag_masked (SymContext *ctx, GraphValue *weight, GraphValue *indices, GraphValue *offsets,
                      GraphValue *per_sample, gboolean include_last, gint64 mode, gint64 n_static)
{
  Graph *g = sym_graph (ctx);
  static const gint64 zero = 0, one = 1, two = 2, minus1 = -1, big = G_MAXINT64;
  GraphValue *len, *j;
  if (sym_opset (ctx) >= 11)
    {
      len = sym_size (ctx, indices, 0);
      j = graph_op (g, "Range", sym_const_i64 (ctx, 0), len, sym_const_i64 (ctx, 1), NULL);
      len = sym_unsqueeze (ctx, len, 1, &zero);
    }
  else
    {
      g_autofree gint64 *pos = g_new (gint64, n_static > 0 ? n_static : 1);
      for (gint64 k = 0; k < n_static; k++)
        pos[k] = k;
      len = sym_const_ints (ctx, 1, &n_static);
      j = sym_const_ints (ctx, (gsize) n_static, pos);
    }
  GraphValue *ext = offsets;
  if (!include_last)
    {
      GraphValue *parts[2] = { offsets, len };
      ext = graph_opv (g, "Concat", 2, parts, "axis_i", (gint64) 0, NULL);
    }
  GraphValue *starts = sym_slice (ctx, ext, 1, &zero, &zero, &minus1, NULL);
  GraphValue *ends = sym_slice (ctx, ext, 1, &zero, &one, &big, NULL);
  GraphValue *jr = sym_unsqueeze (ctx, j, 1, &zero);                 /* [1, n] */
  GraphValue *in_bag = graph_op (g, "And",
                                 graph_op (g, "Not", graph_op (g, "Less", jr, sym_unsqueeze (ctx, starts, 1, &one),
                                                               NULL), NULL),
                                 graph_op (g, "Less", jr, sym_unsqueeze (ctx, ends, 1, &one), NULL), NULL);
  GraphValue *emb = graph_op (g, "Gather", weight, indices, NULL);  /* [n, d] */
  if (per_sample)
    emb = graph_op (g, "Mul", emb, sym_unsqueeze (ctx, per_sample, 1, &one), NULL);
  GraphValue *m3 = sym_unsqueeze (ctx, in_bag, 1, &two);             /* [B, n, 1] */
  GraphValue *e3 = sym_unsqueeze (ctx, emb, 1, &zero);               /* [1, n, d] */
  GraphValue *fill = sym_scalar_like (ctx, mode == 2 ? -INFINITY : 0.0, weight);
  GraphValue *r = sym_reduce (ctx, mode == 2 ? "ReduceMax" : "ReduceSum",
                              graph_op (g, "Where", m3, e3, fill, NULL), 1, &one, FALSE);
  if (mode == 0)
    return r;
  GraphValue *count = sym_reduce (ctx, "ReduceSum", sym_cast (ctx, in_bag, sym_dtype (weight)), 1, &one, TRUE);
  if (mode == 1)   /* mean: an empty bag's 0 / 1 */
    return graph_op (g, "Div", r, graph_op (g, "Max", count, sym_scalar_like (ctx, 1.0, weight), NULL), NULL);
  return graph_op (g, "Where", graph_op (g, "Greater", count, sym_scalar_like (ctx, 0.0, weight), NULL), r,
                   sym_scalar_like (ctx, 0.0, weight), NULL);
}

/* aten::embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode,
 * sparse, per_sample_weights, include_last_offset, padding_idx), in
 * torch 1.13's opset-10 form, which needs the number of bags (offsets'
 * length) to be static: per bag, Slice its indices out, Gather their
 * rows, weight them, reduce (sum, mean or max) and Unsqueeze; then one
 * Concat.  Only the first output (the bags) is produced: the other three
 * are unused by nn.EmbeddingBag and F.embedding_bag, as in torch.  (torch
 * builds a Loop from opset 11 on; this unrolled form is valid there too.) */
static gboolean
sym_embedding_bag (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *weight, *indices, *offsets, *per_sample, *padding;
  gboolean scale_grad, sparse, include_last;
  gint64 mode;
  if (!sym_parse_args (ctx, n, "v,v,v,b,i,b,v,b,v", &weight, &indices, &offsets, &scale_grad,
                       &mode, &sparse, &per_sample, &include_last, &padding, error))
    return FALSE;
  gint64 pad_idx;
  if (padding != NULL && sym_get_const_int (graph_node_input (n, 8), &pad_idx) && pad_idx >= 0)
    /* torch 1.13: also refuses (RuntimeError "embedding_bag with padding_idx") */
    return sym_unimplemented (ctx, n, error, "embedding_bag with padding_idx");
  if (mode < 0 || mode > 2)
    /* torch 1.13: also refuses (PyTorch has only modes sum, mean and max) */
    return sym_unimplemented (ctx, n, error, "embedding_bag mode %" G_GINT64_FORMAT, mode);
  GraphType *ot = sym_type (offsets);
  const GraphDim *od = ot && graph_type_rank (ot) == 1 ? graph_type_dim (ot, 0) : NULL;
  if (od != NULL && od->kind != GRAPH_DIM_STATIC && sym_opset (ctx) >= 11)
    {
      out[0] = embedding_bag_masked (ctx, weight, indices, offsets, per_sample, include_last, mode, -1);
      return out[0] != NULL;
    }
  if (sym_opset (ctx) < 10 || od == NULL || od->kind != GRAPH_DIM_STATIC)
    {
      /* before opset 10, and at 10 where the number of bags is not static
       * (a 2-D input's offsets, arange(0, numel, width), as the trace
       * records them: PyTorch's suite, test_embedding_bag), the mask form
       * over indices of static length */
      gint64 n_idx = sym_static_dim_size (indices, 0);
      if (sym_rank (indices) != 1 || sym_rank (offsets) != 1 || n_idx < 0 || n_idx > (1 << 24))
        /* torch 1.13: also refuses before opset 10 (_onnx_unsupported outside caffe2's ATen
         * fallback) and at 10 for offsets of unknown length; symonnx exports 1-D indices of static
         * length there */
        return sym_unimplemented (ctx, n, error, "embedding_bag before opset 11 of indices that "
                                  "are not 1-D of a static length (at most 2^24)");
      out[0] = embedding_bag_masked (ctx, weight, indices, offsets, per_sample, include_last, mode, n_idx);
      return out[0] != NULL;
    }
  gint64 bags = include_last ? od->value - 1 : od->value;
  if (bags <= 0)
    /* torch 1.13: also refuses (RuntimeError "Input 0 is out of bounds" on no bags) */
    return sym_unimplemented (ctx, n, error, "embedding_bag without bags");
  GraphValue *ext = offsets;
  if (!include_last)
    {
      gint64 big = G_MAXINT64;
      GraphValue *parts[2] = { offsets, sym_const_ints (ctx, 1, &big) };
      ext = graph_opv (sym_graph (ctx), "Concat", 2, parts, "axis_i", (gint64) 0, NULL);
    }
  static const char *const reduce[] = { "ReduceSum", "ReduceMean", "ReduceMax" };
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  gint64 zero = 0;
  for (gint64 i = 0; i < bags; i++)
    {
      GraphValue *bound[2];
      for (int k = 0; k < 2; k++)
        bound[k] = sym_unsqueeze (ctx, graph_op (sym_graph (ctx), "Gather", ext,
                                                 sym_const_i64 (ctx, i + k), "axis_i", (gint64) 0, NULL),
                                  1, &zero);
      GraphValue *axes = sym_const_ints (ctx, 1, &zero);
      GraphValue *idx = graph_op (sym_graph (ctx), "Slice", indices, bound[0], bound[1], axes, NULL);
      GraphValue *emb = graph_op (sym_graph (ctx), "Gather", weight, idx, NULL);
      if (per_sample)
        {
          GraphValue *w = graph_op (sym_graph (ctx), "Slice", per_sample, bound[0], bound[1], axes, NULL);
          gint64 one = 1;
          emb = graph_op (sym_graph (ctx), "Mul", emb, sym_unsqueeze (ctx, w, 1, &one), NULL);
        }
      emb = sym_reduce (ctx, reduce[mode], emb, 1, &zero, FALSE);
      g_ptr_array_add (rows, sym_unsqueeze (ctx, emb, 1, &zero));
    }
  out[0] = graph_opv (sym_graph (ctx), "Concat", rows->len, (GraphValue *const *) rows->pdata,
                      "axis_i", (gint64) 0, NULL);
  return TRUE;
}

/* aten::fmod: Mod with fmod=1 (Mod exists from 10). */
static gboolean
sym_fmod (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Mod", self, other, "fmod_i", (gint64) 1, NULL);
  return TRUE;
}

/* IsInf of x cast to double, as torch writes it; before opset 10 (no
 * IsInf, where torch refuses) |x| > DBL_MAX, exact: only ±inf is larger. */
static GraphValue *
isinf_of (SymContext *ctx, GraphValue *x)
{
  Graph *g = sym_graph (ctx);
  GraphValue *d = sym_cast (ctx, x, GRAPH_DTYPE_DOUBLE);
  if (sym_opset (ctx) < 10)
    return graph_op (g, "Greater", graph_op (g, "Abs", d, NULL),
                     sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, G_MAXDOUBLE), NULL);
  return graph_op (g, "IsInf", d, NULL);
}

static gboolean
sym_isinf (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = isinf_of (ctx, self);
  return TRUE;
}

/* aten::isfinite: Not(IsInf or IsNaN) */
static gboolean
sym_isfinite (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  GraphValue *inf = isinf_of (ctx, self);
  GraphValue *nan = graph_op (g, "IsNaN", self, NULL);
  out[0] = graph_op (g, "Not", graph_op (g, "Or", inf, nan, NULL), NULL);
  return TRUE;
}

/* A 1-element 1-D constant of `like`'s (floating) type. */
static GraphValue *
fill_1d (SymContext *ctx, GraphDType dt, double v)
{
  gint64 one = 1;
  g_autoptr (Tensor) s = tensor_new_scalar_double (dt, v);   /* stores float16/bfloat16 too */
  g_autoptr (Tensor) t = tensor_new_from_data (dt, 1, &one, tensor_data (s), graph_dtype_size (dt), NULL);
  return sym_constant (ctx, t);
}

/* aten::nan_to_num(self, nan, posinf, neginf): three Wheres; None
 * infinities become the type's largest finite values.  Non-float inputs
 * pass through. */
static gboolean
sym_nan_to_num (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphDType dt = sym_dtype (self);
  if (!graph_dtype_is_floating (dt))
    {
      out[0] = self;
      return TRUE;
    }
  /* torch.finfo(dtype).max: the largest finite value of each type */
  double big = dt == GRAPH_DTYPE_DOUBLE ? G_MAXDOUBLE : dt == GRAPH_DTYPE_FLOAT16 ? 65504.0
               : dt == GRAPH_DTYPE_BFLOAT16 ? 3.3895313892515355e38 : G_MAXFLOAT;
  double v[3] = { 0.0, big, -big };
  for (guint i = 0; i < 3; i++)
    {
      GraphValue *a = graph_node_n_inputs (n) > i + 1 ? graph_node_input (n, i + 1) : NULL;
      if (a && !sym_is_none (a) && !sym_get_const_double (a, &v[i]))
        /* torch 1.13: also refuses (parse_args 'f' on a non-constant nan/posinf/neginf) */
        return sym_unimplemented (ctx, n, error, "nan_to_num with non-constant values");
    }
  Graph *g = sym_graph (ctx);
  GraphValue *r = graph_op (g, "Where", graph_op (g, "IsNaN", self, NULL), fill_1d (ctx, dt, v[0]),
                            self, NULL);
  for (int k = 0; k < 2; k++)
    {
      GraphValue *inf = isinf_of (ctx, r);
      /* torch compares with a LongTensor([0]) its type analysis casts */
      GraphValue *sign = graph_op (g, k == 0 ? "Greater" : "Less", r, fill_1d (ctx, dt, 0.0), NULL);
      /* torch's logical_and casts both sides to bool */
      inf = sym_cast (ctx, inf, GRAPH_DTYPE_BOOL);
      sign = sym_cast (ctx, sign, GRAPH_DTYPE_BOOL);
      GraphValue *cond = graph_op (g, "And", inf, sign, NULL);
      r = graph_op (g, "Where", cond, fill_1d (ctx, dt, v[k + 1]), r, NULL);
    }
  out[0] = r;
  return TRUE;
}

/* From opset 9 (torch: 10), isinf_of's form before 10; embedding_bag's
 * masked form before 10 (torch: an ATen node under caffe2, else refused). */
static const SymEntry entries9[] = {
  SYM_FN ("aten::isinf", sym_isinf),
  SYM_FN ("aten::isfinite", sym_isfinite),
  SYM_FN ("aten::nan_to_num", sym_nan_to_num),
  SYM_FN ("aten::embedding_bag", sym_embedding_bag),
};
const SymTable sym_opset9_isinf = SYM_TABLE (9, entries9);

static const SymEntry entries[] = {
  SYM_FN ("aten::fmod", sym_fmod),
  SYM_FN ("aten::flip", sym_flip),
  SYM_FN ("aten::embedding_bag", sym_embedding_bag),
};
const SymTable sym_opset10 = SYM_TABLE (10, entries);
