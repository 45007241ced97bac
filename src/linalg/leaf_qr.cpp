// Block QR kernels for TSQR: CholeskyQR on cache-sized leaves (one round when well
// conditioned, two otherwise), Householder when ill conditioned, and the 2n × n combine step
// of the reduction tree.
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

// Reciprocal condition (LAPACK's 1-norm estimate) of the first Cholesky factor above which one
// round is the whole factorization: R = chol(AᵀA) and Q = A·R⁻¹ then carry errors of about
// ε·cond² ≲ 1e-13 (singular values, orthogonality of Q).
constexpr double kSingleRoundMinRcond = 0.1;

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

// R (and, with `q`, Q written there) of the row-major m × n block `a`, which is only read; `q`
// may be `a` itself. leaf_qr and leaf_r both come here, so their R is the same bits and a Q
// always belongs to the R the reduction tree was built from.
bool factor_leaf(const double* a, double* q, int64_t m, int64_t n, double* r) {
  const int ni = static_cast<int>(n), mi = static_cast<int>(m);
  const size_t count = static_cast<size_t>(m) * static_cast<size_t>(n);
  thread_local std::vector<double> work;
  if (m >= n && gram_cholesky(a, ni, mi, r, kCholQrMinDiagRatio)) {
    double rcond = 0.0;
    if (LAPACKE_dtrcon(LAPACK_COL_MAJOR, '1', 'U', 'N', ni, r, ni, &rcond) == 0 && rcond >= kSingleRoundMinRcond) {
      if (q) {
        if (q != a) std::memcpy(q, a, sizeof(double) * count);
        solve_right(q, ni, mi, r);
      }
      return false;
    }
    // Second round on A·R₁⁻¹ (a copy: a failed round falls back on the original values).
    work.assign(a, a + count);
    solve_right(work.data(), ni, mi, r);
    std::vector<double> r2(static_cast<size_t>(n) * n);
    if (gram_cholesky(work.data(), ni, mi, r2.data(), 0.5)) {
      if (q) {
        solve_right(work.data(), ni, mi, r2.data());
        std::memcpy(q, work.data(), sizeof(double) * count);
      }
      // R = R₂·R₁ (both upper triangular).
      cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, ni, ni, 1.0, r2.data(), ni, r,
                  ni);
      return false;
    }
  }
  double* h = q;
  if (q) {
    if (q != a) std::memcpy(q, a, sizeof(double) * count);
  } else {
    work.assign(a, a + count);
    h = work.data();
  }
  householder_leaf(h, ni, mi, r, q != nullptr);
  return true;
}

}  // namespace

bool leaf_qr(double* block, int64_t m, int64_t n, double* r, bool want_q) {
  return factor_leaf(block, want_q ? block : nullptr, m, n, r);
}

bool leaf_r(const double* block, int64_t m, int64_t n, double* r) { return factor_leaf(block, nullptr, m, n, r); }

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
