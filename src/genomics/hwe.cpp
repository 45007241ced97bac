// The Hardy–Weinberg exact test (Wigginton, Cutler & Abecasis 2005) in plink2's form.
#include <algorithm>
#include <cfloat>

#include "strata/genomics/qc.hpp"

namespace strata::genomics {

double hwe_exact_p(int64_t het, int64_t hom1, int64_t hom2) {
  const double homr0 = static_cast<double>(std::min(hom1, hom2));
  const double homc0 = static_cast<double>(std::max(hom1, hom2));
  const __int128 n2 = 2 * static_cast<__int128>(het + hom1 + hom2);  // alleles
  if (n2 == 0) return 1.0;
  const __int128 rare = 2 * static_cast<__int128>(std::min(hom1, hom2)) + het;
  // Probabilities relative to the observed count's, which starts tiny so that the far larger
  // ones near the mode stay finite; only their ratio matters. A count counts as at most as
  // likely as the observed one up to a relative 2^-44 (rounding of the recurrence: true ties).
  constexpr double kLimit = 1.0339757656912846e-25;  // 2^-83
  constexpr double kObserved = kLimit * (1.0 - 0x1p-44);
  double tail = kObserved, center = 0.0;
  // Stepping down two hets: P(h-2) = P(h)·h(h-1) / (4(r+1)(c+1)); up: P(h+2) = P(h)·4rc / ((h+2)(h+1)),
  // with r, c the rare and common homozygote counts at h.
  auto walk_down = [&](bool near) {
    double h = static_cast<double>(het), r = homr0, c = homc0, p = kObserved;
    bool below = !near;  // on the far side every count is less likely than the observed one
    while (h > 1.5) {
      r += 1;
      c += 1;
      p *= (h * (h - 1)) / (4 * r * c);
      h -= 2;
      if (!below && p < kLimit) below = true;
      if (below) {
        const double before = tail;
        tail += p;
        if (tail <= before) break;  // the rest underflows the sum
      } else {
        center += p;
        if (center > DBL_MAX) return false;
      }
    }
    return true;
  };
  auto walk_up = [&](bool near) {
    double h = static_cast<double>(het), r = homr0, c = homc0, p = kObserved;
    bool below = !near;
    while (r > 0.5) {
      h += 2;
      p *= (4 * r * c) / (h * (h - 1));
      r -= 1;
      c -= 1;
      if (!below && p < kLimit) below = true;
      if (below) {
        const double before = tail;
        tail += p;
        if (tail <= before) break;
      } else {
        center += p;
        if (center > DBL_MAX) return false;
      }
    }
    return true;
  };
  // The side of the expected het count the observation lies on decides which walk crosses the mode.
  const bool above = static_cast<__int128>(het) * n2 > rare * (n2 - rare);
  const bool finite = above ? walk_down(true) && walk_up(false) : walk_up(true) && walk_down(false);
  if (!finite) return 0.0;
  return tail / (tail + center);
}

}  // namespace strata::genomics
