// linalg::top_eigenpairs: block Krylov (full reorthogonalization) + Rayleigh–Ritz on a dense
// symmetric matrix in memory.
#include "strata/linalg/sym_eigen.hpp"

#include <algorithm>
#include <cmath>

#include "strata/backend/backend.hpp"
#include "strata/core/random.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::linalg {
namespace {

// Rows per slice of A·Q: fixed, so the products are the same bits for any thread count.
constexpr int64_t kSliceRows = 256;
// Krylov block: each block costs one pass over A (memory-bound: n² doubles); narrower blocks
// need fewer columns in all (229 at width 1, 504 at 8, 816 at 16 on a 2,000-sample GRM) but
// more passes. 8 was the fastest measured.
constexpr int64_t kDefaultBlock = 8;
// Up to this order LAPACK's dsyevr (tridiagonal reduction, (4/3)·n³) beats the Krylov
// iteration, whose basis on a genotype spectrum grows to a large part of n (10 ms vs 86 ms at
// n = 500; about even near n = 1,000).
constexpr int64_t kDirectMaxOrder = 800;

// Rows of op(x) from r0 (op = transpose when `t`), and rows of c from r0.
template <class T>
backend::MatrixView<T> op_rows(backend::MatrixView<T> x, bool t, int64_t r0, int64_t rows) {
  const bool along_ld = (x.layout == backend::Layout::RowMajor) != t;  // op rows are ld apart
  backend::MatrixView<T> v = x;
  v.data = x.data + (along_ld ? r0 * x.ld : r0);
  (t ? v.cols : v.rows) = rows;
  return v;
}

// c = α·op(a)·op(b) + β·c with c's rows in fixed slices on the Context's workers: each slice
// is one backend product of its own, so the bits do not depend on the thread count.
Status gemm_rows(const Context& ctx, backend::Trans ta, backend::Trans tb, double alpha,
                 backend::MatrixView<const double> a, backend::MatrixView<const double> b, double beta,
                 backend::MatrixView<double> c) {
  const backend::Backend& be = backend::of(ctx);
  const int64_t slices = (c.rows + kSliceRows - 1) / kSliceRows;
  const bool at = ta == backend::Trans::Yes;
  return ctx.pool().parallel_for(slices, [&](int64_t s) -> Status {
    const int64_t r0 = s * kSliceRows, rows = std::min(kSliceRows, c.rows - r0);
    return be.gemm(ta, tb, alpha, op_rows(a, at, r0, rows), b, beta, op_rows(c, false, r0, rows));
  });
}

// y (n × w, col-major, ld n) = A·x for x (n × w, col-major).
Status multiply(const Context& ctx, const double* a, int64_t n, const double* x, int64_t w, double* y) {
  return gemm_rows(ctx, backend::Trans::No, backend::Trans::No, 1.0, backend::row_major(a, n, n, n),
                   backend::col_major(x, n, w, n), 0.0, backend::col_major(y, n, w, n));
}

// w (n × b) −= K (n × c) · (Kᵀ·w), twice ("twice is enough").
Status project_out(const Context& ctx, const double* k, int64_t n, int64_t c, double* w, int64_t b) {
  if (c == 0) return Status::OK();
  std::vector<double> h(static_cast<size_t>(c * b));
  for (int round = 0; round < 2; ++round) {
    STRATA_RETURN_NOT_OK(gemm_rows(ctx, backend::Trans::Yes, backend::Trans::No, 1.0, backend::col_major(k, n, c, n),
                                   backend::col_major(w, n, b, n), 0.0, backend::col_major(h.data(), c, b, c)));
    STRATA_RETURN_NOT_OK(gemm_rows(ctx, backend::Trans::No, backend::Trans::No, -1.0, backend::col_major(k, n, c, n),
                                   backend::col_major(h.data(), c, b, c), 1.0, backend::col_major(w, n, b, n)));
  }
  return Status::OK();
}

// Basis columns at which to run the next Rayleigh–Ritz check. A check costs O(c³) (the
// projected eigenproblem), as much as many blocks, so checks are spaced out: while no trend is
// known the basis grows by half; then the residual's decay per column between the last two
// checks predicts where it reaches the tolerance (Krylov convergence accelerates, so the
// prediction errs late, and growth stays capped at half the basis).
int64_t next_check_at(int64_t c, int64_t b, double worst, int64_t prev_c, double prev_worst, double tolerance) {
  int64_t step = std::max<int64_t>(b, c / 2);
  if (prev_c > 0 && prev_c < c && worst < prev_worst && worst > tolerance) {
    const double rate = std::log(prev_worst / worst) / static_cast<double>(c - prev_c);
    const double needed = std::log(worst / tolerance) / rate;
    if (needed < static_cast<double>(step)) step = std::max<int64_t>(b, static_cast<int64_t>(std::ceil(needed)));
  }
  return c + (step + b - 1) / b * b;
}

// Sign convention of linalg: each column's largest-|·| entry positive.
void fix_signs(DenseMatrix& v) {
  for (int64_t j = 0; j < v.cols; ++j) {
    int64_t at = 0;
    for (int64_t i = 1; i < v.rows; ++i)
      if (std::fabs(v(i, j)) > std::fabs(v(at, j))) at = i;
    if (v(at, j) < 0)
      for (int64_t i = 0; i < v.rows; ++i) v(i, j) = -v(i, j);
  }
}

}  // namespace

