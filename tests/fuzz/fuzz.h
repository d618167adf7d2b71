/* symonnx fuzz harnesses (tests/fuzz/README.md).  Each fuzz-*.c defines
 * the libFuzzer entry point; replay-main.c drives the same function over
 * saved inputs in any build, so the test command replays the seed corpora
 * and every saved finding without clang. */
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
