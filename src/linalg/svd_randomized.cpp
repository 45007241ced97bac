// Randomized SVD on the column side: block Krylov or subspace iteration, one pass per
// iteration, Rayleigh–Ritz residuals and a Nyström finish from the products already made.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "linalg/dense_internal.hpp"
#include "linalg/ritz_bounds_internal.hpp"
#include "linalg/svd_internal.hpp"
#include "linalg/tsqr_internal.hpp"
#include "strata/core/context.hpp"
#include "strata/core/random.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::linalg {
namespace {

constexpr int kDefaultKrylovIterations = 8;
constexpr int kDefaultSubspaceIterations = 7;

// Column c of the start block is random stream c + 1 at elements j = 0 .. n − 1 (the column
// index of A), so it does not depend on the sketch width or any chunking.
Result<DenseMatrix> gaussian_start(const Context& ctx, int64_t n, int64_t w, uint64_t seed) {
  DenseMatrix omega(n, w);
  random::FillParams p;
  p.seed = seed;
  for (int64_t c = 0; c < w; ++c) {
    p.stream = static_cast<uint64_t>(c) + 1;
    STRATA_RETURN_NOT_OK(backend::of(ctx).random_fill(p, 0, 1, n, omega.col(c)));
  }
  return omega;
}

// The Nyström finish takes its SVD from a small Gram matrix when λ_1/λ_t (t = values kept) is
// at most this (orthogonality of V then within ~1e4·ε); otherwise from a QR of the n × t factor.
constexpr double kNystromGramMaxCond = 1e4;

// Rows per chunk of the dense n-long products: fixed by n alone, so their sums are the same
// bits for any thread count.
constexpr int64_t kDenseRowChunk = 1024;

// Append the columns of `src` to `dst` (same rows). K and AᵀA·K grow this way so that only
// the columns in use are ever touched (their capacity is reserved, not zero-filled).
void append_cols(DenseMatrix& dst, const DenseMatrix& src) {
  dst.data.insert(dst.data.end(), src.data.begin(), src.data.end());
  dst.cols += src.cols;
}

using backend::col_major;
using backend::Trans;

// The dense work on the n-long state (n = op.cols()) shared by rows: fixed chunks of
// kDenseRowChunk rows, contiguous ranges of them per rank (rank_range), so every chunk's
// product is the same call wherever it runs. Without ranks (or with one) all chunks are here.
struct RowShare {
  const Communicator* comm = nullptr;
  int rank = 0, size = 1;
  explicit RowShare(const Communicator* c = nullptr) : comm(c) {
    if (comm && comm->size() > 1) rank = comm->rank(), size = comm->size();
  }
  bool shared() const { return size > 1; }
  // This rank's chunks [first, first + count) of the chunks of `rows`.
  std::pair<int64_t, int64_t> chunks(int64_t rows) const {
    return rank_range(std::max<int64_t>(1, ceil_div(rows, kDenseRowChunk)), 1, rank, size);
  }
};

// C (m × nc) = Aᵀ·B for A rows × m and B rows × nc (both ld rows): per fixed row chunk in
// parallel, the partial products summed in chunk order. Shared: each rank makes its chunks'
// partials, the ranks exchange them (allgather, rank order = chunk order) and every rank adds
// all of them in chunk order, as one process would.
Status gemm_tn_rows(const Context& ctx, const RowShare& share, int64_t rows, int64_t m, int64_t nc, const double* a,
                    const double* b, double* c) {
  if (m == 0 || nc == 0) return Status::OK();
  const backend::Backend& be = backend::of(ctx);
  const int64_t chunks = std::max<int64_t>(1, ceil_div(rows, kDenseRowChunk)), size = m * nc;
  const std::pair<int64_t, int64_t> range = share.chunks(rows);  // lambdas capture it (no structured binding)
  const int64_t first = range.first, count = range.second;
  std::vector<double> parts(static_cast<size_t>(chunks * size));
  STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(count, [&](int64_t i) -> Status {
    const int64_t ci = first + i, r0 = ci * kDenseRowChunk, len = std::min(kDenseRowChunk, rows - r0);
    return be.gemm(Trans::Yes, Trans::No, 1.0, col_major(a + r0, len, m, rows), col_major(b + r0, len, nc, rows), 0.0,
                   col_major(parts.data() + ci * size, m, nc));
  }));
  if (share.shared()) {
    const size_t chunk_bytes = static_cast<size_t>(size) * sizeof(double);
    const std::string mine(reinterpret_cast<const char*>(parts.data() + first * size),
                           static_cast<size_t>(count) * chunk_bytes);
    std::vector<std::string> all;
    STRATA_RETURN_NOT_OK(share.comm->allgather(mine, &all));
    for (int r = 0; r < share.size; ++r) {
      const auto [c0, n] = rank_range(chunks, 1, r, share.size);
      const std::string& got = all[static_cast<size_t>(r)];
      if (got.size() != static_cast<size_t>(n) * chunk_bytes)
        return Status::CommError("dense products: rank ", r, " sent ", got.size(), " bytes for ", n, " row chunks of ",
                                 m, " x ", nc);
      if (r != share.rank) std::memcpy(parts.data() + c0 * size, got.data(), got.size());
    }
  }
  std::copy(parts.begin(), parts.begin() + size, c);
  for (int64_t ci = 1; ci < chunks; ++ci) {
    const double* p = parts.data() + ci * size;
    for (int64_t i = 0; i < size; ++i) c[i] += p[i];
  }
  return Status::OK();
}

