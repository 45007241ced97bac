#pragma once
/// \file
/// Per-variant allele frequencies and missingness written as plink2 writes them:
/// `PREFIX.afreq` (`plink2 --freq`) and `PREFIX.vmiss` (`plink2 --missing`).
///
/// `.afreq`: `#CHROM ID REF ALT ALT_FREQS OBS_CT`, tab-separated; ALT_FREQS is the ALT allele
/// frequency with 6 significant digits (`nan` when nothing is observed) and OBS_CT the number
/// of observed alleles (2 per non-missing diploid call, 1 per haploid one: see compute_freq_table). `.vmiss`: `#CHROM ID MISSING_CT OBS_CT F_MISS`
/// with OBS_CT the number of samples. For a multi-allelic site read as non-reference dosage,
/// ALT lists every ALT allele and ALT_FREQS is their summed frequency (plink2 prints one
/// frequency per ALT allele instead).
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto view, io::open_genotypes("hapmap3"));
/// STRATA_RETURN_NOT_OK(genomics::write_freq_files(ctx, *view, "out/hapmap3"));
/// \endcode

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::genomics {

/// \brief Options of run_freq_to_files and write_freq_files.
struct FreqOptions {
  bool afreq = true;     ///< write PREFIX.afreq
  bool vmiss = true;     ///< write PREFIX.vmiss
  SelectionOptions selection;      ///< run_freq_to_files: the samples and variants counted
  io::GenotypeOpenOptions open;    ///< run_freq_to_files: how the input is read
};

/// \brief What run_freq_to_files() did.
struct FreqSummary {
  int64_t num_samples = 0, num_variants = 0;
  int64_t skipped_sites = 0;       ///< multi-allelic sites the reader skipped (--multiallelic skip)
  SelectionReport selection;
  std::vector<std::string> files;
  Summary report;                  ///< the report fields (the CLI's --report, Python's dict)
};

/// \brief plink2's allele counts of one variant, with the ploidy of its chromosome
/// (io/chromosome.hpp): a heterozygous call where the sample is haploid is half an ALT allele.
/// A source with dosages (imputed data) counts them instead, as plink2 does: ALT alleles are the
/// dosages' sum and every sample with a dosage is observed.
struct AlleleCounts {
  int64_t alt_halves = 0;        ///< ALT alleles × 2 (from the calls)
  int64_t observed_alleles = 0;  ///< `OBS_CT` of `.afreq`
  double alt_dosage = std::nan("");  ///< ALT alleles from dosages; NaN: counted from the calls
  /// ALT allele frequency; NaN when nothing is observed.
  double alt_freq() const {
    if (observed_alleles == 0) return std::nan("");
    if (!std::isnan(alt_dosage)) return alt_dosage / double(observed_alleles);
    return double(alt_halves) / double(2 * observed_alleles);
  }
};

/// \brief What `.afreq` and `.vmiss` print, per variant.
struct FreqTable {
  std::vector<AlleleCounts> alleles;      ///< founders only (plink2 `--freq`)
  std::vector<VariantCounts> calls;       ///< every sample; on Y males only (plink2 `--missing`)
};

/// \brief What compute_freq_table may reuse and hand back.
struct FreqTableOptions {
  /// Code counts of every variant over every sample of the view, already taken (saves a pass).
  const std::vector<VariantCounts>* calls = nullptr;
  /// When set, receives the founders' code counts of every variant (diploid, as read).
  std::vector<VariantCounts>* founder_calls = nullptr;
};

/// \brief Count every variant of `view` as plink2's `--freq` and `--missing` do: frequencies over
/// founders (no parent named in the `.fam`), X haploid in males, Y in males only, MT haploid;
/// missingness over every sample, on Y over males. One counting pass, plus one over the males
/// on X and Y, plus one over the founders when some samples are not.
Result<FreqTable> compute_freq_table(const Context& ctx, const io::GenotypeViewPtr& view,
                                     const FreqTableOptions& options = {});

/// \brief Count every variant of `view` (compute_freq_table) and write the requested files,
/// together, as one OutputSet (strata/core/output.hpp): checked before the pass, moved into
/// place when complete. Chromosome names are written as plink2 writes them.
Status write_freq_files(const Context& ctx, const io::GenotypeViewPtr& view, const std::string& prefix,
                        const FreqOptions& options = {});

/// \brief Open `input` with the selection of `options` and write its frequency files for
/// `prefix` (the outputs are declared before the input is read and never replace it).
Result<FreqSummary> run_freq_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                      const FreqOptions& options = {});

/// \brief Write an `.afreq` for every variant of `view` from `alleles` (one per variant) to
/// `staged` (an output set's staged file; errors name `path`): what `strata pca` writes beside
/// its PCs, the frequencies it standardized with.
Status write_afreq_file(const io::GenotypeView& view, const std::vector<AlleleCounts>& alleles,
                        const std::string& staged, const std::string& path);

/// \brief Append the `.vmiss` line of a variant (`chrom`, `id` as written) with counts `calls`.
void append_vmiss_line(std::string& out, std::string_view chrom, std::string_view id, const VariantCounts& calls);

/// \brief A number as plink2 prints it (its `dtoa_g`): `%g` with 6 significant digits, but
/// decimal ties (within 5e-9 of the last digit) rounded half to even; "nan" for NaN.
std::string format_plink_float(double value);

}  // namespace strata::genomics
