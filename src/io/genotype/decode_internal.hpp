#pragma once
// Implementation table behind the dispatching decode kernels of genotype_decode.hpp.

#include <cstdint>

namespace strata::io::detail {

struct DecodeKernels {
  const char* isa;
  void (*row_f32)(const uint8_t* codes, int64_t n, const float lut[4], float* out);
  void (*row_f64)(const uint8_t* codes, int64_t n, const double lut[4], double* out);
  void (*count)(const uint8_t* codes, int64_t n, int64_t counts[4]);
};

/// Portable C++ kernels (always available).
const DecodeKernels& portable_kernels();
/// x86-64 kernels, or nullptr when the CPU (or the build target) lacks the ISA.
const DecodeKernels* avx2_kernels();
const DecodeKernels* avx512_kernels();

/// Scalar tails shared by every implementation: codes [first, n) of the row.
inline void decode_tail_f32(const uint8_t* codes, int64_t first, int64_t n, const float lut[4],
                            float* out) {
  for (int64_t j = first; j < n; ++j) out[j] = lut[(codes[j >> 2] >> (2 * (j & 3))) & 3];
}
inline void decode_tail_f64(const uint8_t* codes, int64_t first, int64_t n, const double lut[4],
                            double* out) {
  for (int64_t j = first; j < n; ++j) out[j] = lut[(codes[j >> 2] >> (2 * (j & 3))) & 3];
}

}  // namespace strata::io::detail
