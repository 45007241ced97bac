#pragma once
// The VCF/BCF genotype source (vcf_source.cpp): every record decoded once, when the file is
// opened, into packed codes held in memory, so every command reads a VCF/BCF as it reads a .bed.

#include <string>

#include "strata/io/genotype.hpp"

namespace strata::io::detail {

/// Open a `.vcf`, `.vcf.gz`, `.vcf.bgz` or `.bcf` as a genotype view (Unsupported when strata
/// was built without htslib).
Result<GenotypeViewPtr> open_vcf_genotypes(const std::string& path, const GenotypeOpenOptions& options);

}  // namespace strata::io::detail
