#pragma once
// Internals of the random module (random.cpp, random_avx2.cpp, random_avx512.cpp): the scalar
// references (random_hd.hpp, shared with the CUDA kernels: the ziggurat of normal elements,
// Box–Muller of word pairs) and the vector kernels. The vector code performs exactly the same
// IEEE operations in the same order (fma where random_hd.hpp writes std::fma, plain mul/add
// elsewhere; this relies on ISO C++ mode, where GCC does not contract a*b+c), with exact
// equivalents for the integer and bit steps an ISA lacks. Every path gives identical bits.

#include <cstdint>

#include "core/random_hd.hpp"
#include "strata/core/random.hpp"

namespace strata::random::detail {

/// The ziggurat's K widened to 64 bits, for the vector kernels' 64-bit gathers.
struct ZigK64 {
  alignas(64) int64_t k[128];
  constexpr ZigK64() : k{} {
    for (int i = 0; i < 128; ++i) k[i] = kZigK[i];
  }
};
inline constexpr ZigK64 kZigK64{};

/// The vector kernels of one level (random.cpp picks them by Isa).
struct VectorKernels {
  /// Normal values (fma(z, sd, mean)) of elements 4*b0 .. 4*(b0+nb)-1 (4 per block).
  void (*normal_contig)(const FillParams& p, uint64_t b0, int64_t nb, double* out);
  /// Elements 4b+parity and 4b+2+parity for blocks b0 .. b0+nb-1 (a step-2 run), 2 per block.
  void (*normal_step2)(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out);
  /// Elements e0 + k*step, one Philox block each (any step).
  void (*normal_strided)(const FillParams& p, uint64_t e0, int64_t step, int64_t n, double* out);
  /// Raw words of blocks b0 .. b0+nb-1, 4 per block, block-major.
  void (*philox_words)(uint64_t seed, uint64_t stream, uint64_t b0, int64_t nb, uint32_t* out);
};

// x86-64 only; callers check isa_available() first.
namespace avx512 {
extern const VectorKernels kKernels;  // random_avx512.cpp
}
namespace avx2 {
extern const VectorKernels kKernels;  // random_avx2.cpp (AVX2 + FMA)
}

}  // namespace strata::random::detail
