#pragma once
/// \file
/// Genotype QC: per-variant genotype statistics in one pass (allele counts and frequency, missing rate,
/// heterozygote count), the variant filters built on them (`--maf`, `--geno`, monomorphic),
/// and the per-variant lookup tables that standardize genotypes for PCA/GRM kernels.
///
/// Frequencies are of the ALT allele (genotype.hpp), as plink2's `ALT_FREQS`.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto counts, genomics::compute_variant_counts(ctx, *view));
/// genomics::VariantFilter f; f.min_maf = 0.01; f.max_missing = 0.1; f.drop_monomorphic = true;
/// auto kept = genomics::apply_variant_filter(counts, f);
/// auto filtered = io::make_variant_subset(view, kept.kept);
/// \endcode

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

using io::GenotypeBlock;
using io::GenotypeView;

/// \brief Genotype counts of one variant.
struct VariantCounts {
  int64_t hom_ref = 0;  ///< code 0
  int64_t het = 0;      ///< code 1
  int64_t hom_alt = 0;  ///< code 2
  int64_t missing = 0;  ///< code 3
  /// The allele counts alt_freq() comes from when they are not this row's: plink2's allele
  /// frequencies count founders only (both parents unknown), so in a pedigree PCA and the GRM
  /// standardize with the founders' (use_founder_frequencies()). −1: this row's own.
  int64_t freq_alt_alleles = -1;
  int64_t freq_allele_count = -1;

  int64_t observed() const { return hom_ref + het + hom_alt; }
  int64_t total() const { return observed() + missing; }
  /// ALT alleles among observed calls.
  int64_t alt_alleles() const { return het + 2 * hom_alt; }
  /// Observed alleles (2 per observed call), plink2's `OBS_CT` of `.afreq`.
  int64_t allele_count() const { return 2 * observed(); }
  /// The ALT alleles and observed alleles of the frequency: the founders' where set, else this row's.
  int64_t frequency_alt_alleles() const { return freq_allele_count >= 0 ? freq_alt_alleles : alt_alleles(); }
  int64_t frequency_allele_count() const { return freq_allele_count >= 0 ? freq_allele_count : allele_count(); }
  /// ALT allele frequency (of the founders where set); NaN when nothing is observed.
  double alt_freq() const {
    const int64_t alleles = frequency_allele_count();
    return alleles == 0 ? std::nan("") : double(frequency_alt_alleles()) / double(alleles);
  }
  /// Minor allele frequency min(f, 1 − f); NaN when nothing is observed.
  double maf() const {
    const double f = alt_freq();
    return f < 0.5 ? f : 1.0 - f;
  }
  /// Fraction of calls missing; 0 for an empty variant.
  double missing_rate() const { return total() == 0 ? 0.0 : double(missing) / double(total()); }
  /// No call observed, or only one allele observed.
  bool monomorphic() const { return alt_alleles() == 0 || alt_alleles() == allele_count(); }
};

/// \brief Counts for every variant of `view`, in one parallel pass over blocks.
Result<std::vector<VariantCounts>> compute_variant_counts(const Context& ctx, const GenotypeView& view);

/// \brief plink2's allele frequencies count founders only: when some sample of `view` has a
/// parent (io::SampleInfo), one more counts pass over the founders sets every row's
/// freq_alt_alleles/freq_allele_count (so alt_freq(), and the standardization of PCA and the
/// GRM, are the founders'); the genotype counts stay every sample's. Nothing when every sample
/// is a founder or `nonfounders` (plink2's --nonfounders: every sample counts). InvalidData,
/// as plink2, when fewer than kMinFounders founders would give the frequencies.
/// \brief The samples whose alleles give PCA's and the GRM's frequencies: the founders when some
/// sample of `view` is not one (plink2), empty when every sample counts (all are founders, or
/// `nonfounders`). InvalidData, as plink2, with fewer than kMinFounders founders.
Result<std::vector<int64_t>> frequency_samples(const GenotypeView& view, bool nonfounders);
Status use_founder_frequencies(const Context& ctx, const io::GenotypeViewPtr& view, bool nonfounders,
                               std::vector<VariantCounts>& counts);
