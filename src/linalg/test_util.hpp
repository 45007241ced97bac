#pragma once
// Matrices with known spectra and subspace comparisons for the linalg tests.

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/test_context.hpp"
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
  (void)orthonormalize(strata::testing::test_ctx(), q);
  return q;
}

/// U·diag(s)·Vᵀ (rows × cols) with random orthonormal U, V; returned row-major.
inline std::vector<double> with_spectrum(int64_t rows, int64_t cols, const std::vector<double>& s, uint64_t seed) {
  const int64_t p = static_cast<int64_t>(s.size());
  DenseMatrix u = orthonormal(rows, p, seed), v = orthonormal(cols, p, seed + 1);
  for (int64_t j = 0; j < p; ++j)
    for (int64_t i = 0; i < rows; ++i) u(i, j) *= s[static_cast<size_t>(j)];
  return matmul(strata::testing::test_ctx(), u, v, false, true)->to_row_major();
}

// References straight from LAPACK, not through strata's dense helpers (which the code under test
// uses): a bug there must not cancel out.

/// The thin SVD A = U·diag(s)·Vᵀ by LAPACK dgesvd: s descending, U rows × p, V cols × p,
/// p = min(rows, cols). `info` is LAPACK's (0 = success).
struct LapackSvd {
  std::vector<double> s;
  DenseMatrix u, v;
  int info = -1;
};
inline LapackSvd lapack_svd(const DenseMatrix& a) {
  const int64_t m = a.rows, n = a.cols, p = std::min(m, n);
  std::vector<double> work = a.data;  // column-major, overwritten
  LapackSvd out;
  out.s.resize(static_cast<size_t>(p));
  out.u = DenseMatrix(m, p);
  DenseMatrix vt(p, n);
  std::vector<double> superb(static_cast<size_t>(std::max<int64_t>(p, 2)));
  out.info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', static_cast<int>(m), static_cast<int>(n), work.data(),
                            static_cast<int>(m), out.s.data(), out.u.data.data(), static_cast<int>(m), vt.data.data(),
                            static_cast<int>(p), superb.data());
  out.v = DenseMatrix(n, p);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < n; ++j) out.v(j, i) = vt(i, j);
  return out;
}

/// R of A = QR (cols × cols, upper triangle) by LAPACK dgeqrf; rows ≥ cols.
inline DenseMatrix lapack_r(const DenseMatrix& a) {
  const int64_t m = a.rows, n = a.cols;
  std::vector<double> work = a.data;
  std::vector<double> tau(static_cast<size_t>(std::max<int64_t>(n, 1)));
  DenseMatrix r(n, n);
  if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, static_cast<int>(m), static_cast<int>(n), work.data(), static_cast<int>(m),
                     tau.data()) != 0) {
    r.data.assign(r.data.size(), std::nan(""));  // fails every comparison
    return r;
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= j; ++i) r(i, j) = work[static_cast<size_t>(i + j * m)];
  return r;
}

/// Orthonormal basis (rows × cols) of span(a) by LAPACK dgeqrf + dorgqr.
inline DenseMatrix lapack_q(const DenseMatrix& a) {
  const int64_t m = a.rows, n = a.cols;
  DenseMatrix q = a;
  std::vector<double> tau(static_cast<size_t>(std::max<int64_t>(n, 1)));
  if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, static_cast<int>(m), static_cast<int>(n), q.data.data(), static_cast<int>(m),
                     tau.data()) != 0 ||
      LAPACKE_dorgqr(LAPACK_COL_MAJOR, static_cast<int>(m), static_cast<int>(n), static_cast<int>(n), q.data.data(),
                     static_cast<int>(m), tau.data()) != 0) {
    q.data.assign(q.data.size(), std::nan(""));
  }
  return q;
}

/// Cosine of the largest principal angle between span(a) and span(b) (columns, same count):
/// the smallest singular value of QaᵀQb, all by LAPACK and plain loops.
inline double min_cos_angle(const DenseMatrix& a, const DenseMatrix& b) {
  const DenseMatrix qa = lapack_q(a), qb = lapack_q(b);
  DenseMatrix c(qa.cols, qb.cols);
  for (int64_t i = 0; i < qa.cols; ++i)
    for (int64_t j = 0; j < qb.cols; ++j) {
      double dot = 0;
      for (int64_t r = 0; r < qa.rows; ++r) dot += qa(r, i) * qb(r, j);
      c(i, j) = dot;
    }
  const LapackSvd f = lapack_svd(c);
  if (f.info != 0) return 0;
  return f.s.empty() ? 1.0 : f.s.back();
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
