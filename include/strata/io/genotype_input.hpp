#pragma once
// Which genotype input a command was given: a path, or one of plink2's input flags.

#include <string>

#include "strata/core/status.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io {

/// \brief The ways a command names its genotypes (plink2's spellings). Exactly one is given.
struct GenotypeInputFlags {
  std::string path;    ///< a path whose kind open_genotypes detects (the CLI's positional INPUT)
  std::string bfile;   ///< `--bfile PREFIX`: PREFIX.bed/.bim/.fam
  std::string pfile;   ///< `--pfile PREFIX`: PREFIX.pgen/.pvar/.psam
  std::string vcf;     ///< `--vcf FILE`
  std::string bcf;     ///< `--bcf FILE`
  std::string bgen;    ///< `--bgen FILE`
  std::string sample;  ///< `--sample FILE`: the BGEN's sample file
};

/// \brief The path to give open_genotypes for `flags`, with `open` completed (bgen_sample).
/// Invalid (a usage error naming the flags) when none or several inputs are given, when
/// --sample comes without a BGEN, when --vcf-dosage (open.vcf_dosage) comes with a non-VCF
/// flag, or when a file does not have its flag's kind; NotFound naming PREFIX.pgen / PREFIX.bed
/// when --pfile / --bfile name a prefix without it.
Result<std::string> resolve_genotype_input(const GenotypeInputFlags& flags, GenotypeOpenOptions& open);

}  // namespace strata::io
