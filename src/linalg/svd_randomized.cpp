// Randomized SVD on the column side: block Krylov or subspace iteration, one pass per
// iteration, Rayleigh–Ritz residuals and a Nyström finish from the products already made.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "linalg/dense_internal.hpp"
#include "linalg/philox_internal.hpp"
#include "linalg/svd_internal.hpp"
#include "linalg/tsqr_internal.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::linalg {
namespace {

constexpr int kDefaultKrylovIterations = 8;
constexpr int kDefaultSubspaceIterations = 7;

// Columns c of the start block are Philox stream c + 1 at element j (the column index of A),
// so they do not depend on the sketch width or any chunking.
DenseMatrix gaussian_start(int64_t n, int64_t w, uint64_t seed) {
  DenseMatrix omega(n, w);
  for (int64_t c = 0; c < w; ++c)
    for (int64_t j = 0; j < n; ++j) omega(j, c) = detail::normal_at(seed, static_cast<uint64_t>(c) + 1, j);
  return omega;
}

// The Nyström finish takes its SVD from a small Gram matrix when λ_1/λ_k is at most this
// (orthogonality of V then within ~1e4·ε); otherwise from a QR of the n × t factor.
constexpr double kNystromGramMaxCond = 1e4;

// Copy `src` into columns [c0, c0 + src.cols) of `dst`.
void put_cols(DenseMatrix& dst, int64_t c0, const DenseMatrix& src) {
  std::copy(src.data.begin(), src.data.end(), dst.col(c0));
}

// C (m × n, ld ldc) = Aᵀ·B with A rows × m (ld lda) and B rows × n (ld ldb), column-major.
void gemm_tn(int64_t rows, int64_t m, int64_t n, const double* a, int64_t lda, const double* b, int64_t ldb,
             double* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(rows), 1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb), 0.0, c,
              static_cast<int>(ldc));
}

// C (rows × n) = alpha·A·B + beta·C with A rows × inner (ld rows) and B inner × n (ld inner),
// column-major.
void gemm_nn(int64_t rows, int64_t inner, int64_t n, double alpha, const double* a, const double* b, double beta,
             double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(n),
              static_cast<int>(inner), alpha, a, static_cast<int>(rows), b, static_cast<int>(inner), beta, c,
              static_cast<int>(rows));
}

// Z ← Z − K·(Kᵀ·Z) using the first `kc` columns of K.
void project_out(const DenseMatrix& k_all, int64_t kc, DenseMatrix& z) {
  if (kc == 0) return;
  DenseMatrix h(kc, z.cols);
  gemm_tn(k_all.rows, kc, z.cols, k_all.data.data(), k_all.rows, z.data.data(), z.rows, h.data.data(), kc);
  gemm_nn(z.rows, kc, z.cols, -1.0, k_all.data.data(), h.data.data(), 1.0, z.data.data());
}

// Next Krylov block: orthonormal and orthogonal to K's first kc columns. Project, normalize,
// project again, normalize again, so the result is orthogonal to K even when Y has nearly
// nothing outside span(K).
Result<DenseMatrix> next_block(const DenseMatrix& k_all, int64_t kc, DenseMatrix y) {
  project_out(k_all, kc, y);
  STRATA_RETURN_NOT_OK(orthonormalize(y).status());
  project_out(k_all, kc, y);
  STRATA_RETURN_NOT_OK(orthonormalize(y).status());
  return y;
}

// The Rayleigh–Ritz matrix C = Kᵀ·AᵀA·K = Kᵀ·YS over the first `width` columns, grown by the
// columns [c0, width) each pass: only the new rows and columns are computed.
class RitzMatrix {
 public:
  explicit RitzMatrix(int64_t max_width) : c_(max_width, max_width) {}

