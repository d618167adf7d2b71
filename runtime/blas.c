/* Loads OpenBLAS with GModule on first use: see runtime/blas.h. */
#include "runtime/blas.h"
#include "runtime/runtime.h"
#include <gmodule.h>
#include <string.h>

RtBlas rt_blas;

/* SYMONNX_BLAS_LIBRARY comes from meson (-Dblas_library). */
static const char *const library_names[] = { SYMONNX_BLAS_LIBRARY, "libopenblas.so.0",
                                             "libopenblas.so" };

static char *
load_once (void)
{
  GModule *module = NULL;
  GString *tried = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (library_names) && module == NULL; i++)
    {
      if (i > 0 && strcmp (library_names[i], library_names[0]) == 0)
        continue;   /* the configured name is one of the fallbacks */
      module = g_module_open (library_names[i], G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
      if (module == NULL)
        g_string_append_printf (tried, "%s%s", tried->len ? "; " : "", g_module_error ());
    }
  if (module == NULL)
    return g_string_free (g_steal_pointer (&tried), FALSE);
  g_string_free (tried, TRUE);
  struct { const char *name; gpointer *slot; } fns[] = {
    { "cblas_sgemm", (gpointer *) &rt_blas.sgemm },
    { "cblas_dgemm", (gpointer *) &rt_blas.dgemm },
    { "cblas_sgemv", (gpointer *) &rt_blas.sgemv },
    { "cblas_dgemv", (gpointer *) &rt_blas.dgemv },
  };
  for (guint i = 0; i < G_N_ELEMENTS (fns); i++)
    if (!g_module_symbol (module, fns[i].name, fns[i].slot) || *fns[i].slot == NULL)
      {
        char *why = g_strdup_printf ("%s has no %s", g_module_name (module), fns[i].name);
        g_module_close (module);
        return why;
      }
  gpointer threads = NULL;
  if (g_module_symbol (module, "openblas_set_num_threads", &threads))
    rt_blas.set_num_threads = (void (*) (int)) threads;
  g_module_make_resident (module);
  return NULL;
}

gboolean
rt_blas_load (GError **error)
{
  static gsize done = 0;
  static char *failure = NULL;   /* why loading failed, kept for later calls */
  if (g_once_init_enter (&done))
    {
      failure = load_once ();
      g_once_init_leave (&done, 1);
    }
  if (failure != NULL)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_FAILED,
                   "cannot open the BLAS library (OpenBLAS) the executor needs: %s", failure);
      return FALSE;
    }
  return TRUE;
}
