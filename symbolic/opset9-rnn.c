/* Opset 9 base set: aten::lstm, aten::gru, aten::rnn_tanh, aten::rnn_relu,
 * aten::lstm_cell (one step of the same LSTM),
 * as torch 1.13's _generic_rnn writes them: one ONNX LSTM/GRU/RNN node per
 * layer, weights re-sliced into ONNX's gate order, W/R/B concatenated per
 * direction, initial states sliced per layer, dropout ignored (eval). */
#include "symbolic/opset-tables.h"
#include <string.h>

#define G sym_graph (ctx)

typedef enum { RNN_LSTM, RNN_GRU, RNN_TANH, RNN_RELU } RnnVariant;

typedef struct
{
  SymContext *ctx;
  RnnVariant  variant;
  gint64      hidden;
} Rnn;

/* PyTorch's gate blocks → ONNX's, as [start, end) in units of hidden_size.
 * LSTM: torch i f g o, ONNX i o f c (c = torch's g).
 * GRU:  torch r z n,   ONNX z r h. */
static const gint64 lstm_reform[3][2] = { { 0, 1 }, { 3, 4 }, { 1, 3 } };
static const gint64 gru_reform[3][2] = { { 1, 2 }, { 0, 1 }, { 2, 3 } };

static GraphValue *
reform (Rnn *r, GraphValue *w)
{
  SymContext *ctx = r->ctx;
  if (r->variant != RNN_LSTM && r->variant != RNN_GRU)
    return w;
  const gint64 (*iv)[2] = r->variant == RNN_LSTM ? lstm_reform : gru_reform;
  GraphValue *slices[3];
  const gint64 axes[1] = { 0 };
  for (int i = 0; i < 3; i++)
    {
      gint64 s = iv[i][0] * r->hidden, e = iv[i][1] * r->hidden;
      slices[i] = sym_slice (ctx, w, 1, axes, &s, &e, NULL);
    }
  return graph_opv (G, "Concat", 3, slices, "axis_i", (gint64) 0, NULL);
}

/* W, R (and B when has_biases) of one direction, each unsqueezed to [1, ...]. */
static void
direction_weights (Rnn *r, GraphValue *const *w, gboolean has_biases, GraphValue **wi,
                   GraphValue **wh, GraphValue **b)
{
  SymContext *ctx = r->ctx;
  const gint64 zero[1] = { 0 };
  *wi = sym_unsqueeze (ctx, reform (r, w[0]), 1, zero);
  *wh = sym_unsqueeze (ctx, reform (r, w[1]), 1, zero);
  *b = NULL;
  if (has_biases)
    {
      GraphValue *both[2] = { reform (r, w[2]), reform (r, w[3]) };
      *b = sym_unsqueeze (ctx, graph_opv (G, "Concat", 2, both, "axis_i", (gint64) 0, NULL), 1,
                          zero);
    }
}

static GraphValue *
concat0 (SymContext *ctx, guint n, GraphValue **v)
{
  return n == 1 ? v[0] : graph_opv (G, "Concat", n, v, "axis_i", (gint64) 0, NULL);
}

/* hidden_size: dim 1 of weight_hh_l0, from the weight itself or its trace
 * type, else the last dim of the traced h_n output. */
static gboolean
hidden_size (GraphValue *src_w_hh, GraphValue *w_hh, GraphValue *h_n, gint64 *out)
{
  Tensor *t = graph_value_get_initializer (w_hh);
  if (t && tensor_rank (t) == 2)
    {
      *out = tensor_dim (t, 1);
      return TRUE;
    }
  gint64 dims[TENSOR_MAX_RANK];
  GraphValue *vs[2] = { w_hh, src_w_hh };
  for (int i = 0; i < 2; i++)
    if (sym_rank (vs[i]) == 2 && sym_static_shape (vs[i], dims))
      {
        *out = dims[1];
        return TRUE;
      }
  if (h_n && sym_rank (h_n) == 3 && sym_static_shape (h_n, dims))
    {
      *out = dims[2];
      return TRUE;
    }
  return FALSE;
}

