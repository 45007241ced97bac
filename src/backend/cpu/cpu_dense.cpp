// Dense operations of the CPU backend on OpenBLAS/LAPACKE. BLAS sees column-major matrices
// only: a row-major r × c view is the column-major c × r matrix (its transpose), so each
// operation flips transposes, triangles and sides instead of copying.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <vector>

#include "backend/checks.hpp"
#include "backend/cpu/cpu_backend.hpp"

// OpenBLAS internal (exported by its pthread and OpenMP builds; absent from others).
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));

namespace strata::backend::cpu {
namespace {

template <class T>
bool row_major(const MatrixView<T>& v) {
  return v.layout == Layout::RowMajor;
}

using detail::check_view;

CBLAS_TRANSPOSE cblas_trans(bool t) { return t ? CblasTrans : CblasNoTrans; }
int i32(int64_t x) { return static_cast<int>(x); }
int ld_of(int64_t ld) { return static_cast<int>(std::max<int64_t>(1, ld)); }

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
               const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasColMajor, cblas_trans(ta), cblas_trans(tb), i32(m), i32(n), i32(k), alpha, a, ld_of(lda), b,
              ld_of(ldb), beta, c, ld_of(ldc));
}
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasColMajor, cblas_trans(ta), cblas_trans(tb), i32(m), i32(n), i32(k), alpha, a, ld_of(lda), b,
              ld_of(ldb), beta, c, ld_of(ldc));
}

// The skinny kernels' shapes (skinny_gemm.hpp): C column-major, op(B) read down columns.
bool try_skinny(SkinnyGemmFn skinny, bool at, bool bt, int64_t m, int64_t n, int64_t k, double alpha,
                MatrixView<const double> a, MatrixView<const double> b, double beta, MatrixView<double> c) {
  if (!skinny || row_major(c) || bt != row_major(b)) return false;
  // op(A)(i, p): rows contiguous when A is row-major untransposed or column-major transposed.
  const bool rows = row_major(a) != at;
  return skinny(rows, m, n, k, alpha, a.data, a.ld, b.data, b.ld, beta, c.data, c.ld);
}

template <class T>
Status gemm_impl(Trans ta, Trans tb, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> c,
                 SkinnyGemmFn skinny = nullptr) {
  int64_t m = 0, n = 0, k = 0;
  STRATA_RETURN_NOT_OK(detail::check_gemm(ta, tb, a, b, c, &m, &n, &k));
  const bool at = ta == Trans::Yes, bt = tb == Trans::Yes;
  if (m == 0 || n == 0) return Status::OK();
  if constexpr (std::is_same_v<T, double>) {
    if (try_skinny(skinny, at, bt, m, n, k, alpha, a, b, beta, c)) return Status::OK();
  }
  // Operand x as BLAS sees it: transposed when its view is row-major.
  const bool ax = at != row_major(a), bx = bt != row_major(b);
  if (!row_major(c)) {
    blas_gemm(ax, bx, m, n, k, alpha, a.data, a.ld, b.data, b.ld, beta, c.data, c.ld);
  } else {  // cᵀ = op(b)ᵀ·op(a)ᵀ
    blas_gemm(!bx, !ax, n, m, k, alpha, b.data, b.ld, a.data, a.ld, beta, c.data, c.ld);
  }
  return Status::OK();
}

Status lapack_status(const char* op, int info, const char* failure) {
  if (info == 0) return Status::OK();
  if (info < 0) return Status::Invalid(op, ": argument ", -info, " rejected by LAPACK");
  return Status::InvalidData(op, ": ", failure, " (info ", info, ")");
}

int lapack_layout(Layout l) { return l == Layout::RowMajor ? LAPACK_ROW_MAJOR : LAPACK_COL_MAJOR; }
char uplo_char(Uplo u) { return u == Uplo::Upper ? 'U' : 'L'; }

}  // namespace

CpuBackend::CpuBackend(const KernelTable& k) : k_(k) {
  static std::once_flag once;
  std::call_once(once, [] {
    openblas_set_num_threads(1);
    // The executor owns parallelism, so BLAS runs on one thread per call. OpenBLAS's pthread
    // build still starts a server thread per core at load, and each spins on sched_yield for
    // ~2^28 cycles before sleeping: on a 2-core machine that steals most of a core from the
    // first 0.1 s of every run. Stop those threads; a threaded call would restart them.
    if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
  });
}

