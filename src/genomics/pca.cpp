// genomics::pca: variant statistics pass, filters, then the SVD of the standardized matrix.
#include "strata/genomics/pca.hpp"

#include <algorithm>
#include <chrono>

#include "genomics/dosage_standardize.hpp"
#include "genomics/pca_grm_internal.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/genotype_gram.hpp"
#include "strata/linalg/gram_operator.hpp"

namespace strata::genomics {
// A copy of `source`'s rows in memory, float32 (pca_source.cpp).
Result<linalg::RowBlockSourcePtr> resident_float_rows(const Context& ctx, const linalg::RowBlockSourcePtr& source);

namespace {
// Block Krylov defaults (see PcaParams::iterations): blocks of 8 columns (one SIMD width of
// the genotype kernels) and a search space of 18 columns per wanted component.
constexpr int64_t kPcaBlockColumns = 8;
constexpr int64_t kPcaColumnsPerComponent = 18;
// With a tolerance and no pass count, passes may go up to this multiple of the default, as
// long as the Krylov state (2 · samples · columns float64) stays within half the memory budget.
constexpr int64_t kPcaTolerancePassFactor = 8;
// The exact method's converged-Krylov route stops when every eigenvalue error estimate is
// below this: on 10,000 × 100,000 every eigenvalue then prints plink2's six digits and the
// eigenvectors are within 5e-6 of plink2's (NOTES.md).
constexpr double kExactKrylovTolerance = 1e-6;

// Block Krylov passes by default: kPcaColumnsPerComponent columns per wanted component.
int64_t default_krylov_passes(const PcaParams& p, int64_t block_columns) {
  const int64_t columns = kPcaColumnsPerComponent * (p.k + std::max<int64_t>(0, p.oversampling));
  return (columns + block_columns - 1) / block_columns;
}

using clock = std::chrono::steady_clock;

// Where the genotypes are: the codes here (a view), or elsewhere with a runner for the passes.
struct PcaSource {
  std::string description;
  int64_t num_variants = 0, num_samples = 0;
  std::function<Result<io::GenotypeViewPtr>()> view;
  std::function<Result<linalg::GramOperatorPtr>(const std::vector<VariantCounts>&, std::vector<int64_t>,
                                                const GenotypeGramOptions&)>
      gram_operator;
  // The float64 check pass's operator over the kept variants (PcaParams::check_errors).
  std::function<Result<linalg::GramOperatorPtr>(const std::vector<VariantCounts>&, const std::vector<int64_t>&)>
      check_operator;
  ResidentCodes* preloaded = nullptr;  // every variant's codes, read with the counts (or null)
  bool dosages = false;  // the genotypes are dosages: float products (the integer kernels sum codes)
  const DosageMoments* moments = nullptr;  // with dosages: their frequencies (filters, trace)
};

Status validate(const PcaParams& options) {
  if (options.k < 1) return Status::Invalid("pca: k must be at least 1, got ", options.k);
  if (options.precision == Precision::Float64 && options.method != linalg::SvdMethod::Exact) {
    return Status::Invalid("pca: precision float64 is the exact method's (--method exact, where it is the default); "
                           "the randomized genotype products take auto, int16, mixed or float32");
  }
  if (!options.meanimpute) {
    const bool grm = options.method != linalg::SvdMethod::Randomized &&
                     (options.exact_route == PcaRoute::Auto || options.exact_route == PcaRoute::Grm);
    if (!grm)
      return Status::Invalid("pca: missing calls pairwise (plink2's --pca without meanimpute) divide each GRM entry by "
                             "the variants both samples observe; only the exact GRM route computes that (drop "
                             "--method randomized), or use meanimpute");
  }
  return Status::OK();
}

// What pca_from_counts runs for m variants used of n samples.
struct RunPlan {
  linalg::SvdMethod method = linalg::SvdMethod::Auto;
  PcaRoute exact_route = PcaRoute::Auto;  // Auto unless the method is exact
  double tolerance = 0;
  linalg::SvdParams so;
  bool uses_operator = false;   // the routes of the genotype Gram operator (not GRM, not TSQR)
  int64_t resident_bytes = 0;   // what that operator may keep codes in
  // Progress units (variants per pass) the task expects for the route's passes, and those
  // this layer adds for them: the GRM route's pass adds its own bands when it starts.
  int64_t expected_units = 0;
  int64_t counted_units = 0;
};

RunPlan plan_run(const Context& ctx, const PcaParams& options, int64_t n, int64_t m) {
  RunPlan p;
  p.method = options.method;
  if (p.method == linalg::SvdMethod::Auto) {
    p.method = std::min(m, n) <= options.exact_max_dim ? linalg::SvdMethod::Exact : linalg::SvdMethod::Randomized;
  }
  // Pairwise missing calls (plink2's default --pca) exist only as the dense GRM.
  if (!options.meanimpute) p.method = linalg::SvdMethod::Exact;
  p.exact_route = !options.meanimpute                     ? PcaRoute::Grm
                  : p.method == linalg::SvdMethod::Exact ? choose_exact_route(ctx, options, n, m)
                                                          : PcaRoute::Auto;
  // The converged-Krylov exact route runs the randomized solver to a tolerance.
  p.tolerance = p.exact_route == PcaRoute::Krylov && options.tolerance <= 0 ? kExactKrylovTolerance : options.tolerance;
  linalg::SvdParams& so = p.so;
  so.k = options.k;
  so.scheme = options.scheme;
  so.iterations = options.iterations;
  if (options.scheme == linalg::RandomizedScheme::BlockKrylov) {
    so.block_columns = options.block_columns > 0 ? options.block_columns : kPcaBlockColumns;
    if (so.iterations < 0) {
      int64_t passes = default_krylov_passes(options, so.block_columns);
      if (p.tolerance > 0) {
        const int64_t by_memory = ctx.memory_budget() / 2 / std::max<int64_t>(1, 16 * n * so.block_columns);
        passes = std::max(passes, std::min(kPcaTolerancePassFactor * passes, by_memory));
      }
      so.iterations = static_cast<int>(std::min<int64_t>(passes, 1 << 20));
    }
  }
  so.oversampling = options.oversampling;
  so.seed = options.seed;
  so.tolerance = p.tolerance;
  so.compute_u = options.compute_loadings;
  so.pass = options.pass;
  p.uses_operator = p.exact_route != PcaRoute::Grm && p.exact_route != PcaRoute::Tsqr;
  // The codes stay in memory when they fit beside the Krylov state (K and AᵀA·K, float64;
  // one block for subspace iteration).
  const bool krylov = options.scheme == linalg::RandomizedScheme::BlockKrylov;
  const int64_t block = krylov ? so.block_columns : options.k + options.oversampling;
  const int64_t width = (block + 7) / 8 * 8 * (krylov ? std::max(1, so.iterations) : 1);
  const int64_t state = 2 * n * width * 8 + (int64_t{64} << 20);
  p.resident_bytes = std::max<int64_t>(0, ctx.memory_budget() - state);
  p.expected_units = p.exact_route == PcaRoute::Tsqr ? 2 * m  // TSQR's R pass and the pass applying Q
                                                       : m * (std::max(1, so.iterations) + (so.compute_u ? 1 : 0) +
                                                              (options.check_errors ? 1 : 0));
  p.counted_units = p.expected_units;
  if (p.exact_route == PcaRoute::Grm) {
    // Weighted by cost (grm_route_work): one band of the GRM pass at least, which adds its
    // own bands when it starts, then the eigensolve and the loadings pca_by_grm reports.
    const GrmRouteWork w = grm_route_work(n, m, options.k, options.compute_loadings);
    p.counted_units = w.eigensolve + w.loadings;
    p.expected_units = w.per_variant * m + p.counted_units;
  }
  return p;
}

// `expected`: the plan for every variant of the input, which the task's total was made from.
Result<PcaResult> pca_from_counts(const Context& ctx, const PcaSource& src, const std::vector<VariantCounts>& counts,
                                  const PcaParams& options, const RunPlan& expected, ProgressScope& progress) {
  PcaResult out;
  // Zero-variance variants carry no information and would only change M.
  genomics::VariantFilter filter;
  filter.drop_monomorphic = true;
  out.filter = src.moments ? dosage_variant_filter(*src.moments) : genomics::apply_variant_filter(counts, filter);
  if (out.filter.kept.empty()) {
    return Status::InvalidData(src.description, ": every variant was filtered out (", out.filter.dropped_missing,
                           " by missingness, ", out.filter.dropped_monomorphic, " monomorphic, ",
                           out.filter.dropped_maf, " by MAF)");
  }
  out.variants_used = out.filter.kept;
  const auto m = static_cast<int64_t>(out.variants_used.size());
  // plink2 --pca divides by every variant that passed its filters, monomorphic ones included
  // (they add nothing to XᵀX); --maf > 0 removes them in the selection, before pca().
  out.grm_variants = m + out.filter.dropped_monomorphic;
  const auto m_scale = static_cast<double>(out.grm_variants);
  // Each code contributes lut[code]² to the diagonal of XᵀX; summing per variant is exact.
  double sum_sq = src.moments ? dosage_trace_sum(*src.moments, out.variants_used, options.scale) : 0.0;
  for (int64_t v : out.variants_used) {
    if (src.moments) break;  // dosages: summed from their moments above
    const genomics::VariantCounts& c = counts[static_cast<size_t>(v)];
    double lut[4];
    genomics::make_standardize_lut(c, options.scale, lut);
    sum_sq += double(c.hom_ref) * lut[0] * lut[0] + double(c.het) * lut[1] * lut[1] +
              double(c.hom_alt) * lut[2] * lut[2] + double(c.missing) * lut[3] * lut[3];
  }
  out.grm_trace = sum_sq / m_scale;
  if (!(sum_sq > 0.0)) return Status::InvalidData(src.description, ": the standardized genotypes are all zero (constant data)");
  const int64_t n = src.num_samples;
  // The route depends on the variants used: planned anew only where the filters dropped some.
  const RunPlan plan = m == src.num_variants ? expected : plan_run(ctx, options, n, m);
  progress.add_total(plan.counted_units - expected.expected_units);  // 0 unless filtered or GRM
  const PcaRoute exact_route = plan.exact_route;
  const double tolerance = plan.tolerance;
  const linalg::SvdParams& so = plan.so;
  if (options.k >= std::min(m, n)) {
    return Status::InvalidData("pca: k = ", options.k, " must be less than min(variants used, samples) = ",
                           std::min(m, n));
  }
  const auto t1 = clock::now();
  linalg::SvdResult r;
  // Under MPI every route shares its passes across ranks: the GRM route its tiles
  // (pca_by_grm), TSQR its row blocks (linalg::svd_exact), the randomized routes their Gram
  // groups (the genotype Gram operator).
  if (!plan.uses_operator && src.preloaded) *src.preloaded = ResidentCodes{};  // those routes read the view
  if (exact_route == PcaRoute::Grm) {
    if (options.scale != genomics::Standardization::Binom2) {
      return Status::Invalid("pca: the GRM route standardizes as plink2 (--scale binom2); use the TSQR route for --scale ",
                             "binom, center or none");
    }
    out.method = linalg::SvdMethod::Exact;
    out.route = "grm";
    STRATA_ASSIGN_OR_RETURN(io::GenotypeViewPtr view, src.view());
    STRATA_RETURN_NOT_OK(pca_by_grm(ctx, view, counts, options, out));
    ctx.report().add_phase("svd", seconds_since(t1));
    ++out.passes;  // the counts pass
    out.converged = true;
    return out;
  }
  if (exact_route == PcaRoute::Tsqr) {
    out.route = "tsqr";
    STRATA_ASSIGN_OR_RETURN(io::GenotypeViewPtr view, src.view());
    STRATA_ASSIGN_OR_RETURN(auto rows,
                            make_standardized_source(ctx, view, counts, out.variants_used, options.scale, options.nonfounders));
    STRATA_ASSIGN_OR_RETURN(r, linalg::svd_exact(ctx, rows, so));
    out.arithmetic = "float64";
  } else {
    out.route = exact_route == PcaRoute::Krylov ? pca_route_name(PcaRoute::Krylov)
                                                : linalg::randomized_scheme_name(options.scheme);
    GenotypeGramOptions go;
    go.resident_bytes = plan.resident_bytes;
    go.preloaded = src.preloaded;
    go.arithmetic = src.dosages                          ? Precision::Float32
                    : options.precision != Precision::Auto ? options.precision
                    : !int16_kernels_vectorized(ctx)    ? Precision::Float32
                    : tolerance > 0                     ? Precision::Mixed
                                                        : Precision::Int16;
    out.arithmetic = precision_name(go.arithmetic);
    const auto t_load = clock::now();
    STRATA_ASSIGN_OR_RETURN(auto op, src.gram_operator(counts, out.variants_used, go));
    ctx.report().add_phase("load codes", seconds_since(t_load));
    out.resident = genotype_gram_is_resident(*op);
    linalg::SvdParams checked = so;
    if (options.check_errors) {
      // The float64 check pass: exact standardized values (float64 tables), so the bounds
      // cover the rounding of the int16 / float32 products too.
      STRATA_ASSIGN_OR_RETURN(checked.check_operator, src.check_operator(counts, out.variants_used));
    }
    STRATA_ASSIGN_OR_RETURN(r, linalg::svd_randomized(ctx, *op, checked));
  }
  ctx.report().add_phase("svd", seconds_since(t1));
  out.method = exact_route == PcaRoute::Krylov ? linalg::SvdMethod::Exact : r.method;
  out.passes = r.passes + 1;
  for (double s : r.s) out.eigenvalues.push_back(s * s / m_scale);
  out.converged = r.converged;
  out.max_error_estimate = r.max_error_estimate;
  out.stop = r.stop;
  out.eigenvectors = std::move(r.v);
  out.loadings = std::move(r.u);
  out.error_estimate = std::move(r.error_estimate);
  out.eigenvector_error_bound = std::move(r.vector_error_bound);
  out.errors_bounded = r.bounded;
  return out;
}

// The fraction of variance of each component, for every route.
Result<PcaResult> with_variance_ratio(Result<PcaResult> r) {
  if (!r.ok()) return r;
  PcaResult& out = *r;
  out.variance_ratio.clear();
  for (double ev : out.eigenvalues) out.variance_ratio.push_back(out.grm_trace > 0 ? ev / out.grm_trace : 0.0);
  return r;
}

}  // namespace

Result<PcaResult> pca(const Context& ctx, const io::GenotypeViewPtr& view, const PcaParams& options) {
  if (!view) return Status::Invalid("pca: no genotype view");
  STRATA_RETURN_NOT_OK(validate(options));
  PcaSource src;
  src.description = view->describe();
  src.num_variants = view->num_variants();
  src.num_samples = view->num_samples();
  src.view = [&view]() -> Result<io::GenotypeViewPtr> { return view; };
  src.dosages = view->has_dosages();
  DosageMoments moments;
  src.gram_operator = [&](const std::vector<VariantCounts>& counts, std::vector<int64_t> kept,
                          const GenotypeGramOptions& go) -> Result<linalg::GramOperatorPtr> {
    if (src.dosages) {
      // Dosages: the standardized rows (decoded per pass) through the streaming operator.
      // Held as float32 when they fit the operator's memory (decoding dosages costs more than
      // a pass's products).
      const int64_t bytes = static_cast<int64_t>(kept.size()) * view->num_samples() * 4;
      STRATA_ASSIGN_OR_RETURN(auto rows, make_standardized_source(ctx, view, counts, std::move(kept), options.scale, options.nonfounders));
      if (bytes <= go.resident_bytes) {
        STRATA_ASSIGN_OR_RETURN(rows, resident_float_rows(ctx, rows));
      }
      return linalg::make_gram_operator(ctx, std::move(rows), Precision::Float32);
    }
    return make_genotype_gram_operator(ctx, view, counts, std::move(kept), options.scale, go);
  };
  src.check_operator = [&](const std::vector<VariantCounts>& counts,
                           const std::vector<int64_t>& kept) -> Result<linalg::GramOperatorPtr> {
    STRATA_ASSIGN_OR_RETURN(auto rows, make_standardized_source(ctx, view, counts, kept, options.scale, options.nonfounders));
    return linalg::make_gram_operator(ctx, std::move(rows), Precision::Float64, options.pass);
  };
  // The variants used are known after the counts pass: until then the plan for all of them
  // stands in, for the task's total and for whether that pass keeps the codes.
  const RunPlan expected = plan_run(ctx, options, src.num_samples, src.num_variants);
  ProgressScope progress(ctx, "pca", src.num_variants + expected.expected_units, "variants");
  const auto t0 = clock::now();
  // When the run will keep every variant's codes in memory anyway, one read gives both the
  // counts and the codes (filters then only move the kept rows down); otherwise the counts
  // pass reads the input alone.
  ResidentCodes preloaded;
  std::vector<VariantCounts> counts;
  if (expected.uses_operator && ctx.communicator().size() == 1 && !src.dosages &&
      src.num_variants * io::packed_row_bytes(src.num_samples) <= expected.resident_bytes) {
    STRATA_ASSIGN_OR_RETURN(preloaded, load_codes_with_counts(ctx, *view));
    counts = std::move(preloaded.counts);
    src.preloaded = &preloaded;
    ctx.report().add_phase("variant counts + load codes", seconds_since(t0));
  } else {
    STRATA_ASSIGN_OR_RETURN(counts, genomics::compute_variant_counts(ctx, *view));
    if (src.dosages) {
      STRATA_ASSIGN_OR_RETURN(moments, dosage_moments(ctx, *view, options.nonfounders));
      src.moments = &moments;
    }
    ctx.report().add_phase("variant counts", seconds_since(t0));
  }
  // The standardization's frequencies: the founders' in a pedigree, as plink2 (dosage
  // sources have theirs in `moments`).
  if (!src.dosages) STRATA_RETURN_NOT_OK(use_founder_frequencies(ctx, view, options.nonfounders, counts));
  STRATA_ASSIGN_OR_RETURN(PcaResult out, with_variance_ratio(pca_from_counts(ctx, src, counts, options, expected, progress)));
  if (!src.dosages) out.counts = std::move(counts);
  return out;
}

Result<PcaResult> pca_remote(const Context& ctx, const RemoteGenotypes& g, const PcaParams& options) {
  STRATA_RETURN_NOT_OK(validate(options));
  if (!g.runner || !g.fetch) return Status::Invalid("pca: remote genotypes without a runner");
  PcaSource src;
  src.description = g.description;
  src.num_variants = static_cast<int64_t>(g.counts.size());
  src.num_samples = g.num_samples;
  src.view = g.fetch;
  src.gram_operator = [&](const std::vector<VariantCounts>& counts, std::vector<int64_t> kept,
                          const GenotypeGramOptions& go) {
    return make_remote_genotype_gram_operator(ctx, g.num_samples, counts, std::move(kept), options.scale, go, g.runner);
  };
  // The float64 check pass runs where the codes are too, in the local check operator's blocks.
  src.check_operator = [&](const std::vector<VariantCounts>&, const std::vector<int64_t>& kept) {
    return make_remote_check_operator(ctx, g.num_samples, static_cast<int64_t>(kept.size()), options.pass, g.runner);
  };
  const RunPlan expected = plan_run(ctx, options, src.num_samples, src.num_variants);
  ProgressScope progress(ctx, "pca", src.num_variants + expected.expected_units, "variants");
  ctx.advance_progress(src.num_variants);  // the counts pass ran where the codes are
  return with_variance_ratio(pca_from_counts(ctx, src, g.counts, options, expected, progress));
}

}  // namespace strata::genomics
