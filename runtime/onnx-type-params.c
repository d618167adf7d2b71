/* symonnx — the check of an ONNX node's inputs against its operator's type
 * parameters (runtime/onnx-type-params.h). */
#include "runtime/onnx-type-params.h"
#include <string.h>

/* The entry of `op` for `opset`: the newest with since <= opset, or NULL. */
static const RtOnnxTypeParams *
lookup (const char *op, gint64 opset)
{
  gsize lo = 0, hi = rt_onnx_type_params_len;
  while (lo < hi)   /* the first entry of op */
    {
      gsize mid = lo + (hi - lo) / 2;
      if (strcmp (rt_onnx_type_params[mid].op, op) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  const RtOnnxTypeParams *found = NULL;
  for (gsize i = lo; i < rt_onnx_type_params_len && strcmp (rt_onnx_type_params[i].op, op) == 0; i++)
    if (rt_onnx_type_params[i].since <= opset)
      found = &rt_onnx_type_params[i];
  return found;
}

/* Field i of "T,.,T*" (the last one repeating when it ends in '*'): its
 * start and length (0 for "."); FALSE past the formals. */
static gboolean
field (const char *params, guint i, const char **start, int *len)
{
  const char *p = params;
  for (guint k = 0; k < i; k++)
    {
      const char *end = strchr (p, ',');
      if (end == NULL)
        {
          gsize l = strlen (p);
          if (l == 0 || p[l - 1] != '*')
            return FALSE;
          break;   /* a homogeneous variadic: every later input takes it */
        }
      p = end + 1;
    }
  const char *end = strchr (p, ',');
  int l = end ? (int) (end - p) : (int) strlen (p);
  if (l > 0 && p[l - 1] == '*')
    l--;
  *start = p;
  *len = l == 1 && p[0] == '.' ? 0 : l;
  return TRUE;
}

gboolean
rt_onnx_type_params_check (const char *op, gint64 opset, guint n_inputs,
                           const RtTensor *const *inputs, guint *a, guint *b,
                           const char **param, int *param_len)
{
  const RtOnnxTypeParams *e = lookup (op, opset);
  if (e == NULL)
    return TRUE;
  for (guint j = 1; j < n_inputs; j++)
    {
      const char *pj;
      int lj;
      if (!field (e->params, j, &pj, &lj))
        break;
      if (lj == 0 || inputs[j] == NULL || inputs[j]->kind != RT_KIND_TENSOR)
        continue;
      for (guint i = 0; i < j; i++)
        {
          const char *pi;
          int li;
          if (!field (e->params, i, &pi, &li) || li != lj || strncmp (pi, pj, (gsize) lj) != 0
              || inputs[i] == NULL || inputs[i]->kind != RT_KIND_TENSOR)
            continue;
          if (inputs[i]->dtype != inputs[j]->dtype)
            {
              *a = i;
              *b = j;
              *param = pj;
              *param_len = lj;
              return FALSE;
            }
          break;   /* i matches j; the earlier ones were compared with i */
        }
    }
  return TRUE;
}
