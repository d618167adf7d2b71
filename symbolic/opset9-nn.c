/* Opset 9 base set: convolution, pooling, normalisation, activations,
 * dropout, embedding, softmax. */
#include "symbolic/opset-tables.h"
#include "symbolic/translate.h"
#include <math.h>
#include <string.h>

#define G sym_graph (ctx)

/* Expands a 1-element list to n elements (torch's _single/_pair/_triple). */
static void
expand_list (gsize len, const gint64 *v, gsize n, gint64 *out)
{
  for (gsize i = 0; i < n; i++)
    out[i] = len == 1 ? v[0] : (i < len ? v[i] : 0);
}

static gboolean
n_transposed_layout (GraphNode *n)
{
  return g_str_has_prefix (graph_node_kind (n), "aten::conv_transpose");
}

/* aten::_convolution(input, weight, bias, stride, padding, dilation,
 *   transposed, output_padding, groups, benchmark, deterministic,
 *   cudnn_enabled, allow_tf32) and aten::conv{1,2,3}d(input, weight, bias,
 *   stride, padding, dilation, groups); aten::convolution is _convolution's
 *   first nine. */
static gboolean
convolution (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean full)
{
  GraphValue *input, *weight, *bias;
  gsize ns, np, nd, nop = 0;
  const gint64 *stride, *padding, *dilation, *opad = NULL;
  gboolean transposed = FALSE;
  gint64 groups;
  if (full)
    {
      if (!sym_parse_args (ctx, n, "v,v,v,is,is,is,b,is,i", &input, &weight, &bias, &ns, &stride,
                           &np, &padding, &nd, &dilation, &transposed, &nop, &opad, &groups, error))
        return FALSE;
    }
  else if (n_transposed_layout (n))
    {
      /* conv_transpose{1,2,3}d(input, weight, bias, stride, padding,
       * output_padding, groups, dilation) */
      transposed = TRUE;
      if (!sym_parse_args (ctx, n, "v,v,v,is,is,is,i,is", &input, &weight, &bias, &ns, &stride,
                           &np, &padding, &nop, &opad, &groups, &nd, &dilation, error))
        return FALSE;
    }
  else if (!sym_parse_args (ctx, n, "v,v,v,is,is,is,i", &input, &weight, &bias, &ns, &stride, &np,
                            &padding, &nd, &dilation, &groups, error))
    return FALSE;
  int wrank = sym_rank (weight);
  gint64 wdims[TENSOR_MAX_RANK];
  if (wrank < 3 || !sym_static_shape (weight, wdims))
    /* torch 1.13: also refuses ("Unsupported: ONNX export of convolution for kernel of unknown
     * shape") */
    return sym_unimplemented (ctx, n, error, "convolution with a weight of unknown shape");
  gsize k = (gsize) wrank - 2;
  gint64 kernel[8], strides[8], dil[8], pads[16], outpad[8];
  if (k > 8)
    /* torch 1.13: also refuses (PyTorch has no convolution of more than 3 spatial dims) */
    return sym_unimplemented (ctx, n, error, "%zu-d convolution", k);
  for (gsize i = 0; i < k; i++)
    kernel[i] = wdims[i + 2];
  expand_list (ns, stride, k, strides);
  expand_list (nd, dilation, k, dil);
  expand_list (np, padding, k, pads);
  memcpy (pads + k, pads, k * sizeof (gint64));
  GraphNode *node;
  GraphValue *ins[3] = { input, weight, bias };
  guint nin = bias ? 3 : 2;
  node = graph_opv_outputs (G, transposed ? "ConvTranspose" : "Conv", nin, ins, 1,
                            "dilations_is", (int) k, dil, "group_i", groups,
                            "kernel_shape_is", (int) k, kernel, "pads_is", (int) (2 * k), pads,
                            "strides_is", (int) k, strides, NULL);
  if (node == NULL)
    return FALSE;
  if (transposed && nop > 0)
    {
      expand_list (nop, opad, k, outpad);
      gboolean any = FALSE;
      for (gsize i = 0; i < k; i++)
        any = any || outpad[i] != 0;
      if (any)
        graph_node_set_is (node, "output_padding", k, outpad);
    }
  out[0] = graph_node_output (node, 0);
  return TRUE;
}

static gboolean
sym__convolution (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return convolution (ctx, n, out, error, TRUE);
}

static gboolean
sym_conv (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return convolution (ctx, n, out, error, FALSE);
}

/* aten::batch_norm(input, weight, bias, running_mean, running_var,
 *   training, momentum, eps, cudnn_enabled) — inference form. */
/* (x - mean) / sqrt(var + eps) * weight + bias with the batch's mean and
 * biased variance over dims 0, 2, 3...: batch_norm with training=True and
 * no running statistics. */
static gboolean
batch_stats_norm (SymContext *ctx, GraphNode *n, GraphValue *x, GraphValue *weight, GraphValue *bias,
                  double eps, GraphValue **out, GError **error)
{
  int r = sym_rank (x);
  GraphDType dt = sym_dtype (x);
  if (r < 2 || r > TENSOR_MAX_RANK || !graph_dtype_is_floating (dt))
    /* torch 1.13: writes BatchNormalization in training mode (training_mode=1 from 14, extra
     * outputs before); refused here because the statistics' axes need the rank and a float type */
    return sym_unimplemented (ctx, n, error, "batch_norm with batch statistics of an input of unknown "
                              "rank or type");
  gint64 axes[TENSOR_MAX_RANK], wdims[TENSOR_MAX_RANK];
  gsize na = 0;
  for (int i = 0; i < r; i++)
    if (i != 1)
      axes[na++] = i;
  GraphValue *m = sym_reduce (ctx, "ReduceMean", x, na, axes, TRUE);
  GraphValue *d = graph_op (G, "Sub", x, m, NULL);
  GraphValue *v = sym_reduce (ctx, "ReduceMean", graph_op (G, "Mul", d, d, NULL), na, axes, TRUE);
  GraphValue *y = graph_op (G, "Div", d, graph_op (G, "Sqrt", graph_op (G, "Add", v, sym_const_scalar (ctx, dt, eps),
                                                                         NULL), NULL), NULL);
  /* weight and bias of shape [C] broadcast as [C, 1, ...] */
  wdims[0] = -1;
  for (int i = 1; i < r - 1; i++)
    wdims[i] = 1;
  if (weight)
    y = graph_op (G, "Mul", y, sym_reshape_static (ctx, weight, (gsize) (r - 1), wdims), NULL);
  if (bias)
    y = graph_op (G, "Add", y, sym_reshape_static (ctx, bias, (gsize) (r - 1), wdims), NULL);
  out[0] = y;
  return TRUE;
}

/* Whether value v (a running statistic) is read by a node other than n
 * that computes with it: a training-mode batch_norm's statistics only
 * receive its update, so such uses do not count. */
static gboolean
stat_used (GraphNode *n, GraphValue *v)
{
  if (graph_value_is_graph_output (v))
    return TRUE;
  for (guint i = 0; i < graph_value_n_uses (v); i++)
    {
      const GraphUse *u = graph_value_use (v, i);
      gboolean train;
      if (u->node == n)
        continue;
      if (!(graph_node_is (u->node, "aten::batch_norm") && (u->index == 3 || u->index == 4)
            && graph_node_n_inputs (u->node) > 5 && sym_get_const_bool (graph_node_input (u->node, 5), &train)
            && train))
        return TRUE;
    }
  return FALSE;
}

/* Whether running statistic `stat` of batch_norm n is read by another node
 * too: through the same value, or through another prim::GetAttr of the same
 * attribute path (each `bn.running_mean` in a trace is a GetAttr of its own). */
static gboolean
stat_read_elsewhere (GraphNode *n, GraphValue *stat)
{
  if (stat_used (n, stat))
    return TRUE;
  g_autofree char *path = sym_getattr_path (stat);
  if (path == NULL)
    return FALSE;
  gboolean other = FALSE;
  graph_foreach_node (graph_node_graph (n), m)
    if (!other && graph_node_is (m, "prim::GetAttr") && graph_node_n_outputs (m) == 1
        && graph_node_output (m, 0) != stat && stat_used (n, graph_node_output (m, 0)))
      {
        g_autofree char *mp = sym_getattr_path (graph_node_output (m, 0));
        other = mp && strcmp (mp, path) == 0;
      }
  return other;
}

