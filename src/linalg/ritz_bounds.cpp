// Float64 Rayleigh–Ritz check of approximate top eigenvectors of AᵀA, with error bounds on
// the eigenvalues and the eigenvectors (svd_randomized's verification pass).
#include "linalg/ritz_bounds_internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::linalg {

void ritz_error_bounds(const std::vector<double>& theta, const std::vector<double>& residual, double floor,
                       std::vector<double>& value_bound, std::vector<double>& vector_bound) {
  const auto c = static_cast<int64_t>(theta.size());
  value_bound.assign(theta.size(), 0.0);
  vector_bound.assign(theta.size(), 1.0);
  if (c == 0) return;
  // Bottom up. Every λ_i ≥ θ_i (Cauchy interlacing). The last pair: λ_c ≤ θ_c + r_c (the
  // assumption; its gap below is unknown). Pair i < c: λ_{i+1} ≤ a = θ_{i+1} + e_{i+1}, so no
  // eigenvalue lies in (a, θ_i) and, when a < θ_i, λ_i − θ_i ≤ r²/(θ_i − a) (Kato–Temple). Every
  // other eigenvalue is then at least δ = min(θ_{i−1} − θ_i, θ_i − a) from θ_i (λ_{i−1} ≥
  // θ_{i−1}), so sin∠(v_i, u_i) ≤ r/δ (Davis–Kahan).
  for (int64_t i = c - 1; i >= 0; --i) {
    const auto ui = static_cast<size_t>(i);
    const double r = residual[ui] + floor;
    const double below = i + 1 < c ? theta[ui] - (theta[ui + 1] + value_bound[ui + 1]) : 0.0;
    double e = r;
    if (below > 0) e = std::min(r, r * r / below);
    double delta = below;
    if (i > 0) delta = std::min(delta, theta[ui - 1] - theta[ui]);
    value_bound[ui] = e;
    vector_bound[ui] = delta > 0 ? std::min(1.0, r / delta) : 1.0;
  }
}

Result<CheckedPairs> check_pairs(const Context& ctx, const GramOperator& op, DenseMatrix w) {
  CheckedPairs out;
  const int64_t n = w.rows, c = w.cols;
  if (c == 0) return out;
  if (op.cols() != n) return Status::Invalid("eigenpair check: ", op.describe(), " has ", op.cols(), " columns, the vectors ", n, " rows");
  STRATA_RETURN_NOT_OK(orthonormalize(ctx, w).status());
  DenseMatrix y;
  STRATA_RETURN_NOT_OK(op.gram(w, y));
  out.passes = 1;
  STRATA_ASSIGN_OR_RETURN(DenseMatrix h, matmul(ctx, w, y, /*trans_a=*/true));
  for (int64_t j = 0; j < c; ++j)
    for (int64_t i = 0; i < j; ++i) h(i, j) = h(j, i) = 0.5 * (h(i, j) + h(j, i));
  STRATA_ASSIGN_OR_RETURN(EighResult e, eigh(ctx, h));
  STRATA_ASSIGN_OR_RETURN(out.vectors, matmul(ctx, w, e.z));
  STRATA_ASSIGN_OR_RETURN(const DenseMatrix yz, matmul(ctx, y, e.z));
  out.values = e.w;
  std::vector<double> residual(static_cast<size_t>(c));
  for (int64_t j = 0; j < c; ++j) {
    const double t = e.w[static_cast<size_t>(j)];
    double r2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = yz(i, j) - t * out.vectors(i, j);
      r2 += d * d;
    }
    residual[static_cast<size_t>(j)] = std::sqrt(r2);
  }
  // Rounding of the float64 products themselves (sums of rows·cols terms) and of this check:
  // a generous (rows + cols)·ε·θ₁ on every residual.
  const double floor = double(op.rows() + op.cols()) * std::numeric_limits<double>::epsilon() * std::max(0.0, e.w[0]);
  out.residuals = residual;
  ritz_error_bounds(out.values, residual, floor, out.value_bound, out.vector_bound);
  return out;
}

}  // namespace strata::linalg
