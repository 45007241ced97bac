#include "strata/linalg/dense.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <mutex>
#include <cmath>
#include <limits>
#include <numeric>

#include "linalg/dense_internal.hpp"

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

DenseMatrix matmul(const DenseMatrix& a, const DenseMatrix& b, bool trans_a, bool trans_b) {
  const int64_t m = trans_a ? a.cols : a.rows;
  const int64_t k = trans_a ? a.rows : a.cols;
  const int64_t n = trans_b ? b.rows : b.cols;
  DenseMatrix c(m, n);
  if (m == 0 || n == 0 || k == 0) return c;
  cblas_dgemm(CblasColMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, a.data.data(),
              static_cast<int>(std::max<int64_t>(1, a.rows)), b.data.data(),
              static_cast<int>(std::max<int64_t>(1, b.rows)), 0.0, c.data.data(),
              static_cast<int>(std::max<int64_t>(1, m)));
  return c;
}

double frobenius_norm(const DenseMatrix& a) {
  double s = 0;
  for (double x : a.data) s += x * x;
  return std::sqrt(s);
}

double orthogonality_error(const DenseMatrix& q) {
  DenseMatrix g = matmul(q, q, true, false);
  double e = 0;
  for (int64_t i = 0; i < g.rows; ++i)
    for (int64_t j = 0; j < g.cols; ++j) e = std::max(e, std::abs(g(i, j) - (i == j ? 1.0 : 0.0)));
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

Result<QrResult> qr(const DenseMatrix& a) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "qr"));
  const int m = static_cast<int>(a.rows), n = static_cast<int>(a.cols), p = std::min(m, n);
  QrResult out;
  if (p == 0) {
    out.q = DenseMatrix(a.rows, 0);
    out.r = DenseMatrix(0, a.cols);
    return out;
  }
  DenseMatrix w = a;
  std::vector<double> tau(static_cast<size_t>(p));
  int info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, w.data.data(), m, tau.data());
  if (info != 0) return Status::Internal("LAPACK dgeqrf failed (info ", info, ")");
  out.r = DenseMatrix(p, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= std::min(j, p - 1); ++i) out.r(i, j) = w(i, j);
  w.cols = p;
  w.data.resize(static_cast<size_t>(m) * p);
  info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, p, p, w.data.data(), m, tau.data());
  if (info != 0) return Status::Internal("LAPACK dorgqr failed (info ", info, ")");
  out.q = std::move(w);
  return out;
}

namespace {

// One CholeskyQR round on a column-major m × n matrix: a ← a·R⁻¹ with RᵀR = aᵀa.
// Returns false (a untouched) when the Gram matrix is not numerically positive definite.
bool cholesky_qr_round(double* a, int64_t m, int64_t n, double* r, double min_diag_ratio) {
  const int mi = static_cast<int>(m), ni = static_cast<int>(n);
  cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, ni, mi, 1.0, a, mi, 0.0, r, ni);
  if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', ni, r, ni) != 0) return false;
  double dmax = 0, dmin = std::numeric_limits<double>::infinity();
  for (int i = 0; i < ni; ++i) {
    dmax = std::max(dmax, std::abs(r[i + i * ni]));
    dmin = std::min(dmin, std::abs(r[i + i * ni]));
  }
  if (!(dmin > min_diag_ratio * dmax)) return false;
  for (int j = 0; j < ni; ++j)
    for (int i = j + 1; i < ni; ++i) r[i + j * ni] = 0.0;
  cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, mi, ni, 1.0, r, ni,
              a, mi);
  return true;
}

}  // namespace

