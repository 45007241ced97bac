#pragma once
// Random generation kernels: fill a run of elements e0, e0+step, ... of a counter-based random
// array. Runtime-dispatched to AVX-512 when the CPU has it, else portable scalar code; both give
// identical bits (random_math.hpp).

#include <cstdint>

#include "strata/core/dtype.hpp"

namespace strata::detail {

enum class RandomDist : uint8_t { Uniform, Normal, Integers };

/// What a random source generates. Values depend only on these fields and the element index.
struct RandomParams {
  RandomDist dist = RandomDist::Normal;
  uint64_t seed = 0;
  uint64_t stream = 0;
  double mean = 0.0, sd = 1.0;   ///< Normal: mean + sd * z, computed as fma(z, sd, mean)
  int64_t low = 0;               ///< Integers: low + floor(X64 * range / 2^64)
  uint64_t range = 1;
  ScalarType out = ScalarType::Float64;  ///< Float64/Float32 (uniform, normal), Int64 (integers)
};

/// \brief out[k] = value of element e0 + k*step for k in [0, n). Every index must be >= 0;
/// `step` may be negative or zero. `out` holds n elements of p.out.
void random_fill(const RandomParams& p, int64_t e0, int64_t step, int64_t n, void* out);

/// True when the AVX-512 kernels are in use (for reports and tests).
bool random_kernels_use_avx512();
/// Force the portable kernels (tests compare both paths); returns the previous setting.
bool random_kernels_force_scalar(bool force);

// AVX-512 kernels (random_avx512.cpp); callers check random_kernels_use_avx512() first.
namespace avx512 {
/// Standard-normal-derived values for elements 4*b0 .. 4*(b0+nb)-1 (4 per block).
void normal_contig(const RandomParams& p, uint64_t b0, int64_t nb, double* out);
/// Elements 4b+parity and 4b+2+parity for blocks b0 .. b0+nb-1 (a step-2 run), 2 per block.
void normal_step2(const RandomParams& p, uint64_t b0, int64_t nb, int parity, double* out);
/// Elements e0 + k*step, one Philox block each (any step).
void normal_strided(const RandomParams& p, uint64_t e0, int64_t step, int64_t n, double* out);
/// Raw words of blocks b0 .. b0+nb-1, 4 per block, block-major.
void philox_words(uint64_t seed, uint64_t stream, uint64_t b0, int64_t nb, uint32_t* out);
}  // namespace avx512

}  // namespace strata::detail
