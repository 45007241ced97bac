// Block QR kernels for TSQR: CholeskyQR2 on cache-sized leaves, Householder when ill
// conditioned, and the 2n × n combine step of the reduction tree.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "linalg/dense_internal.hpp"

namespace strata::linalg {
namespace {

// Reciprocal condition (1-norm estimate) above which one Cholesky round gives R.
constexpr double kSingleRoundMinRcond = 1e-2;

// Gram → Cholesky of the column-major n × m matrix At (= row-major A). Returns false when the
// factor is not usable (not positive definite, or too ill conditioned for CholeskyQR).
bool gram_cholesky(const double* at, int n, int m, double* r, double min_ratio) {
  cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, n, m, 1.0, at, n, 0.0, r, n);
  if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', n, r, n) != 0) return false;
  double dmax = 0, dmin = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    dmax = std::max(dmax, std::abs(r[i + i * n]));
    dmin = std::min(dmin, std::abs(r[i + i * n]));
  }
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i) r[i + j * n] = 0.0;
  return dmin > min_ratio * dmax;
}

// Aᵀ ← R⁻ᵀ Aᵀ, i.e. A ← A R⁻¹ in the row-major view.
void solve_right(double* at, int n, int m, const double* r) {
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, n, m, 1.0, r, n, at, n);
}

bool cholesky_qr2(double* at, int n, int m, double* r, bool want_q) {
  std::vector<double> r2(static_cast<size_t>(n) * n);
  if (m < n || !gram_cholesky(at, n, m, r, kCholQrMinDiagRatio)) return false;
  solve_right(at, n, m, r);
  if (!gram_cholesky(at, n, m, r2.data(), 0.5)) return false;
  if (want_q) solve_right(at, n, m, r2.data());
  // R = R2 · R1 (both upper triangular).
  cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, n, 1.0, r2.data(), n,
              r, n);
  return true;
}

void householder_leaf(double* at, int n, int m, double* r, bool want_q) {
  const int p = std::min(n, m);
  std::vector<double> tau(static_cast<size_t>(p));
  LAPACKE_dgelqf(LAPACK_COL_MAJOR, n, m, at, n, tau.data());
  // At = L·Qt, so A = Qtᵀ·Lᵀ: R = Lᵀ (upper trapezoidal, p × n), padded with zero rows.
  std::fill(r, r + static_cast<size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= std::min(j, p - 1); ++i) r[i + j * n] = at[j + static_cast<size_t>(i) * n];
  if (!want_q) return;
  LAPACKE_dorglq(LAPACK_COL_MAJOR, p, m, p, at, n, tau.data());
  // Rows p..n-1 of At (columns of the row-major Q) still hold reflector data: clear them.
  if (p < n) {
    for (int c = 0; c < m; ++c) std::fill(at + static_cast<size_t>(c) * n + p, at + static_cast<size_t>(c) * n + n, 0.0);
  }
}

}  // namespace

bool leaf_qr(double* block, int64_t m, int64_t n, double* r, bool want_q) {
  const int ni = static_cast<int>(n), mi = static_cast<int>(m);
  // CholeskyQR2 works on a copy so that a failed attempt can fall back on the original values.
  // The copy is a leaf (cache sized), so it costs little next to the factorization.
  thread_local std::vector<double> work;
  work.assign(block, block + static_cast<size_t>(m) * n);
  if (cholesky_qr2(work.data(), ni, mi, r, want_q)) {
    if (want_q) std::memcpy(block, work.data(), sizeof(double) * static_cast<size_t>(m) * n);
    return false;
  }
  householder_leaf(block, ni, mi, r, want_q);
  return true;
}

bool leaf_r(const double* block, int64_t m, int64_t n, double* r) {
  const int ni = static_cast<int>(n), mi = static_cast<int>(m);
  // A well-conditioned leaf needs no second CholeskyQR round for R alone: R = chol(AᵀA) puts
  // errors of about ε·cond² on the singular values, ≤ 2e-12 at cond ≤ 100 (random and most
  // data matrices), and the Gram reads the leaf in place: a third of the flops, no copy.
  if (m >= n && gram_cholesky(block, ni, mi, r, kCholQrMinDiagRatio)) {
    double rcond = 0.0;
    if (LAPACKE_dtrcon(LAPACK_COL_MAJOR, '1', 'U', 'N', ni, r, ni, &rcond) == 0 && rcond >= kSingleRoundMinRcond)
      return false;
  }
  thread_local std::vector<double> work;
  work.assign(block, block + static_cast<size_t>(m) * n);
  if (cholesky_qr2(work.data(), ni, mi, r, false)) return false;
  work.assign(block, block + static_cast<size_t>(m) * n);
  householder_leaf(work.data(), ni, mi, r, false);
  return true;
}

void combine_qr(const double* top, const double* bottom, int64_t n, double* r, double* q) {
  const int ni = static_cast<int>(n), m2 = 2 * ni;
  std::vector<double> s(static_cast<size_t>(m2) * ni);
  for (int j = 0; j < ni; ++j) {
    std::memcpy(&s[static_cast<size_t>(j) * m2], top + static_cast<size_t>(j) * ni, sizeof(double) * ni);
    std::memcpy(&s[static_cast<size_t>(j) * m2 + ni], bottom + static_cast<size_t>(j) * ni, sizeof(double) * ni);
  }
  std::vector<double> tau(static_cast<size_t>(ni));
  LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m2, ni, s.data(), m2, tau.data());
  for (int j = 0; j < ni; ++j)
    for (int i = 0; i < ni; ++i) r[i + static_cast<size_t>(j) * ni] = i <= j ? s[i + static_cast<size_t>(j) * m2] : 0.0;
  if (q) {
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, m2, ni, ni, s.data(), m2, tau.data());
    std::memcpy(q, s.data(), sizeof(double) * s.size());
  }
}

}  // namespace strata::linalg
