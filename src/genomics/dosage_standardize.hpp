#pragma once
// Standardized dosages for PCA and the GRM (plink2 --pca / --make-rel on imputed data): each
// variant's ALT frequency f comes from its observed dosages (Σd / 2·observed), a dosage d
// becomes (d − 2f)/√(2f(1 − f)) under binom2 (the same tables as the codes', applied to d),
// and a missing dosage (NaN) becomes the table's missing value (0 after centring: the mean).
#include <cmath>
#include <cstdint>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

/// Per variant of a view with dosages: the ALT frequency of the observed dosages of the
/// frequency samples (the founders in a pedigree, as plink2; NaN when none is observed), how
/// many samples miss a dosage, and Σd and Σd² of every sample's observed ones.
struct DosageMoments {
  std::vector<double> alt_freq;
  std::vector<int64_t> missing;
  std::vector<double> sum;
  std::vector<double> sum_sq;
  int64_t samples = 0;
};

/// One pass over the view's dosages (blocks of variants in parallel; the sums run in sample
/// order per variant, so they do not depend on the thread count). `nonfounders`: every sample
/// gives the frequencies (else the founders, see frequency_samples()).
Result<DosageMoments> dosage_moments(const Context& ctx, const io::GenotypeView& view, bool nonfounders);

/// PCA's variant filter on dosages: polymorphic variants are kept (0 < f < 1), the others
/// count as monomorphic (as apply_variant_filter with drop_monomorphic on the codes).
FilterResult dosage_variant_filter(const DosageMoments& moments);

/// Σ over `kept` variants and all samples of the squared standardized dosages (the trace of
/// XᵀX), from the moments: each variant's values are a + b·d, missing ones lut[3].
double dosage_trace_sum(const DosageMoments& moments, const std::vector<int64_t>& kept, Standardization scale);

/// The standardization table of every variant of `moments` (4 entries each, as
/// make_standardize_lut: entries 0..2 the values of dosages 0, 1, 2, entry 3 the missing one).
template <class T>
std::vector<T> dosage_standardize_luts(const DosageMoments& moments, Standardization scale) {
  std::vector<T> luts(moments.alt_freq.size() * 4);
  for (size_t i = 0; i < moments.alt_freq.size(); ++i) make_standardize_lut_for_freq(moments.alt_freq[i], scale, &luts[i * 4]);
  return luts;
}

/// A dosage through its variant's table: linear in d (the table's values are too), NaN → lut[3].
template <class T>
inline T standardize_dosage(float d, const T lut[4]) {
  return std::isnan(d) ? lut[3] : static_cast<T>(static_cast<T>(lut[0]) + static_cast<T>(d) * (lut[1] - lut[0]));
}

}  // namespace strata::genomics
