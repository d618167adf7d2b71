/* Initializer deduplication: torch 1.13's DeduplicateInitializers
 * (torch/csrc/jit/passes/onnx/deduplicate_initializers.cpp), as
 * torch.onnx.export runs it on an eval-mode model.
 *
 * Torch walks the graph inputs in order, skipping those without a tensor,
 * twice: first matching tensors that share storage (same sizes, strides and
 * data pointer), then, in eval mode only, tensors of equal dtype, sizes,
 * strides and values (Tensor::equal: element-wise ==, so -0.0 matches 0.0
 * and NaN matches nothing).  The first of a set is kept; each later one is
 * removed from the inputs and becomes `Identity(kept)` named like it,
 * inserted at the very start of the graph, so the Identity nodes end up in
 * the reverse of the order they were found, the second walk's before the
 * first's.
 *
 * Here a value walk hashes dtype, shape and a few sampled elements, so the
 * pass is linear in the initializers; whole tensors are compared only on a
 * hash match.  Deferred tensors (fused Conv weights) are read through
 * tensor_fill() a chunk at a time: comparing never keeps their bytes, and a
 * tensor with no same-shaped, same-sampled peer is never computed beyond
 * its samples.  Our weights are always contiguous, so strides need no
 * check. */
#include "export/export.h"
#include <string.h>

typedef enum
{
  BY_STORAGE,  /* the same bytes in memory: one tensor under two names */
  BY_VALUE,    /* equal values */
} DedupMode;

typedef struct
{
  GraphValue *v;
  Tensor     *t;
  guint       hash;
  DedupMode   mode;
} Entry;

/* Elements hashed from each of the start, middle and end of a tensor. */
#define SAMPLE 8
/* Elements compared per tensor_fill() call when a tensor is deferred. */
#define CHUNK_BYTES (64 * 1024)

static guint64
mix (guint64 h, guint64 x)
{
  h ^= x + G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
  return h;
}

/* Whether a tensor's bytes can be read: numeric, with data or a fill. */
static gboolean
readable (const Tensor *t)
{
  GraphDType dt = tensor_dtype (t);
  if (dt == GRAPH_DTYPE_UNDEFINED || dt == GRAPH_DTYPE_STRING || graph_dtype_size (dt) == 0)
    return FALSE;
  return tensor_is_deferred (t) || tensor_bytes (t) != NULL;
}

/* The identity of a tensor's storage, without computing a deferred one. */
static gconstpointer
storage_of (const Tensor *t)
{
  return tensor_is_deferred (t) ? (gconstpointer) t : tensor_data (t);
}

/* Size in bytes of the floating-point scalar an element is made of (a
 * complex element is two); 0 for the types compared byte for byte. */
static gsize
float_part (GraphDType dt)
{
  switch (dt)
    {
    case GRAPH_DTYPE_FLOAT16:
    case GRAPH_DTYPE_BFLOAT16:
      return 2;
    case GRAPH_DTYPE_FLOAT:
    case GRAPH_DTYPE_COMPLEX64:
      return 4;
    case GRAPH_DTYPE_DOUBLE:
    case GRAPH_DTYPE_COMPLEX128:
      return 8;
    default:
      return 0;
    }
}

/* A 16-bit float's bits: +0 for either zero, as == sees them. */
static guint16
zero16 (guint16 b)
{
  return (b & 0x7fff) == 0 ? 0 : b;
}

