/* The CUDA backend's table (Note [Backends] in runtime/backend.h): which
 * nodes have a CUDA kernel, their shapes and attributes read as the CPU
 * kernels read them, and the launches of rt-cuda.h.  Plain C: no CUDA
 * header.  Built into libsymonnx-cuda.so, which the runtime opens on
 * demand (Note [The CUDA plugin] in runtime/backend.c).
 *
 * A node whose element type, rank or shape the kernels here do not take is
 * declined (it runs on the CPU, reported); shape errors are declined too,
 * so the CPU kernel raises its usual message. */
#include "runtime/backend.h"
#include "cuda/rt-cuda.h"
#include <gmodule.h>
#include <string.h>

G_STATIC_ASSERT (RT_CUDA_MAX_RANK == RT_MAX_RANK);

typedef enum
{
  K_BINARY,
  K_UNARY,
  K_REDUCE,
  K_SOFTMAX,
  K_MATMUL,
  K_GEMM,
  K_SHAPE,       /* data movement only: any element type */
  K_SPLIT,
} CudaKind;

/* The ONNX ops with a CUDA kernel, listed once. */
static const struct
{
  const char *op;
  CudaKind    kind;
  int         code;          /* RtCudaBinaryOp, RtCudaUnaryOp, RtCudaReduceOp; 1: LogSoftmax */
  int         since;         /* lowest opset the kernel follows */
  int         axes_input;    /* Reduce*: the opset from which axes is an input */
} cuda_ops[] = {
  { "Add", K_BINARY, RT_CUDA_ADD, 7, 0 },
  { "Sub", K_BINARY, RT_CUDA_SUB, 7, 0 },
  { "Mul", K_BINARY, RT_CUDA_MUL, 7, 0 },
  { "Div", K_BINARY, RT_CUDA_DIV, 7, 0 },
  { "Pow", K_BINARY, RT_CUDA_POW, 7, 0 },
  { "Max", K_BINARY, RT_CUDA_MAX, 8, 0 },
  { "Min", K_BINARY, RT_CUDA_MIN, 8, 0 },
  { "Neg", K_UNARY, RT_CUDA_NEG, 6, 0 },
  { "Abs", K_UNARY, RT_CUDA_ABS, 6, 0 },
  { "Relu", K_UNARY, RT_CUDA_RELU, 6, 0 },
  { "Identity", K_UNARY, RT_CUDA_IDENTITY, 1, 0 },
  { "Sqrt", K_UNARY, RT_CUDA_SQRT, 6, 0 },
  { "Exp", K_UNARY, RT_CUDA_EXP, 6, 0 },
  { "Log", K_UNARY, RT_CUDA_LOG, 6, 0 },
  { "Tanh", K_UNARY, RT_CUDA_TANH, 6, 0 },
  { "Sigmoid", K_UNARY, RT_CUDA_SIGMOID, 6, 0 },
  { "Erf", K_UNARY, RT_CUDA_ERF, 9, 0 },
  { "Reciprocal", K_UNARY, RT_CUDA_RECIPROCAL, 6, 0 },
  { "Floor", K_UNARY, RT_CUDA_FLOOR, 6, 0 },
  { "Ceil", K_UNARY, RT_CUDA_CEIL, 6, 0 },
  { "Softplus", K_UNARY, RT_CUDA_SOFTPLUS, 1, 0 },
  { "LeakyRelu", K_UNARY, RT_CUDA_LEAKY_RELU, 6, 0 },
  { "Elu", K_UNARY, RT_CUDA_ELU, 6, 0 },
  { "ReduceSum", K_REDUCE, RT_CUDA_RSUM, 1, 13 },
  { "ReduceMean", K_REDUCE, RT_CUDA_RMEAN, 1, 18 },
  { "ReduceMax", K_REDUCE, RT_CUDA_RMAX, 1, 18 },
  { "ReduceMin", K_REDUCE, RT_CUDA_RMIN, 1, 18 },
  { "ReduceProd", K_REDUCE, RT_CUDA_RPROD, 1, 18 },
  { "ReduceSumSquare", K_REDUCE, RT_CUDA_RSUMSQUARE, 1, 18 },
  { "Softmax", K_SOFTMAX, 0, 1, 0 },
  { "LogSoftmax", K_SOFTMAX, 1, 1, 0 },
  { "MatMul", K_MATMUL, 0, 1, 0 },
  { "Gemm", K_GEMM, 0, 7, 0 },
  { "Reshape", K_SHAPE, 0, 1, 0 },
  { "Flatten", K_SHAPE, 0, 1, 0 },
  { "Squeeze", K_SHAPE, 0, 1, 0 },
  { "Unsqueeze", K_SHAPE, 0, 1, 0 },
  { "Transpose", K_SHAPE, 0, 1, 0 },
  { "Expand", K_SHAPE, 0, 8, 0 },
  { "Split", K_SPLIT, 0, 2, 0 },
};

