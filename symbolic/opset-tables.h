/* symonnx — symbolic/ internals: the opset tables, their line macros and
 * the bodies and helpers the opset files share (not installed; only
 * symbolic/ includes it.  export/ uses symbolic/translate.h). */
#pragma once

#include "symbolic/translate.h"

G_BEGIN_DECLS

/* One built-in table: the entries an opset adds or changes. */
typedef struct
{
  int             version;
  const SymEntry *entries;
  gsize           n_entries;
} SymTable;

/* Each opsetN file defines its table once: `const SymTable sym_opset11 =
 * SYM_TABLE (11, entries);`, and registry.c lists the tables. */
#define SYM_TABLE(version, entries) { version, entries, G_N_ELEMENTS (entries) }

/* Table lines.  SYM_FN: a symbolic of its own.  SYM_DATA: a family body
 * that reads its constant through sym_user_data().  SYM_ONNX: an aten op
 * that is one ONNX op on its single tensor argument ("aten::abs" → Abs).
 * SYM_REDUCE: aten::sum-style (self, dims?, keepdim?, dtype?) reductions. */
#define SYM_FN(name_, fn_)          { .name = (name_), .fn = (fn_), .data = NULL }
#define SYM_DATA(name_, fn_, data_) { .name = (name_), .fn = (fn_), .data = (data_) }
#define SYM_ONNX(name_, onnx_op)    SYM_DATA (name_, sym_onnx_unary, (onnx_op))
#define SYM_REDUCE(name_, onnx_op)  SYM_DATA (name_, sym_reduce_dims, (onnx_op))
/* aten::_cast_Float(self, non_blocking) style: Cast to GRAPH_DTYPE_<dt>. */
/* SYM_REFUSED: a symbolic that only refuses, with the reason torch 1.13
 * gives (sym_registry_only_refuses; the marker is its user data). */
extern const int sym_refused_marker;
#define SYM_REFUSED(name_, fn_)     SYM_DATA (name_, fn_, &sym_refused_marker)
#define SYM_CAST(name_, dt)         SYM_DATA (name_, sym_cast_to, &(const GraphDType) { GRAPH_DTYPE_##dt })