static gboolean
nan16 (GraphDType dt, guint16 b)
{
  if (dt == GRAPH_DTYPE_BFLOAT16)
    return (b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0;
  return (b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0;
}

static guint
hash_entry (const Tensor *t, DedupMode mode)
{
  guint64 h = mix (0, (guint64) tensor_dtype (t));
  h = mix (h, tensor_rank (t));
  for (guint i = 0; i < tensor_rank (t); i++)
    h = mix (h, (guint64) tensor_dim (t, i));
  if (mode == BY_STORAGE)
    return (guint) mix (h, (guint64) GPOINTER_TO_SIZE (storage_of (t)));

  GraphDType dt = tensor_dtype (t);
  gsize size = graph_dtype_size (dt), part = float_part (dt);
  gint64 n = tensor_numel (t);
  gint64 starts[3] = { 0, n / 2, n - SAMPLE };
  _Alignas (16) guint8 buf[SAMPLE * 16];   /* tensor_fill wants aligned elements */
  gint64 done = 0;   /* windows may overlap on small tensors: hash each element once */
  for (guint w = 0; w < 3; w++)
    {
      gint64 first = MAX (starts[w], done), count = MIN (n, starts[w] + SAMPLE) - first;
      if (count <= 0)
        continue;
      tensor_fill (t, first, count, buf);
      done = first + count;
      for (gsize off = 0; off < (gsize) count * size; off += part ? part : size)
        {
          guint64 x = 0;
          if (part == 2)
            {
              guint16 b;
              memcpy (&b, buf + off, 2);
              x = zero16 (b);
            }
          else if (part == 4)
            {
              float f;
              memcpy (&f, buf + off, 4);
              f = f == 0.0f ? 0.0f : f;
              guint32 b;
              memcpy (&b, &f, 4);
              x = b;
            }
          else if (part == 8)
            {
              double d;
              memcpy (&d, buf + off, 8);
              d = d == 0.0 ? 0.0 : d;
              memcpy (&x, &d, 8);
            }
          else
            memcpy (&x, buf + off, size);
          h = mix (h, x);
        }
    }
  return (guint) h;
}

/* Element-wise == over `n` scalars of `part` bytes (a float type), or
 * memcmp over `nbytes` when part is 0. */
static gboolean
range_equal (GraphDType dt, gsize part, const guint8 *a, const guint8 *b, gsize nbytes)
{
  if (part == 0)
    return memcmp (a, b, nbytes) == 0;
  gboolean same = TRUE;
  if (part == 4)
    for (gsize off = 0; off < nbytes; off += 4)
      {
        float x, y;
        memcpy (&x, a + off, 4);
        memcpy (&y, b + off, 4);
        same &= x == y;
      }
  else if (part == 8)
    for (gsize off = 0; off < nbytes; off += 8)
      {
        double x, y;
        memcpy (&x, a + off, 8);
        memcpy (&y, b + off, 8);
        same &= x == y;
      }
  else
    for (gsize off = 0; off < nbytes; off += 2)
      {
        guint16 x, y;
        memcpy (&x, a + off, 2);
        memcpy (&y, b + off, 2);
        same &= !nan16 (dt, x) && !nan16 (dt, y) && zero16 (x) == zero16 (y);
      }
  return same;
}

static gboolean
values_equal (const Tensor *a, const Tensor *b)
{
  GraphDType dt = tensor_dtype (a);
  gsize size = graph_dtype_size (dt), part = float_part (dt);
  gint64 n = tensor_numel (a);
  if (!tensor_is_deferred (a) && !tensor_is_deferred (b))
    return range_equal (dt, part, tensor_data (a), tensor_data (b), (gsize) n * size);
  gint64 per = MAX (1, CHUNK_BYTES / (gint64) size);
  g_autofree guint8 *ba = g_malloc ((gsize) MIN (per, MAX (n, 1)) * size);
  g_autofree guint8 *bb = g_malloc ((gsize) MIN (per, MAX (n, 1)) * size);
  for (gint64 first = 0; first < n; first += per)
    {
      gint64 count = MIN (per, n - first);
      tensor_fill (a, first, count, ba);
      tensor_fill (b, first, count, bb);
      if (!range_equal (dt, part, ba, bb, (gsize) count * size))
        return FALSE;
    }
  return TRUE;
}

static guint
entry_hash (gconstpointer p)
{
  return ((const Entry *) p)->hash;
}

static gboolean
entry_equal (gconstpointer pa, gconstpointer pb)
{
  const Entry *ea = pa, *eb = pb;
  const Tensor *a = ea->t, *b = eb->t;
  if (tensor_dtype (a) != tensor_dtype (b) || tensor_rank (a) != tensor_rank (b))
    return FALSE;
  for (guint i = 0; i < tensor_rank (a); i++)
    if (tensor_dim (a, i) != tensor_dim (b, i))
      return FALSE;
  if (ea->mode == BY_STORAGE)
    return storage_of (a) == storage_of (b);
  return values_equal (a, b);
}

/* One walk over the inputs; returns the number of inputs replaced. */
static guint
dedup_walk (Graph *g, DedupMode mode)
{
  guint n_in = graph_n_inputs (g);
  g_autofree Entry *entries = g_new0 (Entry, MAX (n_in, 1));
  g_autoptr (GHashTable) kept = g_hash_table_new (entry_hash, entry_equal);
  g_autoptr (GArray) removed = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < n_in; i++)
    {
      GraphValue *v = graph_input (g, i);
      Tensor *t = graph_value_get_initializer (v);
      if (t == NULL || !readable (t))
        continue;
      Entry *e = &entries[i];
      *e = (Entry) { v, t, hash_entry (t, mode), mode };
      Entry *first = g_hash_table_lookup (kept, e);
      if (first == NULL)
        {
          g_hash_table_add (kept, e);
          continue;
        }
      /* Identity(first) named like v, at the start of the graph. */
      GraphNode *id = graph_create_node (g, "onnx::Identity", 1, &first->v, 1);
      GraphValue *out = graph_node_output (id, 0);
      graph_value_set_type (out, graph_value_type (v));
      GraphNode *head = graph_first_node (g);
      if (head)
        graph_node_insert_before (id, head);
      else
        graph_insert_node (g, id);
      graph_value_replace_all_uses (v, out);
      const char *name = graph_value_get_name (v);   /* interned: outlives v */
      graph_value_set_name (v, NULL);
      graph_value_set_name (out, name);
      g_array_append_val (removed, i);
    }
  /* Back to front, so the indices still to remove stay valid. */
  for (guint k = removed->len; k-- > 0;)
    graph_remove_input (g, g_array_index (removed, guint, k));
  return removed->len;
}

guint
export_deduplicate_initializers (Graph *g)
{
  g_return_val_if_fail (g != NULL, 0);
  guint n = dedup_walk (g, BY_STORAGE);
  n += dedup_walk (g, BY_VALUE);   /* eval mode: the only one we export */
  /* Torch names nodes without a scope "<op>_<index in the graph>" when it
   * writes them: these lead the graph, so they are Identity_0.. in order. */
  guint i = 0;
  for (GraphNode *nd = graph_first_node (g); nd != NULL && i < n; nd = graph_node_next (nd), i++)
    {
      g_autofree char *name = g_strdup_printf ("Identity_%u", i);
      graph_node_set_name (nd, name);
    }
  return n;
}
