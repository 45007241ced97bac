// Exact SVD: TSQR R → SVD of R → U by a second pass; short-and-fat input by transposition.
#include <algorithm>
#include <cmath>
#include <limits>

#include "linalg/svd_internal.hpp"
#include "linalg/tsqr_internal.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::linalg {
namespace {

// U = A·V·Σ⁻¹ loses orthogonality like ε·s_1/s_k; beyond this ratio U comes from Q·U_R.
constexpr double kProjectionMaxCond = 1e4;
// Keeping every block-tree Q (2n² doubles per block) is allowed up to this many bytes.
constexpr double kTreeQBudget = 256.0 * (1 << 20);

}  // namespace

Result<SvdResult> svd_exact_tall(const RowBlockSource& source, int64_t k, bool compute_u, const FactorSink& sink,
                                 const PassEnv& options, bool rescaled) {
  const int64_t n = source.cols();
  STRATA_ASSIGN_OR_RETURN(BlockPlan plan, plan_tsqr(source, options));
  // Under MPI the block tree's Qs would stay on the ranks that made them: U comes from the
  // projection A·V·Σ⁻¹ (each rank its own blocks) whatever the condition.
  const bool keep_q = compute_u && options.ctx->communicator().size() == 1 &&
                      static_cast<double>(plan.num_blocks) * 2.0 * n * n * 8.0 <= kTreeQBudget;
  TsqrStats stats;
  ScratchPool scratch;
  STRATA_ASSIGN_OR_RETURN(RTree tree, tsqr_r_pass(source, plan, options, keep_q, scratch, &stats));
  STRATA_ASSIGN_OR_RETURN(DenseMatrix r, tree.finish());
  if (!rescaled) {
    if (needs_rescaling(max_abs_or_nan(r))) {
      // Subnormal, huge or non-finite data: the Gram-based leaves and Σ⁻¹ would underflow or
      // overflow. One pass finds max|a| (and rejects NaN/Inf), then the run repeats on A·2⁻ᵉ.
      STRATA_ASSIGN_OR_RETURN(int exponent, scaling_exponent(source, options));
      const RowBlockSourcePtr scaled = make_scaled_source(RowBlockSourcePtr(RowBlockSourcePtr(), &source), exponent);
      STRATA_ASSIGN_OR_RETURN(SvdResult out, svd_exact_tall(*scaled, k, compute_u, sink, options, true));
      for (double& s : out.s) s = std::ldexp(s, exponent);
      out.passes += 2;
      return out;
    }
  }
  STRATA_ASSIGN_OR_RETURN(SvdDense f, svd_dense(*options.ctx, r));
  STRATA_RETURN_NOT_OK(check_spectrum(source, f.s, k));

  SvdResult out;
  out.method = SvdMethod::Exact;
  out.s.assign(f.s.begin(), f.s.begin() + k);
  out.v = f.vt.transposed().leading_cols(k);
  DenseMatrix ur = f.u.leading_cols(k);
  const std::vector<double> signs = fix_signs_max_abs_positive(out.v);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < n; ++i) ur(i, j) *= signs[static_cast<size_t>(j)];
  const double eps = std::numeric_limits<double>::epsilon();
  out.residual_norms.assign(static_cast<size_t>(k), 0.0);
  for (int64_t i = 0; i < k; ++i) {
    // TSQR is backward stable: |δs_i| ≲ n·ε·s_1, so s_i² is good to about 2·n·ε·s_1/s_i;
    // leaves factored by one Cholesky round (condition ≤ 100) add about ε·(s_1/s_i)².
    const double ratio = out.s[0] / out.s[static_cast<size_t>(i)];
    out.error_estimate.push_back(2.0 * static_cast<double>(n) * eps * ratio + eps * ratio * ratio);
  }
  for (double e : out.error_estimate) out.max_error_estimate = std::max(out.max_error_estimate, e);
  out.passes = 1;

  if (compute_u) {
    FactorSink target = sink;
    if (!target) {
      out.u = DenseMatrix(source.rows(), k);
      target = matrix_sink(out.u);
    }
    const double cond = out.s[static_cast<size_t>(k - 1)] > 0 ? out.s[0] / out.s[static_cast<size_t>(k - 1)]
                                                              : std::numeric_limits<double>::infinity();
    if (cond <= kProjectionMaxCond || !keep_q) {
      // X = V·Σ⁻¹, so each block of U is one GEMM with the block.
      DenseMatrix x = out.v;
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < n; ++i) x(i, j) /= out.s[static_cast<size_t>(j)];
      STRATA_RETURN_NOT_OK(projection_pass(source, plan, options, x, scratch, target));
      out.u_route = "projection";
    } else {
      STRATA_ASSIGN_OR_RETURN(const std::vector<DenseMatrix> c_blocks, tree.distribute(ur));
      STRATA_RETURN_NOT_OK(tsqr_apply_pass(source, plan, options, c_blocks, scratch, target));
      out.u_route = "qr";
    }
    out.passes += 1;
  }
  return out;
}

Result<SvdResult> svd_exact(const Context& ctx, const RowBlockSourcePtr& source, const SvdParams& options) {
  const PassEnv env(ctx, options.pass);
  if (!source) return Status::Invalid("svd: no source");
  STRATA_ASSIGN_OR_RETURN(int64_t k, validate_k(*source, options.k, /*allow_full=*/true));
  if (source->rows() >= source->cols()) {
    return svd_exact_tall(*source, k, options.compute_u, options.u_sink, env);
  }
  // Short and fat: Aᵀ = V·Σ·Uᵀ is tall; its "U" is our V (streamed), its V our U.
  STRATA_ASSIGN_OR_RETURN(RowBlockSourcePtr t, source->transposed());
  STRATA_ASSIGN_OR_RETURN(SvdResult r, svd_exact_tall(*t, k, options.compute_u, options.v_sink, env));
  std::swap(r.u, r.v);
  r.transposed = true;
  return r;
}

}  // namespace strata::linalg
