/* Reading types: everything graph_type_to_string() writes and what PyTorch
 * 1.13 prints for traced graphs ("Float(1, 3, strides=[3, 1],
 * requires_grad=0, device=cpu)", "int[]", "Tensor?", "(Tensor, int)",
 * "Dict(str, Tensor)", "__torch__.torchvision.models.resnet.ResNet"). */
#include "ir/text-private.h"
#include <string.h>

/* Builtin trace types that have no structure of their own. */
static const char *const named_types[] = {
  "Layout", "ScalarType", "MemoryFormat", "Generator", "Any", "Storage", "QScheme",
  "Stream", "Capsule", "complex", "SymInt", "Quantizer", "AnyEnumType", "Type",
  "Function",   /* a scripted function called from a trace: prim::Constant[name="f"] */
};

static gboolean
is_class_char (int ch)
{
  return text_is_word_char (ch) || ch == '.';
}

static gboolean
is_device_char (int ch)
{
  return text_is_word_char (ch) || ch == ':' || ch == '.' || ch == '-';
}

static gboolean
is_symbol_char (int ch)
{
  return text_is_name_char (ch);
}

/* The inside of "Float( ... )": dims, then strides=, requires_grad=,
 * device= in any order.  The cursor is after '('. */
static GraphType *
parse_tensor_args (TextCursor *c, GraphTypeKind kind, GraphDType dtype, GError **error)
{
  GraphDim dims[TENSOR_MAX_RANK];
  char *symbols[TENSOR_MAX_RANK] = { NULL };
  int rank = 0;
  gboolean have_strides = FALSE, keywords = FALSE;
  gint64 strides[TENSOR_MAX_RANK];
  guint n_strides = 0;
  gsize strides_pos = 0;
  int requires_grad = -1;
  g_autofree char *device = NULL;
  gboolean ok = FALSE;
  gsize type_pos = c->pos;

  text_skip_blank (c);
  if (!text_eat (c, ')'))
    for (;;)
      {
        text_skip_blank (c);
        gsize item = c->pos;
        int ch = text_peek (c);
        if (g_ascii_isdigit (ch) || ch == '-' || ch == '*'
            || (is_symbol_char (ch) && !keywords))
          {
            /* A dim, unless it is a keyword (word followed by '='). */
            gsize save = c->pos;
            if (g_ascii_isalpha (ch) || ch == '_')
              {
                while (text_is_word_char (text_peek (c)))
                  c->pos++;
                gboolean kw = text_peek (c) == '=';
                c->pos = save;
                if (kw)
                  goto keyword;
              }
            if (keywords)
              {
                text_error_at (c, item, error, "dims must come before strides, requires_grad "
                               "and device in a tensor type");
                goto out;
              }
            if (rank >= TENSOR_MAX_RANK)
              {
                text_error_at (c, item, error, "tensor type has more than %d dims",
                               TENSOR_MAX_RANK);
                goto out;
              }
            if (text_eat (c, '*'))
              dims[rank] = (GraphDim) { GRAPH_DIM_UNKNOWN, -1, NULL };
            else if (g_ascii_isdigit (ch) || ch == '-')
              {
                TextNumber num;
                gint64 v;
                if (!text_lex_number (c, &num, error)
                    || !text_number_to_int64 (c, &num, &v, error))
                  goto out;
                if (v < 0)
                  {
                    text_error_at (c, item, error, "negative dim %" G_GINT64_FORMAT, v);
                    goto out;
                  }
                dims[rank] = (GraphDim) { GRAPH_DIM_STATIC, v, NULL };
              }
            else
              {
                symbols[rank] = text_lex_word (c, is_symbol_char, FALSE, "a dim", error);
                if (symbols[rank] == NULL)
                  goto out;
                dims[rank] = (GraphDim) { GRAPH_DIM_SYMBOLIC, -1, symbols[rank] };
              }
            rank++;
          }
        else
          {
          keyword:
            keywords = TRUE;
            if (text_eat_str (c, "strides="))
              {
                strides_pos = item;
                if (have_strides)
                  {
                    text_error_at (c, item, error, "strides given twice");
                    goto out;
                  }
                have_strides = TRUE;
                if (!text_eat (c, '['))
                  {
                    text_expected (c, "'[' after strides=", error);
                    goto out;
                  }
                text_skip_blank (c);
                if (!text_eat (c, ']'))
                  for (;;)
                    {
                      TextNumber num;
                      text_skip_blank (c);
                      if (n_strides >= TENSOR_MAX_RANK)
                        {
                          text_error_at (c, c->pos, error, "more than %d strides", TENSOR_MAX_RANK);
                          goto out;
                        }
                      if (!text_lex_number (c, &num, error)
                          || !text_number_to_int64 (c, &num, &strides[n_strides++], error))
                        goto out;
                      text_skip_blank (c);
                      if (text_eat (c, ']'))
                        break;
                      if (!text_eat (c, ','))
                        {
                          text_expected (c, "',' or ']' in strides", error);
                          goto out;
                        }
                    }
              }
            else if (text_eat_str (c, "requires_grad="))
              {
                if (text_eat (c, '0') || text_eat_str (c, "False"))
                  requires_grad = 0;
                else if (text_eat (c, '1') || text_eat_str (c, "True"))
                  requires_grad = 1;
                else
                  {
                    text_expected (c, "0 or 1 after requires_grad=", error);
                    goto out;
                  }
              }
            else if (text_eat_str (c, "device="))
              {
                g_free (device);
                device = text_lex_word (c, is_device_char, FALSE, "a device name", error);
                if (device == NULL)
                  goto out;
              }
            else
              {
                text_expected (c, "a dim, strides=, requires_grad= or device=", error);
                goto out;
              }
          }
        text_skip_blank (c);
        if (text_eat (c, ')'))
          break;
        if (!text_eat (c, ','))
          {
            text_expected (c, "',' or ')' in a tensor type", error);
            goto out;
          }
      }
  if (have_strides && n_strides != (guint) rank)
    {
      text_error_at (c, strides_pos, error, "%u strides for a tensor type of rank %d",
                     n_strides, rank);
      goto out;
    }
  /* The static dims alone already bound the size: refuse what no tensor
   * can be before anything sizes buffers from it. */
  {
    gint64 numel = 1;
    gboolean overflow = FALSE;
    for (int i = 0; i < rank && !overflow; i++)
      if (dims[i].kind == GRAPH_DIM_STATIC)
        overflow = !g_uint64_checked_mul ((guint64 *) &numel, (guint64) numel,
                                          (guint64) dims[i].value) || numel < 0;
    gsize esize = graph_dtype_is_valid (dtype) ? MAX (graph_dtype_size (dtype), 1) : 1;
    if (overflow || (guint64) numel > GRAPH_MAX_DECLARED_BYTES / esize)
      {
        g_autofree char *count = overflow ? g_strdup ("more than 2^63")
                                          : g_strdup_printf ("%" G_GINT64_FORMAT, numel);
        text_error_at (c, type_pos, error, "the tensor type declares %s elements, more than the "
                       "2^48 bytes any tensor may hold", count);
        goto out;
      }
  }
  ok = TRUE;
out:
  if (!ok)
    {
      for (int i = 0; i < TENSOR_MAX_RANK; i++)
        g_clear_pointer (&symbols[i], g_free);
      return NULL;
    }
  GraphType *t = kind == GRAPH_TYPE_SPARSE_TENSOR
                   ? graph_type_new_sparse_tensor (dtype, rank, dims)
                   : graph_type_new_tensor (dtype, rank, dims);
  if (have_strides || requires_grad >= 0 || device != NULL)
    {
      GraphType *u = graph_type_with_trace_info (t, have_strides ? strides : NULL,
                                                 requires_grad, device);
      graph_type_unref (t);
      t = u;
    }
  for (int i = 0; i < TENSOR_MAX_RANK; i++)
    g_clear_pointer (&symbols[i], g_free);
  return t;
}