  void extend(const DenseMatrix& k, const DenseMatrix& ys, int64_t c0, int64_t width) {
    const int64_t n = k.rows, ld = c_.rows, nb = width - c0;
    // Columns c0.. : Kᵀ·YS_new (width × nb); rows c0.. of the old columns: K_newᵀ·YS_old.
    gemm_tn(n, width, nb, k.data.data(), n, ys.col(c0), n, c_.col(c0), ld);
    if (c0 > 0) {
      DenseMatrix t(nb, c0);
      gemm_tn(n, nb, c0, k.col(c0), n, ys.data.data(), n, t.data.data(), nb);
      for (int64_t j = 0; j < c0; ++j)
        for (int64_t i = 0; i < nb; ++i) c_(c0 + i, j) = t(i, j);
    }
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
};

Result<RitzStep> ritz_step(const RitzMatrix& cm, const DenseMatrix& kbasis, const DenseMatrix& ys, int64_t width,
                           int64_t k, const std::string& what) {
  RitzStep out;
  STRATA_ASSIGN_OR_RETURN(out.ritz, eigh(cm.symmetric()));
  if (!(out.ritz.w[0] > 0)) {
    return Status::Invalid(what, ": the matrix is zero (constant data): every singular value is 0");
  }
  // Exact residuals AᵀA·Kp − θ·Kp = YS·p − θ·K·p.
  const int64_t n = kbasis.rows;
  DenseMatrix pk = out.ritz.z.leading_cols(k);
  DenseMatrix res(n, k), kp(n, k);
  gemm_nn(n, width, k, 1.0, ys.data.data(), pk.data.data(), 0.0, res.data.data());
  gemm_nn(n, width, k, 1.0, kbasis.data.data(), pk.data.data(), 0.0, kp.data.data());
  for (int64_t j = 0; j < k; ++j) {
    const double theta = out.ritz.w[static_cast<size_t>(j)];
    double r2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = res(i, j) - theta * kp(i, j);
      r2 += d * d;
    }
    const double r = std::sqrt(r2);
    double gap = std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < width; ++i) {
      if (i != j) gap = std::min(gap, std::abs(theta - out.ritz.w[static_cast<size_t>(i)]));
    }
    out.residual_norms.push_back(r / theta);
    out.error_estimate.push_back(std::min(r, r * r / gap) / theta);
  }
  return out;
}

}  // namespace

