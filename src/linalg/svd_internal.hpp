#pragma once
// Pieces shared by svd.cpp, svd_exact.cpp and svd_randomized.cpp.

#include <cstdint>
#include <string>
#include <vector>

#include "linalg/pass_internal.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::linalg {

/// k checked against the shape: 0 means all (only with allow_full); randomized needs
/// 1 ≤ k < min(rows, cols). Also rejects empty matrices.
Result<int64_t> validate_k(const RowBlockSource& source, int64_t k, bool allow_full);
/// The same for a rows × cols matrix described as `what` (for messages).
Result<int64_t> validate_k(int64_t rows, int64_t cols, const std::string& what, int64_t k, bool allow_full);

/// Invalid when every singular value is zero (constant-zero data).
Status check_spectrum(const RowBlockSource& source, const std::vector<double>& s, int64_t k);

/// The exponent e with max|a| = f·2ᵉ, f in [0.5, 1), from one pass over the source; InvalidData
/// when a value is NaN or infinite (naming its row and column) or every value is zero.
Result<int> scaling_exponent(const RowBlockSource& source, const PassEnv& options);
/// The source times 2⁻ᵉ (exact: a power of two), read in float64 (so subnormal data is scaled
/// before any rounding to float32).
RowBlockSourcePtr make_scaled_source(RowBlockSourcePtr source, int exponent);
/// Largest |entry| of `a`; NaN when any entry is not finite.
double max_abs_or_nan(const DenseMatrix& a);
/// Whether a computed factor's scale (largest |entry| of R, or NaN) calls for rescaling: squares
/// of the data would underflow or overflow.
bool needs_rescaling(double max_abs);
/// Exact SVD of a source with rows ≥ cols; the U rows go to `sink` (kept in memory if empty).
/// Data whose squares would underflow or overflow (R's largest entry outside 2^±256, or not
/// finite) is rescaled by a power of two and rerun unless `rescaled` (the rerun itself).
Result<SvdResult> svd_exact_tall(const RowBlockSource& source, int64_t k, bool compute_u, const FactorSink& sink,
                                 const PassEnv& options, bool rescaled = false);

}  // namespace strata::linalg
