/* Types: immutable and refcounted. */
#include "ir/graph-private.h"
#include <string.h>

static GraphType *
type_alloc (GraphTypeKind kind)
{
  GraphType *t = g_new0 (GraphType, 1);
  t->ref = 1;
  t->kind = kind;
  t->rank = -1;
  t->requires_grad = -1;
  return t;
}

static GraphType *
tensor_type_new (GraphTypeKind kind, GraphDType dtype, int rank, const GraphDim *dims)
{
  g_return_val_if_fail (graph_dtype_is_valid (dtype), NULL);
  g_return_val_if_fail (rank <= TENSOR_MAX_RANK, NULL);
  g_return_val_if_fail (rank <= 0 || dims != NULL, NULL);
  GraphType *t = type_alloc (kind);
  t->dtype = dtype;
  t->rank = rank < 0 ? -1 : rank;
  if (rank > 0)
    {
      t->dims = g_new (GraphDim, rank);
      for (int i = 0; i < rank; i++)
        {
          t->dims[i] = dims[i];
          if (dims[i].kind == GRAPH_DIM_SYMBOLIC)
            t->dims[i].symbol = g_intern_string (dims[i].symbol);
          else
            t->dims[i].symbol = NULL;
          if (dims[i].kind != GRAPH_DIM_STATIC)
            t->dims[i].value = -1;
        }
    }
  return t;
}

GraphType *
graph_type_new_tensor (GraphDType dtype, int rank, const GraphDim *dims)
{
  return tensor_type_new (GRAPH_TYPE_TENSOR, dtype, rank, dims);
}

GraphType *
graph_type_new_sparse_tensor (GraphDType dtype, int rank, const GraphDim *dims)
{
  return tensor_type_new (GRAPH_TYPE_SPARSE_TENSOR, dtype, rank, dims);
}

GraphType *
graph_type_new_tensor_static (GraphDType dtype, guint rank, const gint64 *dims)
{
  g_return_val_if_fail (rank <= TENSOR_MAX_RANK, NULL);
  GraphDim d[TENSOR_MAX_RANK];
  for (guint i = 0; i < rank; i++)
    d[i] = (GraphDim) { dims[i] < 0 ? GRAPH_DIM_UNKNOWN : GRAPH_DIM_STATIC, dims[i], NULL };
  return graph_type_new_tensor (dtype, (int) rank, d);
}

GraphType *
graph_type_with_trace_info (const GraphType *src, const gint64 *strides, int requires_grad,
                            const char *device)
{
  g_return_val_if_fail (graph_type_is_tensor (src), NULL);
  GraphType *t = tensor_type_new (src->kind, src->dtype, src->rank, src->dims);
  if (strides != NULL && src->rank > 0)
    t->strides = g_memdup2 (strides, src->rank * sizeof (gint64));
  else if (strides != NULL && src->rank == 0)
    t->strides = g_new0 (gint64, 1);   /* strides=[] */
  t->requires_grad = requires_grad < 0 ? -1 : requires_grad != 0;
  t->device = g_strdup (device);
  t->quantized = src->quantized;
  return t;
}

/* Note [Quantized tensor types]: PyTorch's QUInt8/QInt8/QInt32 are an
 * integer tensor plus a scale and zero point that the type does not carry;
 * the IR keeps the integer element type (UINT8/INT8/INT32, ONNX's values)
 * and a flag, so dtypes stay ONNX's and the printer writes PyTorch's name. */
GraphType *
graph_type_with_quantized (const GraphType *src)
{
  g_return_val_if_fail (graph_type_is_tensor (src), NULL);
  g_return_val_if_fail (src->dtype == GRAPH_DTYPE_UINT8 || src->dtype == GRAPH_DTYPE_INT8
                        || src->dtype == GRAPH_DTYPE_INT32, NULL);
  GraphType *t = graph_type_with_trace_info (src, src->strides, src->requires_grad, src->device);
  t->quantized = TRUE;
  return t;
}

gboolean
graph_type_is_quantized (const GraphType *t)
{
  return t != NULL && graph_type_is_tensor (t) && t->quantized;
}

const char *
graph_type_quantized_name (GraphDType dtype)
{
  switch (dtype)
    {
    case GRAPH_DTYPE_UINT8: return "QUInt8";
    case GRAPH_DTYPE_INT8: return "QInt8";
    case GRAPH_DTYPE_INT32: return "QInt32";
    default: return NULL;
    }
}

