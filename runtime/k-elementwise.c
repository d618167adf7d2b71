/* Element-wise kernels: unary maths and activations, binary arithmetic,
 * comparisons and logic with numpy broadcasting, variadic Sum/Mean/Min/Max,
 * Where, Clip, Cast.  Each op is one line of a list; the per-dtype loops
 * are generated from it. */
#include "runtime/kernels-private.h"
#include "runtime/verf.h"
#include <math.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wfloat-equal"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wbool-compare"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
#pragma GCC diagnostic ignored "-Wunused-variable"

/* ---- broadcasting engine -------------------------------------------------- */

typedef void (*BinFn) (gint64 n, const void *a, gint64 sa, const void *b, gint64 sb, void *o);

typedef struct
{
  const RtTensor *a, *b;
  RtTensor       *out;
  BinFn           fn;
  guint           n;                      /* merged dims */
  gint64          cd[RT_MAX_RANK], ca[RT_MAX_RANK], cb[RT_MAX_RANK];
  gint64          inner, outer;
  gsize           esa, esb, eso;
} Broadcast;

/* Rows [k0, k1) of the outer loop, or, with one row, elements [k0, k1). */
static void
broadcast_range (gint64 k0, gint64 k1, gpointer data)
{
  const Broadcast *j = data;
  const char *pa = j->a->data, *pb = j->b->data;
  char *po = j->out->data;
  gint64 ia = j->ca[j->n - 1], ib = j->cb[j->n - 1];
  if (j->outer == 1)
    {
      j->fn (k1 - k0, pa + k0 * ia * j->esa, ia, pb + k0 * ib * j->esb, ib, po + k0 * j->eso);
      return;
    }
  /* The multi-index of row k0 over the merged dims before the last. */
  gint64 idx[RT_MAX_RANK] = { 0 }, off_a = 0, off_b = 0, rem = k0;
  for (gint64 d = (gint64) j->n - 2; d >= 0; d--)
    {
      idx[d] = rem % j->cd[d];
      rem /= j->cd[d];
      off_a += idx[d] * j->ca[d];
      off_b += idx[d] * j->cb[d];
    }
  for (gint64 k = k0; k < k1; k++)
    {
      j->fn (j->inner, pa + off_a * j->esa, ia, pb + off_b * j->esb, ib,
             po + k * j->inner * j->eso);
      for (gint64 d = (gint64) j->n - 2; d >= 0; d--)
        {
          idx[d]++;
          off_a += j->ca[d];
          off_b += j->cb[d];
          if (idx[d] < j->cd[d])
            break;
          off_a -= j->ca[d] * j->cd[d];
          off_b -= j->cb[d] * j->cd[d];
          idx[d] = 0;
        }
    }
}

/* Applies fn over out's shape; a and b are broadcast to it.  Adjacent
 * dimensions are merged when both operands step through them alike, so the
 * inner loop is as long as possible.  Large outputs are split over threads
 * (rows of the outer loop, or ranges of one long row); every element is
 * computed as in one thread.  a or b may be out itself (same shape). */
static void
broadcast_apply (const RtCall *call, const RtTensor *a, const RtTensor *b, RtTensor *out,
                 BinFn fn)
{
  guint r = out->rank;
  gint64 sa[RT_MAX_RANK], sb[RT_MAX_RANK];
  if (out->numel == 0)
    return;
  Broadcast j = { .a = a, .b = b, .out = out, .fn = fn, .esa = rt_dtype_size (a->dtype),
                  .esb = rt_dtype_size (b->dtype), .eso = rt_dtype_size (out->dtype) };
  rt_broadcast_strides (a, r, out->dims, sa);
  rt_broadcast_strides (b, r, out->dims, sb);
  guint n = 0;
  for (guint i = 0; i < r; i++)
    {
      gint64 d = out->dims[i];
      if (d == 1)
        continue;
      if (n > 0 && j.ca[n - 1] == sa[i] * d && j.cb[n - 1] == sb[i] * d)
        {
          j.cd[n - 1] *= d;
          j.ca[n - 1] = sa[i];
          j.cb[n - 1] = sb[i];
          continue;
        }
      j.cd[n] = d;
      j.ca[n] = sa[i];
      j.cb[n] = sb[i];
      n++;
    }
  if (n == 0)
    {
      fn (1, a->data, 0, b->data, 0, out->data);
      return;
    }
  j.n = n;
  j.inner = j.cd[n - 1];
  j.outer = out->numel / j.inner;
  if (j.outer == 1)
    rt_parallel_for (call, j.inner, 32768, broadcast_range, &j);
  else
    rt_parallel_for (call, j.outer, MAX (1, 32768 / j.inner), broadcast_range, &j);
}

/* One loop body, specialised on the common stride patterns so that the
 * compiler vectorises the contiguous cases. */