// G (m × m) = AᵀA for A rows × m: upper triangles of fixed row chunks in parallel, summed in
// chunk order, then mirrored.
Status syrk_rows(const Context& ctx, int64_t rows, int64_t m, const double* a, DenseMatrix& g) {
  g = DenseMatrix(m, m);
  if (m == 0) return Status::OK();
  const backend::Backend& be = backend::of(ctx);
  const int64_t chunks = std::max<int64_t>(1, ceil_div(rows, kDenseRowChunk)), size = m * m;
  std::vector<double> parts(static_cast<size_t>(chunks * size));
  STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(chunks, [&](int64_t ci) -> Status {
    const int64_t r0 = ci * kDenseRowChunk, len = std::min(kDenseRowChunk, rows - r0);
    return be.syrk(backend::Uplo::Upper, Trans::Yes, 1.0, col_major(a + r0, len, m, rows), 0.0,
                   col_major(parts.data() + ci * size, m, m));
  }));
  for (int64_t j = 0; j < m; ++j)
    for (int64_t i = 0; i <= j; ++i) {
      double sum = 0;
      for (int64_t ci = 0; ci < chunks; ++ci) sum += parts[static_cast<size_t>(ci * size + i + j * m)];
      g(i, j) = g(j, i) = sum;
    }
  return Status::OK();
}

// C (rows × nc) = alpha·A·B + beta·C for A rows × inner, B inner × nc: row chunks in parallel.
// Shared: each rank computes its chunks' rows and the ranks exchange them (allgather), so every
// rank ends with all of C.
Status gemm_nn_rows(const Context& ctx, const RowShare& share, int64_t rows, int64_t inner, int64_t nc, double alpha,
                    const double* a, const double* b, double beta, double* c) {
  if (nc == 0) return Status::OK();
  const backend::Backend& be = backend::of(ctx);
  const std::pair<int64_t, int64_t> range = share.chunks(rows);  // lambdas capture it (no structured binding)
  const int64_t first = range.first, count = range.second;
  STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(count, [&](int64_t i) -> Status {
    const int64_t ci = first + i, r0 = ci * kDenseRowChunk, len = std::min(kDenseRowChunk, rows - r0);
    if (len <= 0) return Status::OK();
    return be.gemm(Trans::No, Trans::No, alpha, col_major(a + r0, len, inner, rows), col_major(b, inner, nc), beta,
                   col_major(c + r0, len, nc, rows));
  }));
  if (!share.shared()) return Status::OK();
  // Rows [r0, r1) of every column, column after column.
  const auto row_range = [&](int64_t c0, int64_t n) {
    return std::pair<int64_t, int64_t>{std::min(rows, c0 * kDenseRowChunk), std::min(rows, (c0 + n) * kDenseRowChunk)};
  };
  const auto [m0, m1] = row_range(first, count);
  std::string mine(static_cast<size_t>((m1 - m0) * nc) * sizeof(double), '\0');
  for (int64_t j = 0; j < nc; ++j)
    std::memcpy(mine.data() + static_cast<size_t>(j * (m1 - m0)) * sizeof(double), c + j * rows + m0,
                static_cast<size_t>(m1 - m0) * sizeof(double));
  std::vector<std::string> all;
  STRATA_RETURN_NOT_OK(share.comm->allgather(mine, &all));
  const int64_t chunks = std::max<int64_t>(1, ceil_div(rows, kDenseRowChunk));
  for (int r = 0; r < share.size; ++r) {
    if (r == share.rank) continue;
    const auto [c0, n] = rank_range(chunks, 1, r, share.size);
    const auto [r0, r1] = row_range(c0, n);
    const std::string& got = all[static_cast<size_t>(r)];
    if (got.size() != static_cast<size_t>((r1 - r0) * nc) * sizeof(double))
      return Status::CommError("dense products: rank ", r, " sent ", got.size(), " bytes for rows ", r0, " to ", r1);
    for (int64_t j = 0; j < nc; ++j)
      std::memcpy(c + j * rows + r0, got.data() + static_cast<size_t>(j * (r1 - r0)) * sizeof(double),
                  static_cast<size_t>(r1 - r0) * sizeof(double));
  }
  return Status::OK();
}