static int
find_op (const GraphNode *node)
{
  if (strcmp (graph_node_domain (node), "onnx") != 0)
    return -1;
  const char *op = graph_node_op_type (node);
  for (guint i = 0; i < G_N_ELEMENTS (cuda_ops); i++)
    if (strcmp (cuda_ops[i].op, op) == 0)
      return (int) i;
  return -1;
}

/* ---- the table's memory functions ------------------------------------------ */

static gboolean
cuda_probe (GError **error)
{
  int n = 0;
  const char *err = rt_cuda_probe (&n);
  if (err)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_DEVICE, "%s", err);
      return FALSE;
    }
  return TRUE;
}

static gpointer
cuda_alloc (gsize nbytes, GError **error)
{
  void *p = NULL;
  const char *err = rt_cuda_malloc (&p, nbytes);
  if (err)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_TOO_LARGE, "%zu bytes on the GPU: %s", nbytes, err);
      return NULL;
    }
  return p;
}

static void
cuda_free (gpointer p)
{
  rt_cuda_free (p);
}

static gboolean
cuda_copy_to_device (gpointer dst, gconstpointer src, gsize nbytes, GError **error)
{
  const char *err = rt_cuda_copy_to_device (dst, src, nbytes);
  if (err)
    g_set_error (error, RT_ERROR, RT_ERROR_FAILED, "%s", err);
  return err == NULL;
}

static gboolean
cuda_copy_to_host (gpointer dst, gconstpointer src, gsize nbytes, GError **error)
{
  const char *err = rt_cuda_copy_to_host (dst, src, nbytes);
  if (err)
    g_set_error (error, RT_ERROR, RT_ERROR_FAILED, "%s", err);
  return err == NULL;
}

static gboolean
cuda_supports (const GraphNode *node, gint64 opset)
{
  int i = find_op (node);
  if (i < 0 || opset < cuda_ops[i].since)
    return FALSE;
  /* Max and Min are variadic; the kernel takes two operands. */
  if (cuda_ops[i].kind == K_BINARY && graph_node_n_inputs (node) != 2)
    return FALSE;
  return TRUE;
}

/* ---- run --------------------------------------------------------------------- */

static RtBackendStatus
decline (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static RtBackendStatus
decline (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, RT_ERROR, RT_ERROR_UNSUPPORTED, msg);
  return RT_BACKEND_DECLINED;
}

static RtBackendStatus
launch_result (RtCall *call, const char *err, GError **error)
{
  if (err == NULL)
    return RT_BACKEND_DONE;
  rt_call_error (call, error, RT_ERROR_FAILED, "%s", err);
  return RT_BACKEND_FAILED;
}

static gboolean
cuda_dtype (GraphDType d, RtCudaDType *out)
{
  switch (d)
    {
    case GRAPH_DTYPE_FLOAT: *out = RT_CUDA_F32; return TRUE;
    case GRAPH_DTYPE_DOUBLE: *out = RT_CUDA_F64; return TRUE;
    case GRAPH_DTYPE_INT32: *out = RT_CUDA_I32; return TRUE;
    case GRAPH_DTYPE_INT64: *out = RT_CUDA_I64; return TRUE;
    default: return FALSE;
    }
}

