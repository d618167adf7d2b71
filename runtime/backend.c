/* Backends (Note [Backends]): the CPU one, and finding the one of a device.
 *
 * Note [The CUDA plugin]
 * The CUDA backend is a GModule plugin, libsymonnx-cuda.so (cuda/), that
 * the runtime opens on the first session asking for RT_DEVICE_CUDA; it
 * links libcudart and libcublas, libsymonnx does not.  So the library, the
 * CLI and every CPU run load and work on machines without the CUDA
 * runtime, and a missing runtime, driver or GPU is an error of that one
 * request ("no CUDA device: <reason>") instead of a failure to start.
 * (dlopen-ing libcudart ourselves would not do: the kernels nvcc compiles
 * register themselves with libcudart when their object is loaded, so they
 * must live in an object that is itself loaded on demand.)  Where it is
 * looked for: plugin_candidates(). */
#include "runtime/backend.h"
#include <gmodule.h>
#include <dlfcn.h>
#include <string.h>

#ifndef SYMONNX_CUDA_PLUGIN_PATH
#define SYMONNX_CUDA_PLUGIN_PATH ""
#endif

const RtBackend rt_backend_cpu = {
  .name = "cpu",
  .host_memory = TRUE,
};

const char *
rt_device_name (RtDevice device)
{
  switch (device)
    {
    case RT_DEVICE_CPU:
      return "cpu";
    case RT_DEVICE_CUDA:
      return "cuda";
    default:
      return "unknown";
    }
}

gboolean
rt_device_parse (const char *name, RtDevice *device, GError **error)
{
  if (g_strcmp0 (name, "cpu") == 0)
    *device = RT_DEVICE_CPU;
  else if (g_strcmp0 (name, "cuda") == 0)
    *device = RT_DEVICE_CUDA;
  else
    {
      g_set_error (error, RT_ERROR, RT_ERROR_INPUT, "unknown device '%s' (expected cpu or cuda)",
                   name ? name : "");
      return FALSE;
    }
  return TRUE;
}

/* The plugin's entry point (cuda/backend.c). */
typedef const RtBackend *(*RtCudaBackendFn) (void);

typedef struct
{
  const RtBackend *backend;   /* loaded and probed */
  char            *reason;    /* or why not */
} CudaLoad;

/* Where the plugin may be: $SYMONNX_CUDA_PLUGIN, else next to this
 * library as installed (LIBDIR/symonnx/) or as built (BUILDDIR/cuda/),
 * else the configured install path.  Empty when this build has no CUDA
 * backend and the environment names none. */
static GPtrArray *
plugin_candidates (void)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("SYMONNX_CUDA_PLUGIN");
  if (env && *env)
    {
      g_ptr_array_add (paths, g_strdup (env));
      return paths;
    }
  if (*SYMONNX_CUDA_PLUGIN_PATH == '\0')
    return paths;
  Dl_info info;
  if (dladdr (&rt_backend_cpu, &info) && info.dli_fname && strchr (info.dli_fname, '/'))
    {
      g_autofree char *dir = g_path_get_dirname (info.dli_fname);
      g_ptr_array_add (paths, g_build_filename (dir, "symonnx", "libsymonnx-cuda.so", NULL));
      g_ptr_array_add (paths, g_build_filename (dir, "cuda", "libsymonnx-cuda.so", NULL));
    }
  g_ptr_array_add (paths, g_strdup (SYMONNX_CUDA_PLUGIN_PATH));
  return paths;
}

static gpointer
load_cuda (gpointer unused)
{
  (void) unused;
  CudaLoad *r = g_new0 (CudaLoad, 1);
  g_autoptr (GPtrArray) paths = plugin_candidates ();
  if (paths->len == 0)
    {
      r->reason = g_strdup ("this symonnx was built without the CUDA backend (meson "
                            "-Dcuda=disabled, or nvcc was not found; see doc/cuda.md)");
      return r;
    }
  /* The first that exists (or the environment's, which must). */
  const char *path = NULL;
  for (guint i = 0; i < paths->len && path == NULL; i++)
    if (g_file_test (paths->pdata[i], G_FILE_TEST_EXISTS))
      path = paths->pdata[i];
  if (path == NULL)
    {
      g_autofree char *tried = NULL;
      g_ptr_array_add (paths, NULL);
      tried = g_strjoinv (", ", (char **) paths->pdata);
      r->reason = g_strdup_printf ("the CUDA backend libsymonnx-cuda.so is not installed "
                                   "(looked for %s)", tried);
      return r;
    }
  GModule *m = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (m == NULL)
    {
      r->reason = g_strdup_printf ("cannot load the CUDA backend %s: %s", path, g_module_error ());
      return r;
    }
  /* Kept loaded, also when no device is found: sessions point into it,
   * and unloading the C++ runtime it pulled in would orphan that
   * runtime's allocations. */
  g_module_make_resident (m);
  gpointer sym = NULL;
  if (!g_module_symbol (m, "symonnx_cuda_backend", &sym) || sym == NULL)
    {
      r->reason = g_strdup_printf ("%s has no symonnx_cuda_backend(): not a symonnx CUDA "
                                   "backend", path);
      return r;
    }
  const RtBackend *b = ((RtCudaBackendFn) sym) ();
  g_autoptr (GError) error = NULL;
  if (b == NULL || (b->probe && !b->probe (&error)))
    {
      r->reason = g_strdup (error ? error->message : "the CUDA backend returned no table");
      return r;
    }
  r->backend = b;
  return r;
}

const RtBackend *
rt_backend_for_device (RtDevice device, GError **error)
{
  static GOnce cuda_once = G_ONCE_INIT;
  switch (device)
    {
    case RT_DEVICE_CPU:
      return &rt_backend_cpu;
    case RT_DEVICE_CUDA:
      {
        const CudaLoad *r = g_once (&cuda_once, load_cuda, NULL);
        if (r->backend)
          return r->backend;
        g_set_error (error, RT_ERROR, RT_ERROR_NO_DEVICE, "no CUDA device: %s", r->reason);
        return NULL;
      }
    default:
      g_set_error (error, RT_ERROR, RT_ERROR_INPUT, "unknown device %d", (int) device);
      return NULL;
    }
}

gboolean
rt_device_available (RtDevice device, GError **error)
{
  return rt_backend_for_device (device, error) != NULL;
}