static gboolean
is_tensor_list (GraphValue *src)
{
  GraphNode *p = graph_value_node (src);
  if (p && graph_node_is (p, "prim::ListConstruct"))
    return TRUE;
  GraphType *t = graph_value_type (src);
  return t && graph_type_kind (t) == GRAPH_TYPE_LIST;
}

/* The arguments of the RNN layers once parsed: the ONNX values, weights
 * the flat list of W_ih, W_hh (, b_ih, b_hh) per layer and direction. */
typedef struct
{
  GraphValue  *input, *batch_sizes, *h0, *c0;
  GraphValue **weights;
  gint64       num_layers;
  gboolean     has_biases, bidirectional, batch_first;
} RnnArgs;

/* One ONNX LSTM/GRU/RNN node per layer, as torch's _generic_rnn: out[0]
 * the last layer's output, out[1] (out[2]) the final h (c) of every layer
 * and direction, concatenated. */
static gboolean
rnn_layers (Rnn *r, GraphNode *n, const RnnArgs *a, GraphValue **out, GError **error)
{
  SymContext *ctx = r->ctx;
  RnnVariant variant = r->variant;
  GraphValue *input = a->input, *batch_sizes = a->batch_sizes, *h0 = a->h0, *c0 = a->c0;
  gint64 num_layers = a->num_layers;
  gboolean has_biases = a->has_biases, bidirectional = a->bidirectional, batch_first = a->batch_first;
  guint per_layer = has_biases ? 4 : 2, dirs = bidirectional ? 2 : 1;
  static const gint64 batch_perm[3] = { 1, 0, 2 };
  GraphValue *prev = input;
  if (batch_first)
    prev = graph_op (G, "Transpose", prev, "perm_is", 3, batch_perm, NULL);

  const char *op = variant == RNN_LSTM ? "LSTM" : variant == RNN_GRU ? "GRU" : "RNN";
  const char *act = variant == RNN_RELU ? "Relu" : "Tanh";
  const char *acts[2] = { act, act };
  g_autoptr (GPtrArray) h_outs = g_ptr_array_new ();
  g_autoptr (GPtrArray) c_outs = g_ptr_array_new ();
  for (gint64 l = 0; l < num_layers; l++)
    {
      GraphValue *wi, *wh, *b;
      GraphValue **w = a->weights + (gsize) l * per_layer * dirs;
      direction_weights (r, w, has_biases, &wi, &wh, &b);
      if (bidirectional)
        {
          GraphValue *wib, *whb, *bb;
          direction_weights (r, w + per_layer, has_biases, &wib, &whb, &bb);
          GraphValue *pi[2] = { wi, wib }, *ph[2] = { wh, whb }, *pb[2] = { b, bb };
          wi = concat0 (ctx, 2, pi);
          wh = concat0 (ctx, 2, ph);
          b = has_biases ? concat0 (ctx, 2, pb) : NULL;
        }
      gint64 s = l * dirs, e = (l + 1) * dirs;
      const gint64 axes[1] = { 0 };
      GraphValue *ins[7] = {
        prev, wi, wh, b ? b : GRAPH_ABSENT, batch_sizes ? batch_sizes : GRAPH_ABSENT,
        h0 == NULL ? GRAPH_ABSENT : num_layers == 1 ? h0 : sym_slice (ctx, h0, 1, axes, &s, &e, NULL),
        c0 == NULL ? GRAPH_ABSENT : num_layers == 1 ? c0 : sym_slice (ctx, c0, 1, axes, &s, &e, NULL),
      };
      guint n_in = variant == RNN_LSTM ? 7 : 6, n_out = variant == RNN_LSTM ? 3 : 2;
      GraphNode *node;
      if (variant == RNN_LSTM)
        node = bidirectional
          ? graph_opv_outputs (G, op, n_in, ins, n_out, "direction_s", "bidirectional",
                               "hidden_size_i", r->hidden, NULL)
          : graph_opv_outputs (G, op, n_in, ins, n_out, "hidden_size_i", r->hidden, NULL);
      else if (variant == RNN_GRU)
        node = bidirectional
          ? graph_opv_outputs (G, op, n_in, ins, n_out, "direction_s", "bidirectional",
                               "hidden_size_i", r->hidden, "linear_before_reset_i", (gint64) 1, NULL)
          : graph_opv_outputs (G, op, n_in, ins, n_out, "hidden_size_i", r->hidden,
                               "linear_before_reset_i", (gint64) 1, NULL);
      else
        node = bidirectional
          ? graph_opv_outputs (G, op, n_in, ins, n_out, "activations_ss", 2, acts,
                               "direction_s", "bidirectional", "hidden_size_i", r->hidden, NULL)
          : graph_opv_outputs (G, op, n_in, ins, n_out, "activations_ss", 1, acts,
                               "hidden_size_i", r->hidden, NULL);
      if (node == NULL)
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s: could not build the %s node",
                       graph_node_kind (n), op);
          return FALSE;
        }
      prev = graph_node_output (node, 0);
      if (bidirectional)
        {
          /* [seq, dirs, batch, hidden] → [seq, batch, dirs * hidden] */
          static const gint64 perm[4] = { 0, 2, 1, 3 };
          static const gint64 shape[3] = { 0, 0, -1 };
          prev = graph_op (G, "Transpose", prev, "perm_is", 4, perm, NULL);
          prev = sym_reshape_static (ctx, prev, 3, shape);
        }
      else
        {
          const gint64 one[1] = { 1 };
          prev = sym_squeeze (ctx, prev, 1, one);
        }
      g_ptr_array_add (h_outs, graph_node_output (node, 1));
      if (variant == RNN_LSTM)
        g_ptr_array_add (c_outs, graph_node_output (node, 2));
    }
  if (batch_first)
    prev = graph_op (G, "Transpose", prev, "perm_is", 3, batch_perm, NULL);
  out[0] = prev;
  out[1] = concat0 (ctx, h_outs->len, (GraphValue **) h_outs->pdata);
  if (variant == RNN_LSTM)
    out[2] = concat0 (ctx, c_outs->len, (GraphValue **) c_outs->pdata);
  return TRUE;
}

