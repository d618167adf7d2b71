/* .onnx bytes → load, then run with zero-filled inputs under small
 * limits (tensor bytes, Loop iterations, seconds), so a run ends fast. */
#include "fuzz.h"
#include "symonnx.h"

#define FUZZ_MAX_BYTES (G_GUINT64_CONSTANT (1) << 24)   /* 16 MiB per tensor */

/* A zero tensor for a graph input: unknown or symbolic dims become 1. */
static Tensor *
zero_input (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) < 0)
    return NULL;
  int rank = graph_type_rank (t);
  gint64 dims[TENSOR_MAX_RANK];
  for (int i = 0; i < rank; i++)
    {
      const GraphDim *d = graph_type_dim (t, (guint) i);
      dims[i] = d && d->kind == GRAPH_DIM_STATIC ? d->value : 1;
    }
  gsize nbytes;
  GraphDType dt = graph_type_dtype (t);
  if (dt == GRAPH_DTYPE_STRING || !graph_dtype_is_valid (dt) || graph_dtype_size (dt) == 0
      || !tensor_shape_nbytes (dt, (guint) rank, dims, &nbytes) || nbytes > FUZZ_MAX_BYTES)
    return NULL;
  return tensor_new_zeroed (dt, (guint) rank, dims, NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  Graph *g = onnxio_load_from_data (data, size, NULL, "fuzz.onnx", &error);
  if (g == NULL)
    {
      g_clear_error (&error);
      return 0;
    }
  RtOptions o;
  rt_options_init (&o);
  o.max_tensor_bytes = FUZZ_MAX_BYTES;
  o.max_loop_iterations = 1000;
  o.max_seconds = 1.0;
  RtSession *s = rt_session_new (g, &o, &error);
  if (s != NULL)
    {
      GHashTable *inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                  (GDestroyNotify) tensor_unref);
      gboolean ok = TRUE;
      for (guint i = 0; ok && i < rt_session_n_required_inputs (s); i++)
        {
          GraphValue *v = rt_session_required_input (s, i);
          Tensor *t = zero_input (v);
          if (t == NULL || graph_value_get_name (v) == NULL)
            {
              if (t)
                tensor_unref (t);
              ok = FALSE;
              break;
            }
          g_hash_table_replace (inputs, g_strdup (graph_value_get_name (v)), t);
        }
      if (ok)
        {
          GHashTable *outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) tensor_unref);
          if (!rt_session_run (s, inputs, outputs, &error))
            g_clear_error (&error);
          g_hash_table_unref (outputs);
        }
      g_hash_table_unref (inputs);
      rt_session_free (s);
    }
  else
    g_clear_error (&error);
  graph_free (g);
  return 0;
}
