/* test-ir: the ir/ module's g_test executable.  Each test file registers its
 * cases through one function listed here. */
#include <glib.h>
#include <locale.h>

void test_dtype_register (void);
void test_graph_register (void);
void test_builder_register (void);
void test_text_register (void);
void test_text_errors_register (void);
void test_text_fixtures_register (void);
void test_dot_register (void);

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);
  test_dtype_register ();
  test_graph_register ();
  test_builder_register ();
  test_text_register ();
  test_text_errors_register ();
  test_text_fixtures_register ();
  test_dot_register ();
  return g_test_run ();
}
