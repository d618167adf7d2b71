/* Deterministic random weights: see tests/common/test-weights.h. */
#include "tests/common/test-weights.h"
#include <string.h>

/* xorshift64*: deterministic values without libc's rand state. */
static double
next_uniform (guint64 *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double) ((*s * G_GUINT64_CONSTANT (2685821657736338717)) >> 11) / 9007199254740992.0;
}

GHashTable *
test_random_weights (JsonObject *layout)
{
  GHashTable *w = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) tensor_unref);
  guint64 seed = 0x9E3779B97F4A7C15u;
  g_autoptr (GList) names = json_object_get_members (layout);
  names = g_list_sort (names, (GCompareFunc) strcmp);
  for (GList *l = names; l; l = l->next)
    {
      JsonArray *spec = json_object_get_array_member (layout, l->data);
      const char *code = json_array_get_string_element (spec, 0);
      JsonArray *shape = json_array_get_array_element (spec, 1);
      gint64 dims[TENSOR_MAX_RANK];
      guint rank = json_array_get_length (shape);
      g_assert_cmpuint (rank, <=, TENSOR_MAX_RANK);
      for (guint i = 0; i < rank; i++)
        dims[i] = json_array_get_int_element (shape, i);
      gboolean f32 = strcmp (code, "F32") == 0;
      g_assert_true (f32 || strcmp (code, "I64") == 0);
      g_autoptr (GError) error = NULL;
      Tensor *t = tensor_new_zeroed (f32 ? GRAPH_DTYPE_FLOAT : GRAPH_DTYPE_INT64, rank, dims, &error);
      g_assert_no_error (error);
      gboolean var = g_str_has_suffix (l->data, "running_var");
      float *p = f32 ? (float *) tensor_data (t) : NULL;
      for (gint64 i = 0; p && i < tensor_numel (t); i++)
        p[i] = var ? (float) (0.5 + next_uniform (&seed)) : (float) (0.2 * next_uniform (&seed) - 0.1);
      g_hash_table_insert (w, g_strdup (l->data), t);
    }
  return w;
}
