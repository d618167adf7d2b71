/* Symbolic shape propagation (export/pipeline/shape-propagation.c): the types and helpers
 * shared by its pieces, shape-dims.c (dim arithmetic, value and attribute
 * helpers), shape-rules-nn.c and shape-rules-tensor.c (the shape rules).
 * Private to export/, not installed. */
#pragma once

#include "export/export.h"

/* Bad-input guards: dims and pads beyond DIM_LIMIT, and kernels, strides
 * and dilations beyond ATTR_LIMIT, are not computed with (no overflow). */
#define DIM_LIMIT  (G_GINT64_CONSTANT (1) << 40)
#define ATTR_LIMIT (G_GINT64_CONSTANT (1) << 20)

typedef struct
{
  int      rank;                     /* -1: unknown */
  GraphDim d[TENSOR_MAX_RANK];
} Shape;

/* The values of a small integer tensor (rank <= 1), each a dim. */
typedef struct
{
  guint    n;
  gboolean scalar;
  GraphDim v[TENSOR_MAX_RANK];
} DimVec;

typedef struct
{
  Graph      *g;
  int         opset;
  GHashTable *tainted;  /* values computed from a dynamic input */
  GHashTable *shapes;   /* GraphValue* → Shape*: tainted values, and
                           others whose traced type has no rank */
  GHashTable *data;     /* GraphValue* → DimVec* */
  gboolean    fill_untyped;  /* export_infer_types: also write the types of
                                untyped values not computed from a dynamic input */
} Ctx;

/* A shape rule fills out[0..n_outputs) or returns FALSE. */
typedef gboolean (*ShapeRule) (Ctx *c, GraphNode *n, Shape *out);

/* ---- dims (shape-dims.c) ------------------------------------------------- */

gboolean shape_small (gint64 v);   /* within ±DIM_LIMIT */
GraphDim shape_dim_static (gint64 v);
GraphDim shape_dim_unknown (void);
gboolean shape_is_static (const GraphDim *d, gint64 v);
/* d + k: a symbol only when k == 0. */
GraphDim shape_dim_add (GraphDim d, gint64 k);
GraphDim shape_dim_mul (GraphDim a, GraphDim b);
/* Product of dims [from, to). */
GraphDim shape_dims_product (const Shape *s, int from, int to);
/* Two dims that must be equal: the one known best. */
GraphDim shape_dim_merge (GraphDim a, GraphDim b);
/* One broadcast position of n dims. */
GraphDim shape_dim_broadcast (const GraphDim *ds, guint n);
/* Output size of a sliding window (Conv, pools). */
GraphDim shape_window_dim (GraphDim in, gint64 k, gint64 pad, gint64 pad_begin, gint64 stride,
                           gboolean ceil_mode);

/* ---- values and attributes (shape-dims.c) -------------------------------- */

/* A value's shape: computed for tainted values, else its type's. */
gboolean shape_of (Ctx *c, GraphValue *v, Shape *s);
Tensor  *shape_const_tensor (GraphValue *v);
/* The values of a small integer tensor: a constant's, or propagated. */
gboolean shape_data_of (Ctx *c, GraphValue *v, DimVec *out);
/* The values of a constant as static integers (attribute-like inputs). */
gboolean shape_ints_of (Ctx *c, GraphValue *v, gint64 *vals, guint *n);
gint64   shape_attr_i (GraphNode *n, const char *name, gint64 dflt);
gboolean shape_attr_is (GraphNode *n, const char *name, gint64 *vals, guint want, gint64 dflt);
/* Axes from the attribute (older opsets) or input `input` (newer). */
gboolean shape_axes_of (Ctx *c, GraphNode *n, guint input, gint64 *axes, guint *n_axes,
                        gboolean *present);
gboolean shape_norm_axis (gint64 *axis, int rank);
/* Input i, NULL when the node has fewer inputs. */
GraphValue *shape_in_at (GraphNode *n, guint i);

/* ---- rules for network ops (shape-rules-nn.c) ---------------------------- */

gboolean shape_rule_conv (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_conv_transpose (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_pool (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_global_pool (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_gemm (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_matmul (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_pad (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_resize (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_rnn (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_reduce (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_topk (Ctx *c, GraphNode *n, Shape *out);

/* ---- rules for element-wise and layout ops (shape-rules-tensor.c) -------- */

gboolean shape_rule_same (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_like_input1 (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_shape_attr (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_layer_norm (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_broadcast (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_flatten (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_reshape (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_transpose (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_concat (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_split (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_slice (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_squeeze (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_unsqueeze (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_gather (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_shape (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_scalar (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_range (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_constant_of_shape (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_expand (Ctx *c, GraphNode *n, Shape *out);
gboolean shape_rule_tile (Ctx *c, GraphNode *n, Shape *out);
/* Slice of one dim [start, end) by step, ONNX's clamping (also used by the
 * data propagation of Slice). */
GraphDim shape_slice_dim (GraphDim d, gint64 start, gint64 end, gint64 step);
/* Shape's [start, end) (opset 15), clamped as ONNX does. */
void     shape_range (GraphNode *n, int rank, gint64 *start, gint64 *end);

/* ---- incremental propagation (shape-propagation.c) ----------------------- */

/* The propagation of export_infer_shapes, node by node: the export runs it
 * on the nodes each symbolic emits, so later symbolics see the dynamic
 * dims (Note [Dynamic axes during translation] in pipeline.c). */
typedef struct _ExportShapeProp ExportShapeProp;
ExportShapeProp *export_shape_prop_new (Graph *g, GHashTable *dynamic_inputs, gboolean fill_untyped);
/* Propagates through `from` and every node after it. */
void             export_shape_prop_nodes (ExportShapeProp *p, GraphNode *from);
/* v is computed from a dynamic input. */
gboolean         export_shape_prop_is_dynamic (ExportShapeProp *p, GraphValue *v);
void             export_shape_prop_free (ExportShapeProp *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExportShapeProp, export_shape_prop_free)
