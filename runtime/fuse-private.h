/* What the fusion passes share (Note [Fusion], session-private.h):
 * runtime/fuse.c (Conv, Add, quantized Conv chains),
 * runtime/fuse-transformer.c (MatMul + bias + activation, LayerNorm and
 * Gelu as torch exports them) and runtime/fuse-qadd.c (quantized Add
 * chains). */
#pragma once

#include "runtime/session-private.h"
#include "runtime/spatial.h"

typedef struct
{
  RtSession  *s;
  GHashTable *pos;    /* GraphNode* → plan index + 1 */
  gboolean   *gone;   /* plan nodes merged into an earlier one */
} RtFuser;

/* Whether plan node p is an unfused ONNX `op`. */
gboolean     rt_fuse_is_op (const RtNodePlan *p, const char *op);
/* The plan index of v's only reader when v can be fused away (one use, by
 * a plan node not yet merged, neither a graph output nor a requested
 * output); -1 otherwise. */
int          rt_fuse_sole_reader (const RtFuser *fz, GraphValue *v);
/* The plan index of the node making v; -1 for inputs, weights, constants. */
int          rt_fuse_producer (const RtFuser *fz, GraphValue *v);
/* Whether v (NULL: absent) has its value before plan node i runs. */
gboolean     rt_fuse_ready_before (const RtFuser *fz, GraphValue *v, int i);
/* Whether v is known to hold one element (a constant's or weight's tensor,
 * or its type's static shape). */
gboolean     rt_fuse_is_scalar (GraphValue *v);
/* Input i of n, or NULL past its inputs. */
GraphValue  *rt_fuse_input_or_null (const GraphNode *n, guint i);
/* v's tensor when it is a weight or a Constant's output; NULL otherwise. */
Tensor      *rt_fuse_const (GraphValue *v);
/* Makes plan node i the fused node: kernel def with its state (taken),
 * inputs ins[0..n_in) and output out.  The node's own state is freed. */
void         rt_fuse_replace (RtFuser *fz, int i, const RtKernelDef *def, gpointer state,
                              GraphValue **ins, guint n_in, GraphValue *out);

/* Output 0 of the running fused node, once its kernel has made it. */
RtTensor    *rt_fuse_output (RtCall *call);

/* MatMul + Add (+ Gelu | Relu), the LayerNorm and Gelu patterns of torch's
 * exports (runtime/fuse-transformer.c). */
void         rt_fuse_transformer (RtFuser *fz);
gboolean     rt_fuse_transformer_is_def (const RtKernelDef *def);

/* DequantizeLinear ×2 → Add [→ Relu] → QuantizeLinear as QNNPACK's add
 * (Note [Quantized Add chains], runtime/fuse-qadd.c). */
void         rt_fuse_qdq_add (RtFuser *fz);
gboolean     rt_fuse_qdq_add_is_def (const RtKernelDef *def);

/* Their kernels (runtime/fused-transformer.c). */
typedef enum { RT_FUSED_NONE, RT_FUSED_RELU, RT_FUSED_GELU } RtFusedAct;
typedef struct
{
  RtFusedAct act;
  RtPackedW *packed;   /* the MatMul's packed B (its prepare()), or NULL */
} RtFusedMatMul;
extern const RtKernelDef rt_fused_matmul_def;      /* A, B, bias, Gelu's c1 c2 c3; RtFusedMatMul */
extern const RtKernelDef rt_fused_layernorm_def;   /* x, exponent, eps, scale, bias */
extern const RtKernelDef rt_fused_gelu_def;        /* x, c1, c2, c3 */