#define BIN_LOOP(fname, T, TO, expr)                                              \
  static void fname (gint64 n, const void *va, gint64 sa, const void *vb, gint64 sb, \
                     void *vo)                                                   \
  {                                                                              \
    const T *A = va;                                                             \
    const T *B = vb;                                                             \
    TO *o = vo;                                                                  \
    if (sa == 1 && sb == 1)                                                      \
      for (gint64 i = 0; i < n; i++) { T x = A[i], y = B[i]; o[i] = (TO) (expr); } \
    else if (sa == 1 && sb == 0)                                                 \
      { T y = B[0]; for (gint64 i = 0; i < n; i++) { T x = A[i]; o[i] = (TO) (expr); } } \
    else if (sa == 0 && sb == 1)                                                 \
      { T x = A[0]; for (gint64 i = 0; i < n; i++) { T y = B[i]; o[i] = (TO) (expr); } } \
    else                                                                         \
      for (gint64 i = 0; i < n; i++) { T x = A[i * sa], y = B[i * sb]; o[i] = (TO) (expr); } \
  }

#define IS_FLOAT_T(T) ((T) 0.5 != 0)
/* Integer arithmetic wraps (two's complement), as numpy and ONNX Runtime
 * do, instead of overflowing (undefined in C): computed in guint64 and
 * converted back.  IS_FLOAT_T is a constant, so only one branch runs. */
#define WRAP(T, expr_u, expr_f) (IS_FLOAT_T (T) ? (expr_f) : (T) (expr_u))
#define U64(v) ((guint64) (gint64) (v))

static inline gint64
imod_floor (gint64 x, gint64 y)
{
  if (y == 0 || y == -1)   /* x % -1 is 0, and G_MININT64 % -1 overflows */
    return 0;
  gint64 r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}

static inline gint64
imod_trunc (gint64 x, gint64 y)
{
  return y == 0 || y == -1 ? 0 : x % y;
}

/* Integer x ** y as torch and numpy compute it: repeated squaring that
 * wraps, exact at every size (pow on doubles is not: the GPU's pow gave
 * 3 ** 1 as a value that truncated to 2, and a result past 2^63 converted
 * back to an integer is undefined).
 * A negative y gives the truncated 1 / x ** -y: 1, -1 or 0 (0 for x = 0,
 * as integer x / 0 is 0 here; torch refuses, numpy raises). */
static inline gint64
ipow_wrap (gint64 x, gint64 y)
{
  if (y < 0)
    return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
  guint64 r = 1, b = (guint64) x;
  for (guint64 e = (guint64) y; e; e >>= 1, b *= b)
    if (e & 1)
      r *= b;
  return (gint64) r;
}

/* X(E, T, name, expr over x and y of type T) — output of type T.  Integer
 * division by zero gives 0 instead of a crash; MIN / -1 wraps to MIN. */
#define ARITH_OPS(X, E, T)                                                         \
  X (E, T, Add, WRAP (T, U64 (x) + U64 (y), x + y))                                \
  X (E, T, Sub, WRAP (T, U64 (x) - U64 (y), x - y))                                \
  X (E, T, Mul, WRAP (T, U64 (x) * U64 (y), x * y))                                \
  X (E, T, Div, IS_FLOAT_T (T) ? x / y                                             \
                : y == 0 ? 0 : ((T) -1 < 0 && y == (T) -1) ? (T) (0 - U64 (x)) : x / y) \
  X (E, T, Pow, IS_FLOAT_T (T) ? (T) pow ((double) x, (double) y)                  \
                                : (T) ipow_wrap ((gint64) x, (gint64) y))          \
  X (E, T, Max, (x >= y || x != x) ? x : y)                                        \
  X (E, T, Min, (x <= y || x != x) ? x : y)                                        \
  X (E, T, PRelu, x < 0 ? y * x : x)                                               \
  X (E, T, ModFloor, IS_FLOAT_T (T) ? fmod ((double) x, (double) y)                \
                                    : imod_floor ((gint64) x, (gint64) y))         \
  X (E, T, ModTrunc, IS_FLOAT_T (T) ? fmod ((double) x, (double) y)                \
                                    : imod_trunc ((gint64) x, (gint64) y))         \
  X (E, T, BitShiftLeft, IS_FLOAT_T (T) ? 0 : ((guint64) x << ((guint64) y & 63))) \
  X (E, T, BitShiftRight, IS_FLOAT_T (T) ? 0 : ((guint64) x >> ((guint64) y & 63)))\
  X (E, T, First, x)

/* X(E, T, name, expr) — output bool. */
#define CMP_OPS(X, E, T)                 \
  X (E, T, Equal, x == y)                \
  X (E, T, Greater, x > y)               \
  X (E, T, Less, x < y)                  \
  X (E, T, GreaterOrEqual, x >= y)       \
  X (E, T, LessOrEqual, x <= y)          \
  X (E, T, And, (x != 0) && (y != 0))    \
  X (E, T, Or, (x != 0) || (y != 0))     \
  X (E, T, Xor, (x != 0) != (y != 0))

