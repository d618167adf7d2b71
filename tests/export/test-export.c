/* test-export: the export/ module's g_test executable.  Each test file
 * registers its cases through one function called from main(). */
#include <glib.h>
#include <locale.h>

/* Declarations of the register functions, one line each. */

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);
  /* Calls of the register functions, one line each. */
  return g_test_run ();
}
