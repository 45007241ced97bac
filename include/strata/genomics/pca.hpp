#pragma once
/// \file
/// Genotype PCA: the SVD of the standardized (variants × samples) genotype matrix, streamed
/// from any genotype view and never materialized.
///
/// Conventions (PLINK 2 compatible): genotypes are standardized per variant (default
/// (g − 2f)/√(2f(1 − f))), missing calls are mean-imputed (0 after centring), monomorphic
/// variants contribute nothing (they are skipped in the products), and eigenvalues are on the
/// GRM's scale as plink2 `--pca` reports them: λ_i = s_i² / M with M the number of variants
/// that pass the `--maf`/`--geno` filters, monomorphic ones included (plink2 counts them;
/// `--maf` > 0 removes them, and then they are not counted). PcaResult::grm_variants is M. Sample eigenvectors have unit norm; their sign follows the
/// linalg convention (largest-magnitude entry positive).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/genomics/genotype_gram.hpp"
#include "strata/io/genotype.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::genomics {

/// \brief How the exact method computes: the GRM tile pass + a Krylov eigensolve of the dense
/// GRM (float32 products summed in float64; n² memory), block Krylov on the genotype codes run
/// to a tolerance (1e-6 unless PcaParams::tolerance says otherwise; mixed int16/float32
/// products), or TSQR of the float64 standardized matrix. Auto = the cheapest by a cost model
/// (src/genomics/pca_grm.cpp: measured seconds per multiply-add of each route).
enum class PcaRoute : uint8_t { Auto, Grm, Krylov, Tsqr };
/// \brief "auto", "grm", "krylov-converged" or "tsqr".
const char* pca_route_name(PcaRoute route);
/// \brief The inverse of pca_route_name.
Result<PcaRoute> parse_pca_route(const std::string& name);

