/* GraphType <-> ONNX TypeProto. */
#include "export/onnx/onnxio-private.h"

static gboolean
shape_from_proto (const Onnx__TensorShapeProto *shape, int *rank_out,
                  GraphDim **dims_out, const char *display, const char *what,
                  GError **error)
{
  if (shape == NULL)
    {
      *rank_out = -1;
      *dims_out = NULL;
      return TRUE;
    }
  if (shape->n_dim > TENSOR_MAX_RANK)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                   "%s: %s: TensorShapeProto has %" G_GSIZE_FORMAT " dims (at most %d)",
                   display, what, shape->n_dim, TENSOR_MAX_RANK);
      return FALSE;
    }
  GraphDim *dims = g_new0 (GraphDim, MAX (shape->n_dim, 1));
  for (gsize i = 0; i < shape->n_dim; i++)
    {
      const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
      switch (d->value_case)
        {
        case ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE:
          if (d->dim_value < 0)
            {
              g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                           "%s: %s: TensorShapeProto.dim[%" G_GSIZE_FORMAT "].dim_value is negative (%" G_GINT64_FORMAT ")",
                           display, what, i, (gint64) d->dim_value);
              g_free (dims);
              return FALSE;
            }
          dims[i].kind = GRAPH_DIM_STATIC;
          dims[i].value = d->dim_value;
          break;
        case ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM:
          if (d->dim_param != NULL && *d->dim_param != '\0')
            {
              dims[i].kind = GRAPH_DIM_SYMBOLIC;
              dims[i].symbol = g_intern_string (d->dim_param);
            }
          else
            dims[i].kind = GRAPH_DIM_UNKNOWN;
          break;
        default:
          dims[i].kind = GRAPH_DIM_UNKNOWN;
          break;
        }
    }
  *rank_out = (int) shape->n_dim;
  *dims_out = dims;
  return TRUE;
}

static gboolean
dtype_from_proto (gboolean has, int32_t v, GraphDType *out, const char *display,
                  const char *what, const char *field, GError **error)
{
  if (!has)
    v = GRAPH_DTYPE_UNDEFINED;
  if (!graph_dtype_is_valid (v))
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_UNSUPPORTED,
                   "%s: %s: %s %d is not a known TensorProto.DataType",
                   display, what, field, (int) v);
      return FALSE;
    }
  *out = (GraphDType) v;
  return TRUE;
}

gboolean
onnxio_type_from_proto (const Onnx__TypeProto *tp, GraphType **out,
                        const char *display, const char *what, GError **error)
{
  *out = NULL;
  if (tp == NULL)
    return TRUE;
  switch (tp->value_case)
    {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
      {
        gboolean sparse = tp->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE;
        gboolean has = sparse ? tp->sparse_tensor_type->has_elem_type : tp->tensor_type->has_elem_type;
        int32_t et = sparse ? tp->sparse_tensor_type->elem_type : tp->tensor_type->elem_type;
        const Onnx__TensorShapeProto *shape = sparse ? tp->sparse_tensor_type->shape : tp->tensor_type->shape;
        GraphDType dt;
        int rank;
        g_autofree GraphDim *dims = NULL;
        if (!dtype_from_proto (has, et, &dt, display, what, "TypeProto elem_type", error)
            || !shape_from_proto (shape, &rank, &dims, display, what, error))
          return FALSE;
        *out = sparse ? graph_type_new_sparse_tensor (dt, rank, dims)
                      : graph_type_new_tensor (dt, rank, dims);
        return TRUE;
      }
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
      {
        gboolean seq = tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
        const Onnx__TypeProto *et = seq ? tp->sequence_type->elem_type : tp->optional_type->elem_type;
        GraphType *elem;
        if (!onnxio_type_from_proto (et, &elem, display, what, error))
          return FALSE;
        if (elem == NULL)
          elem = graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL);
        *out = seq ? graph_type_new_list (elem) : graph_type_new_optional (elem);
        return TRUE;
      }
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
      {
        GraphDType kt;
        GraphType *value;
        if (!dtype_from_proto (tp->map_type->has_key_type, tp->map_type->key_type, &kt,
                               display, what, "TypeProto.Map.key_type", error)
            || !onnxio_type_from_proto (tp->map_type->value_type, &value, display, what, error))
          return FALSE;
        if (value == NULL)
          value = graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL);
        *out = graph_type_new_dict (graph_type_new_tensor (kt, -1, NULL), value);
        return TRUE;
      }
    default:
      return TRUE;   /* no type (or an opaque type the IR has no kind for) */
    }
}

