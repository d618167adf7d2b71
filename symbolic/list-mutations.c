/* Note [List mutations]
 * Scripted code called from a trace mutates lists in place:
 *   %l : Tensor[] = prim::ListConstruct(%a, %b)
 *   %r : Tensor[] = aten::append(%l, %c)       # l.append(c)
 *   %y : Tensor = aten::cat(%l, %0)             # reads [a, b, c]
 * The value %l stands for whatever the list holds when a node reads it,
 * while symonnx models a list by its prim::ListConstruct's inputs (many
 * readers look at them directly: len, int lists, cat, index...).
 * Translated node by node, cat would read [a, b]: a wrong number.
 *
 * As torch 1.13 does first (its pass folds static appends and inserts into
 * the list construction), sym_fold_list_mutations() rewrites, on a copy of
 * the trace, each mutation of a list built by prim::ListConstruct into a
 * new prim::ListConstruct of the elements the list holds after it, and the
 * nodes after the mutation read that one:
 *   %l : Tensor[] = prim::ListConstruct(%a, %b)
 *   %l2 : Tensor[] = prim::ListConstruct(%a, %b, %c)
 *   %y : Tensor = aten::cat(%l2, %0)
 * The five mutations folded: append, insert, pop (its result becomes the
 * element it removes), Delete (`del l[i]`) and _set_item (`l[i] = v`).
 * A list is folded only when every one of its mutations can be followed
 * at export time:
 *   - each is in the block that builds the list (not inside a prim::If or
 *     prim::Loop body: a loop's appends are its scan outputs, Note [Loops]);
 *   - each index is a constant, and in range for pop, Delete and _set_item
 *     (PyTorch raises otherwise); insert clamps as Python does;
 *   - no other mutation (extend, clear, sort...) touches the list;
 *   - nothing holds the list before its last mutation (a tuple, another
 *     list, a block's result, a node with no result...): such a holder
 *     would see the mutations, which a new value cannot give it;
 *   - the list append or _set_item returns is not read.
 * Readers between two mutations keep reading the list as it was there; a
 * construction is made only where something reads the list (consecutive
 * appends make one), and at most FOLD_MAX_ELEMS elements in all per list.
 * `l[i]` at a constant index and `a, b = l` of a folded list become the
 * elements themselves (resolve_reads), so an in-place op on one reaches
 * every later read of the list (Note [In-place ops in scripted code]).
 * Every other mutation stays in the graph, and its symbolic refuses with
 * sym_list_mutation_why() (torch 1.13 exports those as ONNX sequences from
 * opset 11).  No ATen node or fallthrough copy is written for a mutation
 * in any mode (context.c): it would leave the readers on the old list. */
#include "symbolic/translate.h"
#include <string.h>

static const char *const folded_kinds[] = {
  "aten::append", "aten::insert", "aten::pop", "aten::Delete", "aten::_set_item",
};
/* TorchScript's in-place list and dict ops (their schemas mark self a!). */
static const char *const other_kinds[] = {
  "aten::extend", "aten::clear", "aten::reverse", "aten::remove", "aten::sort", "aten::add_",
  "aten::__setitem__", "aten::setdefault", "aten::update", "aten::popitem",
};

