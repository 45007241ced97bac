// resolve_genotype_input: plink2's input flags mapped onto open_genotypes' path detection.
#include "strata/io/genotype_input.hpp"

#include <filesystem>
#include <utility>
#include <vector>

#include "io/genotype/bgen_source_internal.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/io/pgen.hpp"
#include "strata/io/remote.hpp"

namespace strata::io {
namespace {

// A local file that should exist; remote URLs are left to the reader.
bool missing(const std::string& path) {
  std::error_code ec;
  return !is_remote_url(path) && !std::filesystem::exists(path, ec);
}

}  // namespace

Result<std::string> resolve_genotype_input(const GenotypeInputFlags& f, GenotypeOpenOptions& open) {
  const std::vector<std::pair<const char*, const std::string*>> given_or_not = {
      {"INPUT", &f.path}, {"--bfile", &f.bfile}, {"--pfile", &f.pfile},
      {"--vcf", &f.vcf},  {"--bcf", &f.bcf},     {"--bgen", &f.bgen}};
  std::string names;
  int given = 0;
  for (const auto& [name, value] : given_or_not) {
    if (value->empty()) continue;
    names += (given++ ? " and " : "") + std::string(name);
  }
  if (given == 0)
    return Status::Invalid("no genotype input: give INPUT or one of --bfile, --pfile, --vcf, --bcf, --bgen");
  if (given > 1) return Status::Invalid("give one genotype input, got ", names);
  const bool bgen = !f.bgen.empty() || (!f.path.empty() && detail::is_bgen_path(f.path));
  if (!f.sample.empty() && !bgen)
    return Status::Invalid("--sample names a BGEN's sample file: it needs --bgen FILE (or a .bgen INPUT)");
  if (!open.vcf_dosage.empty() && (!f.bfile.empty() || !f.pfile.empty() || !f.bgen.empty()))
    return Status::Invalid("--vcf-dosage reads a VCF/BCF FORMAT field: it needs --vcf or --bcf, not ", names);
  if (!f.sample.empty()) open.bgen_sample = f.sample;
  if (!f.path.empty()) return f.path;
  if (!f.pfile.empty()) {
    const std::string pgen = f.pfile + ".pgen";
    if (missing(pgen)) return Status::NotFound("--pfile ", f.pfile, ": ", pgen, " not found");
    return pgen;
  }
  if (!f.bfile.empty()) {
    if (missing(f.bfile + ".bed")) return Status::NotFound("--bfile ", f.bfile, ": ", f.bfile, ".bed not found");
    return f.bfile;
  }
  if (!f.bgen.empty()) {
    if (!detail::is_bgen_path(f.bgen)) return Status::Invalid("--bgen must name a .bgen file, got '", f.bgen, "'");
    return f.bgen;
  }
  const bool is_vcf = !f.vcf.empty();
  const std::string& file = is_vcf ? f.vcf : f.bcf;
  if (!is_vcf_path(file))
    return Status::Invalid(is_vcf ? "--vcf" : "--bcf", " must name a .vcf, .vcf.gz, .vcf.bgz or .bcf file, got '", file, "'");
  return file;
}

}  // namespace strata::io
