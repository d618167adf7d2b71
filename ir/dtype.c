/* Element types, generated from GRAPH_DTYPE_LIST (Note [One list]). */
#include "ir/graph-private.h"
#include <string.h>

typedef struct
{
  int         value;
  gsize       size;
  const char *torch_name;
  const char *name;
} DTypeInfo;

static const DTypeInfo dtype_table[] = {
#define GRAPH_DTYPE_ROW(e, v, s, p, n) { v, s, p, n },
  GRAPH_DTYPE_LIST (GRAPH_DTYPE_ROW)
#undef GRAPH_DTYPE_ROW
};

G_STATIC_ASSERT (G_N_ELEMENTS (dtype_table) == GRAPH_DTYPE_LAST);

gboolean
graph_dtype_is_valid (int dtype)
{
  return dtype >= 0 && dtype < GRAPH_DTYPE_LAST;
}

gsize
graph_dtype_size (GraphDType dtype)
{
  g_return_val_if_fail (graph_dtype_is_valid (dtype), 0);
  return dtype_table[dtype].size;
}

const char *
graph_dtype_torch_name (GraphDType dtype)
{
  g_return_val_if_fail (graph_dtype_is_valid (dtype), NULL);
  return dtype_table[dtype].torch_name;
}

const char *
graph_dtype_name (GraphDType dtype)
{
  g_return_val_if_fail (graph_dtype_is_valid (dtype), NULL);
  return dtype_table[dtype].name;
}

static gboolean
dtype_lookup (const char *name, gboolean torch, GraphDType *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtype_table); i++)
    {
      const char *candidate = torch ? dtype_table[i].torch_name : dtype_table[i].name;
      if (strcmp (candidate, name) == 0)
        {
          *out = (GraphDType) dtype_table[i].value;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
graph_dtype_from_torch_name (const char *name, GraphDType *out)
{
  return dtype_lookup (name, TRUE, out);
}

gboolean
graph_dtype_from_name (const char *name, GraphDType *out)
{
  return dtype_lookup (name, FALSE, out);
}

gboolean
graph_dtype_is_floating (GraphDType dtype)
{
  return dtype == GRAPH_DTYPE_FLOAT || dtype == GRAPH_DTYPE_DOUBLE
      || dtype == GRAPH_DTYPE_FLOAT16 || dtype == GRAPH_DTYPE_BFLOAT16;
}

int
graph_dtype_promotion_rank (GraphDType dtype)
{
  switch (dtype)
    {
    case GRAPH_DTYPE_BOOL: return 0;
    case GRAPH_DTYPE_UINT8: case GRAPH_DTYPE_INT8: return 1;
    case GRAPH_DTYPE_INT16: return 2;
    case GRAPH_DTYPE_INT32: return 3;
    case GRAPH_DTYPE_INT64: return 4;
    case GRAPH_DTYPE_FLOAT16: case GRAPH_DTYPE_BFLOAT16: return 5;
    case GRAPH_DTYPE_FLOAT: return 6;
    case GRAPH_DTYPE_DOUBLE: return 7;
    default: return -1;
    }
}

gboolean
graph_dtype_is_integer (GraphDType dtype)
{
  switch (dtype)
    {
    case GRAPH_DTYPE_UINT8: case GRAPH_DTYPE_INT8: case GRAPH_DTYPE_UINT16:
    case GRAPH_DTYPE_INT16: case GRAPH_DTYPE_INT32: case GRAPH_DTYPE_INT64:
    case GRAPH_DTYPE_UINT32: case GRAPH_DTYPE_UINT64:
      return TRUE;
    default:
      return FALSE;
    }
}

G_DEFINE_QUARK (graph-error-quark, graph_error)