static gboolean reaches_pad_only (GraphValue *v, int depth);

/* aten::lstm(input, hx[], params[], has_biases, num_layers, dropout, train,
 *            bidirectional, batch_first)
 * aten::gru / rnn_tanh / rnn_relu(input, hx, params[], has_biases, ...)
 * The packed forms (data, batch_sizes, hx, params, has_biases, num_layers,
 * dropout, train, bidirectional) pass batch_sizes as sequence_lens. */
static gboolean
generic_rnn (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  RnnVariant variant = *(const RnnVariant *) sym_user_data (ctx);
  gboolean packed = graph_node_n_inputs (n) > 3 && is_tensor_list (graph_node_input (n, 3));
  GraphValue *input, *batch_sizes = NULL;
  gint64 has_biases, num_layers, train, bidirectional, batch_first = 0;
  double dropout;
  guint hx_at = packed ? 2 : 1, w_at = packed ? 3 : 2;
  gboolean ok = packed
    ? sym_parse_args (ctx, n, "v,v,none,none,i,i,f,i,i", &input, &batch_sizes, &has_biases,
                      &num_layers, &dropout, &train, &bidirectional, error)
    : sym_parse_args (ctx, n, "v,none,none,i,i,f,i,i,i", &input, &has_biases, &num_layers,
                      &dropout, &train, &bidirectional, &batch_first, error);
  if (!ok)
    return FALSE;
  if (dropout != 0 && train)
    /* torch 1.13: also refuses (_unimplemented "dropout in training mode") */
    return sym_unimplemented (ctx, n, error, "dropout in training mode");
  if (packed && !reaches_pad_only (graph_node_output (n, 0), 0))
    /* torch 1.13: also refuses (a prim::PackPadded its peephole cannot remove) */
    return sym_unimplemented (ctx, n, error, "a packed output read by something other than "
                              "pad_packed_sequence (ONNX has no packed sequences)");
  g_autoptr (GPtrArray) weights = sym_list_values (ctx, graph_node_input (n, w_at), error);
  if (weights == NULL)
    return FALSE;
  guint per_layer = has_biases ? 4 : 2, dirs = bidirectional ? 2 : 1;
  if (num_layers < 1 || num_layers > 4096 || weights->len != (guint) num_layers * per_layer * dirs)
    {
      if (variant == RNN_LSTM)
        /* torch 1.13: also refuses (_unimplemented "LSTMs with projections") */
        return sym_unimplemented (ctx, n, error, "LSTMs with projections (%u weights for %"
                                  G_GINT64_FORMAT " layers)", weights->len, num_layers);
      /* torch 1.13: also refuses (a weight list that does not match the layers fails its unpacking) */
      return sym_unimplemented (ctx, n, error, "%u weights for %" G_GINT64_FORMAT " layers",
                                weights->len, num_layers);
    }
  GraphValue *src_params = graph_node_input (n, w_at);
  GraphNode *plist = graph_value_node (src_params);
  GraphValue *src_w_hh = plist && graph_node_n_inputs (plist) > 1 ? graph_node_input (plist, 1)
                                                                  : NULL;
  Rnn r = { ctx, variant, 0 };
  if (!hidden_size (src_w_hh, weights->pdata[1],
                    graph_node_n_outputs (n) > 1 ? graph_node_output (n, 1) : NULL, &r.hidden))
    /* torch 1.13: also refuses (_unimplemented "unknown hidden size") */
    return sym_unimplemented (ctx, n, error, "unknown hidden size");

  GraphValue *h0 = NULL, *c0 = NULL;
  if (variant == RNN_LSTM)
    {
      g_autoptr (GPtrArray) hx = sym_list_values (ctx, graph_node_input (n, hx_at), error);
      if (hx == NULL)
        return FALSE;
      if (hx->len != 2)
        /* torch 1.13: also refuses (an LSTM's initial state is the pair h0, c0) */
        return sym_unimplemented (ctx, n, error, "%u initial states (LSTM takes h0 and c0)",
                                  hx->len);
      h0 = hx->pdata[0];
      c0 = hx->pdata[1];
    }
  else
    {
      GError *local = NULL;
      h0 = sym_value (ctx, graph_node_input (n, hx_at), &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }

  RnnArgs a = { input, batch_sizes, h0, c0, (GraphValue **) weights->pdata, num_layers, has_biases,
                bidirectional, batch_first };
  return rnn_layers (&r, n, &a, out, error);
}

/* aten::lstm_cell(input, hx[], w_ih, w_hh, b_ih=None, b_hh=None) → (hy, cy):
 * one step of an LSTM, as torch 1.13 writes it: input (batch, input_size),
 * h and c (batch, hidden) unsqueezed into a sequence of one step, the
 * one-layer LSTM above, and its final h and c squeezed back. */
static gboolean
sym_lstm_cell (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *w_ih, *w_hh, *b_ih, *b_hh;
  if (!sym_parse_args (ctx, n, "v,none,v,v,v,v", &input, &w_ih, &w_hh, &b_ih, &b_hh, error))
    return FALSE;
  if ((b_ih == NULL) != (b_hh == NULL))
    /* torch 1.13: also refuses (its weight tuple holds a None that the gate reordering slices) */
    return sym_unimplemented (ctx, n, error, "lstm_cell with one bias of the two");
  g_autoptr (GPtrArray) hx = sym_list_values (ctx, graph_node_input (n, 1), error);
  if (hx == NULL)
    return FALSE;
  if (hx->len != 2)
    /* torch 1.13: also refuses (an LSTM's state is the pair h, c) */
    return sym_unimplemented (ctx, n, error, "%u states (lstm_cell takes h and c)", hx->len);
  Rnn r = { ctx, RNN_LSTM, 0 };
  if (!hidden_size (graph_node_input (n, 3), w_hh, NULL, &r.hidden) || r.hidden <= 0)
    /* torch 1.13: also refuses (_unimplemented "unknown hidden size") */
    return sym_unimplemented (ctx, n, error, "unknown hidden size");
  GraphValue *vals[4] = { input, hx->pdata[0], hx->pdata[1], w_ih };
  for (guint i = 0; i < G_N_ELEMENTS (vals); i++)
    if (sym_rank (vals[i]) != 2)
      /* torch 1.13: exports other ranks (its Unsqueeze makes an LSTM input of another rank);
       * refused here because ONNX's LSTM takes (seq, batch, features): PyTorch's lstm_cell takes
       * 2-D tensors (nn.LSTMCell unsqueezes an unbatched input itself) */
      return sym_unimplemented (ctx, n, error, "lstm_cell of an input, state or weight that is not "
                                "2-D (or of unknown rank)");
  gint64 d[2];
  GraphValue *gates[2] = { w_ih, w_hh };
  for (guint i = 0; i < 2; i++)
    if (sym_static_shape (gates[i], d) && d[0] != 4 * r.hidden)
      {
        g_autofree char *where = sym_node_location (n);
        g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "aten::lstm_cell (%s): weight %u has %"
                     G_GINT64_FORMAT " rows, 4 × hidden size (%" G_GINT64_FORMAT ") expected", where,
                     i, d[0], 4 * r.hidden);
        return FALSE;
      }
  static const gint64 zero[1] = { 0 };
  GraphValue *w[4] = { w_ih, w_hh, b_ih, b_hh };
  RnnArgs a = { sym_unsqueeze (ctx, input, 1, zero), NULL, sym_unsqueeze (ctx, hx->pdata[0], 1, zero),
                sym_unsqueeze (ctx, hx->pdata[1], 1, zero), w, 1, b_ih != NULL, FALSE, FALSE };
  GraphValue *res[3] = { NULL, NULL, NULL };
  if (!rnn_layers (&r, n, &a, res, error))
    return FALSE;
  out[0] = sym_squeeze (ctx, res[1], 1, zero);
  out[1] = sym_squeeze (ctx, res[2], 1, zero);
  return out[0] && out[1];
}

