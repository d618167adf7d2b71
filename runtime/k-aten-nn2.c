/* More ATen nn ops: layer_norm, group_norm, instance_norm (statistics per
 * group of elements, torch's biased variance), nearest and bicubic
 * upsampling, reflection / replication / circular / constant padding,
 * max pooling with indices, im2col, native_dropout and rrelu,
 * pixel_unshuffle, diagonal, cosine_similarity, pairwise_distance, and
 * eval-mode feature_alpha_dropout (the identity). */
#include "runtime/k-aten-private.h"
#include "runtime/spatial.h"
#include <math.h>

static gboolean
float_arg (RtCall *call, guint i, const RtTensor **t, GError **error)
{
  *t = aten_arg (call, i);
  if (!aten_is_float (*t))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "argument %u must be a float or double tensor", i);
      return FALSE;
    }
  return TRUE;
}

/* y = (x - mean) / sqrt(var + eps) over `groups` consecutive runs of `len`
 * elements, then * weight[c] + bias[c] where c = (i / inner) % C (weight
 * and bias may be NULL).  Output 0 has x's shape. */
static gboolean
normalize (RtCall *call, const RtTensor *x, gint64 groups, gint64 len, const RtTensor *weight,
           const RtTensor *bias, gint64 C, gint64 inner, double eps, GError **error)
{
  RtTensor *o = rt_call_output_like (call, 0, x, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  for (gint64 g = 0; g < groups; g++)
    {
      double mean = 0, var = 0;
      for (gint64 i = 0; i < len; i++)
        mean += rt_get_f64 (x, g * len + i);
      mean /= (double) MAX (len, 1);
      for (gint64 i = 0; i < len; i++)
        {
          double d = rt_get_f64 (x, g * len + i) - mean;
          var += d * d;
        }
      var /= (double) MAX (len, 1);
      double inv = 1.0 / sqrt (var + eps);
      for (gint64 i = 0; i < len; i++)
        {
          gint64 at = g * len + i, c = (at / inner) % C;
          double v = (rt_get_f64 (x, at) - mean) * inv;
          if (weight)
            v *= rt_get_f64_per (weight, c);
          if (bias)
            v += rt_get_f64_per (bias, c);
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + at * (gint64) es, x->dtype, 1);
        }
    }
  return TRUE;
}

/* layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable) */
static gboolean
a_layer_norm (RtCall *call, GError **error)
{
  const RtTensor *x, *ns = aten_arg (call, 1), *w = aten_arg (call, 2), *b = aten_arg (call, 3);
  if (!float_arg (call, 0, &x, error))
    return FALSE;
  if (ns == NULL || ns->numel > x->rank || !graph_dtype_is_integer (ns->dtype))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "normalized_shape must be at most the input's rank");
      return FALSE;
    }
  guint k = (guint) ns->numel;
  for (guint i = 0; i < k; i++)
    if (rt_get_i64 (ns, i) != x->dims[x->rank - k + i])
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "normalized_shape does not match the input's last dims");
        return FALSE;
      }
  gint64 len = rt_shape_numel (k, x->dims + x->rank - k);
  if ((w && w->numel != len) || (b && b->numel != len))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "weight and bias must have normalized_shape");
      return FALSE;
    }
  return normalize (call, x, len ? x->numel / len : 0, len, w, b, MAX (len, 1), 1, aten_f (call, 4, 1e-5),
                    error);
}

/* group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled) */
static gboolean
a_group_norm (RtCall *call, GError **error)
{
  const RtTensor *x, *w = aten_arg (call, 2), *b = aten_arg (call, 3);
  if (!float_arg (call, 0, &x, error))
    return FALSE;
  gint64 G = aten_i (call, 1, 1), C = x->rank >= 2 ? x->dims[1] : 0;
  if (x->rank < 2 || G <= 0 || C % G != 0 || (w && w->numel != C) || (b && b->numel != C))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs (N, C, ...) with C divisible by num_groups, "
                     "weight and bias of C");
      return FALSE;
    }
  gint64 inner = rt_shape_numel (x->rank - 2, x->dims + 2);
  return normalize (call, x, x->dims[0] * G, (C / G) * inner, w, b, C, inner, aten_f (call, 4, 1e-5), error);
}

/* instance_norm(input, weight?, bias?, running_mean?, running_var?,
 * use_input_stats, momentum, eps, cudnn_enabled): with use_input_stats
 * (what eval-mode InstanceNorm without tracked statistics does). */