/* "Float", "Float(...)", "Tensor", "Tensor(...)"; the word was read. */
static GraphType *
parse_tensor_type (TextCursor *c, GraphTypeKind kind, GraphDType dtype, GError **error)
{
  GraphType *t;
  if (text_eat (c, '('))
    t = parse_tensor_args (c, kind, dtype, error);
  else
    t = kind == GRAPH_TYPE_SPARSE_TENSOR ? graph_type_new_sparse_tensor (dtype, -1, NULL)
                                         : graph_type_new_tensor (dtype, -1, NULL);
  /* PyTorch marks undefined tensors with a suffix; nothing to keep. */
  if (t)
    text_eat_str (c, "[Undefined]");
  return t;
}

/* The elements of a tuple type after its '(': "(T, T)", or for
 * NamedTuple(a : T, b : T) (a scripted function's typed tuple, such as
 * topk's values and indices) with each field's name, which is dropped:
 * a named tuple is a tuple. */
static GraphType *
parse_tuple_elems (TextCursor *c, guint depth, gboolean named, GError **error)
{
  g_autoptr (GPtrArray) elems = g_ptr_array_new_with_free_func ((GDestroyNotify) graph_type_unref);
  text_skip_blank (c);
  if (!text_eat (c, ')'))
    for (;;)
      {
        text_skip_blank (c);
        if (named)
          {
            g_autofree char *field = text_lex_word (c, text_is_word_char, FALSE, "a field name", error);
            if (field == NULL)
              return NULL;
            text_skip_blank (c);
            if (!text_eat (c, ':'))
              {
                text_expected (c, "':' after a NamedTuple field's name", error);
                return NULL;
              }
            text_skip_blank (c);
          }
        GraphType *e = text_parse_type (c, depth + 1, error);
        if (e == NULL)
          return NULL;
        g_ptr_array_add (elems, e);
        text_skip_blank (c);
        if (text_eat (c, ')'))
          break;
        if (!text_eat (c, ','))
          {
            text_expected (c, "',' or ')' in a tuple type", error);
            return NULL;
          }
      }
  guint n = elems->len;
  GraphType **v = (GraphType **) g_ptr_array_steal (elems, NULL);
  GraphType *t = graph_type_new_tuple (n, v);
  g_free (v);
  return t;
}

