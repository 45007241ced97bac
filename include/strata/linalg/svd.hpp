#pragma once
/// \file
/// Singular value decomposition of a streamed matrix A (rows × cols): exact (TSQR) and
/// randomized (block Krylov or subspace iteration with one pass per iteration).
///
/// **Orientation.** Algorithms stream row blocks and keep column-side state in memory. Exact
/// SVD needs the smaller dimension to fit (cols² doubles): a short-and-fat matrix is handled
/// by transposition (its column panels are read as rows of Aᵀ). Randomized SVD keeps
/// cols × l state (l = k + oversampling, times the Krylov depth for block Krylov).
///
/// **Factors.** The factor along the streamed dimension (U for rows ≥ cols, V otherwise — and
/// always U for randomized SVD) goes to its sink if one is set, or is kept in memory. The
/// other factor is always in memory.
///
/// **Signs.** Deterministic: in every column of the in-memory factor (V for tall matrices and
/// for randomized SVD, U for short-and-fat exact SVD), the entry of largest magnitude is
/// positive; the streamed factor follows so that A = U·diag(s)·Vᵀ. This differs from Dask's
/// svd_flip (row sums of V), so compare with Dask up to sign.
///
/// **Accuracy report.** Every result carries, per component, `residual_norms` and an
/// `error_estimate` of the relative error of s_i² (see SvdResult).

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/linalg/dense.hpp"
#include "strata/linalg/gram_operator.hpp"
#include "strata/linalg/pass.hpp"
#include "strata/linalg/row_blocks.hpp"

namespace strata::linalg {

/// \brief Which algorithm computes the SVD.
enum class SvdMethod : uint8_t {
  Auto,        ///< Exact when min(rows, cols) ≤ SvdParams::exact_max_dim, else Randomized
  Exact,       ///< TSQR, two passes
  Randomized,  ///< randomized range finder, one pass per iteration (+ one for U)
};

/// \brief Iteration of the randomized method.
enum class RandomizedScheme : uint8_t {
  /// Block Krylov with full re-orthonormalization: each pass multiplies only the newest
  /// block; the Rayleigh–Ritz space is all blocks. Converges far faster on flat spectra
  /// (DESIGN, Performance model), at cols × l × (iterations + 1) memory.
  BlockKrylov,
  /// Subspace (power) iteration re-orthonormalized every pass; cols × l memory.
  SubspaceIteration,
};

/// \brief Parameters of svd(), svd_exact() and svd_randomized() (resources come from the Context).
struct SvdParams {
  /// Components to return; 0 = all min(rows, cols) (exact only). Randomized needs
  /// 1 ≤ k < min(rows, cols).
  int64_t k = 0;
  SvdMethod method = SvdMethod::Auto;
  /// Auto picks Exact when min(rows, cols) is at most this.
  int64_t exact_max_dim = 2048;

  // Randomized SVD.
  RandomizedScheme scheme = RandomizedScheme::BlockKrylov;
  /// Extra sketch columns beyond k (l = k + oversampling, capped by min(rows, cols)).
  int64_t oversampling = 10;
  /// Block Krylov: columns per pass when > 0 (overrides k + oversampling; may be below k, the
  /// Ritz space then spans several blocks). Narrow blocks reach a tight tolerance in fewer
  /// column-passes on flat spectra.
  int64_t block_columns = 0;
  /// Passes of the iteration; -1 = default (block Krylov: 8, subspace iteration: 7). Block
  /// Krylov runs at most as many passes as it takes its search space to contain the whole
  /// row space of A (cols columns for rows ≥ cols, else rows + one block): the result is then
  /// exact to rounding, further passes could add nothing, and SvdResult::stop says
  /// "complete". `passes` always reports the passes actually run.
  int iterations = -1;
  /// When > 0: stop as soon as every top-k error estimate of the iteration is at most this;
  /// `iterations` is then the most passes allowed. 0 = run all iterations. SvdResult::converged
  /// then reports whether the final error_estimate (the bound, with check_operator) meets it.
  double tolerance = 0.0;
  /// Seed of the Gaussian start block (Philox, keyed by the column index).
  uint64_t seed = 0;
  Precision precision = Precision::Auto;

  /// Randomized: when set, a float64 operator for the same A (or A's exact values): one more
  /// pass of it over the top k + 1 vectors of the finish gives a float64 Rayleigh–Ritz result
  /// (the reported s and V) and error_estimate / vector_error_bound that bound the error
  /// against float64 exact (see SvdResult::bounded). The iteration's own operator may round.
  GramOperatorPtr check_operator;

  /// Whether to compute the streamed factor (costs the second pass / the extra pass).
  bool compute_u = true;
  /// Sinks for rows of U (rows × k) and V (cols × k). Only the streamed factor is sent
  /// through its sink; when that sink is empty the factor is kept in memory instead.
  FactorSink u_sink;
  FactorSink v_sink;