static gboolean
sym_batch_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *weight, *bias, *mean, *var;
  gboolean training;
  double momentum, eps;
  if (!sym_parse_args (ctx, n, "vvvvvbff", &input, &weight, &bias, &mean, &var, &training,
                       &momentum, &eps, error))
    return FALSE;
  /* Batch statistics without running statistics to update
   * (track_running_stats=False: PyTorch normalises with the batch's even in
   * eval mode): the function itself, mean and biased variance over every
   * dim but the channels.  Nothing is left out, as no state changes. */
  if (training && mean == NULL && var == NULL)
    return batch_stats_norm (ctx, n, input, weight, bias, eps, out, error);
  /* Batch statistics with running statistics: never the inference form
   * (other numbers).  A training-mode export (ExportOptions' training) gets
   * the batch's statistics, as PyTorch's training forward computes; their
   * update of the running statistics is state an ONNX graph cannot keep
   * (torch writes it as BatchNormalization outputs nothing reads), so a
   * forward that reads them again is refused.  Without the option the
   * trace was most likely recorded without model.eval(): refused. */
  if (training && !sym_training (ctx))
    /* torch 1.13: writes BatchNormalization with training outputs (training_mode=1 from opset 14;
     * before 14 a form runtimes compute with the running statistics); refused here because a
     * trace in training mode without the training option is most likely a forgotten model.eval() */
    return sym_unimplemented (ctx, n, error, "batch_norm in training mode (normalising with the "
                              "batch's statistics); trace the model in eval mode (model.eval()), or "
                              "export in training mode (--training; training=TrainingMode.TRAINING)");
  if (training)
    {
      for (int k = 3; k <= 4; k++)
        if (stat_read_elsewhere (n, graph_node_input (n, k)))
          /* torch 1.13: writes the updated statistics as BatchNormalization outputs the graph does
           * not read; refused here because a later read of them would see the old values */
          return sym_unimplemented (ctx, n, error, "batch_norm in training mode whose running "
                                    "statistics are read again (their update is not exported)");
      return batch_stats_norm (ctx, n, input, weight, bias, eps, out, error);
    }
  if (mean == NULL || var == NULL)
    /* torch 1.13: also refuses (PyTorch needs running statistics in eval mode; without them the
     * node is in training mode) */
    return sym_unimplemented (ctx, n, error, "batch_norm without running statistics");
  if (weight == NULL || bias == NULL)
    {
      gint64 c = sym_static_dim_size (input, 1);
      if (c < 0)
        /* torch 1.13: also refuses ("Unsupported: ONNX export of batch_norm for unknown channel
         * size") */
        return sym_unimplemented (ctx, n, error, "batch_norm without affine weights on an input of unknown channels");
      GraphDType dt = sym_dtype (input) ? sym_dtype (input) : GRAPH_DTYPE_FLOAT;
      if (weight == NULL)
        {
          weight = sym_const_filled (ctx, 1, &c, dt, 1.0);   /* ones in any float type */
          if (weight == NULL)
            /* torch 1.13: exports ones of any channel count as a constant weight; not yet here
             * (more channels than a constant is made for) */
            return sym_unimplemented (ctx, n, error, "batch_norm without affine weights of %"
                                      G_GINT64_FORMAT " channels", c);
        }
      if (bias == NULL)
        {
          g_autoptr (Tensor) t = tensor_new_zeroed (dt, 1, &c, NULL);
          bias = sym_constant (ctx, t);
        }
    }
  GraphValue *ins[5] = { input, weight, bias, mean, var };
  GraphNode *bn;
  if (sym_opset (ctx) >= 14)
    bn = graph_opv_outputs (G, "BatchNormalization", 5, ins, 1, "epsilon_f", eps,
                            "momentum_f", 1.0 - momentum, "training_mode_i", (gint64) 0, NULL);
  else
    bn = graph_opv_outputs (G, "BatchNormalization", 5, ins, 1, "epsilon_f", eps,
                            "momentum_f", 1.0 - momentum, NULL);
  if (bn == NULL)
    return FALSE;
  out[0] = graph_node_output (bn, 0);
  return TRUE;
}

/* aten::layer_norm(input, normalized_shape, weight, bias, eps, cudnn):
 * a decomposition before 17, LayerNormalization from 17 (opset17.c lists
 * this function again). */
gboolean
sym_parse_layer_norm (SymContext *ctx, GraphNode *n, GraphValue **input, gsize *ns, GraphValue **weight,
                      GraphValue **bias, double *eps, GError **error)
{
  const gint64 *shape;
  if (!sym_parse_args (ctx, n, "v,is,v,v,f", input, ns, &shape, weight, bias, eps, error))
    return FALSE;
  if (*ns == 0 || *ns > TENSOR_MAX_RANK)
    /* torch 1.13: also refuses (PyTorch rejects an empty normalized_shape) */
    return sym_unimplemented (ctx, n, error, "an empty normalized_shape");
  return TRUE;
}

gboolean
sym_layer_norm_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *weight, *bias;
  gsize ns;
  double eps;
  if (!sym_parse_layer_norm (ctx, n, &input, &ns, &weight, &bias, &eps, error))
    return FALSE;
  /* Without a weight, the composed form of opsets 9-16 at 17 too: torch
   * 1.13 writes LayerNormalization with an empty weight input, which the
   * checker refuses. */
  if (sym_opset (ctx) >= 17 && weight != NULL)
    {
      GraphValue *ins[3] = { input, weight, bias };
      GraphNode *ln = graph_opv_outputs (G, "LayerNormalization", bias ? 3 : 2, ins, 1,
                                         "axis_i", -(gint64) ns, "epsilon_f", eps, NULL);
      out[0] = ln ? graph_node_output (ln, 0) : NULL;
      return out[0] != NULL;
    }
  out[0] = sym_layer_norm_values (ctx, input, ns, weight, bias, eps, NULL, NULL);
  return TRUE;
}

GraphValue *
sym_layer_norm_values (SymContext *ctx, GraphValue *input, gsize ns, GraphValue *weight,
                       GraphValue *bias, double eps, GraphValue **mean_out, GraphValue **den_out)
{
  gint64 axes[TENSOR_MAX_RANK];
  for (gsize i = 0; i < ns; i++)
    axes[i] = -(gint64) (ns - i);
  /* torch leaves keepdims at its default (1) here. */
  GraphValue *mean = graph_op (G, "ReduceMean", input, "axes_is", (int) ns, axes, NULL);
  GraphValue *num = graph_op (G, "Sub", input, mean, NULL);
  GraphValue *var = graph_op (G, "ReduceMean",
                              graph_op (G, "Pow", num, sym_scalar_like (ctx, 2.0, input), NULL),
                              "axes_is", (int) ns, axes, NULL);
  GraphValue *den = graph_op (G, "Sqrt", graph_op (G, "Add", var, sym_scalar_like (ctx, eps, input), NULL),
                              NULL);
  GraphValue *y = graph_op (G, "Div", num, den, NULL);
  if (weight)
    y = graph_op (G, "Mul", y, weight, NULL);
  if (bias)
    y = graph_op (G, "Add", y, bias, NULL);
  if (mean_out)
    *mean_out = mean;
  if (den_out)
    *den_out = den;
  return y;
}

/* Pooling: aten::max_pool{1,2,3}d(input, kernel, stride, padding,
 *   dilation, ceil_mode) and max_pool2d_with_indices. */
