#pragma once
// Pieces shared by svd.cpp, svd_exact.cpp and svd_randomized.cpp.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/linalg/svd.hpp"

namespace strata::linalg {

/// k checked against the shape: 0 means all (only with allow_full); randomized needs
/// 1 ≤ k < min(rows, cols). Also rejects empty matrices.
Result<int64_t> validate_k(const RowBlockSource& source, int64_t k, bool allow_full);
/// The same for a rows × cols matrix described as `what` (for messages).
Result<int64_t> validate_k(int64_t rows, int64_t cols, const std::string& what, int64_t k, bool allow_full);

/// Invalid when every singular value is zero (constant-zero data).
Status check_spectrum(const RowBlockSource& source, const std::vector<double>& s, int64_t k);

/// Exact SVD of a source with rows ≥ cols; the U rows go to `sink` (kept in memory if empty).
Result<SvdResult> svd_exact_tall(const RowBlockSource& source, int64_t k, bool compute_u, const FactorSink& sink,
                                 const PassOptions& options);

}  // namespace strata::linalg
