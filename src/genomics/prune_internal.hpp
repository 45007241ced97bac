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

/// Whether r² of variants a and b over the samples both call exceeds `thresh`, from the pair's
/// cross product `dot` over those samples (exact without the missing calls) and each variant's
/// own sums, not knowing where the other's missing calls fall among `group` samples: kAbove or
/// kBelow when every placement gives that answer with a relative margin of 1e-9 (far above the
/// rounding of the exact comparison), else kUnknown. With a few missing calls the sums move
/// little, so most pairs are decided here (inline: the sweep asks it for most pairs).
inline R2Bound bound_r2(int64_t dot, const CallSums& a, const CallSums& b, int64_t group, double thresh) {
  constexpr double kMargin = 1e-9;
  // Every interval end below is a count or a product of two: exact in double below 2^26 samples.
  if (group > (int64_t{1} << 26)) return R2Bound::kUnknown;
  using std::max, std::min;
  const double g = static_cast<double>(group), d = static_cast<double>(dot);
  const double an = static_cast<double>(a.n), bn = static_cast<double>(b.n);
  // Both call n samples: at least the overlap of the two called sets, at most the smaller one.
  const double n_lo = max(0.0, an + bn - g), n_hi = min(an, bn);
  // Each variant loses at most the other's missing calls, each taking +1 (hom REF), -1 (hom
  // ALT) or 0 from Σx and 1 or 0 from Σx².
  const double la = min(g - bn, an), lb = min(g - an, bn);
  const double sa_lo = static_cast<double>(a.sum) - min(la, static_cast<double>(a.hom_ref));
  const double sa_hi = static_cast<double>(a.sum) + min(la, static_cast<double>(a.hom_alt));
  const double sb_lo = static_cast<double>(b.sum) - min(lb, static_cast<double>(b.hom_ref));
  const double sb_hi = static_cast<double>(b.sum) + min(lb, static_cast<double>(b.hom_alt));
  const double qa_lo = static_cast<double>(a.ssq) - min(la, static_cast<double>(a.ssq)), qa_hi = static_cast<double>(a.ssq);
  const double qb_lo = static_cast<double>(b.ssq) - min(lb, static_cast<double>(b.ssq)), qb_hi = static_cast<double>(b.ssq);
  // cov = dot·n − Σa·Σb; var = Σx²·n − (Σx)² (Σx² and n are never negative).
  const double p1 = sa_lo * sb_lo, p2 = sa_lo * sb_hi, p3 = sa_hi * sb_lo, p4 = sa_hi * sb_hi;
  const double cov_lo = min(d * n_lo, d * n_hi) - max(max(p1, p2), max(p3, p4));
  const double cov_hi = max(d * n_lo, d * n_hi) - min(min(p1, p2), min(p3, p4));
  // The least square over an interval: the distance from 0 to it, squared.
  auto least_square = [](double lo, double hi) {
    const double x = max(0.0, max(lo, -hi));
    return x * x;
  };
  const double va_lo = qa_lo * n_lo - max(sa_lo * sa_lo, sa_hi * sa_hi), va_hi = qa_hi * n_hi - least_square(sa_lo, sa_hi);
  const double vb_lo = qb_lo * n_lo - max(sb_lo * sb_lo, sb_hi * sb_hi), vb_hi = qb_hi * n_hi - least_square(sb_lo, sb_hi);
  if (!(va_lo > 0 && vb_lo > 0)) return R2Bound::kUnknown;
  // cov² can pass 2^53: rounded here, within the margin.
  if (least_square(cov_lo, cov_hi) > thresh * va_hi * vb_hi * (1 + kMargin)) return R2Bound::kAbove;
  if (max(cov_lo * cov_lo, cov_hi * cov_hi) < thresh * va_lo * vb_lo * (1 - kMargin)) return R2Bound::kBelow;
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