static gboolean
a_instance_norm (RtCall *call, GError **error)
{
  const RtTensor *x, *w = aten_arg (call, 1), *b = aten_arg (call, 2);
  if (!float_arg (call, 0, &x, error))
    return FALSE;
  if (aten_i (call, 5, 1) == 0)
    {
      const RtTensor *m = aten_arg (call, 3), *v = aten_arg (call, 4);
      if (m == NULL || v == NULL)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "running statistics are missing");
          return FALSE;
        }
      return rt_batchnorm (call, x, w, b, m, v, aten_f (call, 7, 1e-5), error);
    }
  gint64 C = x->rank >= 2 ? x->dims[1] : 0;
  if (x->rank < 3 || (w && w->numel != C) || (b && b->numel != C))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs (N, C, ...) and weight, bias of C");
      return FALSE;
    }
  gint64 inner = rt_shape_numel (x->rank - 2, x->dims + 2);
  return normalize (call, x, x->dims[0] * C, inner, w, b, C, inner, aten_f (call, 7, 1e-5), error);
}

/* upsample_nearestNd: (self, output_size?, scale_factors?) (.vec) or
 * (self, output_size, scales...?).  src = floor(dst * scale), scale =
 * 1 / scale_factor when given, else in / out (torch's nearest). */
static gboolean
a_upsample_nearest (RtCall *call, GError **error)
{
  const RtTensor *x, *osz = aten_arg (call, 1), *sf = aten_arg (call, 2);
  if (!float_arg (call, 0, &x, error) || x->rank < 3 || x->rank > 5)
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs an input of 1 to 3 spatial dims");
      return FALSE;
    }
  guint n = x->rank - 2;
  gint64 out[3];
  double scale[3];
  gboolean vec = call->n_inputs == 3 && sf && sf->numel == n && graph_dtype_is_floating (sf->dtype);
  for (guint i = 0; i < n; i++)
    {
      gint64 in = x->dims[2 + i];
      if (osz && osz->numel == n)
        {
          out[i] = rt_get_i64 (osz, i);
          const RtTensor *s = vec ? sf : aten_arg (call, 2 + i);
          double given = vec ? rt_get_f64 (sf, i) : (s && s->numel == 1 ? rt_get_f64 (s, 0) : 0);
          scale[i] = given > 0 ? 1.0 / given : (double) in / (double) MAX (out[i], 1);
        }
      else if (vec)
        {
          double f = rt_get_f64 (sf, i);
          out[i] = graph_double_to_int64 (floor ((double) in * f));
          scale[i] = f > 0 ? 1.0 / f : 0;
        }
      else
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs output_size or scale_factors");
          return FALSE;
        }
      if (out[i] <= 0 || out[i] > ((gint64) 1 << 31))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "bad output size");
          return FALSE;
        }
    }
  gint64 dims[5] = { x->dims[0], x->dims[1], 1, 1, 1 };
  for (guint i = 0; i < n; i++)
    dims[2 + i] = out[i];
  RtTensor *o = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 c[5] = { 0 }, ist[5];
  rt_contiguous_strides (x->rank, x->dims, ist);
  gsize es = rt_dtype_size (x->dtype);
  gboolean f32 = x->dtype == GRAPH_DTYPE_FLOAT;
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = c[0] * ist[0] + c[1] * ist[1];
      for (guint d = 0; d < n; d++)
        {
          /* torch computes the source index in float for float tensors. */
          double s = f32 ? (double) ((float) scale[d] * (float) c[2 + d]) : scale[d] * (double) c[2 + d];
          off += CLAMP (graph_double_to_int64 (floor (s)), 0, x->dims[2 + d] - 1) * ist[2 + d];
        }
      memcpy ((char *) o->data + i * (gint64) es, (const char *) x->data + off * (gint64) es, es);
      rt_index_next (c, dims, x->rank);
    }
  return TRUE;
}

/* Padding of the last dims: mode 0 constant, 1 reflect, 2 replicate,
 * 3 circular. */
