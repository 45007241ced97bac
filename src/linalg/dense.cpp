#include "strata/linalg/dense.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "linalg/dense_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"

namespace strata::linalg {

DenseMatrix DenseMatrix::identity(int64_t n) {
  DenseMatrix m(n, n);
  for (int64_t i = 0; i < n; ++i) m(i, i) = 1.0;
  return m;
}

DenseMatrix DenseMatrix::from_row_major(const double* src, int64_t r, int64_t c) {
  DenseMatrix m(r, c);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) m(i, j) = src[i * c + j];
  return m;
}

DenseMatrix DenseMatrix::leading_cols(int64_t c) const {
  DenseMatrix m(rows, c);
  std::copy(data.begin(), data.begin() + rows * c, m.data.begin());
  return m;
}

DenseMatrix DenseMatrix::transposed() const {
  DenseMatrix t(cols, rows);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) t(j, i) = (*this)(i, j);
  return t;
}

std::vector<double> DenseMatrix::to_row_major() const {
  std::vector<double> out(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[static_cast<size_t>(i * cols + j)] = (*this)(i, j);
  return out;
}

Result<DenseMatrix> matmul(const Context& ctx, const DenseMatrix& a, const DenseMatrix& b, bool trans_a,
                           bool trans_b) {
  const int64_t m = trans_a ? a.cols : a.rows;
  const int64_t n = trans_b ? b.rows : b.cols;
  DenseMatrix c(m, n);
  STRATA_RETURN_NOT_OK(backend::of(ctx).gemm(trans_a ? backend::Trans::Yes : backend::Trans::No,
                                             trans_b ? backend::Trans::Yes : backend::Trans::No, 1.0, view(a),
                                             view(b), 0.0, view(c)));
  return c;
}

double frobenius_norm(const DenseMatrix& a) {
  double s = 0;
  for (double x : a.data) s += x * x;
  return std::sqrt(s);
}

double orthogonality_error(const DenseMatrix& q) {
  // Plain loops: a diagnostic must not depend on the backend it checks.
  double e = 0;
  for (int64_t i = 0; i < q.cols; ++i)
    for (int64_t j = i; j < q.cols; ++j) {
      double s = 0;
      for (int64_t p = 0; p < q.rows; ++p) s += q(p, i) * q(p, j);
      e = std::max(e, std::abs(s - (i == j ? 1.0 : 0.0)));
    }
  return e;
}

Status check_lapack_dims(int64_t rows, int64_t cols, const char* what) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (rows < 0 || cols < 0 || rows > kMax || cols > kMax || (rows > 0 && cols > kMax / rows)) {
    return Status::Invalid(what, ": a ", rows, " x ", cols,
                           " dense matrix exceeds LAPACK's 32-bit index range");
  }
  return Status::OK();
}

Result<QrResult> qr(const Context& ctx, const DenseMatrix& a) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "qr"));
  const int64_t m = a.rows, n = a.cols, p = std::min(m, n);
  QrResult out;
  if (p == 0) {
    out.q = DenseMatrix(a.rows, 0);
    out.r = DenseMatrix(0, a.cols);
    return out;
  }
  // backend::qr wants m ≥ n: a wide matrix is factored as [a; 0] (its extra rows stay zero, so
  // the leading rows of its Q and R are a's).
  const int64_t mm = std::max(m, n);
  DenseMatrix w(mm, n);
  for (int64_t j = 0; j < n; ++j) std::copy(a.col(j), a.col(j) + m, w.col(j));
  DenseMatrix r(n, n);
  STRATA_RETURN_NOT_OK(backend::of(ctx).qr(view(w), view(w), view(r)));
  out.r = DenseMatrix(p, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < p; ++i) out.r(i, j) = r(i, j);
  out.q = DenseMatrix(m, p);
  for (int64_t j = 0; j < p; ++j) std::copy(w.col(j), w.col(j) + m, out.q.col(j));
  return out;
}

namespace {

// One CholeskyQR round on a column-major m × n matrix: a ← a·R⁻¹ with RᵀR = aᵀa.
// Returns false (a untouched) when the Gram matrix is not numerically positive definite.
bool cholesky_qr_round(const backend::Backend& be, double* a, int64_t m, int64_t n, double* r,
                       double min_diag_ratio) {
  using namespace backend;
  const auto av = col_major(a, m, n);
  const auto rv = col_major(r, n, n);
  if (!be.syrk(Uplo::Upper, Trans::Yes, 1.0, av, 0.0, rv).ok() || !be.potrf(Uplo::Upper, rv).ok()) return false;
  double dmax = 0, dmin = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    dmax = std::max(dmax, std::abs(r[i + i * n]));
    dmin = std::min(dmin, std::abs(r[i + i * n]));
  }
  if (!(dmin > min_diag_ratio * dmax)) return false;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j + 1; i < n; ++i) r[i + j * n] = 0.0;
  return be.trsm(Side::Right, Uplo::Upper, Trans::No, 1.0, rv, av).ok();
}

}  // namespace

