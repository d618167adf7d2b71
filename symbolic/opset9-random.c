/* Random ops (issue 12): rand, randn, rand_like, randn_like, bernoulli,
 * multinomial, rrelu, native_dropout and normal, as torch 1.13's
 * symbolic_opset9/11/12.py write them (RandomUniform,
 * RandomNormal and their *Like forms, Multinomial, Dropout with its
 * training_mode input).  Where torch's export computes another function
 * than PyTorch, ours follows PyTorch and the comment says so (see the
 * differences in doc/symbolic.md).  Their values cannot be compared with
 * PyTorch's: tests/symbolic compares the output shapes and types. */
#include "symbolic/opset-tables.h"
#include <string.h>

#define G sym_graph (ctx)

/* The element type of n's output 0 as the trace declares it, the default
 * dtype when unknown: a random op's dtype argument when it is None (torch
 * writes FLOAT there, which for rand_like of a double tensor is not
 * PyTorch's type). */
static GraphDType
output_dtype (SymContext *ctx, GraphNode *n, guint dtype_input)
{
  GraphDType traced = sym_dtype (graph_node_output (n, 0));
  GraphDType dflt = graph_dtype_is_floating (traced) ? traced : sym_default_dtype (ctx);
  return sym_scalar_type (dtype_input < graph_node_n_inputs (n) ? graph_node_input (n, dtype_input) : NULL,
                          dflt);
}

/* aten::rand/randn(size, dtype, layout, device, pin_memory): RandomUniform
 * or RandomNormal with a constant shape, else ConstantOfShape(size) and the
 * *Like op, as torch. */
static gboolean
sym_rand_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);   /* "RandomUniform" / "RandomNormal" */
  GraphDType dt = output_dtype (ctx, n, 1);
  g_autoptr (GArray) shape = sym_get_const_ints (graph_node_input (n, 0));
  if (shape != NULL)
    {
      out[0] = graph_op (G, op, "shape_is", (int) shape->len, (const gint64 *) shape->data,
                         "dtype_i", (gint64) dt, NULL);
      return TRUE;
    }
  GraphValue *size = sym_value (ctx, graph_node_input (n, 0), error);
  if (size == NULL)
    /* torch 1.13: also refuses (PyTorch's rand/randn need a size) */
    return *error ? FALSE : sym_unimplemented (ctx, n, error, "a size of None");
  g_autofree char *like = g_strconcat (op, "Like", NULL);
  out[0] = graph_op (G, like, sym_constant_of_shape (ctx, size, GRAPH_DTYPE_FLOAT, 0.0),
                     "dtype_i", (gint64) dt, NULL);
  return TRUE;
}

/* aten::rand_like/randn_like(self, dtype, layout, device, pin_memory,
 * memory_format): RandomUniformLike/RandomNormalLike of self.  A None
 * dtype is the trace's output type (self's; torch writes FLOAT). */
static gboolean
sym_rand_like_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);   /* "RandomUniformLike" / "RandomNormalLike" */
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, op, self, "dtype_i", (gint64) output_dtype (ctx, n, 1), NULL);
  return TRUE;
}

/* aten::bernoulli(self, generator): Cast(RandomUniformLike(self) < self).
 * aten::bernoulli.p(self, p, generator) (x.bernoulli(0.3)), which torch
 * refuses, the same with the constant p in place of self. */
static gboolean
sym_bernoulli (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  guint n_in = graph_node_n_inputs (n);
  GraphValue *p = self;
  double pv;
  if (n_in >= 3)
    {
      if (!sym_get_const_double (graph_node_input (n, 1), &pv))
        /* torch 1.13: exports a computed p as Less(RandomUniformLike(self), p); not yet here */
        return sym_unimplemented (ctx, n, error, "bernoulli with a computed probability");
      p = sym_scalar_like (ctx, pv, self);
    }
  if (n_in >= 2 && !sym_is_none (graph_node_input (n, n_in - 1)))
    /* torch 1.13: also refuses (_unimplemented "Bernoulli: generator is not supported") */
    return sym_unimplemented (ctx, n, error, "bernoulli with a generator");
  GraphDType dt = sym_dtype (self);
  if (!graph_dtype_is_floating (dt))
    /* torch 1.13: also refuses ("input dtype not accessible"; PyTorch's bernoulli needs a floating
     * input) */
    return sym_unimplemented (ctx, n, error, "bernoulli of an input whose type is unknown or not floating");
  GraphValue *r = graph_op (G, "RandomUniformLike", self, "dtype_i", (gint64) dt, "high_f", 1.0,
                            "low_f", 0.0, NULL);
  out[0] = graph_op (G, "Cast", graph_op (G, "Less", r, p, NULL), "to_i", (gint64) dt, NULL);
  return TRUE;
}