static gboolean
padded (RtCall *call, const RtTensor *x, const RtTensor *pad, int mode, double value, GError **error)
{
  if (pad == NULL || pad->numel % 2 != 0 || (guint) pad->numel / 2 > x->rank || !graph_dtype_is_integer (pad->dtype))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "padding must hold pairs for at most %u dims", x->rank);
      return FALSE;
    }
  gint64 before[RT_MAX_RANK] = { 0 }, dims[RT_MAX_RANK];
  memcpy (dims, x->dims, sizeof (gint64) * x->rank);
  for (gint64 k = 0; k < pad->numel / 2; k++)
    {
      guint d = x->rank - 1 - (guint) k;
      gint64 p0 = rt_get_i64 (pad, 2 * k), p1 = rt_get_i64 (pad, 2 * k + 1);
      if ((mode == 1 && (p0 >= x->dims[d] || p1 >= x->dims[d] || p0 < 0 || p1 < 0))
          || (mode == 2 && (x->dims[d] == 0 || p0 < 0 || p1 < 0))
          || (mode == 3 && (p0 > x->dims[d] || p1 > x->dims[d] || p0 < 0 || p1 < 0)))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "padding (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                         ") does not fit dim %u of size %" G_GINT64_FORMAT, p0, p1, d, x->dims[d]);
          return FALSE;
        }
      before[d] = p0;
      dims[d] += p0 + p1;
      if (dims[d] < 0 || p0 > ((gint64) 1 << 31) || p1 > ((gint64) 1 << 31))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "bad padding");
          return FALSE;
        }
    }
  RtTensor *o = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 c[RT_MAX_RANK] = { 0 }, ist[RT_MAX_RANK];
  rt_contiguous_strides (x->rank, x->dims, ist);
  gsize es = rt_dtype_size (x->dtype);
  guint8 fill[16];
  rt_convert (&value, GRAPH_DTYPE_DOUBLE, fill, x->dtype, 1);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      gboolean inside = TRUE;
      for (guint d = 0; d < x->rank; d++)
        {
          gint64 s = c[d] - before[d], n = x->dims[d];
          if (s < 0 || s >= n)
            {
              if (mode == 0)
                inside = FALSE;
              else if (mode == 1)
                s = s < 0 ? -s : 2 * (n - 1) - s;
              else if (mode == 2)
                s = s < 0 ? 0 : n - 1;
              else
                s = ((s % n) + n) % n;
            }
          off += s * ist[d];
        }
      memcpy ((char *) o->data + i * (gint64) es, inside ? (const char *) x->data + off * (gint64) es
                                                         : (const char *) fill, es);
      rt_index_next (c, dims, x->rank);
    }
  return TRUE;
}

static gboolean
pad_mode_op (RtCall *call, int mode, GError **error)
{
  const RtTensor *x;
  return float_arg (call, 0, &x, error) && padded (call, x, aten_arg (call, 1), mode, 0, error);
}

static gboolean a_reflection_pad (RtCall *c, GError **e) { return pad_mode_op (c, 1, e); }
static gboolean a_replication_pad (RtCall *c, GError **e) { return pad_mode_op (c, 2, e); }
static gboolean a_pad_circular (RtCall *c, GError **e) { return pad_mode_op (c, 3, e); }

/* pad(self, pad, str mode="constant", float? value) */
static gboolean
a_pad (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  if (x == NULL || x->kind != RT_KIND_TENSOR || x->dtype == GRAPH_DTYPE_STRING)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument 0 must be a tensor");
      return FALSE;
    }
  int mode = aten_s_is (call, 2, "constant", "constant") ? 0 : aten_s_is (call, 2, "constant", "reflect") ? 1
           : aten_s_is (call, 2, "constant", "replicate") ? 2 : aten_s_is (call, 2, "constant", "circular") ? 3 : -1;
  if (mode < 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "pad mode must be constant, reflect, replicate or circular");
      return FALSE;
    }
  return padded (call, x, aten_arg (call, 1), mode, aten_f (call, 3, 0), error);
}

/* max_poolNd_with_indices(self, kernel_size, stride=[], padding=0,
 * dilation=1, ceil_mode=False) → values, indices (flat within the
 * spatial plane, as torch's). */