// Next Krylov block from Y = AᵀA·Q_new and G = Kᵀ·Y (K = all `kc` columns so far, G already
// made for the Ritz matrix): Y − K·G, normalize, project out K once more, normalize again, so
// the block is orthogonal to K even when Y has nearly nothing outside span(K).
// Shared across ranks, the products with K run on each rank's row chunks; the orthonormalizations
// (n × b, cheap) run whole on every rank.
Result<DenseMatrix> next_block(const Context& ctx, const RowShare& share, const DenseMatrix& k_all, int64_t kc,
                               DenseMatrix y, const DenseMatrix& g) {
  const int64_t n = y.rows, b = y.cols;
  STRATA_RETURN_NOT_OK(
      gemm_nn_rows(ctx, share, n, kc, b, -1.0, k_all.data.data(), g.data.data(), 1.0, y.data.data()));
  STRATA_RETURN_NOT_OK(orthonormalize(ctx, y).status());
  DenseMatrix h(kc, b);
  STRATA_RETURN_NOT_OK(gemm_tn_rows(ctx, share, n, kc, b, k_all.data.data(), y.data.data(), h.data.data()));
  STRATA_RETURN_NOT_OK(
      gemm_nn_rows(ctx, share, n, kc, b, -1.0, k_all.data.data(), h.data.data(), 1.0, y.data.data()));
  STRATA_RETURN_NOT_OK(orthonormalize(ctx, y).status());
  return y;
}

// A symmetric matrix Kᵀ·X over the basis columns so far, grown each pass by the new block's
// column block G = Kᵀ·X_new; its row block is Gᵀ. X = AᵀA·K gives the Rayleigh–Ritz matrix C,
// X = K the basis Gram matrix KᵀK.
class GrowingGram {
 public:
  // Columns [c0, width) become g (width × (width − c0)); columns before c0 are kept.
  void extend(const DenseMatrix& g, int64_t c0, int64_t width) {
    if (width > c_.rows) {
      DenseMatrix grown(std::max(width, 2 * c_.rows), std::max(width, 2 * c_.rows));
      for (int64_t j = 0; j < c0; ++j) std::copy(c_.col(j), c_.col(j) + c0, grown.col(j));
      c_ = std::move(grown);
    }
    for (int64_t j = c0; j < width; ++j) std::copy(g.col(j - c0), g.col(j - c0) + width, c_.col(j));
    for (int64_t j = 0; j < c0; ++j)
      for (int64_t i = c0; i < width; ++i) c_(i, j) = g(j, i - c0);
    width_ = width;
  }

  // Symmetrized leading width × width block.
  DenseMatrix symmetric() const {
    DenseMatrix s(width_, width_);
    for (int64_t j = 0; j < width_; ++j)
      for (int64_t i = 0; i < width_; ++i) s(i, j) = 0.5 * (c_(i, j) + c_(j, i));
    return s;
  }

 private:
  DenseMatrix c_;
  int64_t width_ = 0;
};

// Ritz pairs of span(K[:, :width]) with per-pair residual norms and error estimates.
struct RitzStep {
  EighResult ritz;
  std::vector<double> residual_norms, error_estimate;
  bool full = false;  ///< every pair (the Nyström finish needs them), not only the top k + 1
};

