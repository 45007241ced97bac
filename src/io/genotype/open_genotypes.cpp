// open_genotypes: pick the source for a path (PLINK 1 or 2 fileset, BGEN, VCF/BCF or Zarr store).
#include <filesystem>

#include "io/genotype/bgen_source_internal.hpp"
#include "io/genotype/sources_internal.hpp"
#include "io/genotype/vcf_source_internal.hpp"
#include "strata/core/log.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/io/pgen.hpp"
#include "strata/io/plink.hpp"
#include "strata/io/remote.hpp"

namespace strata::io {

const char* multiallelic_mode_name(MultiallelicMode mode) {
  return mode == MultiallelicMode::Skip ? "skip" : "nonref";
}

Result<MultiallelicMode> parse_multiallelic_mode(const std::string& name) {
  if (name == "nonref") return MultiallelicMode::NonRefDosage;
  if (name == "skip") return MultiallelicMode::Skip;
  return Status::Invalid("multiallelic must be 'nonref' or 'skip', got '", name, "'");
}

Result<GenotypeViewPtr> open_genotypes(const std::string& path, const GenotypeOpenOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (is_remote_url(path) || fs::is_directory(path, ec)) return detail::open_zarr_genotypes(path, options);
  if (detail::is_bgen_path(path) && fs::is_regular_file(path, ec))
    return detail::open_bgen_genotypes(
        path, options.bgen_sample.empty() ? detail::bgen_sample_path(path) : options.bgen_sample, options);
  if (is_pgen_path(path)) return open_pgen(path, options);
  if (is_vcf_path(path)) return detail::open_vcf_genotypes(path, options);
  if (!options.vcf_dosage.empty())
    return Status::Invalid(path, ": vcf_dosage (--vcf-dosage) reads a VCF/BCF FORMAT field; this input is not a VCF/BCF");
  if (is_plink_path(path)) {
    STRATA_ASSIGN_OR_RETURN(auto bed, BedReader::open(path, options.pool));
    GenotypeViewPtr view = bed;
    const bool skip_multiallelic = options.multiallelic == MultiallelicMode::Skip;
    if (skip_multiallelic || bed->negative_positions() > 0) {
      // A `.bim` can hold a joined ALT list (written from a multi-allelic source); plink2 skips
      // variants with a negative position ("99 out of 100 variants loaded").
      std::vector<int64_t> kept;
      STRATA_ASSIGN_OR_RETURN(VariantInfo info, bed->variants(0, bed->num_variants()));
      for (int64_t i = 0; i < info.size(); ++i)
        if (info.position[i] >= 0 && (!skip_multiallelic || info.alt[i].find(',') == std::string::npos))
          kept.push_back(i);
      if (bed->negative_positions() > 0)
        log_warning(bed->paths().bim, ": ", bed->negative_positions(), " of ", info.size(),
                    " variants have a negative position and are skipped (as plink2 does)");
      if (static_cast<int64_t>(kept.size()) != info.size()) view = make_variant_subset(view, std::move(kept));
    }
    return view;
  }
  if (!fs::exists(path, ec) && !fs::exists(path + ".bed", ec))
    return Status::NotFound(path, ": no such file, PLINK prefix or Zarr store");
  return Status::Unsupported(path, ": not a genotype source (expected a PLINK .bed/.bim/.fam or .pgen/.pvar/.psam prefix, "
                             "a BGEN file, a VCF/BCF (.vcf, .vcf.gz, .vcf.bgz, .bcf) or a Zarr store with call_genotype, "
                             "calldata/GT or a 2-D dosage array)");
}

}  // namespace strata::io