static gboolean
a_max_pool_with_indices (RtCall *call, GError **error)
{
  const RtTensor *x;
  if (!float_arg (call, 0, &x, error) || x->rank < 3 || x->rank > 5)
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs a batched input of 1 to 3 spatial dims");
      return FALSE;
    }
  guint n = x->rank - 2;
  static const gint64 ones[3] = { 1, 1, 1 }, zeros[3] = { 0, 0, 0 };
  gint64 k[3], stride[3], pad[3], dil[3];
  RtWindow w;
  if (!aten_ints (call, 1, n, NULL, k, error) || !aten_ints (call, 2, n, k, stride, error)
      || !aten_ints (call, 3, n, zeros, pad, error) || !aten_ints (call, 4, n, ones, dil, error)
      || !rt_window_set (call, x, k, stride, dil, pad, pad, aten_i (call, 5, 0) != 0, &w, error))
    return FALSE;
  gint64 dims[5] = { x->dims[0], x->dims[1] };
  for (guint i = 0; i < n; i++)
    dims[2 + i] = w.out[3 - n + i];
  RtTensor *y = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  RtTensor *ind = y ? rt_call_output (call, 1, GRAPH_DTYPE_INT64, x->rank, dims, error) : NULL;
  if (ind == NULL)
    return FALSE;
  gint64 planes = x->dims[0] * x->dims[1], plane = w.in[0] * w.in[1] * w.in[2];
  gsize es = rt_dtype_size (x->dtype);
  gint64 o = 0;
  for (gint64 p = 0; p < planes; p++)
    for (gint64 od = 0; od < w.out[0]; od++)
      for (gint64 oh = 0; oh < w.out[1]; oh++)
        for (gint64 ow = 0; ow < w.out[2]; ow++, o++)
          {
            double best = -INFINITY;
            gint64 at = -1;
            for (gint64 a = 0; a < w.k[0]; a++)
              for (gint64 b = 0; b < w.k[1]; b++)
                for (gint64 c = 0; c < w.k[2]; c++)
                  {
                    gint64 d = od * w.stride[0] - w.pad0[0] + a * w.dil[0];
                    gint64 h = oh * w.stride[1] - w.pad0[1] + b * w.dil[1];
                    gint64 ww = ow * w.stride[2] - w.pad0[2] + c * w.dil[2];
                    if (d < 0 || d >= w.in[0] || h < 0 || h >= w.in[1] || ww < 0 || ww >= w.in[2])
                      continue;
                    gint64 kk = (d * w.in[1] + h) * w.in[2] + ww;
                    double v = rt_get_f64 (x, p * plane + kk);
                    if (at < 0 || v > best || (isnan (v) && !isnan (best)))
                      {
                        best = v;
                        at = kk;
                      }
                  }
            rt_convert (&best, GRAPH_DTYPE_DOUBLE, (char *) y->data + o * (gint64) es, x->dtype, 1);
            ((gint64 *) ind->data)[o] = at;
          }
  return TRUE;
}

/* pixel_unshuffle(self, downscale_factor): (N, C, H*r, W*r) → (N, C*r*r, H, W) */
static gboolean
a_pixel_unshuffle (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  gint64 r = aten_i (call, 1, 1);
  if (x == NULL || x->rank < 3 || r <= 0 || x->dims[x->rank - 1] % r != 0 || x->dims[x->rank - 2] % r != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs (..., C, H, W) with H and W divisible by the factor");
      return FALSE;
    }
  guint R = x->rank;
  gint64 C = x->dims[R - 3], H = x->dims[R - 2] / r, W = x->dims[R - 1] / r;
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, x->dims, sizeof (gint64) * R);
  dims[R - 3] = C * r * r;
  dims[R - 2] = H;
  dims[R - 1] = W;
  RtTensor *o = rt_call_output (call, 0, x->dtype, R, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 batch = rt_shape_numel (R - 3, x->dims);
  gsize es = rt_dtype_size (x->dtype);
  gint64 i = 0;
  for (gint64 b = 0; b < batch; b++)
    for (gint64 c = 0; c < C; c++)
      for (gint64 dy = 0; dy < r; dy++)
        for (gint64 dx = 0; dx < r; dx++)
          for (gint64 h = 0; h < H; h++)
            for (gint64 w = 0; w < W; w++, i++)
              {
                gint64 src = ((b * C + c) * H * r + h * r + dy) * W * r + w * r + dx;
                memcpy ((char *) o->data + i * (gint64) es, (const char *) x->data + src * (gint64) es, es);
              }
  return TRUE;
}

/* diagonal(self, offset=0, dim1=0, dim2=1) */
static gboolean
a_diagonal (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  guint d1, d2;
  if (x == NULL || x->rank < 2 || !rt_axis (call, aten_i (call, 2, 0), x->rank, &d1, error)
      || !rt_axis (call, aten_i (call, 3, 1), x->rank, &d2, error) || d1 == d2)
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs a tensor of rank >= 2 and two different dims");
      return FALSE;
    }
  gint64 off = aten_i (call, 1, 0);
  gint64 n = off >= 0 ? MAX (MIN (x->dims[d1], x->dims[d2] - off), 0) : MAX (MIN (x->dims[d1] + off, x->dims[d2]), 0);
  gint64 st[RT_MAX_RANK], dims[RT_MAX_RANK], ss[RT_MAX_RANK];
  rt_contiguous_strides (x->rank, x->dims, st);
  guint r = 0;
  for (guint d = 0; d < x->rank; d++)
    if (d != d1 && d != d2)
      {
        dims[r] = x->dims[d];
        ss[r++] = st[d];
      }
  dims[r] = n;
  ss[r++] = st[d1] + st[d2];
  gint64 base = n == 0 ? 0 : off >= 0 ? off * st[d2] : -off * st[d1];
  RtTensor *o = rt_call_output (call, 0, x->dtype, r, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 at = base;
      for (guint d = 0; d < r; d++)
        at += c[d] * ss[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) x->data + at * (gint64) es, es);
      rt_index_next (c, dims, r);
    }
  return TRUE;
}

