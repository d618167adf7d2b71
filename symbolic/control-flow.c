/* prim::If of scripted code inside a trace (torchvision's
 * @torch.jit._script_if_tracing helpers: `if boxes.numel() == 0: ...`).
 * A constant condition keeps the branch it selects, translated inline; a
 * computed one becomes ONNX If with each block translated into a subgraph
 * (block0 is the then branch).  Values of the enclosing graph that a block
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
          GError *local = NULL;
          if (sym_value (ctx, v, &local) == NULL && local)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
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

/* The value block output i stands for, made a value of sub (a subgraph's
 * outputs are its own values) and typed: its own type, the node's traced
 * one, or its element type and rank. */
static GraphValue *
block_output (SymContext *ctx, GraphNode *n, Graph *block, Graph *sub, guint i, GError **error)
{
  GError *local = NULL;
  GraphValue *v = sym_value (ctx, graph_output (block, i), &local);
  if (v == NULL)
    {
      if (local)
        g_propagate_error (error, local);
      else
        unsupported (ctx, n, error, "a block that returns None");
      return NULL;
    }
  if (graph_value_graph (v) != sub)
    {
      GraphValue *w = graph_op (sub, "Identity", v, NULL);
      if (w && graph_value_type (v))
        graph_value_set_type (w, graph_value_type (v));
      v = w;
    }
  if (v && graph_value_type (v) == NULL)
    {
      GraphType *t = graph_value_type (graph_node_output (n, i));
      GraphType *tb = graph_value_type (graph_output (block, i));
      GraphType *use = t && graph_type_is_tensor (t) && graph_type_dtype (t) ? t : tb;
      if (use && graph_type_is_tensor (use) && graph_type_dtype (use))
        sym_set_type (v, graph_type_dtype (use), graph_type_rank (use), NULL);
    }
  return v;
}

gboolean
sym_lower_if (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  Graph *then_b = NULL, *else_b = NULL;
  if (graph_node_n_inputs (n) != 1 || !graph_node_get_g (n, "block0", &then_b)
      || !graph_node_get_g (n, "block1", &else_b))
    return unsupported (ctx, n, error, "a prim::If without two blocks");
  guint nout = graph_node_n_outputs (n);
  if (graph_n_outputs (then_b) != nout || graph_n_outputs (else_b) != nout)
    return unsupported (ctx, n, error, "blocks whose outputs do not match the node's");
  GraphValue *cond_src = graph_node_input (n, 0);
  gboolean c;
  if (sym_get_const_bool (cond_src, &c))
    {
      Graph *b = c ? then_b : else_b;
      if (!translate_block (ctx, b, error))
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
        }
      return TRUE;
    }
  if (nout == 0)
    return unsupported (ctx, n, error, "an If with no outputs (side effects only)");
  GError *local = NULL;
  GraphValue *cond = sym_value (ctx, cond_src, &local);
  if (cond == NULL)
    {
      if (local)
        g_propagate_error (error, local);
      else
        unsupported (ctx, n, error, "a None condition");
      return FALSE;
    }
  if (sym_dtype (cond_src) != GRAPH_DTYPE_BOOL)
    cond = sym_cast (ctx, cond, GRAPH_DTYPE_BOOL);
  if (!materialise_outer_reads (ctx, then_b, error) || !materialise_outer_reads (ctx, else_b, error))
    return FALSE;
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
          GraphValue *v = block_output (ctx, n, blocks[k], subs[k], i, error);
          ok = v != NULL;
          if (ok)
            graph_add_output (subs[k], v);
        }
      sym_context_swap_graph (ctx, outer);
    }
  GraphNode *ifn = ok ? graph_op_outputs (outer, "If", nout, cond, NULL) : NULL;
  if (ifn == NULL)
    {
      graph_free (subs[0]);
      graph_free (subs[1]);
      return ok ? unsupported (ctx, n, error, "the If node could not be built") : FALSE;
    }
  graph_node_set_g (ifn, "then_branch", subs[0]);
  graph_node_set_g (ifn, "else_branch", subs[1]);
  for (guint i = 0; i < nout; i++)
    {
      out[i] = graph_node_output (ifn, i);
      /* the branches' element type (the trace often says only "Tensor") */
      GraphType *t = graph_value_type (graph_output (subs[0], i));
      if (t && graph_type_is_tensor (t) && graph_type_dtype (t))
        sym_set_type (out[i], graph_type_dtype (t), graph_type_rank (t), NULL);
    }
  return TRUE;
}