static gboolean
sym_max_pool (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input;
  gsize nk, ns, np, nd;
  const gint64 *kernel, *stride, *padding, *dilation;
  gboolean ceil_mode;
  if (!sym_parse_args (ctx, n, "v,is,is,is,is,b", &input, &nk, &kernel, &ns, &stride, &np,
                       &padding, &nd, &dilation, &ceil_mode, error))
    return FALSE;
  gsize k = nk;
  gint64 strides[8], pads[16], dil[8];
  if (k == 0 || k > 8)
    /* torch 1.13: also refuses (PyTorch rejects an empty kernel and has no pooling above 3-D) */
    return sym_unimplemented (ctx, n, error, "an empty kernel");
  expand_list (ns ? ns : nk, ns ? stride : kernel, k, strides);
  expand_list (np, padding, k, pads);
  memcpy (pads + k, pads, k * sizeof (gint64));
  expand_list (nd, dilation, k, dil);
  for (gsize i = 0; i < k; i++)
    if (dil[i] != 1 && sym_opset (ctx) < 10)
      /* torch 1.13: also refuses (_unimplemented "dilation" before opset 10) */
      return sym_unimplemented (ctx, n, error, "dilation");
  if (ceil_mode && sym_opset (ctx) < 10)
    {
      /* Opset 9 has no ceil_mode: pad the end instead (as torch does). */
      gint64 dims[TENSOR_MAX_RANK];
      int r = sym_static_dims (input, dims);
      gboolean known = r >= (int) k;
      for (gsize i = 0; known && i < k; i++)
        known = dims[r - (int) k + (int) i] >= 0;
      if (!known)
        /* torch 1.13: also refuses (get_pool_ceil_padding: "input size not accessible" at opset 9) */
        return sym_unimplemented (ctx, n, error, "ceil_mode on an input of unknown spatial size");
      /* torch's get_pool_ceil_padding */
      for (gsize i = 0; i < k; i++)
        {
          gint64 d = dims[r - (int) k + (int) i], p = pads[i], s = strides[i], kk = kernel[i];
          gint64 num = d + 2 * p - kk;
          gint64 o = (num + s - 1) / s + 1;
          if ((o - 1) * s >= d + p)
            o--;
          gint64 pc = s == 1 ? 0 : kk - (d + 2 * p - ((o - 1) * s + 1));
          if (pc + 2 * p >= kk)
            pc = MIN (pc, kk - 1);
          pads[k + i] += pc;
        }
      ceil_mode = FALSE;
    }
  gboolean with_indices = graph_node_n_outputs (n) > 1;
  guint n_out = with_indices && graph_value_n_uses (graph_node_output (n, 1)) > 0 ? 2 : 1;
  if (n_out == 2 && sym_rank (input) != (int) k + 2)
    /* torch 1.13: also refuses (its MaxPool needs the batch and channel dims: an unbatched input
     * fails ONNX's shape inference) */
    return sym_unimplemented (ctx, n, error, "max pooling indices of an input without batch and channel dims");
  GraphNode *mp;
  if (sym_opset (ctx) >= 10)
    {
      gboolean any_dil = FALSE;
      for (gsize i = 0; i < k; i++)
        any_dil = any_dil || dil[i] != 1;
      mp = graph_op_outputs (G, "MaxPool", n_out, input, "kernel_shape_is", (int) k, kernel,
                             "pads_is", (int) (2 * k), pads, "strides_is", (int) k, strides,
                             NULL);
      if (mp)
        graph_node_set_i (mp, "ceil_mode", ceil_mode ? 1 : 0);
      if (mp && any_dil)
        graph_node_set_is (mp, "dilations", k, dil);
    }
  else
    mp = graph_op_outputs (G, "MaxPool", n_out, input, "kernel_shape_is", (int) k, kernel,
                           "pads_is", (int) (2 * k), pads, "strides_is", (int) k, strides, NULL);
  if (mp == NULL)
    return FALSE;
  out[0] = graph_node_output (mp, 0);
  if (n_out == 2)
    {
      /* As torch: ONNX's indices are flat over N·C·spatial, PyTorch's
       * within each (n, c) plane; a 1x1 MaxPool's indices at the plane's
       * first element are each plane's offset, subtracted. */
      gint64 ones[8], zeros[8], axes[8];
      for (gsize i = 0; i < k; i++)
        {
          ones[i] = 1;
          zeros[i] = 0;
          axes[i] = 2 + (gint64) i;
        }
      GraphNode *flat = graph_op_outputs (G, "MaxPool", 2, input, "kernel_shape_is", (int) k, ones,
                                          "strides_is", (int) k, ones, NULL);
      if (flat == NULL)
        return FALSE;
      GraphValue *offset = sym_slice (ctx, graph_node_output (flat, 1), k, axes, zeros, ones, NULL);
      out[1] = graph_op (G, "Sub", graph_node_output (mp, 1), offset, NULL);
    }
  return TRUE;
}

/* Note [avg_pool ceil_mode with counted padding]: PyTorch drops a ceil-mode
 * window that starts in the right padding: (o - 1)·s >= in + p.  torch's
 * export pads explicitly (so the padding counts) and keeps ceil_mode, and
 * ONNX's rule then reads the padded size: (o - 1)·s >= in + 2p, one window
 * more (avg_pool2d(3, 3, padding=1, ceil_mode=True) of 50 gives 17, the
 * export 18).  From the static input size, PyTorch's output size o per dim;
 * where the two rules differ the export uses floor mode and extends the
 * end by `extra_end` through the pads attribute, whose cells
 * AveragePool does not count (count_include_pad=0), as PyTorch clips its
 * divisor at in + p. */
/* With `force` (opset 9, whose AveragePool has no ceil_mode: torch's
 * get_pool_ceil_padding) the ceil-mode sizes always become floor mode and
 * extra end padding, which AveragePool does not count either.  in_dims:
 * the input's k spatial sizes, NULL when they are not known statically. */
static gboolean
avg_pool_ceil_ends (SymContext *ctx, GraphNode *n, const gint64 *in_dims, gsize k, const gint64 *kernel,
                    const gint64 *strides, const gint64 *pads, gboolean force, gboolean *ceil_mode,
                    gint64 *extra_end, GError **error)
{
  gboolean differs = FALSE;
  gint64 out[8];
  if (in_dims == NULL)
    /* torch 1.13: exports Pad + AveragePool(ceil_mode), one window too many; refused here because the size decides */
    return sym_unimplemented (ctx, n, error, "ceil_mode with counted padding on an input of unknown "
                              "spatial size (PyTorch's and ONNX's ceil-mode output sizes differ)");
  for (gsize i = 0; i < k; i++)
    {
      gint64 in = in_dims[i], kk = kernel[i], s = strides[i], p = pads[i];
      gint64 span = in + 2 * p - kk;
      if (span < 0 || s <= 0)
        /* torch 1.13: also refuses (PyTorch rejects a window larger than the padded input) */
        return sym_unimplemented (ctx, n, error, "a window larger than the padded input");
      /* ONNX's AveragePool output size has no rule for a last window that
       * starts past the input (the spec's and onnx.checker's formula) */
      gint64 o = (span + s - 1) / s + 1, o_onnx = o;
      if ((o - 1) * s >= in + p)
        o--;
      out[i] = o;
      differs |= o != o_onnx;
    }
  if (!differs && !force)
    return TRUE;
  *ceil_mode = FALSE;
  for (gsize i = 0; i < k; i++)
    {
      gint64 in = in_dims[i], kk = kernel[i], s = strides[i], p = pads[i];
      extra_end[i] = MAX (0, (out[i] - 1) * s + kk - (in + 2 * p));
    }
  return TRUE;
}

/* aten::avg_pool{1,2,3}d(input, kernel, stride, padding, ceil_mode,
 *   count_include_pad, divisor_override) */
