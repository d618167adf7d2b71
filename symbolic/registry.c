/* The symbolic registry: built-in per-opset tables, the custom layer and
 * plugins.  See Note [Registry layers] in symbolic.h. */
#include "symbolic/sym-private.h"
#include <gmodule.h>
#include <string.h>

G_DEFINE_QUARK (sym-error-quark, sym_error)

/* The tables in ascending version order.  Kept as a function because the
 * table arrays' lengths are link-time constants. */
static guint
builtin_table (guint i, SymTable *out)
{
  const SymTable all[] = {
    { 9, sym_opset9_math, 0 }, { 9, sym_opset9_reduce, 0 }, { 9, sym_opset9_nn, 0 },
    { 9, sym_opset9_shape, 0 }, { 9, sym_opset9_index, 0 }, { 9, sym_opset9_create, 0 },
    { 9, sym_opset9_misc, 0 }, { 9, sym_opset9_rnn, 0 }, { 10, sym_opset10_table, 0 },
    { 11, sym_opset11_table, 0 }, { 12, sym_opset12_table, 0 }, { 13, sym_opset13_table, 0 }, { 14, sym_opset14_table, 0 },
    { 16, sym_opset16_table, 0 }, { 17, sym_opset17_table, 0 },
    { 9, sym_opset9_extra, 0 }, { 11, sym_opset11_extra, 0 },
  };
  const gsize lens[] = {
    sym_opset9_math_len, sym_opset9_reduce_len, sym_opset9_nn_len,
    sym_opset9_shape_len, sym_opset9_index_len, sym_opset9_create_len, sym_opset9_misc_len,
    sym_opset9_rnn_len,
    sym_opset10_table_len, sym_opset11_table_len, sym_opset12_table_len,
    sym_opset13_table_len, sym_opset14_table_len, sym_opset16_table_len,
    sym_opset17_table_len,
    sym_opset9_extra_len, sym_opset11_extra_len,
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (all) == G_N_ELEMENTS (lens));
  if (i >= G_N_ELEMENTS (all))
    return 0;
  *out = all[i];
  out->n_entries = lens[i];
  return 1;
}

typedef struct
{
  int      since;
  SymFn    fn;
  gpointer user_data;
} CustomEntry;

typedef struct
{
  SymFn    fn;
  gpointer user_data;
} Resolved;

struct _SymRegistry
{
  gint        ref_count;
  /* per target opset: interned name → const SymEntry* (built once) */
  GHashTable *builtin[SYM_OPSET_MAX + 1];
  /* interned name → GArray of CustomEntry, sorted by since */
  GHashTable *custom;
  GHashTable *domain_versions;   /* domain → gint64* */
  GPtrArray  *modules;           /* GModule* of loaded plugins */
  gboolean    no_builtins;
};

const char *
sym_mode_name (SymMode mode)
{
  switch (mode)
    {
    case SYM_MODE_ONNX: return "ONNX";
    case SYM_MODE_ONNX_ATEN: return "ONNX_ATEN";
    case SYM_MODE_ONNX_ATEN_FALLBACK: return "ONNX_ATEN_FALLBACK";
    case SYM_MODE_ONNX_FALLTHROUGH: return "ONNX_FALLTHROUGH";
    default: return "?";
    }
}

gboolean
sym_mode_from_name (const char *name, SymMode *mode)
{
  static const struct { const char *a, *b; SymMode m; } names[] = {
    { "onnx", "ONNX", SYM_MODE_ONNX },
    { "aten", "ONNX_ATEN", SYM_MODE_ONNX_ATEN },
    { "aten-fallback", "ONNX_ATEN_FALLBACK", SYM_MODE_ONNX_ATEN_FALLBACK },
    { "fallthrough", "ONNX_FALLTHROUGH", SYM_MODE_ONNX_FALLTHROUGH },
  };
  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (name, names[i].a) == 0 || strcmp (name, names[i].b) == 0)
      {
        *mode = names[i].m;
        return TRUE;
      }
  return FALSE;
}

static void
custom_array_free (gpointer p)
{
  g_array_unref (p);
}

SymRegistry *
sym_registry_new (void)
{
  SymRegistry *reg = g_new0 (SymRegistry, 1);
  reg->ref_count = 1;
  reg->custom = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, custom_array_free);
  reg->domain_versions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  reg->modules = g_ptr_array_new ();
  return reg;
}

SymRegistry *
sym_registry_new_empty (void)
{
  SymRegistry *reg = sym_registry_new ();
  reg->no_builtins = TRUE;
  return reg;
}

SymRegistry *
sym_registry_ref (SymRegistry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  g_atomic_int_inc (&reg->ref_count);
  return reg;
}

