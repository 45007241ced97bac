// linalg::top_eigenpairs: thick-restart block Krylov (full reorthogonalization) + Rayleigh–Ritz
// on a dense symmetric matrix in memory.
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
// Krylov block. Every column costs about the same in the product A·Q (the skinny kernels run
// 4 or 8 lanes per element of A at the same FMA rate), but narrower blocks need fewer columns
// (on a 1,000-sample GRM: 166 at width 1, 272 at 4, 400 at 8) and so less orthogonalization;
// width 1–2 leaves the product bound by reading A. With restarts, 4 was fastest at 1,000,
// 2,000 and 5,000 samples (5,000: 0.89 s, 516 columns; width 8: 0.91 s, 968 columns).
constexpr int64_t kDefaultBlock = 4;
// Thick restart: the basis grows to kRestartColumns (or 3 × the kept columns) and restarts
// from the kept top Ritz vectors plus the next block, so orthogonalization (n·c per column)
// and Rayleigh–Ritz (c³) stay small. Measured on 1,000- and 2,000-sample GRMs: basis 80, keep
// 24 (k = 10) was fastest (26 vs 45 ms, 0.15 vs 0.21 s without restarts).
constexpr int64_t kRestartColumns = 80, kMinKeep = 24;
// Up to this order LAPACK's dsyevr (tridiagonal reduction, (4/3)·n³) is as fast as the
// restarted Krylov iteration (both ~10 ms at n = 500 on a genotype GRM; 33 vs 21 ms at 800).
constexpr int64_t kDirectMaxOrder = 500;

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

// The top k eigenpairs from LAPACK on the whole matrix.
Result<TopEigenResult> direct(const Context& ctx, const double* a, int64_t n, int64_t k) {
  STRATA_ASSIGN_OR_RETURN(EighResult e, eigh_top(ctx, DenseMatrix::from_row_major(a, n, n), k));
  TopEigenResult out;
  out.values.assign(e.w.begin(), e.w.begin() + k);
  out.vectors = std::move(e.z);
  fix_signs(out.vectors);
  out.residuals.assign(static_cast<size_t>(k), 0.0);
  out.basis_columns = n;
  out.complete = true;
  return out;
}

// Columns still to add before the residual reaches the tolerance, from its decay per column
// since the previous check (Krylov convergence accelerates, so this errs late); -1 if unknown.
int64_t columns_to_converge(double worst, int64_t since, double prev_worst, double tolerance) {
  if (since <= 0 || !(worst < prev_worst) || worst <= tolerance) return -1;
  const double rate = std::log(prev_worst / worst) / static_cast<double>(since);
  return static_cast<int64_t>(std::ceil(std::log(worst / tolerance) / rate));
}

}  // namespace

