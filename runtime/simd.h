/* 8-float vectors with GCC's vector extensions for the hand-vectorised
 * loops (conv-depthwise.c, k-pool.c): plain SSE on baseline x86-64, AVX2
 * in the clones an ifunc picks on CPUs that have it. */
#pragma once

#include <string.h>

typedef float v8sf __attribute__ ((vector_size (32)));
typedef int v8si __attribute__ ((vector_size (32)));

/* The even elements of a and b concatenated: GCC's __builtin_shuffle,
 * clang's __builtin_shufflevector (clang builds the fuzzing harnesses). */
#if defined(__clang__)
#define SHUFFLE_EVEN(a, b) __builtin_shufflevector ((a), (b), 0, 2, 4, 6, 8, 10, 12, 14)
#else
#define SHUFFLE_EVEN(a, b) __builtin_shuffle ((a), (b), (v8si) { 0, 2, 4, 6, 8, 10, 12, 14 })
#endif

/* Unaligned loads as macros: a function returning a 32-byte vector would
 * change the ABI on baseline x86-64. */
#define LOAD8(v, p) memcpy (&(v), (p), sizeof (v8sf))
/* v := p[0], p[2], ... p[14]. */
#define LOAD8_STRIDE2(v, p)                                                  \
  do                                                                         \
    {                                                                        \
      v8sf a_, b_;                                                           \
      LOAD8 (a_, (p));                                                       \
      LOAD8 (b_, (p) + 8);                                                   \
      (v) = SHUFFLE_EVEN (a_, b_);                                           \
    }                                                                        \
  while (0)

/* AVX2 where the CPU has it (an ifunc picks the clone once). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* v := p[0], p[S], ... p[7 S]. */
#define LOAD8_STRIDED(v, p, S)                                                         \
  do                                                                                   \
    {                                                                                  \
      if ((S) == 1)                                                                    \
        LOAD8 (v, p);                                                                  \
      else if ((S) == 2)                                                               \
        LOAD8_STRIDE2 (v, p);                                                          \
      else                                                                             \
        (v) = (v8sf) { (p)[0], (p)[S], (p)[2 * (S)], (p)[3 * (S)], (p)[4 * (S)],         \
                       (p)[5 * (S)], (p)[6 * (S)], (p)[7 * (S)] };                      \
    }                                                                                  \
  while (0)
