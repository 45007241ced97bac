#pragma once
/// \file
/// Writers of PLINK 2 and BGEN files from any genotype view, as plink2 writes them:
///
/// - `write_pgen`: `prefix.pgen` (storage mode 0x10 with the variant-block index; each record a
///   raw 2-bit hard-call track, plus a dense dosage track in plink2's 1/16384 units when the
///   variant carries a dosage its hard call does not hold), `prefix.pvar` (`#CHROM POS ID REF
///   ALT`) and `prefix.psam` (`#FID IID SEX`, parents and phenotype when the source has them).
/// - `write_bgen`: `x.bgen` as `plink2 --export bgen-1.2 bits=8` (layout 2, zlib, 8-bit
///   unphased diploid probabilities, embedded sample IDs) with REF as the first allele (read
///   it with plink2's `ref-first`), and `x.sample`.
///
/// Both stage their files in an OutputSet (strata/core/output.hpp): nothing appears unless every
/// file is complete. Multi-allelic variants are refused (open the source with
/// MultiallelicMode::Skip); errors name the file and the variant.
#include <cstdint>
#include <string>

#include "strata/core/output.hpp"
#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io {

/// \brief Where a writer's files go and how large its blocks are.
struct GenotypeWriteOptions {
  OutputSet* output_set = nullptr;  ///< not owned; nullptr = the writer's own set, committed at the end
  OutputRules rules;                ///< for the writer's own set (inputs are never replaced)
  int64_t block_variants = 0;       ///< 0 = about 8 MiB of codes per block
};

/// \brief The three paths written for a `.pgen` output given `x.pgen` or a prefix.
struct PgenOutputPaths {
  std::string pgen, pvar, psam;
};
PgenOutputPaths pgen_output_paths(const std::string& prefix_or_path);

/// \brief Write `view` as a PLINK 2 fileset at `prefix_or_path` (see the file comment).
Status write_pgen(const Context& ctx, const GenotypeView& view, const std::string& prefix_or_path,
                  const GenotypeWriteOptions& options = {});

/// \brief Write `view` as `path` (ending in `.bgen`) and the `.sample` beside it.
Status write_bgen(const Context& ctx, const GenotypeView& view, const std::string& path,
                  const GenotypeWriteOptions& options = {});

/// \brief 8-bit BGEN probabilities of an ALT dosage d in [0, 2], as plink2 exports them:
/// P(hom-REF) and P(het) in units of 1/255 (P(hom-ALT) is the rest).
void dosage_to_bgen8(float dosage, uint8_t& p_hom_ref, uint8_t& p_het);

}  // namespace strata::io
