#pragma once
/// \file
/// LD pruning as plink2 2.00a3 prunes (`plink2 --indep-pairwise W [kb] [S] R2`): the same
/// `PREFIX.prune.in` / `PREFIX.prune.out`, byte for byte.
///
/// The algorithm (plink2's IndepPairwise, "PLINK 1.x order"): per chromosome (chromosome 0 is
/// left out of both lists; a chromosome with one variant is kept whole), windows of W variants
/// stepping S variants (or, with `kb`, windows of W×1000 bp stepping one variant, a chromosome
/// split where neighbours are more than the window apart). A variant whose founders' calls
/// have no variance is removed as it enters. At each window's end, each kept variant is
/// compared with the later kept ones it has not yet been compared with, in order; r² over the
/// founders called at both variants (calls coded +1/0/−1) above R2 removes one of the pair:
/// the first when its major-allele frequency is higher, else the second; this repeats until a
/// sweep removes nothing. On X males count once (hets missing) and everyone else twice; on Y
/// and MT hets are missing, on Y only males count. Every r² is an exact integer formula over
/// popcounts, so the lists are the same for any thread count and CPU.
///
/// \code
/// genomics::PruneOptions o;
/// STRATA_ASSIGN_OR_RETURN(o.window, genomics::parse_indep_pairwise({"50", "5", "0.2"}));
/// STRATA_ASSIGN_OR_RETURN(auto s, genomics::run_prune_to_files(ctx, "cohort", "out/cohort", o));
/// \endcode

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

/// \brief The window of `--indep-pairwise`.
struct PruneWindow {
  int64_t size = 50;       ///< variants, or base pairs when `in_bp`
  bool in_bp = false;      ///< the window was given in kb
  int64_t step = 5;        ///< variants (1 when in_bp)
  double r2 = 0.2;         ///< r² above which one of a pair is removed, in (0, 1]
};

/// \brief Parse plink2's `--indep-pairwise` arguments: `W [kb] [S] R2`, W possibly spelled
/// `Wkb`. Invalid (naming the argument) for a window below 1 variant (2 bp), a step below 1,
/// above the window, or other than 1 with kb, and an r² outside (0, 1].
Result<PruneWindow> parse_indep_pairwise(const std::vector<std::string>& args);

/// \brief Check a window set field by field (what parse_indep_pairwise checks).
Status validate_prune_window(const PruneWindow& window);

/// \brief Options of run_prune_to_files.
struct PruneOptions {
  PruneWindow window;
  SelectionOptions selection;      ///< applied before pruning, as plink2 filters first
  io::GenotypeOpenOptions open;    ///< how the input is read
};

/// \brief What run_prune_to_files() did.
struct PruneSummary {
  int64_t num_samples = 0, founders = 0, num_variants = 0;
  int64_t kept = 0, removed = 0;   ///< lines of .prune.in and .prune.out
  int64_t skipped_chr0 = 0;        ///< chromosome 0 variants, in neither list
  SelectionReport selection;
  std::vector<std::string> files;
  Summary report;
};

/// \brief Which variants of `view` pruning removes (one flag per variant; chromosome 0
/// variants are flagged in `skipped` and never removed). Reads the codes once, plus one
/// counting pass for the allele frequencies.
struct PruneResult {
  std::vector<uint8_t> removed, skipped;  ///< by view variant
  int64_t founders = 0;
};
Result<PruneResult> ld_prune(const Context& ctx, const io::GenotypeViewPtr& view, const PruneWindow& window);

/// \brief Open `input` with the selection of `options`, prune, and write `PREFIX.prune.in` and
/// `PREFIX.prune.out` (variant IDs, one a line, in input order) as one output set.
Result<PruneSummary> run_prune_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                        const PruneOptions& options = {});

}  // namespace strata::genomics