static gboolean
sym_avg_pool (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input;
  gsize nk, ns, np;
  const gint64 *kernel, *stride, *padding;
  gboolean ceil_mode, count_include_pad = TRUE;
  if (!sym_parse_args (ctx, n, "v,is,is,is,b", &input, &nk, &kernel, &ns, &stride, &np, &padding,
                       &ceil_mode, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 5 && !sym_parse_args (ctx, n, "none,none,none,none,none,b",
                                                       &count_include_pad, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 6 && !sym_is_none (graph_node_input (n, 6)))
    /* torch 1.13: also refuses (_avgpool_helper: _unimplemented "divisor_override") */
    return sym_unimplemented (ctx, n, error, "divisor_override");
  gsize k = nk;
  gint64 strides[8], pads[16], extra_end[8] = { 0 };
  if (k == 0 || k > 8)
    /* torch 1.13: also refuses (PyTorch rejects an empty kernel and has no pooling above 3-D) */
    return sym_unimplemented (ctx, n, error, "an empty kernel");
  expand_list (ns ? ns : nk, ns ? stride : kernel, k, strides);
  expand_list (np, padding, k, pads);
  gboolean any_pad = FALSE;
  for (gsize i = 0; i < k; i++)
    any_pad |= pads[i] != 0;
  gboolean at9 = sym_opset (ctx) < 10;
  /* PyTorch's and ONNX's ceil-mode sizes differ where the last window
   * starts past the input: decided from the static sizes (Note [avg_pool
   * ceil_mode with counted padding]); an input of unknown size keeps
   * ceil_mode unless the counted padding makes the difference likely */
  gint64 idims[TENSOR_MAX_RANK];
  int irank = sym_static_dims (input, idims);
  gboolean spatial_static = irank >= (int) k + 1;
  for (gsize i = 0; spatial_static && i < k; i++)
    spatial_static = idims[irank - k + i] >= 0;
  /* with dynamic axes elsewhere (batch, channels) the spatial sizes still
   * decide at opset 9, which has no other form (PyTorch's suite,
   * test_avgpool_3d_ceil); from 10 ceil_mode is kept */
  gboolean sized = spatial_static && (at9 || !sym_has_dynamic_axes (ctx));
  const gint64 *in_dims = sized ? idims + irank - k : NULL;
  if (ceil_mode && at9 && !sized)
    /* torch 1.13: also refuses at opset 9 on an input of unknown size (get_pool_ceil_padding: "input
     * size not accessible") */
    return sym_unimplemented (ctx, n, error, "ceil_mode at opset 9 on an input of unknown spatial size");
  if (ceil_mode && ((count_include_pad && any_pad) || at9 || sized)
      && !avg_pool_ceil_ends (ctx, n, in_dims, k, kernel, strides, pads, at9, &ceil_mode, extra_end, error))
    return FALSE;
  gboolean extended = FALSE;
  for (gsize i = 0; i < k; i++)
    extended |= extra_end[i] != 0;
  gboolean counted = FALSE;
  if (count_include_pad && !extended && any_pad)
    /* AveragePool counts its own pads (count_include_pad=1): torch pads
     * explicitly instead, and ONNX Runtime 1.20's optimizer, fusing that
     * Pad into a quantized AveragePool, stops counting it (PyTorch's suite,
     * test_qat_avg_pool2d: other numbers than with its optimizations off) */
    counted = TRUE;
  else if (count_include_pad)   /* torch pads explicitly even with zero padding */
    {
      /* Explicit zero padding so the padded cells count (as torch). */
      gint64 full[2 * (2 + 8)] = { 0 };
      for (gsize i = 0; i < k; i++)
        full[2 + i] = full[2 + k + 2 + i] = pads[i];
      if (sym_opset (ctx) >= 11)
        input = graph_op (G, "Pad", input, sym_const_ints (ctx, 2 * (k + 2), full),
                          "mode_s", "constant", NULL);   /* value: the default 0, as torch */
      else
        input = graph_op (G, "Pad", input, "mode_s", "constant", "pads_is", (int) (2 * (k + 2)),
                          full, "value_f", 0.0, NULL);
      for (gsize i = 0; i < k; i++)
        pads[i] = 0;
    }
  memcpy (pads + k, pads, k * sizeof (gint64));
  for (gsize i = 0; i < k; i++)
    pads[k + i] += extra_end[i];

  GraphValue *v = graph_op (G, "AveragePool", input, "kernel_shape_is", (int) k, kernel,
                            "pads_is", (int) (2 * k), pads, "strides_is", (int) k, strides, NULL);
  if (v && sym_opset (ctx) >= 10)
    graph_node_set_i (graph_value_node (v), "ceil_mode", ceil_mode ? 1 : 0);
  if (v && counted)
    graph_node_set_i (graph_value_node (v), "count_include_pad", 1);
  out[0] = v;
  return v != NULL;
}

/* Adaptive pooling along one axis whose output size o need not divide the
 * input size in: PyTorch's bin i is [floor(i·in/o), ceil((i+1)·in/o)).  A
 * Gather of a static [o, K] index table (K the longest bin; a shorter bin
 * repeats its last index) gives [..., o, K, ...]; max reduces over K, the
 * average weights each entry by 1/len (0 for the repeats) and sums.  dt:
 * the input's element type. */
static GraphValue *
adaptive_axis (SymContext *ctx, GraphValue *x, GraphDType dt, int rank, int axis, gint64 in,
               gint64 o, gboolean is_max, GError **error)
{
  if (in == o)
    return x;
  if (!is_max && dt != GRAPH_DTYPE_FLOAT && dt != GRAPH_DTYPE_DOUBLE)
    {
      /* torch 1.13: also refuses (_unimplemented "output size that are not factor of input size") */
      g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                   "adaptive average pooling of %s with bins of unequal size (float and double only)",
                   graph_dtype_name (dt));
      return NULL;
    }
  gint64 k = 0;
  for (gint64 i = 0; i < o; i++)
    k = MAX (k, ((i + 1) * in + o - 1) / o - (i * in) / o);
  if (o > (1 << 16) || k * o > (1 << 24))
    {
      /* torch 1.13: also refuses (_unimplemented "output size that are not factor of input size") */
      g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                   "adaptive pooling from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                   " elements: index table too large", in, o);
      return NULL;
    }
  gint64 wdims[TENSOR_MAX_RANK] = { o, k };
  for (int d = axis + 1; d < rank; d++)
    wdims[2 + d - axis - 1] = 1;
  g_autoptr (Tensor) idx = tensor_new_zeroed (GRAPH_DTYPE_INT64, 2, wdims, error);
  g_autoptr (Tensor) w = is_max ? NULL : tensor_new_zeroed (dt, (guint) (rank - axis + 1), wdims, error);
  if (idx == NULL || (!is_max && w == NULL))
    return NULL;
  gint64 *ip = (gint64 *) tensor_data (idx);   /* new, owned: writable */
  for (gint64 i = 0; i < o; i++)
    {
      gint64 start = (i * in) / o, end = ((i + 1) * in + o - 1) / o;
      for (gint64 j = 0; j < k; j++)
        {
          ip[i * k + j] = MIN (start + j, end - 1);
          if (w && start + j < end)
            {
              double v = 1.0 / (double) (end - start);
              if (dt == GRAPH_DTYPE_FLOAT)
                ((float *) tensor_data (w))[i * k + j] = (float) v;
              else
                ((double *) tensor_data (w))[i * k + j] = v;
            }
        }
    }
  GraphValue *g = graph_op (G, "Gather", x, sym_constant (ctx, idx), "axis_i", (gint64) axis, NULL);
  if (w)
    g = graph_op (G, "Mul", g, sym_constant (ctx, w), NULL);
  const gint64 red = axis + 1;
  return sym_reduce (ctx, is_max ? "ReduceMax" : "ReduceSum", g, 1, &red, FALSE);
}

/* aten::adaptive_avg_pool{1,2,3}d(input, output_size) */
static gboolean
adaptive_pool (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean is_max)
{
  GraphValue *input;
  gsize no;
  const gint64 *osize;
  if (!sym_parse_args (ctx, n, "v,is", &input, &no, &osize, error))
    return FALSE;
  gboolean ones = TRUE;
  for (gsize i = 0; i < no; i++)
    ones = ones && osize[i] == 1;
  if (ones && (!is_max || graph_node_n_outputs (n) == 1
               || graph_value_n_uses (graph_node_output (n, 1)) == 0))
    {
      out[0] = graph_op (G, is_max ? "GlobalMaxPool" : "GlobalAveragePool", input, NULL);
      return TRUE;
    }
  gint64 dims[TENSOR_MAX_RANK];
  int r = sym_static_dims (input, dims);   /* the pooled dims must be static, batch need not */
  if (r < (int) no + 1)
    /* torch 1.13: also refuses (_unimplemented "input size not accessible") */
    return sym_unimplemented (ctx, n, error, "adaptive pooling on an input of unknown rank");
  for (gsize i = 0; i < no; i++)
    if (dims[r - (int) no + (int) i] < 0)
      /* torch 1.13: also refuses (_unimplemented "input size not accessible", except to size 1) */
      return sym_unimplemented (ctx, n, error, "adaptive pooling of a dynamic size (other than to 1)");
  gint64 kernel[8], strides[8];
  if (no > 8)
    /* torch 1.13: also refuses (PyTorch has no adaptive pooling above 3-D) */
    return sym_unimplemented (ctx, n, error, "%zu-d adaptive pooling", no);
  if (is_max && graph_node_n_outputs (n) > 1 && graph_value_n_uses (graph_node_output (n, 1)) > 0)
    /* torch 1.13: exports the indices when the sizes divide (through max_pool's indices path); not
     * yet here */
    return sym_unimplemented (ctx, n, error, "adaptive max pooling's indices");
  gboolean divides = TRUE;
  for (gsize i = 0; i < no; i++)
    {
      gint64 in = dims[r - (int) no + (int) i];
      if (osize[i] <= 0 || in <= 0)
        /* torch 1.13: also refuses (its size modulo fails on an empty input or output) */
        return sym_unimplemented (ctx, n, error, "adaptive pooling from size %" G_GINT64_FORMAT
                                  " to %" G_GINT64_FORMAT, in, osize[i]);
      divides = divides && in % osize[i] == 0;
      strides[i] = kernel[i] = in / osize[i];
    }
  if (!divides)
    {
      /* torch cannot export this (it refuses); the bins are static, so
       * each pooled axis is a Gather of its bins and a reduction. */
      GraphValue *v = input;
      for (gsize i = 0; v && i < no; i++)
        v = adaptive_axis (ctx, v, sym_dtype (input), r, r - (int) no + (int) i, dims[r - (int) no + (int) i], osize[i],
                           is_max, error);
      out[0] = v;
      return v != NULL;
    }
  out[0] = graph_op (G, is_max ? "MaxPool" : "AveragePool", input, "kernel_shape_is", (int) no,
                     kernel, "strides_is", (int) no, strides, NULL);
  return out[0] != NULL;
}

static gboolean
sym_adaptive_avg_pool (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return adaptive_pool (ctx, n, out, error, FALSE);
}

static gboolean
sym_adaptive_max_pool (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return adaptive_pool (ctx, n, out, error, TRUE);
}

/* Dropout family (inference form): identity; training mode is refused
 * unless p is 0. */
static gboolean
sym_dropout (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input;
  gboolean train = FALSE;
  if (!sym_parse_args (ctx, n, "v", &input, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_parse_args (ctx, n, "none,none,b", &train, error))
    return FALSE;
  double p = 1.0;
  /* F.dropout(x, p=0.0) (training defaults to True: torchvision's Swin
   * attention) is the identity in either mode */
  if (train && !(graph_node_n_inputs (n) > 1 && sym_get_const_double (graph_node_input (n, 1), &p)
                 && p == 0.0))
    /* torch 1.13: writes an inference Dropout (the identity) before opset 12 and refuses training-
     * mode feature/alpha dropout; refused here because the identity is another function */
    return sym_unimplemented (ctx, n, error, "training-mode dropout");
  out[0] = input;
  return TRUE;
}

/* aten::embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse) */
static gboolean
sym_embedding (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *weight, *indices;
  if (!sym_parse_args (ctx, n, "vv", &weight, &indices, error))
    return FALSE;
  out[0] = graph_op (G, "Gather", weight, indices, NULL);
  return TRUE;
}

/* softmax / log_softmax: from opset 13 one op along dim; before, Softmax
 * coerces to 2-D at axis, so a dim other than the last is transposed there
 * and back (pre13_form).  dim was checked by the caller's 'd' parse. */
GraphValue *
sym_softmax_values (SymContext *ctx, GraphValue *input, gint64 dim, const char *op,
                    gboolean pre13_form)
{
  int r = sym_rank (input);
  if (!pre13_form || r == 0)
    return graph_op (G, op, input, "axis_i", r == 0 ? (gint64) 0 : dim, NULL);
  if (dim < 0)
    dim += r;
  gboolean transpose = dim != r - 1;
  gint64 perm[TENSOR_MAX_RANK];
  for (int i = 0; i < r; i++)
    perm[i] = i;
  if (transpose)
    {
      perm[dim] = r - 1;
      perm[r - 1] = dim;
      input = graph_op (G, "Transpose", input, "perm_is", r, perm, NULL);
    }
  GraphValue *y = graph_op (G, op, input, "axis_i", (gint64) (r - 1), NULL);
  if (transpose)
    y = graph_op (G, "Transpose", y, "perm_is", r, perm, NULL);
  return y;
}

static gboolean
softmax_common (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, const char *op)
{
  GraphValue *input;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vd", &input, &dim, error))
    return FALSE;
  if (sym_rank (input) < 0)
    /* torch 1.13: exports softmax of unknown rank (Exp/ReduceSum before 13, Softmax(axis) from 13)
     * and log_softmax from opset 13; not yet here */
    return sym_unimplemented (ctx, n, error, "softmax on an input of unknown rank");
  if (!sym_softmax_input_dtype (ctx, n, &input, error))
    return FALSE;
  out[0] = sym_softmax_values (ctx, input, dim, op, sym_opset (ctx) < 13);
  return TRUE;
}

/* softmax(self, dim, dtype): PyTorch casts self to dtype and computes in
 * it (torch 1.13's symbolics cast the float result afterwards, less exact
 * for a double dtype and without a shape for the output's type). */
gboolean
sym_softmax_input_dtype (SymContext *ctx, GraphNode *n, GraphValue **input, GError **error)
{
  if (graph_node_n_inputs (n) <= 2 || sym_is_none (graph_node_input (n, 2)))
    return TRUE;
  GraphDType dt = sym_scalar_type (graph_node_input (n, 2), GRAPH_DTYPE_UNDEFINED);
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: also refuses (its dtype argument must be a constant) */
    return sym_unimplemented (ctx, n, error, "a dtype that is not a constant");
  if (dt != sym_dtype (*input))
    *input = sym_cast (ctx, *input, dt);
  return TRUE;
}

static gboolean
sym_softmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return softmax_common (ctx, n, out, error, "Softmax");
}

static gboolean
sym_log_softmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return softmax_common (ctx, n, out, error, "LogSoftmax");
}