void
sym_registry_unref (SymRegistry *reg)
{
  if (reg == NULL || !g_atomic_int_dec_and_test (&reg->ref_count))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (reg->builtin); i++)
    if (reg->builtin[i])
      g_hash_table_unref (reg->builtin[i]);
  g_hash_table_unref (reg->custom);
  g_hash_table_unref (reg->domain_versions);
  /* Plugin code may still be referenced by function pointers elsewhere
   * only through this registry, so the modules close with it. */
  for (guint i = 0; i < reg->modules->len; i++)
    g_module_close (reg->modules->pdata[i]);
  g_ptr_array_unref (reg->modules);
  g_free (reg);
}

/* "elu" → "aten::elu"; qualified names are interned as they are. */
static const char *
intern_name (const char *name)
{
  return graph_symbol (name, "aten");
}

static GHashTable *
builtin_for (SymRegistry *reg, int opset)
{
  if (reg->no_builtins || opset < SYM_OPSET_MIN)
    return NULL;
  if (opset > SYM_OPSET_MAX)
    opset = SYM_OPSET_MAX;
  if (reg->builtin[opset])
    return reg->builtin[opset];
  GHashTable *h = g_hash_table_new (g_str_hash, g_str_equal);
  SymTable t;
  /* Ascending versions: a later opset's table replaces an earlier entry
   * (the list above is not sorted by version: the family tables added later
   * sit at its end). */
  for (int v = SYM_OPSET_MIN; v <= opset; v++)
    for (guint i = 0; builtin_table (i, &t); i++)
      {
        if (t.version != v)
          continue;
        for (gsize j = 0; j < t.n_entries; j++)
          g_hash_table_insert (h, (gpointer) intern_name (t.entries[j].name),
                               (gpointer) &t.entries[j]);
      }
  reg->builtin[opset] = h;
  return h;
}

static gboolean
lookup_exact (SymRegistry *reg, const char *kind, int opset, Resolved *r)
{
  GArray *arr = g_hash_table_lookup (reg->custom, kind);
  if (arr)
    for (guint i = arr->len; i-- > 0;)
      {
        CustomEntry *e = &g_array_index (arr, CustomEntry, i);
        if (e->since <= opset)
          {
            r->fn = e->fn;
            r->user_data = e->user_data;
            return TRUE;
          }
      }
  GHashTable *h = builtin_for (reg, opset);
  const SymEntry *e = h ? g_hash_table_lookup (h, kind) : NULL;
  if (e && e->fn)
    {
      r->fn = e->fn;
      r->user_data = NULL;
      return TRUE;
    }
  return FALSE;
}

/* "aten::relu_" → "aten::relu"; NULL when not an in-place name ("__and__"
 * is not). */
static const char *
base_of_inplace (const char *kind)
{
  gsize len = strlen (kind);
  if (len < 2 || kind[len - 1] != '_' || kind[len - 2] == '_' || kind[len - 2] == ':')
    return NULL;
  g_autofree char *base = g_strndup (kind, len - 1);
  return graph_symbol (base, "aten");
}

SymFn
sym_registry_lookup (SymRegistry *reg, const char *kind, int opset, gpointer *user_data,
                     const char **resolved)
{
  g_return_val_if_fail (reg != NULL && kind != NULL, NULL);
  const char *k = intern_name (kind);
  if (k == NULL)
    return NULL;
  Resolved r = { 0 };
  if (!lookup_exact (reg, k, opset, &r))
    {
      k = base_of_inplace (k);
      if (k == NULL || !lookup_exact (reg, k, opset, &r))
        return NULL;
    }
  if (user_data)
    *user_data = r.user_data;
  if (resolved)
    *resolved = k;
  return r.fn;
}

static int
first_opset_exact (SymRegistry *reg, const char *k)
{
  int best = -1;
  GArray *arr = g_hash_table_lookup (reg->custom, k);
  if (arr && arr->len)
    best = g_array_index (arr, CustomEntry, 0).since;
  SymTable t;
  for (guint i = 0; !reg->no_builtins && builtin_table (i, &t); i++)
    for (gsize j = 0; j < t.n_entries; j++)
      if (intern_name (t.entries[j].name) == k && t.entries[j].fn
          && (best < 0 || t.version < best))
        best = t.version;
  return best;
}

int
sym_registry_first_opset (SymRegistry *reg, const char *kind)
{
  const char *k = intern_name (kind);
  if (k == NULL)
    return -1;
  int v = first_opset_exact (reg, k);
  if (v < 0 && (k = base_of_inplace (k)) != NULL)
    v = first_opset_exact (reg, k);
  return v;
}

static gint
compare_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
sym_registry_list (SymRegistry *reg)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  SymTable t;
  for (guint i = 0; builtin_table (i, &t); i++)
    for (gsize j = 0; j < t.n_entries; j++)
      g_hash_table_add (seen, (gpointer) intern_name (t.entries[j].name));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, reg->custom);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_hash_table_add (seen, key);
  GPtrArray *out = g_ptr_array_new ();
  g_hash_table_iter_init (&it, seen);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (out, key);
  g_ptr_array_sort (out, compare_str);
  return out;
}

