/* The hostile-input cases of the tools suite (test-hostile.c). */
#pragma once

void hostile_tests_add (void);