/* aten::elu(self, alpha, scale, input_scale) */
static gboolean
sym_elu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double alpha, scale = 1.0, input_scale = 1.0;
  if (!sym_parse_args (ctx, n, "vf", &self, &alpha, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 3
      && !sym_parse_args (ctx, n, "none,none,f,f", &scale, &input_scale, error))
    return FALSE;
  if (scale != 1.0 || input_scale != 1.0)
    /* torch 1.13: also refuses (_unimplemented "does not support scale in Elu") */
    return sym_unimplemented (ctx, n, error, "elu with scale/input_scale != 1");
  out[0] = sym_elu_of (ctx, self, alpha);
  return TRUE;
}

static gboolean
sym_selu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Selu", self, NULL);
  return TRUE;
}

static gboolean
sym_leaky_relu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double slope = 0.01;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 1 && !sym_parse_args (ctx, n, "none,f", &slope, error))
    return FALSE;
  out[0] = graph_op (G, "LeakyRelu", self, "alpha_f", slope, NULL);
  return TRUE;
}

/* aten::threshold(self, threshold, value): where(x > t, x, value) */
static gboolean
sym_threshold (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double th, value;
  if (!sym_parse_args (ctx, n, "vff", &self, &th, &value, error))
    return FALSE;
  if (th == 0.0 && value == 0.0)
    {
      out[0] = graph_op (G, "Relu", self, NULL);
      return TRUE;
    }
  GraphValue *cond = graph_op (G, "Greater", self, sym_scalar_like (ctx, th, self), NULL);
  out[0] = graph_op (G, "Where", cond, self, sym_scalar_like (ctx, value, self), NULL);
  return TRUE;
}

/* aten::glu(self, dim): a * sigmoid(b) of the two halves. */
static gboolean
sym_glu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vd", &self, &dim, error))
    return FALSE;
  GraphNode *sp = sym_split (ctx, self, dim, 2, NULL);
  if (sp == NULL)
    return FALSE;
  out[0] = graph_op (G, "Mul", graph_node_output (sp, 0),
                     graph_op (G, "Sigmoid", graph_node_output (sp, 1), NULL), NULL);
  return TRUE;
}

/* aten::hardtanh(self, min, max) at opset 9: Clip attributes. */
static gboolean
sym_hardtanh (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double lo = -1.0, hi = 1.0;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_parse_args (ctx, n, "none,f,f", &lo, &hi, error))
    return FALSE;
  out[0] = graph_op (G, "Clip", self, "max_f", hi, "min_f", lo, NULL);
  return TRUE;
}

static gboolean
sym_relu6 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Clip", self, "max_f", 6.0, "min_f", 0.0, NULL);
  return TRUE;
}

/* aten::gelu(self, approximate="none"): 0.5 x (1 + erf(x / sqrt 2)) */
static gboolean
sym_gelu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  const char *approx = "none";
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 1 && !sym_parse_args (ctx, n, "none,s", &approx, error))
    return FALSE;
  if (strcmp (approx, "tanh") == 0)
    {
      /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
      GraphValue *x3 = graph_op (G, "Pow", self, sym_scalar_like (ctx, 3.0, self), NULL);
      GraphValue *inner = graph_op (G, "Add", self,
                                    graph_op (G, "Mul", x3, sym_scalar_like (ctx, 0.044715, self), NULL),
                                    NULL);
      inner = graph_op (G, "Mul", inner, sym_scalar_like (ctx, sqrt (2.0 / G_PI), self), NULL);
      GraphValue *t = graph_op (G, "Add", graph_op (G, "Tanh", inner, NULL),
                                sym_scalar_like (ctx, 1.0, self), NULL);
      out[0] = graph_op (G, "Mul", graph_op (G, "Mul", self, t, NULL),
                         sym_scalar_like (ctx, 0.5, self), NULL);
      return TRUE;
    }
  GraphValue *e = graph_op (G, "Erf", graph_op (G, "Div", self, sym_scalar_like (ctx, G_SQRT2, self),
                                                NULL), NULL);
  GraphValue *t = graph_op (G, "Add", e, sym_scalar_like (ctx, 1.0, self), NULL);
  out[0] = graph_op (G, "Mul", graph_op (G, "Mul", self, t, NULL), sym_scalar_like (ctx, 0.5, self),
                     NULL);
  return TRUE;
}

static gboolean
sym_silu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Mul", self, graph_op (G, "Sigmoid", self, NULL), NULL);
  return TRUE;
}

static gboolean
sym_hardsigmoid (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "HardSigmoid", self, "alpha_f", 1.0 / 6.0, NULL);
  return TRUE;
}

static gboolean
sym_hardswish (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphValue *hs = graph_op (G, "HardSigmoid", self, "alpha_f", 1.0 / 6.0, NULL);
  out[0] = graph_op (G, "Mul", self, hs, NULL);
  return TRUE;
}