static gboolean
is_float (RtCudaDType dt)
{
  return dt == RT_CUDA_F32 || dt == RT_CUDA_F64;
}

/* numpy broadcast of a and b; FALSE when they do not broadcast. */
static gboolean
broadcast (const RtTensor *a, const RtTensor *b, RtCudaBroadcast *bc)
{
  guint rank = MAX (a->rank, b->rank);
  memset (bc, 0, sizeof *bc);
  bc->rank = (int) rank;
  for (guint i = 0; i < rank; i++)
    {
      gint64 da = i + a->rank >= rank ? a->dims[i + a->rank - rank] : 1;
      gint64 db = i + b->rank >= rank ? b->dims[i + b->rank - rank] : 1;
      if (da != db && da != 1 && db != 1)
        return FALSE;
      bc->dims[i] = da == 1 ? db : da;
    }
  rt_broadcast_strides (a, rank, bc->dims, bc->a_strides);
  rt_broadcast_strides (b, rank, bc->dims, bc->b_strides);
  return TRUE;
}

static RtBackendStatus
run_binary (RtCall *call, RtCudaBinaryOp op, RtCudaDType dt, GError **error)
{
  const RtTensor *a = call->inputs[0], *b = call->inputs[1];
  if (b == NULL || b->dtype != a->dtype)
    return decline (error, "operands of different element types");
  RtCudaBroadcast bc;
  if (!broadcast (a, b, &bc))
    return decline (error, "shapes that do not broadcast");
  RtTensor *o = rt_call_output (call, 0, a->dtype, (guint) bc.rank, bc.dims, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  return launch_result (call, rt_cuda_binary (op, dt, &bc, a->data, b->data, o->data, o->numel),
                        error);
}

static RtBackendStatus
run_unary (RtCall *call, RtCudaUnaryOp op, RtCudaDType dt, GError **error)
{
  const RtTensor *a = call->inputs[0];
  if (RT_CUDA_UNARY_FLOAT_ONLY (op) && !is_float (dt))
    return decline (error, "no CUDA kernel for element type %s", rt_dtype_name (a->dtype));
  double alpha = 0;
  if (op == RT_CUDA_LEAKY_RELU)
    alpha = rt_attr_f (call->node, "alpha", 0.01);
  else if (op == RT_CUDA_ELU)
    alpha = rt_attr_f (call->node, "alpha", 1.0);
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  return launch_result (call, rt_cuda_unary (op, dt, alpha, a->data, o->data, a->numel), error);
}

/* The reduced axes as the CPU kernel reads them (runtime/k-reduce.c):
 * an axes input from `axes_input` on (copied from the device), else the
 * attribute; none: all, or nothing with noop_with_empty_axes. */
static RtBackendStatus
reduce_axes (RtCall *call, int axes_input, gboolean *red, gboolean *noop, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 axes[RT_MAX_RANK];
  guint n = 0;
  *noop = FALSE;
  memset (red, 0, RT_MAX_RANK * sizeof (gboolean));
  if (call->opset >= axes_input)
    {
      const RtTensor *t = call->n_inputs > 1 ? call->inputs[1] : NULL;
      if (t)
        {
          if (t->dtype != GRAPH_DTYPE_INT64 || t->numel > RT_MAX_RANK)
            return decline (error, "axes that are not up to %d int64 values", RT_MAX_RANK);
          const char *err = t->numel ? rt_cuda_copy_to_host (axes, t->data,
                                                             (gsize) t->numel * sizeof (gint64))
                                     : NULL;
          if (err)
            return launch_result (call, err, error);
          n = (guint) t->numel;
        }
      if (n == 0 && rt_attr_i (call->node, "noop_with_empty_axes", 0))
        {
          *noop = TRUE;
          return RT_BACKEND_DONE;
        }
    }
  else
    {
      gsize len;
      const gint64 *v;
      if (rt_attr_ints (call->node, "axes", &len, &v))
        {
          if (len > RT_MAX_RANK)
            return decline (error, "more than %d axes", RT_MAX_RANK);
          memcpy (axes, v, len * sizeof (gint64));
          n = (guint) len;
        }
    }
  if (n == 0)
    for (guint i = 0; i < a->rank; i++)
      red[i] = TRUE;
  for (guint i = 0; i < n; i++)
    {
      if (axes[i] < -(gint64) a->rank || axes[i] >= (gint64) a->rank)
        return decline (error, "axis %" G_GINT64_FORMAT " out of range", axes[i]);
      red[axes[i] < 0 ? axes[i] + a->rank : axes[i]] = TRUE;
    }
  return RT_BACKEND_DONE;
}

static RtBackendStatus
run_reduce (RtCall *call, RtCudaReduceOp op, int axes_input, RtCudaDType dt, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gboolean red[RT_MAX_RANK], noop;
  RtBackendStatus st = reduce_axes (call, axes_input, red, &noop, error);
  if (st != RT_BACKEND_DONE)
    return st;
  if (noop)
    {
      RtTensor *o = rt_call_output_like (call, 0, a, error);
      if (o == NULL)
        return RT_BACKEND_FAILED;
      return launch_result (call, rt_cuda_unary (RT_CUDA_IDENTITY, dt, 0, a->data, o->data,
                                                 a->numel), error);
    }
  gboolean keep = rt_attr_i (call->node, "keepdims", 1) != 0;
  gint64 strides[RT_MAX_RANK], odims[RT_MAX_RANK];
  guint orank = 0;
  rt_contiguous_strides (a->rank, a->dims, strides);
  RtCudaReduce r;
  memset (&r, 0, sizeof r);
  r.n_out = r.n_red_elems = 1;
  for (guint i = 0; i < a->rank; i++)
    {
      if (red[i])
        {
          r.red_dims[r.n_red] = a->dims[i];
          r.red_strides[r.n_red++] = strides[i];
          r.n_red_elems *= a->dims[i];
          if (keep)
            odims[orank++] = 1;
        }
      else
        {
          r.kept_dims[r.n_kept] = a->dims[i];
          r.kept_strides[r.n_kept++] = strides[i];
          r.n_out *= a->dims[i];
          odims[orank++] = a->dims[i];
        }
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, orank, odims, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  return launch_result (call, rt_cuda_reduce (op, dt, &r, a->data, o->data), error);
}

static RtBackendStatus
run_softmax (RtCall *call, int log_softmax, RtCudaDType dt, GError **error)
{
  const RtTensor *a = call->inputs[0];
  if (!is_float (dt))
    return decline (error, "no CUDA kernel for element type %s", rt_dtype_name (a->dtype));
  gint64 axis = rt_attr_i (call->node, "axis", call->opset < 13 ? 1 : -1);
  if (axis < -(gint64) a->rank || axis >= (gint64) a->rank)
    return decline (error, "axis %" G_GINT64_FORMAT " out of range", axis);
  guint ax = (guint) (axis < 0 ? axis + a->rank : axis);
  gint64 outer = rt_shape_numel (ax, a->dims), len, inner;
  if (call->opset < 13)
    {
      len = rt_shape_numel (a->rank - ax, a->dims + ax);   /* coerced to 2-D at axis */
      inner = 1;
    }
  else
    {
      len = a->dims[ax];
      inner = rt_shape_inner (a->rank, a->dims, ax);
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  return launch_result (call, rt_cuda_softmax (dt, log_softmax, a->data, o->data, outer, len,
                                               inner), error);
}

/* MatMul as numpy.matmul: 1-D operands are promoted and the added axis
 * dropped; the batch dims broadcast, as long as each operand has either
 * all of them or a single matrix (cuBLAS's strided batch). */
static RtBackendStatus
run_matmul (RtCall *call, RtCudaDType dt, GError **error)
{
  const RtTensor *a = call->inputs[0], *b = call->inputs[1];
  if (!is_float (dt) || b->dtype != a->dtype)
    return decline (error, "no CUDA MatMul for element type %s", rt_dtype_name (a->dtype));
  if (a->rank == 0 || b->rank == 0)
    return decline (error, "a 0-d operand");
  gint64 m = a->rank == 1 ? 1 : a->dims[a->rank - 2], k = a->dims[a->rank - 1];
  gint64 kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
  gint64 n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  if (k != kb)
    return decline (error, "inner dimensions that differ");
  if (k == 0)
    return decline (error, "an empty inner dimension");   /* cuBLAS would leave C unwritten */
  /* Batch dims: a's and b's leading dims, broadcast. */
  RtTensor ab = { .rank = a->rank > 2 ? a->rank - 2 : 0 }, bb = { .rank = b->rank > 2 ? b->rank - 2 : 0 };
  memcpy (ab.dims, a->dims, ab.rank * sizeof (gint64));
  memcpy (bb.dims, b->dims, bb.rank * sizeof (gint64));
  ab.numel = rt_shape_numel (ab.rank, ab.dims);
  bb.numel = rt_shape_numel (bb.rank, bb.dims);
  RtCudaBroadcast bc;
  if (!broadcast (&ab, &bb, &bc))
    return decline (error, "batch dimensions that do not broadcast");
  gint64 batch = rt_shape_numel ((guint) bc.rank, bc.dims);
  if ((ab.numel != 1 && ab.numel != batch) || (bb.numel != 1 && bb.numel != batch))
    return decline (error, "batch dimensions broadcast on both operands");
  gint64 odims[RT_MAX_RANK];
  guint orank = 0;
  for (int i = 0; i < bc.rank; i++)
    odims[orank++] = bc.dims[i];
  if (a->rank > 1)
    odims[orank++] = m;
  if (b->rank > 1)
    odims[orank++] = n;
  if (orank > RT_MAX_RANK)
    return decline (error, "output rank above %d", RT_MAX_RANK);
  RtTensor *o = rt_call_output (call, 0, a->dtype, orank, odims, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  RtCudaGemm g = {
    .m = m, .n = n, .k = k, .batch = batch,
    .stride_a = ab.numel == 1 ? 0 : m * k, .stride_b = bb.numel == 1 ? 0 : k * n,
    .stride_c = m * n, .alpha = 1, .beta = 0,
  };
  return launch_result (call, rt_cuda_gemm (dt, &g, a->data, b->data, o->data), error);
}

/* Gemm (opset 7 on): Y = alpha op(A) op(B) + beta C, C broadcast to
 * (M, N) and optional from opset 11. */
static RtBackendStatus
run_gemm (RtCall *call, RtCudaDType dt, GError **error)
{
  const RtTensor *a = call->inputs[0], *b = call->inputs[1];
  const RtTensor *c = call->n_inputs > 2 ? call->inputs[2] : NULL;
  if (!is_float (dt) || b->dtype != a->dtype || (c && c->dtype != a->dtype))
    return decline (error, "no CUDA Gemm for element type %s", rt_dtype_name (a->dtype));
  if (a->rank != 2 || b->rank != 2 || (c && c->rank > 2))
    return decline (error, "operands of another rank than the CPU kernel checks");
  gboolean ta = rt_attr_i (call->node, "transA", 0) != 0;
  gboolean tb = rt_attr_i (call->node, "transB", 0) != 0;
  gint64 m = ta ? a->dims[1] : a->dims[0], k = ta ? a->dims[0] : a->dims[1];
  gint64 kb = tb ? b->dims[1] : b->dims[0], n = tb ? b->dims[0] : b->dims[1];
  if (k != kb || k == 0)
    return decline (error, "inner dimensions that differ or are empty");
  gint64 odims[2] = { m, n };
  RtCudaBroadcast bc = { .rank = 2, .dims = { m, n } };
  if (c)
    {
      for (guint i = 0; i < c->rank; i++)
        {
          gint64 want = odims[2 - c->rank + i];
          if (c->dims[i] != want && c->dims[i] != 1)
            return decline (error, "C does not broadcast to (M, N)");
        }
      rt_broadcast_strides (c, 2, odims, bc.a_strides);
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, 2, odims, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  double beta = c ? rt_attr_f (call->node, "beta", 1.0) : 0.0;
  if (c)
    {
      const char *err = rt_cuda_expand (rt_dtype_size (c->dtype), &bc, c->data, o->data, o->numel);
      if (err)
        return launch_result (call, err, error);
    }
  RtCudaGemm g = {
    .trans_a = ta, .trans_b = tb, .m = m, .n = n, .k = k, .batch = 1,
    .stride_a = 0, .stride_b = 0, .stride_c = 0,
    .alpha = rt_attr_f (call->node, "alpha", 1.0), .beta = beta,
  };
  return launch_result (call, rt_cuda_gemm (dt, &g, a->data, b->data, o->data), error);
}

/* An int64 list input (shape, axes), copied from the device. */
static RtBackendStatus
read_list (RtCall *call, guint i, gint64 *list, guint *n, GError **error)
{
  const RtTensor *t = i < call->n_inputs ? call->inputs[i] : NULL;
  *n = 0;
  if (t == NULL)
    return RT_BACKEND_DONE;
  if (t->dtype != GRAPH_DTYPE_INT64 || t->rank > 1 || t->numel > RT_MAX_RANK)
    return decline (error, "input %u is not a list of up to %d int64 values", i, RT_MAX_RANK);
  const char *err = t->numel ? rt_cuda_copy_to_host (list, t->data,
                                                     (gsize) t->numel * sizeof (gint64))
                             : NULL;
  if (err)
    return launch_result (call, err, error);
  *n = (guint) t->numel;
  return RT_BACKEND_DONE;
}

/* Reshape, Flatten, Squeeze, Unsqueeze (a copy on the device), Transpose
 * and Expand (a strided gather), shapes from the CPU kernels' rules. */
static RtBackendStatus
run_shape (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gsize es = rt_dtype_size (a->dtype);
  if (es != 1 && es != 2 && es != 4 && es != 8)
    return decline (error, "elements of %zu bytes", es);
  gint64 list[RT_MAX_RANK];
  guint n = 0;
  const char *attr;
  int input = rt_shape_op_list_input (call, &attr);
  if (input > 0)
    {
      RtBackendStatus st = read_list (call, (guint) input, list, &n, error);
      if (st != RT_BACKEND_DONE)
        return st;
    }
  else if (input < 0)
    {
      gsize len;
      const gint64 *v;
      if (rt_attr_ints (call->node, attr, &len, &v))
        {
          if (len > RT_MAX_RANK)
            return decline (error, "attribute '%s' has %zu entries", attr, len);
          if (len)
            memcpy (list, v, len * sizeof (gint64));
          n = (guint) len;
        }
    }
  guint rank;
  gint64 dims[RT_MAX_RANK];
  RtCudaBroadcast bc;
  gboolean same_bytes;
  memset (&bc, 0, sizeof bc);
  g_autoptr (GError) why = NULL;
  if (!rt_shape_op_dims (call, a, list, n, &rank, dims, bc.a_strides, &same_bytes, &why))
    return decline (error, "%s", why->message);   /* the CPU kernel says it again */
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  if (same_bytes)
    return launch_result (call, o->numel ? rt_cuda_copy_device (o->data, a->data,
                                                                (gsize) o->numel * es)
                                         : NULL, error);
  bc.rank = (int) rank;
  memcpy (bc.dims, dims, rank * sizeof (gint64));
  return launch_result (call, rt_cuda_expand (es, &bc, a->data, o->data, o->numel), error);
}

/* Split: each output a strided gather from its offset along the axis. */
static RtBackendStatus
run_split (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gsize es = rt_dtype_size (a->dtype);
  if (es != 1 && es != 2 && es != 4 && es != 8)
    return decline (error, "elements of %zu bytes", es);
  g_autofree gint64 *split = g_new0 (gint64, MAX (call->n_outputs, RT_MAX_RANK));
  guint n = 0;
  gsize len;
  const gint64 *v;
  if (call->opset < 13 && rt_attr_ints (call->node, "split", &len, &v))
    {
      n = (guint) len;
      memcpy (split, v, MIN (len, (gsize) call->n_outputs) * sizeof (gint64));
    }
  else
    {
      RtBackendStatus st = read_list (call, 1, split, &n, error);
      if (st != RT_BACKEND_DONE)
        return st;
    }
  guint ax;
  g_autoptr (GError) why = NULL;
  if (!rt_split_sizes (call, a, split, n, &ax, &why))
    return decline (error, "%s", why->message);   /* the CPU kernel says it again */
  gint64 strides[RT_MAX_RANK], inner = rt_shape_inner (a->rank, a->dims, ax), off = 0;
  rt_contiguous_strides (a->rank, a->dims, strides);
  for (guint i = 0; i < call->n_outputs; i++)
    {
      RtCudaBroadcast bc = { .rank = (int) a->rank };
      memcpy (bc.dims, a->dims, a->rank * sizeof (gint64));
      memcpy (bc.a_strides, strides, a->rank * sizeof (gint64));
      bc.dims[ax] = split[i];
      RtTensor *o = rt_call_output (call, i, a->dtype, a->rank, bc.dims, error);
      if (o == NULL)
        return RT_BACKEND_FAILED;
      const char *err = rt_cuda_expand (es, &bc, (const char *) a->data + off * (gint64) es,
                                        o->data, o->numel);
      if (err)
        return launch_result (call, err, error);
      off += split[i] * inner;
    }
  return RT_BACKEND_DONE;
}

static RtBackendStatus
cuda_run (RtCall *call, GError **error)
{
  int i = find_op (call->node);
  const RtTensor *a = call->n_inputs ? call->inputs[0] : NULL;
  RtCudaDType dt;
  if (i < 0 || a == NULL)
    return decline (error, "no CUDA kernel");
  if (cuda_ops[i].kind == K_SHAPE)
    return run_shape (call, error);
  if (cuda_ops[i].kind == K_SPLIT)
    return run_split (call, error);
  if (!cuda_dtype (a->dtype, &dt))
    return decline (error, "no CUDA kernel for element type %s", rt_dtype_name (a->dtype));
  switch (cuda_ops[i].kind)
    {
    case K_BINARY: return run_binary (call, (RtCudaBinaryOp) cuda_ops[i].code, dt, error);
    case K_UNARY: return run_unary (call, (RtCudaUnaryOp) cuda_ops[i].code, dt, error);
    case K_REDUCE:
      return run_reduce (call, (RtCudaReduceOp) cuda_ops[i].code, cuda_ops[i].axes_input, dt, error);
    case K_SOFTMAX: return run_softmax (call, cuda_ops[i].code, dt, error);
    case K_MATMUL: return run_matmul (call, dt, error);
    case K_GEMM: return run_gemm (call, dt, error);
    default: return decline (error, "no CUDA kernel");
    }
}

static const RtBackend cuda_backend = {
  .name = "cuda",
  .probe = cuda_probe,
  .alloc = cuda_alloc,
  .free = cuda_free,
  .copy_to_device = cuda_copy_to_device,
  .copy_to_host = cuda_copy_to_host,
  .supports = cuda_supports,
  .run = cuda_run,
};

/* The plugin's entry point, found by name (runtime/backend.c). */
G_MODULE_EXPORT const RtBackend *symonnx_cuda_backend (void);

const RtBackend *
symonnx_cuda_backend (void)
{
  return &cuda_backend;
}