// `full` keeps every pair; otherwise only the top k + 1, enough for the top k and their gaps.
// `basis_gram` (M = KᵀK) is given when K is not orthonormal (an operator's rounded operands):
// then the pairs solve C·p = θ·M·p, through M = RᵀR and the eigenpairs (θ, z) of R⁻ᵀ·C·R⁻¹,
// and ritz.z holds p = R⁻¹·z (K·p has unit norm).
Result<RitzStep> ritz_step(const Context& ctx, const GrowingGram& cm, const GrowingGram* basis_gram,
                           const DenseMatrix& kbasis, const DenseMatrix& ys, int64_t width, int64_t k, bool full,
                           const std::string& what) {
  RitzStep out;
  out.full = full || k + 1 >= width;
  using backend::Side;
  using backend::Uplo;
  const backend::Backend& be = backend::of(ctx);
  DenseMatrix c = cm.symmetric();
  DenseMatrix r;
  if (basis_gram) {
    r = basis_gram->symmetric();
    if (!be.potrf(Uplo::Upper, view(r)).ok()) {
      return Status::Internal(what, ": the search basis lost its rank (Cholesky of KᵀK failed)");
    }
    STRATA_RETURN_NOT_OK(be.trsm(Side::Right, Uplo::Upper, Trans::No, 1.0, view(std::as_const(r)), view(c)));
    STRATA_RETURN_NOT_OK(be.trsm(Side::Left, Uplo::Upper, Trans::Yes, 1.0, view(std::as_const(r)), view(c)));
    for (int64_t j = 0; j < width; ++j)
      for (int64_t i = 0; i < j; ++i) c(i, j) = c(j, i) = 0.5 * (c(i, j) + c(j, i));
  }
  if (out.full) {
    STRATA_ASSIGN_OR_RETURN(out.ritz, eigh(ctx, c));
  } else {
    STRATA_ASSIGN_OR_RETURN(out.ritz, eigh_top(ctx, c, k + 1));
  }
  if (basis_gram) {
    STRATA_RETURN_NOT_OK(be.trsm(Side::Left, Uplo::Upper, Trans::No, 1.0, view(std::as_const(r)), view(out.ritz.z)));
  }
  if (!(out.ritz.w[0] > 0)) {
    return Status::InvalidData(what, ": the matrix is zero (constant data): every singular value is 0");
  }
  // Exact residuals AᵀA·Kp − θ·Kp = YS·p − θ·K·p.
  const int64_t n = kbasis.rows;
  DenseMatrix pk = out.ritz.z.leading_cols(k);
  DenseMatrix res(n, k), kp(n, k);
  const RowShare here;
  STRATA_RETURN_NOT_OK(
      gemm_nn_rows(ctx, here, n, width, k, 1.0, ys.data.data(), pk.data.data(), 0.0, res.data.data()));
  STRATA_RETURN_NOT_OK(
      gemm_nn_rows(ctx, here, n, width, k, 1.0, kbasis.data.data(), pk.data.data(), 0.0, kp.data.data()));
  for (int64_t j = 0; j < k; ++j) {
    const double theta = out.ritz.w[static_cast<size_t>(j)];
    double r2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = res(i, j) - theta * kp(i, j);
      r2 += d * d;
    }
    const double r = std::sqrt(r2);
    // Ritz values come sorted: the nearest other one is a neighbour.
    double gap = std::numeric_limits<double>::infinity();
    const auto nw = static_cast<int64_t>(out.ritz.w.size());
    for (int64_t i = std::max<int64_t>(0, j - 1); i <= std::min(nw - 1, j + 1); ++i) {
      if (i != j) gap = std::min(gap, std::abs(theta - out.ritz.w[static_cast<size_t>(i)]));
    }
    out.residual_norms.push_back(r / theta);
    out.error_estimate.push_back(std::min(r, r * r / gap) / theta);
  }
  return out;
}

// The search of one run, validated: k values from blocks of b columns, `iterations` passes,
// the space capped at max_width columns (full_width: the widest that can still add anything).
struct SearchPlan {
  int64_t k = 0, b = 0, full_width = 0, max_width = 0;
  int iterations = 0;
  bool krylov = false;
};

Result<SearchPlan> plan_search(const GramOperator& op, const SvdParams& options) {
  SearchPlan s;
  STRATA_ASSIGN_OR_RETURN(s.k, validate_k(op.rows(), op.cols(), op.describe(), options.k, /*allow_full=*/false));
  const int64_t k = s.k;
  if (options.oversampling < 0) return Status::Invalid("oversampling must be >= 0, got ", options.oversampling);
  if (!(options.tolerance >= 0)) return Status::Invalid("tolerance must be >= 0, got ", options.tolerance);
  s.krylov = options.scheme == RandomizedScheme::BlockKrylov;
  s.iterations = options.iterations >= 0 ? options.iterations
                                         : (s.krylov ? kDefaultKrylovIterations : kDefaultSubspaceIterations);
  if (s.iterations < 1) return Status::Invalid("randomized SVD needs at least 1 iteration, got ", s.iterations);
  const int64_t m = op.rows(), n = op.cols(), p = std::min(m, n);
  if (options.block_columns < 0) return Status::Invalid("block_columns must be >= 0, got ", options.block_columns);
  if (options.block_columns > 0 && options.block_columns < k && !s.krylov) {
    return Status::Invalid("subspace iteration needs blocks of at least k = ", k, " columns, got ",
                           options.block_columns);
  }
  int64_t b = std::min(options.block_columns > 0 ? options.block_columns : k + options.oversampling, p);
  // Operators with a natural width (SIMD lanes) get the extra columns for free.
  if (const int64_t pw = op.preferred_width(); pw > 0) b = std::min(p, (b + pw - 1) / pw * pw);
  s.b = b;
  // The widest search space that can still add anything: all of Rⁿ when n ≤ m (the Ritz pairs
  // are then exact), else A's row space (dimension m) plus the start block, which the block
  // Krylov space contains once it has that many columns. The last block is cut to fit, so a
  // small matrix always gets the complete space (exact to rounding) instead of a partial one.
  s.full_width = s.krylov ? (n <= m ? n : std::min(n, m + b)) : (b >= n ? n : n + 1);
  if (s.krylov) s.iterations = static_cast<int>(std::min<int64_t>(s.iterations, ceil_div(s.full_width, b)));
  s.max_width = s.krylov ? std::min(b * s.iterations, s.full_width) : b;
  if (s.max_width < k) {
    return Status::Invalid("randomized SVD: ", s.iterations, " passes of ", b, " columns cannot resolve k = ", k,
                           " (need at least k columns in all)");
  }
  STRATA_RETURN_NOT_OK(check_lapack_dims(n, s.max_width, "randomized SVD state"));
  return s;
}

