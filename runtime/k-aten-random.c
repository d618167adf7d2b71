/* ATen random ops: rand, randn, rand_like, randn_like, bernoulli,
 * multinomial, normal; training-mode native_dropout and rrelu draw here
 * too (k-aten-nn2.c).  Drawn with rt_random_new (k-random.c) in double and
 * stored in the result's type.  A Generator argument is ignored (a trace
 * or an ATen node carries none but None). */
#include "runtime/k-aten-private.h"
#include <math.h>

/* Output 0 of (dt, rank, dims) := U[0, 1), or N(0, 1) when normal. */
static gboolean
draw (RtCall *call, GraphDType dt, guint rank, const gint64 *dims, gboolean normal, GError **error)
{
  if (!graph_dtype_is_floating (dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "random values of type %s (not floating)",
                     rt_dtype_name (dt));
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  return o && rt_random_dist (call, o, normal, 0.0, 1.0, error);
}

/* rand/randn(size, dtype?, layout?, device?, pin_memory?) */
static gboolean
rand_sized (RtCall *call, gboolean normal, GError **error)
{
  guint rank;
  gint64 dims[RT_MAX_RANK];
  GraphDType dt;
  return aten_size_arg (call, 0, &rank, dims, error) && aten_dtype_arg (call, 1, GRAPH_DTYPE_FLOAT, &dt, error)
         && draw (call, dt, rank, dims, normal, error);
}

/* rand_like/randn_like(self, dtype?, ...): self's shape and type. */
static gboolean
rand_like (RtCall *call, gboolean normal, GError **error)
{
  const RtTensor *a;
  GraphDType dt;
  return aten_tensor_arg (call, 0, &a, error) && aten_dtype_arg (call, 1, a->dtype, &dt, error)
         && draw (call, dt, a->rank, a->dims, normal, error);
}

static gboolean a_rand (RtCall *c, GError **e) { return rand_sized (c, FALSE, e); }
static gboolean a_randn (RtCall *c, GError **e) { return rand_sized (c, TRUE, e); }
static gboolean a_rand_like (RtCall *c, GError **e) { return rand_like (c, FALSE, e); }
static gboolean a_randn_like (RtCall *c, GError **e) { return rand_like (c, TRUE, e); }

/* bernoulli(self, generator?) — 1 with probability self[i] — or
 * bernoulli(self, p, generator?) with one probability; self's shape and
 * type. */
static gboolean
a_bernoulli (RtCall *call, GError **error)
{
  const RtTensor *a, *p1 = aten_arg (call, 1);
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  gboolean scalar_p = p1 && p1->kind == RT_KIND_TENSOR && p1->numel == 1 && graph_dtype_is_floating (p1->dtype);
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  return o && rt_random_bernoulli (call, scalar_p ? NULL : a, scalar_p ? rt_get_f64 (p1, 0) : 0, o, error);
}

/* multinomial(self, num_samples, replacement, generator?): self (classes)
 * or (rows, classes) of non-negative weights; int64 class indices, drawn
 * without replacement unless `replacement` (then at most `classes`). */
static gboolean
a_multinomial (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  gint64 n = aten_i (call, 1, 1);
  gboolean replacement = aten_i (call, 2, 0) != 0;
  if ((a->rank != 1 && a->rank != 2) || n < 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs (classes) or (rows, classes) and num_samples >= 0");
      return FALSE;
    }
  gint64 C = a->dims[a->rank - 1], B = a->rank == 2 ? a->dims[0] : 1;
  if (!replacement && n > C)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "cannot draw %" G_GINT64_FORMAT " samples without "
                     "replacement from %" G_GINT64_FORMAT " classes", n, C);
      return FALSE;
    }
  gint64 od[2] = { B, n };
  RtTensor *o = a->rank == 2 ? rt_call_output (call, 0, GRAPH_DTYPE_INT64, 2, od, error)
                             : rt_call_output (call, 0, GRAPH_DTYPE_INT64, 1, &n, error);
  double *w = o ? rt_call_scratch (call, (gsize) MAX (C, 1) * sizeof (double), error) : NULL;
  if (w == NULL)
    return FALSE;
  g_autoptr (GRand) r = rt_random_new (call);
  for (gint64 b = 0; b < B; b++)
    {
      double total = 0;
      for (gint64 c = 0; c < C; c++)
        {
          w[c] = rt_get_f64 (a, b * C + c);
          if (!(w[c] >= 0) || !isfinite (w[c]))
            {
              rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "weights must be finite and non-negative");
              return FALSE;
            }
          total += w[c];
        }
      for (gint64 s = 0; s < n; s++)
        {
          if (!(total > 0))
            {
              rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "row %" G_GINT64_FORMAT " has no positive "
                             "weight left", b);
              return FALSE;
            }
          double u = g_rand_double (r) * total, acc = 0;
          gint64 c = 0;
          for (; c < C - 1; c++)
            if (w[c] > 0 && u < (acc += w[c]))
              break;
          while (w[c] == 0 && c > 0)   /* rounding past the last positive weight */
            c--;
          ((gint64 *) o->data)[b * n + s] = c;
          if (!replacement)
            {
              total -= w[c];
              w[c] = 0;
            }
        }
    }
  return TRUE;
}

