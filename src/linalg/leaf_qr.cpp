// Block QR kernels for TSQR: CholeskyQR on cache-sized leaves (one round when well
// conditioned, two otherwise), Householder when ill conditioned, and the 2n × n combine step
// of the reduction tree. All dense work runs on the backend.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "linalg/dense_internal.hpp"

namespace strata::linalg {
namespace {

using backend::Side;
using backend::Trans;
using backend::Uplo;

// Reciprocal condition (LAPACK's 1-norm estimate) of the first Cholesky factor above which one
// round is the whole factorization: R = chol(AᵀA) and Q = A·R⁻¹ then carry errors of about
// ε·cond² ≲ 1e-13 (singular values, orthogonality of Q).
constexpr double kSingleRoundMinRcond = 0.1;

// A row-major m × n leaf (the column-major n × m matrix Aᵀ).
backend::MatrixView<const double> leaf_view(const double* a, int64_t m, int64_t n) {
  return backend::row_major(a, m, n);
}

// Gram → Cholesky of the row-major m × n leaf A: R (n × n, column-major) with RᵀR = AᵀA.
// Returns false when the factor is not usable (not positive definite, or too ill conditioned
// for CholeskyQR).
bool gram_cholesky(const backend::Backend& be, const double* a, int64_t m, int64_t n, double* r, double min_ratio) {
  const auto rv = backend::col_major(r, n, n);
  if (!be.syrk(Uplo::Upper, Trans::Yes, 1.0, leaf_view(a, m, n), 0.0, rv).ok()) return false;
  if (!be.potrf(Uplo::Upper, rv).ok()) return false;
  double dmax = 0, dmin = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    dmax = std::max(dmax, std::abs(r[i + i * n]));
    dmin = std::min(dmin, std::abs(r[i + i * n]));
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j + 1; i < n; ++i) r[i + j * n] = 0.0;
  return dmin > min_ratio * dmax;
}

// A ← A·R⁻¹ for the row-major m × n leaf A.
Status solve_right(const backend::Backend& be, double* a, int64_t m, int64_t n, const double* r) {
  return be.trsm(Side::Right, Uplo::Upper, Trans::No, 1.0, backend::col_major(r, n, n), backend::row_major(a, m, n));
}

// Householder QR of the row-major m × n leaf in place (Q, columns ≥ min(m, n) zero) with R
// (n × n, rows ≥ min(m, n) zero). A leaf with fewer rows than columns is factored as [A; 0],
// whose extra rows stay zero.
Status householder_leaf(const backend::Backend& be, double* a, int64_t m, int64_t n, double* r, bool want_q) {
  // Non-finite data gets a NaN factor (the callers' scaling check reports where the value is)
  // instead of a LAPACK argument error.
  if (!std::all_of(a, a + m * n, [](double x) { return std::isfinite(x); })) {
    std::fill(r, r + n * n, std::numeric_limits<double>::quiet_NaN());
    if (want_q) std::fill(a, a + m * n, std::numeric_limits<double>::quiet_NaN());
    return Status::OK();
  }
  const int64_t mm = std::max(m, n);
  std::vector<double> w(static_cast<size_t>(mm * n), 0.0);
  std::memcpy(w.data(), a, sizeof(double) * static_cast<size_t>(m * n));
  const auto wv = backend::row_major(w.data(), mm, n);
  STRATA_RETURN_NOT_OK(be.qr(wv, wv, backend::col_major(r, n, n)));
  if (want_q) std::memcpy(a, w.data(), sizeof(double) * static_cast<size_t>(m * n));
  return Status::OK();
}

// R (and, with `q`, Q written there) of the row-major m × n block `a`, which is only read; `q`
// may be `a` itself. leaf_qr and leaf_r both come here, so their R is the same bits and a Q
// always belongs to the R the reduction tree was built from.
Result<bool> factor_leaf(const backend::Backend& be, const double* a, double* q, int64_t m, int64_t n, double* r) {
  const size_t count = static_cast<size_t>(m) * static_cast<size_t>(n);
  thread_local std::vector<double> work;
  if (m >= n && gram_cholesky(be, a, m, n, r, kCholQrMinDiagRatio)) {
    const Result<double> rcond = be.trcon(Uplo::Upper, backend::col_major<const double>(r, n, n));
    if (rcond.ok() && *rcond >= kSingleRoundMinRcond) {
      if (q) {
        if (q != a) std::memcpy(q, a, sizeof(double) * count);
        STRATA_RETURN_NOT_OK(solve_right(be, q, m, n, r));
      }
      return false;
    }
    // Second round on A·R₁⁻¹ (a copy: a failed round falls back on the original values).
    work.assign(a, a + count);
    STRATA_RETURN_NOT_OK(solve_right(be, work.data(), m, n, r));
    std::vector<double> r2(static_cast<size_t>(n * n));
    if (gram_cholesky(be, work.data(), m, n, r2.data(), 0.5)) {
      if (q) {
        STRATA_RETURN_NOT_OK(solve_right(be, work.data(), m, n, r2.data()));
        std::memcpy(q, work.data(), sizeof(double) * count);
      }
      // R = R₂·R₁ (both upper triangular).
      STRATA_RETURN_NOT_OK(be.trmm(Side::Left, Uplo::Upper, Trans::No, 1.0,
                                   backend::col_major<const double>(r2.data(), n, n), backend::col_major(r, n, n)));
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
  STRATA_RETURN_NOT_OK(householder_leaf(be, h, m, n, r, q != nullptr));
  return true;
}

}  // namespace

Result<bool> leaf_qr(const backend::Backend& be, double* block, int64_t m, int64_t n, double* r, bool want_q) {
  return factor_leaf(be, block, want_q ? block : nullptr, m, n, r);
}

Result<bool> leaf_r(const backend::Backend& be, const double* block, int64_t m, int64_t n, double* r) {
  return factor_leaf(be, block, nullptr, m, n, r);
}

Status combine_qr(const backend::Backend& be, const double* top, const double* bottom, int64_t n, double* r,
                  double* q) {
  const int64_t m2 = 2 * n;
  std::vector<double> s(static_cast<size_t>(m2 * n));
  for (int64_t j = 0; j < n; ++j) {
    std::memcpy(&s[static_cast<size_t>(j * m2)], top + j * n, sizeof(double) * static_cast<size_t>(n));
    std::memcpy(&s[static_cast<size_t>(j * m2 + n)], bottom + j * n, sizeof(double) * static_cast<size_t>(n));
  }
  const auto sv = backend::col_major(s.data(), m2, n);
  STRATA_RETURN_NOT_OK(be.qr(sv, sv, backend::col_major(r, n, n)));
  if (q) std::memcpy(q, s.data(), sizeof(double) * s.size());
  return Status::OK();
}

}  // namespace strata::linalg