/* Note [Packed sequences]
 * ONNX has no packed sequence.  As torch (its prim::PackPadded and
 * prim::PadPacked, removed by its peephole pass), the padded time-major
 * input and the lengths (int32) stand for the packed sequence: the RNNs'
 * packed forms take the lengths as sequence_lens (ONNX RNNs run each batch
 * entry for its length and write zeros past it), and _pad_packed_sequence
 * gives the RNN's padded output back.  Anything else that would read the
 * packed data (its rows in packed order) is refused, as torch fails when a
 * PackPadded is left. */
static gboolean
is_rnn_kind (GraphNode *p)
{
  return p && (graph_node_is (p, "aten::lstm") || graph_node_is (p, "aten::gru")
               || graph_node_is (p, "aten::rnn_tanh") || graph_node_is (p, "aten::rnn_relu"));
}

static gboolean
is_scalar_conversion (GraphNode *p)
{
  return p && (graph_node_is (p, "prim::NumToTensor") || graph_node_is (p, "aten::Int")
               || graph_node_is (p, "aten::ScalarImplicit"));
}

/* v (a number, through conversions) is read only as _pad_packed_sequence's
 * total_length: pad_packed_sequence passes batch_sizes.size(0), the longest
 * length, which the padded form has anyway. */
static gboolean
feeds_total_length_only (GraphValue *v, int depth)
{
  if (depth > 8 || graph_value_is_graph_output (v))
    return FALSE;
  for (guint i = 0; i < graph_value_n_uses (v); i++)
    {
      const GraphUse *u = graph_value_use (v, i);
      if (is_scalar_conversion (u->node) && graph_node_n_outputs (u->node) == 1)
        {
          if (!feeds_total_length_only (graph_node_output (u->node, 0), depth + 1))
            return FALSE;
        }
      else if (!(graph_node_is (u->node, "aten::_pad_packed_sequence") && u->index == 4))
        return FALSE;
    }
  return TRUE;
}

