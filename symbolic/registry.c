/* The symbolic registry: built-in per-opset tables, the custom layer and
 * plugins.  See Note [Registry layers] in symbolic.h. */
#include "symbolic/opset-tables.h"
#include <gmodule.h>
#include <string.h>

G_DEFINE_QUARK (sym-error-quark, sym_error)

/* The built-in tables in ascending version order (a later one replaces an
 * earlier entry of the same name). */
static const SymTable *const builtin_tables[] = {
  &sym_opset9_math, &sym_opset9_reduce, &sym_opset9_nn, &sym_opset9_shape, &sym_opset9_index,
  &sym_opset9_create, &sym_opset9_misc, &sym_opset9_rnn, &sym_opset9_extra, &sym_opset9_aliases, &sym_opset9_beyond, &sym_opset9_isinf,
  &sym_opset9_random, &sym_opset9_loss, &sym_opset9_window, &sym_opset9_script, &sym_opset9_strided,
  &sym_opset9_refused, &sym_opset10, &sym_opset10_script, &sym_opset10_quantized,
  &sym_opset11, &sym_opset11_extra,
  &sym_opset12, &sym_opset12_loss, &sym_opset12_random, &sym_opset13, &sym_opset13_quantized, &sym_opset14, &sym_opset16, &sym_opset17,
};

/* Copies table i into *out; 0 past the last one. */
static guint
builtin_table (guint i, SymTable *out)
{
  if (i >= G_N_ELEMENTS (builtin_tables))
    return 0;
  *out = *builtin_tables[i];
  return 1;
}

typedef struct
{
  int         since;
  SymFn       fn;
  gpointer    user_data;
  const char *plugin;     /* interned path of the plugin that registered it, or NULL */
} CustomEntry;

typedef struct
{
  SymFn    fn;
  gpointer user_data;
} Resolved;

struct _SymRegistry
{
  gint        ref_count;
  /* interned name → GArray of CustomEntry, sorted by since */
  GHashTable *custom;
  GHashTable *domain_versions;   /* domain → gint64* */
  GPtrArray  *modules;           /* GModule* of loaded plugins */
  const char *loading;           /* interned path of the plugin registering now */
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

/* Note [Built-in hashes are shared]
 * The built-in tables are constant, so the per-target-opset hashes
 * (interned name → const SymEntry*) are the same for every registry: they
 * are built once per process, all together under g_once, and only read
 * afterwards, which makes lookups safe from any thread. */
static GHashTable *builtin_hash[SYM_OPSET_MAX + 1];

static gpointer
build_builtin_hashes (gpointer unused)
{
  (void) unused;
  for (int opset = SYM_OPSET_MIN; opset <= SYM_OPSET_MAX; opset++)
    {
      GHashTable *h = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < G_N_ELEMENTS (builtin_tables); i++)
        {
          const SymTable *t = builtin_tables[i];
          if (t->version > opset)
            continue;
          for (gsize j = 0; j < t->n_entries; j++)
            g_hash_table_insert (h, (gpointer) intern_name (t->entries[j].name),
                                 (gpointer) &t->entries[j]);
        }
      builtin_hash[opset] = h;
    }
  return NULL;
}

static GHashTable *
builtin_for (SymRegistry *reg, int opset)
{
  static GOnce once = G_ONCE_INIT;
  if (reg->no_builtins || opset < SYM_OPSET_MIN)
    return NULL;
  if (opset > SYM_OPSET_MAX)
    opset = SYM_OPSET_MAX;
  g_once (&once, build_builtin_hashes, NULL);
  return builtin_hash[opset];
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
      r->user_data = (gpointer) e->data;
      return TRUE;
    }
  return FALSE;
}

/* "aten::relu_" → "aten::relu"; NULL when not an in-place name ("__and__"
 * is not). */
gboolean
sym_kind_is_inplace (const char *kind)
{
  gsize len = kind ? strlen (kind) : 0;
  return len >= 2 && kind[len - 1] == '_' && kind[len - 2] != '_' && kind[len - 2] != ':';
}

gboolean
sym_kind_is_writable_view (const char *kind)
{
  return kind && (strcmp (kind, "aten::slice") == 0 || strcmp (kind, "aten::select") == 0
                  || strcmp (kind, "aten::detach") == 0 || strcmp (kind, "aten::alias") == 0);
}

static const char *
base_of_inplace (const char *kind)
{
  if (!sym_kind_is_inplace (kind))
    return NULL;
  gsize len = strlen (kind);
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

const int sym_refused_marker = 1;

gboolean
sym_registry_only_refuses (SymRegistry *reg, const char *kind, int opset)
{
  gpointer data = NULL;
  return sym_registry_lookup (reg, kind, opset, &data, NULL) != NULL && data == &sym_refused_marker;
}

/* The built-in table version whose entry for k serves `opset`, or -1. */
static int
builtin_version (SymRegistry *reg, const char *k, int opset)
{
  int best = -1;
  SymTable t;
  for (guint i = 0; !reg->no_builtins && builtin_table (i, &t); i++)
    for (gsize j = 0; t.version <= opset && j < t.n_entries; j++)
      if (intern_name (t.entries[j].name) == k)
        best = t.entries[j].fn ? t.version : -1;
  return best;
}

static const char *
origin_exact (SymRegistry *reg, const char *k, int opset)
{
  GArray *arr = g_hash_table_lookup (reg->custom, k);
  for (guint i = arr ? arr->len : 0; i-- > 0;)
    {
      CustomEntry *e = &g_array_index (arr, CustomEntry, i);
      if (e->since > opset)
        continue;
      g_autofree char *s = e->plugin
        ? g_strdup_printf ("custom %s (sym_register since opset %d, plugin %s)", k, e->since, e->plugin)
        : g_strdup_printf ("custom %s (sym_register since opset %d)", k, e->since);
      return g_intern_string (s);
    }
  int v = builtin_version (reg, k, opset);
  if (v < 0)
    return NULL;
  g_autofree char *s = g_strdup_printf ("built-in %s (opset %d table)", k, v);
  return g_intern_string (s);
}

const char *
sym_registry_origin (SymRegistry *reg, const char *kind, int opset)
{
  const char *k = intern_name (kind);
  if (k == NULL)
    return NULL;
  const char *o = origin_exact (reg, k, opset);
  if (o == NULL && (k = base_of_inplace (k)) != NULL)
    o = origin_exact (reg, k, opset);
  return o;
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
  CustomEntry e = { since_opset, fn, user_data, reg->loading };
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
  reg->loading = g_intern_string (path);
  gboolean ok = ((SymPluginRegisterFn) sym) (reg, &local);
  reg->loading = NULL;
  if (!ok)
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
