// PCA's GRM route: the GRM tile pass (grm.cpp), the top-k eigenpairs of the dense GRM
// (linalg/sym_eigen.cpp), and the loadings as one more pass X·V.
#include "genomics/pca_grm_internal.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "strata/backend/backend.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/linalg/sym_eigen.hpp"

namespace strata::genomics {
namespace {
// Loadings pass blocks: about 512 KiB of float64 standardized rows each (they stay in L2
// between the decode and the product).
constexpr int64_t kLoadingsBlockBytes = int64_t{512} << 10;
// Per-worker block buffers of the loadings pass, reused from block to block (a fresh zeroed
// vector per block cost page faults and a memset as large as the decode).
thread_local std::vector<double> tl_rows, tl_products;
// With the float64 GRM: each pair's residual bound (relative to its eigenvalue) so the
// eigenvectors sit well inside plink2's printed digits (its dsyevr is exact to rounding).
constexpr double kFloat64EigenTolerance = 1e-12;
}  // namespace

// Exact means plink2's printed digits: float64 panels put 99.95 % of meanimpute eigenvector
// entries at plink2's digits (float32/integer products: 65–96 %) for ~1.5× the GRM pass's CPU.
// `--precision float32` keeps the faster products (meanimpute only: pairwise's counts need
// the float64 sums to print plink2's digits and cost little more).
bool grm_float64(const PcaParams& p) { return !p.meanimpute || p.precision != Precision::Float32; }

const char* pca_route_name(PcaRoute r) {
  switch (r) {
    case PcaRoute::Auto: return "auto";
    case PcaRoute::Grm: return "grm";
    case PcaRoute::Krylov: return "krylov-converged";
    case PcaRoute::Tsqr: return "tsqr";
  }
  return "?";
}

Result<PcaRoute> parse_pca_route(const std::string& name) {
  for (PcaRoute r : {PcaRoute::Auto, PcaRoute::Grm, PcaRoute::Krylov, PcaRoute::Tsqr})
    if (name == pca_route_name(r)) return r;
  return Status::Invalid("exact route must be auto, grm, krylov-converged or tsqr, got '", name, "'");
}

PcaRoute choose_exact_route(const Context& ctx, const PcaParams& p, int64_t n, int64_t m) {
  if (p.exact_route != PcaRoute::Auto) return p.exact_route;
  if (p.scale != Standardization::Binom2) return PcaRoute::Tsqr;  // the GRM pass standardizes as plink2
  const double dn = double(n), dm = double(m);
  // Seconds on this project's 2-core development VM: the tile pass ~1.2e-11 s per n²·m
  // (float32 GEMM), the dense eigensolve and copies ~2e-9 s per n²; TSQR ~3e-11 s per
  // m·n·min(m, n).
  // (float64 panels: ~1.5× the float32 tile pass.)
  const double grm = (grm_float64(p) ? 1.8e-11 : 1.2e-11) * dn * dn * dm + 2e-9 * dn * dn;
  const double tsqr = 3e-11 * dm * dn * double(std::min(m, n));
  // The GRM route holds the dense GRM and its tiles (1.5 · n² doubles). The converged Krylov
  // route is far cheaper on large cohorts (9 s vs 34 s for the GRM route at 5,000 × 50,000)
  // but at its default tolerance (1e-6) its eigenvectors were 2.2e-5 from plink2's there, and
  // 1e-7 made its dense basis work explode (235 passes, minutes): it runs only when the GRM
  // does not fit the budget.
  // The GRM route wins whenever it fits: at 10,000 × 100,000 (same loaded run) it took 212 s
  // vs plink2's 770 s with eigenvectors within 7e-8, where converged Krylov takes ~9 s but its
  // eigenvectors are only within 5e-6 there and 2.2e-5 at 5,000 × 50,000.
  const bool grm_fits = 12.0 * dn * dn <= 0.75 * double(ctx.memory_budget());
  const double krylov = 76 * 1.4e-10 * dn * dm + 1.3e-4 * dn;
  if (grm_fits && grm <= tsqr) return PcaRoute::Grm;
  return krylov <= tsqr ? PcaRoute::Krylov : PcaRoute::Tsqr;
}

GrmRouteWork grm_route_work(int64_t n, int64_t m, int64_t k, bool loadings) {
  // Seconds of each step over a counts-pass variant's ~9.2e-10·n s: the GRM pass as
  // grm_pass_work_per_variant, the eigensolve ~2.9e-7·n², the loadings ~7e-10·n·k per
  // variant (5,000 × 50,000: counts 0.065 s, GRM pass 9.1 s, eigensolve 2.3 s, loadings 0.55 s).
  const double dn = static_cast<double>(n), unit = 9.2e-10 * std::max(1.0, dn);
  GrmRouteWork w;
  w.per_variant = grm_pass_work_per_variant(n);
  w.eigensolve = std::llround(2.9e-7 * dn * dn / unit);
  w.loadings = loadings ? std::llround(7e-10 * dn * static_cast<double>(k) * static_cast<double>(m) / unit) : 0;
  return w;
}

Status pca_by_grm(const Context& ctx, const io::GenotypeViewPtr& view, const std::vector<VariantCounts>& counts,
                  const PcaParams& options, PcaResult& out) {
  const int64_t n = view->num_samples();
  const GrmRouteWork work = grm_route_work(n, static_cast<int64_t>(out.variants_used.size()), options.k,
                                           options.compute_loadings);
  std::optional<ProgressWeight> weigh_pass(std::in_place, ctx, work.per_variant);  // the GRM pass's variants
  PhaseTimer grm_pass(ctx, "grm pass");
  GrmParams gp;
  // Mean-imputed missing calls (plink2 --pca meanimpute), or plink2's default --pca: each pair
  // divided by the variants both samples observe.
  gp.meanimpute = options.meanimpute;
  gp.nonfounders = options.nonfounders;
  const bool f64 = grm_float64(options);
  gp.float64 = f64;
  gp.integer_products = !f64;  // complete variants: exact integer sums (see GrmParams)
  // Under MPI the ranks share the GRM's tiles; rank 0 receives them all and alone runs the
  // eigensolve and the loadings (on a single-process view of the context).
  const bool root = ctx.communicator().rank() == 0;
  Buffer gbuf;
  if (root) {
    STRATA_ASSIGN_OR_RETURN(gbuf, Buffer::allocate(n * n * 8));
    gbuf.prefault();
  }
  double* g = gbuf.as<double>();
  STRATA_ASSIGN_OR_RETURN(GrmInfo info, compute_grm(ctx, view, counts, gp, [&](const GrmTile& tl) -> Status {
                            // The lower triangle row by row; mirrored once at the end.
                            for (int64_t r = 0; r < tl.rows; ++r)
                              std::copy(tl.values + r * tl.cols, tl.values + (r + 1) * tl.cols,
                                        g + (tl.row0 + r) * n + tl.col0);
                            return Status::OK();
                          }));
  if (info.grm_variants != out.grm_variants) {
    return Status::Internal("pca: the GRM counted M = ", info.grm_variants, " variants, the PCA ", out.grm_variants);
  }
  grm_pass.stop();
  weigh_pass.reset();
  out.passes = 1 + info.bands;
  out.arithmetic = f64                         ? "float64 products, float64 sums"
                   : info.integer_variants > 0 ? "exact integer products (complete variants), float32 products, float64 sums"
                                               : "float32 products, float64 sums";
  if (!root) return Status::OK();
  // Upper = lower, in 64 × 64 blocks (a column-wise copy would miss the cache on every entry).
  constexpr int64_t kB = 64;
  for (int64_t i0 = 0; i0 < n; i0 += kB)
    for (int64_t j0 = 0; j0 <= i0; j0 += kB)
      for (int64_t i = i0; i < std::min(n, i0 + kB); ++i)
        for (int64_t j = j0; j < std::min(i, j0 + kB); ++j) g[j * n + i] = g[i * n + j];
  if (!options.meanimpute) {
    // Per-pair divisors: the trace (for the variance ratios) is the diagonal's sum, not Σx²/M.
    double trace = 0;
    for (int64_t i = 0; i < n; ++i) trace += g[i * n + i];
    out.grm_trace = trace;
  }
  const Context alone = ctx.local();
  ctx.progress_phase("eigensolve");
  PhaseTimer eigensolve(ctx, "eigensolve");
  linalg::TopEigenParams tp;
  tp.k = options.k;
  tp.seed = options.seed;
  if (f64) tp.tolerance = kFloat64EigenTolerance;
  STRATA_ASSIGN_OR_RETURN(linalg::TopEigenResult e, linalg::top_eigenpairs(alone, g, n, tp));
  gbuf = Buffer();
  eigensolve.stop();
  ctx.advance_progress(work.eigensolve);
  out.eigenvalues = e.values;
  out.eigenvectors = std::move(e.vectors);
  out.error_estimate = e.residuals;
  out.max_error_estimate = *std::max_element(e.residuals.begin(), e.residuals.end());
  out.stop = e.complete ? "complete" : "residual";
  if (!options.compute_loadings) return Status::OK();
  ctx.progress_phase("loadings");

  // Loadings u_j = X·v_j / s_j with s_j = √(λ_j·M): one pass over the standardized rows.
  PhaseTimer loadings(alone, "loadings");
  STRATA_ASSIGN_OR_RETURN(auto src, make_standardized_source(alone, view, counts, out.variants_used, options.scale, options.nonfounders));
  const int64_t m = src->rows(), k = options.k;
  const int64_t rows_per = std::max<int64_t>(1, kLoadingsBlockBytes / (8 * std::max<int64_t>(1, n)));
  const int64_t blocks = (m + rows_per - 1) / rows_per;
  out.loadings = linalg::DenseMatrix(m, k);
  std::vector<double> inv_s(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    const double s = std::sqrt(std::max(0.0, out.eigenvalues[static_cast<size_t>(j)]) * double(out.grm_variants));
    inv_s[static_cast<size_t>(j)] = s > 0 ? 1.0 / s : 0.0;
  }
  const backend::Backend& be = backend::of(alone);
  STRATA_RETURN_NOT_OK(alone.pool().parallel_for(blocks, [&](int64_t b) -> Status {
    const int64_t r0 = b * rows_per, rows = std::min(rows_per, m - r0);
    std::vector<double>& x = tl_rows;
    std::vector<double>& u = tl_products;
    if (x.size() < static_cast<size_t>(rows * n)) x.resize(static_cast<size_t>(rows * n));
    if (u.size() < static_cast<size_t>(rows * k)) u.resize(static_cast<size_t>(rows * k));
    STRATA_RETURN_NOT_OK(src->read_block(r0, rows, x.data()));
    STRATA_RETURN_NOT_OK(be.gemm(backend::Trans::No, backend::Trans::No, 1.0, backend::row_major(x.data(), rows, n),
                                 backend::col_major(out.eigenvectors.data.data(), n, k, n), 0.0,
                                 backend::col_major(u.data(), rows, k, rows)));
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < rows; ++i)
        out.loadings(r0 + i, j) = u[static_cast<size_t>(j * rows + i)] * inv_s[static_cast<size_t>(j)];
    ctx.advance_progress(work.loadings * (r0 + rows) / m - work.loadings * r0 / m);
    return Status::OK();
  }));
  loadings.stop();
  ++out.passes;
  return Status::OK();
}

}  // namespace strata::genomics