GraphType *
graph_type_new_simple (GraphTypeKind kind)
{
  g_return_val_if_fail (kind == GRAPH_TYPE_INT || kind == GRAPH_TYPE_FLOAT || kind == GRAPH_TYPE_BOOL
                        || kind == GRAPH_TYPE_STR || kind == GRAPH_TYPE_NONE
                        || kind == GRAPH_TYPE_DEVICE || kind == GRAPH_TYPE_NUMBER, NULL);
  return type_alloc (kind);
}

GraphType *
graph_type_new_named (const char *name)
{
  g_return_val_if_fail (name != NULL && *name, NULL);
  GraphType *t = type_alloc (GRAPH_TYPE_NAMED);
  t->name = g_strdup (name);
  return t;
}

GraphType *
graph_type_new_class (const char *qualified_name)
{
  g_return_val_if_fail (qualified_name != NULL && *qualified_name, NULL);
  GraphType *t = type_alloc (GRAPH_TYPE_CLASS);
  t->name = g_strdup (qualified_name);
  return t;
}

static GraphType *
container_new (GraphTypeKind kind, guint n, GraphType *const *elems)
{
  GraphType *t = type_alloc (kind);
  t->n_elems = n;
  t->elems = g_new0 (GraphType *, n ? n : 1);
  for (guint i = 0; i < n; i++)
    t->elems[i] = elems[i];
  return t;
}

GraphType *
graph_type_new_list (GraphType *elem)
{
  g_return_val_if_fail (elem != NULL, NULL);
  return container_new (GRAPH_TYPE_LIST, 1, &elem);
}

GraphType *
graph_type_new_optional (GraphType *elem)
{
  g_return_val_if_fail (elem != NULL, NULL);
  return container_new (GRAPH_TYPE_OPTIONAL, 1, &elem);
}

GraphType *
graph_type_new_dict (GraphType *key, GraphType *value)
{
  g_return_val_if_fail (key != NULL && value != NULL, NULL);
  GraphType *kv[2] = { key, value };
  return container_new (GRAPH_TYPE_DICT, 2, kv);
}

GraphType *
graph_type_new_tuple (guint n, GraphType *const *elems)
{
  for (guint i = 0; i < n; i++)
    g_return_val_if_fail (elems[i] != NULL, NULL);
  return container_new (GRAPH_TYPE_TUPLE, n, elems);
}

GraphType *
graph_type_ref (GraphType *t)
{
  g_return_val_if_fail (t != NULL, NULL);
  g_atomic_int_inc (&t->ref);
  return t;
}

void
graph_type_unref (GraphType *t)
{
  if (t == NULL || !g_atomic_int_dec_and_test (&t->ref))
    return;
  for (guint i = 0; i < t->n_elems; i++)
    graph_type_unref (t->elems[i]);
  g_free (t->elems);
  g_free (t->dims);
  g_free (t->strides);
  g_free (t->device);
  g_free (t->name);
  g_free (t);
}

GraphTypeKind graph_type_kind (const GraphType *t) { return t->kind; }
const gint64 *graph_type_strides (const GraphType *t) { return t->strides; }
int graph_type_requires_grad (const GraphType *t) { return t->requires_grad; }
const char *graph_type_device (const GraphType *t) { return t->device; }
const char *graph_type_name (const GraphType *t) { return t->name; }
guint graph_type_n_elems (const GraphType *t) { return t->n_elems; }

gboolean
graph_type_is_tensor (const GraphType *t)
{
  return t != NULL && (t->kind == GRAPH_TYPE_TENSOR || t->kind == GRAPH_TYPE_SPARSE_TENSOR);
}

GraphDType
graph_type_dtype (const GraphType *t)
{
  return graph_type_is_tensor (t) ? t->dtype : GRAPH_DTYPE_UNDEFINED;
}

int
graph_type_rank (const GraphType *t)
{
  return graph_type_is_tensor (t) ? t->rank : -1;
}

const GraphDim *
graph_type_dim (const GraphType *t, guint i)
{
  g_return_val_if_fail (graph_type_is_tensor (t) && t->rank >= 0 && i < (guint) t->rank, NULL);
  return &t->dims[i];
}

gboolean
graph_type_static_shape (const GraphType *t, gint64 *dims)
{
  if (!graph_type_is_tensor (t) || t->rank < 0)
    return FALSE;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i].kind != GRAPH_DIM_STATIC)
      return FALSE;
  for (int i = 0; i < t->rank; i++)
    dims[i] = t->dims[i].value;
  return TRUE;
}

GraphType *
graph_type_elem (const GraphType *t, guint i)
{
  g_return_val_if_fail (i < t->n_elems, NULL);
  return t->elems[i];
}