/* cosine_similarity(x1, x2, dim=1, eps=1e-8) and pairwise_distance(x1,
 * x2, p=2, eps=1e-6, keepdim=False) over the last dim: torch's formulas,
 * on broadcast operands of one float type. */
static gboolean
along_dim (RtCall *call, gboolean cosine, GError **error)
{
  const RtTensor *a, *b;
  if (!float_arg (call, 0, &a, error) || !float_arg (call, 1, &b, error))
    return FALSE;
  guint rank;
  gint64 dims[RT_MAX_RANK], sa[RT_MAX_RANK], sb[RT_MAX_RANK];
  if (a->dtype != b->dtype || !rt_broadcast_shape (call, a->rank, a->dims, b->rank, b->dims, &rank, dims, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs two tensors of one float type");
      return FALSE;
    }
  guint ax;
  if (rank == 0 || !rt_axis (call, cosine ? aten_i (call, 2, 1) : -1, rank, &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs tensors of rank >= 1");
      return FALSE;
    }
  double p = cosine ? 0 : aten_f (call, 2, 2), eps = aten_f (call, 3, cosine ? 1e-8 : 1e-6);
  gboolean keep = !cosine && aten_i (call, 4, 0) != 0;
  rt_broadcast_strides (a, rank, dims, sa);
  rt_broadcast_strides (b, rank, dims, sb);
  gint64 odims[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 }, n = dims[ax];
  guint orank = 0;
  for (guint d = 0; d < rank; d++)
    if (d != ax)
      odims[orank++] = dims[d];
    else if (keep)
      odims[orank++] = 1;
  RtTensor *o = rt_call_output (call, 0, a->dtype, orank, odims, error);
  if (o == NULL)
    return FALSE;
  gint64 rdims[RT_MAX_RANK];
  memcpy (rdims, dims, sizeof (gint64) * rank);
  rdims[ax] = 1;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 oa = 0, ob = 0;
      for (guint d = 0; d < rank; d++)
        {
          oa += c[d] * sa[d];
          ob += c[d] * sb[d];
        }
      double dot = 0, na = 0, nb = 0, dist = 0;
      for (gint64 j = 0; j < n; j++)
        {
          double u = rt_get_f64 (a, oa + j * sa[ax]), v = rt_get_f64 (b, ob + j * sb[ax]);
          dot += u * v;
          na += u * u;
          nb += v * v;
          double diff = fabs (u - v + eps);
          dist = isinf (p) ? MAX (dist, diff) : p == 0 ? dist + (diff != 0) : dist + pow (diff, p);
        }
      double r = cosine ? dot / sqrt (MAX (na * nb, eps * eps))
                        : isinf (p) || p == 0 ? dist : pow (dist, 1.0 / p);
      rt_convert (&r, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, a->dtype, 1);
      rt_index_next (c, rdims, rank);
    }
  return TRUE;
}

static gboolean a_cosine_similarity (RtCall *c, GError **e) { return along_dim (c, TRUE, e); }
static gboolean a_pairwise_distance (RtCall *c, GError **e) { return along_dim (c, FALSE, e); }

/* feature_alpha_dropout(input, p, train): the identity in eval mode. */
static gboolean
a_eval_dropout (RtCall *call, GError **error)
{
  if (aten_i (call, 2, 0) != 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "training-mode dropout is random: export in eval mode");
      return FALSE;
    }
  return rt_kernel_copy (call, error);
}

/* native_dropout(input, p, train?) → (output, mask): in training each
 * element is kept with probability 1 − p and scaled by 1 / (1 − p). */
static gboolean
a_native_dropout (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0);
  gboolean train = aten_arg (call, 2) && aten_i (call, 2, 0) != 0;
  double p = aten_f (call, 1, 0.5);
  if (x == NULL || x->kind != RT_KIND_TENSOR)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument 0 must be a tensor");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, x, error);
  RtTensor *m = o && call->n_outputs > 1 ? rt_call_output (call, 1, GRAPH_DTYPE_BOOL, x->rank, x->dims, error) : NULL;
  if (o == NULL || (call->n_outputs > 1 && m == NULL))
    return FALSE;
  return rt_random_dropout (call, x, p, train, o, m, error);
}

typedef struct
{
  const RtTensor *x;
  double          lower, upper;
} Rrelu;

/* x, or x times a slope drawn from U(lower, upper) where x < 0. */
static double
rrelu_draw (GRand *r, gint64 i, gpointer data)
{
  const Rrelu *st = data;
  double xi = rt_get_f64 (st->x, i);
  return xi >= 0 ? xi : xi * (st->lower + (st->upper - st->lower) * g_rand_double (r));
}