Result<bool> orthonormalize(const Context& ctx, DenseMatrix& a, DenseMatrix* r_out) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "orthonormalize"));
  if (a.rows < a.cols) {
    return Status::Invalid("orthonormalize: ", a.rows, " x ", a.cols,
                           " has more columns than rows");
  }
  const int64_t n = a.cols;
  if (n == 0) return false;
  DenseMatrix r1(n, n), r2(n, n);
  DenseMatrix saved = a;
  const backend::Backend& be = backend::of(ctx);
  if (cholesky_qr_round(be, a.data.data(), a.rows, n, r1.data.data(), kCholQrMinDiagRatio) &&
      cholesky_qr_round(be, a.data.data(), a.rows, n, r2.data.data(), 0.5)) {
    if (r_out) {
      // R = R₂·R₁ (both upper triangular).
      STRATA_RETURN_NOT_OK(
          be.trmm(backend::Side::Left, backend::Uplo::Upper, backend::Trans::No, 1.0, view(r2), view(r1)));
      *r_out = std::move(r1);
    }
    return false;
  }
  a = std::move(saved);
  STRATA_ASSIGN_OR_RETURN(QrResult f, qr(ctx, a));
  a = std::move(f.q);
  if (r_out) *r_out = std::move(f.r);
  return true;
}

Result<SvdDense> svd_dense(const Context& ctx, const DenseMatrix& a) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "svd"));
  const int64_t m = a.rows, n = a.cols, p = std::min(m, n);
  SvdDense out;
  out.u = DenseMatrix(m, p);
  out.vt = DenseMatrix(p, n);
  out.s.assign(static_cast<size_t>(p), 0.0);
  if (p == 0) return out;
  for (double x : a.data) {
    if (!std::isfinite(x)) return Status::InvalidData("svd: the matrix contains NaN or infinity");
  }
  const Status st = backend::of(ctx).svd(view(a), view(out.u), out.s.data(), view(out.vt));
  if (!st.ok()) return Status::Internal("svd of a ", m, " x ", n, " matrix: ", st.message());
  return out;
}

namespace {

// LAPACK returns eigenpairs in ascending order; strata reports the largest first. The first
// `count` of (w, z) are reordered.
EighResult descending(const std::vector<double>& w, const DenseMatrix& z, int64_t count) {
  EighResult out;
  out.w.resize(static_cast<size_t>(count));
  out.z = DenseMatrix(z.rows, count);
  for (int64_t j = 0; j < count; ++j) {
    out.w[static_cast<size_t>(j)] = w[static_cast<size_t>(count - 1 - j)];
    std::copy(z.col(count - 1 - j), z.col(count - 1 - j) + z.rows, out.z.col(j));
  }
  return out;
}

}  // namespace

Result<EighResult> eigh(const Context& ctx, const DenseMatrix& a) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "eigh"));
  if (a.rows != a.cols) return Status::Invalid("eigh: matrix is ", a.rows, " x ", a.cols, ", not square");
  const int64_t n = a.rows;
  EighResult out;
  if (n == 0) return out;
  for (double x : a.data) {
    if (!std::isfinite(x)) return Status::InvalidData("eigh: the matrix contains NaN or infinity");
  }
  DenseMatrix z = a;
  std::vector<double> w(static_cast<size_t>(n));
  const Status st = backend::of(ctx).syev(view(z), w.data(), true);
  if (!st.ok()) return Status::Internal("eigh of a ", n, " x ", n, " matrix: ", st.message());
  return descending(w, z, n);
}

Result<EighResult> eigh_top(const Context& ctx, const DenseMatrix& a, int64_t count) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "eigh_top"));
  if (a.rows != a.cols) return Status::Invalid("eigh_top: matrix is ", a.rows, " x ", a.cols, ", not square");
  if (count < 0 || count > a.rows) {
    return Status::Invalid("eigh_top: count ", count, " outside [0, ", a.rows, "]");
  }
  const int64_t n = a.rows;
  EighResult out;
  if (count == 0) return out;
  for (double x : a.data) {
    if (!std::isfinite(x)) return Status::InvalidData("eigh_top: the matrix contains NaN or infinity");
  }
  DenseMatrix work = a, z(n, count);
  std::vector<double> w(static_cast<size_t>(count));
  const Status st = backend::of(ctx).syev_top(view(work), count, w.data(), view(z));
  if (!st.ok()) return Status::Internal("eigh_top of a ", n, " x ", n, " matrix: ", st.message());
  return descending(w, z, count);
}

std::vector<double> fix_signs_max_abs_positive(DenseMatrix& v) {
  std::vector<double> signs(static_cast<size_t>(v.cols), 1.0);
  for (int64_t j = 0; j < v.cols; ++j) {
    double* c = v.col(j);
    double mx = 0;
    for (int64_t i = 0; i < v.rows; ++i) mx = std::max(mx, std::abs(c[i]));
    int64_t pick = 0;
    for (int64_t i = 0; i < v.rows; ++i) {
      if (std::abs(c[i]) >= mx * (1.0 - 1e-6)) {
        pick = i;
        break;
      }
    }
    if (v.rows > 0 && c[pick] < 0) {
      signs[static_cast<size_t>(j)] = -1.0;
      for (int64_t i = 0; i < v.rows; ++i) c[i] = -c[i];
    }
  }
  return signs;
}

}  // namespace strata::linalg