GArray *
sym_registry_builtin_versions (SymRegistry *reg, const char *kind)
{
  (void) reg;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (int));
  const char *k = intern_name (kind);
  SymTable t;
  for (int v = SYM_OPSET_MIN; k && v <= SYM_OPSET_MAX; v++)
    for (guint i = 0; builtin_table (i, &t); i++)
      for (gsize j = 0; j < t.n_entries; j++)
        if (t.version == v && intern_name (t.entries[j].name) == k
            && (out->len == 0 || g_array_index (out, int, out->len - 1) != v))
          g_array_append_val (out, v);
  return out;
}

gboolean
sym_registry_is_custom (SymRegistry *reg, const char *kind)
{
  const char *k = intern_name (kind);
  return k && g_hash_table_contains (reg->custom, k);
}

gboolean
sym_register (SymRegistry *reg, const char *name, int since_opset, SymFn fn, gpointer user_data)
{
  g_return_val_if_fail (reg != NULL && fn != NULL, FALSE);
  const char *k = name ? intern_name (name) : NULL;
  if (k == NULL)
    {
      g_critical ("sym_register: malformed operator name '%s'", name ? name : "(null)");
      return FALSE;
    }
  if (since_opset < 1 || since_opset > SYM_OPSET_MAX)
    {
      g_critical ("sym_register(%s): since_opset %d is outside 1..%d", k, since_opset,
                  SYM_OPSET_MAX);
      return FALSE;
    }
  GArray *arr = g_hash_table_lookup (reg->custom, k);
  if (arr == NULL)
    {
      arr = g_array_new (FALSE, FALSE, sizeof (CustomEntry));
      g_hash_table_insert (reg->custom, (gpointer) k, arr);
    }
  CustomEntry e = { since_opset, fn, user_data };
  guint i = 0;
  while (i < arr->len && g_array_index (arr, CustomEntry, i).since < since_opset)
    i++;
  if (i < arr->len && g_array_index (arr, CustomEntry, i).since == since_opset)
    g_array_index (arr, CustomEntry, i) = e;
  else
    g_array_insert_val (arr, i, e);
  return TRUE;
}

gboolean
sym_unregister (SymRegistry *reg, const char *name, int since_opset)
{
  g_return_val_if_fail (reg != NULL, FALSE);
  const char *k = name ? intern_name (name) : NULL;
  GArray *arr = k ? g_hash_table_lookup (reg->custom, k) : NULL;
  if (arr == NULL)
    return FALSE;
  gboolean removed = FALSE;
  for (guint i = arr->len; i-- > 0;)
    if (since_opset < 0 || g_array_index (arr, CustomEntry, i).since == since_opset)
      {
        g_array_remove_index (arr, i);
        removed = TRUE;
      }
  if (arr->len == 0)
    g_hash_table_remove (reg->custom, k);
  return removed;
}

void
sym_registry_set_domain_version (SymRegistry *reg, const char *domain, gint64 version)
{
  g_return_if_fail (reg != NULL && domain != NULL);
  g_hash_table_insert (reg->domain_versions, g_strdup (domain), g_memdup2 (&version, sizeof version));
}

gint64
sym_registry_get_domain_version (SymRegistry *reg, const char *domain)
{
  gint64 *v = g_hash_table_lookup (reg->domain_versions, domain);
  return v ? *v : 1;
}

GPtrArray *
sym_registry_list_domains (SymRegistry *reg)
{
  GPtrArray *out = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, reg->domain_versions);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (out, key);
  g_ptr_array_sort (out, compare_str);
  return out;
}

gboolean
sym_registry_load_plugin (SymRegistry *reg, const char *path, GError **error)
{
  g_return_val_if_fail (reg != NULL && path != NULL, FALSE);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_PLUGIN, "%s: no such plugin file", path);
      return FALSE;
    }
  GModule *mod = g_module_open (path, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
  if (mod == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_PLUGIN, "%s: cannot load plugin: %s", path,
                   g_module_error ());
      return FALSE;
    }
  gpointer sym = NULL;
  if (!g_module_symbol (mod, SYM_PLUGIN_SYMBOL, &sym) || sym == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_PLUGIN,
                   "%s: not a symonnx plugin (no exported function %s)", path, SYM_PLUGIN_SYMBOL);
      g_module_close (mod);
      return FALSE;
    }
  g_autoptr (GError) local = NULL;
  if (!((SymPluginRegisterFn) sym) (reg, &local))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_PLUGIN, "%s: plugin registration failed: %s",
                   path, local ? local->message : "no reason given");
      /* Entries it registered before failing point into the module: keep it. */
      g_ptr_array_add (reg->modules, mod);
      return FALSE;
    }
  g_ptr_array_add (reg->modules, mod);
  return TRUE;
}