/* Every use of the trace value v is by an RNN's packed form (as its data
 * or batch_sizes), by _pad_packed_sequence, or is batch_sizes.size(0) as
 * its total_length. */
static gboolean
packed_uses_only (GraphValue *v)
{
  if (graph_value_is_graph_output (v))
    return FALSE;
  for (guint i = 0; i < graph_value_n_uses (v); i++)
    {
      const GraphUse *u = graph_value_use (v, i);
      gboolean rnn_packed = is_rnn_kind (u->node) && graph_node_n_inputs (u->node) > 3
                            && is_tensor_list (graph_node_input (u->node, 3)) && u->index <= 1;
      gint64 dim;
      gboolean size0 = graph_node_is (u->node, "aten::size") && u->index == 0
                       && graph_node_n_inputs (u->node) == 2
                       && sym_get_const_int (graph_node_input (u->node, 1), &dim) && dim == 0
                       && feeds_total_length_only (graph_node_output (u->node, 0), 0);
      if (!rnn_packed && !size0
          && !(graph_node_is (u->node, "aten::_pad_packed_sequence") && u->index <= 1))
        return FALSE;
    }
  return TRUE;
}

/* total_length is batch_sizes.size(0) (what pad_packed_sequence passes
 * when the caller gives none). */
static gboolean
natural_total_length (GraphValue *tl, GraphValue *batch_sizes)
{
  for (int k = 0; tl && k < 8; k++)
    {
      GraphNode *p = graph_value_node (tl);
      if (is_scalar_conversion (p) && graph_node_n_inputs (p) == 1)
        {
          tl = graph_node_input (p, 0);
          continue;
        }
      gint64 dim;
      return p && graph_node_is (p, "aten::size") && graph_node_input (p, 0) == batch_sizes
             && sym_get_const_int (graph_node_input (p, 1), &dim) && dim == 0;
    }
  return FALSE;
}

