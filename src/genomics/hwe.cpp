// The Hardy–Weinberg exact test (Wigginton, Cutler & Abecasis 2005) in plink2's form.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

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

namespace {

// ln k! for k = 0 … n, grown per thread as larger cohorts come: the X test reads seven of these
// per row instead of calling lgamma.
const double* log_factorials(int64_t n) {
  thread_local std::vector<double> table;
  if (static_cast<int64_t>(table.size()) <= n) {
    const auto from = static_cast<int64_t>(table.size());
    table.resize(static_cast<size_t>(std::max<int64_t>(n + 1, 2 * from)));
    for (auto k = from; k < static_cast<int64_t>(table.size()); ++k)
      table[static_cast<size_t>(k)] = std::lgamma(static_cast<double>(k) + 1);
  }
  return table.data();
}

}  // namespace

double hwe_xchr_exact_p(int64_t female_het, int64_t female_hom1, int64_t female_hom2, int64_t male1, int64_t male2) {
  // Graffelman & Weir (2016): conditional on the count of allele 1 among all N = 2·F + M
  // alleles, a configuration (m1 males with allele 1, h heterozygous females) has probability
  // ∝ F!/(f11! h! f22!) · 2^h · M!/(m1! m2!). The p-value sums the configurations at most as
  // likely as the observed one. Near the mode: the few terms above the observation (walked
  // from each row's most likely term, in log space from tables of ln k!, then by the two-het
  // ratio in linear space) taken from the closed-form total. In the tail: per row, the terms
  // from the crossing of the observation's likelihood outwards, or the row's closed-form sum when
  // the whole row lies below it. Rows and terms more than e^-40 below both the mode and the
  // observation are left out (each is under 1e-17 of the sum it would join; a million of them
  // move the p-value by under 1e-11).
  const int64_t nf = female_het + female_hom1 + female_hom2, nm = male1 + male2;
  const int64_t n1 = 2 * female_hom1 + female_het + male1, total = 2 * nf + nm;
  if (total == 0) return 1.0;
  const double* lfact = log_factorials(total);  // up to the closed-form total below
  const double lf = lfact[nf], lm = lfact[nm];
  const double ln2 = std::log(2.0);
  auto log_term = [&](int64_t m, int64_t h) {
    const int64_t f11 = (n1 - m - h) / 2, f22 = nf - f11 - h;
    return lf - lfact[f11] - lfact[h] - lfact[f22] + static_cast<double>(h) * ln2 + lm - lfact[m] - lfact[nm - m];
  };
  const double observed = log_term(male1, female_het);
  // A row (m fixed): female allele-1 count a = n1 − m, hets h ≡ a (mod 2), 0 ≤ h ≤ min(a, 2F − a).
  // Its largest term: the continuous mode rounded, then stepped to the true maximum.
  auto row_mode = [&](int64_t m) {
    const int64_t a = n1 - m, hi = std::min(a, 2 * nf - a);
    int64_t h = nf > 0 ? static_cast<int64_t>(std::llround(double(a) * double(2 * nf - a) / double(2 * nf))) : 0;
    h = std::clamp<int64_t>(h, 0, hi);
    if ((h - a) % 2 != 0) h = h + 1 <= hi ? h + 1 : h - 1;
    while (h + 2 <= hi && 4.0 * double((a - h) / 2) * double(nf - (a - h) / 2 - h) > double(h + 1) * double(h + 2))
      h += 2;
    while (h - 2 >= 0 && double(h) * double(h - 1) > 4.0 * double((a - h) / 2 + 1) * double(nf - (a - h) / 2 - h + 1))
      h -= 2;
    return h;
  };
  auto row_top = [&](int64_t m) { return log_term(m, row_mode(m)); };
  // The most likely rows. Rows alternate between odd and even het counts (h ≡ n1 − m mod 2), so
  // the row maxima zigzag; within each parity they are unimodal in m. Climb each parity's from
  // the expected male count; every region summed below is an interval of rows around the peaks.
  const int64_t m_lo = std::max<int64_t>(0, n1 - 2 * nf), m_hi = std::min(nm, n1);
  const int64_t m_expect = std::clamp<int64_t>(std::llround(double(nm) * double(n1) / double(total)), m_lo, m_hi);
  auto climb = [&](int64_t m) {
    double top = row_top(m);
    for (double next; m + 2 <= m_hi && (next = row_top(m + 2)) > top; m += 2) top = next;
    for (double next; m - 2 >= m_lo && (next = row_top(m - 2)) > top; m -= 2) top = next;
    return std::pair{m, top};
  };
  const auto peak_a = climb(m_expect);
  const auto peak_b = m_expect + 1 <= m_hi ? climb(m_expect + 1) : m_expect - 1 >= m_lo ? climb(m_expect - 1) : peak_a;
  const int64_t m_peak_lo = std::min(peak_a.first, peak_b.first), m_peak_hi = std::max(peak_a.first, peak_b.first);
  const double ref = std::max(peak_a.second, peak_b.second);
  const double floor = std::min(ref, observed) - 40.0;
  // Terms relative to the reference term: the floor, and the observation with a tolerance for
  // rounding (equal up to 1e-7 relative counts as at most as likely).
  const double floor_v = std::exp(floor - ref), tie_v = std::exp(observed - ref) * (1.0 + 1e-7);
  // Sums the terms `keep` accepts (a region around the mode: every row's and every term walk
  // stops at the first term it rejects) into `all`, and those at most as likely as the
  // observation also into `tail`.
  auto sweep = [&](auto keep, double& all, double& tail) {
    auto row = [&](int64_t m) {  // one row, both ways from its mode by the two-het ratio
      const int64_t a = n1 - m, hi = std::min(a, 2 * nf - a);
      const int64_t h0 = row_mode(m);
      const double top_v = std::exp(log_term(m, h0) - ref);
      if (!keep(top_v)) return false;
      auto add = [&](double v) {
        all += v;
        if (v <= tie_v) tail += v;
      };
      add(top_v);
      double v = top_v;
      for (int64_t h = h0; h + 2 <= hi; h += 2) {  // up: f11, f22 each lose one
        const double f11 = double((a - h) / 2), f22 = double(nf - (a - h) / 2 - h);
        v *= 4.0 * f11 * f22 / (double(h + 1) * double(h + 2));
        if (!keep(v)) break;
        add(v);
      }
      v = top_v;
      for (int64_t h = h0; h - 2 >= 0; h -= 2) {  // down: f11, f22 each gain one
        const double f11 = double((a - h) / 2 + 1), f22 = double(nf - (a - h) / 2 - h + 1);
        v *= double(h) * double(h - 1) / (4.0 * f11 * f22);
        if (!keep(v)) break;
        add(v);
      }
      return true;
    };
    // Rows between the peaks all count; beyond them, stop at two rejected rows in a row (one
    // of each parity).
    for (int64_t m = m_peak_lo; m <= m_peak_hi; ++m) row(m);
    for (int64_t m = m_peak_hi + 1, misses = 0; m <= m_hi && misses < 2; ++m) misses = row(m) ? 0 : misses + 1;
    for (int64_t m = m_peak_lo - 1, misses = 0; m >= m_lo && misses < 2; --m) misses = row(m) ? 0 : misses + 1;
  };
  // An observation near the mode (most variants of a cohort in equilibrium): sum only the few
  // terms more likely than it and take them from the closed-form total, Σ = C(2F + M, n1)
  // (Vandermonde), while the p-value is large enough for the difference to keep its digits.
  if (observed >= ref - 4.0) {
    const double all = std::exp(lfact[total] - lfact[n1] - lfact[total - n1] - ref);
    double center = 0.0, none = 0.0;
    sweep([&](double v) { return v > tie_v; }, center, none);
    const double p = 1.0 - center / all;
    if (p >= 1e-3) return std::min(1.0, p);
  }
  // Otherwise the tail alone, against the closed-form total. A row's terms sum to
  // C(2F, a)·C(M, m) (a = n1 − m female allele-1 copies among 2F), so a row whose top is at most
  // as likely as the observation counts whole, in O(1). A row reaching above it is unimodal in h:
  // on each side a search finds the first term at most as likely (galloping from the last row's
  // crossing, which moves little from row to row, then bisecting), and only the terms from there
  // outwards down to the floor are walked (the centre, as large as the tail, is skipped).
  const double log_tie = observed + std::log1p(1e-7);
  double tail = 0.0;
  int64_t last_cross[2] = {-1, -1};  // the last row's crossing going down (0) and up (1)
  // The least k in (0, K] whose term (h = h0 + 2·dir·k) is at most the observation's, given
  // that k = K is and k = 0 is not (terms fall with k); `guess` from the last row.
  auto first_at_most = [&](int64_t m, int64_t h0, int dir, int64_t K, int64_t guess) {
    auto at_most = [&](int64_t k) { return log_term(m, h0 + 2 * dir * k) <= log_tie; };
    int64_t in = 0, out = K;
    const int64_t g = std::clamp<int64_t>(guess, 1, K);
    if (at_most(g)) {
      out = g;
      for (int64_t step = 1; out - step > in; step *= 2) {
        if (!at_most(out - step)) {
          in = out - step;
          break;
        }
        out -= step;
      }
    } else {
      in = g;
      for (int64_t step = 1; in + step < out; step *= 2) {
        if (at_most(in + step)) {
          out = in + step;
          break;
        }
        in += step;
      }
    }
    while (out - in > 1) {
      const int64_t mid = in + (out - in) / 2;
      (at_most(mid) ? out : in) = mid;
    }
    return out;
  };
  auto row_tail = [&](int64_t m) {  // false when the row's top is below the floor
    const int64_t a = n1 - m, hi = std::min(a, 2 * nf - a), lo = a & 1;
    const int64_t h0 = row_mode(m);
    const double top = log_term(m, h0);
    if (top < floor) return false;
    if (top <= log_tie) {
      tail += std::exp(lfact[2 * nf] - lfact[a] - lfact[2 * nf - a] + lm - lfact[m] - lfact[nm - m] - ref);
      return true;
    }
    if (h0 < hi && log_term(m, hi) <= log_tie) {  // up from h0: f11, f22 each lose one per step
      const int64_t k = first_at_most(m, h0, 1, (hi - h0) / 2, (last_cross[1] - h0) / 2);
      last_cross[1] = h0 + 2 * k;
      double v = std::exp(log_term(m, last_cross[1]) - ref);
      for (int64_t h = last_cross[1]; v >= floor_v; h += 2) {
        tail += v;
        if (h + 2 > hi) break;
        const double f11 = double((a - h) / 2), f22 = double(nf - (a - h) / 2 - h);
        v *= 4.0 * f11 * f22 / (double(h + 1) * double(h + 2));
      }
    }
    if (h0 > lo && log_term(m, lo) <= log_tie) {  // down: f11, f22 each gain one
      const int64_t k = first_at_most(m, h0, -1, (h0 - lo) / 2, (h0 - last_cross[0]) / 2);
      last_cross[0] = h0 - 2 * k;
      double v = std::exp(log_term(m, last_cross[0]) - ref);
      for (int64_t h = last_cross[0]; v >= floor_v; h -= 2) {
        tail += v;
        if (h - 2 < lo) break;
        const double f11 = double((a - h) / 2 + 1), f22 = double(nf - (a - h) / 2 - h + 1);
        v *= double(h) * double(h - 1) / (4.0 * f11 * f22);
      }
    }
    return true;
  };
  for (int64_t m = m_peak_lo; m <= m_peak_hi; ++m) row_tail(m);
  for (int64_t m = m_peak_hi + 1, misses = 0; m <= m_hi && misses < 2; ++m) misses = row_tail(m) ? 0 : misses + 1;
  for (int64_t m = m_peak_lo - 1, misses = 0; m >= m_lo && misses < 2; --m) misses = row_tail(m) ? 0 : misses + 1;
  const double all = std::exp(lfact[total] - lfact[n1] - lfact[total - n1] - ref);
  return all > 0.0 ? std::min(1.0, tail / all) : 1.0;
}

}  // namespace strata::genomics
