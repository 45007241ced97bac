#pragma once
// The pieces of ld_prune (strata/genomics/prune.hpp) that the tests reach: the windows of one
// stretch of variants and the pruning of one stretch.
#include <cstdint>
#include <utility>
#include <vector>

#include "strata/genomics/prune.hpp"

namespace strata::genomics::detail {

/// Whose calls count at one chromosome: group 0 with weight 1, group 1 with weight 2 (X's
/// non-males); `het_missing` makes group 0's hets missing (haploid calls).
struct PruneGroups {
  std::vector<int64_t> samples[2];  ///< view sample indices, ascending
  bool het_missing = false;
  int64_t num_view_samples = 0;     ///< group 0 naming all of them is read without gathering
};

/// The windows of a stretch of `len` variants, as plink2 steps them: [start, end) in stretch
/// positions, ends increasing to `len`. `positions` (base pairs) are read for a kb window.
std::vector<std::pair<int64_t, int64_t>> prune_windows(const std::vector<int64_t>& positions, int64_t len,
                                                       const PruneWindow& window);

/// The stretches plink2 prunes separately on one chromosome of `len` variants: all of it for a
/// count window; for a kb window, pieces split where a variant lies more than the window past
/// the previous one. Only pieces of 2 or more variants are listed: [first, first + length).
std::vector<std::pair<int64_t, int64_t>> prune_stretches(const std::vector<int64_t>& positions, int64_t len,
                                                         const PruneWindow& window);

/// Prune variants [first, first + len) of `view`: `positions` and `maj_freq` indexed by stretch
/// position (`maj_freq` empty: taken from the calls, for a diploid group 0 of every founder);
/// sets removed[i] for the removed ones.
Status prune_stretch(const Context& ctx, const io::GenotypeView& view, int64_t first, int64_t len,
                     const std::vector<int64_t>& positions, const std::vector<double>& maj_freq,
                     const PruneGroups& groups, const PruneWindow& window, std::vector<uint8_t>& removed);

}  // namespace strata::genomics::detail
