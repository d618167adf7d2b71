/* In-place ops on views: `m[0:2, 1:3] = 5` traces as
 *   %v = aten::slice(%m, ...); %w = aten::slice(%v, ...); aten::fill_(%w, 5)
 * and every later use of %m reads the trace's stale %m: the tracer records
 * no new value for the base.  Translated op by op, the export would drop the
 * assignment and compute other numbers than PyTorch (torch.onnx rewrites
 * such mutations into index_put with a pass of its own).
 *
 * After an in-place node is translated, export_view_mutation() walks its
 * self argument up the chain of aten::slice / aten::select views (and
 * aten::detach / aten::alias, which are the whole tensor) to the
 * base and writes each level back into its parent with ScatterElements
 * (Scatter before opset 11) at the static positions the view covers (at
 * positions computed in the graph when a size is known only at run time,
 * from opset 11: dynamic axes, data-dependent shapes); the
 * source values of the chain are then remapped, so later nodes read the
 * updated tensors.  A mutation through any other view (view, transpose,
 * expand...) whose base is read afterwards is refused: a refusal, not a
 * wrong number. */
#include "export/export.h"
#include "export/pipeline/view-mutation.h"
#include "symbolic/translate.h"
#include <string.h>

/* Largest view written back with a constant index tensor, in elements:
 * from opset 11 (8 MiB of int64 positions in the file) a larger one
 * computes its positions at run time (write_back_dynamic), as a view of
 * run-time sizes does (mvit_v2_s's attention writes 2^24.6 positions);
 * below 11 (no Range) up to 2^24, a bad-input guard. */
#define VIEW_MAX_CONSTANT_INDEX (G_GINT64_CONSTANT (1) << 20)
#define VIEW_MAX_CONSTANT_INDEX_OPSET9 (G_GINT64_CONSTANT (1) << 24)

/* An in-place node whose output is self's new value. */
static gboolean
is_inplace (GraphNode *n)
{
  /* set_ gives the tensor new storage: a view that is set_ leaves its base alone */
  return sym_kind_is_inplace (graph_node_kind (n)) && graph_node_n_inputs (n) > 0
         && graph_node_n_outputs (n) == 1 && !graph_node_is (n, "aten::set_");
}

static gboolean
is_kind (GraphNode *p, const char *kind)
{
  return p && strcmp (graph_node_kind (p), kind) == 0;
}

/* Ops whose output shares its input's storage (a write through them
 * reaches the input). */