/// \brief Parameters of pca(), and the one place their defaults live: `strata pca` binds its
/// options to these fields and Python's strata.pca binds the struct (strata._core.PcaParams).
/// Resources come from the Context: its memory budget decides whether randomized PCA keeps the
/// packed codes of the used variants in memory (M·⌈N/4⌉ bytes, when they fit beside its
/// state) or re-reads them every pass, and so the route and the tolerance pass cap. Variant
/// filters (`--maf`, `--geno`, …) are a selection applied before pca()
/// (genomics::SelectionOptions, genomics::select_genotypes); pca() itself only leaves out
/// monomorphic variants, which still count in M as plink2 counts them.
struct PcaParams {
  int64_t k = 10;
  linalg::SvdMethod method = linalg::SvdMethod::Auto;
  /// Auto picks exact when min(variants used, samples) is at most this (exact costs
  /// min² memory and M·N·min flops), randomized otherwise.
  int64_t exact_max_dim = 5000;
  genomics::Standardization scale = genomics::Standardization::Binom2;
  linalg::RandomizedScheme scheme = linalg::RandomizedScheme::BlockKrylov;
  /// Randomized passes; -1 = ⌈18·(k + oversampling) / block⌉ for block Krylov (36 for k = 10
  /// with blocks of 8), and with a tolerance up to 8× that (bounded by memory). Genotype
  /// spectra have a flat bulk right after the population PCs (relative gaps ~1e-4 to 1e-3), so
  /// the search space must be wide; narrow blocks get more out of each column: on a simulated
  /// 10,000 × 100,000 cohort, 36 passes of 8 columns put all top-10 eigenvalues within 3–6e-4
  /// of plink2's exact values (24 passes of 16: 4–6e-4, at 4/3 the cost). Small cohorts stop
  /// once the search space spans every sample (PcaResult::stop = "complete": exact to the
  /// products' rounding); PcaResult::passes counts the passes actually run.
  int iterations = -1;
  /// Extra components the default search space is sized for (see `iterations`); also the
  /// block's extra columns for subspace iteration.
  int64_t oversampling = 6;
  /// Randomized block Krylov: columns per pass; 0 = 8 (one SIMD width of the genotype kernels;
  /// blocks may be narrower than k, the Ritz space spans all blocks).
  int64_t block_columns = 0;
  uint64_t seed = 0;
  /// Randomized: stop early once every top-k eigenvalue error estimate is at most this (0 =
  /// run all `iterations`); PcaResult::converged then says whether the final bound (the check
  /// pass's) is. It governs eigenvalues only: eigenvectors have their own bound
  /// (PcaResult::eigenvector_error_bound), far looser on the flat bulk of genotype spectra.
  double tolerance = 0.0;
  /// Randomized: arithmetic of the genotype products (Int16, Mixed or Float32); Auto = int16
  /// (twice the float32 rate, products within ~1e-5, far below the error of a fixed number of
  /// passes), or with a tolerance mixed (float32 accuracy, so the error estimates can fall
  /// below the int16 floor); float32 where the CPU lacks the vectorized int16 kernels.
  /// Float64 is refused (the exact method computes in float64).
  Precision precision = Precision::Auto;
  /// Missing calls. True (the default): at the variant mean (standardized 0), as plink2 --pca
  /// meanimpute: XᵀX/M is then one linear operator, which every route (randomized included)
  /// multiplies. False: plink2's default --pca (no meanimpute): each GRM entry is divided by the
  /// variants both samples observe instead of M; that matrix is no product of one X, so only
  /// the exact GRM route computes it (n² memory). The same eigenpairs without missing calls.
  bool meanimpute = true;
  /// Allele frequencies (the standardization, PREFIX.afreq) from every sample, plink2's
  /// --nonfounders; false: from the founders when some sample has a parent (plink2's default).
  bool nonfounders = false;
  bool compute_loadings = true;  ///< variant loadings cost one more pass
  /// Randomized and converged-Krylov routes: one more pass in float64 over the top k + 1
  /// vectors (a Rayleigh–Ritz finish on the exact standardized values) makes the reported
  /// eigenpairs float64-accurate on their subspace and error_estimate a bound against float64
  /// exact, the int16 / float32 rounding of the products included (PcaResult::errors_bounded).
  /// Off: the solver's own estimates, which miss that rounding (not bounds).
  bool check_errors = true;
  /// Exact method: which route (Auto = the cheaper; see PcaRoute).
  PcaRoute exact_route = PcaRoute::Auto;
  /// Rows per block of the exact route's passes (0 = from the Context's memory budget).
  PassOptions pass;
};