/* aten::softplus(self, beta, threshold) */
static gboolean
sym_softplus (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double beta = 1.0, threshold = 20.0;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 1 && !sym_parse_args (ctx, n, "none,f", &beta, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_parse_args (ctx, n, "none,none,f", &threshold, error))
    return FALSE;
  GraphValue *b = beta != 1.0 ? sym_scalar_like (ctx, beta, self) : NULL;
  GraphValue *bx = b ? graph_op (G, "Mul", self, b, NULL) : self;
  GraphValue *sp = graph_op (G, "Softplus", bx, NULL);
  if (b)
    sp = graph_op (G, "Div", sp, b, NULL);
  /* Eager softplus is x itself where beta * x > threshold; torch's symbolic
   * drops that.  From 20 up (the default) log1p(exp(-t)) / beta is below
   * float precision, so only a smaller threshold needs the Where. */
  if (threshold < 20.0)
    sp = graph_op (G, "Where", graph_op (G, "Greater", bx, sym_scalar_like (ctx, threshold, self), NULL),
                   self, sp, NULL);
  out[0] = sp;
  return TRUE;
}

/* aten::pixel_shuffle(self, upscale_factor) on a static 4-D input:
 * Reshape → Transpose → Reshape (torch's static-shape path). */
static gboolean
sym_pixel_shuffle (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 r;
  if (!sym_parse_args (ctx, n, "vi", &self, &r, error))
    return FALSE;
  gint64 d[TENSOR_MAX_RANK];
  if (r <= 0 || r > (1 << 20))
    /* torch 1.13: also refuses (PyTorch rejects a factor of 0 or less; larger than any dim here) */
    return sym_unimplemented (ctx, n, error, "pixel_shuffle factor %" G_GINT64_FORMAT, r);
  if (sym_rank (self) != 4)
    /* torch 1.13: also refuses (_unimplemented: only a 4-D input) */
    return sym_unimplemented (ctx, n, error, "pixel_shuffle of a non-4-D input");
  if (sym_static_dims (self, d) != 4 || d[1] < 0 || d[2] < 0 || d[3] < 0)
    {
      /* dynamic C, H, W: the sizes read at run time */
      out[0] = sym_pixel_shuffle_dynamic (ctx, self, r, FALSE);
      return TRUE;
    }
  d[0] = -1;   /* the batch, static or not, as torch writes it */
  gint64 oc = d[1] / r / r;
  const gint64 s1[] = { d[0], oc, r, r, d[2], d[3] };
  static const gint64 perm[] = { 0, 1, 4, 2, 5, 3 };
  const gint64 s2[] = { d[0], oc, d[2] * r, d[3] * r };
  GraphValue *v = sym_reshape_static (ctx, self, 6, s1);
  v = graph_op (G, "Transpose", v, "perm_is", 6, perm, NULL);
  out[0] = sym_reshape_static (ctx, v, 4, s2);
  return TRUE;
}

/* aten::instance_norm(input, weight, bias, running_mean, running_var,
 *   use_input_stats, momentum, eps, cudnn).  With use_input_stats false (an
 * InstanceNorm with track_running_stats in eval mode) PyTorch normalises
 * with the running statistics, per channel: a BatchNormalization (torch
 * writes the same through a [1, N·C, ...] reshape).  With input stats, an
 * InstanceNormalization (the running statistics' update is a side effect
 * that is not an output). */
static gboolean
sym_instance_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *weight, *bias, *mean, *var;
  gboolean use_input_stats = TRUE;
  double eps;
  if (!sym_parse_args (ctx, n, "v,v,v,v,v,b,none,f", &input, &weight, &bias, &mean, &var,
                       &use_input_stats, &eps, error))
    return FALSE;
  if (weight == NULL || bias == NULL)
    {
      gint64 d[TENSOR_MAX_RANK];
      GraphDType dt = sym_dtype (input);
      if (sym_static_dims (input, d) < 2 || d[1] < 0)
        /* torch 1.13: also refuses ("Unsupported: ONNX export of instance_norm for unknown channel
         * size") */
        return sym_unimplemented (ctx, n, error, "instance_norm without weights on an input of unknown channels");
      if (dt != GRAPH_DTYPE_FLOAT && dt != GRAPH_DTYPE_DOUBLE && dt != GRAPH_DTYPE_FLOAT16)
        /* torch 1.13: also refuses (instance_norm is defined for floating types) */
        return sym_unimplemented (ctx, n, error, "instance_norm without weights of this element type");
      if (weight == NULL)
        weight = sym_const_filled (ctx, 1, &d[1], dt, 1.0);
      if (bias == NULL)
        bias = sym_const_filled (ctx, 1, &d[1], dt, 0.0);
    }
  if (!use_input_stats)
    {
      if (mean == NULL || var == NULL)
        /* torch 1.13: also refuses (PyTorch requires running statistics when use_input_stats is false) */
        return sym_unimplemented (ctx, n, error, "use_input_stats=False without running statistics");
      out[0] = graph_op (G, "BatchNormalization", input, weight, bias, mean, var, "epsilon_f", eps, NULL);
      return TRUE;
    }
  out[0] = graph_op (G, "InstanceNormalization", input, weight, bias, "epsilon_f", eps, NULL);
  return TRUE;
}

/* A 1-D constant of `n` copies of v, float or double. */
static GraphValue *
filled (SymContext *ctx, GraphDType dt, gint64 n, double v)
{
  g_autoptr (Tensor) t = tensor_new_zeroed (dt, 1, &n, NULL);
  for (gint64 i = 0; i < n; i++)
    {
      if (dt == GRAPH_DTYPE_DOUBLE)
        ((double *) tensor_data (t))[i] = v;
      else
        ((float *) tensor_data (t))[i] = (float) v;
    }
  return sym_constant (ctx, t);
}

/* aten::group_norm(input, num_groups, weight, bias, eps, cudnn_enabled), as
 * torch 1.13 exports it: InstanceNormalization over [N, groups, -1] with
 * unit scale, reshaped back to the input's shape, then * weight + bias with
 * the channel axis broadcast over the spatial ones. */
static gboolean
sym_group_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *weight, *bias;
  gint64 groups;
  double eps;
  if (!sym_parse_args (ctx, n, "v,i,v,v,f", &input, &groups, &weight, &bias, &eps, error))
    return FALSE;
  int r = sym_rank (input);
  if (r < 2)
    /* torch 1.13: also refuses (_unimplemented "group_norm: unknown input rank") */
    return sym_unimplemented (ctx, n, error, "group_norm: unknown input rank");
  GraphDType dt = sym_dtype (input) == GRAPH_DTYPE_DOUBLE ? GRAPH_DTYPE_DOUBLE : GRAPH_DTYPE_FLOAT;
  if (groups <= 0)
    /* torch 1.13: also refuses (PyTorch rejects 0 or fewer groups) */
    return sym_unimplemented (ctx, n, error, "group_norm: %" G_GINT64_FORMAT " groups", groups);
  gint64 shape[3] = { 0, groups, -1 };
  GraphValue *grouped = sym_reshape (ctx, input, sym_const_ints (ctx, 3, shape));
  GraphValue *unit_scale = filled (ctx, dt, groups, 1.0);   /* made in torch's order */
  GraphValue *zero_bias = filled (ctx, dt, groups, 0.0);
  GraphValue *norm = graph_op (G, "InstanceNormalization", grouped, unit_scale, zero_bias,
                               "epsilon_f", eps, NULL);
  norm = sym_reshape (ctx, norm, graph_op (G, "Shape", input, NULL));
  if (weight == NULL)
    weight = filled (ctx, dt, 1, 1.0);
  if (bias == NULL)
    bias = filled (ctx, dt, 1, 0.0);
  gint64 axes[TENSOR_MAX_RANK];
  for (int i = 1; i < r - 1; i++)
    axes[i - 1] = i;
  if (r > 2)
    {
      weight = sym_unsqueeze (ctx, weight, (gsize) r - 2, axes);
      bias = sym_unsqueeze (ctx, bias, (gsize) r - 2, axes);
    }
  out[0] = graph_op (G, "Add", graph_op (G, "Mul", norm, weight, NULL), bias, NULL);
  return TRUE;
}

/* aten::constant_pad_nd(self, pad, value) at opset 9 (attributes).
 * torch's pad list is last-dim-first pairs; ONNX wants all begins then
 * all ends, first dim first. */
gboolean sym_pads_from_torch (SymContext *ctx, GraphNode *n, GraphValue *self, gsize np,
                              const gint64 *pad, gint64 *pads, int *rank, GError **error);

