/* Lookup in the generated ONNX schema table (export/check/onnx-schemas-generated.c). */
#include "export/check/schema-private.h"
#include <string.h>

static const char *
schema_domain (const char *domain)
{
  if (domain == NULL || strcmp (domain, GRAPH_ONNX_DOMAIN) == 0 || strcmp (domain, "ai.onnx") == 0)
    return "";
  return domain;
}

static int
key_cmp (const char *domain, const char *op, const OnnxSchema *s)
{
  int c = strcmp (domain, s->domain);
  return c != 0 ? c : strcmp (op, s->name);
}

/* Index of the first schema of (domain, op), or -1. */
static int
find_first (const char *domain, const char *op)
{
  int lo = 0, hi = (int) onnx_schemas_count;   /* first index with key >= (domain, op) */
  while (lo < hi)
    {
      int mid = lo + (hi - lo) / 2;
      if (key_cmp (domain, op, &onnx_schemas[mid]) > 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < (int) onnx_schemas_count && key_cmp (domain, op, &onnx_schemas[lo]) == 0)
    return lo;
  return -1;
}

const OnnxSchema *
onnx_schema_first (const char *domain, const char *op)
{
  g_return_val_if_fail (op != NULL, NULL);
  int i = find_first (schema_domain (domain), op);
  return i < 0 ? NULL : &onnx_schemas[i];
}

const OnnxSchema *
onnx_schema_lookup (const char *domain, const char *op, gint64 opset)
{
  g_return_val_if_fail (op != NULL, NULL);
  domain = schema_domain (domain);
  int i = find_first (domain, op);
  if (i < 0)
    return NULL;
  const OnnxSchema *best = NULL;
  for (; i < (int) onnx_schemas_count && key_cmp (domain, op, &onnx_schemas[i]) == 0; i++)
    if (onnx_schemas[i].since_version <= opset)
      best = &onnx_schemas[i];
  return best;
}

gboolean
onnx_schema_domain_known (const char *domain)
{
  domain = schema_domain (domain);
  for (guint i = 0; i < onnx_schemas_count; i++)   /* few domains: linear is fine */
    if (strcmp (onnx_schemas[i].domain, domain) == 0)
      return TRUE;
  return FALSE;
}

int
onnx_schema_max_opset (void)
{
  return onnx_schema_max_default_opset;
}

guint
onnx_schema_count (void)
{
  return onnx_schemas_count;
}

const OnnxSchema *
onnx_schema_nth (guint i)
{
  g_return_val_if_fail (i < onnx_schemas_count, NULL);
  return &onnx_schemas[i];
}

const OnnxSchemaAttr *
onnx_schema_find_attr (const OnnxSchema *s, const char *name)
{
  for (int i = 0; i < s->n_attrs; i++)
    if (strcmp (s->attrs[i].name, name) == 0)
      return &s->attrs[i];
  return NULL;
}

static const OnnxSchemaParam *
bind (const OnnxSchemaParam *formals, int n, guint i)
{
  if (n == 0)
    return NULL;
  if (i < (guint) n)
    return &formals[i];
  return formals[n - 1].option == ONNX_PARAM_V ? &formals[n - 1] : NULL;
}

const OnnxSchemaParam *
onnx_schema_input_param (const OnnxSchema *s, guint i)
{
  return bind (s->params, s->n_inputs, i);
}

const OnnxSchemaParam *
onnx_schema_output_param (const OnnxSchema *s, guint i)
{
  return bind (s->params + s->n_inputs, s->n_outputs, i);
}

const OnnxTypeSet *
onnx_schema_typeset (guint index)
{
  return &onnx_schema_typesets[index];
}

static void
append_masked (GString *out, const char *wrap_open, const char *wrap_close, guint32 mask)
{
  if (mask == 0)
    return;
  if (out->len > 0)
    g_string_append (out, " or ");
  g_string_append (out, wrap_open);
  gboolean first = TRUE;
  for (int d = 1; d < GRAPH_DTYPE_LAST; d++)
    if (mask & (1u << d))
      {
        g_string_append_printf (out, "%s%s", first ? "" : "|", graph_dtype_name ((GraphDType) d));
        first = FALSE;
      }
  g_string_append (out, wrap_close);
}

char *
onnx_type_set_to_string (const OnnxTypeSet *ts)
{
  GString *out = g_string_new (NULL);
  append_masked (out, "tensor(", ")", ts->tensor);
  append_masked (out, "seq(tensor(", "))", ts->seq);
  append_masked (out, "optional(tensor(", "))", ts->opt_tensor);
  append_masked (out, "optional(seq(tensor(", ")))", ts->opt_seq);
  if (ts->other & 1)
    g_string_append (out, out->len ? " or map(...)" : "map(...)");
  if (ts->other & 2)
    g_string_append (out, out->len ? " or seq(map(...))" : "seq(map(...))");
  return g_string_free (out, FALSE);
}

const char *
onnx_attr_type_name (OnnxAttrType t)
{
  static const char *const names[] = {
    "undefined", "float", "int", "string", "tensor", "graph", "floats", "ints", "strings",
    "tensors", "graphs", "sparse_tensor", "sparse_tensors", "type_proto", "type_protos",
  };
  return (guint) t < G_N_ELEMENTS (names) ? names[t] : "unknown";
}

OnnxAttrType
onnx_attr_type_from_graph (GraphAttrKind k)
{
  switch (k)
    {
    case GRAPH_ATTR_F: return ONNX_ATTR_FLOAT;
    case GRAPH_ATTR_I: return ONNX_ATTR_INT;
    case GRAPH_ATTR_S: return ONNX_ATTR_STRING;
    case GRAPH_ATTR_T: return ONNX_ATTR_TENSOR;
    case GRAPH_ATTR_G: return ONNX_ATTR_GRAPH;
    case GRAPH_ATTR_TP: return ONNX_ATTR_TYPE_PROTO;
    case GRAPH_ATTR_FS: return ONNX_ATTR_FLOATS;
    case GRAPH_ATTR_IS: return ONNX_ATTR_INTS;
    case GRAPH_ATTR_SS: return ONNX_ATTR_STRINGS;
    case GRAPH_ATTR_TS: return ONNX_ATTR_TENSORS;
    case GRAPH_ATTR_GS: return ONNX_ATTR_GRAPHS;
    case GRAPH_ATTR_TPS: return ONNX_ATTR_TYPE_PROTOS;
    }
  return ONNX_ATTR_UNDEFINED;
}
