#pragma once
// Per-variant standardization tables of the kept variants (4 entries each), shared by the
// decoded PCA source and the genotype Gram operator.
#include <cstdint>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/genomics/qc.hpp"

namespace strata::genomics {

template <class T>
Result<std::vector<T>> kept_standardize_luts(const std::vector<genomics::VariantCounts>& counts,
                                             const std::vector<int64_t>& kept, genomics::Standardization scale) {
  std::vector<T> luts(kept.size() * 4);
  for (size_t i = 0; i < kept.size(); ++i) {
    const auto v = static_cast<size_t>(kept[i]);
    if (kept[i] < 0 || v >= counts.size()) return Status::Invalid("pca: variant index ", kept[i], " out of range");
    genomics::make_standardize_lut(counts[v], scale, &luts[i * 4]);
  }
  return luts;
}

}  // namespace strata::genomics