// The first pass's Y ≈ σ₁²-sized: zero, non-finite, or beyond these bounds means squares of the
// data underflow or overflow (subnormal or huge input). True when the caller can rescale
// (`can_rescale`, the source route) and should; InvalidData when Y is not finite otherwise.
Result<bool> first_products_need_scaling(const GramOperator& op, const DenseMatrix& y, bool can_rescale) {
  const double ymax = max_abs_or_nan(y);
  // (float32 products: squares of |a| < 2⁻⁶³ underflow, Y ≳ 2¹²⁸ overflows; the bounds sit
  // well inside so that ordinary large data never pays for a rescaling run.)
  const double lo = op.single_precision() ? 0x1p-60 : 0x1p-400, hi = op.single_precision() ? 0x1p100 : 0x1p400;
  if (can_rescale && !(ymax >= lo && ymax <= hi)) return true;
  if (!(ymax <= std::numeric_limits<double>::max())) {
    return Status::InvalidData(op.describe(), ": the products AᵀA·Q are not finite (NaN or infinite input, or "
                               "values too large to square)");
  }
  return false;
}

// The search space: K = [Q_0 … Q_{q-1}] and YS = AᵀA·K, grown one block per pass (only the last
// for subspace iteration), the Ritz matrix C = Kᵀ·YS and, for a rounded basis, its Gram KᵀK.
struct SearchSpace {
  DenseMatrix kbasis, ys;
  GrowingGram cm, basis_gram;
  // Operators that round their operand (GramOperator::operand) get the rounded blocks as the
  // basis, so no rounding error enters; the basis is then only nearly orthonormal and the
  // Ritz pairs are taken against its Gram matrix KᵀK.
  bool rounded = false;
  int64_t width = 0;

  SearchSpace(int64_t n, int64_t max_width, bool rounded_operand)
      : kbasis(n, 0), ys(n, 0), rounded(rounded_operand) {
    kbasis.data.reserve(static_cast<size_t>(n * max_width));
    ys.data.reserve(static_cast<size_t>(n * max_width));
  }
  const GrowingGram* basis() const { return rounded ? &basis_gram : nullptr; }
  Result<RitzStep> ritz(const Context& ctx, int64_t k, bool full, const std::string& what) const {
    return ritz_step(ctx, cm, basis(), kbasis, ys, width, k, full, what);
  }
};

// Adds the block q (restarting the space first for subspace iteration) and its Y = AᵀA·q;
// returns G = Kᵀ·Y, the Ritz matrix's new columns and the first projection of the next block.
// With a rounded basis, KᵀQ_new (its Gram matrix's new columns) comes from the same read of K:
// Kᵀ·[Y, Q_new].
Result<DenseMatrix> extend_space(const Context& ctx, const RowShare& share, bool restart, const DenseMatrix& q,
                                 const DenseMatrix& y, SearchSpace& s) {
  const int64_t n = s.kbasis.rows, bc = q.cols;
  if (restart) {
    s.kbasis.data.clear();
    s.ys.data.clear();
    s.kbasis.cols = s.ys.cols = 0;
  }
  const int64_t c0 = s.kbasis.cols;
  append_cols(s.kbasis, q);
  append_cols(s.ys, y);
  const int64_t width = s.width = c0 + bc;
  DenseMatrix g(width, bc);
  if (s.rounded) {
    DenseMatrix yq(n, 2 * bc), both(width, 2 * bc);
    std::copy(y.data.begin(), y.data.end(), yq.data.begin());
    std::copy(q.data.begin(), q.data.end(), yq.data.begin() + n * bc);
    STRATA_RETURN_NOT_OK(
        gemm_tn_rows(ctx, share, n, width, 2 * bc, s.kbasis.data.data(), yq.data.data(), both.data.data()));
    DenseMatrix gk(width, bc);
    std::copy(both.data.begin(), both.data.begin() + width * bc, g.data.begin());
    std::copy(both.data.begin() + width * bc, both.data.end(), gk.data.begin());
    s.basis_gram.extend(gk, c0, width);
  } else {
    STRATA_RETURN_NOT_OK(gemm_tn_rows(ctx, share, n, width, bc, s.kbasis.data.data(), y.data.data(), g.data.data()));
  }
  s.cm.extend(g, c0, width);
  return g;
}

