#pragma once
/// \file
/// Genotype counts straight from a source's storage: a `.pgen` counts its difflist records
/// without decoding them to codes. compute_variant_counts uses it where a view offers it.

#include <cstdint>

#include "strata/core/status.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io {

/// \brief What a genotype source implements when it counts codes cheaper than read_codes
/// and a count of the codes.
class GenotypeCounter {
 public:
  virtual ~GenotypeCounter() = default;
  /// \brief counts[4i + c] = samples of variant variant_start + i with code c over every
  /// sample: the counts of what read_codes gives. Thread-safe as read_codes.
  virtual Status count_genotypes(int64_t variant_start, int64_t variant_count, int64_t* counts) const = 0;
};

/// \brief The counter `view` offers, or null (then read the codes and count them).
inline const GenotypeCounter* genotype_counter(const GenotypeView& view) {
  return dynamic_cast<const GenotypeCounter*>(&view);
}

}  // namespace strata::io