gboolean
sym_pads_from_torch (SymContext *ctx, GraphNode *n, GraphValue *self, gsize np, const gint64 *pad,
                     gint64 *pads, int *rank, GError **error)
{
  int r = sym_rank (self);
  if (r < 0 || np % 2 != 0 || np / 2 > (gsize) r)
    /* torch 1.13: also refuses (its pad conversion needs the input's rank; PyTorch rejects odd or
     * too many pads) */
    return sym_unimplemented (ctx, n, error, "padding an input of unknown rank");
  for (int i = 0; i < 2 * r; i++)
    pads[i] = 0;
  for (gsize i = 0; i < np / 2; i++)
    {
      pads[r - 1 - (int) i] = pad[2 * i];
      pads[2 * r - 1 - (int) i] = pad[2 * i + 1];
    }
  *rank = r;
  return TRUE;
}

/* The ONNX pads for torch's pad list (input 1 of n): constant → *pads
 * (and *pv a constant from opset 11); a list computed at run time (swin's
 * `(window - W % window) % window`) → *pv reorders it with one Gather
 * (from opset 11, where Pad takes its pads as an input; constant folding
 * makes it a constant again when the shapes are static).  *pads is then
 * unset. */
static gboolean
onnx_pads (SymContext *ctx, GraphNode *n, GraphValue *self, GraphValue **pv, gint64 *pads, int *rank,
           GError **error)
{
  GraphValue *src = graph_node_n_inputs (n) > 1 ? graph_node_input (n, 1) : NULL;
  g_autoptr (GArray) pad = src ? sym_get_const_ints (src) : NULL;
  if (pad)
    {
      if (!sym_pads_from_torch (ctx, n, self, pad->len, (const gint64 *) pad->data, pads, rank, error))
        return FALSE;
      *pv = sym_opset (ctx) >= 11 ? sym_const_ints (ctx, 2 * (gsize) *rank, pads) : NULL;
      return TRUE;
    }
  GraphNode *lc = src ? graph_value_node (src) : NULL;
  int r = sym_rank (self);
  g_autoptr (GArray) folded = sym_opset (ctx) < 11 && src ? sym_traced_ints (ctx, src) : NULL;
  if (folded)
    {
      /* static sizes (a buffer's: self.weight.shape[0]; Note [Traced sizes
       * folded]), as torch's constant folding makes them constants
       * (PyTorch's suite, test_gather_constant_fold at opset 9) */
      *pv = NULL;
      return sym_pads_from_torch (ctx, n, self, folded->len, (const gint64 *) folded->data, pads, rank, error);
    }
  if (sym_opset (ctx) < 11)
    /* torch 1.13: also refuses (_onnx_opset_unsupported_detailed "Pad": sizes must be constant
     * before opset 11) */
    return sym_unimplemented (ctx, n, error, "a pad list computed at run time (from opset 11)");
  if (lc == NULL || !graph_node_is (lc, "prim::ListConstruct") || r < 0)
    /* torch 1.13: exports a pad list of run-time length (ConcatFromSequence, Shape arithmetic) when
     * the rank is known; not yet here */
    return sym_unimplemented (ctx, n, error, "a pad list of unknown length");
  guint np = graph_node_n_inputs (lc);
  if (np % 2 != 0 || np / 2 > (guint) r)
    /* torch 1.13: also refuses (PyTorch rejects odd or too many pads) */
    return sym_unimplemented (ctx, n, error, "%u pads for a rank-%d input", np, r);
  GraphValue *v = sym_value (ctx, src, error);
  if (v == NULL)
    return FALSE;
  static const gint64 zero[] = { 0 };
  GraphValue *ext = graph_op (G, "Concat", v, sym_const_ints (ctx, 1, zero), "axis_i", (gint64) 0, NULL);
  gint64 idx[2 * TENSOR_MAX_RANK];
  for (int d = 0; d < r; d++)
    {
      guint j = (guint) (r - 1 - d);   /* torch lists the last dim first */
      idx[d] = j < np / 2 ? 2 * j : np;
      idx[r + d] = j < np / 2 ? 2 * j + 1 : np;
    }
  *pv = graph_op (G, "Gather", ext, sym_const_ints (ctx, 2 * (gsize) r, idx), "axis_i", (gint64) 0, NULL);
  *rank = r;
  return TRUE;
}

/* Pad-2 (before opset 11, pads as an attribute) takes float types only:
 * an integer of at most 32 bits is padded as double and cast back, exactly
 * (torch 1.13 writes an integer Pad-2, which the checker refuses:
 * PyTorch's suite, test_pad_int at opset 9); int64 would lose digits
 * past 2^53: refused.  NULL with an error when refused. */
static GraphValue *
pad_attr_form (SymContext *ctx, GraphNode *n, GraphValue *self, const char *mode, int r, const gint64 *pads,
               double value, GError **error)
{
  GraphDType dt = sym_dtype (self);
  gboolean cast = dt != GRAPH_DTYPE_UNDEFINED && !graph_dtype_is_floating (dt);
  if (cast && (dt == GRAPH_DTYPE_INT64 || dt == GRAPH_DTYPE_UINT64))
    {
      /* torch 1.13: exports an int64 Pad-2, which ONNX does not define (float types only); refused
       * here because a round trip through double would change values past 2^53 */
      sym_unimplemented (ctx, n, error, "padding an int64 tensor before opset 11 (Pad takes float types)");
      return NULL;
    }
  GraphValue *x = cast ? sym_cast (ctx, self, GRAPH_DTYPE_DOUBLE) : self;
  GraphValue *y = strcmp (mode, "constant") == 0
                    ? graph_op (G, "Pad", x, "mode_s", mode, "pads_is", 2 * r, pads, "value_f", value, NULL)
                    : graph_op (G, "Pad", x, "mode_s", mode, "pads_is", 2 * r, pads, NULL);
  if (y && cast)
    {
      sym_set_type (y, GRAPH_DTYPE_DOUBLE, r, NULL);
      y = sym_cast (ctx, y, dt);
    }
  return y;
}

/* Pad(self, pad) in constant mode, the value at input `value_index`
 * (absent or None: 0), in the form the target opset wants. */
static gboolean
constant_pad (SymContext *ctx, GraphNode *n, guint value_index, GraphValue **out, GError **error)
{
  GraphValue *self;
  double value = 0.0;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > value_index && !sym_is_none (graph_node_input (n, value_index)))
    {
      g_autoptr (GString) spec = g_string_new (NULL);
      for (guint i = 0; i < value_index; i++)
        g_string_append (spec, "none,");
      g_string_append_c (spec, 'f');
      if (!sym_parse_args (ctx, n, spec->str, &value, error))
        return FALSE;
    }
  gint64 pads[2 * TENSOR_MAX_RANK];
  int r;
  GraphValue *pv;
  if (!onnx_pads (ctx, n, self, &pv, pads, &r, error))
    return FALSE;
  if (sym_opset (ctx) >= 11)
    out[0] = graph_op (G, "Pad", self, pv, sym_scalar_like (ctx, value, self), "mode_s", "constant", NULL);
  else
    out[0] = pad_attr_form (ctx, n, self, "constant", r, pads, value, error);
  return out[0] != NULL;
}

static gboolean
sym_constant_pad_nd (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return constant_pad (ctx, n, 2, out, error);
}

/* aten::pad(self, pad, mode, value) (torch 1.13 traces F.pad this way) */
static gboolean mode_pad (SymContext *ctx, GraphNode *n, const char *onnx_mode, GraphValue **out,
                          GError **error);

/* mode 'circular' (aten::pad, aten::_pad_circular): along each padded
 * dim, a negative pad first crops that many elements off its side; then
 * the last `left` elements of what is left, it, and its first `right`
 * (Slice, Concat), one dim after the other so that the corners wrap in
 * both — what PyTorch's _pad_circular computes.  torch 1.13's symbolic
 * swaps each dim's two pads and starts the left slice one element early
 * (other numbers: the wrong-results cases pad_circular_2d/3d). */
