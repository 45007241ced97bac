// The genotype input every genotype command shares: INPUT or one of plink2's input flags.
#include <cstring>

#include "cli_common.hpp"

namespace strata::cli {

void add_input_options(CLI::App* cmd, io::GenotypeInputFlags& in, std::string* vcf_dosage, const std::string& input_help) {
  const std::string g = "Input (INPUT or one of these, as plink2 spells them)";
  if (!input_help.empty()) cmd->add_option("INPUT", in.path, input_help)->check(non_empty_path());
  cmd->add_option("--bfile", in.bfile, "PLINK 1 fileset PREFIX (.bed/.bim/.fam)")->check(non_empty_path())->group(g);
  cmd->add_option("--pfile", in.pfile, "PLINK 2 fileset PREFIX (.pgen/.pvar/.psam)")->check(non_empty_path())->group(g);
  cmd->add_option("--vcf", in.vcf, "VCF file (.vcf, .vcf.gz, .vcf.bgz); `--vcf FILE dosage=DS` as plink2")
      ->check(non_empty_path())->group(g);
  cmd->add_option("--bcf", in.bcf, "BCF file; `--bcf FILE dosage=DS` as plink2")->check(non_empty_path())->group(g);
  cmd->add_option("--bgen", in.bgen, "BGEN file (its sample IDs from --sample, else x.sample beside x.bgen)")
      ->check(non_empty_path())->group(g);
  cmd->add_option("--sample", in.sample, "The BGEN's Oxford .sample file")->check(non_empty_path())->group(g);
  if (vcf_dosage)
    cmd->add_option("--vcf-dosage", *vcf_dosage,
                    "VCF/BCF: read this FORMAT field as dosages (DS, HDS or GP), as plink2's dosage=")
        ->check(CLI::IsMember({"DS", "HDS", "GP"}))->group(g);
}

std::vector<std::string> plink2_input_modifiers(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    out.emplace_back(argv[i]);
    const bool vcf = std::strcmp(argv[i], "--vcf") == 0 || std::strcmp(argv[i], "--bcf") == 0;
    if (vcf && i + 2 < argc && std::strncmp(argv[i + 2], "dosage=", 7) == 0) {
      out.emplace_back(argv[i + 1]);
      out.emplace_back("--vcf-dosage");
      out.emplace_back(argv[i + 2] + 7);
      i += 2;
    }
  }
  return out;
}

}  // namespace strata::cli
