#pragma once
/// \file
/// Per-variant allele frequencies and missingness written as plink2 writes them:
/// `PREFIX.afreq` (`plink2 --freq`) and `PREFIX.vmiss` (`plink2 --missing`).
///
/// `.afreq`: `#CHROM ID REF ALT ALT_FREQS OBS_CT`, tab-separated; ALT_FREQS is the ALT allele
/// frequency with 6 significant digits (`nan` when nothing is observed) and OBS_CT the number
/// of observed alleles (2 per non-missing call). `.vmiss`: `#CHROM ID MISSING_CT OBS_CT F_MISS`
/// with OBS_CT the number of samples. For a multi-allelic site read as non-reference dosage,
/// ALT lists every ALT allele and ALT_FREQS is their summed frequency (plink2 prints one
/// frequency per ALT allele instead).
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto view, io::open_genotypes("hapmap3"));
/// STRATA_RETURN_NOT_OK(genomics::write_freq_files(ctx, *view, "out/hapmap3"));
/// \endcode

#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"
#include "strata/genomics/qc.hpp"

namespace strata::genomics {

/// \brief Options of write_freq_files.
struct FreqOptions {
  bool afreq = true;     ///< write PREFIX.afreq
  bool vmiss = true;     ///< write PREFIX.vmiss
  /// The input the view was opened from: never replaced by an output.
  std::string input;
  /// Other files the outputs must never replace (selection ID files).
  std::vector<std::string> protected_paths;
};

/// \brief Count every variant of `view` in one pass and write the requested files, together,
/// as one OutputSet (strata/core/output.hpp): checked before the pass, moved into place when
/// complete.
Status write_freq_files(const Context& ctx, const io::GenotypeView& view, const std::string& prefix,
                        const FreqOptions& options = {});

/// \brief Write the files from counts already computed (counts.size() == view.num_variants()).
Status write_freq_files(const io::GenotypeView& view, const std::vector<genomics::VariantCounts>& counts,
                        const std::string& prefix, const FreqOptions& options = {});

/// \brief A number as plink2 prints frequencies: `%g` with 6 significant digits ("nan" for NaN).
std::string format_plink_float(double value);

}  // namespace strata::genomics