/* aten::multinomial(self, num_samples, replacement, generator):
 * Multinomial of Log(self), int64 samples; without replacement only one
 * sample (Multinomial draws with replacement). */
static gboolean
sym_multinomial (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 samples;
  gboolean replacement;
  if (!sym_parse_args (ctx, n, "v,i,b", &self, &samples, &replacement, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 3 && !sym_is_none (graph_node_input (n, 3)))
    /* torch 1.13: also refuses (_unimplemented "Multinomial: generator is not supported") */
    return sym_unimplemented (ctx, n, error, "multinomial with a generator");
  if (!replacement && samples > 1)
    /* torch 1.13: also refuses (_unimplemented "replacement=False when num_samples > 1") */
    return sym_unimplemented (ctx, n, error, "multinomial without replacement of more than one sample "
                              "(ONNX's Multinomial draws with replacement)");
  if (samples < 1)
    /* torch 1.13: also refuses (PyTorch rejects fewer than one sample) */
    return sym_unimplemented (ctx, n, error, "multinomial of %" G_GINT64_FORMAT " samples", samples);
  out[0] = graph_op (G, "Multinomial", graph_op (G, "Log", self, NULL), "dtype_i", (gint64) GRAPH_DTYPE_INT64,
                     "sample_size_i", samples, NULL);
  return TRUE;
}

/* aten::rrelu(self, lower, upper, training, generator): LeakyRelu with the
 * mean slope in eval mode; in training, PRelu with slopes drawn from
 * RandomUniformLike(self, low=lower, high=upper). */
static gboolean
sym_rrelu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double lower, upper;
  gboolean training;
  if (!sym_parse_args (ctx, n, "v,f,f,b", &self, &lower, &upper, &training, error))
    return FALSE;
  if (!training)
    {
      out[0] = graph_op (G, "LeakyRelu", self, "alpha_f", (upper + lower) / 2.0, NULL);
      return TRUE;
    }
  GraphValue *slope = graph_op (G, "RandomUniformLike", self, "high_f", upper, "low_f", lower, NULL);
  out[0] = graph_op (G, "PRelu", self, slope, NULL);
  return TRUE;
}

/* aten::native_dropout(input, p, train) -> (output, mask).  Eval: the
 * input, and (when used; torch has none) an all-true mask.  Training, from
 * opset 12 (Dropout's training_mode input): Dropout(input, p, true) with
 * both outputs, as torch's symbolic_opset12.py.  torch registers it from
 * 12; the eval form here works at every opset. */
static gboolean
sym_native_dropout (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input;
  double p;
  gboolean train;
  if (!sym_parse_args (ctx, n, "v,f,b", &input, &p, &train, error))
    return FALSE;
  gboolean mask_used = graph_node_n_outputs (n) > 1 && graph_value_n_uses (graph_node_output (n, 1)) > 0;
  if (!train || p == 0.0)
    {
      /* eval, or p = 0 (F.dropout's default training=True in Swin's
       * attention): the identity, every element kept */
      out[0] = input;
      if (mask_used)
        out[1] = sym_constant_of_shape (ctx, graph_op (G, "Shape", input, NULL), GRAPH_DTYPE_BOOL, 1.0);
      return TRUE;
    }
  if (sym_opset (ctx) < 12)
    /* torch 1.13: writes an inference Dropout (the identity) before opset 12; refused here because
     * the identity is another function */
    return sym_unimplemented (ctx, n, error, "training-mode dropout before opset 12 (Dropout has no "
                              "training_mode input)");
  GraphDType dt = sym_dtype (input);
  GraphValue *ratio = sym_const_scalar (ctx, graph_dtype_is_floating (dt) ? dt : GRAPH_DTYPE_FLOAT, p);
  GraphValue *t = sym_const_scalar (ctx, GRAPH_DTYPE_BOOL, 1.0);
  GraphNode *d = graph_op_outputs (G, "Dropout", 2, input, ratio, t, NULL);
  if (d == NULL)
    return FALSE;
  out[0] = graph_node_output (d, 0);
  if (graph_node_n_outputs (n) > 1)   /* native_dropout's mask (aten::dropout has none) */
    out[1] = graph_node_output (d, 1);
  return TRUE;
}

/* A 0-d constant of dt for a Python number argument (float, int), else NULL. */
static GraphValue *
python_number (SymContext *ctx, GraphValue *src, GraphDType dt)
{
  double c;
  GraphType *t = sym_type (src);
  if (t == NULL || graph_type_is_tensor (t) || !sym_get_const_double (src, &c))
    return NULL;
  return sym_const_scalar (ctx, dt, c);
}