#define GEN_ARITH(E, T, name, expr) BIN_LOOP (bin_##name##_##E, T, T, expr)
#define GEN_CMP(E, T, name, expr) BIN_LOOP (cmp_##name##_##E, T, guint8, expr)
#define GEN_BIN_T(E, T) ARITH_OPS (GEN_ARITH, E, T) CMP_OPS (GEN_CMP, E, T)
RT_FOREACH_ALL (GEN_BIN_T)

#define ENUM_OP(E, T, name, expr) OP_##name,
enum { ARITH_OPS (ENUM_OP, 0, 0) N_ARITH };
enum { CMP_OPS (ENUM_OP, 0, 0) N_CMP };
#define TBL_ARITH(E, T, name, expr) [OP_##name][GRAPH_DTYPE_##E] = bin_##name##_##E,
#define TBL_CMP(E, T, name, expr) [OP_##name][GRAPH_DTYPE_##E] = cmp_##name##_##E,
#define TBL_ARITH_T(E, T) ARITH_OPS (TBL_ARITH, E, T)
#define TBL_CMP_T(E, T) CMP_OPS (TBL_CMP, E, T)
static const BinFn arith_fns[N_ARITH][GRAPH_DTYPE_LAST] = { RT_FOREACH_ALL (TBL_ARITH_T) };
static const BinFn cmp_fns[N_CMP][GRAPH_DTYPE_LAST] = { RT_FOREACH_ALL (TBL_CMP_T) };

/* ---- unary ---------------------------------------------------------------- */

typedef struct
{
  double alpha, beta, gamma;
} UParams;

typedef void (*UnFn) (gint64 n, const void *a, void *o, const UParams *p);

static inline double
sigmoid (double x)
{
  return x >= 0 ? 1.0 / (1.0 + exp (-x)) : exp (x) / (1.0 + exp (x));
}

/* X(E, T, name, expr over x of type T, params p) */
#define UNARY_OPS(X, E, T)                                                           \
  X (E, T, Neg, WRAP (T, 0 - U64 (x), -x))                                          \
  X (E, T, Abs, x < 0 ? WRAP (T, 0 - U64 (x), -x) : x)                               \
  X (E, T, Sign, (x > 0) - (x < 0))                                                  \
  X (E, T, Relu, x > 0 ? x : 0)                                                      \
  X (E, T, Not, !x)                                                                  \
  X (E, T, Sqrt, sqrt ((double) x))                                                  \
  X (E, T, Exp, exp ((double) x))                                                    \
  X (E, T, Log, log ((double) x))                                                    \
  X (E, T, Sin, sin ((double) x))                                                    \
  X (E, T, Cos, cos ((double) x))                                                    \
  X (E, T, Tan, tan ((double) x))                                                    \
  X (E, T, Asin, asin ((double) x))                                                  \
  X (E, T, Acos, acos ((double) x))                                                  \
  X (E, T, Atan, atan ((double) x))                                                  \
  X (E, T, Sinh, sinh ((double) x))                                                  \
  X (E, T, Cosh, cosh ((double) x))                                                  \
  X (E, T, Asinh, asinh ((double) x))                                                \
  X (E, T, Acosh, acosh ((double) x))                                                \
  X (E, T, Atanh, atanh ((double) x))                                                \
  X (E, T, Tanh, tanh ((double) x))                                                  \
  X (E, T, Sigmoid, sigmoid ((double) x))                                            \
  X (E, T, Erf, erf ((double) x))                                                    \
  X (E, T, Floor, floor ((double) x))                                                \
  X (E, T, Ceil, ceil ((double) x))                                                  \
  X (E, T, Round, nearbyint ((double) x))                                            \
  X (E, T, Reciprocal, 1.0 / (double) x)                                             \
  X (E, T, Softplus, x > 0 ? x + log1p (exp (-(double) x)) : log1p (exp ((double) x))) \
  X (E, T, Softsign, x / (1.0 + fabs ((double) x)))                                  \
  X (E, T, LeakyRelu, x >= 0 ? (double) x : p->alpha * x)                            \
  X (E, T, Elu, x >= 0 ? (double) x : p->alpha * expm1 ((double) x))                 \
  X (E, T, Celu, fmax (0.0, (double) x) + fmin (0.0, p->alpha * expm1 ((double) x / p->alpha))) \
  X (E, T, Selu, p->gamma * (x > 0 ? (double) x : p->alpha * expm1 ((double) x)))    \
  X (E, T, ThresholdedRelu, x > p->alpha ? (double) x : 0.0)                         \
  X (E, T, HardSigmoid, fmax (0.0, fmin (1.0, p->alpha * x + p->beta)))              \
  X (E, T, HardSwish, x * fmax (0.0, fmin (1.0, x / 6.0 + 0.5)))                     \
  X (E, T, Shrink, x < -p->alpha ? x + p->beta : x > p->alpha ? x - p->beta : 0)     \
  X (E, T, Identity, x)

#define GEN_UN(E, T, name, expr)                                                   \
  static void un_##name##_##E (gint64 n, const void *va, void *vo, const UParams *p) \
  {                                                                                \
    const T *A = va;                                                               \
    T *o = vo;                                                                     \
    (void) p;                                                                      \
    for (gint64 i = 0; i < n; i++)                                                 \
      {                                                                            \
        T x = A[i];                                                                \
        o[i] = RT_STORE_AS (E, T, (expr));                                         \
      }                                                                            \
  }
