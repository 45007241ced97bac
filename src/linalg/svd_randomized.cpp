// Randomized SVD on the column side: block Krylov or subspace iteration, one pass per
// iteration, Rayleigh–Ritz residuals and a Nyström finish from the products already made.
#include <algorithm>
#include <cmath>
#include <limits>

#include "linalg/dense_internal.hpp"
#include "linalg/gram_pass_internal.hpp"
#include "linalg/philox_internal.hpp"
#include "linalg/svd_internal.hpp"
#include "linalg/tsqr_internal.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::linalg {
namespace {

constexpr int kDefaultKrylovIterations = 8;
constexpr int kDefaultSubspaceIterations = 7;

bool wants_float(const RowBlockSource& source, Precision p) {
  if (p != Precision::Auto) return p == Precision::Float32;
  switch (source.natural_type()) {
    case ScalarType::Float64: case ScalarType::Int64: case ScalarType::UInt64: return false;
    default: return true;
  }
}

// Columns c of the start block are Philox stream c + 1 at element j (the column index of A),
// so they do not depend on the sketch width or any chunking.
DenseMatrix gaussian_start(int64_t n, int64_t w, uint64_t seed) {
  DenseMatrix omega(n, w);
  for (int64_t c = 0; c < w; ++c)
    for (int64_t j = 0; j < n; ++j) omega(j, c) = detail::normal_at(seed, static_cast<uint64_t>(c) + 1, j);
  return omega;
}

// Copy `src` into columns [c0, c0 + src.cols) of `dst`.
void put_cols(DenseMatrix& dst, int64_t c0, const DenseMatrix& src) {
  std::copy(src.data.begin(), src.data.end(), dst.col(c0));
}

// Z ← Z − K·(Kᵀ·Z) using the first `kc` columns of K.
void project_out(const DenseMatrix& k_all, int64_t kc, DenseMatrix& z) {
  if (kc == 0) return;
  DenseMatrix k = k_all.leading_cols(kc);
  DenseMatrix h = matmul(k, z, true, false);
  DenseMatrix kh = matmul(k, h);
  for (size_t i = 0; i < z.data.size(); ++i) z.data[i] -= kh.data[i];
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

}  // namespace

Result<SvdResult> svd_randomized(const RowBlockSourcePtr& source_ptr, const SvdOptions& options) {
  if (!source_ptr) return Status::Invalid("svd: no source");
  const RowBlockSource& source = *source_ptr;
  STRATA_ASSIGN_OR_RETURN(int64_t k, validate_k(source, options.k, /*allow_full=*/false));
  if (options.oversampling < 0) return Status::Invalid("oversampling must be >= 0, got ", options.oversampling);
  const bool krylov = options.scheme == RandomizedScheme::BlockKrylov;
  int iterations = options.iterations >= 0 ? options.iterations
                                           : (krylov ? kDefaultKrylovIterations : kDefaultSubspaceIterations);
  if (iterations < 1) return Status::Invalid("randomized SVD needs at least 1 iteration, got ", iterations);
  const int64_t m = source.rows(), n = source.cols(), p = std::min(m, n);
  const int64_t b = std::min(k + options.oversampling, p);
  // The search space cannot outgrow the matrix: cap the Krylov depth.
  if (krylov) iterations = static_cast<int>(std::min<int64_t>(iterations, std::max<int64_t>(1, p / b)));
  const int64_t width = krylov ? b * iterations : b;
  STRATA_RETURN_NOT_OK(check_lapack_dims(n, width, "randomized SVD state"));
  BlasThreadsGuard blas(1);

  const bool use_float = wants_float(source, options.precision);
  STRATA_ASSIGN_OR_RETURN(BlockPlan plan, plan_gram(source, options.pass, use_float ? 4 : 8));

  // K = [Q_0 … Q_{q-1}] and YS = AᵀA·K, filled one block per pass (only the last for subspace
  // iteration).
  ScratchPool scratch;
  DenseMatrix kbasis(n, width), ys(n, width);
  DenseMatrix qcur = gaussian_start(n, b, options.seed);
  STRATA_RETURN_NOT_OK(orthonormalize(qcur).status());
  SvdResult out;
  out.method = SvdMethod::Randomized;
  for (int it = 0; it < iterations; ++it) {
    DenseMatrix y;
    STRATA_RETURN_NOT_OK(gram_pass(source, plan, options.pass, qcur, use_float, scratch, y));
    ++out.passes;
    const int64_t c0 = krylov ? b * it : 0;
    put_cols(kbasis, c0, qcur);
    put_cols(ys, c0, y);
    if (it + 1 == iterations) break;
    if (krylov) {
      STRATA_ASSIGN_OR_RETURN(qcur, next_block(kbasis, c0 + b, std::move(y)));
    } else {
      qcur = std::move(y);
      STRATA_RETURN_NOT_OK(orthonormalize(qcur).status());
    }
  }

  // Rayleigh–Ritz on span(K): C = Kᵀ·AᵀA·K = Kᵀ·YS, exact residuals AᵀA·Kp − θ·Kp = YS·p − θ·K·p.
  DenseMatrix c = matmul(kbasis, ys, true, false);
  for (int64_t i = 0; i < width; ++i)
    for (int64_t j = 0; j < i; ++j) c(i, j) = c(j, i) = 0.5 * (c(i, j) + c(j, i));
  STRATA_ASSIGN_OR_RETURN(EighResult ritz, eigh(c));
  if (!(ritz.w[0] > 0)) {
    return Status::Invalid(source.describe(), ": the matrix is zero (constant data): every singular value is 0");
  }
  DenseMatrix pk = ritz.z.leading_cols(k);
  DenseMatrix res = matmul(ys, pk);
  DenseMatrix kp = matmul(kbasis, pk);
  for (int64_t j = 0; j < k; ++j) {
    double r2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = res(i, j) - ritz.w[static_cast<size_t>(j)] * kp(i, j);
      r2 += d * d;
    }
    const double theta = ritz.w[static_cast<size_t>(j)], r = std::sqrt(r2);
    double gap = std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < width; ++i) {
      if (i != j) gap = std::min(gap, std::abs(theta - ritz.w[static_cast<size_t>(i)]));
    }
    out.residual_norms.push_back(r / theta);
    out.error_estimate.push_back(std::min(r, r * r / gap) / theta);
  }

  // Nyström finish: ÂᵀÂ = YS·C⁺·YSᵀ agrees with AᵀA on span(K) and uses span(YS), one power
  // beyond K, for free. F = YS·Z·Λ^{-1/2} (Λ truncated), AᵀA ≈ F·Fᵀ; the SVD of F gives V, s.
  const double eps_t = use_float ? 1.2e-7 : 2.3e-16;
  const double tol = std::max<double>(static_cast<double>(width), 100.0) * eps_t * ritz.w[0];
  int64_t t = 0;
  while (t < width && ritz.w[static_cast<size_t>(t)] > tol) ++t;
  // Directions below the truncation carry only rounding: they become zero columns (so a
  // rank-deficient matrix reports zero singular values instead of amplified noise).
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
      return Status::Invalid(source.describe(), ": numerical rank is below k = ", k,
                             " (singular value ", k, " is ", out.s[static_cast<size_t>(k - 1)], " of ", out.s[0],
                             "); constant or duplicated data?");
    }
    DenseMatrix x = out.v;
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < n; ++i) x(i, j) /= out.s[static_cast<size_t>(j)];
    STRATA_ASSIGN_OR_RETURN(BlockPlan uplan, plan_gram(source, options.pass, 8));
    FactorSink target = options.u_sink;
    if (!target) {
      out.u = DenseMatrix(m, k);
      target = matrix_sink(out.u);
    }
    STRATA_RETURN_NOT_OK(projection_pass(source, uplan, options.pass, x, scratch, target));
    out.u_route = "projection";
    ++out.passes;
  }
  return out;
}

}  // namespace strata::linalg
