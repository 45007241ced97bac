#pragma once
// plink2's dosage representation, shared by the sources that carry fractional dosages: a dosage
// is stored in units of 1/16384 (2 bytes a genotype, exact in float), and its hard call is the
// nearest of 0, 1, 2 when within 0.1 of it (plink2's --hard-call-threshold default), else missing.
#include <cmath>
#include <cstdint>
#include <limits>

#include "strata/io/genotype.hpp"

namespace strata::io::detail {

constexpr int32_t kDosageUnit = 16384;                      // 1.0 in plink2's dosage units
constexpr uint16_t kDosageMissingUnits = 0xFFFF;            // no dosage
constexpr double kHardCallThreshold = 0.1;

/// Units of a dosage in [0, 2] (rounded to the nearest 1/16384, as plink2 imports DS; d ≥ 0,
/// so adding ½ and truncating rounds half up, without a libm call per genotype).
inline uint16_t dosage_units(double d) { return static_cast<uint16_t>(d * kDosageUnit + 0.5); }

/// The dosage `units` stand for (exact in float).
inline float units_dosage(uint16_t units) {
  return units == kDosageMissingUnits ? std::numeric_limits<float>::quiet_NaN()
                                      : static_cast<float>(units) * (1.0f / kDosageUnit);
}

/// plink2's hard call of a dosage in units: the nearest integer within 0.1, else missing.
inline uint8_t hard_call_of_units(uint16_t units) {
  if (units == kDosageMissingUnits) return kCodeMissing;
  const int32_t nearest = (static_cast<int32_t>(units) + kDosageUnit / 2) / kDosageUnit;
  const int32_t dist = std::abs(static_cast<int32_t>(units) - nearest * kDosageUnit);
  return dist <= static_cast<int32_t>(kHardCallThreshold * kDosageUnit) ? static_cast<uint8_t>(nearest) : kCodeMissing;
}

/// Whether `d` is a dosage (finite, within [0, 2]).
inline bool is_dosage_value(double d) { return d >= 0.0 && d <= 2.0; }

}  // namespace strata::io::detail