gboolean
graph_type_equal (const GraphType *a, const GraphType *b)
{
  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL || a->kind != b->kind || a->dtype != b->dtype || a->rank != b->rank
      || a->requires_grad != b->requires_grad || a->n_elems != b->n_elems
      || g_strcmp0 (a->device, b->device) != 0 || g_strcmp0 (a->name, b->name) != 0
      || a->quantized != b->quantized
      || (a->strides == NULL) != (b->strides == NULL))
    return FALSE;
  for (int i = 0; i < a->rank; i++)
    {
      if (a->dims[i].kind != b->dims[i].kind || a->dims[i].value != b->dims[i].value
          || a->dims[i].symbol != b->dims[i].symbol)
        return FALSE;
      if (a->strides && a->strides[i] != b->strides[i])
        return FALSE;
    }
  for (guint i = 0; i < a->n_elems; i++)
    if (!graph_type_equal (a->elems[i], b->elems[i]))
      return FALSE;
  return TRUE;
}

/* Note [Tensor type spelling]: as c10's operator<<(Type) prints with full
 * verbosity: "Float(1, 3, strides=[3, 1], requires_grad=0, device=cpu)";
 * "Tensor" when nothing is known; sparse tensors are "Sparse(<tensor>)". */
static void
tensor_type_append (GString *s, const GraphType *t)
{
  guint items = 0;
  g_string_append (s, t->dtype == GRAPH_DTYPE_UNDEFINED ? "Tensor"
                     : t->quantized ? graph_type_quantized_name (t->dtype)
                     : graph_dtype_torch_name (t->dtype));
  if (t->rank < 0 && t->requires_grad < 0 && t->device == NULL)
    return;
  g_string_append_c (s, '(');
  for (int i = 0; i < t->rank; i++, items++)
    {
      if (items)
        g_string_append (s, ", ");
      if (t->dims[i].kind == GRAPH_DIM_STATIC)
        g_string_append_printf (s, "%" G_GINT64_FORMAT, t->dims[i].value);
      else if (t->dims[i].kind == GRAPH_DIM_SYMBOLIC)
        g_string_append (s, t->dims[i].symbol);
      else
        g_string_append_c (s, '*');
    }
  if (t->strides)
    {
      g_string_append (s, items++ ? ", strides=[" : "strides=[");
      for (int i = 0; i < t->rank; i++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", t->strides[i]);
      g_string_append_c (s, ']');
    }
  if (t->requires_grad >= 0)
    g_string_append_printf (s, "%srequires_grad=%d", items++ ? ", " : "", t->requires_grad);
  if (t->device)
    g_string_append_printf (s, "%sdevice=%s", items++ ? ", " : "", t->device);
  g_string_append_c (s, ')');
}

static void
type_append (GString *s, const GraphType *t)
{
  switch (t->kind)
    {
    case GRAPH_TYPE_TENSOR: tensor_type_append (s, t); break;
    case GRAPH_TYPE_SPARSE_TENSOR:
      g_string_append (s, "Sparse(");
      tensor_type_append (s, t);
      g_string_append_c (s, ')');
      break;
    case GRAPH_TYPE_INT: g_string_append (s, "int"); break;
    case GRAPH_TYPE_FLOAT: g_string_append (s, "float"); break;
    case GRAPH_TYPE_BOOL: g_string_append (s, "bool"); break;
    case GRAPH_TYPE_STR: g_string_append (s, "str"); break;
    case GRAPH_TYPE_NONE: g_string_append (s, "NoneType"); break;
    case GRAPH_TYPE_DEVICE: g_string_append (s, "Device"); break;
    case GRAPH_TYPE_NUMBER: g_string_append (s, "Scalar"); break;
    case GRAPH_TYPE_NAMED:
    case GRAPH_TYPE_CLASS: g_string_append (s, t->name); break;
    case GRAPH_TYPE_LIST:
      type_append (s, t->elems[0]);
      g_string_append (s, "[]");
      break;
    case GRAPH_TYPE_OPTIONAL:
      type_append (s, t->elems[0]);
      g_string_append_c (s, '?');
      break;
    case GRAPH_TYPE_DICT:
      g_string_append (s, "Dict(");
      type_append (s, t->elems[0]);
      g_string_append (s, ", ");
      type_append (s, t->elems[1]);
      g_string_append_c (s, ')');
      break;
    case GRAPH_TYPE_TUPLE:
      g_string_append_c (s, '(');
      for (guint i = 0; i < t->n_elems; i++)
        {
          if (i)
            g_string_append (s, ", ");
          type_append (s, t->elems[i]);
        }
      g_string_append_c (s, ')');
      break;
    }
}

char *
graph_type_to_string (const GraphType *t)
{
  if (t == NULL)
    return g_strdup ("Tensor");
  GString *s = g_string_new (NULL);
  type_append (s, t);
  return g_string_free (s, FALSE);
}