static Onnx__TensorShapeProto *
shape_to_proto (const GraphType *t, OnnxioPool *pool)
{
  int rank = graph_type_rank (t);
  if (rank < 0)
    return NULL;
  Onnx__TensorShapeProto *shape = onnxio_pool_new0 (pool, Onnx__TensorShapeProto, 1);
  onnx__tensor_shape_proto__init (shape);
  shape->n_dim = (gsize) rank;
  shape->dim = onnxio_pool_new0 (pool, Onnx__TensorShapeProto__Dimension *, rank);
  for (int i = 0; i < rank; i++)
    {
      const GraphDim *gd = graph_type_dim (t, (guint) i);
      Onnx__TensorShapeProto__Dimension *d =
        onnxio_pool_new0 (pool, Onnx__TensorShapeProto__Dimension, 1);
      onnx__tensor_shape_proto__dimension__init (d);
      if (gd != NULL && gd->kind == GRAPH_DIM_STATIC)
        {
          d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
          d->dim_value = gd->value;
        }
      else if (gd != NULL && gd->kind == GRAPH_DIM_SYMBOLIC && gd->symbol != NULL)
        {
          d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
          d->dim_param = (char *) gd->symbol;
        }
      shape->dim[i] = d;
    }
  return shape;
}

Onnx__TypeProto *
onnxio_type_to_proto (const GraphType *t, OnnxioPool *pool)
{
  if (t == NULL)
    return NULL;
  Onnx__TypeProto *tp = onnxio_pool_new0 (pool, Onnx__TypeProto, 1);
  onnx__type_proto__init (tp);
  switch (graph_type_kind (t))
    {
    case GRAPH_TYPE_TENSOR:
      {
        Onnx__TypeProto__Tensor *tt = onnxio_pool_new0 (pool, Onnx__TypeProto__Tensor, 1);
        onnx__type_proto__tensor__init (tt);
        if (graph_type_dtype (t) != GRAPH_DTYPE_UNDEFINED)
          ONNXIO_PB_SET_INT32 (tt, elem_type, graph_type_dtype (t));
        tt->shape = shape_to_proto (t, pool);
        tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        tp->tensor_type = tt;
        return tp;
      }
    case GRAPH_TYPE_SPARSE_TENSOR:
      {
        Onnx__TypeProto__SparseTensor *st = onnxio_pool_new0 (pool, Onnx__TypeProto__SparseTensor, 1);
        onnx__type_proto__sparse_tensor__init (st);
        if (graph_type_dtype (t) != GRAPH_DTYPE_UNDEFINED)
          ONNXIO_PB_SET_INT32 (st, elem_type, graph_type_dtype (t));
        st->shape = shape_to_proto (t, pool);
        tp->value_case = ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE;
        tp->sparse_tensor_type = st;
        return tp;
      }
    case GRAPH_TYPE_LIST:
      {
        Onnx__TypeProto__Sequence *s = onnxio_pool_new0 (pool, Onnx__TypeProto__Sequence, 1);
        onnx__type_proto__sequence__init (s);
        s->elem_type = onnxio_type_to_proto (graph_type_elem (t, 0), pool);
        if (s->elem_type == NULL)
          return NULL;
        tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
        tp->sequence_type = s;
        return tp;
      }
    case GRAPH_TYPE_OPTIONAL:
      {
        Onnx__TypeProto__Optional *o = onnxio_pool_new0 (pool, Onnx__TypeProto__Optional, 1);
        onnx__type_proto__optional__init (o);
        o->elem_type = onnxio_type_to_proto (graph_type_elem (t, 0), pool);
        if (o->elem_type == NULL)
          return NULL;
        tp->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
        tp->optional_type = o;
        return tp;
      }
    case GRAPH_TYPE_DICT:
      {
        GraphType *key = graph_type_elem (t, 0);
        GraphDType kt;
        switch (graph_type_kind (key))
          {
          case GRAPH_TYPE_TENSOR: kt = graph_type_dtype (key); break;
          case GRAPH_TYPE_STR: kt = GRAPH_DTYPE_STRING; break;
          case GRAPH_TYPE_INT: kt = GRAPH_DTYPE_INT64; break;
          default: return NULL;
          }
        Onnx__TypeProto__Map *m = onnxio_pool_new0 (pool, Onnx__TypeProto__Map, 1);
        onnx__type_proto__map__init (m);
        ONNXIO_PB_SET_INT32 (m, key_type, kt);
        m->value_type = onnxio_type_to_proto (graph_type_elem (t, 1), pool);
        if (m->value_type == NULL)
          return NULL;
        tp->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
        tp->map_type = m;
        return tp;
      }
    default:
      return NULL;   /* trace-only types have no ONNX spelling */
    }
}
