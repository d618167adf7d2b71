/* .npy bytes → parse header and data. */
#include "fuzz.h"
#include "symonnx.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  Tensor *t = export_npy_load_from_data (data, size, "fuzz.npy", &error);
  if (t)
    tensor_unref (t);
  g_clear_error (&error);
  return 0;
}
