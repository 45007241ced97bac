#pragma once
// Matrices with known spectra and subspace comparisons for the linalg tests.

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "strata/linalg/dense.hpp"

namespace strata::linalg::testutil {

inline DenseMatrix gaussian(int64_t r, int64_t c, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d;
  DenseMatrix m(r, c);
  for (double& x : m.data) x = d(g);
  return m;
}

inline DenseMatrix orthonormal(int64_t r, int64_t c, uint64_t seed) {
  DenseMatrix q = gaussian(r, c, seed);
  (void)orthonormalize(q);
  return q;
}

/// U·diag(s)·Vᵀ (rows × cols) with random orthonormal U, V; returned row-major.
inline std::vector<double> with_spectrum(int64_t rows, int64_t cols, const std::vector<double>& s, uint64_t seed) {
  const int64_t p = static_cast<int64_t>(s.size());
  DenseMatrix u = orthonormal(rows, p, seed), v = orthonormal(cols, p, seed + 1);
  for (int64_t j = 0; j < p; ++j)
    for (int64_t i = 0; i < rows; ++i) u(i, j) *= s[static_cast<size_t>(j)];
  return matmul(u, v, false, true).to_row_major();
}

/// Cosine of the largest principal angle between span(a) and span(b) (columns, same count).
inline double min_cos_angle(const DenseMatrix& a, const DenseMatrix& b) {
  DenseMatrix qa = a, qb = b;
  (void)orthonormalize(qa);
  (void)orthonormalize(qb);
  auto f = svd_dense(matmul(qa, qb, true, false));
  if (!f.ok()) return 0;
  return f->s.empty() ? 1.0 : f->s.back();
}

/// max over columns of 1 − |<a_j, b_j>| (both unit columns): 0 when equal up to sign.
inline double column_mismatch(const DenseMatrix& a, const DenseMatrix& b) {
  double worst = 0;
  for (int64_t j = 0; j < a.cols; ++j) {
    double dot = 0;
    for (int64_t i = 0; i < a.rows; ++i) dot += a(i, j) * b(i, j);
    worst = std::max(worst, 1.0 - std::abs(dot));
  }
  return worst;
}

}  // namespace strata::linalg::testutil
