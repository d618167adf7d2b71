/* Random ops: RandomUniform, RandomNormal, RandomUniformLike,
 * RandomNormalLike, Bernoulli, Multinomial, and Dropout (whose training
 * mode draws its mask).
 *
 * Each call draws from its own GLib Mersenne Twister (GRand): seeded with
 * the node's `seed` attribute when it has one, so that a seeded node gives
 * the same values on every run, from /dev/urandom otherwise.  Values are
 * drawn in double and converted to the output type (float, double,
 * float16). */
#include "runtime/kernels-private.h"
#include <math.h>
#include <string.h>

GRand *
rt_random_new (const RtCall *call)
{
  double seed;
  if (graph_node_get_f (call->node, "seed", &seed))
    return g_rand_new_with_seed ((guint32) graph_double_to_int64 (seed));   /* total: NaN, huge */
  return g_rand_new ();
}

/* Box-Muller; 1 − u keeps the log finite. */
double
rt_random_normal (GRand *r)
{
  double u1 = 1.0 - g_rand_double (r), u2 = g_rand_double (r);
  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

gboolean
rt_random_fill (RtCall *call, RtTensor *o, RtDrawFn fn, gpointer data, GError **error)
{
  double *v = rt_call_scratch (call, (gsize) MAX (o->numel, 1) * sizeof (double), error);
  if (v == NULL)
    return FALSE;
  g_autoptr (GRand) r = rt_random_new (call);
  for (gint64 i = 0; i < o->numel; i++)
    v[i] = fn (r, i, data);
  return rt_convert (v, GRAPH_DTYPE_DOUBLE, o->data, o->dtype, o->numel);
}

typedef struct
{
  gboolean normal;
  double   a, b;
} Dist;

static double
draw_dist (GRand *r, gint64 i, gpointer data)
{
  const Dist *d = data;
  (void) i;
  return d->normal ? d->a + d->b * rt_random_normal (r) : d->a + (d->b - d->a) * g_rand_double (r);
}

gboolean
rt_random_dist (RtCall *call, RtTensor *o, gboolean normal, double a, double b, GError **error)
{
  Dist d = { normal, a, b };
  return rt_random_fill (call, o, draw_dist, &d, error);
}

typedef struct
{
  const RtTensor *p;
  double          scalar;   /* the probability when p is NULL */
} Coin;

static double
draw_coin (GRand *r, gint64 i, gpointer data)
{
  const Coin *c = data;
  return g_rand_double (r) < (c->p ? rt_get_f64 (c->p, i) : c->scalar) ? 1.0 : 0.0;
}

gboolean
rt_random_bernoulli (RtCall *call, const RtTensor *p, double scalar, RtTensor *o, GError **error)
{
  for (gint64 i = 0; i < (p ? p->numel : 1); i++)
    {
      double pi = p ? rt_get_f64 (p, i) : scalar;
      if (!(pi >= 0.0 && pi <= 1.0))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "probability %g (element %" G_GINT64_FORMAT
                         ") is outside [0, 1]", pi, i);
          return FALSE;
        }
    }
  Coin c = { p, scalar };
  return rt_random_fill (call, o, draw_coin, &c, error);
}

typedef struct
{
  const RtTensor *x;
  double          p, scale;
  guint8         *mask;
} Drop;

static double
draw_drop (GRand *r, gint64 i, gpointer data)
{
  const Drop *d = data;
  gboolean keep = g_rand_double (r) >= d->p;
  if (d->mask)
    d->mask[i] = (guint8) keep;
  return keep ? rt_get_f64 (d->x, i) * d->scale : 0.0;
}