static GraphType *
parse_base (TextCursor *c, guint depth, GError **error)
{
  gsize start = c->pos;
  if (text_eat (c, '('))
    return parse_tuple_elems (c, depth, FALSE, error);
  g_autofree char *word = text_lex_word (c, is_class_char, FALSE, "a type", error);
  if (word == NULL)
    return NULL;
  GraphDType dtype;
  if (graph_dtype_from_torch_name (word, &dtype))
    return parse_tensor_type (c, GRAPH_TYPE_TENSOR, dtype, error);
  for (GraphDType q = GRAPH_DTYPE_UINT8; q <= GRAPH_DTYPE_INT32; q++)
    if (graph_type_quantized_name (q) && strcmp (word, graph_type_quantized_name (q)) == 0)
      {
        g_autoptr (GraphType) t = parse_tensor_type (c, GRAPH_TYPE_TENSOR, q, error);
        return t ? graph_type_with_quantized (t) : NULL;
      }
  if (strcmp (word, "Sparse") == 0 && text_eat (c, '('))
    {
      gsize inner = c->pos;
      g_autofree char *w = text_lex_word (c, text_is_word_char, FALSE, "a tensor type", error);
      if (w == NULL)
        return NULL;
      if (!graph_dtype_from_torch_name (w, &dtype))
        {
          text_error_at (c, inner, error, "expected a tensor type in Sparse(...), found '%s'", w);
          return NULL;
        }
      g_autoptr (GraphType) t = parse_tensor_type (c, GRAPH_TYPE_SPARSE_TENSOR, dtype, error);
      if (t == NULL)
        return NULL;
      if (!text_eat (c, ')'))
        {
          text_expected (c, "')' after a sparse tensor type", error);
          return NULL;
        }
      return g_steal_pointer (&t);
    }
  if (strcmp (word, "NamedTuple") == 0)
    {
      if (!text_eat (c, '('))
        {
          text_expected (c, "'(' after NamedTuple", error);
          return NULL;
        }
      return parse_tuple_elems (c, depth, TRUE, error);
    }
  if (strcmp (word, "Dict") == 0 || strcmp (word, "List") == 0 || strcmp (word, "Optional") == 0)
    {
      gboolean dict = word[0] == 'D';
      char open = dict ? '(' : '[', close = dict ? ')' : ']';
      if (!text_eat (c, open))
        {
          g_autofree char *what = g_strdup_printf ("'%c' after %s", open, word);
          text_expected (c, what, error);
          return NULL;
        }
      text_skip_blank (c);
      g_autoptr (GraphType) a = text_parse_type (c, depth + 1, error);
      if (a == NULL)
        return NULL;
      g_autoptr (GraphType) b = NULL;
      if (dict)
        {
          text_skip_blank (c);
          if (!text_eat (c, ','))
            {
              text_expected (c, "',' in Dict(key, value)", error);
              return NULL;
            }
          text_skip_blank (c);
          b = text_parse_type (c, depth + 1, error);
          if (b == NULL)
            return NULL;
        }
      text_skip_blank (c);
      if (!text_eat (c, close))
        {
          g_autofree char *what = g_strdup_printf ("'%c' to close %s", close, word);
          text_expected (c, what, error);
          return NULL;
        }
      if (dict)
        return graph_type_new_dict (g_steal_pointer (&a), g_steal_pointer (&b));
      return word[0] == 'L' ? graph_type_new_list (g_steal_pointer (&a))
                            : graph_type_new_optional (g_steal_pointer (&a));
    }
  static const struct { const char *name; GraphTypeKind kind; } simple[] = {
    { "int", GRAPH_TYPE_INT }, { "float", GRAPH_TYPE_FLOAT }, { "bool", GRAPH_TYPE_BOOL },
    { "str", GRAPH_TYPE_STR }, { "NoneType", GRAPH_TYPE_NONE }, { "Device", GRAPH_TYPE_DEVICE },
    { "Scalar", GRAPH_TYPE_NUMBER }, { "number", GRAPH_TYPE_NUMBER },
  };
  for (guint i = 0; i < G_N_ELEMENTS (simple); i++)
    if (strcmp (word, simple[i].name) == 0)
      return graph_type_new_simple (simple[i].kind);
  for (guint i = 0; i < G_N_ELEMENTS (named_types); i++)
    if (strcmp (word, named_types[i]) == 0)
      return graph_type_new_named (word);
  if (strchr (word, '.') != NULL && word[0] != '.' && word[strlen (word) - 1] != '.')
    return graph_type_new_class (word);
  return text_error_at (c, start, error, "unknown type '%s'", word), NULL;
}

GraphType *
text_parse_type (TextCursor *c, guint depth, GError **error)
{
  if (depth >= TEXT_MAX_DEPTH)
    return text_error_at (c, c->pos, error, "types nested deeper than %d levels",
                          TEXT_MAX_DEPTH), NULL;
  GraphType *t = parse_base (c, depth, error);
  while (t != NULL)
    {
      if (text_eat_str (c, "[]"))
        t = graph_type_new_list (t);
      else if (text_eat (c, '?'))
        t = graph_type_new_optional (t);
      else
        break;
    }
  return t;
}