static gboolean
in_list (const char *kind, const char *const *list, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (strcmp (kind, list[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
is_container (GraphValue *v)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  GraphNode *p = v ? graph_value_node (v) : NULL;
  if (t && (graph_type_kind (t) == GRAPH_TYPE_LIST || graph_type_kind (t) == GRAPH_TYPE_DICT))
    return TRUE;
  return p && (graph_node_is (p, "prim::ListConstruct") || graph_node_is (p, "prim::DictConstruct"));
}

gboolean
sym_is_list_mutation (const GraphNode *n)
{
  const char *kind = graph_node_kind (n);
  if (graph_node_n_inputs (n) == 0 || !is_container (graph_node_input (n, 0)))
    return FALSE;
  return in_list (kind, folded_kinds, G_N_ELEMENTS (folded_kinds))
         || in_list (kind, other_kinds, G_N_ELEMENTS (other_kinds));
}

gboolean
sym_graph_has_list_mutations (const Graph *g)
{
  graph_foreach_node (g, n)
    {
      if (sym_is_list_mutation (n))
        return TRUE;
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            if (sym_graph_has_list_mutations (subs[k]))
              return TRUE;
        }
    }
  return FALSE;
}

/* ---- analysis ------------------------------------------------------------ */

/* Most list elements the fold writes for one list, over all the
 * constructions it makes (bad-input guard: a list read between each of
 * thousands of changes). */
#define FOLD_MAX_ELEMS (1 << 20)

/* One folded mutation: where it is in the block, and the elements the list
 * holds after it where something reads the list before the next change
 * (NULL when nothing does: no construction is made for it). */
typedef struct
{
  GraphNode  *node;
  gint64      pos;
  GPtrArray  *elems;    /* GraphValue*, or NULL */
  GraphValue *removed;  /* pop: the element it returns */
} Step;

static void
step_free (gpointer p)
{
  Step *s = p;
  if (s->elems)
    g_ptr_array_unref (s->elems);
  g_free (s);
}

/* What analyse() gives fold_list(). */
typedef struct
{
  GPtrArray  *steps;          /* Step* */
  GHashTable *pos;            /* node of the list's block → its place after the list */
  gboolean    block_returns;  /* a block under a later node returns the list */
  GHashTable *returned;       /* every value a block returns (the whole graph's) */
} Fold;

static gboolean
const_int (GraphValue *v, gint64 *out)
{
  GraphNode *p = v ? graph_value_node (v) : NULL;
  return p && graph_node_is (p, "prim::Constant") && graph_node_get_i (p, "value", out);
}

static const char *
value_name (GraphValue *v)
{
  const char *s = v ? graph_value_get_name (v) : NULL;
  return s ? s : "?";
}

/* Whether the list value l is an input of m (at or after input `from`). */
static gboolean
reads_from (GraphNode *m, GraphValue *l, guint from)
{
  for (guint i = from; i < graph_node_n_inputs (m); i++)
    if (graph_node_input (m, i) == l)
      return TRUE;
  return FALSE;
}

/* Ops that read a list and whose container result is a new one, not the
 * list itself (list(), slicing, +, *, an element of a list of lists). */
static gboolean
is_copy (GraphNode *m)
{
  static const char *const copies[] = {
    "aten::list", "aten::slice", "aten::add", "aten::mul", "aten::copy", "aten::__getitem__",
  };
  return in_list (graph_node_kind (m), copies, G_N_ELEMENTS (copies));
}

/* Whether m, which reads l, may keep a reference to it (a holder that
 * would see later mutations): a container construction, a mutation of
 * another container taking l as its element, a node with no result, or
 * one whose result is a container (or untyped) that is not a copy. */
static const char *
holds (GraphNode *m, GraphValue *l)
{
  if (graph_node_is (m, "prim::TupleConstruct") || graph_node_is (m, "prim::ListConstruct")
      || graph_node_is (m, "prim::DictConstruct"))
    return "a container built from it";
  if (sym_is_list_mutation (m) && reads_from (m, l, 1))
    return "another list or dict it is put into";
  if (graph_node_n_outputs (m) == 0)
    return "a node with no result that takes it";
  if (is_copy (m))
    return NULL;
  for (guint i = 0; i < graph_node_n_outputs (m); i++)
    {
      GraphType *t = graph_value_type (graph_node_output (m, i));
      if (t == NULL || (!graph_type_is_tensor (t) && graph_type_kind (t) != GRAPH_TYPE_INT
                        && graph_type_kind (t) != GRAPH_TYPE_FLOAT && graph_type_kind (t) != GRAPH_TYPE_BOOL
                        && graph_type_kind (t) != GRAPH_TYPE_STR && graph_type_kind (t) != GRAPH_TYPE_NONE
                        && graph_type_kind (t) != GRAPH_TYPE_NUMBER))
        return "a node whose result may be the list itself";
    }
  return NULL;
}

/* How many inputs of m are l. */
static guint
count_reads (GraphNode *m, GraphValue *l)
{
  guint n = 0;
  for (guint i = 0; i < graph_node_n_inputs (m); i++)
    n += graph_node_input (m, i) == l;
  return n;
}

/* What node m of the list's block does with l inside its blocks: a
 * mutation there (*mutated), a block returning it (*returned), the reads
 * (added to *reads), or a holder (returned reason); recursive. */
static const char *
inner_use (GraphNode *m, GraphValue *l, gboolean *mutated, gboolean *returned, guint *reads)
{
  const char *held = NULL;
  for (guint a = 0; a < graph_node_n_attrs (m) && !*mutated; a++)
    {
      Graph *one, *const *subs;
      gsize len = graph_node_attr_subgraphs (m, graph_node_attr_name (m, a), &one, &subs);
      for (gsize k = 0; k < len && !*mutated; k++)
        {
          for (guint o = 0; o < graph_n_outputs (subs[k]); o++)
            if (graph_output (subs[k], o) == l)
              {
                *returned = TRUE;
                held = "a block that returns it";
              }
          graph_foreach_node (subs[k], q)
            {
              if (sym_is_list_mutation (q) && graph_node_input (q, 0) == l)
                {
                  *mutated = TRUE;
                  return NULL;
                }
              guint r = count_reads (q, l);
              *reads += r;
              if (r > 0 && held == NULL)
                held = holds (q, l);
              const char *deeper = inner_use (q, l, mutated, returned, reads);
              if (*mutated)
                return NULL;
              if (held == NULL)
                held = deeper;
            }
        }
    }
  return held;
}

/* Normalises a Python index into a list of `len` elements; FALSE when out
 * of range (PyTorch raises IndexError). */
static gboolean
norm_index (gint64 i, guint len, guint *out)
{
  if (i < 0)
    i += len;
  if (i < 0 || i >= (gint64) len)
    return FALSE;
  *out = (guint) i;
  return TRUE;
}

/* After a change (*pending), takes the elements as they are for the last
 * step when a node reads the list; FALSE past FOLD_MAX_ELEMS. */
static gboolean
snapshot (Fold *f, GPtrArray *elems, gsize *total, gboolean *pending)
{
  if (!*pending)
    return TRUE;
  *pending = FALSE;
  *total += elems->len;
  if (*total > FOLD_MAX_ELEMS)
    return FALSE;
  if (f && f->steps->len)
    {
      Step *last = f->steps->pdata[f->steps->len - 1];
      last->elems = g_ptr_array_copy (elems, NULL, NULL);
    }
  return TRUE;
}

/* Follows list p (a prim::ListConstruct) through its block, up to its last
 * read: the steps to fold (in f, which may be NULL), or why it cannot be
 * folded (transfer full) and the node that stops it in *bad (may be
 * NULL). */
static char *
analyse (GraphNode *p, Fold *f, GraphNode **bad)
{
  GraphValue *l = graph_node_output (p, 0);
  g_autoptr (GPtrArray) elems = g_ptr_array_new ();
  for (guint i = 0; i < graph_node_n_inputs (p); i++)
    g_ptr_array_add (elems, graph_node_input (p, i));
  *bad = NULL;
  gint64 pos = 0, last_mutation = -1, last_hold = -1;
  guint remaining = graph_value_n_uses (l);
  gsize total = 0;
  gboolean pending = FALSE;
  const char *hold_why = NULL;
  GraphNode *holder = NULL;
  static const char too_many[] = "the list is read between more changes than symonnx follows";
  /* The scan may stop after the last read (use lists count node inputs,
   * not what a block returns) unless a block returns the list. */
  gboolean early = f && f->returned && !g_hash_table_contains (f->returned, l);
  for (GraphNode *m = graph_node_next (p); m && (remaining > 0 || !early); m = graph_node_next (m), pos++)
    {
      if (f)
        g_hash_table_insert (f->pos, m, GSIZE_TO_POINTER ((gsize) pos));
      if (sym_is_list_mutation (m) && graph_node_input (m, 0) == l)
        {
          const char *kind = graph_node_kind (m);
          guint nin = graph_node_n_inputs (m);
          *bad = m;
          remaining -= MIN (remaining, count_reads (m, l));
          if (!in_list (kind, folded_kinds, G_N_ELEMENTS (folded_kinds)))
            return g_strdup_printf ("the list is also changed by %s, which symonnx does not follow", kind);
          if (reads_from (m, l, 1))
            return g_strdup ("the list is put into itself");
          gboolean returns_list = strcmp (kind, "aten::append") == 0 || strcmp (kind, "aten::_set_item") == 0;
          for (guint o = 0; returns_list && o < graph_node_n_outputs (m); o++)
            if (graph_value_n_uses (graph_node_output (m, o)) > 0
                || graph_value_is_graph_output (graph_node_output (m, o)))
              return g_strdup_printf ("the list %s returns is read", kind);
          gboolean has_index = strcmp (kind, "aten::append") != 0;
          gboolean has_value = strcmp (kind, "aten::pop") != 0 && strcmp (kind, "aten::Delete") != 0;
          guint want = 1 + has_index + has_value;
          if (strcmp (kind, "aten::pop") == 0 && nin == 1)
            want = 1;   /* pop() with its default index -1 */
          if (nin != want)
            return g_strdup_printf ("%s with %u inputs (%u expected)", kind, nin, want);
          gint64 idx = -1;
          if (has_index && nin > 1 && !const_int (graph_node_input (m, 1), &idx))
            return g_strdup_printf ("the index %%%s is not a constant", value_name (graph_node_input (m, 1)));
          guint at = 0;
          GraphValue *removed = NULL;
          if (strcmp (kind, "aten::append") == 0)
            g_ptr_array_add (elems, graph_node_input (m, 1));
          else if (strcmp (kind, "aten::insert") == 0)
            {
              /* Python's insert: a negative index counts from the end, and
               * an index past either end puts the element there */
              gint64 n = elems->len;
              gint64 i = idx < 0 ? MAX (idx + n, 0) : MIN (idx, n);
              g_ptr_array_insert (elems, (gint) i, graph_node_input (m, 2));
            }
          else if (!norm_index (idx, elems->len, &at))
            return g_strdup_printf ("index %" G_GINT64_FORMAT " is out of range for the %u elements "
                                    "the list holds there (PyTorch raises IndexError)", idx, elems->len);
          else if (strcmp (kind, "aten::_set_item") == 0)
            elems->pdata[at] = graph_node_input (m, 2);
          else if ((removed = g_ptr_array_steal_index (elems, at)) == NULL
                   && strcmp (kind, "aten::pop") == 0)
            return g_strdup ("an absent element is popped");
          if (elems->len > G_MAXINT / 2)
            return g_strdup ("the list grows past any size symonnx follows");
          *bad = NULL;
          if (f)
            {
              Step *st = g_new0 (Step, 1);
              st->node = m;
              st->pos = pos;
              st->removed = strcmp (kind, "aten::pop") == 0 ? removed : NULL;
              g_ptr_array_add (f->steps, st);
            }
          last_mutation = pos;
          pending = TRUE;
          continue;
        }
      gboolean mutated = FALSE, returned = FALSE;
      guint reads = count_reads (m, l);
      const char *why = reads ? holds (m, l) : NULL;
      const char *inner = inner_use (m, l, &mutated, &returned, &reads);
      if (mutated)
        {
          *bad = m;
          return g_strdup_printf ("the list is changed inside the block of a %s", graph_node_kind (m));
        }
      if (f && returned)
        f->block_returns = TRUE;
      if (reads > 0 || returned)
        {
          remaining -= MIN (remaining, reads);
          if (!snapshot (f, elems, &total, &pending))
            return g_strdup (too_many);
        }
      if (why || inner)
        {
          last_hold = pos;
          hold_why = why ? why : inner;
          holder = m;
        }
    }
  if (last_hold >= 0 && last_hold < last_mutation)
    {
      *bad = holder;
      return g_strdup_printf ("the list is held by %s (%s) before it is changed, and would not see "
                              "the change", graph_node_kind (holder), hold_why);
    }
  /* the block's own outputs read the last state */
  if (!snapshot (f, elems, &total, &pending))
    return g_strdup (too_many);
  return NULL;
}

char *
sym_list_mutation_why (GraphNode *n)
{
  GraphValue *l = graph_node_n_inputs (n) ? graph_node_input (n, 0) : NULL;
  GraphNode *p = l ? graph_value_node (l) : NULL;
  GraphType *t = l ? graph_value_type (l) : NULL;
  if ((t && graph_type_kind (t) == GRAPH_TYPE_DICT) || (p && graph_node_is (p, "prim::DictConstruct")))
    return g_strdup ("a dict is changed in place");
  if (p == NULL || !graph_node_is (p, "prim::ListConstruct"))
    return g_strdup_printf ("the list %%%s is not built by prim::ListConstruct (it comes from %s)",
                            value_name (l), p ? graph_node_kind (p) : "outside the block");
  if (graph_node_graph (p) != graph_node_graph (n))
    return g_strdup_printf ("the list %%%s is changed inside a block (prim::If or prim::Loop) other "
                            "than the one that builds it", value_name (l));
  GraphNode *bad;
  char *why = analyse (p, NULL, &bad);
  return why ? why : g_strdup ("the change was not folded into the list");
}

/* ---- rewriting ----------------------------------------------------------- */

/* In the blocks under node m (recursively): every block output `from`
 * becomes `to`. */
static void
redirect_block_outputs (GraphNode *m, GraphValue *from, GraphValue *to)
{
  for (guint a = 0; a < graph_node_n_attrs (m); a++)
    {
      Graph *one, *const *subs;
      gsize len = graph_node_attr_subgraphs (m, graph_node_attr_name (m, a), &one, &subs);
      for (gsize k = 0; k < len; k++)
        {
          graph_foreach_node (subs[k], q)
            redirect_block_outputs (q, from, to);
          for (guint o = 0; o < graph_n_outputs (subs[k]); o++)
            if (graph_output (subs[k], o) == from)
              graph_set_output (subs[k], o, to);
        }
    }
}

/* The node of block b that n is, or is inside the blocks of. */
static GraphNode *
ancestor_in (GraphNode *n, Graph *b)
{
  for (guint depth = 0; n && depth < 4096; depth++)
    {
      if (graph_node_graph (n) == b)
        return n;
      n = graph_get_owner_node (graph_node_graph (n));
    }
  return NULL;
}

/* Every read of `from` by a node placed after `after` in block b (or
 * inside one such) reads `to`; b's outputs too. */
static void
redirect_after (Graph *b, GHashTable *pos, gint64 after, GraphValue *from, GraphValue *to)
{
  g_autoptr (GArray) uses = g_array_new (FALSE, FALSE, sizeof (GraphUse));
  for (guint i = 0; i < graph_value_n_uses (from); i++)
    g_array_append_val (uses, *graph_value_use (from, i));
  for (guint i = 0; i < uses->len; i++)
    {
      GraphUse *u = &g_array_index (uses, GraphUse, i);
      GraphNode *a = ancestor_in (u->node, b);
      gpointer at;
      gint64 where = a && g_hash_table_lookup_extended (pos, a, NULL, &at)
                       ? (gint64) GPOINTER_TO_SIZE (at) : G_MAXINT64;
      if (a && where > after)
        graph_node_set_input (u->node, u->index, to);
    }
  for (guint o = 0; o < graph_n_outputs (b); o++)
    if (graph_output (b, o) == from)
      graph_set_output (b, o, to);
}

/* Reads of a folded list at export-time positions become its elements:
 * `l[i]` at a constant index and `a, b = l` (TorchScript's own peephole,
 * which a changed list does not get).  An in-place op on such an element
 * (`l[2].add_(1)`) then writes the element itself, which every later read
 * of the list sees (Note [In-place ops in scripted code], context.c);
 * through the `__getitem__` value it would be lost. */
static void
resolve_reads (GraphNode *c)
{
  GraphValue *l = graph_node_output (c, 0);
  guint n = graph_node_n_inputs (c);
  for (guint i = 0; i < n; i++)
    if (graph_node_input (c, i) == NULL)
      return;
  g_autoptr (GPtrArray) readers = g_ptr_array_new ();
  for (guint i = 0; i < graph_value_n_uses (l); i++)
    {
      const GraphUse *u = graph_value_use (l, i);
      if (u->index == 0 && !g_ptr_array_find (readers, u->node, NULL))
        g_ptr_array_add (readers, u->node);
    }
  for (guint k = 0; k < readers->len; k++)
    {
      GraphNode *m = readers->pdata[k];
      gint64 idx;
      guint at;
      if (graph_node_is (m, "aten::__getitem__") && graph_node_n_inputs (m) == 2
          && graph_node_n_outputs (m) == 1 && const_int (graph_node_input (m, 1), &idx)
          && norm_index (idx, n, &at))
        {
          graph_value_replace_all_uses (graph_node_output (m, 0), graph_node_input (c, at));
          graph_node_destroy (m);
        }
      else if (graph_node_is (m, "prim::ListUnpack") && graph_node_n_inputs (m) == 1
               && graph_node_n_outputs (m) == n)
        {
          for (guint i = 0; i < n; i++)
            graph_value_replace_all_uses (graph_node_output (m, i), graph_node_input (c, i));
          graph_node_destroy (m);
        }
    }
}

static guint
fold_list (GraphNode *p, GHashTable *returned, GHashTable *whys)
{
  g_autoptr (GPtrArray) steps = g_ptr_array_new_with_free_func (step_free);
  g_autoptr (GHashTable) pos = g_hash_table_new (NULL, NULL);
  Fold f = { .steps = steps, .pos = pos, .returned = returned };
  GraphNode *bad;
  g_autofree char *why = analyse (p, &f, &bad);
  if (why && whys)
    {
      /* every change of the list in its block is refused for that reason */
      GraphValue *l = graph_node_output (p, 0);
      for (guint i = 0; i < graph_value_n_uses (l); i++)
        {
          const GraphUse *u = graph_value_use (l, i);
          if (u->index == 0 && sym_is_list_mutation (u->node) && graph_node_graph (u->node) == graph_node_graph (p))
            g_hash_table_insert (whys, u->node, g_strdup (why));
        }
    }
  if (why || steps->len == 0)
    return 0;
  Graph *g = graph_node_graph (p);
  GraphValue *cur = graph_node_output (p, 0);
  GraphType *t = graph_value_type (cur);
  g_autoptr (GPtrArray) made = g_ptr_array_new ();
  g_ptr_array_add (made, p);
  for (guint k = 0; k < steps->len; k++)
    {
      Step *s = steps->pdata[k];
      if (s->elems)
        {
          GraphNode *c = graph_create_node (g, "prim::ListConstruct", s->elems->len,
                                            (GraphValue *const *) s->elems->pdata, 1);
          if (c == NULL)
            return k;   /* not reached: the kind is valid */
          GraphValue *next = graph_node_output (c, 0);
          if (t)
            graph_value_set_type (next, t);
          graph_node_insert_before (c, s->node);
          if (graph_node_get_scope (s->node))
            graph_node_set_scope (c, graph_node_get_scope (s->node));
          redirect_after (g, pos, s->pos, cur, next);
          if (k + 1 == steps->len && f.block_returns)
            for (GraphNode *m = graph_node_next (s->node); m; m = graph_node_next (m))
              redirect_block_outputs (m, cur, next);
          g_ptr_array_add (made, c);
          cur = next;
        }
      if (s->removed)
        graph_value_replace_all_uses (graph_node_output (s->node, 0), s->removed);
      graph_node_destroy (s->node);
    }
  /* Constructions nothing reads any more (the first one, when a mutation
   * follows it directly) go; the others' element reads are resolved. */
  for (guint k = made->len; k-- > 0;)
    {
      GraphNode *c = made->pdata[k];
      resolve_reads (c);
      GraphValue *v = graph_node_output (c, 0);
      if (graph_value_n_uses (v) == 0 && !graph_value_is_graph_output (v))
        graph_node_destroy (c);
    }
  return steps->len;
}

static void
collect_lists (Graph *g, GPtrArray *out)
{
  graph_foreach_node (g, n)
    {
      if (graph_node_is (n, "prim::ListConstruct") && graph_node_n_outputs (n) == 1)
        {
          GraphValue *l = graph_node_output (n, 0);
          for (guint i = 0; i < graph_value_n_uses (l); i++)
            {
              const GraphUse *u = graph_value_use (l, i);
              if (u->index == 0 && sym_is_list_mutation (u->node))
                {
                  g_ptr_array_add (out, n);
                  break;
                }
            }
        }
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            collect_lists (subs[k], out);
        }
    }
}

/* Every value a block under g's nodes returns. */
static void
collect_returned (Graph *g, GHashTable *out)
{
  graph_foreach_node (g, n)
    for (guint a = 0; a < graph_node_n_attrs (n); a++)
      {
        Graph *one, *const *subs;
        gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
        for (gsize k = 0; k < len; k++)
          {
            for (guint o = 0; o < graph_n_outputs (subs[k]); o++)
              g_hash_table_add (out, graph_output (subs[k], o));
            collect_returned (subs[k], out);
          }
      }
}

guint
sym_fold_list_mutations (Graph *g, GHashTable *whys)
{
  g_return_val_if_fail (g != NULL, 0);
  g_autoptr (GPtrArray) lists = g_ptr_array_new ();
  collect_lists (g, lists);
  if (lists->len == 0)
    return 0;
  g_autoptr (GHashTable) returned = g_hash_table_new (NULL, NULL);
  collect_returned (g, returned);
  guint folded = 0;
  for (guint i = 0; i < lists->len; i++)
    folded += fold_list (lists->pdata[i], returned, whys);
  return folded;
}