#define GEN_UN_T(E, T) UNARY_OPS (GEN_UN, E, T)
RT_FOREACH_ALL (GEN_UN_T)
enum { UNARY_OPS (ENUM_OP, 0, 0) N_UNARY };
#define TBL_UN(E, T, name, expr) [OP_##name][GRAPH_DTYPE_##E] = un_##name##_##E,
#define TBL_UN_T(E, T) UNARY_OPS (TBL_UN, E, T)
static const UnFn unary_fns[N_UNARY][GRAPH_DTYPE_LAST] = { RT_FOREACH_ALL (TBL_UN_T) };

/* float Erf: 16 at a time from polynomials (verf.c), as the fused Gelu. */
static void
un_erf_float_vector (gint64 n, const void *va, void *vo, const UParams *p)
{
  (void) p;
  rt_verf (va, vo, n);
}

static UnFn
unary_fn (int index, GraphDType dt)
{
  if (index == OP_Erf && dt == GRAPH_DTYPE_FLOAT)
    return un_erf_float_vector;
  return unary_fns[index][dt];
}

/* Per-op attribute defaults, indexed by the UNARY_OPS enum (ops with
 * none need no line).  A kernel row's .data points at its op's entry
 * (RT_UNARY), so the row, the loops and the defaults cannot disagree. */
typedef struct
{
  double      alpha, beta, gamma;
  const char *alpha_name, *beta_name, *gamma_name;
} UnaryInfo;

static const UnaryInfo unary_info[N_UNARY] = {
  [OP_LeakyRelu] = { .alpha = 0.01, .alpha_name = "alpha" },
  [OP_Elu] = { .alpha = 1.0, .alpha_name = "alpha" },
  [OP_Celu] = { .alpha = 1.0, .alpha_name = "alpha" },
  [OP_Selu] = { .alpha = 1.67326319217681884765625, .gamma = 1.05070102214813232421875,
                .alpha_name = "alpha", .gamma_name = "gamma" },
  [OP_ThresholdedRelu] = { .alpha = 1.0, .alpha_name = "alpha" },
  [OP_HardSigmoid] = { .alpha = 0.2, .beta = 0.5, .alpha_name = "alpha", .beta_name = "beta" },
  [OP_Shrink] = { .alpha = 0.5, .beta = 0.0, .alpha_name = "lambd", .beta_name = "bias" },
};

/* The op names, for rt_elementwise_unary's callers (ATen kernels). */
#define NAME_UN(E, T, name, expr) [OP_##name] = #name,
static const char *const unary_names[N_UNARY] = { UNARY_OPS (NAME_UN, 0, 0) };

static int
unary_lookup (const char *op)
{
  for (int i = 0; i < N_UNARY; i++)
    if (strcmp (unary_names[i], op) == 0)
      return i;
  return -1;
}

typedef struct
{
  UnFn            fn;
  const RtTensor *a;
  RtTensor       *o;
  const UParams  *p;
} UnaryJob;

static void
unary_range (gint64 begin, gint64 end, gpointer data)
{
  UnaryJob *j = data;
  gsize es = rt_dtype_size (j->a->dtype), eo = rt_dtype_size (j->o->dtype);
  j->fn (end - begin, (const char *) j->a->data + (gsize) begin * es,
         (char *) j->o->data + (gsize) begin * eo, j->p);
}

/* Element ranges in parallel over large tensors (rt_parallel_for). */
static void
unary_run (RtCall *call, UnFn fn, const RtTensor *a, RtTensor *o, const UParams *p)
{
  UnaryJob job = { fn, a, o, p };
  rt_parallel_for (call, a->numel, 16384, unary_range, &job);
}

gboolean
rt_elementwise_unary (RtCall *call, const RtTensor *a, const char *op, double alpha, double beta,
                      double gamma, GError **error)
{
  int index = unary_lookup (op);
  UParams p = { alpha, beta, gamma };
  g_return_val_if_fail (index >= 0, FALSE);
  UnFn fn = unary_fn (index, a->dtype);
  if (fn == NULL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "element type %s is not supported",
                     graph_dtype_name (a->dtype));
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  unary_run (call, fn, a, o, &p);
  return TRUE;
}

static gboolean
k_unary (RtCall *call, GError **error)
{
  const UnaryInfo *info = call->data;   /* &unary_info[OP_x] (RT_UNARY) */
  const RtTensor *a = call->inputs[0];
  UParams p = {
    info->alpha_name ? rt_attr_f (call->node, info->alpha_name, info->alpha) : info->alpha,
    info->beta_name ? rt_attr_f (call->node, info->beta_name, info->beta) : info->beta,
    info->gamma_name ? rt_attr_f (call->node, info->gamma_name, info->gamma) : info->gamma,
  };
  UnFn fn = unary_fn ((int) (info - unary_info), a->dtype);
  if (fn == NULL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "element type %s is not supported",
                     graph_dtype_name (a->dtype));
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  unary_run (call, fn, a, o, &p);
  return TRUE;
}

