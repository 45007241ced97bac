// convert_genotypes: dispatch on input and output kinds.
#include "strata/core/config.hpp"

#include "strata/core/log.hpp"
#include "strata/core/output.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/io/genotype_writers.hpp"
#include "strata/io/plink.hpp"
#include "strata/io/vcf.hpp"
#include "strata/io/vcf_zarr.hpp"

namespace strata::io {
namespace {

bool ends_with(std::string s, std::string_view suffix) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool is_zarr_output(const std::string& path) { return ends_with(path, ".vcz") || ends_with(path, ".zarr"); }

bool is_vcf_path(const std::string& path) {
  return ends_with(path, ".vcf") || ends_with(path, ".vcf.gz") || ends_with(path, ".vcf.bgz") ||
         ends_with(path, ".bcf");
}

Result<std::vector<std::string>> convert_output_files(const std::string& output) {
  if (is_zarr_output(output)) return std::vector<std::string>{output};
  auto strip = [&](size_t n) { return output.substr(0, output.size() - n); };
  if (ends_with(output, ".bed")) return std::vector<std::string>{strip(4) + ".bed", strip(4) + ".bim", strip(4) + ".fam"};
  if (ends_with(output, ".pgen")) return std::vector<std::string>{strip(5) + ".pgen", strip(5) + ".pvar", strip(5) + ".psam"};
  if (ends_with(output, ".bgen")) return std::vector<std::string>{output, strip(5) + ".sample"};
  return Status::Invalid("OUTPUT must end in .vcz or .zarr (VCF Zarr), .bed (PLINK 1 fileset), .pgen (PLINK 2 ",
                         "fileset) or .bgen (BGEN 1.2 + .sample), got '", output, "'");
}

#if !STRATA_HAVE_HTSLIB
Result<ConvertReport> convert_vcf(const Context&, const std::string& input, const std::string&, const ConvertOptions&) {
  return Status::Unsupported(input, ": this strata was built without htslib, so VCF/BCF input is not available");
}
#endif

Result<ConvertReport> convert_genotypes(const Context& ctx, const std::string& input, const std::string& output,
                                        const ConvertOptions& options) {
  STRATA_RETURN_NOT_OK(convert_output_files(output).status());
  // VCF to .bed / Zarr has its own path (alleles, ploidy); other outputs read the VCF as a view.
  if (is_vcf_path(input) && (is_zarr_output(output) || ends_with(output, ".bed")))
    return convert_vcf(ctx, input, output, options);
  STRATA_ASSIGN_OR_RETURN(GenotypeViewPtr view, open_genotypes(input, convert_open_options(output, options)));
  return convert_view(ctx, view, input_paths(input), output, options);
}

GenotypeOpenOptions convert_open_options(const std::string& output, const ConvertOptions& options) {
  GenotypeOpenOptions oo;
  // A `.bim` cannot hold multi-allelic sites in a form plink2 reads: skip them by default.
  oo.multiallelic = options.multiallelic_set ? options.multiallelic
                                             : (is_zarr_output(output) ? MultiallelicMode::NonRefDosage : MultiallelicMode::Skip);
  oo.bgen_sample = options.bgen_sample;
  return oo;
}

Result<ConvertReport> convert_view(const Context& ctx, const GenotypeViewPtr& view, const std::vector<std::string>& inputs,
                                   const std::string& output, const ConvertOptions& options) {
  const bool to_zarr = is_zarr_output(output);
  STRATA_RETURN_NOT_OK(convert_output_files(output).status());
  ProgressScope progress(ctx, "converting", view->num_variants(), "variants");
  if (to_zarr) {
    VczWriteOptions vo;
    if (options.variants_chunk > 0) vo.variants_chunk = options.variants_chunk;
    if (options.samples_chunk > 0) vo.samples_chunk = options.samples_chunk;
    vo.genotype_codec = options.genotype_codec;
    vo.overwrite = options.overwrite;
    vo.inputs = inputs;
    vo.output_set = options.output_set;
    STRATA_RETURN_NOT_OK(write_vcf_zarr(ctx, *view, output, vo));
  } else if (ends_with(output, ".pgen") || ends_with(output, ".bgen")) {
    GenotypeWriteOptions wo;
    wo.rules.inputs = inputs;
    wo.output_set = options.output_set;
    STRATA_RETURN_NOT_OK(ends_with(output, ".pgen") ? write_pgen(ctx, *view, output, wo)
                                                    : write_bgen(ctx, *view, output, wo));
  } else {
    // Existing fileset files are replaced (strata/core/output.hpp), never the input's.
    PlinkWriteOptions po;
    po.target.rules.inputs = inputs;
    po.target.output_set = options.output_set;
    STRATA_RETURN_NOT_OK(write_plink(ctx, *view, output, po));
  }
  ConvertReport r;
  r.variants = view->num_variants();
  r.samples = view->num_samples();
  const SourceReport sr = view->report();
  r.skipped = sr.skipped_sites;
  r.multiallelic = sr.multiallelic_sites;
  r.polyploid_calls = sr.polyploid_calls;
  return r;
}

}  // namespace strata::io
