/* The kernel registry: every family's table, looked up by
 * (domain, op, opset).  A new family file adds one line to `tables`. */
#include "runtime/kernel.h"
#include <string.h>

extern const RtKernelTable rt_kernels_elementwise;
extern const RtKernelTable rt_kernels_shape;
extern const RtKernelTable rt_kernels_reduce;
extern const RtKernelTable rt_kernels_matmul;
extern const RtKernelTable rt_kernels_conv;
extern const RtKernelTable rt_kernels_pool;
extern const RtKernelTable rt_kernels_norm;
extern const RtKernelTable rt_kernels_resize;
extern const RtKernelTable rt_kernels_aten;
extern const RtKernelTable rt_kernels_aten_conv;
extern const RtKernelTable rt_kernels_aten_pool;
extern const RtKernelTable rt_kernels_aten_nn;
extern const RtKernelTable rt_kernels_aten_linalg;
extern const RtKernelTable rt_kernels_aten_shape;
extern const RtKernelTable rt_kernels_aten_rnn;
extern const RtKernelTable rt_kernels_aten_math;
extern const RtKernelTable rt_kernels_aten_act;
extern const RtKernelTable rt_kernels_aten_reduce;
extern const RtKernelTable rt_kernels_aten_pool2;
extern const RtKernelTable rt_kernels_aten_tensor;
extern const RtKernelTable rt_kernels_aten_script;
extern const RtKernelTable rt_kernels_aten_nn2;
extern const RtKernelTable rt_kernels_aten_misc;
extern const RtKernelTable rt_kernels_aten_rnn2;
extern const RtKernelTable rt_kernels_aten_extra;
extern const RtKernelTable rt_kernels_aten_loss;
extern const RtKernelTable rt_kernels_aten_extra2;
extern const RtKernelTable rt_kernels_aten_create;
extern const RtKernelTable rt_kernels_aten_index;
extern const RtKernelTable rt_kernels_aten_products;
extern const RtKernelTable rt_kernels_rnn;
extern const RtKernelTable rt_kernels_einsum;
extern const RtKernelTable rt_kernels_control;
extern const RtKernelTable rt_kernels_loss;
extern const RtKernelTable rt_kernels_index;
extern const RtKernelTable rt_kernels_misc;
extern const RtKernelTable rt_kernels_quant;
extern const RtKernelTable rt_kernels_detect;
extern const RtKernelTable rt_kernels_gridsample;
extern const RtKernelTable rt_kernels_training;
extern const RtKernelTable rt_kernels_spectral;
extern const RtKernelTable rt_kernels_text;
extern const RtKernelTable rt_kernels_scan8;
extern const RtKernelTable rt_kernels_string;
extern const RtKernelTable rt_kernels_sequence;
extern const RtKernelTable rt_kernels_random;
extern const RtKernelTable rt_kernels_aten_random;
extern const RtKernelTable rt_kernels_aten_quant;
extern const RtKernelTable rt_kernels_aten_qconv;
extern const RtKernelTable rt_kernels_aten_qops;
extern const RtKernelTable rt_kernels_torchvision;

static const RtKernelTable *const tables[] = {
  &rt_kernels_elementwise,
  &rt_kernels_shape,
  &rt_kernels_reduce,
  &rt_kernels_matmul,
  &rt_kernels_conv,
  &rt_kernels_pool,
  &rt_kernels_norm,
  &rt_kernels_resize,
  &rt_kernels_aten,
  &rt_kernels_aten_conv,
  &rt_kernels_aten_pool,
  &rt_kernels_aten_nn,
  &rt_kernels_aten_linalg,
  &rt_kernels_aten_shape,
  &rt_kernels_aten_rnn,
  &rt_kernels_aten_math,
  &rt_kernels_aten_act,
  &rt_kernels_aten_reduce,
  &rt_kernels_aten_pool2,
  &rt_kernels_aten_tensor,
  &rt_kernels_aten_script,
  &rt_kernels_aten_nn2,
  &rt_kernels_aten_misc,
  &rt_kernels_aten_rnn2,
  &rt_kernels_aten_extra,
  &rt_kernels_aten_loss,
  &rt_kernels_aten_extra2,
  &rt_kernels_aten_create,
  &rt_kernels_aten_index,
  &rt_kernels_aten_products,
  &rt_kernels_rnn,
  &rt_kernels_einsum,
  &rt_kernels_control,
  &rt_kernels_loss,
  &rt_kernels_index,
  &rt_kernels_misc,
  &rt_kernels_quant,
  &rt_kernels_detect,
  &rt_kernels_gridsample,
  &rt_kernels_training,
  &rt_kernels_spectral,
  &rt_kernels_text,
  &rt_kernels_scan8,
  &rt_kernels_string,
  &rt_kernels_sequence,
  &rt_kernels_random,
  &rt_kernels_aten_random,
  &rt_kernels_aten_quant,
  &rt_kernels_aten_qconv,
  &rt_kernels_aten_qops,
  &rt_kernels_torchvision,
};

/* "domain::op" → GPtrArray of const RtKernelDef* */
static GHashTable *
registry (void)
{
  static gsize once = 0;
  static GHashTable *table;
  if (g_once_init_enter (&once))
    {
      GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_ptr_array_unref);
      for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
        for (gsize k = 0; k < tables[i]->n_defs; k++)
          {
            const RtKernelDef *d = &tables[i]->defs[k];
            char *key = g_strconcat (d->domain, "::", d->op, NULL);
            GPtrArray *list = g_hash_table_lookup (t, key);
            if (list == NULL)
              {
                list = g_ptr_array_new ();
                g_hash_table_insert (t, key, list);
              }
            else
              g_free (key);
            g_ptr_array_add (list, (gpointer) d);
          }
      table = t;
      g_once_init_leave (&once, 1);
    }
  return table;
}

const RtKernelDef *
rt_registry_lookup (const char *domain, const char *op, gint64 opset)
{
  g_autofree char *key = g_strconcat (domain, "::", op, NULL);
  GPtrArray *list = g_hash_table_lookup (registry (), key);
  const RtKernelDef *best = NULL;
  for (guint i = 0; list && i < list->len; i++)
    {
      const RtKernelDef *d = g_ptr_array_index (list, i);
      if (opset < d->since || (d->until > 0 && opset > d->until))
        continue;
      if (best == NULL || d->since > best->since)
        best = d;
    }
  return best;
}

gboolean
rt_registry_has_op (const char *domain, const char *op)
{
  g_autofree char *key = g_strconcat (domain, "::", op, NULL);
  return g_hash_table_contains (registry (), key);
}

static int
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
rt_kernel_ops (const char *domain)
{
  g_return_val_if_fail (domain != NULL, NULL);
  GPtrArray *out = g_ptr_array_new ();
  gsize len = strlen (domain);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, registry ());
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      const char *k = key;
      if (strncmp (k, domain, len) == 0 && k[len] == ':' && k[len + 1] == ':')
        g_ptr_array_add (out, (gpointer) g_intern_string (k + len + 2));
    }
  g_ptr_array_sort (out, cmp_str);
  return out;
}
