#pragma once
/// \file
/// `strata convert`: move genotype data between VCF/BCF, PLINK 1 and VCF Zarr.
///
/// | input                                   | output `.vcz` / `.zarr`               | output `.bed` / prefix     |
/// |-----------------------------------------|---------------------------------------|----------------------------|
/// | `.vcf`, `.vcf.gz`, `.bcf` (htslib)      | full `call_genotype` (alleles, ploidy, phasing) | ALT dosage codes   |
/// | PLINK prefix or `.bed`                  | diploid `call_genotype` from the codes | copy                       |
/// | VCF Zarr / scikit-allel / dosage Zarr   | diploid `call_genotype` from the codes | ALT dosage codes           |
///
/// Every output is written under a temporary name and renamed when complete.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata {
class OutputSet;
}

namespace strata::io {

/// \brief Options of convert_genotypes.
struct ConvertOptions {
  int64_t variants_chunk = 0;     ///< VCF Zarr chunking along variants (0 = VczWriteOptions default)
  int64_t samples_chunk = 0;      ///< along samples (0 = default)
  std::string genotype_codec;     ///< codec spec for call_genotype ("" = blosc:zstd:3:bitshuffle)
  /// Multi-allelic sites when the output holds dosages (`.bed`): Skip by default for `.bed`,
  /// because a `.bim` cannot hold them in a form plink2 reads.
  MultiallelicMode multiallelic = MultiallelicMode::Skip;
  bool multiallelic_set = false;  ///< true when the user chose `multiallelic`
  bool overwrite = false;         ///< replace an existing Zarr store (PLINK files are always replaced)
  int decompression_threads = 0;  ///< htslib threads (0 = the context's thread count)
  std::string bgen_sample;        ///< BGEN input: its sample file (GenotypeOpenOptions::bgen_sample)
  /// The set the outputs join (not owned; a command's Job declares them); null = the writer's own.
  OutputSet* output_set = nullptr;
};

/// \brief What a conversion did.
struct ConvertReport {
  int64_t variants = 0;           ///< variants written
  int64_t samples = 0;
  int64_t skipped = 0;            ///< variants left out (multi-allelic with Skip)
  int64_t multiallelic = 0;       ///< multi-allelic sites seen
  int64_t polyploid_calls = 0;    ///< calls with > 2 alleles (coded missing in `.bed`)
  int64_t max_ploidy = 0;         ///< VCF input only
};

/// \brief Whether `path` names VCF Zarr / Zarr output (ends in `.vcz` or `.zarr`, ignoring a
/// trailing '/').
bool is_zarr_output(const std::string& path);
/// \brief Whether `path` is a VCF/BCF file name (`.vcf`, `.vcf.gz`, `.vcf.bgz`, `.bcf`).
bool is_vcf_path(const std::string& path);

/// \brief The files (or the Zarr directory) `strata convert` writes for `output` (ending in
/// .vcz/.zarr, .bed, .pgen or .bgen); Invalid for any other name.
Result<std::vector<std::string>> convert_output_files(const std::string& output);

/// \brief How convert_genotypes opens a non-VCF input for `output`: multi-allelic sites skipped
/// for `.bed` unless the caller chose otherwise.
GenotypeOpenOptions convert_open_options(const std::string& output, const ConvertOptions& options);

/// \brief Write an opened view to `output` (`.vcz`/`.zarr` or `.bed`), as convert_genotypes does
/// after opening; `inputs` are paths the outputs must never replace.
Result<ConvertReport> convert_view(const Context& ctx, const GenotypeViewPtr& view, const std::vector<std::string>& inputs,
                                   const std::string& output, const ConvertOptions& options = {});

/// \brief Convert `input` to `output` (see the table above).
Result<ConvertReport> convert_genotypes(const Context& ctx, const std::string& input, const std::string& output,
                                        const ConvertOptions& options = {});

}  // namespace strata::io