  PassOptions pass;
};

/// \brief An SVD A ≈ U · diag(s) · Vᵀ with its accuracy report.
struct SvdResult {
  std::vector<double> s;   ///< k singular values, descending
  DenseMatrix u;           ///< rows × k (empty when streamed to a sink or not computed)
  DenseMatrix v;           ///< cols × k (empty when streamed to a sink)
  /// Per component: ‖AᵀA·v − θ·v‖ / θ for the Ritz pairs (θ, v) of the final Rayleigh–Ritz
  /// step, computed from products the passes already made (randomized); 0 for exact SVD.
  std::vector<double> residual_norms;
  /// Per component: the relative error of s_i². With SvdParams::check_operator (bounded =
  /// true): a bound, 0 ≤ σ_i² − s_i² ≤ error_estimate_i·s_i², from float64 residuals r_i of the
  /// reported vectors, min(r, r²/(θ_i − upper bound of σ²_{i+1}))/θ (Kato–Temple), under the
  /// assumption that the search missed no eigen-direction (ritz_bounds_internal.hpp). Without
  /// it: an estimate min(r, r²/gap)/θ from the iteration's own (possibly rounded) products and
  /// the nearest other Ritz value — not a bound (it misses the products' rounding). Exact: the
  /// backward-error bound 2·n·ε·s_1/s_i.
  std::vector<double> error_estimate;
  /// Per component, with check_operator: sin of the angle between v_i and the true singular
  /// vector is at most this (Davis–Kahan, r_i / gap; 1 where the gap is unknown). Empty otherwise.
  std::vector<double> vector_error_bound;
  /// Whether error_estimate (and vector_error_bound) are bounds (see error_estimate).
  bool bounded = false;
  SvdMethod method = SvdMethod::Exact;   ///< the method actually used
  int64_t passes = 0;                    ///< passes over the source
  int64_t krylov_width = 0;              ///< columns of the final search space (randomized)
  bool transposed = false;               ///< computed on Aᵀ (short-and-fat exact)
  /// Whether the result met its accuracy promise: false only when a tolerance was asked for
  /// (SvdParams::tolerance > 0) and the largest final error estimate is above it — the run
  /// used up its passes (or the arithmetic of its products cannot get below the tolerance).
  /// Callers must not present such a result as converged.
  bool converged = true;
  /// Largest entry of error_estimate (0 when empty).
  double max_error_estimate = 0.0;
  /// Why the randomized iteration stopped: "tolerance" (every estimate met it), "iterations"
  /// (the requested passes ran), "complete" (the search space spans A's row space: exact to
  /// rounding, more passes would add nothing); "exact" for the exact method.
  std::string stop = "exact";
  /// How the streamed factor was formed: "qr" (Q·U_R, stable), "projection" (A·V·Σ⁻¹),
  /// or "none".
  std::string u_route = "none";
};

/// \brief SVD by the method in `options` (Auto picks exact or randomized, see SvdMethod).
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto src, linalg::open_zarr_source("x.zarr"));
/// linalg::SvdParams opt;
/// opt.k = 10;
/// STRATA_ASSIGN_OR_RETURN(linalg::SvdResult r, linalg::svd(ctx, src, opt));
/// // r.s[0..10), r.u (rows × 10), r.v (cols × 10), r.error_estimate
/// \endcode
Result<SvdResult> svd(const Context& ctx, const RowBlockSourcePtr& source, const SvdParams& options);

/// \brief Exact SVD by TSQR (transposing short-and-fat input). Two passes when U is wanted.
Result<SvdResult> svd_exact(const Context& ctx, const RowBlockSourcePtr& source, const SvdParams& options);

/// \brief Randomized SVD: Gaussian start block on the column side, `iterations` passes of
/// Y = AᵀA·Q (one pass each, cols × l state, per-block products combined in a fixed order),
/// re-orthonormalized every pass; the last pass's products give a Nyström/Rayleigh–Ritz
/// finish without another pass; U = A·V·Σ⁻¹ costs one more pass if wanted.
Result<SvdResult> svd_randomized(const Context& ctx, const RowBlockSourcePtr& source, const SvdParams& options);
/// \brief The same on any GramOperator (`options.precision` and `options.pass` are the
/// operator's business).
Result<SvdResult> svd_randomized(const Context& ctx, const GramOperator& op, const SvdParams& options);

/// \brief "auto", "exact", "randomized" → SvdMethod.
Result<SvdMethod> parse_svd_method(const std::string& name);
/// \brief The name parse_svd_method reads back ("auto", "exact", "randomized").
const char* svd_method_name(SvdMethod method);
/// \brief Parse "krylov" (BlockKrylov) or "subspace" (SubspaceIteration).
Result<RandomizedScheme> parse_randomized_scheme(const std::string& name);
/// \brief "krylov" or "subspace": the inverse of parse_randomized_scheme.
const char* randomized_scheme_name(RandomizedScheme scheme);

}  // namespace strata::linalg
