#pragma once
// Float64 Rayleigh–Ritz check of approximate top eigenvectors of AᵀA (ritz_bounds.cpp).
#include <cstdint>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"
#include "strata/linalg/dense.hpp"
#include "strata/linalg/gram_operator.hpp"

namespace strata::linalg {

// Ritz pairs (θ_i, v_i) of AᵀA on span(W), descending, with the bounds
//   0 ≤ λ_i − θ_i ≤ value_bound[i]   and   sin∠(v_i, u_i) ≤ vector_bound[i]
// for the true eigenpairs (λ_i, u_i). θ_i ≤ λ_i holds always (Cauchy interlacing). The upper
// bounds assume that the search did not miss an eigen-direction: λ_i ≤ θ_i + r_i wherever the
// gap test below cannot do better (always for the last pair, whose gap below is unknown), i.e.
// the eigenvalue within r_i of θ_i is λ_i. A search started from a Gaussian block breaks this
// only when its start is nearly orthogonal to a top eigenvector.
struct CheckedPairs {
  std::vector<double> values, residuals, value_bound, vector_bound;
  DenseMatrix vectors;  // n × c, orthonormal
  int64_t passes = 0;
};

// One pass of `op` (float64 products for a float64 bound) over the orthonormalized W (n × c).
Result<CheckedPairs> check_pairs(const Context& ctx, const GramOperator& op, DenseMatrix w);

// The bounds from Ritz values θ (descending) and residual norms ‖AᵀA·v_i − θ_i·v_i‖ (each
// enlarged by `floor`, the products' rounding): the last pair by its residual alone, the others
// by Kato–Temple / Davis–Kahan against the gap to their neighbours' bounds.
void ritz_error_bounds(const std::vector<double>& theta, const std::vector<double>& residual, double floor,
                       std::vector<double>& value_bound, std::vector<double>& vector_bound);

}  // namespace strata::linalg