static gboolean
is_view (GraphNode *p)
{
  static const char *const views[] = {
    "aten::slice", "aten::select", "aten::view", "aten::reshape", "aten::narrow", "aten::transpose",
    "aten::permute", "aten::t", "aten::expand", "aten::expand_as", "aten::unsqueeze", "aten::squeeze",
    "aten::diagonal", "aten::as_strided", "aten::unfold", "aten::view_as", "aten::flatten",
    "aten::alias", "aten::detach", "aten::numpy_T", "aten::swapaxes", "aten::movedim",
    "aten::unflatten", "aten::real", "aten::imag", "prim::ListUnpack", "aten::split",
    "aten::split_with_sizes", "aten::chunk", "aten::unbind", "aten::tensor_split",
    "aten::unsafe_split", "aten::unsafe_chunk",
  };
  for (guint i = 0; p && i < G_N_ELEMENTS (views); i++)
    if (strcmp (graph_node_kind (p), views[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
export_view_is_identity (GraphNode *p)
{
  return is_kind (p, "aten::detach") || is_kind (p, "aten::alias");
}

/* A view node's base (its first input), or NULL (a hostile trace's view
 * with no input). */
static GraphValue *
view_base (GraphNode *q)
{
  return q && graph_node_n_inputs (q) > 0 ? graph_node_input (q, 0) : NULL;
}

/* Views whose outputs are disjoint parts of their input. */
static gboolean
splits (GraphNode *p)
{
  static const char *const kinds[] = {
    "prim::ListUnpack", "aten::split", "aten::split_with_sizes", "aten::chunk", "aten::unbind",
    "aten::tensor_split", "aten::unsafe_split", "aten::unsafe_chunk", "aten::unsafe_split_with_sizes",
  };
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (is_kind (p, kinds[i]))
      return TRUE;
  return FALSE;
}

/* The view kinds a write can be carried back through. */
static gboolean
writable_view (GraphNode *q)
{
  return q && sym_kind_is_writable_view (graph_node_kind (q));
}

static gboolean
refuse (GraphNode *n, GError **error, const char *why)
{
  GraphValue *o = graph_node_n_outputs (n) ? graph_node_output (n, 0) : NULL;
  g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
               "Couldn't export operator %s (node %%%s): an in-place write into a view of a tensor "
               "that is read afterwards (%s); symonnx would drop the write", graph_node_kind (n),
               o && graph_value_get_name (o) ? graph_value_get_name (o) : "?", why);
  return FALSE;
}

/* The constant index tensor of `child_dims` positions along `dim` of the
 * parent for a slice (start, step) or a select (index, step 0). */
static Tensor *
scatter_indices (guint rank, const gint64 *dims, gint64 dim, gint64 start, gint64 step, GError **error)
{
  g_autoptr (Tensor) t = tensor_new_zeroed (GRAPH_DTYPE_INT64, rank, dims, error);
  if (t == NULL)
    return NULL;
  gint64 numel = tensor_numel (t), inner = 1;
  for (guint d = (guint) dim + 1; d < rank; d++)
    inner *= dims[d];
  gint64 *p = (gint64 *) tensor_data (t);   /* new, owned: writable */
  for (gint64 i = 0; i < numel; i++)
    p[i] = start + step * ((i / inner) % dims[dim]);
  return g_steal_pointer (&t);
}

/* write_back for sizes known only at run time (from opset 11, as torch's
 * index_put form): the view's positions along `dim` are
 * Range(0, len) * step + start, start normalised against the parent's
 * run-time size (a select: the one index), broadcast to the view's run-time
 * shape; `start_v`, when not NULL, is a computed start (1-D, one element). */
static GraphValue *
write_back_dynamic (SymContext *ctx, GraphNode *p, GraphValue *parent, GraphValue *child, gint64 dim,
                    gboolean select, gint64 start, GraphValue *start_v, gint64 step, GError **error)
{
  Graph *g = sym_graph (ctx);
  g_autoptr (GError) local = NULL;
  GraphValue *view = sym_value (ctx, graph_node_output (p, 0), &local);
  int pr = sym_known_rank (ctx, graph_node_input (p, 0));
  if (view == NULL || pr <= 0)
    {
      refuse (p, error, "a view with no value of its own");
      return NULL;
    }
  static const gint64 zero = 0;
  GraphValue *size = sym_size (ctx, parent, dim);   /* 0-d */
  GraphValue *s = start_v ? sym_squeeze (ctx, start_v, 1, &zero) : sym_const_i64 (ctx, start);
  /* a negative start counts from the end; a slice's start is clamped into
   * [0, size] as PyTorch does */
  GraphValue *neg = graph_op (g, "Cast", graph_op (g, "Less", s, sym_const_i64 (ctx, 0), NULL),
                              "to_i", (gint64) GRAPH_DTYPE_INT64, NULL);
  s = graph_op (g, "Add", s, graph_op (g, "Mul", neg, size, NULL), NULL);
  if (!select)
    {
      /* Where, not Max/Min: those take int64 only from opset 12 */
      GraphValue *z = sym_const_i64 (ctx, 0);
      s = graph_op (g, "Where", graph_op (g, "Less", s, z, NULL), z, s, NULL);
      s = graph_op (g, "Where", graph_op (g, "Greater", s, size, NULL), size, s, NULL);
    }
  GraphValue *vfull = select ? sym_unsqueeze (ctx, view, 1, &dim) : view;
  GraphValue *vshape = sym_size (ctx, vfull, G_MININT64);
  GraphValue *pos;
  if (select)
    pos = sym_unsqueeze (ctx, s, 1, &zero);
  else
    {
      GraphValue *len = sym_size (ctx, vfull, dim);
      GraphValue *iota = graph_op (g, "Range", sym_const_i64 (ctx, 0), len, sym_const_i64 (ctx, 1), NULL);
      pos = graph_op (g, "Add", graph_op (g, "Mul", iota, sym_const_i64 (ctx, step), NULL), s, NULL);
    }
  gint64 bshape[TENSOR_MAX_RANK];
  for (int d = 0; d < pr; d++)
    bshape[d] = d == dim ? -1 : 1;
  GraphValue *idx = graph_op (g, "Expand", sym_reshape_static (ctx, pos, (gsize) pr, bshape), vshape, NULL);
  GraphDType dt = sym_dtype (graph_node_input (p, 0));
  if (dt != GRAPH_DTYPE_UNDEFINED && sym_dtype (graph_node_output (p, 0)) != dt)
    child = sym_cast (ctx, child, dt);
  if (select)
    child = sym_unsqueeze (ctx, child, 1, &dim);
  child = graph_op (g, "Expand", child, vshape, NULL);
  GraphValue *r = graph_op (g, "ScatterElements", parent, idx, child, "axis_i", dim, NULL);
  if (r && graph_value_type (parent))
    graph_value_set_type (r, graph_value_type (parent));
  return r;
}

/* Writes `child` (the new value of view node p's output) back into p's
 * input: the parent's new ONNX value, or NULL with an error. */
static GraphValue *
write_back (SymContext *ctx, GraphNode *p, GraphValue *child, GError **error)
{
  Graph *g = sym_graph (ctx);
  GraphValue *parent_src = graph_node_input (p, 0), *view_src = graph_node_output (p, 0);
  GraphValue *parent = sym_value (ctx, parent_src, error);
  if (parent == NULL)
    {
      if (error && *error == NULL)
        refuse (p, error, "a view of None");
      return NULL;
    }
  if (export_view_is_identity (p))
    return child;   /* detach/alias: the same elements, the parent's new value is the view's */
  int pr = sym_known_rank (ctx, parent_src), vr = sym_known_rank (ctx, view_src);
  gint64 pdims[TENSOR_MAX_RANK], vdims[TENSOR_MAX_RANK];
  if (pr <= 0 || vr < 0 || pr > TENSOR_MAX_RANK)
    {
      refuse (p, error, "a view of unknown rank");
      return NULL;
    }
  /* sizes computed at run time (dynamic axes, data-dependent shapes):
   * the positions are computed in the graph too (write_back_dynamic) */
  gboolean dynamic = !sym_static_shape (parent_src, pdims) || !sym_static_shape (view_src, vdims);
  if (dynamic && sym_opset (ctx) < 11)
    {
      refuse (p, error, "a view of a size computed at run time (from opset 11)");
      return NULL;
    }
  gboolean select = is_kind (p, "aten::select");
  gint64 dim, start = 0, step = 1, end = G_MAXINT64;
  GraphValue *start_v = NULL;   /* a start computed at run time */
  guint nin = graph_node_n_inputs (p);
  if (!sym_get_const_int (graph_node_input (p, 1), &dim) || (select && nin != 3) || (!select && nin != 5))
    {
      refuse (p, error, "a view with a computed dim");
      return NULL;
    }
  if (dim < 0)
    dim += pr;
  if (dim < 0 || dim >= pr)
    {
      refuse (p, error, "a view's dim out of range");
      return NULL;
    }
  if (select)
    {
      if (!sym_get_const_int (graph_node_input (p, 2), &start))
        {
          /* x[i] = v with i a tensor (a 0-d index): the one position
           * computed at run time, as for a dynamic size (from opset 11) */
          if (sym_opset (ctx) < 11)
            {
              refuse (p, error, "a select with a computed index (from opset 11)");
              return NULL;
            }
          start_v = sym_int_input_1d (ctx, p, 2, error);
          return start_v ? write_back_dynamic (ctx, p, parent, child, dim, TRUE, 0, start_v, 0, error) : NULL;
        }
      if (start < 0 && !dynamic)
        start += pdims[dim];
      step = 0;
    }
  else
    {
      GraphValue *s = graph_node_input (p, 2);
      if (!sym_get_const_int (graph_node_input (p, 4), &step) || step <= 0)
        {
          refuse (p, error, "a slice with a computed or non-positive step");
          return NULL;
        }
      if (!sym_is_none (s) && !sym_get_const_int (s, &start))
        {
          /* qkv_bias[n // 3 : 2 * n // 3].zero_() (Swin V2): the view's
           * length is the trace's; its start is added at run time (from
           * opset 11, negative starts wrapped) */
          if (sym_opset (ctx) < 11)
            {
              refuse (p, error, "a slice with a computed start (from opset 11)");
              return NULL;
            }
          start_v = sym_int_input_1d (ctx, p, 2, error);
          if (start_v == NULL)
            return NULL;
          if (dynamic)
            return write_back_dynamic (ctx, p, parent, child, dim, FALSE, 0, start_v, step, error);
          GraphValue *neg = graph_op (g, "Cast", graph_op (g, "Less", start_v, sym_const_i64 (ctx, 0), NULL),
                                      "to_i", (gint64) GRAPH_DTYPE_INT64, NULL);
          start_v = graph_op (g, "Add", start_v, graph_op (g, "Mul", neg, sym_const_i64 (ctx, pdims[dim]), NULL),
                              NULL);
          start = 0;
        }
      if (dynamic)
        return write_back_dynamic (ctx, p, parent, child, dim, FALSE, start, NULL, step, error);
      if (start < 0)
        start += pdims[dim];
      start = CLAMP (start, 0, pdims[dim]);
      (void) end;   /* the view's length is its traced shape's */
    }
  if (dynamic)
    return write_back_dynamic (ctx, p, parent, child, dim, TRUE, start, NULL, 0, error);
  /* the positions the view covers, as a tensor of the child's shape (a
   * select's child gets its dim back first) */
  gint64 cdims[TENSOR_MAX_RANK];
  guint cr = (guint) pr;
  for (int d = 0, k = 0; d < pr; d++)
    cdims[d] = select && d == dim ? 1 : vdims[k++];
  if ((select && vr != pr - 1) || (!select && vr != pr))
    {
      refuse (p, error, "a view whose shape does not match its arguments");
      return NULL;
    }
  gint64 numel = 1, last = 0;
  gboolean overflow = FALSE;
  for (guint d = 0; d < cr; d++)
    overflow |= __builtin_mul_overflow (numel, cdims[d], &numel);
  /* the last position the view reaches (a step of 2^62 from the trace
   * overflowed here: found by the trace-export fuzzer) */
  if (start_v == NULL && cdims[dim] > 0)
    overflow |= __builtin_mul_overflow (step, cdims[dim] - 1, &last) || __builtin_add_overflow (start, last, &last);
  if (overflow || (start_v == NULL && cdims[dim] > 0 && last >= pdims[dim]))
    {
      refuse (p, error, "a view too large or out of its parent's range");
      return NULL;
    }
  if (sym_opset (ctx) >= 11 && numel > VIEW_MAX_CONSTANT_INDEX)
    return write_back_dynamic (ctx, p, parent, child, dim, select, start, start_v, step, error);
  if (numel > VIEW_MAX_CONSTANT_INDEX_OPSET9)
    {
      refuse (p, error, "a view of more than 2^24 elements (from opset 11)");
      return NULL;
    }
  g_autoptr (Tensor) idx = scatter_indices (cr, cdims, dim, start, step, error);
  if (idx == NULL)
    return NULL;
  GraphDType dt = sym_dtype (parent_src);
  if (dt != GRAPH_DTYPE_UNDEFINED && sym_dtype (view_src) != dt)
    child = sym_cast (ctx, child, dt);
  /* the new child may broadcast (fill_ of a scalar): expand it to the
   * view's shape, then back to the parent's rank for a select */
  g_autoptr (Tensor) shape = tensor_new_int64_vector (cr, cdims);
  if (select)
    child = sym_unsqueeze (ctx, child, 1, &dim);
  child = graph_op (g, "Expand", child, sym_constant (ctx, shape), NULL);
  GraphValue *iv = sym_constant (ctx, idx);
  if (start_v)
    iv = graph_op (g, "Add", iv, start_v, NULL);
  GraphValue *r = graph_op (g, sym_opset (ctx) >= 11 ? "ScatterElements" : "Scatter", parent, iv, child,
                            "axis_i", dim, NULL);
  if (r && dt != GRAPH_DTYPE_UNDEFINED)
    sym_set_type (r, dt, pr, pdims);   /* the base's type (a graph output needs one) */
  return r;
}

/* Note [Aliases of a written tensor]
 * PyTorch's views share their base's storage, so a write reaches every
 * view of the tensor, also the views made before it; the trace records
 * no new value for any of them.  For an in-place node n, export_view_write_plan
 * gathers what the export must do so that every value read after n sees
 * the write:
 * - the levels: n's self argument is a chain of views of a base; the
 *   write is carried back level by level through slice/select (and the
 *   identity views detach/alias), up to the first view of another kind
 *   (reshape, transpose...), which cannot be written back;
 * - the stale views: a view made before n (`z = x[1]` before
 *   `x[0:2].fill_(7)`, or before `x.add_(1)`) of a written level and read
 *   after n is made again from the written value, as PyTorch reads it;
 * - what cannot be reached: a tensor above the first view of another kind
 *   (or a view of it) read after n is refused, as is a stale view made in
 *   another block.
 * "Read after n" is read by a later node of n's graph or of its blocks,
 * returned by the graph, read after each block owner up to the top graph
 * (a whole loop body, which runs again), or held by a list or tuple made
 * before n and read after it (the list holds the tensor itself). */

/* The values read after `from` (excluded; NULL: all of g) in g and its
 * blocks, and g's outputs; the nodes met go to `later` (when not NULL). */
static void
collect_reads (Graph *g, GraphNode *from, GHashTable *reads, GHashTable *later)
{
  for (guint i = 0; i < graph_n_outputs (g); i++)
    g_hash_table_add (reads, graph_output (g, i));
  for (GraphNode *m = from ? graph_node_next (from) : graph_first_node (g); m; m = graph_node_next (m))
    {
      if (later)
        g_hash_table_add (later, m);
      for (guint i = 0; i < graph_node_n_inputs (m); i++)
        if (graph_node_input (m, i))
          g_hash_table_add (reads, graph_node_input (m, i));
      for (guint a = 0; a < graph_node_n_attrs (m); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (m, graph_node_attr_name (m, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            collect_reads (subs[k], NULL, reads, later);
        }
    }
}

static gboolean
is_container (GraphNode *p)
{
  return is_kind (p, "prim::ListConstruct") || is_kind (p, "prim::TupleConstruct");
}

/* The elements of lists and tuples made before n and read after it are
 * read after it (to 8 levels of nesting). */
static void
add_held (GraphValue *v, GHashTable *reads, GHashTable *later, int depth)
{
  GraphNode *p = graph_value_node (v);
  if (depth > 8 || !is_container (p) || g_hash_table_contains (later, p))
    return;
  for (guint i = 0; i < graph_node_n_inputs (p); i++)
    if (graph_node_input (p, i) && !g_hash_table_contains (reads, graph_node_input (p, i)))
      {
        g_hash_table_add (reads, graph_node_input (p, i));
        add_held (graph_node_input (p, i), reads, later, depth + 1);
      }
}

static void
reads_after (GraphNode *n, GHashTable *reads, GHashTable *later)
{
  for (GraphNode *m = n; m; m = graph_get_owner_node (graph_node_graph (m)))
    {
      Graph *g = graph_node_graph (m);
      GraphNode *owner = graph_get_owner_node (g);
      collect_reads (g, m, reads, later);
      /* a loop body runs again: all of it reads after n, but a view its
       * nodes before n made in this iteration is stale all the same */
      if (owner && is_kind (owner, "prim::Loop"))
        collect_reads (g, NULL, reads, NULL);
      if (owner == NULL)
        break;
    }
  guint n_direct;
  g_autofree gpointer *direct = g_hash_table_get_keys_as_array (reads, &n_direct);   /* add_held adds to reads */
  for (guint i = 0; i < n_direct; i++)
    add_held (direct[i], reads, later, 0);
}

gboolean
export_view_write_plan (GraphNode *n, ExportViewWrite *plan)
{
  memset (plan, 0, sizeof *plan);
  if (!is_inplace (n) || graph_node_input (n, 0) == NULL)
    return FALSE;
  plan->levels = g_ptr_array_new ();
  plan->rederive = g_ptr_array_new ();
  g_autoptr (GHashTable) written = g_hash_table_new (NULL, NULL);   /* the levels' values */
  g_autoptr (GHashTable) above = g_hash_table_new (NULL, NULL);     /* past the first other view */
  g_autoptr (GHashTable) on_chain = g_hash_table_new (NULL, NULL);   /* level node -> its output on the chain */
  GraphValue *self = graph_node_input (n, 0);
  g_hash_table_add (written, self);
  plan->top = self;
  GraphValue *below = self;
  for (GraphNode *q = graph_value_node (self); is_view (q); q = graph_value_node (view_base (q)))
    {
      GraphValue *base = view_base (q);
      g_hash_table_insert (on_chain, q, below);
      below = base;
      if (plan->blocked == NULL && !writable_view (q))
        plan->blocked = q;
      if (base == NULL)
        break;
      if (plan->blocked)
        g_hash_table_add (above, base);
      else
        {
          g_ptr_array_add (plan->levels, q);
          g_hash_table_add (written, base);
          plan->top = base;
        }
    }
  if (plan->levels->len == 0 && plan->blocked == NULL)
    {
      /* a write into a tensor itself: only a view of it can be stale */
      gboolean viewed = FALSE;
      for (guint i = 0; !viewed && i < graph_value_n_uses (self); i++)
        viewed = graph_value_use (self, i)->node != n && is_view (graph_value_use (self, i)->node);
      if (!viewed)
        return TRUE;
    }
  g_autoptr (GHashTable) reads = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) later = g_hash_table_new (NULL, NULL);
  reads_after (n, reads, later);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, written);
  while (!plan->read_later && g_hash_table_iter_next (&it, &key, NULL))
    plan->read_later = g_hash_table_contains (reads, key);
  g_autoptr (GHashTable) derived = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) chain = g_ptr_array_new ();
  g_hash_table_iter_init (&it, reads);
  while (plan->why == NULL && g_hash_table_iter_next (&it, &key, NULL))
    {
      GraphValue *v = key;
      if (g_hash_table_contains (written, v))
        continue;
      /* up v's views to a written value (stale), a value past the
       * chain (unreachable) or anything else (not an alias) */
      g_ptr_array_set_size (chain, 0);
      for (GraphValue *w = v;; w = view_base (graph_value_node (w)))
        {
          if (g_hash_table_contains (above, w))
            {
              plan->why = graph_node_kind (plan->blocked);
              break;
            }
          if (g_hash_table_contains (written, w))
            {
              for (guint i = 0; i < chain->len; i++)
                if (graph_node_graph (chain->pdata[i]) != graph_node_graph (n))
                  plan->why = "a view of it made in another block";
              for (guint i = 0; plan->why == NULL && i < chain->len; i++)
                g_hash_table_add (derived, chain->pdata[i]);
              break;
            }
          GraphNode *p = graph_value_node (w);
          if (!is_view (p) || p == n || g_hash_table_contains (later, p) || view_base (p) == NULL)
            break;
          /* another part of a split the write went through: disjoint */
          GraphValue *part = g_hash_table_lookup (on_chain, p);
          if (part && part != w && splits (p))
            break;
          g_ptr_array_add (chain, p);
        }
    }
  if (plan->why == NULL && g_hash_table_size (derived) > 0)
    {
      /* in graph order, each after the views it reads */
      for (GraphNode *m = graph_first_node (graph_node_graph (n)); m && m != n; m = graph_node_next (m))
        if (g_hash_table_contains (derived, m))
          g_ptr_array_add (plan->rederive, m);
      plan->read_later = TRUE;
    }
  return TRUE;
}

void
export_view_write_clear (ExportViewWrite *plan)
{
  g_clear_pointer (&plan->levels, g_ptr_array_unref);
  g_clear_pointer (&plan->rederive, g_ptr_array_unref);
}

static gboolean view_mutation (SymContext *ctx, GraphNode *n, GError **error);
gboolean
export_view_mutation (SymContext *ctx, GraphNode *n, GError **error)
{
  if (!is_inplace (n))
    return TRUE;
  /* the views' shapes as the symbolics see them (dynamic axes) */
  SymContext *saved = sym_context_make_current (ctx);
  gboolean ok = view_mutation (ctx, n, error);
  sym_context_make_current (saved);
  return ok;
}

static gboolean
view_mutation (SymContext *ctx, GraphNode *n, GError **error)
{
  g_auto (ExportViewWrite) plan;
  if (!export_view_write_plan (n, &plan)
      || (plan.levels->len == 0 && plan.blocked == NULL && plan.rederive->len == 0 && plan.why == NULL))
    return TRUE;   /* a write into a tensor itself: the tracer (or rebind_inplace) maps it */
  if (plan.why)
    return refuse (n, error, plan.why);
  /* a base an enclosing If carries out (Note [Writes in If branches]) is read after it */
  gboolean tracked = sym_context_tracks (ctx, plan.top);
  for (guint i = 0; !tracked && i < plan.levels->len; i++)
    tracked = sym_context_tracks (ctx, graph_node_input (plan.levels->pdata[i], 0));
  if (graph_value_graph (plan.top) != graph_node_graph (n) && !tracked
      && (plan.levels->len > 0 || plan.rederive->len > 0))
    /* a base of an enclosing block written inside a loop body (or in an If
     * that does not carry it): its later reads would miss the write */
    return refuse (n, error, "the tensor belongs to a block enclosing the loop or branch that writes it");
  if (!plan.read_later && !tracked)
    return TRUE;
  GraphValue *child = sym_context_mapped (ctx, graph_node_output (n, 0));
  if (child == NULL)
    return refuse (n, error, "its result has no value");
  /* write back level by level; the view itself reads the new value too */
  sym_map_value (ctx, graph_node_input (n, 0), child);
  for (guint i = 0; i < plan.levels->len; i++)
    {
      GraphNode *q = plan.levels->pdata[i];
      GraphValue *parent = write_back (ctx, q, child, error);
      if (parent == NULL)
        return FALSE;
      sym_map_value (ctx, graph_node_input (q, 0), parent);
      child = parent;
    }
  /* the stale views, made again from the written values */
  for (guint i = 0; i < plan.rederive->len; i++)
    if (!sym_context_translate (ctx, plan.rederive->pdata[i], error))
      return FALSE;
  return TRUE;
}