/* rrelu(self, lower, upper, training, generator?): a leaky relu of slope
 * (lower + upper) / 2, or in training a slope drawn from U(lower, upper)
 * for each negative element. */
static gboolean
a_rrelu (RtCall *call, GError **error)
{
  const RtTensor *x;
  if (!float_arg (call, 0, &x, error))
    return FALSE;
  double lower = aten_f (call, 1, 0.125), upper = aten_f (call, 2, 1.0 / 3);
  if (aten_i (call, 3, 0) == 0)
    return rt_elementwise_unary (call, x, "LeakyRelu", (lower + upper) / 2, 0, 0, error);
  RtTensor *o = rt_call_output_like (call, 0, x, error);
  Rrelu st = { x, lower, upper };
  return o && rt_random_fill (call, o, rrelu_draw, &st, error);
}

/* im2col(self, kernel_size, dilation, padding, stride): (N, C, H, W) →
 * (N, C kh kw, L), zeros outside. */
static gboolean
a_im2col (RtCall *call, GError **error)
{
  const RtTensor *x;
  gint64 k[2], dil[2], pad[2], st[2];
  if (!float_arg (call, 0, &x, error) || !aten_ints (call, 1, 2, NULL, k, error)
      || !aten_ints (call, 2, 2, NULL, dil, error) || !aten_ints (call, 3, 2, NULL, pad, error)
      || !aten_ints (call, 4, 2, NULL, st, error))
    return FALSE;
  gboolean batched = x->rank == 4;
  if ((x->rank != 3 && x->rank != 4) || k[0] <= 0 || k[1] <= 0 || dil[0] <= 0 || dil[1] <= 0 || st[0] <= 0
      || st[1] <= 0 || pad[0] < 0 || pad[1] < 0 || k[0] > 4096 || k[1] > 4096 || pad[0] > 4096 || pad[1] > 4096)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs (N, C, H, W) or (C, H, W) and positive sizes");
      return FALSE;
    }
  gint64 N = batched ? x->dims[0] : 1, C = x->dims[x->rank - 3], H = x->dims[x->rank - 2], W = x->dims[x->rank - 1];
  gint64 oh = (H + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) / st[0] + 1;
  gint64 ow = (W + 2 * pad[1] - dil[1] * (k[1] - 1) - 1) / st[1] + 1;
  if (oh <= 0 || ow <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the kernel does not fit the padded input");
      return FALSE;
    }
  gint64 dims[3] = { N, C * k[0] * k[1], oh * ow };
  RtTensor *o = batched ? rt_call_output (call, 0, x->dtype, 3, dims, error)
                        : rt_call_output (call, 0, x->dtype, 2, dims + 1, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  gint64 i = 0;
  for (gint64 n = 0; n < N; n++)
    for (gint64 c = 0; c < C; c++)
      for (gint64 a = 0; a < k[0]; a++)
        for (gint64 b = 0; b < k[1]; b++)
          for (gint64 y = 0; y < oh; y++)
            for (gint64 z = 0; z < ow; z++, i++)
              {
                gint64 h = y * st[0] - pad[0] + a * dil[0], w = z * st[1] - pad[1] + b * dil[1];
                char *dst = (char *) o->data + i * (gint64) es;
                if (h < 0 || h >= H || w < 0 || w >= W)
                  memset (dst, 0, es);
                else
                  memcpy (dst, (const char *) x->data + (((n * C + c) * H + h) * W + w) * (gint64) es, es);
              }
  return TRUE;
}

/* upsample_bicubic2d: (self, output_size, align_corners, scales_h?,
 * scales_w?) or (self, output_size?, align_corners, scale_factors?).
 * torch's: A = -0.75, taps clamped to the border, source index without
 * the clamp at 0 that linear modes apply. */
static double
cubic_w (double x, int tap)
{
  const double A = -0.75;
  double t = tap == 0 ? x + 1 : tap == 1 ? x : tap == 2 ? 1 - x : 2 - x;
  return tap == 1 || tap == 2 ? ((A + 2) * t - (A + 3)) * t * t + 1 : ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
}

