#pragma once
/// \file
/// The top eigenpairs of a dense symmetric matrix held in memory (a GRM), to float64 accuracy,
/// without the O(n³) tridiagonal reduction of a full LAPACK solve: thick-restart block Krylov
/// with full reorthogonalization and Rayleigh–Ritz, stopped when every wanted Ritz pair's
/// residual ‖A·v − θ·v‖ is at most `tolerance`·θ. A spectrum that would need more products
/// than n gets LAPACK's solve of the whole matrix instead (exact).
/// Products A·Q run over fixed row slices on the Context's workers: the same bits for any
/// thread count. Up to n = 500, LAPACK's dsyevr for the top k is cheaper and is used instead.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::linalg {

/// \brief Settings of top_eigenpairs().
struct TopEigenParams {
  int64_t k = 10;              ///< pairs wanted (largest eigenvalues)
  int64_t block = 0;           ///< Krylov block columns (0 = 4)
  /// Bound on each pair's residual ‖A·v − θ·v‖ relative to its θ: eigenvectors are then
  /// within about tolerance / (relative gap) (5e-6 for gaps of 1e-3).
  double tolerance = 5e-9;
  uint64_t seed = 0;           ///< start block (strata/core/random.hpp normals)
};

/// \brief Result of top_eigenpairs().
struct TopEigenResult {
  std::vector<double> values;       ///< k, descending
  DenseMatrix vectors;              ///< n × k, orthonormal; largest-|·| entry of each column positive
  std::vector<double> residuals;    ///< ‖A·v − θ·v‖ / θ₁ per pair
  int64_t basis_columns = 0;        ///< columns multiplied by the matrix (n for the dense solve)
  bool complete = false;            ///< solved by LAPACK on the whole matrix (exact to rounding)
};

/// \brief Top-k eigenpairs of the symmetric n × n matrix `a` (row-major; symmetric, so also
/// column-major). Invalid when k is not in [1, n).
Result<TopEigenResult> top_eigenpairs(const Context& ctx, const double* a, int64_t n, const TopEigenParams& params);

}  // namespace strata::linalg