/* Dropout in inference: identity; the optional mask output is all true. */
/* ---- binary --------------------------------------------------------------- */

/* A binary kernel row's .data: which loop table and which op in it. */
typedef struct
{
  int      index;
  gboolean compare;
} BinaryInfo;

#define ARITH_INFO(E, T, name, expr) [OP_##name] = { OP_##name, FALSE },
#define CMP_INFO(E, T, name, expr) [OP_##name] = { OP_##name, TRUE },
static const BinaryInfo arith_info[N_ARITH] = { ARITH_OPS (ARITH_INFO, 0, 0) };
static const BinaryInfo cmp_info[N_CMP] = { CMP_OPS (CMP_INFO, 0, 0) };
#define NAME_BIN(E, T, name, expr) #name,
static const char *const arith_names[N_ARITH] = { ARITH_OPS (NAME_BIN, 0, 0) };
static const char *const cmp_names[N_CMP] = { CMP_OPS (NAME_BIN, 0, 0) };

static gboolean
binary_run (RtCall *call, const RtTensor *a, const RtTensor *b, int index, gboolean compare,
            GError **error)
{
  RtTensor conv;
  if (b->dtype != a->dtype)
    {
      /* Pow's exponent may have its own type; everything else must match. */
      if (index != OP_Pow || compare)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                         "inputs have different element types (%s and %s)",
                         graph_dtype_name (a->dtype), graph_dtype_name (b->dtype));
          return FALSE;
        }
      conv = *b;
      conv.dtype = a->dtype;
      conv.data = rt_call_scratch (call, (gsize) b->numel * rt_dtype_size (a->dtype), error);
      if (conv.data == NULL || !rt_convert (b->data, b->dtype, conv.data, a->dtype, b->numel))
        return FALSE;
      b = &conv;
    }
  BinFn fn = compare ? cmp_fns[index][a->dtype] : arith_fns[index][a->dtype];
  if (fn == NULL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "element type %s is not supported",
                     graph_dtype_name (a->dtype));
      return FALSE;
    }
  guint rank;
  gint64 dims[RT_MAX_RANK];
  if (!rt_broadcast_shape (call, a->rank, a->dims, b->rank, b->dims, &rank, dims, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, compare ? GRAPH_DTYPE_BOOL : a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  broadcast_apply (call, a, b, o, fn);
  return TRUE;
}

gboolean
rt_elementwise_binary (RtCall *call, const RtTensor *a, const RtTensor *b, const char *op,
                       GError **error)
{
  for (int i = 0; i < N_ARITH; i++)
    if (strcmp (arith_names[i], op) == 0)
      return binary_run (call, a, b, i, FALSE, error);
  for (int i = 0; i < N_CMP; i++)
    if (strcmp (cmp_names[i], op) == 0)
      return binary_run (call, a, b, i, TRUE, error);
  g_return_val_if_reached (FALSE);
}

static gboolean
k_binary (RtCall *call, GError **error)
{
  const BinaryInfo *info = call->data;   /* RT_ARITH / RT_CMP */
  if (!info->compare && info->index == OP_PRelu && call->opset < 7)
    {
      /* Before opset 7 a 1-D slope of C entries applies per channel. */
      const RtTensor *x = call->inputs[0], *slope = call->inputs[1];
      if (slope->rank == 1 && x->rank >= 2 && slope->dims[0] == x->dims[1] && slope->dims[0] != 1)
        {
          RtTensor s2 = *slope;
          s2.rank = x->rank - 1;
          for (guint i = 1; i < s2.rank; i++)
            s2.dims[i] = 1;
          return binary_run (call, x, &s2, OP_PRelu, FALSE, error);
        }
    }
  return binary_run (call, call->inputs[0], call->inputs[1], info->index, info->compare, error);
}

static gboolean
k_mod (RtCall *call, GError **error)
{
  if (call->inputs[0]->dtype == GRAPH_DTYPE_FLOAT16)
    return rt_run_as_float (call, k_mod, error);
  gboolean fmod_ = rt_attr_i (call->node, "fmod", 0) != 0;
  return binary_run (call, call->inputs[0], call->inputs[1], fmod_ ? OP_ModTrunc : OP_ModFloor,
                     FALSE, error);
}

static gboolean
k_bitshift (RtCall *call, GError **error)
{
  const char *dir = rt_attr_s (call->node, "direction", "");
  return binary_run (call, call->inputs[0], call->inputs[1],
                     strcmp (dir, "LEFT") == 0 ? OP_BitShiftLeft : OP_BitShiftRight, FALSE, error);
}

/* Sum, Mean, Max, Min: fold pairwise into the output. */
static gboolean
k_variadic (RtCall *call, GError **error)
{
  if (call->inputs[0]->dtype == GRAPH_DTYPE_FLOAT16)
    return rt_run_as_float (call, k_variadic, error);
  const char *op = graph_node_op_type (call->node);
  int index = strcmp (op, "Max") == 0 ? OP_Max : strcmp (op, "Min") == 0 ? OP_Min : OP_Add;
  const RtTensor *a = call->inputs[0];
  guint rank = a->rank;
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, rank * sizeof (gint64));
  for (guint i = 1; i < call->n_inputs; i++)
    {
      const RtTensor *b = call->inputs[i];
      if (b == NULL || b->dtype != a->dtype)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                         "input %u is absent or of another element type", i);
          return FALSE;
        }
      if (!rt_broadcast_shape (call, rank, dims, b->rank, b->dims, &rank, dims, error))
        return FALSE;
    }
  BinFn first = arith_fns[OP_First][a->dtype], fn = arith_fns[index][a->dtype];
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  broadcast_apply (call, a, a, o, first);
  for (guint i = 1; i < call->n_inputs; i++)
    broadcast_apply (call, o, call->inputs[i], o, fn);
  if (strcmp (op, "Mean") == 0)
    {
      for (gint64 k = 0; k < o->numel; k++)
        {
          if (o->dtype == GRAPH_DTYPE_FLOAT)
            ((float *) o->data)[k] /= (float) call->n_inputs;
          else
            ((double *) o->data)[k] /= (double) call->n_inputs;
        }
    }
  return TRUE;
}