static gboolean
a_upsample_bicubic2d (RtCall *call, GError **error)
{
  const RtTensor *x, *osz = aten_arg (call, 1), *sf = aten_arg (call, 3);
  gboolean align = aten_i (call, 2, 0) != 0;
  if (!float_arg (call, 0, &x, error) || x->rank != 4)
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs a 4-D input");
      return FALSE;
    }
  gint64 in[2] = { x->dims[2], x->dims[3] }, out[2];
  double scale[2];
  gboolean vec = call->n_inputs == 4 && sf && sf->numel == 2 && graph_dtype_is_floating (sf->dtype);
  for (int i = 0; i < 2; i++)
    {
      double given = 0;
      if (osz && osz->numel == 2)
        {
          out[i] = rt_get_i64 (osz, i);
          const RtTensor *s1 = vec ? NULL : aten_arg (call, 3 + i);
          given = vec ? rt_get_f64 (sf, i) : s1 && s1->numel == 1 ? rt_get_f64 (s1, 0) : 0;
        }
      else if (vec)
        {
          given = rt_get_f64 (sf, i);
          out[i] = graph_double_to_int64 (floor ((double) in[i] * given));
        }
      else
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs output_size or scale_factors");
          return FALSE;
        }
      if (out[i] <= 0 || out[i] > ((gint64) 1 << 31))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "bad output size");
          return FALSE;
        }
      scale[i] = align ? (out[i] > 1 ? (double) (in[i] - 1) / (double) (out[i] - 1) : 0)
                       : (given > 0 ? 1.0 / given : (double) in[i] / (double) out[i]);
    }
  gint64 dims[4] = { x->dims[0], x->dims[1], out[0], out[1] };
  RtTensor *o = rt_call_output (call, 0, x->dtype, 4, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  gint64 planes = x->dims[0] * x->dims[1];
  for (gint64 p = 0; p < planes; p++)
    for (gint64 i = 0; i < out[0]; i++)
      for (gint64 j = 0; j < out[1]; j++)
        {
          double ry = align ? scale[0] * (double) i : scale[0] * ((double) i + 0.5) - 0.5;
          double rx = align ? scale[1] * (double) j : scale[1] * ((double) j + 0.5) - 0.5;
          /* clamped: a NaN or huge coordinate (a scale from the data) must not overflow fy - 1 */
          gint64 fy = CLAMP (graph_double_to_int64 (floor (ry)), -2, in[0] + 2);
          gint64 fx = CLAMP (graph_double_to_int64 (floor (rx)), -2, in[1] + 2);
          double ty = ry - (double) fy, tx = rx - (double) fx, v = 0;
          for (int a = 0; a < 4; a++)
            {
              gint64 yy = CLAMP (fy - 1 + a, 0, in[0] - 1);
              double row = 0;
              for (int b = 0; b < 4; b++)
                {
                  gint64 xx = CLAMP (fx - 1 + b, 0, in[1] - 1);
                  row += cubic_w (tx, b) * rt_get_f64 (x, (p * in[0] + yy) * in[1] + xx);
                }
              v += cubic_w (ty, a) * row;
            }
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + ((p * out[0] + i) * out[1] + j) * (gint64) es,
                      x->dtype, 1);
        }
  return TRUE;
}

/* conv_tbc(self (T, B, Cin), weight (K, Cin, Cout), bias (Cout), pad):
 * a 1-D convolution over time in time-batch-channel layout. */
static gboolean
a_conv_tbc (RtCall *call, GError **error)
{
  const RtTensor *x, *w, *b;
  if (!float_arg (call, 0, &x, error) || !float_arg (call, 1, &w, error) || !float_arg (call, 2, &b, error))
    return FALSE;
  gint64 pad = aten_i (call, 3, 0);
  if (x->rank != 3 || w->rank != 3 || w->dims[1] != x->dims[2] || b->numel != w->dims[2] || pad < 0
      || pad > ((gint64) 1 << 30) || x->dtype != w->dtype || b->dtype != x->dtype)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs input (T, B, Cin), weight (K, Cin, Cout), bias (Cout)");
      return FALSE;
    }
  gint64 T = x->dims[0], B = x->dims[1], Ci = x->dims[2], K = w->dims[0], Co = w->dims[2];
  gint64 dims[3] = { T + 2 * pad - K + 1, B, Co };
  if (dims[0] < 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the kernel is longer than the padded input");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, x->dtype, 3, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (x->dtype);
  for (gint64 t = 0; t < dims[0]; t++)
    for (gint64 bb = 0; bb < B; bb++)
      for (gint64 c = 0; c < Co; c++)
        {
          double v = rt_get_f64 (b, c);
          for (gint64 k = 0; k < K; k++)
            {
              gint64 ti = t + k - pad;
              if (ti < 0 || ti >= T)
                continue;
              for (gint64 i = 0; i < Ci; i++)
                v += rt_get_f64 (x, (ti * B + bb) * Ci + i) * rt_get_f64 (w, (k * Ci + i) * Co + c);
            }
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + ((t * B + bb) * Co + c) * (gint64) es, x->dtype, 1);
        }
  return TRUE;
}

/* embedding_renorm(self, indices, max_norm, norm_type): a copy of self
 * whose rows named by indices are scaled to norm max_norm where above it
 * (torch's max_norm / (norm + 1e-7)). */
