#pragma once
// x86 intrinsics for the kernels that carry their own target attributes: <immintrin.h> and
// STRATA_X86 on x86-64 GCC/Clang builds; neither elsewhere (the portable kernels remain).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 flags the intrinsic headers' own placeholders (_mm512_undefined_*, `__Y = __Y`).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define STRATA_X86 1
#endif