/* v (an RNN's packed output) is read only by _pad_packed_sequence, maybe
 * through the tuples a module call packs and unpacks. */
static gboolean
reaches_pad_only (GraphValue *v, int depth)
{
  if (depth > 8 || graph_value_is_graph_output (v))
    return FALSE;
  for (guint i = 0; i < graph_value_n_uses (v); i++)
    {
      const GraphUse *u = graph_value_use (v, i);
      if (graph_node_is (u->node, "aten::_pad_packed_sequence") && u->index == 0)
        continue;
      if (!graph_node_is (u->node, "prim::TupleConstruct"))
        return FALSE;
      GraphValue *tuple = graph_node_output (u->node, 0);
      if (graph_value_is_graph_output (tuple))
        return FALSE;
      for (guint k = 0; k < graph_value_n_uses (tuple); k++)
        {
          GraphNode *un = graph_value_use (tuple, k)->node;
          if (!graph_node_is (un, "prim::TupleUnpack") || u->index >= graph_node_n_outputs (un)
              || !reaches_pad_only (graph_node_output (un, u->index), depth + 1))
            return FALSE;
        }
    }
  return TRUE;
}

/* The trace value v, seen back through the tuples a module call packs
 * and unpacks (TupleUnpack of a TupleConstruct). */
static GraphValue *
through_tuples (GraphValue *v)
{
  for (int k = 0; v && k < 8; k++)
    {
      GraphNode *p = graph_value_node (v);
      if (!p || !graph_node_is (p, "prim::TupleUnpack") || graph_node_n_inputs (p) != 1)
        return v;
      GraphNode *t = graph_value_node (graph_node_input (p, 0));
      guint idx = 0;
      while (idx < graph_node_n_outputs (p) && graph_node_output (p, idx) != v)
        idx++;
      if (!t || !graph_node_is (t, "prim::TupleConstruct") || idx >= graph_node_n_inputs (t))
        return v;
      v = graph_node_input (t, idx);
    }
  return v;
}

