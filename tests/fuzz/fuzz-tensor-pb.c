/* ONNX TensorProto .pb bytes → tensor. */
#include "fuzz.h"
#include "symonnx.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  char *name = NULL;
  Tensor *t = onnxio_tensor_load_from_data (data, size, "fuzz.pb", &name, &error);
  if (t)
    tensor_unref (t);
  g_free (name);
  g_clear_error (&error);
  return 0;
}