/* aten::normal (torch: opset 11; ours from 9): mean + std · RandomNormalLike(mean), mean first
 * expanded to `size` when given, as torch.  Ours differs where torch's
 * export is not PyTorch's function: the samples are drawn in the shape of
 * the result (torch draws them in mean's shape, so a float mean with a
 * tensor std gave every element the same sample), and in the result's
 * type (torch's float/float form computed in double). */
static gboolean
sym_normal (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  guint n_in = graph_node_n_inputs (n);
  GraphValue *rm = graph_node_input (n, 0), *rs = graph_node_input (n, 1);
  GraphValue *res = graph_node_output (n, 0);
  GraphDType dt = sym_dtype (res);
  if (!graph_dtype_is_floating (dt))
    /* torch 1.13: writes RandomNormalLike of mean whatever its type; refused here because the
     * result type cannot be checked (PyTorch rejects integer results) */
    return sym_unimplemented (ctx, n, error, "normal with a result of unknown or non-floating type");
  /* Python numbers become constants of the result's type */
  GraphValue *mean = python_number (ctx, rm, dt), *std = python_number (ctx, rs, dt);
  if (mean == NULL && (mean = sym_value (ctx, rm, error)) == NULL)
    /* torch 1.13: also refuses (a None mean has no ONNX value) */
    return *error ? FALSE : sym_unimplemented (ctx, n, error, "a mean of None");
  if (std == NULL && (std = sym_value (ctx, rs, error)) == NULL)
    /* torch 1.13: also refuses (a None std has no ONNX value) */
    return *error ? FALSE : sym_unimplemented (ctx, n, error, "a std of None");
  if (n_in >= 8)   /* normal.float_float(mean, std, size, generator, dtype, ...) */
    {
      g_autoptr (GArray) size = sym_get_const_ints (graph_node_input (n, 2));
      if (size == NULL)
        /* torch 1.13: exports a computed size by expanding mean to it (Expand of a run-time shape);
         * not yet here */
        return sym_unimplemented (ctx, n, error, "normal with a computed size");
      mean = graph_op (G, "Expand", mean, sym_const_ints (ctx, size->len, (const gint64 *) size->data),
                       NULL);
    }
  else if (n_in >= 3 && !sym_is_none (graph_node_input (n, 2)))
    /* torch 1.13: ignores the generator; refused here because the model would not draw from the
     * user's seeded stream */
    return sym_unimplemented (ctx, n, error, "normal with a generator");
  GraphValue *like = mean;
  int r = sym_rank (res);
  gint64 od[TENSOR_MAX_RANK], md[TENSOR_MAX_RANK];
  if (r < 0 || !sym_static_shape (res, od))
    /* torch 1.13: exports it without the shape (RandomNormalLike of the expanded mean); not yet
     * here */
    return sym_unimplemented (ctx, n, error, "normal with a result of unknown shape");
  gboolean same = n_in >= 8 || (sym_rank (rm) == r && sym_static_shape (rm, md)
                                && memcmp (md, od, (gsize) r * sizeof (gint64)) == 0);
  if (!same)   /* mean broadcasts to the result: draw in the result's shape */
    like = graph_op (G, "Expand", mean, sym_const_ints (ctx, (gsize) r, od), NULL);
  GraphValue *noise = graph_op (G, "RandomNormalLike", like, NULL);
  out[0] = graph_op (G, "Add", graph_op (G, "Mul", std, noise, NULL), like, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_DATA ("aten::rand", sym_rand_any, "RandomUniform"),
  SYM_DATA ("aten::randn", sym_rand_any, "RandomNormal"),
  SYM_DATA ("aten::rand_like", sym_rand_like_any, "RandomUniformLike"),
  SYM_DATA ("aten::randn_like", sym_rand_like_any, "RandomNormalLike"),
  SYM_FN ("aten::bernoulli", sym_bernoulli),
  SYM_FN ("aten::multinomial", sym_multinomial),
  SYM_FN ("aten::rrelu", sym_rrelu),
  SYM_FN ("aten::native_dropout", sym_native_dropout),
  SYM_FN ("aten::normal", sym_normal),   /* torch: from 11; RandomNormalLike and Expand are older */
};
const SymTable sym_opset9_random = SYM_TABLE (9, entries);

/* aten::dropout(input, p, train) from 12, as torch's symbolic_opset12.py:
 * training-mode Dropout (before 12 the opset-9 symbolic declines a
 * training dropout, where torch writes an inference Dropout: no dropout). */
static const SymEntry entries12[] = {
  SYM_FN ("aten::dropout", sym_native_dropout),
};
const SymTable sym_opset12_random = SYM_TABLE (12, entries12);