static gboolean
circular_pad (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  g_autoptr (GArray) pad = sym_get_const_ints (graph_node_input (n, 1));
  int r = sym_rank (self);
  if (pad == NULL || r < 0 || pad->len % 2 != 0 || pad->len / 2 > (guint) r)
    /* torch 1.13: also refuses (_convert_padding_node needs constant pads, its loop the rank) */
    return sym_unimplemented (ctx, n, error, "circular padding with pads that are not constant, "
                              "or of an input of unknown rank");
  GraphValue *cur = self;
  for (guint i = 0; i < pad->len / 2; i++)
    {
      gint64 left = g_array_index (pad, gint64, 2 * i), right = g_array_index (pad, gint64, 2 * i + 1);
      gint64 axis = r - 1 - (gint64) i;   /* torch lists the last dim first */
      gint64 size = sym_static_dim_size (self, axis);
      gint64 crop_l = left < 0 ? -left : 0, crop_r = right < 0 ? -right : 0;
      gint64 kept = size - crop_l - crop_r;   /* what the wraps copy from */
      if ((crop_l || crop_r) && size < 0)
        /* torch 1.13: crops with its (shifted) slices whatever the size; refused here because
         * PyTorch's limits on negative pads need the dim's size */
        return sym_unimplemented (ctx, n, error, "negative circular padding of a dim whose size is "
                                  "not static");
      if (left < -G_MAXINT32 || right < -G_MAXINT32
          || (size >= 0 && (left > size || right > size || kept < 0
                            || ((left > 0 || right > 0) && (left > kept || right > kept)))))
        /* torch 1.13: exports it with wrong slices (see above); refused here because PyTorch
         * refuses it too (a pad wraps around more than once, or empties the dim) or reads
         * elements it is writing */
        return sym_unimplemented (ctx, n, error, "circular padding by %" G_GINT64_FORMAT " and %"
                                  G_GINT64_FORMAT " of a dim of size %" G_GINT64_FORMAT
                                  " (it wraps around more than once, or crops the dim away)",
                                  left, right, size);
      if (crop_l || crop_r)
        {
          gint64 end = crop_r ? -crop_r : G_MAXINT64;
          cur = sym_slice (ctx, cur, 1, &axis, &crop_l, &end, NULL);
        }
      GraphValue *parts[3];
      guint k = 0;
      if (left > 0)
        parts[k++] = sym_slice (ctx, cur, 1, &axis, (gint64[]) { -left }, (gint64[]) { G_MAXINT64 },
                                NULL);
      parts[k++] = cur;
      if (right > 0)
        parts[k++] = sym_slice (ctx, cur, 1, &axis, (gint64[]) { 0 }, &right, NULL);
      if (k > 1)
        cur = graph_opv (G, "Concat", k, parts, "axis_i", axis, NULL);
    }
  out[0] = cur;
  return TRUE;
}

/* aten::_pad_circular(self, pad): PyTorch pads every dim after the first
 * two (batch and channels), so pad has 2 · (rank - 2) entries. */
static gboolean
sym_pad_circular (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  g_autoptr (GArray) pad = sym_get_const_ints (graph_node_input (n, 1));
  GraphValue *src = graph_node_input (n, 0);
  GraphType *t = graph_value_type (src);
  int r = t && graph_type_is_tensor (t) ? graph_type_rank (t) : -1;
  if (pad != NULL && r >= 0 && (r < 3 || pad->len != 2 * (guint) (r - 2)))
    {
      g_autofree char *where = sym_node_location (n);
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "aten::_pad_circular (%s): %u pads for an "
                   "input of rank %d (PyTorch takes 2 per dim after the first two)", where, pad->len,
                   r);
      return FALSE;
    }
  return circular_pad (ctx, n, out, error);
}

static gboolean
sym_pad (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *mode = "constant";
  if (graph_node_n_inputs (n) > 2 && !sym_parse_args (ctx, n, "none,none,s", &mode, error))
    return FALSE;
  if (strcmp (mode, "constant") == 0)
    return constant_pad (ctx, n, 3, out, error);   /* value after the mode */
  if (strcmp (mode, "circular") == 0)
    return circular_pad (ctx, n, out, error);
  const char *onnx_mode = strcmp (mode, "reflect") == 0 ? "reflect"
                          : strcmp (mode, "replicate") == 0 ? "edge" : NULL;
  if (onnx_mode == NULL)
    /* torch 1.13: also refuses ("Unrecognized padding mode": PyTorch has no other mode) */
    return sym_unimplemented (ctx, n, error, "padding mode '%s'", mode);
  return mode_pad (ctx, n, onnx_mode, out, error);
}

/* aten::reflection_pad{1,2,3}d / replication_pad{1,2,3}d(input, padding) */
static gboolean
sym_reflection_pad (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return mode_pad (ctx, n, "reflect", out, error);
}

static gboolean
sym_replication_pad (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return mode_pad (ctx, n, "edge", out, error);
}

/* Pad in a non-constant ONNX mode with torch's (input, pad[]) arguments. */
static gboolean
mode_pad (SymContext *ctx, GraphNode *n, const char *onnx_mode, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  gint64 pads[2 * TENSOR_MAX_RANK];
  int r;
  GraphValue *pv;
  if (!onnx_pads (ctx, n, self, &pv, pads, &r, error))
    return FALSE;
  if (sym_opset (ctx) >= 11)
    out[0] = graph_op (G, "Pad", self, pv, "mode_s", onnx_mode, NULL);
  else
    out[0] = pad_attr_form (ctx, n, self, onnx_mode, r, pads, 0.0, error);
  return out[0] != NULL;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::pad", sym_pad),
  SYM_FN ("aten::_pad_circular", sym_pad_circular),
  SYM_FN ("aten::reflection_pad1d", sym_reflection_pad),
  SYM_FN ("aten::reflection_pad2d", sym_reflection_pad),
  SYM_FN ("aten::reflection_pad3d", sym_reflection_pad),
  SYM_FN ("aten::replication_pad1d", sym_replication_pad),
  SYM_FN ("aten::replication_pad2d", sym_replication_pad),
  SYM_FN ("aten::replication_pad3d", sym_replication_pad),
  SYM_FN ("aten::_convolution", sym__convolution),
  SYM_FN ("aten::convolution", sym__convolution),
  SYM_FN ("aten::conv_transpose1d", sym_conv),
  SYM_FN ("aten::conv_transpose2d", sym_conv),
  SYM_FN ("aten::conv_transpose3d", sym_conv),
  SYM_FN ("aten::conv1d", sym_conv),
  SYM_FN ("aten::conv2d", sym_conv),
  SYM_FN ("aten::conv3d", sym_conv),
  SYM_FN ("aten::batch_norm", sym_batch_norm),
  SYM_FN ("aten::layer_norm", sym_layer_norm_any),
  SYM_FN ("aten::instance_norm", sym_instance_norm),
  SYM_FN ("aten::group_norm", sym_group_norm),
  SYM_FN ("aten::max_pool1d", sym_max_pool),
  SYM_FN ("aten::max_pool2d", sym_max_pool),
  SYM_FN ("aten::max_pool3d", sym_max_pool),
  SYM_FN ("aten::max_pool1d_with_indices", sym_max_pool),
  SYM_FN ("aten::max_pool2d_with_indices", sym_max_pool),
  SYM_FN ("aten::max_pool3d_with_indices", sym_max_pool),
  SYM_FN ("aten::avg_pool1d", sym_avg_pool),
  SYM_FN ("aten::avg_pool2d", sym_avg_pool),
  SYM_FN ("aten::avg_pool3d", sym_avg_pool),
  SYM_FN ("aten::adaptive_avg_pool1d", sym_adaptive_avg_pool),
  SYM_FN ("aten::adaptive_avg_pool2d", sym_adaptive_avg_pool),
  SYM_FN ("aten::adaptive_avg_pool3d", sym_adaptive_avg_pool),
  SYM_FN ("aten::adaptive_max_pool1d", sym_adaptive_max_pool),
  SYM_FN ("aten::adaptive_max_pool2d", sym_adaptive_max_pool),
  SYM_FN ("aten::adaptive_max_pool3d", sym_adaptive_max_pool),
  SYM_FN ("aten::dropout", sym_dropout),
  SYM_FN ("aten::feature_dropout", sym_dropout),
  SYM_FN ("aten::alpha_dropout", sym_dropout),
  SYM_FN ("aten::feature_alpha_dropout", sym_dropout),
  SYM_FN ("aten::embedding", sym_embedding),
  SYM_FN ("aten::softmax", sym_softmax),
  SYM_FN ("aten::log_softmax", sym_log_softmax),
  SYM_FN ("aten::elu", sym_elu),
  SYM_FN ("aten::selu", sym_selu),
  SYM_FN ("aten::leaky_relu", sym_leaky_relu),
  SYM_FN ("aten::threshold", sym_threshold),
  SYM_FN ("aten::glu", sym_glu),
  SYM_FN ("aten::hardtanh", sym_hardtanh),
  SYM_FN ("aten::relu6", sym_relu6),
  SYM_FN ("aten::gelu", sym_gelu),
  SYM_FN ("aten::silu", sym_silu),
  SYM_FN ("aten::hardsigmoid", sym_hardsigmoid),
  SYM_FN ("aten::hardswish", sym_hardswish),
  SYM_FN ("aten::softplus", sym_softplus),
  SYM_FN ("aten::pixel_shuffle", sym_pixel_shuffle),
  SYM_FN ("aten::constant_pad_nd", sym_constant_pad_nd),
};
const SymTable sym_opset9_nn = SYM_TABLE (9, entries);