/* Family bodies shared by table lines (opset9-math.c). */
gboolean     sym_onnx_unary (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_reduce_dims (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_cast_to (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);

extern const SymTable sym_opset10_quantized, sym_opset13_quantized;   /* quantized.c */
extern const SymTable sym_opset9_math, sym_opset9_reduce, sym_opset9_nn, sym_opset9_shape,
                      sym_opset9_index, sym_opset9_create, sym_opset9_misc, sym_opset9_rnn,
                      sym_opset10, sym_opset11, sym_opset12, sym_opset13, sym_opset14,
                      sym_opset16, sym_opset17,
                      /* Issue 12's additions: torch 1.13 names the first tables lacked. */
                      sym_opset9_extra, sym_opset9_aliases, sym_opset9_beyond,
                      sym_opset9_isinf,   /* opset10.c: isinf & co., embedding_bag from 9 */
                      sym_opset11_extra,
                      /* Issue 12: random ops, losses, windows. */
                      sym_opset9_random, sym_opset12_random, sym_opset9_loss, sym_opset12_loss,
                      sym_opset9_window,
                      /* Issue 12: TorchScript's list and scalar ops (script-ops.c). */
                      sym_opset9_script, sym_opset10_script,
                      /* Issue 12: as_strided (opset9-strided.c); names whose symbolic
                       * only refuses (opset9-refused.c). */
                      sym_opset9_strided, sym_opset9_refused;

/* Helpers shared between the opset-9 files. */
/* trunc(x) = Sign(x) · Floor(|x|) of a float value (opset9-beyond.c). */
GraphValue  *sym_trunc_values (SymContext *ctx, GraphValue *x);
/* A 1-element 1-D float constant, as torch's torch.tensor([v]) (opset9-math.c). */
GraphValue  *sym_float_1d (SymContext *ctx, double v);
/* An integer clamp before opset 12, where Clip, Max and Min take no
 * integers: Where(x < lo, lo, x) then Where(x > hi, hi, x), exact (torch
 * 1.13 writes an integer Clip, which the checker refuses: PyTorch's suite,
 * test_clip_int); lo and hi (NULL: absent) are cast to self's type
 * (opset9-math.c). */
GraphValue  *sym_clamp_int_where (SymContext *ctx, GraphValue *self, GraphValue *lo, GraphValue *hi);
/* ConstantOfShape of `shape` filled with `value` in `dt` (opset9-create.c). */
GraphValue  *sym_constant_of_shape (SymContext *ctx, GraphValue *shape, GraphDType dt, double value);
/* 0, 1, ..., len - 1 (int64, 1-D) for a 0-d int64 `len`: Range from opset
 * 11; before, NonZero of a ConstantOfShape of ones, as torch 1.13's opset-9
 * arange (opset9-create.c). */
GraphValue  *sym_iota (SymContext *ctx, GraphValue *len);
/* A tensor of source value src's shape filled with v in dt: a constant when
 * that shape is static, else ConstantOfShape of Shape(self), self being
 * src's ONNX value (fill_, zero_; opset9-create.c). */
GraphValue  *sym_filled_like (SymContext *ctx, GraphValue *src, GraphValue *self, GraphDType dt, double v);
/* A constant of `dims` filled with v in dt, or NULL when too large (opset9-create.c). */
/* src sliced to index's shape where scatter_add reads it (symbolic/opset9-index.c). */
GraphValue  *sym_scatter_src_like_index (SymContext *ctx, GraphValue *src, GraphValue *index);
GraphValue  *sym_const_filled (SymContext *ctx, gsize rank, const gint64 *dims, GraphDType dt,
                               double v);
/* A constant of dt and dims holding the doubles v (converted as Cast
 * does); NULL and an error when it cannot be made (opset9-extra.c). */
GraphValue  *sym_const_doubles (SymContext *ctx, GraphDType dt, guint rank, const gint64 *dims,
                                const double *v, GError **error);
/* Shared with opset9-extra.c: torch ScalarType code → element type, dflt
 * when src is not a constant code (opset9-create.c); the pairwise distance
 * as torch writes it (opset9-reduce.c); a Split node's outputs as the
 * node's results or list output, squeezed along dim for unbind
 * (opset9-shape.c); and the symbolics whose aliases it lists. */
GraphDType   sym_scalar_type (GraphValue *src, GraphDType dflt);
/* aten::nonzero_numpy(self), also where(condition): one index tensor per
 * dim (opset9-extra.c). */
gboolean     sym_nonzero_numpy (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
GraphValue  *sym_pairwise_distance_values (SymContext *ctx, GraphValue *a, GraphValue *b,
                                           double p, double eps, gboolean keep);
gboolean     sym_finish_split (SymContext *ctx, GraphNode *n, GraphNode *sp, GraphValue **out,
                               gboolean squeeze, gint64 dim);
gboolean     sym_chunk (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
/* pixel_shuffle (`unshuffle` FALSE) or pixel_unshuffle of a 4-D self by r
 * with its sizes read at run time (Shape, Slice, Div/Mul, Concat): the
 * form for dynamic C, H, W (opset9-shape.c). */
GraphValue  *sym_pixel_shuffle_dynamic (SymContext *ctx, GraphValue *self, gint64 r, gboolean unshuffle);
gboolean     sym_split_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_unbind (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_transpose (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_upsample_mode (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error,
                                const char *mode);
/* Its body with the arguments by position (aten::__interpolate's differ):
 * size input size_idx, scale input scale_idx (-1: none), align_corners. */
gboolean     sym_upsample_at (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error,
                              const char *mode, guint size_idx, int scale_idx, gboolean align);
/* aten::floor_divide: floor(self / other), integers too (opset9-math.c). */
gboolean     sym_floor_divide (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
/* floor(a / b) of two values of one element type (opset9-math.c). */
GraphValue  *sym_floor_div_values (SymContext *ctx, GraphValue *a, GraphValue *b);
/* softmax's dtype argument: self cast to it (opset9-nn.c). */
gboolean     sym_softmax_input_dtype (SymContext *ctx, GraphNode *n, GraphValue **input, GError **error);
/* Softmax/LogSoftmax of input along dim: one op, or the Transpose form
 * torch writes before opset 13 (opset9-nn.c; the rank must be known). */
GraphValue  *sym_softmax_values (SymContext *ctx, GraphValue *input, gint64 dim, const char *op,
                                 gboolean pre13_form);
/* layer_norm's arguments (input, normalized_shape's length, weight, bias,
 * eps), an empty or too long normalized_shape refused (opset9-nn.c). */
gboolean     sym_parse_layer_norm (SymContext *ctx, GraphNode *n, GraphValue **input, gsize *ns,
                                   GraphValue **weight, GraphValue **bias, double *eps, GError **error);
/* layer_norm over the last ns dims as torch's opset-9 symbolic writes it
 * (ReduceMean, Sub, Pow, Sqrt, Div, then weight and bias when given); the
 * mean and the denominator sqrt(var + eps) through the optional pointers
 * (opset9-nn.c). */
GraphValue  *sym_layer_norm_values (SymContext *ctx, GraphValue *input, gsize ns, GraphValue *weight,
                                    GraphValue *bias, double eps, GraphValue **mean_out,
                                    GraphValue **den_out);
/* aten::tensor_split(self, int sections, dim) as one Split (opset13.c;
 * sym_split writes the form each opset takes, so opset9-beyond.c lists it
 * from 9). */
gboolean     sym_tensor_split13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
/* Symbolics listed again by a later opset's table, whose translation
 * depends on the target opset (defined in the opset-9 files). */
gboolean     sym_layer_norm_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_scatter_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error);
gboolean     sym_frobenius_norm_any (SymContext *ctx, GraphNode *n, GraphValue **out,
                                     GError **error);

G_END_DECLS
