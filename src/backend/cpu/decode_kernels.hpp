#pragma once
// Genotype decode and count kernels of the CPU backend, one table per instruction set; the
// backend picks a table once (cpu_backend.cpp).

#include <cstdint>

namespace strata::backend::cpu {

struct DecodeKernels {
  const char* isa;
  /// out[j] = lut[code j], j < n.
  void (*row_f32)(const uint8_t* codes, int64_t n, const float lut[4], float* out);
  void (*row_f64)(const uint8_t* codes, int64_t n, const double lut[4], double* out);
  /// counts[c] = codes equal to c among the first n.
  void (*count)(const uint8_t* codes, int64_t n, int64_t counts[4]);
};

/// Portable C++ kernels (always available).
const DecodeKernels& decode_portable();
/// x86-64 kernels, or nullptr when the CPU (or the build target) lacks the ISA.
const DecodeKernels* decode_avx2();
const DecodeKernels* decode_avx512();

/// Scalar tails shared by every implementation: codes [first, n) of the row.
inline void decode_tail_f32(const uint8_t* codes, int64_t first, int64_t n, const float lut[4], float* out) {
  for (int64_t j = first; j < n; ++j) out[j] = lut[(codes[j >> 2] >> (2 * (j & 3))) & 3];
}
inline void decode_tail_f64(const uint8_t* codes, int64_t first, int64_t n, const double lut[4], double* out) {
  for (int64_t j = first; j < n; ++j) out[j] = lut[(codes[j >> 2] >> (2 * (j & 3))) & 3];
}

}  // namespace strata::backend::cpu
