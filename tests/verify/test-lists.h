/* Lists changed in place by scripted code: the ATen modes, the trace run. */
#pragma once

void list_tests_add (void);