Result<TopEigenResult> top_eigenpairs(const Context& ctx, const double* a, int64_t n, const TopEigenParams& p) {
  if (p.k < 1 || p.k >= n) return Status::Invalid("top_eigenpairs: k = ", p.k, " must be in [1, n) with n = ", n);
  if (n <= kDirectMaxOrder) {
    STRATA_ASSIGN_OR_RETURN(EighResult e, eigh_top(ctx, DenseMatrix::from_row_major(a, n, n), p.k));
    TopEigenResult out;
    out.values.assign(e.w.begin(), e.w.begin() + p.k);
    out.vectors = std::move(e.z);
    fix_signs(out.vectors);
    out.residuals.assign(static_cast<size_t>(p.k), 0.0);
    out.basis_columns = n;
    out.complete = true;
    return out;
  }
  const int64_t b = std::min(n, p.block > 0 ? p.block : kDefaultBlock);
  // Basis K and A·K, grown a block at a time up to n columns.
  std::vector<double> kb, akb;
  kb.reserve(static_cast<size_t>(n * std::min<int64_t>(n, 64 * b)));
  akb.reserve(kb.capacity());
  DenseMatrix start(n, b);
  for (int64_t j = 0; j < b; ++j)
    for (int64_t i = 0; i < n; ++i) start(i, j) = random::normal_at(p.seed, 0x67726d, static_cast<uint64_t>(j * n + i));
  STRATA_RETURN_NOT_OK(orthonormalize(ctx, start).status());
  kb.assign(start.data.begin(), start.data.end());
  akb.resize(kb.size());
  STRATA_RETURN_NOT_OK(multiply(ctx, a, n, kb.data(), b, akb.data()));
  int64_t c = b;
  // T = Kᵀ·(A·K), grown a block of columns at a time (ld = tcap, doubled as needed).
  int64_t tcap = std::min<int64_t>(n, 256), tc = 0;
  std::vector<double> tm(static_cast<size_t>(tcap * tcap));
  auto grow_t = [&]() -> Status {
    if (c > tcap) {
      int64_t cap = tcap;
      while (cap < c) cap = std::min<int64_t>(n, 2 * cap);
      std::vector<double> bigger(static_cast<size_t>(cap * cap));
      for (int64_t j = 0; j < tc; ++j)
        std::copy(tm.begin() + j * tcap, tm.begin() + j * tcap + tc, bigger.begin() + j * cap);
      tm.swap(bigger);
      tcap = cap;
    }
    // New columns [tc, c): T[0:c, tc:c] = Kᵀ·AK[:, tc:c]; mirrored into the new rows.
    STRATA_RETURN_NOT_OK(gemm_rows(ctx, backend::Trans::Yes, backend::Trans::No, 1.0,
                                   backend::col_major(kb.data(), n, c, n), backend::col_major(akb.data() + tc * n, n, c - tc, n),
                                   0.0, backend::col_major(tm.data() + tc * tcap, c, c - tc, tcap)));
    for (int64_t j = tc; j < c; ++j)
      for (int64_t i = 0; i < tc; ++i) tm[static_cast<size_t>(j + i * tcap)] = tm[static_cast<size_t>(i + j * tcap)];
    tc = c;
    return Status::OK();
  };
  TopEigenResult out;

  int64_t next_check = std::max(c, 2 * p.k);
  int64_t prev_c = 0;
  double prev_worst = 0.0;
  for (;;) {
    STRATA_RETURN_NOT_OK(ctx.check_cancelled());
    const bool full = c >= n;
    if (full && c < p.k) return Status::Internal("top_eigenpairs: basis of ", c, " columns below k = ", p.k);
    if (c >= next_check || full) {
      // Rayleigh–Ritz: T = Kᵀ·(A·K), its top k pairs, residuals of the Ritz pairs.
      STRATA_RETURN_NOT_OK(grow_t());
      DenseMatrix t(c, c);
      for (int64_t j = 0; j < c; ++j) std::copy(tm.begin() + j * tcap, tm.begin() + j * tcap + c, t.col(j));
      for (int64_t j = 0; j < c; ++j)
        for (int64_t i = 0; i < j; ++i) t(i, j) = t(j, i) = 0.5 * (t(i, j) + t(j, i));
      STRATA_ASSIGN_OR_RETURN(EighResult e, eigh_top(ctx, t, p.k));
      DenseMatrix v(n, p.k), av(n, p.k);
      STRATA_RETURN_NOT_OK(gemm_rows(ctx, backend::Trans::No, backend::Trans::No, 1.0,
                                     backend::col_major(kb.data(), n, c, n), backend::col_major(e.z.data.data(), c, p.k, c),
                                     0.0, backend::col_major(v.data.data(), n, p.k, n)));
      STRATA_RETURN_NOT_OK(gemm_rows(ctx, backend::Trans::No, backend::Trans::No, 1.0,
                                     backend::col_major(akb.data(), n, c, n), backend::col_major(e.z.data.data(), c, p.k, c),
                                     0.0, backend::col_major(av.data.data(), n, p.k, n)));
      const double top = std::max(std::fabs(e.w[0]), 1e-300);
      out.residuals.assign(static_cast<size_t>(p.k), 0.0);
      double worst = 0.0;
      for (int64_t j = 0; j < p.k; ++j) {
        double r2 = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          const double d = av(i, j) - e.w[static_cast<size_t>(j)] * v(i, j);
          r2 += d * d;
        }
        out.residuals[static_cast<size_t>(j)] = std::sqrt(r2) / top;
        // Each pair against its own eigenvalue: the eigenvector error is about r / gap.
        worst = std::max(worst, std::sqrt(r2) / std::max(std::fabs(e.w[static_cast<size_t>(j)]), 1e-300 * top));
      }
      if (worst <= p.tolerance || full) {
        out.values.assign(e.w.begin(), e.w.begin() + p.k);
        fix_signs(v);
        out.vectors = std::move(v);
        out.basis_columns = c;
        out.complete = full;
        return out;
      }
      next_check = next_check_at(c, b, worst, prev_c, prev_worst, p.tolerance);
      prev_c = c;
      prev_worst = worst;
    }
    // Next block: A·(last block), orthogonal to the basis.
    const int64_t w = std::min(b, n - c);
    DenseMatrix nb(n, w);
    std::copy(akb.begin() + (c - b) * n, akb.begin() + (c - b) * n + w * n, nb.data.begin());
    STRATA_RETURN_NOT_OK(project_out(ctx, kb.data(), n, c, nb.data.data(), w));
    STRATA_ASSIGN_OR_RETURN(const bool rank_deficient, orthonormalize(ctx, nb));
    if (rank_deficient) {
      // An invariant space was reached: the completed columns may hold old directions again.
      STRATA_RETURN_NOT_OK(project_out(ctx, kb.data(), n, c, nb.data.data(), w));
      STRATA_RETURN_NOT_OK(orthonormalize(ctx, nb).status());
    }
    kb.insert(kb.end(), nb.data.begin(), nb.data.end());
    akb.resize(kb.size());
    STRATA_RETURN_NOT_OK(multiply(ctx, a, n, kb.data() + c * n, w, akb.data() + c * n));
    c += w;
  }
}

}  // namespace strata::linalg
