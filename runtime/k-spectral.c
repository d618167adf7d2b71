/* Signal processing (opset 17): DFT, STFT, MelWeightMatrix.  The transforms
 * are direct O(n^2) sums in double (no FFT): fine for the short signals
 * these ops see in tests, slow for long ones. */
#include "runtime/kernel.h"
#include <math.h>
#include <string.h>

/* out[k] = sum_j in[j] e^(-+2 pi i j k / n) for k < nout; in has `len`
 * complex values (zero beyond), strided by `st` complex elements. */
static void
dft_1d (const double *re, const double *im, gint64 len, gint64 st, gint64 n, gint64 nout,
        gboolean inverse, double *ore, double *oim)
{
  double sign = inverse ? 1 : -1;
  for (gint64 k = 0; k < nout; k++)
    {
      double sr = 0, si = 0;
      for (gint64 j = 0; j < MIN (len, n); j++)
        {
          /* j * k mod n keeps the angle small and exact. */
          double a = sign * 2 * G_PI * (double) ((j * k) % n) / (double) n;
          double c = cos (a), s = sin (a), xr = re[j * st], xi = im ? im[j * st] : 0;
          sr += xr * c - xi * s;
          si += xr * s + xi * c;
        }
      if (inverse)
        {
          sr /= (double) n;
          si /= (double) n;
        }
      ore[k] = sr;
      oim[k] = si;
    }
}

static gboolean
check_signal (RtCall *call, const RtTensor *x, GError **error)
{
  if (x->rank < 2 || (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the signal's last dimension must be 1 (real) or 2 (complex)");
      return FALSE;
    }
  return TRUE;
}

static void
store (RtTensor *o, gint64 i, double v)
{
  rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) rt_dtype_size (o->dtype), o->dtype, 1);
}

static gboolean
k_dft (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  if (!check_signal (call, x, error))
    return FALSE;
  gint64 axv = rt_attr_i (call->node, "axis", 1);
  if (call->opset >= 20)
    axv = call->n_inputs > 2 && call->inputs[2] ? rt_get_i64 (call->inputs[2], 0) : -2;
  guint ax;
  if (!rt_axis (call, axv, x->rank, &ax, error))
    return FALSE;
  if (ax == x->rank - 1)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "axis must not be the complex dimension");
      return FALSE;
    }
  gboolean inverse = rt_attr_i (call->node, "inverse", 0) != 0;
  gboolean onesided = rt_attr_i (call->node, "onesided", 0) != 0;
  gint64 len = x->dims[ax];
  const RtTensor *dl = call->n_inputs > 1 ? call->inputs[1] : NULL;
  gint64 n = dl && dl->numel > 0 ? rt_get_i64 (dl, 0) : len;
  if (n < 1)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "dft_length must be positive");
      return FALSE;
    }
  gint64 nout = onesided ? n / 2 + 1 : n;
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, x->dims, x->rank * sizeof (gint64));
  dims[ax] = nout;
  dims[x->rank - 1] = 2;
  RtTensor *o = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 comp = x->dims[x->rank - 1];
  gint64 outer = rt_shape_numel (ax, x->dims);
  gint64 inner = rt_shape_numel (x->rank - 1 - ax - 1, x->dims + ax + 1);
  double *buf = rt_call_scratch (call, (gsize) (2 * MAX (len, 1) + 2 * nout) * sizeof (double), error);
  if (buf == NULL)
    return FALSE;
  double *re = buf, *im = re + MAX (len, 1), *ore = im + MAX (len, 1), *oim = ore + nout;
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        for (gint64 j = 0; j < len; j++)
          {
            gint64 e = ((i * len + j) * inner + k) * comp;
            re[j] = rt_get_f64 (x, e);
            im[j] = comp == 2 ? rt_get_f64 (x, e + 1) : 0;
          }
        dft_1d (re, im, len, 1, n, nout, inverse, ore, oim);
        for (gint64 j = 0; j < nout; j++)
          {
            gint64 e = ((i * nout + j) * inner + k) * 2;
            store (o, e, ore[j]);
            store (o, e + 1, oim[j]);
          }
      }
  return TRUE;
}

