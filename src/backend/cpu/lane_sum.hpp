#pragma once
// The 8-lane partial sums of the CPU kernels that promise the same bits portable and vector
// (row_reduce_kernels.cpp, weighted_gram_kernels.cpp): coordinate k goes to partial k mod 8,
// and the eight partials are added in one fixed tree, the order an AVX-512 register's
// halves-of-4, then of-2, then last-pair reduction takes.

namespace strata::backend::cpu {

constexpr int kSumLanes = 8;

inline double lane_tree_sum(const double s[kSumLanes]) {
  const double h0 = s[0] + s[4], h1 = s[1] + s[5], h2 = s[2] + s[6], h3 = s[3] + s[7];
  return (h0 + h2) + (h1 + h3);
}

}  // namespace strata::backend::cpu
