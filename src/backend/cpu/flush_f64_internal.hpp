#pragma once
// Adding a register of float64 partial sums to accumulators in memory, columns below `lim`
// only (the GRM tile kernels' last step per row and column block).
#include <cstdint>

#include "backend/cpu/x86_intrinsics_internal.hpp"

#ifdef STRATA_X86
namespace strata::backend::cpu {

/// out[j] += v[j] for j < min(lim, 4).
__attribute__((target("avx2"))) inline void flush4(__m256d v, double* out, int64_t lim) {
  if (lim <= 0) return;
  if (lim >= 4) {
    _mm256_storeu_pd(out, _mm256_add_pd(_mm256_loadu_pd(out), v));
    return;
  }
  alignas(32) double d[4];
  _mm256_store_pd(d, v);
  for (int64_t j = 0; j < lim; ++j) out[j] += d[j];
}

/// out[j] += v[j] for j < min(lim, 8).
__attribute__((target("avx512f"))) inline void flush8(__m512d v, double* out, int64_t lim) {
  if (lim <= 0) return;
  const __mmask8 m = lim >= 8 ? __mmask8(0xFF) : __mmask8((1u << lim) - 1);
  _mm512_mask_storeu_pd(out, m, _mm512_add_pd(_mm512_maskz_loadu_pd(m, out), v));
}

}  // namespace strata::backend::cpu
#endif
