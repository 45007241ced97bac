#pragma once
// The pair-count kernels on aarch64's Advanced SIMD (NEON): pair_count_neon.cpp.

#include "backend/cpu/pair_count_kernels.hpp"

namespace strata::backend::cpu {

/// NEON counts and KING kernels (the portable planes); nullptr on other architectures.
const PairCountKernels* pair_counts_neon();

}  // namespace strata::backend::cpu
