#pragma once
/// \file
/// Small dense linear algebra on the host: the l × l and N × l pieces of the streaming
/// algorithms. Every operation runs on the backend of its Context (backend::of(ctx): BLAS and
/// LAPACK on the CPU).
///
/// **Layout.** `DenseMatrix` is column-major (LAPACK's native layout): element (i, j) sits at
/// `data[i + j * rows]`. Streamed blocks of a source are row-major instead (see
/// row_blocks.hpp); a row-major b × N block is the same memory as a column-major N × b matrix,
/// which is how the kernels hand it to BLAS without copying.
///
/// Every function here returns a Status when the factorization fails (or the input is invalid).

#include <cstdint>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"

namespace strata::linalg {

/// \brief An owned, column-major matrix of doubles.
struct DenseMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> data;  ///< rows * cols, column-major

  DenseMatrix() = default;
  DenseMatrix(int64_t r, int64_t c) : rows(r), cols(c), data(static_cast<size_t>(r * c), 0.0) {}

  /// \brief An n × n identity matrix.
  static DenseMatrix identity(int64_t n);
  /// \brief A copy of a row-major buffer of r × c elements.
  static DenseMatrix from_row_major(const double* src, int64_t r, int64_t c);

  double& operator()(int64_t i, int64_t j) { return data[static_cast<size_t>(i + j * rows)]; }
  double operator()(int64_t i, int64_t j) const { return data[static_cast<size_t>(i + j * rows)]; }
  double* col(int64_t j) { return data.data() + j * rows; }
  const double* col(int64_t j) const { return data.data() + j * rows; }
  bool empty() const { return rows == 0 || cols == 0; }

  /// \brief The leading `c` columns.
  DenseMatrix leading_cols(int64_t c) const;
  /// \brief The transpose.
  DenseMatrix transposed() const;
  /// \brief Row-major copy (rows × cols).
  std::vector<double> to_row_major() const;
};

/// \brief C = op(A) · op(B) with op = transpose when the flag is set.
Result<DenseMatrix> matmul(const Context& ctx, const DenseMatrix& a, const DenseMatrix& b, bool trans_a = false,
                           bool trans_b = false);

/// \brief Frobenius norm.
double frobenius_norm(const DenseMatrix& a);
/// \brief max |QᵀQ − I| over entries: 0 for exactly orthonormal columns.
double orthogonality_error(const DenseMatrix& q);

/// \brief Thin QR with explicit Q (Householder).
struct QrResult {
  DenseMatrix q;  ///< rows × min(rows, cols), orthonormal columns
  DenseMatrix r;  ///< min(rows, cols) × cols, upper trapezoidal
};
/// \brief Householder QR of `a` (any shape).
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto qr, linalg::qr(ctx, a));   // a = qr.q * qr.r
/// \endcode
Result<QrResult> qr(const Context& ctx, const DenseMatrix& a);

/// \brief Replace the columns of `a` (rows ≥ cols) by an orthonormal basis of their span.
///
/// CholeskyQR2 (two rounds of Gram → Cholesky → triangular solve; BLAS-3 only) when `a` is
/// well conditioned, Householder QR otherwise: CholeskyQR2 is accurate to machine precision
/// only while cond(a) ≲ 1e7, so a Cholesky failure or a diagonal ratio of the first factor
/// below 1e-6 switches to Householder. Rank-deficient input therefore still returns
/// orthonormal columns. If `r` is given it receives the cols × cols triangular factor.
/// Returns whether the Householder fallback was taken.
Result<bool> orthonormalize(const Context& ctx, DenseMatrix& a, DenseMatrix* r = nullptr);

/// \brief Thin SVD a = U · diag(s) · Vᵀ (backend::Backend::svd).
struct SvdDense {
  DenseMatrix u;           ///< rows × p, p = min(rows, cols)
  std::vector<double> s;   ///< p, descending
  DenseMatrix vt;          ///< p × cols
};
/// \brief Thin SVD of a small dense matrix.
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto f, linalg::svd_dense(ctx, a));
/// \endcode
Result<SvdDense> svd_dense(const Context& ctx, const DenseMatrix& a);

/// \brief Symmetric eigendecomposition a = Z · diag(w) · Zᵀ (backend::Backend::syev),
/// eigenvalues in **descending** order (columns of Z reordered to match).
struct EighResult {
  std::vector<double> w;  ///< n, descending
  DenseMatrix z;          ///< n × n, orthonormal eigenvectors as columns
};
Result<EighResult> eigh(const Context& ctx, const DenseMatrix& a);
/// \brief The `count` largest eigenpairs only (backend::Backend::syev_top): same ordering as
/// eigh(), z is n × count. About 4× cheaper than eigh() for a few pairs of a few-hundred-square
/// matrix.
Result<EighResult> eigh_top(const Context& ctx, const DenseMatrix& a, int64_t count);

/// \brief Flip column signs so that, in each column of `v`, the entry of largest magnitude is
/// positive (the first index wins among entries within 1e-6 relative of the largest, so the
/// choice survives rounding differences). Returns the ±1 applied to each column; apply the
/// same to the partner factor to keep U·Σ·Vᵀ unchanged.
std::vector<double> fix_signs_max_abs_positive(DenseMatrix& v);

}  // namespace strata::linalg