// Nyström finish: ÂᵀÂ = YS·C⁺·YSᵀ agrees with AᵀA on span(K) and uses span(YS), one power
// beyond K, for free. F = YS·Z·Λ^{-1/2} (Λ truncated), AᵀA ≈ F·Fᵀ; the SVD of F gives out.v and
// out.s. Returns t, the directions kept above the rounding level.
Result<int64_t> nystrom_finish(const Context& ctx, const GramOperator& op, const SearchSpace& s,
                               const EighResult& ritz, int64_t k, SvdResult& out) {
  const int64_t n = s.ys.rows, width = s.width;
  const DenseMatrix& ys = s.ys;
  const double eps_t = op.single_precision() ? 1.2e-7 : 2.3e-16;
  const double tol = std::max<double>(static_cast<double>(width), 100.0) * eps_t * ritz.w[0];
  int64_t t = 0;
  while (t < width && ritz.w[static_cast<size_t>(t)] > tol) ++t;
  // Directions below the truncation carry only rounding: they become zero columns (so a
  // rank-deficient matrix reports zero singular values instead of amplified noise).
  if (t >= k && ritz.w[0] <= kNystromGramMaxCond * ritz.w[static_cast<size_t>(t - 1)]) {
    // Every kept value within 1e4 of the top: F's SVD from the small Gram FᵀF = Bᵀ·(YSᵀ·YS)·B
    // with B = Z·Λ^{-1/2} (n·width² flops instead of QR of the n × t matrix F). Its rounding
    // grows with the spread of all kept values (B scales by λ^{-1/2}), not only of the top k:
    // with a non-orthonormal basis and a decaying spectrum a top-k-only rule lost the top value.
    DenseMatrix bm = ritz.z.leading_cols(t);
    for (int64_t j = 0; j < t; ++j) {
      const double scale = 1.0 / std::sqrt(ritz.w[static_cast<size_t>(j)]);
      for (int64_t i = 0; i < width; ++i) bm(i, j) *= scale;
    }
    DenseMatrix g;
    STRATA_RETURN_NOT_OK(syrk_rows(ctx, n, width, ys.data.data(), g));
    STRATA_ASSIGN_OR_RETURN(const DenseMatrix gb, matmul(ctx, g, bm));
    STRATA_ASSIGN_OR_RETURN(const DenseMatrix e, matmul(ctx, bm, gb, true, false));
    STRATA_ASSIGN_OR_RETURN(EighResult fe, eigh(ctx, e));
    STRATA_ASSIGN_OR_RETURN(DenseMatrix x, matmul(ctx, bm, fe.z.leading_cols(k)));
    out.s.resize(static_cast<size_t>(k));
    for (int64_t j = 0; j < k; ++j) {
      const double sj = std::sqrt(std::max(0.0, fe.w[static_cast<size_t>(j)]));
      out.s[static_cast<size_t>(j)] = sj;
      for (int64_t i = 0; i < width; ++i) x(i, j) = sj > 0 ? x(i, j) / sj : 0.0;
    }
    STRATA_ASSIGN_OR_RETURN(out.v, matmul(ctx, ys, x));
  } else {
    DenseMatrix f(n, std::max(t, k));
    if (t > 0) {
      STRATA_ASSIGN_OR_RETURN(const DenseMatrix ft, matmul(ctx, ys, ritz.z.leading_cols(t)));
      for (int64_t j = 0; j < t; ++j) {
        const double scale = 1.0 / std::sqrt(ritz.w[static_cast<size_t>(j)]);
        for (int64_t i = 0; i < n; ++i) f(i, j) = ft(i, j) * scale;
      }
    }
    DenseMatrix rf;
    STRATA_RETURN_NOT_OK(orthonormalize(ctx, f, &rf).status());
    STRATA_ASSIGN_OR_RETURN(SvdDense small, svd_dense(ctx, rf));
    STRATA_ASSIGN_OR_RETURN(out.v, matmul(ctx, f, small.u.leading_cols(k)));
    out.s.assign(small.s.begin(), small.s.begin() + k);
  }
  // Keep the Rayleigh–Ritz lower bound where rounding left the Nyström value below it;
  // values under the noise level of the products are reported as 0.
  for (int64_t j = 0; j < k; ++j) {
    double& sj = out.s[static_cast<size_t>(j)];
    sj = j < t ? std::max(sj, std::sqrt(ritz.w[static_cast<size_t>(j)])) : 0.0;
  }
  return t;
}

