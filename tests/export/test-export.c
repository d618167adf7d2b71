/* test-export: the export/ module's g_test executable.  Each test file
 * registers its cases through one function called from main(). */
#include <glib.h>
#include <locale.h>

/* Declarations of the register functions, one line each. */
void test_onnxio_register (void); void test_onnxio_fields_register (void); void test_onnxio_bad_register (void);
void test_npy_register (void); void test_safetensors_register (void);
void test_onnx_check_register (void);
void test_dedup_register (void);
void test_dynamic_shapes_register (void);

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);
  /* Calls of the register functions, one line each. */
  test_onnxio_register (); test_onnxio_fields_register (); test_onnxio_bad_register ();
  test_npy_register (); test_safetensors_register ();
  test_onnx_check_register ();
  test_dedup_register ();
  test_dynamic_shapes_register ();
  return g_test_run ();
}
