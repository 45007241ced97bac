#pragma once
// Private block kernels shared by tsqr.cpp and the randomized passes, on the backend. Callers
// validate sizes (check_lapack_dims) before a pass starts.

#include <cstdint>

#include <algorithm>

#include "strata/backend/backend.hpp"
#include "strata/core/status.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::linalg {

/// CholeskyQR is used only while the first factor's diagonal ratio stays above this; below it
/// cond(A)² would swamp double precision and Householder takes over.
inline constexpr double kCholQrMinDiagRatio = 1e-6;

/// The backend's view of a DenseMatrix (column-major).
inline backend::MatrixView<double> view(DenseMatrix& m) {
  return backend::col_major(m.data.data(), m.rows, m.cols, std::max<int64_t>(1, m.rows));
}
inline backend::MatrixView<const double> view(const DenseMatrix& m) {
  return backend::col_major(m.data.data(), m.rows, m.cols, std::max<int64_t>(1, m.rows));
}

/// Invalid when a dense matrix would not fit LAPACK's 32-bit indices.
Status check_lapack_dims(int64_t rows, int64_t cols, const char* what);

/// QR of a row-major m × n block (m ≥ 1), which is the column-major n × m matrix Aᵀ.
/// `r` (n × n, column-major) receives R with rows ≥ min(m, n) zero. With `want_q` the block
/// is overwritten by Q (row-major m × n; columns ≥ min(m, n) zero); otherwise it is left as
/// is. CholeskyQR (BLAS-3): one round when the first factor is well conditioned, two when
/// not; Householder LQ of Aᵀ when ill conditioned. The R produced is bit-identical with and
/// without `want_q`. Returns true when the Householder fallback was used.
Result<bool> leaf_qr(const backend::Backend& be, double* block, int64_t m, int64_t n, double* r, bool want_q);

/// The R of leaf_qr for a block that must not be modified (bit-identical to leaf_qr's R).
Result<bool> leaf_r(const backend::Backend& be, const double* block, int64_t m, int64_t n, double* r);

/// QR of the stacked [top; bottom] (both n × n column-major): R into `r`; with `q` (2n × n
/// column-major) the explicit orthonormal factor. Internal when the backend fails.
Status combine_qr(const backend::Backend& be, const double* top, const double* bottom, int64_t n, double* r,
                  double* q);

}  // namespace strata::linalg