// U = A·V·Σ⁻¹ by one projection pass, into options.u_sink or out.u. t: the directions the
// Nyström finish kept (fewer than k: U is not defined).
Status project_u(const GramOperator& op, const SvdParams& options, int64_t k, int64_t t, SvdResult& out) {
  if (t < k) {
    return Status::InvalidData(op.describe(), ": numerical rank is below k = ", k, " (singular value ", k, " is ",
                               out.s[static_cast<size_t>(k - 1)], " of ", out.s[0], "); constant or duplicated data?");
  }
  const int64_t n = out.v.rows;
  DenseMatrix x = out.v;
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < n; ++i) x(i, j) /= out.s[static_cast<size_t>(j)];
  FactorSink target = options.u_sink;
  if (!target) {
    out.u = DenseMatrix(op.rows(), k);
    target = matrix_sink(out.u);
  }
  STRATA_RETURN_NOT_OK(op.project(x, target));
  out.u_route = "projection";
  ++out.passes;
  return Status::OK();
}

// The float64 check (SvdParams::check_operator): one pass over the first c vectors of the
// finish; its Rayleigh–Ritz values and vectors replace them, with their bounds (relative to θ).
Status check_finish(const Context& ctx, const GramOperator& check, int64_t k, int64_t c, SvdResult& out) {
  const auto t0 = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(CheckedPairs cp, check_pairs(ctx, check, out.v.leading_cols(c)));
  ctx.report().add_phase("float64 check", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  out.passes += cp.passes;
  out.v = std::move(cp.vectors);
  out.s.assign(static_cast<size_t>(c), 0.0);
  out.residual_norms.assign(static_cast<size_t>(k), 0.0);
  out.error_estimate.assign(static_cast<size_t>(k), 0.0);
  out.vector_error_bound.assign(static_cast<size_t>(k), 1.0);
  for (int64_t j = 0; j < c; ++j) {
    const auto u = static_cast<size_t>(j);
    const double theta = cp.values[u];
    out.s[u] = std::sqrt(std::max(0.0, theta));
    if (j >= k) continue;
    // A non-positive Ritz value bounds nothing relative to itself.
    const bool pos = theta > 0;
    out.residual_norms[u] = pos ? cp.residuals[u] / theta : std::numeric_limits<double>::infinity();
    out.error_estimate[u] = pos ? cp.value_bound[u] / theta : std::numeric_limits<double>::infinity();
    out.vector_error_bound[u] = cp.vector_bound[u];
  }
  out.bounded = true;
  return Status::OK();
}

// `needs_scaling` (the RowBlockSource route, which can rescale its input): when the first
// pass's products are zero, not finite, or so far from 1 that squares of the data underflow or
// overflow, it is set and the function returns an empty result before any further pass.
Result<SvdResult> svd_randomized_impl(const Context& ctx, const GramOperator& op, const SvdParams& options,
                                      bool* needs_scaling) {
  STRATA_ASSIGN_OR_RETURN(const SearchPlan plan, plan_search(op, options));
  const int64_t k = plan.k, n = op.cols();
  SearchSpace space(n, plan.max_width, op.rounds_operand());
  // Under MPI every rank holds the whole state; the products with the basis are shared by rows.
  const RowShare share(op.ranks());
  STRATA_ASSIGN_OR_RETURN(DenseMatrix qcur, gaussian_start(ctx, n, plan.b, options.seed));
  STRATA_RETURN_NOT_OK(orthonormalize(ctx, qcur).status());
  SvdResult out;
  out.method = SvdMethod::Randomized;
  RitzStep step;
  bool have_step = false;
  int64_t next_check = 0;
  out.stop = "iterations";
  for (int it = 0; it < plan.iterations; ++it) {
    DenseMatrix y;
    if (space.rounded) qcur = op.operand(qcur);
    const auto t0 = std::chrono::steady_clock::now();
    STRATA_RETURN_NOT_OK(op.gram(qcur, y));
    ctx.report().add_phase("products", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ++out.passes;
    if (it == 0) {
      STRATA_ASSIGN_OR_RETURN(const bool rescale, first_products_need_scaling(op, y, needs_scaling != nullptr));
      if (rescale) {
        *needs_scaling = true;
        return out;
      }
    }
    STRATA_ASSIGN_OR_RETURN(const DenseMatrix g, extend_space(ctx, share, !plan.krylov, qcur, y, space));
    const int64_t width = space.width;
    const bool complete = width >= plan.full_width;
    if (complete) out.stop = "complete";
    const bool last = it + 1 == plan.iterations || complete;
    // With a tolerance, stop as soon as every top-k estimate is below it. A check costs an
    // eigensolve of the width² Ritz matrix, so checks that cannot succeed are skipped: the next
    // one waits ⌊width / 256⌋ passes, and an estimate e > tolerance ⌊log₄(e / tolerance)⌋
    // passes (estimates were measured to fall at most ~2.5× per pass); at least one.
    const bool check_now = width >= k && (last || it >= next_check);
    if (options.tolerance > 0 && (plan.krylov || last) && it >= 1 && check_now) {
      STRATA_ASSIGN_OR_RETURN(step, space.ritz(ctx, k, last, op.describe()));
      have_step = true;
      const double worst = *std::max_element(step.error_estimate.begin(), step.error_estimate.end());
      if (worst <= options.tolerance) {
        if (!complete) out.stop = "tolerance";
        break;
      }
      const auto wait = static_cast<int64_t>(std::log(worst / options.tolerance) / std::log(4.0));
      next_check = it + std::max<int64_t>({1, width / 256, wait});
    }
    if (last) break;
    have_step = false;
    if (plan.krylov) {
      STRATA_ASSIGN_OR_RETURN(qcur, next_block(ctx, share, space.kbasis, width, std::move(y), g));
      // The last block is cut so that the space ends at full_width columns.
      if (width + qcur.cols > plan.max_width) qcur = qcur.leading_cols(plan.max_width - width);
    } else {
      qcur = std::move(y);
      STRATA_RETURN_NOT_OK(orthonormalize(ctx, qcur).status());
    }
  }
  if (!have_step || !step.full) {
    STRATA_ASSIGN_OR_RETURN(step, space.ritz(ctx, k, /*full=*/true, op.describe()));
  }
  out.residual_norms = step.residual_norms;
  out.error_estimate = step.error_estimate;
  // The check takes one vector beyond k: the gap below the k-th pair needs a bound on the next.
  const bool check = options.check_operator != nullptr;
  const int64_t kf = check && space.width > k ? k + 1 : k;
  STRATA_ASSIGN_OR_RETURN(int64_t t, nystrom_finish(ctx, op, space, step.ritz, kf, out));
  if (check && t >= k) STRATA_RETURN_NOT_OK(check_finish(ctx, *options.check_operator, k, std::min(t, kf), out));
  if (static_cast<int64_t>(out.s.size()) > k) {
    out.s.resize(static_cast<size_t>(k));
    out.v = out.v.leading_cols(k);
    t = std::min(t, k);
  }
  bool nan = false;
  for (double e : out.error_estimate) {
    nan = nan || std::isnan(e);
    out.max_error_estimate = std::max(out.max_error_estimate, e);
  }
  if (nan) out.max_error_estimate = std::numeric_limits<double>::quiet_NaN();
  // NaN estimates count as not converged.
  out.converged = !(options.tolerance > 0) || out.max_error_estimate <= options.tolerance;
  fix_signs_max_abs_positive(out.v);
  out.krylov_width = space.width;
  if (options.compute_u) STRATA_RETURN_NOT_OK(project_u(op, options, k, t, out));
  return out;
}

}  // namespace

Result<SvdResult> svd_randomized(const Context& ctx, const GramOperator& op, const SvdParams& options) {
  return svd_randomized_impl(ctx, op, options, nullptr);
}

Result<SvdResult> svd_randomized(const Context& ctx, const RowBlockSourcePtr& source, const SvdParams& options) {
  if (!source) return Status::Invalid("svd: no source");
  STRATA_ASSIGN_OR_RETURN(GramOperatorPtr op, make_gram_operator(ctx, source, options.precision, options.pass));
  bool needs_scaling = false;
  STRATA_ASSIGN_OR_RETURN(SvdResult first, svd_randomized_impl(ctx, *op, options, &needs_scaling));
  if (!needs_scaling) return first;
  // Subnormal, huge, non-finite or zero data: one pass for the largest |a| (which rejects
  // non-finite values and all-zero data), then the whole run on A·2⁻ᵉ (exact: a power of two).
  STRATA_ASSIGN_OR_RETURN(int exponent, scaling_exponent(*source, PassEnv(ctx, options.pass)));
  const RowBlockSourcePtr scaled = make_scaled_source(source, exponent);
  STRATA_ASSIGN_OR_RETURN(GramOperatorPtr op2, make_gram_operator(ctx, scaled, options.precision, options.pass));
  STRATA_ASSIGN_OR_RETURN(SvdResult r, svd_randomized_impl(ctx, *op2, options, nullptr));
  for (double& s : r.s) s = std::ldexp(s, exponent);
  r.passes += first.passes + 1;
  return r;
}

}  // namespace strata::linalg