Result<TopEigenResult> top_eigenpairs(const Context& ctx, const double* a, int64_t n, const TopEigenParams& p) {
  if (p.k < 1 || p.k >= n) return Status::Invalid("top_eigenpairs: k = ", p.k, " must be in [1, n) with n = ", n);
  if (n <= kDirectMaxOrder) return direct(ctx, a, n, p.k);
  const int64_t b = std::min(n, p.block > 0 ? p.block : kDefaultBlock);
  const int64_t keep = std::min(n, std::max(p.k + 2 * b, kMinKeep));
  const int64_t cmax = std::min(n, std::max(kRestartColumns, 3 * keep) / b * b + b);
  // Basis K and A·K (n × cmax each, column-major) and the restart's copies; T = Kᵀ·(A·K).
  std::vector<double> kb(static_cast<size_t>(n * cmax)), akb(kb.size()), kb2, akb2;
  std::vector<double> tm(static_cast<size_t>(cmax * cmax));
  DenseMatrix nb(n, b);
  for (int64_t j = 0; j < b; ++j)
    for (int64_t i = 0; i < n; ++i) nb(i, j) = random::normal_at(p.seed, 0x67726d, static_cast<uint64_t>(j * n + i));
  STRATA_RETURN_NOT_OK(orthonormalize(ctx, nb).status());
  std::copy(nb.data.begin(), nb.data.end(), kb.begin());
  STRATA_RETURN_NOT_OK(multiply(ctx, a, n, kb.data(), b, akb.data()));
  int64_t c = b;      // basis columns
  int64_t tc = 0;     // columns of T computed
  int64_t total = b;  // columns generated since the start (products with A)
  // Columns [tc, c) of T; mirrored into the new rows.
  auto grow_t = [&]() -> Status {
    STRATA_RETURN_NOT_OK(gemm_rows(ctx, backend::Trans::Yes, backend::Trans::No, 1.0,
                                   backend::col_major(kb.data(), n, c, n), backend::col_major(akb.data() + tc * n, n, c - tc, n),
                                   0.0, backend::col_major(tm.data() + tc * cmax, c, c - tc, cmax)));
    for (int64_t j = tc; j < c; ++j)
      for (int64_t i = 0; i < tc; ++i) tm[static_cast<size_t>(j + i * cmax)] = tm[static_cast<size_t>(i + j * cmax)];
    tc = c;
    return Status::OK();
  };
  // The next block into nb: A·(last block) made orthogonal to the basis.
  auto next_block = [&]() -> Status {
    std::copy(akb.begin() + (c - b) * n, akb.begin() + c * n, nb.data.begin());
    STRATA_RETURN_NOT_OK(project_out(ctx, kb.data(), n, c, nb.data.data(), b));
    STRATA_ASSIGN_OR_RETURN(const bool rank_deficient, orthonormalize(ctx, nb));
    if (rank_deficient) {
      // An invariant space was reached: the completed columns may hold old directions again.
      STRATA_RETURN_NOT_OK(project_out(ctx, kb.data(), n, c, nb.data.data(), b));
      STRATA_RETURN_NOT_OK(orthonormalize(ctx, nb).status());
    }
    return Status::OK();
  };
  TopEigenResult out;
  // The first check comes at the first restart; later ones where the residual's decay says.
  int64_t next_check = cmax, prev_total = 0;
  double prev_worst = 0.0;
  for (;;) {
    STRATA_RETURN_NOT_OK(ctx.check_cancelled());
    // More products than columns of A and still short: the spectrum defeats the iteration,
    // and the dense solve is the cheaper way to the answer.
    if (total > n) return direct(ctx, a, n, p.k);
    const bool restart = c + b > cmax;
    if (c >= next_check || restart) {
      // Rayleigh–Ritz: the top pairs of T and the residuals of the top k Ritz pairs.
      STRATA_RETURN_NOT_OK(grow_t());
      DenseMatrix t(c, c);
      for (int64_t j = 0; j < c; ++j) std::copy(tm.begin() + j * cmax, tm.begin() + j * cmax + c, t.col(j));
      for (int64_t j = 0; j < c; ++j)
        for (int64_t i = 0; i < j; ++i) t(i, j) = t(j, i) = 0.5 * (t(i, j) + t(j, i));
      const int64_t want = restart ? keep : p.k;
      STRATA_ASSIGN_OR_RETURN(EighResult e, eigh_top(ctx, t, want));
      // basis (K or A·K) times the first `cols` Ritz coordinates, into out (n × cols).
      auto ritz = [&](const std::vector<double>& basis, int64_t cols, double* out) -> Status {
        return gemm_rows(ctx, backend::Trans::No, backend::Trans::No, 1.0, backend::col_major(basis.data(), n, c, n),
                         backend::col_major(e.z.data.data(), c, cols, c), 0.0, backend::col_major(out, n, cols, n));
      };
      DenseMatrix v(n, p.k), av(n, p.k);
      STRATA_RETURN_NOT_OK(ritz(kb, p.k, v.data.data()));
      STRATA_RETURN_NOT_OK(ritz(akb, p.k, av.data.data()));
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
      if (worst <= p.tolerance) {
        out.values.assign(e.w.begin(), e.w.begin() + p.k);
        fix_signs(v);
        out.vectors = std::move(v);
        out.basis_columns = total;
        return out;
      }
      const int64_t more = columns_to_converge(worst, total - prev_total, prev_worst, p.tolerance);
      prev_total = total;
      prev_worst = worst;
      if (restart) {
        // Keep the top Ritz vectors (and their products with A) and the next block: the
        // residuals of the Ritz vectors lie in its span, so the space stays a Krylov space.
        STRATA_RETURN_NOT_OK(next_block());
        kb2.resize(kb.size());
        akb2.resize(akb.size());
        STRATA_RETURN_NOT_OK(ritz(kb, want, kb2.data()));
        STRATA_RETURN_NOT_OK(ritz(akb, want, akb2.data()));
        kb.swap(kb2);
        akb.swap(akb2);
        c = want;
        tc = 0;
      } else {
        STRATA_RETURN_NOT_OK(next_block());
      }
      next_check = more > 0 ? c + std::max(b, (more + b - 1) / b * b) : cmax;
    } else {
      STRATA_RETURN_NOT_OK(next_block());
    }
    std::copy(nb.data.begin(), nb.data.end(), kb.begin() + c * n);
    STRATA_RETURN_NOT_OK(multiply(ctx, a, n, kb.data() + c * n, b, akb.data() + c * n));
    c += b;
    total += b;
  }
}

}  // namespace strata::linalg
