/* The wrong-result regression cases of the symbolic suite. */
#pragma once

void wrong_results_tests_add (void);