/* ---- Where, Clip, Cast ---------------------------------------------------- */

/* Where over rows of the output's last axis: each row's starting offsets
 * in c, x, y from its index, then the row with the last axis' strides (0
 * where broadcast) in the element's own size. */
typedef struct
{
  const guint8 *c;
  const char   *x, *y;
  char         *o;
  gsize         es;
  guint         rank;   /* outer axes: all but the last */
  const gint64 *dims, *sc, *sx, *sy;
  gint64        inner, ic, ix, iy;   /* the last axis: length, strides */
} WhereJob;

#define WHERE_ROW(T)                                                        \
  {                                                                         \
    const T *xs = (const T *) j->x + ox, *ys = (const T *) j->y + oy;       \
    T *od = (T *) j->o + r * n;                                             \
    for (gint64 i = 0; i < n; i++)                                          \
      od[i] = cr[i * ic] ? xs[i * ix] : ys[i * iy];                         \
  }

static void
where_rows (gint64 r0, gint64 r1, gpointer data)
{
  const WhereJob *j = data;
  gint64 n = j->inner, ic = j->ic, ix = j->ix, iy = j->iy;
  for (gint64 r = r0; r < r1; r++)
    {
      gint64 oc = 0, ox = 0, oy = 0, rest = r;
      for (gint64 a = (gint64) j->rank - 1; a >= 0; a--)
        {
          gint64 i = rest % j->dims[a];
          rest /= j->dims[a];
          oc += i * j->sc[a];
          ox += i * j->sx[a];
          oy += i * j->sy[a];
        }
      const guint8 *cr = j->c + oc;
      switch (j->es)
        {
        case 1: WHERE_ROW (guint8) break;
        case 2: WHERE_ROW (guint16) break;
        case 4: WHERE_ROW (guint32) break;
        case 8: WHERE_ROW (guint64) break;
        default:
          for (gint64 i = 0; i < n; i++)
            memcpy (j->o + (r * n + i) * j->es,
                    cr[i * ic] ? j->x + (ox + i * ix) * j->es : j->y + (oy + i * iy) * j->es, j->es);
        }
    }
}
#undef WHERE_ROW

