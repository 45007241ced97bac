#pragma once
/// \file
/// Sample and variant QC tables written as plink2 writes them, all from one pass over the
/// genotypes: `strata qc`.
///
/// - `PREFIX.smiss`, `PREFIX.vmiss` (`plink2 --missing`): missing calls per sample and per
///   variant. On Y only males count (a female's or unknown-sex sample's Y calls are left out of
///   both its MISSING_CT and OBS_CT); `.vmiss` is the one `strata freq` writes.
/// - `PREFIX.het` (`plink2 --het`): per sample, over the variants not on X, Y or MT that are
///   polymorphic among the founders: O(HOM) observed homozygous calls, E(HOM) the expected
///   count Σ (1 − 2p(1 − p)) over its observed calls with p the founders' REF frequency, OBS_CT
///   and F = 1 − O(HET)/E(HET). Like plink2 it refuses frequencies from fewer than 50 founders
///   unless told (QcOptions::bad_freqs).
/// - `PREFIX.hardy` (`plink2 --hardy`): founders' genotype counts, observed and expected
///   heterozygosity and the Hardy–Weinberg exact p of every diploid variant (autosomes, XY);
///   `PREFIX.hardy.x` for X: female founders' genotypes and male founders' alleles together
///   (Graffelman–Weir). Y and MT are skipped.
/// - `PREFIX.sexcheck` (`plink --check-sex`, PLINK 1.9's: plink2 2.00a3.5 has none, and newer
///   plink2 writes another layout): per sample, F = 1 − O(HET)/E(HET) over its called X variants
///   (X proper, not XY) that are polymorphic by PLINK 1.9's X frequency (female and unknown-sex
///   founders' genotypes, male founders' homozygous calls as one allele); SNPSEX 1 when F >
///   min-male-xf (0.8), 2 when F < max-female-xf (0.2), else 0; STATUS OK when PEDSEX is known
///   and equal. Needs X variants (InvalidData otherwise).
///
/// Numbers print as plink2 prints them (6 significant digits); the bytes do not depend on the
/// thread count (the expected-heterozygosity sums are exact fixed-point sums).
///
/// \code
/// genomics::QcOptions o;  // every table by default
/// STRATA_ASSIGN_OR_RETURN(auto s, genomics::run_qc_to_files(ctx, "hapmap3", "out/hapmap3", o));
/// \endcode

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

/// \brief Which tables run_qc_to_files writes and how.
struct QcOptions {
  bool missing = true;    ///< PREFIX.smiss and PREFIX.vmiss
  bool het = true;        ///< PREFIX.het
  bool hardy = true;      ///< PREFIX.hardy (and PREFIX.hardy.x when there are X variants)
  /// `--het` from fewer than 50 founders (plink2's `--bad-freqs`); refused otherwise.
  bool bad_freqs = false;
  bool check_sex = false;       ///< PREFIX.sexcheck (off by default: needs X data)
  double max_female_xf = 0.2;   ///< `--check-sex`: F below this calls female
  double min_male_xf = 0.8;     ///< F above this calls male
  SelectionOptions selection;     ///< the samples and variants counted (applied first)
  io::GenotypeOpenOptions open;   ///< how the input is read
};

/// \brief What run_qc_to_files() did.
struct QcSummary {
  int64_t num_samples = 0, num_variants = 0;
  int64_t het_variants = 0;       ///< variants the `.het` sums run over
  int64_t hardy_variants = 0;     ///< rows of `.hardy`
  int64_t hardy_x_variants = 0;   ///< rows of `.hardy.x`
  int64_t sexcheck_x_variants = 0;  ///< polymorphic X variants `.sexcheck` used
  int64_t sexcheck_problems = 0;    ///< its PROBLEM rows
  int64_t skipped_sites = 0;      ///< multi-allelic sites the reader skipped
  SelectionReport selection;
  std::vector<std::string> files;
  Summary report;                 ///< the report fields (the CLI's --report)
};

/// \brief The fewest founders plink2 estimates `--het` frequencies from without `--bad-freqs`.
inline constexpr int64_t kMinFreqFounders = 50;

/// \brief Open `input` with the selection of `options`, count everything the requested tables
/// need in one pass, and write them for `prefix` as one output set (nothing is written when
/// anything fails).
Result<QcSummary> run_qc_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                  const QcOptions& options = {});

/// \brief Whether a `.fam` phenotype value is missing, plink2's rules: "-9", "NA"-like and empty
/// always; "0" when the column is case/control (`binary`: every value 0, 1, 2, −9 or missing).
bool phenotype_value_missing(const std::string& value, bool binary);

}  // namespace strata::genomics