Result<bool> orthonormalize(DenseMatrix& a, DenseMatrix* r_out) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "orthonormalize"));
  if (a.rows < a.cols) {
    return Status::Invalid("orthonormalize: ", a.rows, " x ", a.cols,
                           " has more columns than rows");
  }
  const int64_t n = a.cols;
  if (n == 0) return false;
  DenseMatrix r1(n, n), r2(n, n);
  DenseMatrix saved = a;
  if (cholesky_qr_round(a.data.data(), a.rows, n, r1.data.data(), kCholQrMinDiagRatio) &&
      cholesky_qr_round(a.data.data(), a.rows, n, r2.data.data(), 0.5)) {
    if (r_out) *r_out = matmul(r2, r1);
    return false;
  }
  a = std::move(saved);
  STRATA_ASSIGN_OR_RETURN(QrResult f, qr(a));
  a = std::move(f.q);
  if (r_out) *r_out = std::move(f.r);
  return true;
}

Result<SvdDense> svd_dense(const DenseMatrix& a) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "svd"));
  const int m = static_cast<int>(a.rows), n = static_cast<int>(a.cols), p = std::min(m, n);
  SvdDense out;
  out.u = DenseMatrix(m, p);
  out.vt = DenseMatrix(p, n);
  out.s.assign(static_cast<size_t>(p), 0.0);
  if (p == 0) return out;
  for (double x : a.data) {
    if (!std::isfinite(x)) return Status::InvalidData("svd: the matrix contains NaN or infinity");
  }
  DenseMatrix w = a;
  int info = LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', m, n, w.data.data(), m, out.s.data(),
                            out.u.data.data(), m, out.vt.data.data(), p);
  if (info > 0) {
    // dgesdd's divide and conquer can fail to converge where QR iteration does not.
    w = a;
    std::vector<double> superb(static_cast<size_t>(std::max(1, p - 1)));
    info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', m, n, w.data.data(), m, out.s.data(),
                          out.u.data.data(), m, out.vt.data.data(), p, superb.data());
  }
  if (info != 0) return Status::Internal("LAPACK SVD failed to converge (info ", info, ")");
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

Result<EighResult> eigh(const DenseMatrix& a) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "eigh"));
  if (a.rows != a.cols) return Status::Invalid("eigh: matrix is ", a.rows, " x ", a.cols, ", not square");
  const int n = static_cast<int>(a.rows);
  EighResult out;
  if (n == 0) return out;
  for (double x : a.data) {
    if (!std::isfinite(x)) return Status::InvalidData("eigh: the matrix contains NaN or infinity");
  }
  DenseMatrix z = a;
  std::vector<double> w(static_cast<size_t>(n));
  int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', n, z.data.data(), n, w.data());
  if (info != 0) return Status::Internal("LAPACK dsyevd failed (info ", info, ")");
  return descending(w, z, n);
}

Result<EighResult> eigh_top(const DenseMatrix& a, int64_t count) {
  STRATA_RETURN_NOT_OK(check_lapack_dims(a.rows, a.cols, "eigh_top"));
  if (a.rows != a.cols) return Status::Invalid("eigh_top: matrix is ", a.rows, " x ", a.cols, ", not square");
  if (count < 0 || count > a.rows) {
    return Status::Invalid("eigh_top: count ", count, " outside [0, ", a.rows, "]");
  }
  const int n = static_cast<int>(a.rows), c = static_cast<int>(count);
  EighResult out;
  if (c == 0) return out;
  for (double x : a.data) {
    if (!std::isfinite(x)) return Status::InvalidData("eigh_top: the matrix contains NaN or infinity");
  }
  DenseMatrix work = a, z(n, c);
  std::vector<double> w(static_cast<size_t>(n));
  std::vector<lapack_int> support(static_cast<size_t>(2 * c));
  lapack_int found = 0;
  const int info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'I', 'U', n, work.data.data(), n, 0.0, 0.0, n - c + 1, n,
                                  0.0, &found, w.data(), z.data.data(), n, support.data());
  if (info != 0 || found != c) return Status::Internal("LAPACK dsyevr failed (info ", info, ", found ", found, ")");
  return descending(w, z, c);
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

void use_single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

}  // namespace strata::linalg
