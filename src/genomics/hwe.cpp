// The Hardy–Weinberg exact test (Wigginton, Cutler & Abecasis 2005) in plink2's form.
#include <algorithm>
#include <cfloat>
#include <cmath>

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

double hwe_xchr_exact_p(int64_t female_het, int64_t female_hom1, int64_t female_hom2, int64_t male1, int64_t male2) {
  // Graffelman & Weir (2016): conditional on the count of allele 1 among all N = 2·F + M
  // alleles, a configuration (m1 males with allele 1, h heterozygous females) has probability
  // ∝ F!/(f11! h! f22!) · 2^h · M!/(m1! m2!). The p-value sums the configurations at most as
  // likely as the observed one. Terms are summed in log space from the most likely row of m1
  // outwards; rows and terms more than e^-60 below both the mode and the observation are left out.
  const int64_t nf = female_het + female_hom1 + female_hom2, nm = male1 + male2;
  const int64_t n1 = 2 * female_hom1 + female_het + male1, total = 2 * nf + nm;
  if (total == 0) return 1.0;
  const double lf = std::lgamma(static_cast<double>(nf) + 1), lm = std::lgamma(static_cast<double>(nm) + 1);
  const double ln2 = std::log(2.0);
  auto log_term = [&](int64_t m, int64_t h) {
    const int64_t f11 = (n1 - m - h) / 2, f22 = nf - f11 - h;
    return lf - std::lgamma(static_cast<double>(f11) + 1) - std::lgamma(static_cast<double>(h) + 1) -
           std::lgamma(static_cast<double>(f22) + 1) + static_cast<double>(h) * ln2 + lm -
           std::lgamma(static_cast<double>(m) + 1) - std::lgamma(static_cast<double>(nm - m) + 1);
  };
  const double observed = log_term(male1, female_het);
  // A row (m fixed): female allele-1 count a = n1 − m, hets h ≡ a (mod 2), 0 ≤ h ≤ min(a, 2F − a).
  auto row_mode = [&](int64_t m) {
    const int64_t a = n1 - m, hi = std::min(a, 2 * nf - a);
    int64_t h = nf > 0 ? static_cast<int64_t>(std::llround(double(a) * double(2 * nf - a) / double(2 * nf))) : 0;
    h = std::clamp<int64_t>(h, 0, hi);
    if ((h - a) % 2 != 0) h = h + 1 <= hi ? h + 1 : h - 1;
    return h;
  };
  const int64_t m_lo = std::max<int64_t>(0, n1 - 2 * nf), m_hi = std::min(nm, n1);
  const int64_t m_start = std::clamp<int64_t>(std::llround(double(nm) * double(n1) / double(total)), m_lo, m_hi);
  const double ref = log_term(m_start, row_mode(m_start));
  const double floor = std::min(ref, observed) - 60.0;
  const double tie = observed + 1e-7;  // equal up to rounding of the log terms
  double all = 0.0, tail = 0.0;
  // One row: walk both ways from its mode by the two-het ratio; returns the row's largest log term.
  auto row = [&](int64_t m) {
    const int64_t a = n1 - m, hi = std::min(a, 2 * nf - a);
    const int64_t h0 = row_mode(m);
    const double top = log_term(m, h0);
    auto add = [&](double lt) {
      const double v = std::exp(lt - ref);
      all += v;
      if (lt <= tie) tail += v;
    };
    add(top);
    double lt = top;
    for (int64_t h = h0; h + 2 <= hi; h += 2) {  // up: f11, f22 each lose one
      const double f11 = double((a - h) / 2), f22 = double(nf - (a - h) / 2 - h);
      lt += std::log(4.0 * f11 * f22 / (double(h + 1) * double(h + 2)));
      if (lt < floor) break;
      add(lt);
    }
    lt = top;
    for (int64_t h = h0; h - 2 >= 0; h -= 2) {  // down: f11, f22 each gain one
      const double f11 = double((a - h) / 2 + 1), f22 = double(nf - (a - h) / 2 - h + 1);
      lt += std::log(double(h) * double(h - 1) / (4.0 * f11 * f22));
      if (lt < floor) break;
      add(lt);
    }
    return top;
  };
  row(m_start);
  for (int64_t m = m_start + 1; m <= m_hi; ++m)
    if (row(m) < floor) break;
  for (int64_t m = m_start - 1; m >= m_lo; --m)
    if (row(m) < floor) break;
  return all > 0.0 ? std::min(1.0, tail / all) : 1.0;
}

}  // namespace strata::genomics
