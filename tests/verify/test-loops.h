/* Scripted loops (prim::Loop) in the ATen modes and in the trace's run. */
#pragma once

void loop_tests_add (void);
