#pragma once
/// \file
/// `strata pca` as a library call: open a genotype source, run pca(), and write the PLINK 2
/// style text outputs, a Zarr group with everything, and an SVG plot.
///
/// Files written for an output prefix P, as one OutputSet (strata/core/output.hpp): all are
/// checked before the passes, written privately, and moved into place together once complete,
/// so a failed run leaves nothing behind and a killed one is finished or removed by the next
/// run. Existing files are replaced; an existing `P.zarr` only with `overwrite`; the input is
/// never replaced:
///
/// | file              | contents |
/// |-------------------|----------|
/// | `P.eigenvec`      | tab-separated, header `#FID IID PC1 … PCk`; unit-norm sample eigenvectors (plink2 `--pca`). FID is the `.fam` FID, or the IID when the source has none |
/// | `P.eigenval`      | k eigenvalues, one per line, of the GRM XᵀX / M (M = variants passing the filters, monomorphic ones included, as plink2 divides) |
/// | `P.eigenvec.var`  | tab-separated, header `#CHROM ID REF ALT PC1 … PCk`; one row per variant used with its **unit-norm variant loading** u_i (left singular vector of the standardized matrix X, variants × samples, with X = Σ s_i u_i v_iᵀ and s_i² = M·λ_i). These are not plink2's allele weights: plink2's `biallelic-var-wts` scale differently. Sign: ALT-allele direction |
/// | `P.zarr`          | Zarr v2 group: `eigenvalues` (k), `eigenvectors` (samples × k), `loadings` (variants used × k), `variance_ratio` (k), `sample_id`, `variant_id`, `variant_index` (index in the input); attributes with the run settings |
/// | `P.svg`           | PC1 vs PC2 (and pairs up to PC4) coloured by population, % variance on the axes, scree panel (with k = 1, a note that there is nothing to plot) |
/// | `P.png`           | the same plot as PNG (when libcairo is present, or asked for by `plot_format`) |
///
/// Missing genotypes are mean-imputed (they contribute 0 after centring).

#include <string>
#include <utility>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::genomics {

/// \brief Options of run_pca_to_files().
struct PcaRunOptions {
  PcaParams pca;
  /// Samples and variants to use (plink2's --keep, --maf, …), applied before pca().
  SelectionOptions selection;
  /// Optional plot labels: two columns IID POP, or a sample sheet whose header names the IID
  /// (and FID) and population columns; samples not listed are "unknown" (pca_population_labels).
  std::string pop_file;
  std::string pop_column;   ///< `--pop-col`: the population column's header name ("" = POP/population/…)
  bool write_plot = true;
  std::string plot_format;  ///< "svg", "png", "svg,png" ("" = SVG, and PNG where libcairo is found)
  /// Replace an existing `PREFIX.zarr` (a Zarr store). Files are replaced without it.
  bool overwrite = false;
};

/// \brief What run_pca_to_files() did.
struct PcaRunSummary {
  PcaResult result;
  int64_t num_samples = 0;
  int64_t num_variants_input = 0;                      ///< variants after the selection
  SelectionReport selection;                            ///< what the selection removed
  std::vector<int64_t> selected_variants;               ///< input index of each selected variant (empty: all)
  std::vector<std::string> files;                       ///< outputs written
  std::string pop_labels;                               ///< what --pop-file matched ("" without one)
  Summary report;                                       ///< the report fields (the CLI's --report)
};

/// \brief The report fields of a PCA result (method, route, passes, eigenvalues, ...): the
/// CLI's `--report` and Python's result carry the same.
Summary pca_result_summary(const PcaResult& result, const PcaParams& params);

/// \brief Run PCA on `input` (anything io::open_genotypes() reads) and write the outputs
/// for `prefix`. Errors name the input or output and the problem; no output is left on error.
/// \code
/// genomics::PcaRunOptions o;
/// o.pca.k = 10;
/// STRATA_ASSIGN_OR_RETURN(auto summary, genomics::run_pca_to_files(ctx, "cohort.bed", "out/pca", o));
/// \endcode
/// Phases (open, the pca() phases, write) go to ctx.report().
Result<PcaRunSummary> run_pca_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                       const PcaRunOptions& options);

/// \brief Population label per sample: from `pop_file` if given, else the source's population
/// column, else the `.fam` FID; "" where unknown. A file with a header is read by column name
/// (IID or #IID, with FID when present; the population under `pop_column`, else POP /
/// population / super_pop / …); without one it must have two columns. What matched is logged;
/// InvalidData naming the file and columns when under half the samples (or fewer than 2) get a
/// label, or when there are more populations than half the labelled samples.
/// `matched` (when given) receives that account: the columns used, samples labelled, populations.
Result<std::vector<std::string>> pca_population_labels(const io::SampleInfo& samples, const std::string& pop_file,
                                                       const std::string& pop_column = "",
                                                       std::string* matched = nullptr);

}  // namespace strata::genomics
