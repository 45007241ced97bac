#pragma once
/// \file
/// PLINK 2 filesets: `.pgen` (genotypes) with `.pvar` or `.pvar.zst` (variants) and `.psam`
/// (samples), read in place through open_genotypes.
///
/// **Codes.** A `.pgen` hard call counts ALT alleles (0 hom-REF, 1 het, 2 two non-REF alleles,
/// 3 missing), which is strata's code, so multi-allelic sites read as the non-REF dosage
/// (GenotypeView file comment). Dosage tracks are read by read_dosages (value / 16384).
///
/// **Storage modes** (pgen_spec): 0x10 (variable-width records with the block index: every
/// main-track type 0–7, the hardcall-phase track stepped over, the dosage track decoded), the
/// fixed-width 0x02 / 0x03 / 0x04 (hard calls / + dosages / + phased dosages) and 0x01 (a `.bed`
/// named `.pgen`). Multi-allelic hard-call patches are not decoded (the non-REF count does not
/// need them); read_dosages refuses a multi-allelic record with a dosage track (Unsupported,
/// naming the variant; plink2 2.00a3 cannot write one).

#include <string>

#include "strata/io/genotype.hpp"
#include "strata/io/plink.hpp"

namespace strata::io {

/// \brief The files of a PLINK 2 fileset given a prefix or a path ending in .pgen/.pvar/
/// .pvar.zst/.psam: `.pvar` when it exists, else `.pvar.zst`.
struct PgenPaths {
  std::string pgen, pvar, psam;
};
PgenPaths pgen_paths(const std::string& prefix_or_path);

/// \brief Whether `path` names a PLINK 2 fileset: `x.pgen` (or `.pvar`, `.pvar.zst`, `.psam`),
/// or a prefix with `prefix.pgen` and no `prefix.bed` (a prefix with both is read as PLINK 1).
bool is_pgen_path(const std::string& path);

/// \brief Parse a `.pvar` (or zstd-compressed `.pvar.zst`): `##` meta lines, then a `#CHROM`
/// header naming CHROM POS ID REF ALT and optionally QUAL FILTER INFO CM in any order (parsing
/// stops at FORMAT), or no header and `.bim` columns (CHROM ID [CM] POS ALT REF).
Result<BimTable> read_pvar(const std::string& path);

/// \brief Open a PLINK 2 fileset as a genotype view (open_genotypes does this for
/// is_pgen_path paths). Variants with a negative position are left out (as plink2 does), and
/// multi-allelic ones with MultiallelicMode::Skip. Errors name the file, the variant and the
/// problem.
Result<GenotypeViewPtr> open_pgen(const std::string& prefix_or_path, const GenotypeOpenOptions& options = {});

}  // namespace strata::io