/// \brief InvalidData naming variant `v` of `view`: monomorphic among the founders only (plink2
/// refuses those too: "Zero-MAF variant is not actually monomorphic").
Status founders_monomorphic_error(const GenotypeView& view, int64_t v);
/// plink2 refuses to standardize with the frequencies of fewer founders than this.
inline constexpr int64_t kMinFounders = 50;

/// \brief Counts for each of `rows` packed rows at `codes` (`stride` bytes apart, `samples`
/// codes each) into out[0 … rows), on the backend of `ctx`.
Status count_rows(const Context& ctx, const uint8_t* codes, int64_t rows, int64_t samples, int64_t stride,
                  VariantCounts* out);
/// \brief Counts for each row of a block, on the backend of `ctx`.
Status count_block(const Context& ctx, const GenotypeBlock& block, VariantCounts* out);

/// \brief Hardy–Weinberg exact test p-value of a biallelic variant's genotype counts, as plink2
/// computes it for `--hardy`/`--hwe` (Wigginton, Cutler & Abecasis 2005; mid-p off): the
/// probability, given the allele counts, of a heterozygote count at most as likely as the one
/// observed. 1 when nothing is observed.
double hwe_exact_p(int64_t het, int64_t hom1, int64_t hom2);

/// \brief The X-chromosome exact test plink2 runs for `--hardy`/`--hwe` on chrX (Graffelman &
/// Weir 2016): female genotype counts and male allele counts together, given the allele
/// count. 1 when nothing is observed.
double hwe_xchr_exact_p(int64_t female_het, int64_t female_hom1, int64_t female_hom2, int64_t male1, int64_t male2);

/// \brief Variant filters, with PLINK semantics.
struct VariantFilter {
  double min_maf = 0.0;         ///< `--maf`: drop variants with MAF < min_maf
  double max_missing = 1.0;     ///< `--geno`: drop variants with missing rate > max_missing
  bool drop_monomorphic = false;///< drop variants with one allele observed (or none)
};

/// \brief Kept variant indices (ascending) and how many each rule dropped (first rule wins,
/// in the order missingness, monomorphic, MAF).
struct FilterResult {
  std::vector<int64_t> kept;
  int64_t dropped_missing = 0;
  int64_t dropped_monomorphic = 0;
  int64_t dropped_maf = 0;
};
FilterResult apply_variant_filter(const std::vector<VariantCounts>& counts,
                                  const VariantFilter& filter);

/// \brief How genotypes are scaled after centring at the mean 2f.
enum class Standardization : uint8_t {
  Binom2,  ///< (g − 2f) / √(2f(1 − f)): Patterson / plink2 `--pca` (default)
  Binom,   ///< (g − 2f) / √(f(1 − f))
  Center,  ///< g − 2f
  None,    ///< g; missing calls become the mean 2f
};
/// \brief Parse "binom2", "binom", "center", "none" (also "patterson", "centre").
Result<Standardization> parse_standardization(const std::string& name);
/// \brief "binom2", "binom", "center" or "none": the inverse of parse_standardization.
const char* standardization_name(Standardization mode);

/// \brief The 4-entry table mapping codes to standardized values. Missing → 0 (mean
/// imputation; 2f for Standardization::None). Monomorphic or unobserved variants (zero
/// variance) map every code to 0.
void make_standardize_lut(const VariantCounts& counts, Standardization mode, float lut[4]);
void make_standardize_lut(const VariantCounts& counts, Standardization mode, double lut[4]);
/// The same from an ALT frequency (NaN: nothing observed), e.g. one of dosages.
void make_standardize_lut_for_freq(double alt_freq, Standardization mode, float lut[4]);
void make_standardize_lut_for_freq(double alt_freq, Standardization mode, double lut[4]);

}  // namespace strata::genomics