static gboolean
k_where (RtCall *call, GError **error)
{
  const RtTensor *c = call->inputs[0], *x = call->inputs[1], *y = call->inputs[2];
  if (c->dtype != GRAPH_DTYPE_BOOL || x->dtype != y->dtype)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "condition must be bool and X, Y of one element type");
      return FALSE;
    }
  guint rank;
  gint64 dims[RT_MAX_RANK];
  if (!rt_broadcast_shape (call, c->rank, c->dims, x->rank, x->dims, &rank, dims, error)
      || !rt_broadcast_shape (call, rank, dims, y->rank, y->dims, &rank, dims, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, x->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  if (o->numel == 0)
    return TRUE;
  gint64 sc[RT_MAX_RANK], sx[RT_MAX_RANK], sy[RT_MAX_RANK];
  rt_broadcast_strides (c, rank, dims, sc);
  rt_broadcast_strides (x, rank, dims, sx);
  rt_broadcast_strides (y, rank, dims, sy);
  gint64 inner = rank ? dims[rank - 1] : 1;
  WhereJob j = { c->data, x->data, y->data, o->data, rt_dtype_size (x->dtype), rank ? rank - 1 : 0,
                 dims, sc, sx, sy, inner, rank ? sc[rank - 1] : 0, rank ? sx[rank - 1] : 0,
                 rank ? sy[rank - 1] : 0 };
  /* rows of about 16 Ki elements or more a chunk */
  rt_parallel_for (call, o->numel / inner, MAX (1, 16384 / inner), where_rows, &j);
  return TRUE;
}

/* Clip in the element type's own domain: the bounds are read as T (int64
 * bounds through int64, never through double, which cannot hold
 * INT64_MAX); an absent bound is the type's limit, i.e. no bound. */
#define GEN_CLIP(E, T)                                                   \
  static void clip_##E (gint64 n, const void *va, void *vo, const RtTensor *tlo, \
                        const RtTensor *thi, double flo, double fhi)     \
  {                                                                      \
    const T *a = va;                                                     \
    T *o = vo;                                                           \
    gboolean has_lo = tlo != NULL, has_hi = thi != NULL;                 \
    T l = 0, h = 0;                                                      \
    if (tlo)                                                             \
      rt_convert (tlo->data, tlo->dtype, &l, GRAPH_DTYPE_##E, 1);        \
    else if (!isinf (flo))                                               \
      rt_convert (&flo, GRAPH_DTYPE_DOUBLE, &l, GRAPH_DTYPE_##E, 1), has_lo = TRUE; \
    if (thi)                                                             \
      rt_convert (thi->data, thi->dtype, &h, GRAPH_DTYPE_##E, 1);        \
    else if (!isinf (fhi))                                               \
      rt_convert (&fhi, GRAPH_DTYPE_DOUBLE, &h, GRAPH_DTYPE_##E, 1), has_hi = TRUE; \
    for (gint64 i = 0; i < n; i++)                                       \
      {                                                                  \
        T v = a[i];                                                      \
        if (has_lo && v < l)                                             \
          v = l;                                                         \
        if (has_hi && v > h)                                             \
          v = h;                                                         \
        o[i] = v;                                                        \
      }                                                                  \
  }
RT_FOREACH_NUMERIC (GEN_CLIP)

typedef struct
{
  const RtTensor *a;
  RtTensor       *o;
  const RtTensor *tlo, *thi;
  double          flo, fhi;
} ClipJob;

static void
clip_range (gint64 begin, gint64 end, gpointer data)
{
  const ClipJob *j = data;
  gsize es = rt_dtype_size (j->a->dtype);
  const char *a = (const char *) j->a->data + (gsize) begin * es;
  char *o = (char *) j->o->data + (gsize) begin * es;
  switch (j->a->dtype)
    {
#define CASE(E, T) case GRAPH_DTYPE_##E: clip_##E (end - begin, a, o, j->tlo, j->thi, j->flo, j->fhi); break;
      RT_FOREACH_NUMERIC (CASE)
#undef CASE
    default:
      break;
    }
}

static gboolean
k_clip (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  /* Before 11 the bounds are float attributes; from 11, optional inputs. */
  double flo = -INFINITY, fhi = INFINITY;
  const RtTensor *tlo = NULL, *thi = NULL;
  if (call->opset < 11)
    {
      flo = rt_attr_f (call->node, "min", -INFINITY);
      fhi = rt_attr_f (call->node, "max", INFINITY);
    }
  else
    {
      if (call->n_inputs > 1 && call->inputs[1] && call->inputs[1]->numel == 1)
        tlo = call->inputs[1];
      if (call->n_inputs > 2 && call->inputs[2] && call->inputs[2]->numel == 1)
        thi = call->inputs[2];
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  ClipJob job = { a, o, tlo, thi, flo, fhi };
  rt_parallel_for (call, a->numel, 32768, clip_range, &job);
  return TRUE;
}

static gboolean
k_cast (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gint64 to;
  if (!graph_node_get_i (call->node, "to", &to))
    {
      /* CastLike: the target type is input 1's. */
      if (call->n_inputs < 2 || call->inputs[1] == NULL)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "missing attribute 'to'");
          return FALSE;
        }
      to = call->inputs[1]->dtype;
    }
  if (a->dtype == GRAPH_DTYPE_STRING || to == GRAPH_DTYPE_STRING)
    return rt_cast_string (call, a, (GraphDType) to, error);
  if (!graph_dtype_is_valid ((int) to) || rt_dtype_size ((GraphDType) to) == 0
      || to == GRAPH_DTYPE_COMPLEX64 || to == GRAPH_DTYPE_COMPLEX128)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "cannot cast to element type %" G_GINT64_FORMAT,
                     to);
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, (GraphDType) to, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  if (!rt_convert (a->data, a->dtype, o->data, o->dtype, a->numel))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "cannot cast from %s to %s",
                     graph_dtype_name (a->dtype), graph_dtype_name (o->dtype));
      return FALSE;
    }
  return TRUE;
}

/* One row per op: the op type is the UNARY_OPS/ARITH_OPS/CMP_OPS name, and
 * .data its entry, so the row cannot point at another op's loops. */