Status CpuBackend::gemm(Trans ta, Trans tb, double alpha, MatrixView<const double> a, MatrixView<const double> b,
                        double beta, MatrixView<double> c) const {
  return gemm_impl(ta, tb, alpha, a, b, beta, c, k_.skinny);
}
Status CpuBackend::gemm(Trans ta, Trans tb, float alpha, MatrixView<const float> a, MatrixView<const float> b,
                        float beta, MatrixView<float> c) const {
  return gemm_impl(ta, tb, alpha, a, b, beta, c);
}

Status CpuBackend::syrk(Uplo uplo, Trans ta, double alpha, MatrixView<const double> a, double beta,
                        MatrixView<double> c) const {
  int64_t n = 0, k = 0;
  STRATA_RETURN_NOT_OK(detail::check_syrk(ta, a, c, &n, &k));
  const bool at = ta == Trans::Yes;
  if (n == 0) return Status::OK();
  // A row-major c is its transpose: the same symmetric values with the other triangle.
  const bool upper = (uplo == Uplo::Upper) != row_major(c);
  cblas_dsyrk(CblasColMajor, upper ? CblasUpper : CblasLower, cblas_trans(at != row_major(a)), i32(n), i32(k), alpha,
              a.data, ld_of(a.ld), beta, c.data, ld_of(c.ld));
  return Status::OK();
}

namespace {

using TriangleBlas = decltype(&cblas_dtrsm);  // dtrsm and dtrmm take the same arguments

// op(a) against b from the left or right, a triangular: the layouts are folded into BLAS's
// column-major call (a row-major buffer holds the transpose; a row-major b turns the side).
Status triangle_call(const char* op, TriangleBlas blas, Side side, Uplo uplo, Trans ta, double alpha,
                     MatrixView<const double> a, MatrixView<double> b) {
  STRATA_RETURN_NOT_OK(detail::check_triangle(op, side, a, b));
  if (b.rows == 0 || b.cols == 0) return Status::OK();
  bool left = side == Side::Left, upper = uplo == Uplo::Upper, trans = ta == Trans::Yes;
  if (row_major(a)) upper = !upper, trans = !trans;  // the buffer holds aᵀ
  int64_t m = b.rows, nn = b.cols;
  if (row_major(b)) left = !left, trans = !trans, std::swap(m, nn);  // work on bᵀ
  blas(CblasColMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, cblas_trans(trans),
       CblasNonUnit, i32(m), i32(nn), alpha, a.data, ld_of(a.ld), b.data, ld_of(b.ld));
  return Status::OK();
}

}  // namespace

Status CpuBackend::trsm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
                        MatrixView<double> b) const {
  return triangle_call("trsm", &cblas_dtrsm, side, uplo, ta, alpha, a, b);
}

Status CpuBackend::trmm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
                        MatrixView<double> b) const {
  return triangle_call("trmm", &cblas_dtrmm, side, uplo, ta, alpha, a, b);
}

Status CpuBackend::potrf(Uplo uplo, MatrixView<double> a) const {
  STRATA_RETURN_NOT_OK(detail::check_square("potrf", a));
  if (a.rows == 0) return Status::OK();
  return lapack_status("potrf",
                       LAPACKE_dpotrf(lapack_layout(a.layout), uplo_char(uplo), i32(a.rows), a.data, ld_of(a.ld)),
                       "matrix is not positive definite");
}

Status CpuBackend::qr(MatrixView<const double> a, MatrixView<double> q, MatrixView<double> r) const {
  STRATA_RETURN_NOT_OK(detail::check_qr(a, q, r));
  const int64_t m = a.rows, n = a.cols;
  if (n == 0) return Status::OK();
  const bool alias = a.data == q.data && a.ld == q.ld && a.layout == q.layout;
  if (!alias)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) q(i, j) = a(i, j);
  std::vector<double> tau(static_cast<size_t>(n));
  const int lay = lapack_layout(q.layout);
  STRATA_RETURN_NOT_OK(
      lapack_status("qr", LAPACKE_dgeqrf(lay, i32(m), i32(n), q.data, ld_of(q.ld), tau.data()), "geqrf failed"));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) r(i, j) = i <= j ? q(i, j) : 0.0;
  return lapack_status("qr", LAPACKE_dorgqr(lay, i32(m), i32(n), i32(n), q.data, ld_of(q.ld), tau.data()),
                       "orgqr failed");
}