/* Sequential draws of mean + std·N(0, 1) with mean and std broadcast to
 * the output: the coordinate c advances with each element. */
typedef struct
{
  const RtTensor *m, *s;
  guint           rank;
  gint64          dims[RT_MAX_RANK], ms[RT_MAX_RANK], ss[RT_MAX_RANK], c[RT_MAX_RANK];
} Normal;

static double
draw_normal (GRand *r, gint64 i, gpointer data)
{
  Normal *st = data;
  gint64 mi = 0, si = 0;
  (void) i;
  for (guint d = 0; d < st->rank; d++)
    {
      mi += st->c[d] * st->ms[d];
      si += st->c[d] * st->ss[d];
    }
  rt_index_next (st->c, st->dims, st->rank);
  return rt_get_f64 (st->m, mi) + rt_get_f64 (st->s, si) * rt_random_normal (r);
}

/* normal(mean, std, generator?) with tensor or number mean and std
 * (broadcast; the tensor's type), or normal(mean, std, size, generator?,
 * dtype?, ...) with numbers. */
static gboolean
a_normal (RtCall *call, GError **error)
{
  const RtTensor *m, *s;
  if (!aten_tensor_arg (call, 0, &m, error) || !aten_tensor_arg (call, 1, &s, error))
    return FALSE;
  const RtTensor *size = aten_arg (call, 2);
  guint rank;
  gint64 dims[RT_MAX_RANK];
  GraphDType dt;
  if (size && graph_dtype_is_integer (size->dtype) && size->rank == 1)
    {
      if (m->numel != 1 || s->numel != 1)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "normal with a size takes a number mean and std");
          return FALSE;
        }
      if (!aten_size_arg (call, 2, &rank, dims, error) || !aten_dtype_arg (call, 4, GRAPH_DTYPE_FLOAT, &dt, error))
        return FALSE;
    }
  else
    {
      if (!rt_broadcast_shape (call, m->rank, m->dims, s->rank, s->dims, &rank, dims, error))
        return FALSE;
      dt = m->rank > 0 && s->rank == 0 ? m->dtype : s->rank > 0 && m->rank == 0 ? s->dtype
         : aten_result_type (m, s);
    }
  if (!graph_dtype_is_floating (dt))
    dt = GRAPH_DTYPE_FLOAT;
  for (gint64 i = 0; i < s->numel; i++)
    if (!(rt_get_f64 (s, i) >= 0))
      {
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "std %g is negative", rt_get_f64 (s, i));
        return FALSE;
      }
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  if (o == NULL)
    return FALSE;
  Normal st = { .m = m, .s = s, .rank = rank };
  memcpy (st.dims, dims, rank * sizeof (gint64));
  rt_broadcast_strides (m, rank, dims, st.ms);
  rt_broadcast_strides (s, rank, dims, st.ss);
  return rt_random_fill (call, o, draw_normal, &st, error);
}

static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("rand", 1, 5, a_rand), RT_ATEN_ROW ("randn", 1, 5, a_randn),
  RT_ATEN_ROW ("rand_like", 1, 6, a_rand_like), RT_ATEN_ROW ("randn_like", 1, 6, a_randn_like),
  RT_ATEN_ROW ("bernoulli", 1, 3, a_bernoulli), RT_ATEN_ROW ("multinomial", 2, 4, a_multinomial),
  RT_ATEN_ROW ("normal", 2, 8, a_normal),
};

RT_KERNEL_TABLE (rt_kernels_aten_random, defs);
