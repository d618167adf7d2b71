/* symonnx — float16/bfloat16 conversions and total float→int conversion,
 * shared by the IR's tensors and the runtime's Cast (one copy of each). */
#include "ir/graph.h"
#include <math.h>
#include <string.h>

float
graph_half_to_float (guint16 h)
{
  guint32 sign = (guint32) (h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0x1f)
    bits = sign | 0x7f800000 | (mant << 13);
  else if (exp != 0)
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  else if (mant == 0)
    bits = sign;
  else
    {
      /* subnormal: normalise */
      exp = 113;
      while (!(mant & 0x400))
        {
          mant <<= 1;
          exp--;
        }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  float f;
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Round to nearest even, as numpy's float32 → float16. */
guint16
graph_float_to_half (float f)
{
  guint32 x;
  memcpy (&x, &f, 4);
  guint32 sign = (x >> 16) & 0x8000;
  gint32 exp = (gint32) ((x >> 23) & 0xff) - 127 + 15;
  guint32 mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff)
    return (guint16) (sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return (guint16) (sign | 0x7c00);
  if (exp <= 0)
    {
      if (exp < -10)
        return (guint16) sign;
      mant |= 0x800000;
      guint32 shift = (guint32) (14 - exp);
      guint32 half = mant >> shift;
      guint32 rem = mant & ((1u << shift) - 1);
      guint32 mid = 1u << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1)))
        half++;
      return (guint16) (sign | half);
    }
  guint32 half = sign | ((guint32) exp << 10) | (mant >> 13);
  guint32 rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    half++;
  return (guint16) half;
}

/* bfloat16 is the upper half of a float32. */
float
graph_bfloat16_to_float (guint16 h)
{
  guint32 bits = (guint32) h << 16;
  float f;
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Narrowing truncates, as the ONNX 1.12 Cast tests do (numpy's uint16 view
 * of the float32 bits); NaN stays a quiet NaN. */
guint16
graph_float_to_bfloat16 (float f)
{
  guint32 bits;
  if (isnan (f))
    return 0x7fc0;
  memcpy (&bits, &f, sizeof bits);
  return (guint16) (bits >> 16);
}

gint64
graph_double_to_int64 (double d)
{
  /* 2^63 is exact in double; every double below it converts in range. */
  if (isnan (d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0)
    return G_MININT64;
  return (gint64) d;
}

gint32
graph_double_to_int32 (double d)
{
  if (isnan (d) || d >= 2147483648.0 || d <= -2147483649.0)
    return G_MININT32;
  return (gint32) d;
}

gint64
graph_double_to_int (GraphDType to, double d)
{
  switch (to)
    {
    case GRAPH_DTYPE_INT8: case GRAPH_DTYPE_INT16: case GRAPH_DTYPE_INT32:
    case GRAPH_DTYPE_UINT8: case GRAPH_DTYPE_UINT16:
      return graph_double_to_int32 (d);
    case GRAPH_DTYPE_UINT64:
      return (gint64) graph_double_to_uint64 (d);
    default:
      return graph_double_to_int64 (d);
    }
}

guint64
graph_double_to_uint64 (double d)
{
  if (isnan (d) || d >= 18446744073709551616.0 || d <= -9223372036854775809.0)
    return (guint64) G_MININT64;
  return d < 0 ? (guint64) (gint64) d : (guint64) d;
}