Result<SvdResult> svd_randomized(const GramOperator& op, const SvdOptions& options) {
  STRATA_ASSIGN_OR_RETURN(int64_t k, validate_k(op.rows(), op.cols(), op.describe(), options.k, /*allow_full=*/false));
  if (options.oversampling < 0) return Status::Invalid("oversampling must be >= 0, got ", options.oversampling);
  if (!(options.tolerance >= 0)) return Status::Invalid("tolerance must be >= 0, got ", options.tolerance);
  const bool krylov = options.scheme == RandomizedScheme::BlockKrylov;
  int iterations = options.iterations >= 0 ? options.iterations
                                           : (krylov ? kDefaultKrylovIterations : kDefaultSubspaceIterations);
  if (iterations < 1) return Status::Invalid("randomized SVD needs at least 1 iteration, got ", iterations);
  const int64_t m = op.rows(), n = op.cols(), p = std::min(m, n);
  if (options.block_columns < 0) return Status::Invalid("block_columns must be >= 0, got ", options.block_columns);
  if (options.block_columns > 0 && options.block_columns < k && !krylov) {
    return Status::Invalid("subspace iteration needs blocks of at least k = ", k, " columns, got ",
                           options.block_columns);
  }
  int64_t b = std::min(options.block_columns > 0 ? options.block_columns : k + options.oversampling, p);
  // Operators with a natural width (SIMD lanes) get the extra columns for free.
  if (const int64_t pw = op.preferred_width(); pw > 0) b = std::min(p, (b + pw - 1) / pw * pw);
  // The search space cannot outgrow the matrix: cap the Krylov depth.
  if (krylov) iterations = static_cast<int>(std::min<int64_t>(iterations, std::max<int64_t>(1, p / b)));
  if (b * (krylov ? iterations : 1) < k) {
    return Status::Invalid("randomized SVD: ", iterations, " passes of ", b, " columns cannot resolve k = ", k,
                           " (need at least k columns in all)");
  }
  const int64_t max_width = krylov ? b * iterations : b;
  STRATA_RETURN_NOT_OK(check_lapack_dims(n, max_width, "randomized SVD state"));
  BlasThreadsGuard blas(1);

  // K = [Q_0 … Q_{q-1}] and YS = AᵀA·K, filled one block per pass (only the last for subspace
  // iteration).
  DenseMatrix kbasis(n, max_width), ys(n, max_width);
  RitzMatrix cm(max_width);
  DenseMatrix qcur = gaussian_start(n, b, options.seed);
  STRATA_RETURN_NOT_OK(orthonormalize(qcur).status());
  SvdResult out;
  out.method = SvdMethod::Randomized;
  int64_t width = 0;
  RitzStep step;
  bool have_step = false;
  int64_t last_check = 0;
  for (int it = 0; it < iterations; ++it) {
    DenseMatrix y;
    STRATA_RETURN_NOT_OK(op.gram(qcur, y));
    ++out.passes;
    const int64_t c0 = krylov ? b * it : 0;
    put_cols(kbasis, c0, qcur);
    put_cols(ys, c0, y);
    width = c0 + b;
    cm.extend(kbasis, ys, c0, width);
    const bool last = it + 1 == iterations;
    // With a tolerance, stop as soon as every top-k estimate is below it. The check costs an
    // eigendecomposition of the width² Ritz matrix: past 256 columns it runs every
    // ⌈width / 256⌉ passes.
    const bool check_now = width >= k && (last || it - last_check >= std::max<int64_t>(1, width / 256));
    if (options.tolerance > 0 && (krylov || last) && it >= 1 && check_now) {
      last_check = it;
      STRATA_ASSIGN_OR_RETURN(step, ritz_step(cm, kbasis, ys, width, k, op.describe()));
      have_step = true;
      const double worst = *std::max_element(step.error_estimate.begin(), step.error_estimate.end());
      if (worst <= options.tolerance) break;
    }
    if (last) break;
    have_step = false;
    if (krylov) {
      STRATA_ASSIGN_OR_RETURN(qcur, next_block(kbasis, c0 + b, std::move(y)));
    } else {
      qcur = std::move(y);
      STRATA_RETURN_NOT_OK(orthonormalize(qcur).status());
    }
  }
  if (!have_step) {
    STRATA_ASSIGN_OR_RETURN(step, ritz_step(cm, kbasis, ys, width, k, op.describe()));
  }
  out.residual_norms = step.residual_norms;
  out.error_estimate = step.error_estimate;
  const EighResult& ritz = step.ritz;
  if (width < max_width) {
    kbasis.cols = ys.cols = width;
    kbasis.data.resize(static_cast<size_t>(n * width));
    ys.data.resize(static_cast<size_t>(n * width));
  }

  // Nyström finish: ÂᵀÂ = YS·C⁺·YSᵀ agrees with AᵀA on span(K) and uses span(YS), one power
  // beyond K, for free. F = YS·Z·Λ^{-1/2} (Λ truncated), AᵀA ≈ F·Fᵀ; the SVD of F gives V, s.
  const double eps_t = op.single_precision() ? 1.2e-7 : 2.3e-16;
  const double tol = std::max<double>(static_cast<double>(width), 100.0) * eps_t * ritz.w[0];
  int64_t t = 0;
  while (t < width && ritz.w[static_cast<size_t>(t)] > tol) ++t;
  // Directions below the truncation carry only rounding: they become zero columns (so a
  // rank-deficient matrix reports zero singular values instead of amplified noise).
  if (t >= k && ritz.w[0] <= kNystromGramMaxCond * ritz.w[static_cast<size_t>(k - 1)]) {
    // Well separated top k: F's SVD from the small Gram FᵀF = Bᵀ·(YSᵀ·YS)·B with B = Z·Λ^{-1/2}
    // (n·width² flops instead of QR of the n × t matrix F); rounding costs orthogonality of
    // about ε·λ_1/λ_k, bounded by the condition above.
    DenseMatrix bm = ritz.z.leading_cols(t);
    for (int64_t j = 0; j < t; ++j) {
      const double scale = 1.0 / std::sqrt(ritz.w[static_cast<size_t>(j)]);
      for (int64_t i = 0; i < width; ++i) bm(i, j) *= scale;
    }
    DenseMatrix g(width, width);
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, static_cast<int>(width), static_cast<int>(n), 1.0,
                ys.data.data(), static_cast<int>(n), 0.0, g.data.data(), static_cast<int>(width));
    for (int64_t j = 0; j < width; ++j)
      for (int64_t i = j + 1; i < width; ++i) g(i, j) = g(j, i);
    const DenseMatrix e = matmul(bm, matmul(g, bm), true, false);
    STRATA_ASSIGN_OR_RETURN(EighResult fe, eigh(e));
    DenseMatrix x = matmul(bm, fe.z.leading_cols(k));
    out.s.resize(static_cast<size_t>(k));
    for (int64_t j = 0; j < k; ++j) {
      const double sj = std::sqrt(std::max(0.0, fe.w[static_cast<size_t>(j)]));
      out.s[static_cast<size_t>(j)] = sj;
      for (int64_t i = 0; i < width; ++i) x(i, j) = sj > 0 ? x(i, j) / sj : 0.0;
    }
    out.v = matmul(ys, x);
  } else {
    DenseMatrix f(n, std::max(t, k));
    if (t > 0) {
      DenseMatrix ft = matmul(ys, ritz.z.leading_cols(t));
      for (int64_t j = 0; j < t; ++j) {
        const double scale = 1.0 / std::sqrt(ritz.w[static_cast<size_t>(j)]);
        for (int64_t i = 0; i < n; ++i) f(i, j) = ft(i, j) * scale;
      }
    }
    DenseMatrix rf;
    STRATA_RETURN_NOT_OK(orthonormalize(f, &rf).status());
    STRATA_ASSIGN_OR_RETURN(SvdDense small, svd_dense(rf));
    out.v = matmul(f, small.u.leading_cols(k));
    out.s.assign(small.s.begin(), small.s.begin() + k);
  }
  // Keep the Rayleigh–Ritz lower bound where rounding left the Nyström value below it;
  // values under the noise level of the products are reported as 0.
  for (int64_t j = 0; j < k; ++j) {
    double& sj = out.s[static_cast<size_t>(j)];
    sj = j < t ? std::max(sj, std::sqrt(ritz.w[static_cast<size_t>(j)])) : 0.0;
  }
  fix_signs_max_abs_positive(out.v);
  out.krylov_width = width;

  if (options.compute_u) {
    if (t < k) {
      return Status::Invalid(op.describe(), ": numerical rank is below k = ", k, " (singular value ", k, " is ",
                             out.s[static_cast<size_t>(k - 1)], " of ", out.s[0], "); constant or duplicated data?");
    }
    DenseMatrix x = out.v;
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < n; ++i) x(i, j) /= out.s[static_cast<size_t>(j)];
    FactorSink target = options.u_sink;
    if (!target) {
      out.u = DenseMatrix(m, k);
      target = matrix_sink(out.u);
    }
    STRATA_RETURN_NOT_OK(op.project(x, target));
    out.u_route = "projection";
    ++out.passes;
  }
  return out;
}

Result<SvdResult> svd_randomized(const RowBlockSourcePtr& source, const SvdOptions& options) {
  if (!source) return Status::Invalid("svd: no source");
  STRATA_ASSIGN_OR_RETURN(GramOperatorPtr op, make_gram_operator(source, options.precision, options.pass));
  return svd_randomized(*op, options);
}

}  // namespace strata::linalg