static gboolean
a_embedding_renorm (RtCall *call, GError **error)
{
  const RtTensor *w, *ind = aten_arg (call, 1);
  if (!float_arg (call, 0, &w, error))
    return FALSE;
  if (w->rank != 2 || ind == NULL || !graph_dtype_is_integer (ind->dtype))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a 2-D weight and integer indices");
      return FALSE;
    }
  double max_norm = aten_f (call, 2, 1), p = aten_f (call, 3, 2);
  gint64 V = w->dims[0], D = w->dims[1];
  RtTensor *o = rt_call_output_like (call, 0, w, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (w->dtype);
  memcpy (o->data, w->data, (gsize) w->numel * es);
  for (gint64 j = 0; j < ind->numel; j++)
    {
      gint64 r = rt_get_i64 (ind, j);
      if (r < 0 || r >= V)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "index %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT ")", r, V);
          return FALSE;
        }
      double norm = 0;
      for (gint64 k = 0; k < D; k++)
        {
          double v = fabs (rt_get_f64 (w, r * D + k));
          norm = isinf (p) ? MAX (norm, v) : norm + pow (v, p);
        }
      if (!isinf (p))
        norm = pow (norm, 1.0 / p);
      if (norm <= max_norm)
        continue;
      double scale = max_norm / (norm + 1e-7);
      for (gint64 k = 0; k < D; k++)
        {
          double v = rt_get_f64 (w, r * D + k) * scale;
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + (r * D + k) * (gint64) es, w->dtype, 1);
        }
    }
  return TRUE;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("layer_norm", 2, 6, a_layer_norm), RT_ATEN_ROW ("group_norm", 2, 6, a_group_norm),
  RT_ATEN_ROW ("instance_norm", 1, 9, a_instance_norm),
  RT_ATEN_ROW ("upsample_nearest1d", 1, 4, a_upsample_nearest), RT_ATEN_ROW ("upsample_nearest2d", 1, 4, a_upsample_nearest),
  RT_ATEN_ROW ("upsample_nearest3d", 1, 5, a_upsample_nearest),
  RT_ATEN_ROW ("reflection_pad1d", 2, 2, a_reflection_pad), RT_ATEN_ROW ("reflection_pad2d", 2, 2, a_reflection_pad),
  RT_ATEN_ROW ("reflection_pad3d", 2, 2, a_reflection_pad), RT_ATEN_ROW ("replication_pad1d", 2, 2, a_replication_pad),
  RT_ATEN_ROW ("replication_pad2d", 2, 2, a_replication_pad), RT_ATEN_ROW ("replication_pad3d", 2, 2, a_replication_pad),
  RT_ATEN_ROW ("pad", 2, 4, a_pad), RT_ATEN_ROW ("_pad_circular", 2, 2, a_pad_circular),
  RT_ATEN_ROW ("conv_tbc", 4, 4, a_conv_tbc), RT_ATEN_ROW ("embedding_renorm", 4, 4, a_embedding_renorm),
  { RT_ATEN ("native_dropout"), RT_IN (2, 3), RT_OUT (1, 2), .run = a_native_dropout },
  RT_ATEN_ROW ("rrelu", 1, 5, a_rrelu), RT_ATEN_ROW ("im2col", 5, 5, a_im2col), RT_ATEN_ROW ("upsample_bicubic2d", 1, 5, a_upsample_bicubic2d),
  { RT_ATEN ("max_pool1d_with_indices"), RT_IN (2, 6), RT_OUT (2, 2), .run = a_max_pool_with_indices },
  { RT_ATEN ("max_pool2d_with_indices"), RT_IN (2, 6), RT_OUT (2, 2), .run = a_max_pool_with_indices },
  { RT_ATEN ("max_pool3d_with_indices"), RT_IN (2, 6), RT_OUT (2, 2), .run = a_max_pool_with_indices },
  RT_ATEN_ROW ("pixel_unshuffle", 2, 2, a_pixel_unshuffle), RT_ATEN_ROW ("diagonal", 1, 4, a_diagonal),
  RT_ATEN_ROW ("cosine_similarity", 2, 4, a_cosine_similarity), RT_ATEN_ROW ("pairwise_distance", 2, 5, a_pairwise_distance),
  RT_ATEN_ROW ("feature_alpha_dropout", 3, 3, a_eval_dropout), RT_ATEN_ROW ("alpha_dropout", 3, 3, a_eval_dropout),
  RT_ATEN_ROW ("feature_dropout", 3, 3, a_eval_dropout),
};

RT_KERNEL_TABLE (rt_kernels_aten_nn2, defs);
