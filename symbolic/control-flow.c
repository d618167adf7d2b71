/* prim::If and prim::Loop of scripted code inside a trace (torchvision's
 * @torch.jit._script_if_tracing helpers: `if boxes.numel() == 0: ...`,
 * `for i in range(masks.size(0)): ...`).
 * A condition known at export time (Note [Static scalars in scripted
 * code], context.c) keeps the branch it selects, translated inline; a
 * computed one becomes ONNX If with each block translated into a subgraph
 * (block0 is the then branch).  A loop becomes ONNX Loop (Note [Loops]).  Values of the enclosing graph that a block
 * reads are made in the enclosing graph first, so a constant or weight
 * first needed inside a block is not created inside that subgraph. */
#include "symbolic/translate.h"
#include <string.h>

/* Materialises, in the current graph, every value of an enclosing graph
 * that block b's nodes (and their own blocks) read. */
static gboolean
materialise_outer_reads (SymContext *ctx, Graph *b, GError **error)
{
  graph_foreach_node (b, m)
    {
      for (guint i = 0; i < graph_node_n_inputs (m); i++)
        {
          GraphValue *v = graph_node_input (m, i);
          if (v == NULL || graph_value_graph (v) == b || sym_context_mapped (ctx, v))
            continue;
          /* One with no ONNX value (a string read only by a test known at
           * export time) is left alone: a real use of it fails there. */
          g_autoptr (GError) local = NULL;
          sym_value (ctx, v, &local);
        }
      for (guint a = 0; a < graph_node_n_attrs (m); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (m, graph_node_attr_name (m, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            if (!materialise_outer_reads (ctx, subs[k], error))
              return FALSE;
        }
    }
  return TRUE;
}

static gboolean
translate_block (SymContext *ctx, Graph *b, GError **error)
{
  graph_foreach_node (b, m)
    if (!sym_context_translate (ctx, m, error))
      return FALSE;
  return TRUE;
}

static gboolean
unsupported (SymContext *ctx, GraphNode *n, GError **error, const char *why)
{
  return sym_unimplemented (ctx, n, error, "%s", why);
}

/* v as a value of subgraph sub (whose outputs must be its own values): an
 * Identity of it when it belongs to an enclosing graph, typed as v. */
static GraphValue *
in_subgraph (Graph *sub, GraphValue *v)
{
  if (v == NULL || graph_value_graph (v) == sub)
    return v;
  GraphValue *w = graph_op (sub, "Identity", v, NULL);
  if (w && graph_value_type (v))
    graph_value_set_type (w, graph_value_type (v));
  return w;
}

/* The value block output i stands for, made a value of sub (a subgraph's
 * outputs are its own values) and typed: its own type, the node's traced
 * one, or its element type and rank. */
static GraphValue *
block_output (SymContext *ctx, GraphNode *n, Graph *block, Graph *sub, guint i, GraphValue *traced,
              GError **error)
{
  GError *local = NULL;
  GraphValue *v = sym_value (ctx, graph_output (block, i), &local);
  if (v == NULL)
    {
      if (local)
        g_propagate_error (error, local);
      else
        /* torch 1.13: also refuses (an If/Loop block output of None has no ONNX value) */
        unsupported (ctx, n, error, "a block that returns None");
      return NULL;
    }
  v = in_subgraph (sub, v);
  if (v && graph_value_type (v) == NULL)
    {
      GraphType *t = traced ? graph_value_type (traced) : NULL;
      GraphType *tb = graph_value_type (graph_output (block, i));
      GraphType *use = t && graph_type_is_tensor (t) && graph_type_dtype (t) ? t : tb;
      if (use && graph_type_is_tensor (use) && graph_type_dtype (use))
        sym_set_type (v, graph_type_dtype (use), graph_type_rank (use), NULL);
    }
  return v;
}

/* The tensors outside an If or Loop (of its node's graph `home` or an
 * enclosing one) that block b of it, and the blocks nested in b, write in
 * place, directly or through writable views made inside the construct
 * (Note [Writes in If branches], context.c), added to w once. */
static void
outer_writes (Graph *b, Graph *home, GPtrArray *w)
{
  graph_foreach_node (b, m)
    {
      for (guint a = 0; a < graph_node_n_attrs (m); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (m, graph_node_attr_name (m, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            outer_writes (subs[k], home, w);
        }
      if (!sym_kind_is_inplace (graph_node_kind (m)) || graph_node_n_inputs (m) == 0
          || graph_node_n_outputs (m) != 1 || graph_node_input (m, 0) == NULL)
        continue;
      GraphValue *v = graph_node_input (m, 0);
      for (GraphNode *p = graph_value_node (v);
           p && graph_node_n_inputs (p) > 0 && !graph_is_within (home, graph_node_graph (p))
           && sym_kind_is_writable_view (graph_node_kind (p));
           p = graph_value_node (v))
        v = graph_node_input (p, 0);
      if (graph_is_within (home, graph_value_graph (v)) && !g_ptr_array_find (w, v, NULL))
        g_ptr_array_add (w, v);
    }
}

/* Block k's final value of tracked tensor src as a value of sub, typed. */
static GraphValue *
carried_out (SymContext *ctx, GraphNode *n, GraphValue *src, Graph *sub, GError **error)
{
  GraphValue *v = sym_value (ctx, src, error);
  if (v == NULL)
    {
      if (error && *error == NULL)
        /* torch 1.13: also refuses (a written value with no tensor cannot be an If output) */
        unsupported (ctx, n, error, "an in-place write in a branch to a value with no tensor");
      return NULL;
    }
  v = in_subgraph (sub, v);
  if (v == NULL)
    {
      /* torch 1.13: makes such a write a loop-carried value first; not yet here */
      unsupported (ctx, n, error, "an in-place write in a branch whose value the branch cannot see (made in a "
                   "nested loop)");
      return NULL;
    }
  if (sym_dtype (v) == GRAPH_DTYPE_UNDEFINED || sym_rank (v) < 0)
    sym_set_type (v, sym_dtype (src), sym_rank (src), NULL);
  return v;
}

/* A condition already translated into a constant (an aten op folded by
 * Note [Static scalars in scripted code] once the values it reads had
 * their types: `a.is_floating_point()` of an `a` computed in the
 * enclosing block). */
static gboolean
mapped_constant_bool (SymContext *ctx, GraphValue *cond_src, gboolean *c)
{
  GraphValue *v = sym_context_mapped (ctx, cond_src);
  Tensor *t = v ? graph_value_constant_tensor (v) : NULL;
  if (t == NULL || !tensor_has_data (t) || tensor_numel (t) != 1 || tensor_dtype (t) != GRAPH_DTYPE_BOOL)
    return FALSE;
  *c = tensor_get_int64 (t, 0) != 0;
  return TRUE;
}

gboolean
sym_lower_if (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  Graph *then_b = NULL, *else_b = NULL;
  if (graph_node_n_inputs (n) != 1 || !graph_node_get_g (n, "block0", &then_b)
      || !graph_node_get_g (n, "block1", &else_b))
    /* torch 1.13: also refuses (prim::If must have two blocks: a malformed graph) */
    return unsupported (ctx, n, error, "a prim::If without two blocks");
  guint nout = graph_node_n_outputs (n);
  if (graph_n_outputs (then_b) != nout || graph_n_outputs (else_b) != nout)
    /* torch 1.13: also refuses (blocks whose outputs differ from the node's are a malformed graph) */
    return unsupported (ctx, n, error, "blocks whose outputs do not match the node's");
  GraphValue *cond_src = graph_node_input (n, 0);
  gboolean c;
  if (sym_static_bool (cond_src, &c) || mapped_constant_bool (ctx, cond_src, &c))
    {
      Graph *b = c ? then_b : else_b;
      /* the branch is translated into this graph: its in-place writes to
       * tensors of the If's own block are plain rebindings (tracked, as a
       * run-time If's are, so that they are not refused); a tensor of a
       * block further out is the enclosing Loop's or If's to carry */
      g_autoptr (GPtrArray) outer = g_ptr_array_new ();
      g_autoptr (GPtrArray) written = g_ptr_array_new ();
      outer_writes (b, graph_node_graph (n), outer);
      for (guint j = 0; j < outer->len; j++)
        if (graph_value_graph (outer->pdata[j]) == graph_node_graph (n))
          g_ptr_array_add (written, outer->pdata[j]);
      g_autofree gboolean *was = g_new0 (gboolean, written->len + 1);
      for (guint j = 0; j < written->len; j++)
        {
          was[j] = sym_context_tracks (ctx, written->pdata[j]);
          sym_context_track (ctx, written->pdata[j], TRUE);
        }
      gboolean ok = translate_block (ctx, b, error);
      for (guint j = 0; j < written->len; j++)
        sym_context_track (ctx, written->pdata[j], was[j]);
      if (!ok)
        return FALSE;
      for (guint i = 0; i < nout; i++)
        {
          GError *local = NULL;
          out[i] = sym_value (ctx, graph_output (b, i), &local);
          if (local)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          /* a value of an enclosing graph, inside a loop body */
          out[i] = in_subgraph (sym_graph (ctx), out[i]);
        }
      return TRUE;
    }
  /* Note [Writes in If branches]: tensors of enclosing blocks the branches
   * write become extra outputs */
  g_autoptr (GPtrArray) written = g_ptr_array_new ();
  outer_writes (then_b, graph_node_graph (n), written);
  outer_writes (else_b, graph_node_graph (n), written);
  guint nw = written->len;
  if (nout == 0 && nw == 0)
    /* torch 1.13: turns the branches' in-place writes into If outputs (its remove-inplace pass)
     * and exports it; not yet here for writes symonnx does not track */
    return unsupported (ctx, n, error, "an If with no outputs (side effects only)");
  GError *local = NULL;
  GraphValue *cond = sym_value (ctx, cond_src, &local);
  if (cond == NULL)
    {
      if (local)
        g_propagate_error (error, local);
      else
        /* torch 1.13: also refuses (an If condition of None has no ONNX value) */
        unsupported (ctx, n, error, "a None condition");
      return FALSE;
    }
  if (sym_dtype (cond_src) != GRAPH_DTYPE_BOOL)
    cond = sym_cast (ctx, cond, GRAPH_DTYPE_BOOL);
  if (!materialise_outer_reads (ctx, then_b, error) || !materialise_outer_reads (ctx, else_b, error))
    return FALSE;
  /* the tracked tensors' values before the If, restored after each branch */
  g_autofree GraphValue **before = g_new0 (GraphValue *, nw + 1);
  for (guint j = 0; j < nw; j++)
    {
      before[j] = sym_value (ctx, written->pdata[j], error);
      if (before[j] == NULL)
        {
          if (error && *error == NULL)
            /* torch 1.13: also refuses (None written in place has no ONNX value) */
            unsupported (ctx, n, error, "an in-place write in a branch to a value with no tensor");
          return FALSE;
        }
    }
  g_autofree gboolean *was_tracked = g_new0 (gboolean, nw + 1);
  for (guint j = 0; j < nw; j++)
    {
      was_tracked[j] = sym_context_tracks (ctx, written->pdata[j]);
      sym_context_track (ctx, written->pdata[j], TRUE);
    }
  Graph *outer = sym_graph (ctx);
  Graph *subs[2] = { NULL, NULL };
  Graph *blocks[2] = { then_b, else_b };
  gboolean ok = TRUE;
  for (guint k = 0; ok && k < 2; k++)
    {
      subs[k] = graph_new_subgraph (outer);
      sym_context_swap_graph (ctx, subs[k]);
      ok = translate_block (ctx, blocks[k], error);
      for (guint i = 0; ok && i < nout; i++)
        {
          GraphValue *v = block_output (ctx, n, blocks[k], subs[k], i, graph_node_output (n, i), error);
          ok = v != NULL;
          if (ok)
            graph_add_output (subs[k], v);
        }
      for (guint j = 0; ok && j < nw; j++)
        {
          GraphValue *v = carried_out (ctx, n, written->pdata[j], subs[k], error);
          ok = v != NULL;
          if (ok)
            graph_add_output (subs[k], v);
        }
      for (guint j = 0; j < nw; j++)
        sym_map_value (ctx, written->pdata[j], before[j]);
      sym_context_swap_graph (ctx, outer);
    }
  for (guint j = 0; j < nw; j++)
    sym_context_track (ctx, written->pdata[j], was_tracked[j]);
  GraphNode *ifn = ok ? graph_op_outputs (outer, "If", nout + nw, cond, NULL) : NULL;
  if (ifn == NULL)
    {
      graph_free (subs[0]);
      graph_free (subs[1]);
      /* torch 1.13: also refuses (a block that cannot be built fails its export) */
      return ok ? unsupported (ctx, n, error, "the If node could not be built") : FALSE;
    }
  graph_node_set_g (ifn, "then_branch", subs[0]);
  graph_node_set_g (ifn, "else_branch", subs[1]);
  for (guint i = 0; i < nout + nw; i++)
    {
      GraphValue *o = graph_node_output (ifn, i);
      if (i < nout)
        out[i] = o;
      else
        sym_map_value (ctx, written->pdata[i - nout], o);   /* the written tensor after the If */
      /* the branches' element type (the trace often says only "Tensor"),
       * and their rank where they agree: a branch may return a tensor of
       * another rank (PyTorch's suite, scripted test_floating_point_infer_dtype),
       * and a branch whose type is not known yet says nothing */
      GraphType *t0 = graph_value_type (graph_output (subs[0], i));
      GraphType *t1 = graph_value_type (graph_output (subs[1], i));
      GraphDType d0 = t0 && graph_type_is_tensor (t0) ? graph_type_dtype (t0) : GRAPH_DTYPE_UNDEFINED;
      GraphDType d1 = t1 && graph_type_is_tensor (t1) ? graph_type_dtype (t1) : GRAPH_DTYPE_UNDEFINED;
      if (d0 && d0 == d1)
        sym_set_type (o, d0, graph_type_rank (t0) == graph_type_rank (t1) ? graph_type_rank (t0) : -1, NULL);
      else if (d0 && d1 == GRAPH_DTYPE_UNDEFINED && graph_value_type (graph_output (subs[1], i)) == NULL)
        sym_set_type (o, d0, graph_type_rank (t0), NULL);   /* as before: the then branch's */
    }
  return TRUE;
}

/* prim::RaiseException reached by the translation: a check of scripted
 * code whose condition is known only at run time (ONNX has no exceptions),
 * or one the traced input itself fails.  Refused, never dropped. */
gboolean
sym_lower_raise (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  /* torch 1.13: exports prim::RaiseException as nothing (the check disappears); refused here
   * because the model would go on where PyTorch raises */
  return unsupported (ctx, n, error,
                      "an exception raised by scripted code under a condition known only at run time "
                      "(ONNX cannot raise)");
}

/* Note [Loops]
 * prim::Loop(%trip_count, %cond, %carried...) with block0(%i, %carried...)
 * -> (%cond, %carried...) is ONNX Loop(M, cond, v_initial...) whose body
 * (iteration_num, cond_in, v_in...) -> (cond_out, v_out...) is the block
 * translated into a subgraph, as torch's prim_loop does.  A carried value
 * keeps its element type and rank from one iteration to the next (ONNX's
 * rule; a body that changes them is refused), its dims are unknown (a
 * tensor grown by cat each iteration), and the counter and carried values
 * are data-dependent inside the body (Note [Data-dependent shapes]), so
 * nothing the body computes from them is folded from one traced
 * iteration.  The outputs are the final carried values. */

static const char *
dtype_label (GraphDType dt)
{
  return dt == GRAPH_DTYPE_UNDEFINED ? "unknown" : graph_dtype_name (dt);
}

/* Whether the export may leave a carried value's element type or rank
 * unknown (Note [Untyped carried values]). */
static gboolean
untyped_carried_ok (SymContext *ctx)
{
  return sym_mode (ctx) == SYM_MODE_ONNX_ATEN || sym_mode (ctx) == SYM_MODE_ONNX_ATEN_FALLBACK;
}

/* Body output k+1 (carried value k) must keep v_initial's element type and
 * rank; an unknown one takes them. */
static gboolean
check_carried (SymContext *ctx, GraphNode *n, guint k, GraphValue *init, GraphValue *v, GError **error)
{
  GraphDType di = sym_dtype (init), dv = sym_dtype (v);
  int ri = sym_rank (init), rv = sym_rank (v);
  if (untyped_carried_ok (ctx) && (di == GRAPH_DTYPE_UNDEFINED || dv == GRAPH_DTYPE_UNDEFINED))
    di = dv = GRAPH_DTYPE_UNDEFINED;   /* a side made by an ATen node: checked when it runs */
  else if (di == GRAPH_DTYPE_UNDEFINED || dv != di)
    /* torch 1.13: writes the Loop anyway (an ill-typed carried value that executors refuse);
     * refused here because ONNX Loop keeps a carried value's type */
    return sym_unimplemented (ctx, n, error,
                              "loop-carried value %u starts as %s and the loop body makes it %s "
                              "(ONNX Loop keeps a carried value's element type)",
                              k, dtype_label (di), dtype_label (dv));
  if (ri >= 0 && rv >= 0 && ri != rv)
    /* torch 1.13: writes the Loop (the checker accepts it); refused here because symonnx types a
     * carried value by its rank before the loop, which the body changes */
    return sym_unimplemented (ctx, n, error,
                              "loop-carried value %u has rank %d before the loop and %d after "
                              "an iteration (ONNX Loop keeps a carried value's rank)", k, ri, rv);
  return TRUE;
}

/* Note [Untyped carried values]
 * In the ATen modes a carried value may be made by an ATen node, whose
 * element type and rank the export does not know when the trace says only
 * "Tensor" (scripted code: Mask R-CNN's `res_append = torch.zeros(0, h, w)`
 * grown by cat in the loop).  There the Loop is written with that carried
 * value untyped, as torch 1.13 writes it in every mode: ONNX's checker
 * accepts an untyped subgraph input, symonnx's executor takes the types of
 * the values it runs on (and refuses a body that changes them where a
 * kernel needs them), and a runtime without ATen kernels cannot run the
 * model anyway.  In ONNX mode every value comes from a symbolic with known
 * types, so an unknown one is still refused there. */

/* A carried value's type inside the body and after the loop: element type
 * and rank, every dim unknown (the element type too, and no rank, when
 * they are unknown: Note [Untyped carried values]). */
static GraphType *
carried_type (GraphValue *v)
{
  int r = sym_rank (v);
  if (sym_dtype (v) == GRAPH_DTYPE_UNDEFINED || r < 0)
    return graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL);
  GraphDim unknown[TENSOR_MAX_RANK] = { { 0 } };
  for (int i = 0; i < r && i < TENSOR_MAX_RANK; i++)
    unknown[i].kind = GRAPH_DIM_UNKNOWN;
  return graph_type_new_tensor (sym_dtype (v), MIN (r, TENSOR_MAX_RANK), r > 0 ? unknown : NULL);
}

/* Whether m, a node of a loop's block, is `res.append(v)` to a list made
 * empty just for this loop and read after it only by torch.stack: then v
 * is a scan output of the ONNX Loop (the values of every iteration
 * stacked on a new first axis) and stack reads that. */
static gboolean
is_scan_append (GraphNode *m, GraphNode *loop)
{
  if (!graph_node_is (m, "aten::append") || graph_node_n_inputs (m) != 2
      || graph_node_n_outputs (m) != 1 || graph_value_n_uses (graph_node_output (m, 0)) > 0)
    return FALSE;
  GraphValue *l = graph_node_input (m, 0);
  GraphNode *p = l ? graph_value_node (l) : NULL;
  Graph *g = graph_node_graph (loop);
  if (p == NULL || !graph_node_is (p, "prim::ListConstruct") || graph_node_n_inputs (p) != 0
      || graph_node_graph (p) != g)
    return FALSE;
  for (guint i = 0; i < graph_n_outputs (g); i++)
    if (graph_output (g, i) == l)
      return FALSE;   /* the list itself returned: an ONNX sequence in torch */
  for (guint i = 0; i < graph_value_n_uses (l); i++)
    {
      GraphNode *u = graph_value_use (l, i)->node;
      if (u == m)
        continue;
      if (!graph_node_is (u, "aten::stack") || graph_node_graph (u) != g)
        return FALSE;
      GraphNode *after = graph_node_next (loop);
      while (after && after != u)
        after = graph_node_next (after);
      if (after == NULL)
        return FALSE;   /* a stack before the loop */
    }
  return TRUE;
}

gboolean
sym_lower_loop (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  Graph *block = NULL, *other = NULL;
  guint nin = graph_node_n_inputs (n);
  if (nin < 2 || !graph_node_get_g (n, "block0", &block) || graph_node_get_g (n, "block1", &other))
    /* torch 1.13: also refuses (a prim::Loop without trip count, condition and one block is
     * malformed) */
    return unsupported (ctx, n, error, "a prim::Loop without a trip count, a condition and one block");
  guint N = nin - 2;
  if (graph_node_n_outputs (n) != N || graph_n_inputs (block) != N + 1
      || graph_n_outputs (block) != N + 1)
    /* torch 1.13: also refuses (a block that does not match the carried values is malformed) */
    return unsupported (ctx, n, error, "a prim::Loop whose block does not match its carried values");
  /* M, cond and the initial carried values, in the enclosing graph */
  g_autofree GraphValue **ins = g_new0 (GraphValue *, nin + 1);
  for (guint i = 0; i < nin; i++)
    {
      GError *local = NULL;
      ins[i] = sym_value (ctx, graph_node_input (n, i), &local);
      if (ins[i] == NULL)
        {
          if (local)
            {
              g_propagate_prefixed_error (error, local, "prim::Loop's %s: ",
                                          i == 0 ? "trip count" : i == 1 ? "condition" : "carried value");
              return FALSE;
            }
          /* torch 1.13: exports a None trip count or condition as an omitted Loop input; not yet
           * here */
          return unsupported (ctx, n, error, i == 0 ? "a loop without a trip count"
                                             : "a None loop condition or carried value");
        }
      if (i >= 2 && sym_dtype (ins[i]) == GRAPH_DTYPE_UNDEFINED)
        {
          GraphType *t = graph_value_type (graph_node_input (n, i));
          GraphDType dt = sym_trace_dtype (ctx, graph_node_input (n, i));
          int r = sym_known_rank (ctx, graph_node_input (n, i));
          if (t && graph_type_is_tensor (t) && graph_type_dtype (t) != GRAPH_DTYPE_UNDEFINED)
            sym_set_type (ins[i], graph_type_dtype (t), graph_type_rank (t), NULL);
          else if (dt != GRAPH_DTYPE_UNDEFINED && r >= 0)
            /* an ATen node's (`torch.zeros((0, 17), dtype=torch.float32)`): from its op */
            sym_set_type (ins[i], dt, r, NULL);
        }
    }
  if (sym_dtype (ins[0]) != GRAPH_DTYPE_INT64)
    ins[0] = sym_cast (ctx, ins[0], GRAPH_DTYPE_INT64);
  if (sym_dtype (ins[1]) != GRAPH_DTYPE_BOOL)
    ins[1] = sym_cast (ctx, ins[1], GRAPH_DTYPE_BOOL);
  for (guint k = 0; k < N && !untyped_carried_ok (ctx); k++)
    if (sym_dtype (ins[2 + k]) == GRAPH_DTYPE_UNDEFINED || sym_rank (ins[2 + k]) < 0)
      /* torch 1.13: writes the Loop with an untyped carried value (executors refuse it); refused
       * here because the body's types cannot be checked */
      return unsupported (ctx, n, error,
                          "a loop-carried value whose element type or rank is unknown before the loop");
  if (!materialise_outer_reads (ctx, block, error))
    return FALSE;
  /* Note [Writes in If branches], for loops: tensors of enclosing blocks
   * the body writes in place become extra carried values, after the N
   * the loop has (as torch's remove-inplace pass makes them) */
  g_autoptr (GPtrArray) written = g_ptr_array_new ();
  outer_writes (block, graph_node_graph (n), written);
  guint nw = written->len;
  ins = g_renew (GraphValue *, ins, nin + nw + 1);
  for (guint j = 0; j < nw; j++)
    {
      ins[nin + j] = sym_value (ctx, written->pdata[j], error);
      if (ins[nin + j] == NULL || sym_dtype (ins[nin + j]) == GRAPH_DTYPE_UNDEFINED || sym_rank (ins[nin + j]) < 0)
        {
          if (error && *error)
            return FALSE;
          /* torch 1.13: makes it a loop-carried value of unknown type (executors refuse it);
           * refused here because the body's types cannot be checked */
          return unsupported (ctx, n, error, "an in-place write in a loop body to a tensor of unknown "
                              "element type or rank");
        }
    }

  Graph *outer = sym_graph (ctx);
  Graph *sub = graph_new_subgraph (outer);
  g_autoptr (GraphType) it_t = graph_type_new_tensor (GRAPH_DTYPE_INT64, 0, NULL);
  g_autoptr (GraphType) cond_t = graph_type_new_tensor (GRAPH_DTYPE_BOOL, 0, NULL);
  const char *iname = graph_value_get_name (graph_input (block, 0));
  sym_map_value (ctx, graph_input (block, 0), graph_add_input (sub, iname ? iname : "iteration", it_t));
  graph_add_input (sub, "cond", cond_t);
  for (guint k = 0; k < N; k++)
    {
      g_autoptr (GraphType) t = carried_type (ins[2 + k]);
      GraphValue *bin = graph_input (block, k + 1);
      const char *name = graph_value_get_name (bin);
      sym_map_value (ctx, bin, graph_add_input (sub, name ? name : "carried", t));
    }
  for (guint j = 0; j < nw; j++)
    {
      /* inside the body the written tensor is the carried input */
      g_autoptr (GraphType) t = carried_type (ins[nin + j]);
      const char *name = graph_value_get_name (written->pdata[j]);
      sym_map_value (ctx, written->pdata[j], graph_add_input (sub, name ? name : "written", t));
    }
  /* Loop-1 (before opset 11) takes at least one carried value: a loop that
   * has none (only scan outputs) carries an unused int64 0 through. */
  guint D = N == 0 && nw == 0 && sym_opset (ctx) < 11 ? 1 : 0;
  GraphValue *dummy_in = NULL;
  if (D)
    {
      ins[2] = sym_const_i64 (ctx, 0);
      g_autoptr (GraphType) t = graph_type_new_tensor (GRAPH_DTYPE_INT64, 0, NULL);
      graph_value_set_type (ins[2], t);
      dummy_in = graph_add_input (sub, "unused", t);
    }
  g_autoptr (GPtrArray) appends = g_ptr_array_new ();
  graph_foreach_node (block, m)
    if (is_scan_append (m, n))
      g_ptr_array_add (appends, m);
  /* Note [Writes in If branches]: an enclosing If does not carry writes
   * made in this body (they would need loop-carried values) */
  g_autoptr (GHashTable) untracked = g_hash_table_new (NULL, NULL);
  GHashTable *tracked = sym_context_swap_tracked (ctx, untracked);
  for (guint j = 0; j < nw; j++)
    sym_context_track (ctx, written->pdata[j], TRUE);
  sym_context_swap_graph (ctx, sub);
  gboolean ok = TRUE;
  graph_foreach_node (block, m)
    if (ok && !g_ptr_array_find (appends, m, NULL))
      ok = sym_context_translate (ctx, m, error);
  GraphValue *cond_out = ok ? block_output (ctx, n, block, sub, 0, NULL, error) : NULL;
  ok = cond_out != NULL;
  if (ok && sym_dtype (cond_out) != GRAPH_DTYPE_BOOL)
    cond_out = sym_cast (ctx, cond_out, GRAPH_DTYPE_BOOL);
  if (ok)
    graph_add_output (sub, cond_out);
  for (guint k = 0; ok && k < N; k++)
    {
      GraphValue *v = block_output (ctx, n, block, sub, k + 1, graph_node_output (n, k), error);
      ok = v != NULL && check_carried (ctx, n, k, ins[2 + k], v, error);
      if (ok)
        graph_add_output (sub, v);
    }
  for (guint j = 0; ok && j < nw; j++)
    {
      GraphValue *v = carried_out (ctx, n, written->pdata[j], sub, error);
      ok = v != NULL && check_carried (ctx, n, N + j, ins[nin + j], v, error);
      if (ok)
        graph_add_output (sub, v);
    }
  if (ok && D)
    graph_add_output (sub, dummy_in);
  guint K = appends->len;
  for (guint k = 0; ok && k < K; k++)
    {
      GraphNode *m = appends->pdata[k];
      GError *local = NULL;
      GraphValue *v = sym_value (ctx, graph_node_input (m, 1), &local);
      if (v == NULL)
        {
          if (local)
            g_propagate_error (error, local);
          else
            /* torch 1.13: also refuses (None has no ONNX value to append to a sequence) */
            unsupported (ctx, n, error, "appending None to a list in a loop");
          ok = FALSE;
          break;
        }
      v = in_subgraph (sub, v);
      if ((sym_dtype (v) == GRAPH_DTYPE_UNDEFINED || sym_rank (v) < 0) && untyped_carried_ok (ctx))
        {
          /* an ATen node's: from its op (trace-rank.c) */
          GraphDType dt = sym_trace_dtype (ctx, graph_node_input (m, 1));
          int r = sym_known_rank (ctx, graph_node_input (m, 1));
          if (dt != GRAPH_DTYPE_UNDEFINED && r >= 0)
            sym_set_type (v, dt, r, NULL);
        }
      if (sym_dtype (v) == GRAPH_DTYPE_UNDEFINED || sym_rank (v) < 0 || sym_rank (v) >= TENSOR_MAX_RANK)
        {
          /* torch 1.13: exports it as a SequenceInsert into an untyped sequence; refused here
           * because the stacked result's type would be unknown */
          unsupported (ctx, n, error, "appending a tensor of unknown element type or rank to a list in a loop");
          ok = FALSE;
          break;
        }
      graph_add_output (sub, v);
    }
  sym_context_swap_tracked (ctx, tracked);
  sym_context_swap_graph (ctx, outer);
  GraphNode *loop = ok ? graph_opv_outputs (outer, "Loop", nin + nw + D, ins, N + nw + D + K, NULL) : NULL;
  if (loop == NULL)
    {
      graph_free (sub);
      /* torch 1.13: also refuses (a Loop that cannot be built fails its export) */
      return ok ? unsupported (ctx, n, error, "the Loop node could not be built") : FALSE;
    }
  graph_node_set_g (loop, "body", sub);
  for (guint k = 0; k < N; k++)
    {
      g_autoptr (GraphType) t = carried_type (ins[2 + k]);
      out[k] = graph_node_output (loop, k);
      graph_value_set_type (out[k], t);
    }
  for (guint j = 0; j < nw; j++)
    {
      /* the written tensor after the loop */
      g_autoptr (GraphType) t = carried_type (ins[nin + j]);
      GraphValue *o = graph_node_output (loop, N + j);
      graph_value_set_type (o, t);
      sym_map_value (ctx, written->pdata[j], o);
    }
  for (guint k = 0; k < K; k++)
    {
      GraphValue *elem = graph_output (sub, 1 + N + nw + D + k);
      GraphValue *scan = graph_node_output (loop, N + nw + D + k);
      sym_set_type (scan, sym_dtype (elem), sym_rank (elem) + 1, NULL);
      sym_context_set_scan_list (ctx, graph_node_input (appends->pdata[k], 0), scan);
    }
  return TRUE;
}