gboolean
rt_random_dropout (RtCall *call, const RtTensor *x, double p, gboolean train, RtTensor *o, RtTensor *mask,
                   GError **error)
{
  if (train && !(p >= 0.0 && p <= 1.0))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "ratio %g is outside [0, 1]", p);
      return FALSE;
    }
  if (!train || p == 0.0)
    {
      memcpy (o->data, x->data, (gsize) x->numel * rt_dtype_size (x->dtype));
      if (mask)
        memset (mask->data, 1, (gsize) mask->numel);
      return TRUE;
    }
  Drop d = { x, p, p < 1.0 ? 1.0 / (1.0 - p) : 0.0, mask ? mask->data : NULL };
  return rt_random_fill (call, o, draw_drop, &d, error);
}

#define RT_DT_RANDOM (RT_DT_FLOATS | RT_DT (FLOAT16))

/* The `dtype` attribute (default dflt), which must be a floating type. */
static gboolean
random_dtype (RtCall *call, GraphDType dflt, GraphDType *out, GError **error)
{
  gint64 dt = rt_attr_i (call->node, "dtype", dflt);
  if (dt < 0 || dt > 31 || !(RT_DT_RANDOM & (1u << dt)))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "dtype %" G_GINT64_FORMAT
                     " is not float, double or float16", dt);
      return FALSE;
    }
  *out = (GraphDType) dt;
  return TRUE;
}

/* RandomUniform/RandomNormal (shape attribute) and their *Like forms
 * (input 0's shape; its type unless `dtype` is given).  .data: TRUE for
 * the normal ones. */
static gboolean
k_random (RtCall *call, GError **error)
{
  gboolean normal = GPOINTER_TO_INT (call->data);
  const RtTensor *like = call->n_inputs > 0 ? call->inputs[0] : NULL;
  guint rank;
  gint64 dims[RT_MAX_RANK];
  GraphDType dt;
  if (like)
    {
      rank = like->rank;
      memcpy (dims, like->dims, rank * sizeof (gint64));
      if (!random_dtype (call, like->dtype, &dt, error))
        return FALSE;
    }
  else
    {
      gsize len;
      const gint64 *shape;
      if (!rt_attr_ints (call->node, "shape", &len, &shape) || len > RT_MAX_RANK)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "missing attribute 'shape' (or rank above %d)",
                         RT_MAX_RANK);
          return FALSE;
        }
      for (gsize i = 0; i < len; i++)
        if (shape[i] < 0)
          {
            rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "negative dimension %" G_GINT64_FORMAT
                           " in 'shape'", shape[i]);
            return FALSE;
          }
      rank = (guint) len;
      memcpy (dims, shape, len * sizeof (gint64));
      if (!random_dtype (call, GRAPH_DTYPE_FLOAT, &dt, error))
        return FALSE;
    }
  double a = normal ? rt_attr_f (call->node, "mean", 0.0) : rt_attr_f (call->node, "low", 0.0);
  double b = normal ? rt_attr_f (call->node, "scale", 1.0) : rt_attr_f (call->node, "high", 1.0);
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  return o && rt_random_dist (call, o, normal, a, b, error);
}

/* Bernoulli (opset 15): 1 with probability input[i], in `dtype` (default
 * the input's type). */
static gboolean
k_bernoulli (RtCall *call, GError **error)
{
  const RtTensor *p = call->inputs[0];
  gint64 dt = rt_attr_i (call->node, "dtype", p->dtype);
  if (dt < 0 || dt > 31 || !((RT_DT_ALL | RT_DT (FLOAT16)) & (1u << dt)))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "dtype %" G_GINT64_FORMAT " is not numeric or bool", dt);
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, (GraphDType) dt, p->rank, p->dims, error);
  return o && rt_random_bernoulli (call, p, 0, o, error);
}

/* Multinomial (opset 7): input (batch, classes) of unnormalised log
 * probabilities; sample_size draws per row, with replacement, as int32
 * (default) or int64 class indices. */
