#pragma once
// The pieces of ld_prune (strata/genomics/prune.hpp) that the tests reach: the windows of one
// stretch of variants and the pruning of one stretch.
#include <algorithm>
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

/// One variant's calls over a group: the called count, Σx and Σx² (x = +1 hom REF, −1 hom
/// ALT, 0 het) and the homozygote counts.
struct CallSums {
  int64_t n = 0, sum = 0, ssq = 0, hom_ref = 0, hom_alt = 0;
};

enum class R2Bound { kAbove, kBelow, kUnknown };

namespace bounds {

struct Range {
  int64_t lo, hi;
};

inline Range product(Range x, Range y) {
  const int64_t c[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

inline Range square(Range x) {
  const int64_t a = x.lo * x.lo, b = x.hi * x.hi;
  return {x.lo <= 0 && x.hi >= 0 ? 0 : std::min(a, b), std::max(a, b)};
}

// Σx and Σx² of `v` over the samples the other variant also calls: v loses at most `lost` of
// its calls (the other's missing ones), each taking +1 (hom REF), −1 (hom ALT) or 0 from Σx and
// 1 or 0 from Σx².
inline void lost_calls(const CallSums& v, int64_t lost, Range* sum, Range* ssq) {
  *sum = {v.sum - std::min(lost, v.hom_ref), v.sum + std::min(lost, v.hom_alt)};
  *ssq = {v.ssq - std::min(lost, v.ssq), v.ssq};
}

}  // namespace bounds

/// Whether r² of variants a and b over the samples both call exceeds `thresh`, from the pair's
/// cross product `dot` over those samples (exact without the missing calls) and each variant's
/// own sums, not knowing where the other's missing calls fall among `group` samples: kAbove or
/// kBelow when every placement gives that answer with a relative margin of 1e-9 (far above the
/// rounding of the exact comparison), else kUnknown. With a few missing calls the sums move
/// little, so most pairs are decided here (inline: the sweep asks it for most pairs).
inline R2Bound bound_r2(int64_t dot, const CallSums& a, const CallSums& b, int64_t group, double thresh) {
  using namespace bounds;
  constexpr double kMargin = 1e-9;
  // Both call n samples: at least the overlap of the two called sets, at most the smaller one.
  const Range n{std::max<int64_t>(0, a.n + b.n - group), std::min(a.n, b.n)};
  Range sa, qa, sb, qb;
  lost_calls(a, std::min(group - b.n, a.n), &sa, &qa);
  lost_calls(b, std::min(group - a.n, b.n), &sb, &qb);
  const Range dn = dot >= 0 ? Range{dot * n.lo, dot * n.hi} : Range{dot * n.hi, dot * n.lo};
  const Range ss = product(sa, sb);
  const Range cov{dn.lo - ss.hi, dn.hi - ss.lo};
  const Range sa2 = square(sa), sb2 = square(sb);
  // Σx² and n are never negative, so their products are monotone.
  const Range va{qa.lo * n.lo - sa2.hi, qa.hi * n.hi - sa2.lo}, vb{qb.lo * n.lo - sb2.hi, qb.hi * n.hi - sb2.lo};
  if (va.lo <= 0 || vb.lo <= 0) return R2Bound::kUnknown;
  // cov² can pass 2^63 (counts of 10^5 samples and more): squared in double, whose rounding
  // the margin covers.
  const double cl = static_cast<double>(cov.lo), ch = static_cast<double>(cov.hi);
  const double lo = cov.lo <= 0 && cov.hi >= 0 ? 0.0 : std::min(cl * cl, ch * ch), hi = std::max(cl * cl, ch * ch);
  if (lo > thresh * static_cast<double>(va.hi) * static_cast<double>(vb.hi) * (1 + kMargin)) return R2Bound::kAbove;
  if (hi < thresh * static_cast<double>(va.lo) * static_cast<double>(vb.lo) * (1 - kMargin)) return R2Bound::kBelow;
  return R2Bound::kUnknown;
}

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