static gboolean
k_stft (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *step_t = call->inputs[1];
  const RtTensor *win = call->n_inputs > 2 ? call->inputs[2] : NULL;
  const RtTensor *fl = call->n_inputs > 3 ? call->inputs[3] : NULL;
  if (!check_signal (call, x, error))
    return FALSE;
  if (x->rank != 3)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "signal must be (batch, length, 1 or 2)");
      return FALSE;
    }
  const RtTensor *scalar;
  if (!rt_scalar_input (call, 1, "frame_step", FALSE, &scalar, error)
      || (fl && !rt_scalar_input (call, 3, "frame_length", FALSE, &scalar, error)))
    return FALSE;
  gint64 step = rt_get_i64 (step_t, 0);
  gint64 flen = fl ? rt_get_i64 (fl, 0) : win ? win->numel : 0;
  gint64 B = x->dims[0], L = x->dims[1], comp = x->dims[2];
  if (step < 1 || flen < 1 || flen > L || (win && win->numel != flen))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "bad frame_step, frame_length or window length");
      return FALSE;
    }
  gboolean onesided = rt_attr_i (call->node, "onesided", 1) != 0 && comp == 1;
  gint64 nout = onesided ? flen / 2 + 1 : flen;
  gint64 frames = (L - flen) / step + 1;
  gint64 dims[4] = { B, frames, nout, 2 };
  RtTensor *o = rt_call_output (call, 0, x->dtype, 4, dims, error);
  if (o == NULL)
    return FALSE;
  double *buf = rt_call_scratch (call, (gsize) (2 * flen + 2 * nout) * sizeof (double), error);
  if (buf == NULL)
    return FALSE;
  double *re = buf, *im = re + flen, *ore = im + flen, *oim = ore + nout;
  for (gint64 b = 0; b < B; b++)
    for (gint64 f = 0; f < frames; f++)
      {
        for (gint64 j = 0; j < flen; j++)
          {
            gint64 e = (b * L + f * step + j) * comp;
            double w = win ? rt_get_f64 (win, j) : 1;
            re[j] = rt_get_f64 (x, e) * w;
            im[j] = comp == 2 ? rt_get_f64 (x, e + 1) * w : 0;
          }
        dft_1d (re, im, flen, 1, flen, nout, FALSE, ore, oim);
        for (gint64 j = 0; j < nout; j++)
          {
            gint64 e = ((b * frames + f) * nout + j) * 2;
            store (o, e, ore[j]);
            store (o, e + 1, oim[j]);
          }
      }
  return TRUE;
}

/* Triangular filters on the mel scale, computed the way ONNX's reference
 * does (float32 mel bounds, float64 bin edges, floor to integer bins). */
static gboolean
k_mel (RtCall *call, GError **error)
{
  const RtTensor *const *in = call->inputs, *scalar;
  static const char *const names[5] = { "num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz",
                                        "upper_edge_hertz" };
  for (guint i = 0; i < 5; i++)
    if (!rt_scalar_input (call, i, names[i], FALSE, &scalar, error))
      return FALSE;
  gint64 nmel = rt_get_i64 (in[0], 0), dftl = rt_get_i64 (in[1], 0), sr = rt_get_i64 (in[2], 0);
  float lo = (float) rt_get_f64 (in[3], 0), hi = (float) rt_get_f64 (in[4], 0);
  if (nmel < 1 || dftl < 1 || sr < 1 || nmel > (1 << 20) || dftl > (1 << 24))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad num_mel_bins, dft_length or sample_rate");
      return FALSE;
    }
  gint64 nspec = dftl / 2 + 1;
  gint64 dtv = rt_attr_i (call->node, "output_datatype", GRAPH_DTYPE_FLOAT);
  if (dtv < 0 || dtv > 31 || !(RT_DT_NUMERIC & (1u << dtv)))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad output_datatype");
      return FALSE;
    }
  gint64 dims[2] = { nspec, nmel };
  RtTensor *o = rt_call_output (call, 0, (GraphDType) dtv, 2, dims, error);
  if (o == NULL)
    return FALSE;
  double *w = rt_call_scratch (call, (gsize) (nspec * nmel) * sizeof (double), error);
  gint64 *bins = w ? rt_call_scratch_n (call, 1, (gsize) (nmel + 2) * sizeof (gint64), error) : NULL;
  if (bins == NULL)
    return FALSE;
  memset (w, 0, (gsize) (nspec * nmel) * sizeof (double));
  float lom = 2595.0f * log10f (1.0f + lo / 700.0f), him = 2595.0f * log10f (1.0f + hi / 700.0f);
  float step = (him - lom) / (float) (nmel + 2);
  for (gint64 i = 0; i < nmel + 2; i++)
    {
      double f = (double) i * (double) step + (double) lom;
      f = 700 * (pow (10, f / 2595) - 1);
      bins[i] = graph_double_to_int64 (floor ((double) (dftl + 1) * f / (double) sr));
      if (bins[i] < 0 || bins[i] >= nspec)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "mel bin edge outside the spectrogram");
          return FALSE;
        }
    }
  for (gint64 i = 0; i < nmel; i++)
    {
      gint64 l = bins[i], c = bins[i + 1], h = bins[i + 2];
      if (c == l)
        w[c * nmel + i] = 1;
      else
        for (gint64 j = l; j <= c; j++)
          w[j * nmel + i] = (double) (j - l) / (double) (c - l);
      for (gint64 j = c; j < h; j++)
        w[j * nmel + i] = (double) (h - j) / (double) (h - c);
    }
  return rt_convert (w, GRAPH_DTYPE_DOUBLE, o->data, o->dtype, nspec * nmel);
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("DFT", 17), RT_IN (1, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_dft },
  { RT_ONNX ("STFT", 17), RT_IN (2, 4), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_stft },
  { RT_ONNX ("MelWeightMatrix", 17), RT_IN (5, 5), RT_OUT (1, 1), .dtypes = RT_DT (INT32) | RT_DT (INT64), .run = k_mel },
};

RT_KERNEL_TABLE (rt_kernels_spectral, defs);
