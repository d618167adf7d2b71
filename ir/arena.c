/* The graph's slab arena for nodes and values (see graph-private.h). */
#include "ir/graph-private.h"

#define FIRST_BLOCK 32u
#define MAX_BLOCK 65536u

void
graph_slab_init (GraphSlab *s, gsize elem_size)
{
  s->elem_size = elem_size;
  s->blocks = g_ptr_array_new_with_free_func (g_free);
  s->capacities = g_array_new (FALSE, FALSE, sizeof (guint));
  s->used_in_last = 0;
}

gpointer
graph_slab_alloc (GraphSlab *s)
{
  guint n = s->blocks->len;
  guint cap = n ? g_array_index (s->capacities, guint, n - 1) : 0;
  if (n == 0 || s->used_in_last == cap)
    {
      /* Blocks double up to MAX_BLOCK so lookups stay O(log n) in blocks. */
      cap = n ? MIN (cap * 2, MAX_BLOCK) : FIRST_BLOCK;
      g_ptr_array_add (s->blocks, g_malloc0_n (cap, s->elem_size));
      g_array_append_val (s->capacities, cap);
      s->used_in_last = 0;
    }
  guint8 *block = g_ptr_array_index (s->blocks, s->blocks->len - 1);
  return block + (gsize) s->used_in_last++ * s->elem_size;
}

gboolean
graph_slab_contains (const GraphSlab *s, gconstpointer p)
{
  guintptr addr = (guintptr) p;
  for (guint b = s->blocks->len; b-- > 0;)
    {
      guintptr start = (guintptr) g_ptr_array_index (s->blocks, b);
      guint used = b + 1 == s->blocks->len ? s->used_in_last
                                           : g_array_index (s->capacities, guint, b);
      if (addr >= start && addr < start + (guintptr) used * s->elem_size)
        return (addr - start) % s->elem_size == 0;
    }
  return FALSE;
}

void
graph_slab_foreach (const GraphSlab *s, GFunc fn, gpointer user_data)
{
  for (guint b = 0; b < s->blocks->len; b++)
    {
      guint8 *start = g_ptr_array_index (s->blocks, b);
      guint used = b + 1 == s->blocks->len ? s->used_in_last
                                           : g_array_index (s->capacities, guint, b);
      for (guint i = 0; i < used; i++)
        fn (start + (gsize) i * s->elem_size, user_data);
    }
}

void
graph_slab_clear (GraphSlab *s)
{
  g_clear_pointer (&s->blocks, g_ptr_array_unref);
  g_clear_pointer (&s->capacities, g_array_unref);
}
