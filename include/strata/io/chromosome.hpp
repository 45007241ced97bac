#pragma once
/// \file
/// plink2's human chromosome model: which contigs are autosomes, which are haploid in whom, and
/// how plink2 spells them in its outputs.
///
/// Names are read as plink2 reads them: an optional `chr` prefix (any case), then 1–22, X (23),
/// Y (24), XY (25, the pseudo-autosomal region) or MT (M, 26); Oxford's 0X, 0Y and 0M too. Anything else (`chrUn_gl000220`,
/// `scaffold_7`, numbers above 26) is an *other* contig: diploid, like an autosome, as plink2
/// treats the extra contigs it is allowed to read.
///
/// Ploidy (plink2): X is haploid in males (sex 1) and diploid in everyone else; Y is haploid in
/// males and absent in everyone else; MT is haploid in everyone; XY is diploid. A heterozygous
/// call where a sample is haploid is kept and counts as half an ALT allele (plink2's `--freq`
/// and `--glm` read it as dosage 0.5).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/result.hpp"

namespace strata::io {

class GenotypeView;

/// \brief What a contig is in plink2's human model.
enum class ChromosomeKind : unsigned char { kAutosome, kX, kY, kXY, kMT, kOther };

/// \brief plink2's numeric code: 1–22 and other non-negative integers as themselves, X 23,
/// Y 24, XY 25, MT/M 26 (`chr` prefix and case ignored); −1 for a name that is not a number.
int chromosome_code(std::string_view name);

/// \brief The kind of a contig name (see the file comment).
ChromosomeKind chromosome_kind(std::string_view name);

/// \brief Whether plink2's relatedness and PCA commands (`--make-king`, `--make-rel`, `--pca`)
/// skip the contig: X, Y and MT ("non-autosomes"; XY and other contigs are used).
inline bool is_haploid_somewhere(ChromosomeKind k) {
  return k == ChromosomeKind::kX || k == ChromosomeKind::kY || k == ChromosomeKind::kMT;
}

/// \brief Whether a contig of `view` is X, Y or MT (only then do ploidy rules change anything).
bool has_haploid_contig(const GenotypeView& view);

/// \brief The kind of each of `variants` (indices of `view`, ascending; nullptr = every variant).
/// The variant metadata is read only when the view's contigs are of more than one kind.
Result<std::vector<ChromosomeKind>> variant_chromosome_kinds(const GenotypeView& view,
                                                             const std::vector<int64_t>* variants = nullptr);

/// \brief A contig name as plink2 writes it (`--output-chr MT`, its default): `chr1`, `Chr1` and
/// `01` become `1`; `chrX` and `23` become `X`; `24` `Y`; `25` `XY`; `chrM`, `M` and `26` `MT`.
/// Other names are written as they are.
std::string plink_chromosome_name(std::string_view name);

}  // namespace strata::io