/* aten::_pack_padded_sequence(input, lengths, batch_first) → (data, batch_sizes) */
static gboolean
sym_pack_padded_sequence (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *lengths;
  gint64 batch_first;
  if (!sym_parse_args (ctx, n, "v,v,i", &input, &lengths, &batch_first, error))
    return FALSE;
  if (sym_rank (input) != 3)
    /* torch 1.13: also refuses (RNN inputs are rank 3) */
    return sym_unimplemented (ctx, n, error, "a packed input of rank other than 3");
  for (guint i = 0; i < 2; i++)
    if (!packed_uses_only (graph_node_output (n, i)))
      /* torch 1.13: also refuses (a prim::PackPadded its peephole cannot remove) */
      return sym_unimplemented (ctx, n, error, "a packed sequence read by something other than an "
                                "RNN or pad_packed_sequence (ONNX has no packed sequences)");
  static const gint64 perm[3] = { 1, 0, 2 };
  out[0] = batch_first ? graph_op (G, "Transpose", input, "perm_is", 3, perm, NULL) : input;
  if (batch_first && out[0])
    {
      /* its own type (the padded time-major tensor), not the trace's packed (sum(lengths), F) */
      gint64 d[3], t[3];
      gboolean known = sym_static_shape (input, d);
      for (int i = 0; i < 3; i++)
        t[i] = d[perm[i]];
      sym_set_type (out[0], sym_dtype (input), 3, known ? t : NULL);
    }
  out[1] = sym_dtype (lengths) == GRAPH_DTYPE_INT32 ? lengths : sym_cast (ctx, lengths, GRAPH_DTYPE_INT32);
  return out[0] && out[1];
}

/* aten::_pad_packed_sequence(data, batch_sizes, batch_first, padding_value,
 *   total_length) → (padded, lengths): data is already padded (time-major),
 * with zeros past each length (Note [Packed sequences]). */
static gboolean
sym_pad_packed_sequence (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *data, *lengths;
  gint64 batch_first;
  double padding;
  if (!sym_parse_args (ctx, n, "v,v,i,f", &data, &lengths, &batch_first, &padding, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 4 && !sym_is_none (graph_node_input (n, 4))
      && !natural_total_length (graph_node_input (n, 4), graph_node_input (n, 1)))
    /* torch 1.13: ignores total_length (a wrong shape when it is longer); refused here because of that */
    return sym_unimplemented (ctx, n, error, "total_length");
  if (padding != 0)
    /* torch 1.13: ignores padding_value (zeros past each length); refused here because of that */
    return sym_unimplemented (ctx, n, error, "a non-zero padding_value");
  GraphNode *p = graph_value_node (through_tuples (graph_node_input (n, 0)));
  if (!(is_rnn_kind (p) && graph_node_n_inputs (p) > 3 && is_tensor_list (graph_node_input (p, 3)))
      && !(p && graph_node_is (p, "aten::_pack_padded_sequence")))
    /* torch 1.13: also refuses (a prim::PadPacked its peephole cannot remove) */
    return sym_unimplemented (ctx, n, error, "packed data that does not come from an RNN or "
                              "pack_padded_sequence");
  static const gint64 perm[3] = { 1, 0, 2 };
  out[0] = batch_first ? graph_op (G, "Transpose", data, "perm_is", 3, perm, NULL) : data;
  out[1] = sym_cast (ctx, lengths, GRAPH_DTYPE_INT64);
  return out[0] && out[1];
}

static const RnnVariant lstm = RNN_LSTM, gru = RNN_GRU, rnn_tanh = RNN_TANH, rnn_relu = RNN_RELU;

static const SymEntry entries[] = {
  SYM_DATA ("aten::lstm", generic_rnn, &lstm),
  SYM_DATA ("aten::gru", generic_rnn, &gru),
  SYM_DATA ("aten::rnn_tanh", generic_rnn, &rnn_tanh),
  SYM_DATA ("aten::rnn_relu", generic_rnn, &rnn_relu),
  SYM_FN ("aten::lstm_cell", sym_lstm_cell),
  SYM_FN ("aten::_pack_padded_sequence", sym_pack_padded_sequence),
  SYM_FN ("aten::_pad_packed_sequence", sym_pad_packed_sequence),
};
const SymTable sym_opset9_rnn = SYM_TABLE (9, entries);
