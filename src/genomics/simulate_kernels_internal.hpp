#pragma once
// Batched random words of the simulator (simulate_kernels.cpp): the same words as
// philox_at() element by element, produced 16 Philox blocks at a time.

#include <cstdint>
#include <string>

namespace strata::genomics::detail {

/// Allele words of calls g_begin .. g_begin + count − 1 (two per call: a[i], b[i]).
void allele_words(uint64_t seed, uint64_t g_begin, int64_t count, uint32_t* a, uint32_t* b);
/// Missingness words of the same calls (one per call).
void missing_words(uint64_t seed, uint64_t g_begin, int64_t count, uint32_t* m);

/// Tests: force "portable", "avx2" or "avx512" (false when the CPU lacks it), or "best".
bool set_philox_isa(const std::string& isa);

}  // namespace strata::genomics::detail