static gboolean
k_multinomial (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  gint64 dt = rt_attr_i (call->node, "dtype", GRAPH_DTYPE_INT32);
  gint64 samples = rt_attr_i (call->node, "sample_size", 1);
  if (dt != GRAPH_DTYPE_INT32 && dt != GRAPH_DTYPE_INT64)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "dtype %" G_GINT64_FORMAT " is not int32 or int64", dt);
      return FALSE;
    }
  if (x->rank != 2 || samples < 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "input must be (batch, classes) and sample_size >= 0");
      return FALSE;
    }
  gint64 B = x->dims[0], C = x->dims[1], od[2] = { B, samples };
  RtTensor *o = rt_call_output (call, 0, (GraphDType) dt, 2, od, error);
  if (o == NULL)
    return FALSE;
  double *cum = rt_call_scratch (call, (gsize) MAX (C, 1) * sizeof (double), error);
  if (cum == NULL)
    return FALSE;
  g_autoptr (GRand) r = rt_random_new (call);
  for (gint64 b = 0; b < B; b++)
    {
      double m = -INFINITY, total = 0;
      for (gint64 c = 0; c < C; c++)
        m = fmax (m, rt_get_f64 (x, b * C + c));
      for (gint64 c = 0; c < C; c++)
        cum[c] = total += exp (rt_get_f64 (x, b * C + c) - m);
      if (C == 0 || !isfinite (m) || !(total > 0) || !isfinite (total))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "row %" G_GINT64_FORMAT " has no finite "
                         "positive probabilities", b);
          return FALSE;
        }
      for (gint64 s = 0; s < samples; s++)
        {
          double u = g_rand_double (r) * total;
          gint64 c = 0;
          while (c < C - 1 && !(u < cum[c]))
            c++;
          if (dt == GRAPH_DTYPE_INT32)
            ((gint32 *) o->data)[b * samples + s] = (gint32) c;
          else
            ((gint64 *) o->data)[b * samples + s] = c;
        }
    }
  return TRUE;
}

/* Dropout: the input (and an all-true mask) unless training_mode
 * (input 2, opset 12) is true; then each element is kept with probability
 * 1 − ratio (input 1, default 0.5) and scaled by 1 / (1 − ratio). */
static gboolean
k_dropout (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  const RtTensor *ratio = call->n_inputs > 1 ? call->inputs[1] : NULL;
  const RtTensor *training = call->n_inputs > 2 ? call->inputs[2] : NULL;
  gboolean train = training && training->numel == 1 && rt_get_i64 (training, 0) != 0;
  double p = ratio && ratio->numel == 1 ? rt_get_f64 (ratio, 0) : 0.5;
  RtTensor *o = rt_call_output_like (call, 0, x, error);
  RtTensor *m = o && call->n_outputs > 1
                ? rt_call_output (call, 1, GRAPH_DTYPE_BOOL, x->rank, x->dims, error) : NULL;
  if (o == NULL || (call->n_outputs > 1 && m == NULL))
    return FALSE;
  return rt_random_dropout (call, x, p, train, o, m, error);
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("RandomUniform", 1), RT_IN (0, 0), RT_OUT (1, 1), .run = k_random, .data = GINT_TO_POINTER (0) },
  { RT_ONNX ("RandomNormal", 1), RT_IN (0, 0), RT_OUT (1, 1), .run = k_random, .data = GINT_TO_POINTER (1) },
  { RT_ONNX ("RandomUniformLike", 1), RT_IN (1, 1), RT_OUT (1, 1), .run = k_random, .data = GINT_TO_POINTER (0) },
  { RT_ONNX ("RandomNormalLike", 1), RT_IN (1, 1), RT_OUT (1, 1), .run = k_random, .data = GINT_TO_POINTER (1) },
  { RT_ONNX ("Bernoulli", 15), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_bernoulli },
  { RT_ONNX ("Multinomial", 7), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_multinomial },
  { RT_ONNX ("Dropout", 1), RT_IN (1, 3), RT_OUT (1, 2), .dtypes = RT_DT_FLOATS, .run = k_dropout },
};

RT_KERNEL_TABLE (rt_kernels_random, defs);