#define RT_UNARY(name, dt) { RT_ONNX (#name, 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = (dt), \
                             .run = k_unary, .data = &unary_info[OP_##name] }
#define RT_ARITH(name, dt) { RT_ONNX (#name, 1), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = (dt), \
                             .run = k_binary, .data = &arith_info[OP_##name] }
#define RT_CMP(name, dt) { RT_ONNX (#name, 1), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = (dt), \
                           .run = k_binary, .data = &cmp_info[OP_##name] }
#define NUM_SIGNED (RT_DT_FLOATS | RT_DT (INT8) | RT_DT (INT16) | RT_DT (INT32) | RT_DT (INT64))

static const RtKernelDef defs[] = {
  RT_UNARY (Neg, NUM_SIGNED), RT_UNARY (Abs, RT_DT_NUMERIC), RT_UNARY (Sign, RT_DT_NUMERIC),
  RT_UNARY (Relu, NUM_SIGNED), RT_UNARY (Not, RT_DT (BOOL)), RT_UNARY (Sqrt, RT_DT_FLOATS),
  RT_UNARY (Exp, RT_DT_FLOATS), RT_UNARY (Log, RT_DT_FLOATS), RT_UNARY (Sin, RT_DT_FLOATS),
  RT_UNARY (Cos, RT_DT_FLOATS), RT_UNARY (Tan, RT_DT_FLOATS), RT_UNARY (Asin, RT_DT_FLOATS),
  RT_UNARY (Acos, RT_DT_FLOATS), RT_UNARY (Atan, RT_DT_FLOATS), RT_UNARY (Sinh, RT_DT_FLOATS),
  RT_UNARY (Cosh, RT_DT_FLOATS), RT_UNARY (Asinh, RT_DT_FLOATS), RT_UNARY (Acosh, RT_DT_FLOATS),
  RT_UNARY (Atanh, RT_DT_FLOATS), RT_UNARY (Tanh, RT_DT_FLOATS), RT_UNARY (Sigmoid, RT_DT_FLOATS),
  RT_UNARY (Erf, RT_DT_FLOATS), RT_UNARY (Floor, RT_DT_FLOATS), RT_UNARY (Ceil, RT_DT_FLOATS),
  RT_UNARY (Round, RT_DT_FLOATS), RT_UNARY (Reciprocal, RT_DT_FLOATS), RT_UNARY (Softplus, RT_DT_FLOATS),
  RT_UNARY (Softsign, RT_DT_FLOATS), RT_UNARY (LeakyRelu, RT_DT_FLOATS), RT_UNARY (Elu, RT_DT_FLOATS),
  RT_UNARY (Celu, RT_DT_FLOATS), RT_UNARY (Selu, RT_DT_FLOATS), RT_UNARY (ThresholdedRelu, RT_DT_FLOATS),
  RT_UNARY (HardSigmoid, RT_DT_FLOATS), RT_UNARY (HardSwish, RT_DT_FLOATS),
  RT_UNARY (Shrink, RT_DT_NUMERIC),
  RT_ARITH (Add, RT_DT_NUMERIC), RT_ARITH (Sub, RT_DT_NUMERIC), RT_ARITH (Mul, RT_DT_NUMERIC),
  RT_ARITH (Div, RT_DT_NUMERIC), RT_ARITH (Pow, RT_DT_NUMERIC), RT_ARITH (PRelu, RT_DT_NUMERIC),
  RT_CMP (Equal, RT_DT_ALL), RT_CMP (Greater, RT_DT_NUMERIC), RT_CMP (Less, RT_DT_NUMERIC),
  RT_CMP (GreaterOrEqual, RT_DT_NUMERIC), RT_CMP (LessOrEqual, RT_DT_NUMERIC),
  RT_CMP (And, RT_DT (BOOL)), RT_CMP (Or, RT_DT (BOOL)), RT_CMP (Xor, RT_DT (BOOL)),
  { RT_ONNX ("Mod", 10), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC | RT_DT (FLOAT16), .run = k_mod },
  { RT_ONNX ("BitShift", 11), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = RT_DT_INTS, .run = k_bitshift },
  { RT_ONNX ("Sum", 1), RT_IN (1, RT_VARIADIC), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_variadic },
  { RT_ONNX ("Mean", 1), RT_IN (1, RT_VARIADIC), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_variadic },
  { RT_ONNX ("Max", 1), RT_IN (1, RT_VARIADIC), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC | RT_DT (FLOAT16), .run = k_variadic },
  { RT_ONNX ("Min", 1), RT_IN (1, RT_VARIADIC), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC | RT_DT (FLOAT16), .run = k_variadic },
  { RT_ONNX ("Where", 9), RT_IN (3, 3), RT_OUT (1, 1), .dtypes = RT_DT (BOOL), .run = k_where },
  { RT_ONNX ("Clip", 1), RT_IN (1, 3), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_clip },
  { RT_ONNX ("Cast", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_ALL | RT_DT (FLOAT16) | RT_DT (BFLOAT16) | RT_DT (STRING), .run = k_cast },
  { RT_ONNX ("CastLike", 15), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = RT_DT_ALL | RT_DT (FLOAT16) | RT_DT (BFLOAT16) | RT_DT (STRING), .run = k_cast },
};

RT_KERNEL_TABLE (rt_kernels_elementwise, defs);
