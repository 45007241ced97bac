#pragma once
// Argument checks of Backend operations, shared by the CPU backend and the CUDA module so that
// both refuse the same calls with the same messages.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>

#include "strata/backend/backend.hpp"
#include "strata/backend/bench_source.hpp"
#include "strata/core/random.hpp"
#include "strata/core/status.hpp"

namespace strata::backend::detail {

/// Shape and leading dimension fit BLAS's int and the layout.
template <class T>
Status check_view(const char* op, const char* what, const MatrixView<T>& v) {
  const int64_t inner = v.layout == Layout::RowMajor ? v.cols : v.rows;
  if (v.rows < 0 || v.cols < 0 || v.ld < std::max<int64_t>(1, inner) || v.rows > INT_MAX || v.cols > INT_MAX ||
      v.ld > INT_MAX || (!v.data && v.rows * v.cols > 0))
    return Status::Invalid(op, ": ", what, " view ", v.rows, " x ", v.cols, " (ld ", v.ld, ") is not valid");
  return Status::OK();
}

/// gemm's views, and m × n of inner dimension k.
template <class T>
Status check_gemm(Trans ta, Trans tb, const MatrixView<const T>& a, const MatrixView<const T>& b,
                  const MatrixView<T>& c, int64_t* m, int64_t* n, int64_t* k) {
  STRATA_RETURN_NOT_OK(check_view("gemm", "a", a));
  STRATA_RETURN_NOT_OK(check_view("gemm", "b", b));
  STRATA_RETURN_NOT_OK(check_view("gemm", "c", c));
  const bool at = ta == Trans::Yes, bt = tb == Trans::Yes;
  *m = at ? a.cols : a.rows;
  *k = at ? a.rows : a.cols;
  const int64_t kb = bt ? b.cols : b.rows;
  *n = bt ? b.rows : b.cols;
  if (*k != kb || c.rows != *m || c.cols != *n)
    return Status::Invalid("gemm: ", *m, " x ", *k, " times ", kb, " x ", *n, " into ", c.rows, " x ", c.cols);
  return Status::OK();
}

/// syrk's views, and the n × n result of inner dimension k.
inline Status check_syrk(Trans ta, const MatrixView<const double>& a, const MatrixView<double>& c, int64_t* n,
                         int64_t* k) {
  STRATA_RETURN_NOT_OK(check_view("syrk", "a", a));
  STRATA_RETURN_NOT_OK(check_view("syrk", "c", c));
  const bool at = ta == Trans::Yes;
  *n = at ? a.cols : a.rows;
  *k = at ? a.rows : a.cols;
  if (c.rows != *n || c.cols != *n)
    return Status::Invalid("syrk: ", *n, " x ", *n, " result into ", c.rows, " x ", c.cols);
  return Status::OK();
}

/// trsm / trmm: a square triangle of b's rows (Left) or columns (Right).
inline Status check_triangle(const char* op, Side side, const MatrixView<const double>& a,
                             const MatrixView<double>& b) {
  STRATA_RETURN_NOT_OK(check_view(op, "a", a));
  STRATA_RETURN_NOT_OK(check_view(op, "b", b));
  const int64_t n = side == Side::Left ? b.rows : b.cols;
  if (a.rows != a.cols || a.rows != n)
    return Status::Invalid(op, ": triangle ", a.rows, " x ", a.cols, " against ", b.rows, " x ", b.cols);
  return Status::OK();
}

/// A square matrix (potrf, syev, trcon).
template <class T>
Status check_square(const char* op, const MatrixView<T>& a) {
  STRATA_RETURN_NOT_OK(check_view(op, "a", a));
  if (a.rows != a.cols) return Status::Invalid(op, ": ", a.rows, " x ", a.cols, " is not square");
  return Status::OK();
}

/// Thin QR of an m × n a (m ≥ n) into q (m × n) and r (n × n).
inline Status check_qr(const MatrixView<const double>& a, const MatrixView<double>& q, const MatrixView<double>& r) {
  STRATA_RETURN_NOT_OK(check_view("qr", "a", a));
  STRATA_RETURN_NOT_OK(check_view("qr", "q", q));
  STRATA_RETURN_NOT_OK(check_view("qr", "r", r));
  const int64_t m = a.rows, n = a.cols;
  if (m < n || q.rows != m || q.cols != n || r.rows != n || r.cols != n)
    return Status::Invalid("qr: ", m, " x ", n, " into q ", q.rows, " x ", q.cols, ", r ", r.rows, " x ", r.cols);
  return Status::OK();
}

/// The `count` top eigenpairs of the square a into z (n × count).
inline Status check_syev_top(const MatrixView<double>& a, int64_t count, const MatrixView<double>& z) {
  STRATA_RETURN_NOT_OK(check_square("syev_top", a));
  STRATA_RETURN_NOT_OK(check_view("syev_top", "z", z));
  const int64_t n = a.rows;
  if (count < 0 || count > n || z.rows != n || z.cols != count)
    return Status::Invalid("syev_top: ", count, " pairs of ", n, " x ", n, " into z ", z.rows, " x ", z.cols);
  return Status::OK();
}

/// A tile of pair counts inside the planes (col0 a multiple of 8, columns rounded up to 8).
inline Status check_pair_tile(const char* op, CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0,
                              int64_t cols) {
  const int64_t padded = (planes.samples + 7) / 8 * 8;
  if (row0 < 0 || rows < 0 || cols < 0 || col0 < 0 || col0 % 8 != 0 || row0 + rows > planes.samples ||
      col0 + (cols + 7) / 8 * 8 > padded)
    return Status::Invalid(op, ": tile rows [", row0, ", ", row0 + rows, ") x cols [", col0, ", ", col0 + cols,
                           ") does not fit ", planes.samples, " samples (col0 must be a multiple of 8)");
  return Status::OK();
}

inline Status check_random_slice(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                 int64_t c0, int64_t cstep, int64_t cols) {
  if ((p.dist != random::Dist::Normal && p.dist != random::Dist::Uniform) || p.out != ScalarType::Float64)
    return Status::Invalid("random_slice_sum: float64 normal or uniform elements only");
  if (ld < 0 || r0 < 0 || c0 < 0 || rows < 0 || cols < 0 || rstep < 0 || cstep < 0)
    return Status::Invalid("random_slice_sum: negative extent, start or step");
  if (rows == 0 || cols == 0) return Status::OK();
  // The last element index, (r0 + (rows-1)·rstep)·ld + c0 + (cols-1)·cstep, must fit int64.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const auto mul_ok = [](int64_t a, int64_t b) { return b == 0 || a <= kMax / b; };
  if (!mul_ok(rows, cols)) return Status::Invalid("random_slice_sum: rows x cols overflows");
  if (!mul_ok(rows - 1, rstep) || r0 > kMax - (rows - 1) * rstep) return Status::Invalid("random_slice_sum: rows overflow");
  const int64_t last_row = r0 + (rows - 1) * rstep;
  if (!mul_ok(cols - 1, cstep) || c0 > kMax - (cols - 1) * cstep) return Status::Invalid("random_slice_sum: cols overflow");
  const int64_t last_col = c0 + (cols - 1) * cstep;
  if (!mul_ok(last_row, ld) || last_row * ld > kMax - last_col)
    return Status::Invalid("random_slice_sum: element index overflow");
  return Status::OK();
}

/// randint3_product's block and views; *inner = the summed dimension, *l = the width of x.
inline Status check_randint3(const RandInt3Rows& a, RandInt3Op op, const MatrixView<const double>& x,
                             const MatrixView<double>& out, int64_t* inner, int64_t* l) {
  STRATA_RETURN_NOT_OK(check_view("randint3_product", "x", x));
  STRATA_RETURN_NOT_OK(check_view("randint3_product", "out", out));
  if (a.cols < 0 || a.r0 < 0 || a.rows < 0 || a.rows > INT_MAX || a.cols > INT_MAX ||
      (a.cols > 0 && a.r0 + a.rows > std::numeric_limits<int64_t>::max() / a.cols))
    return Status::Invalid("randint3_product: block of rows [", a.r0, ", ", a.r0, " + ", a.rows, ") x ", a.cols,
                           " columns is not valid (negative, or element index past 2^63)");
  const int64_t xr = op == RandInt3Op::TransTimes ? a.rows : a.cols;
  const int64_t orows = op == RandInt3Op::Times ? a.rows : a.cols;
  if (x.rows != xr || out.rows != orows || out.cols != x.cols)
    return Status::Invalid("randint3_product: a ", a.rows, " x ", a.cols, " block with x ", x.rows, " x ", x.cols,
                           " into ", out.rows, " x ", out.cols);
  *inner = op == RandInt3Op::Times ? a.cols : a.rows;
  *l = x.cols;
  return Status::OK();
}

/// randint3_product with nothing to multiply: out is left alone when empty, zero when every
/// sum is empty (true: the call is done).
inline bool randint3_trivial(const RandInt3Rows& a, RandInt3Op op, int64_t inner, int64_t l,
                             const MatrixView<double>& out) {
  if (out.rows == 0 || l == 0) return true;
  if (inner > 0 && !(op == RandInt3Op::Gram && a.rows == 0)) return false;
  for (int64_t j = 0; j < out.cols; ++j)
    for (int64_t i = 0; i < out.rows; ++i) out(i, j) = 0.0;
  return true;
}

}  // namespace strata::backend::detail