Status CpuBackend::syev(MatrixView<double> a, double* w, bool vectors) const {
  STRATA_RETURN_NOT_OK(detail::check_square("syev", a));
  if (a.rows == 0) return Status::OK();
  return lapack_status("syev",
                       LAPACKE_dsyevd(lapack_layout(a.layout), vectors ? 'V' : 'N', 'L', i32(a.rows), a.data,
                                      ld_of(a.ld), w),
                       "eigensolver did not converge");
}

Status CpuBackend::syev_top(MatrixView<double> a, int64_t count, double* w, MatrixView<double> z) const {
  STRATA_RETURN_NOT_OK(detail::check_syev_top(a, count, z));
  const int64_t n = a.rows;
  if (count == 0) return Status::OK();
  // dsyevr writes all n eigenvalues (the wanted ones first) and needs column-major z with
  // 2·count support entries; results are copied out.
  std::vector<double> wall(static_cast<size_t>(n)), zz(static_cast<size_t>(n * count));
  std::vector<lapack_int> support(static_cast<size_t>(2 * count));
  lapack_int found = 0;
  const int info = LAPACKE_dsyevr(lapack_layout(a.layout), 'V', 'I', 'L', i32(n), a.data, ld_of(a.ld), 0.0, 0.0,
                                  i32(n - count + 1), i32(n), 0.0, &found, wall.data(), zz.data(),
                                  a.layout == Layout::RowMajor ? i32(count) : i32(n), support.data());
  STRATA_RETURN_NOT_OK(lapack_status("syev_top", info, "eigensolver did not converge"));
  if (found != count) return Status::InvalidData("syev_top: found ", found, " of ", count, " eigenpairs");
  std::copy(wall.begin(), wall.begin() + count, w);
  for (int64_t j = 0; j < count; ++j)
    for (int64_t i = 0; i < n; ++i)
      z(i, j) = a.layout == Layout::RowMajor ? zz[static_cast<size_t>(i * count + j)] : zz[static_cast<size_t>(i + j * n)];
  return Status::OK();
}

Result<double> CpuBackend::trcon(Uplo uplo, MatrixView<const double> a) const {
  STRATA_RETURN_NOT_OK(detail::check_square("trcon", a));
  if (a.rows == 0) return 1.0;
  // The 1-norm of a is the ∞-norm of the aᵀ a row-major buffer holds.
  const bool rm = row_major(a);
  const char tri = (uplo == Uplo::Upper) != rm ? 'U' : 'L';
  double rcond = 0.0;
  STRATA_RETURN_NOT_OK(lapack_status(
      "trcon", LAPACKE_dtrcon(LAPACK_COL_MAJOR, rm ? 'I' : '1', tri, 'N', i32(a.rows), a.data, ld_of(a.ld), &rcond),
      "condition estimate failed"));
  return rcond;
}

Status CpuBackend::svd(MatrixView<const double> a, MatrixView<double> u, double* s, MatrixView<double> vt) const {
  STRATA_RETURN_NOT_OK(check_view("svd", "a", a));
  STRATA_RETURN_NOT_OK(check_view("svd", "u", u));
  STRATA_RETURN_NOT_OK(check_view("svd", "vt", vt));
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  if (u.rows != m || u.cols != k || vt.rows != k || vt.cols != n)
    return Status::Invalid("svd: ", m, " x ", n, " into u ", u.rows, " x ", u.cols, ", vt ", vt.rows, " x ", vt.cols);
  if (k == 0) return Status::OK();
  // Column-major copies: a is kept, and gesvd retries when gesdd fails to converge.
  std::vector<double> w(static_cast<size_t>(m * n)), uu(static_cast<size_t>(m * k)), vv(static_cast<size_t>(k * n));
  const auto copy_in = [&] {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) w[static_cast<size_t>(i + j * m)] = a(i, j);
  };
  copy_in();
  int info = LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', i32(m), i32(n), w.data(), i32(m), s, uu.data(), i32(m), vv.data(),
                            i32(k));
  if (info > 0) {
    copy_in();
    std::vector<double> superb(static_cast<size_t>(k));
    info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', i32(m), i32(n), w.data(), i32(m), s, uu.data(), i32(m),
                          vv.data(), i32(k), superb.data());
  }
  STRATA_RETURN_NOT_OK(lapack_status("svd", info, "SVD did not converge"));
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < m; ++i) u(i, j) = uu[static_cast<size_t>(i + j * m)];
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < k; ++i) vt(i, j) = vv[static_cast<size_t>(i + j * k)];
  return Status::OK();
}

}  // namespace strata::backend::cpu