/// \brief Result of pca().
struct PcaResult {
  std::vector<double> eigenvalues;      ///< k, GRM scale (s² / M), descending
  linalg::DenseMatrix eigenvectors;     ///< samples × k, unit-norm columns
  linalg::DenseMatrix loadings;         ///< variants used × k (unit-norm U), empty if not computed
  std::vector<int64_t> variants_used;   ///< indices into the view, ascending (M of them)
  genomics::FilterResult filter;              ///< what the filters dropped
  /// Relative error of each eigenvalue: with errors_bounded, 0 ≤ (λ_exact − λ)/λ ≤ this,
  /// λ_exact the float64 eigenvalue (assuming the search missed no eigen-direction:
  /// linalg::SvdResult::error_estimate); otherwise an estimate.
  std::vector<double> error_estimate;
  /// Per component, with the check pass: sin of the angle to the float64 exact eigenvector is
  /// at most this (‖r‖/gap; 1 where the gap is unknown). After sign alignment every entry is
  /// within √2 times this of the exact one. Empty for routes without the check.
  std::vector<double> eigenvector_error_bound;
  /// Whether error_estimate holds bounds (the check pass ran).
  bool errors_bounded = false;
  /// M of the eigenvalue scale λ = s²/M: variants passing the filters, monomorphic ones
  /// included unless `--maf` > 0 removed them (plink2's count). ≥ variants_used.size().
  int64_t grm_variants = 0;
  /// False only when a tolerance was asked for and the largest final error estimate is above
  /// it (see linalg::SvdResult::converged): the eigenvalues are then not as accurate as asked.
  bool converged = true;
  double max_error_estimate = 0.0;      ///< largest of error_estimate
  /// Why the randomized iteration stopped: "tolerance", "iterations", "complete" (the search
  /// space spans all samples: exact to the products' rounding) or "exact" (exact method).
  std::string stop = "exact";
  linalg::SvdMethod method = linalg::SvdMethod::Exact;
  /// What ran: "grm" or "tsqr" (exact), "krylov" or "subspace" (randomized).
  std::string route;
  int64_t passes = 0;                   ///< passes over the genotypes (the stats pass included)
  /// Trace of the GRM on the same 1/M scale (M = grm_variants) as the eigenvalues: Σ over used variants and
  /// samples of the squared standardized value (mean-imputed), divided by M. Exact, from the
  /// per-variant counts; eigenvalue / grm_trace is the fraction of variance explained.
  double grm_trace = 0.0;
  /// eigenvalue / grm_trace of each component (0 when the trace is 0): the fraction of
  /// variance explained, as `strata pca` prints and stores it.
  std::vector<double> variance_ratio;
  /// Hard-call sources: every variant's genotype counts, their frequencies those the
  /// standardization used (the founders' in a pedigree: use_founder_frequencies()), so an
  /// `.afreq` needs no other pass. Empty for dosage sources and pca_remote().
  std::vector<VariantCounts> counts;
  bool resident = false;                ///< codes held in memory across passes (randomized)
  std::string arithmetic;               ///< "int16", "mixed" or "float32" (randomized), "float64" (exact)
};

/// \brief PCA of a genotype view.
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto view, io::open_genotypes("cohort.bed"));
/// genomics::PcaParams opt;
/// opt.k = 10;
/// STRATA_ASSIGN_OR_RETURN(auto pcs, genomics::pca(ctx, view, opt));
/// \endcode
/// Phases ("variant counts", "load codes", "svd", "products") go to ctx.report(); progress is
/// one task over all passes, in variants. When the codes of every variant fit the memory
/// budget beside the solver's state (one process), the counts and the codes come from one read
/// of `view` (phase "variant counts + load codes").
Result<PcaResult> pca(const Context& ctx, const io::GenotypeViewPtr& view, const PcaParams& options);

/// \brief Genotypes whose codes are held elsewhere (Dask workers), for pca_remote().
struct RemoteGenotypes {
  int64_t num_samples = 0;
  std::string description;                       ///< for messages
  std::vector<VariantCounts> counts;             ///< of every variant, computed where the codes are
  std::shared_ptr<GenotypeGroupRunner> runner;   ///< the randomized routes' passes
  /// The codes on this machine, for the routes that need them here (exact: GRM, TSQR).
  std::function<Result<io::GenotypeViewPtr>()> fetch;
};

/// \brief pca() of genotypes held elsewhere: the randomized and converged-Krylov routes run
/// every genotype pass through `g.runner` (group partials added here in order, the float64
/// check pass's block partials in the local check operator's tree: the same bits as pca() of
/// the same genotypes); the GRM and TSQR routes fetch the codes first.
Result<PcaResult> pca_remote(const Context& ctx, const RemoteGenotypes& g, const PcaParams& options);

/// \brief The standardized genotype matrix (variants `kept` of `view` × all samples) as a
/// float32 RowBlockSource: blocks are decoded from 2-bit codes through one 4-entry table per
/// variant (built from `counts`, one entry per variant of `view`, their frequencies as
/// use_founder_frequencies() left them) on the backend of `ctx`. Dosage sources take their
/// frequencies from a dosage pass (over every sample when `nonfounders`, else the founders).
Result<linalg::RowBlockSourcePtr> make_standardized_source(const Context& ctx, const io::GenotypeViewPtr& view,
                                                           const std::vector<genomics::VariantCounts>& counts,
                                                           std::vector<int64_t> kept, genomics::Standardization scale,
                                                           bool nonfounders);

}  // namespace strata::genomics
