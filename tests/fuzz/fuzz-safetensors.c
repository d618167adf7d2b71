/* .safetensors bytes → parse header and views. */
#include "fuzz.h"
#include "symonnx.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  GBytes *bytes = g_bytes_new (data, size);
  GHashTable *meta = NULL;
  GHashTable *t = export_safetensors_load_bytes (bytes, "fuzz.safetensors", &meta, &error);
  if (t)
    g_hash_table_unref (t);
  if (meta)
    g_hash_table_unref (meta);
  g_clear_error (&error);
  g_bytes_unref (bytes);
  return 0;
}
