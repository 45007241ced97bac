#pragma once
// Test oracle for PCA, independent of the library's counting, standardization and SVD: the GRM
// XᵀX/M of variant-major dosages standardized by the textbook formula (g − 2f)/√(2f(1 − f)),
// with f counted here and missing calls at the mean (0), and its eigenpairs by LAPACK dsyev.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace strata::genomics {

// ALT frequency of variant v over its observed calls, and whether it varies at all (both alleles
// seen); dosages are m × n, −1 = missing.
struct RefFreq {
  double f = 0;
  bool polymorphic = false;
};
inline RefFreq reference_freq(const std::vector<int8_t>& d, int64_t n, int64_t v) {
  int64_t alt = 0, observed = 0;
  for (int64_t j = 0; j < n; ++j) {
    const int8_t g = d[static_cast<size_t>(v * n + j)];
    if (g < 0) continue;
    alt += g;
    ++observed;
  }
  RefFreq r;
  if (observed == 0) return r;
  r.f = static_cast<double>(alt) / static_cast<double>(2 * observed);
  r.polymorphic = alt > 0 && alt < 2 * observed;
  return r;
}

// Eigenvalues (descending) and eigenvectors (samples × all, column-major, in that order) of
// XᵀX / m_divisor over the polymorphic variants (only those listed in `only`, sorted, if given).
struct GrmEig {
  std::vector<double> w;
  std::vector<double> z;
};
inline GrmEig reference_grm(const std::vector<int8_t>& d, int64_t m, int64_t n, double m_divisor,
                            const std::vector<int64_t>* only = nullptr) {
  std::vector<double> g(static_cast<size_t>(n * n), 0.0);  // column-major n × n
  std::vector<double> x(static_cast<size_t>(n));
  for (int64_t v = 0; v < m; ++v) {
    const RefFreq rf = reference_freq(d, n, v);
    if (!rf.polymorphic) continue;
    if (only && !std::binary_search(only->begin(), only->end(), v)) continue;
    const double sd = std::sqrt(2.0 * rf.f * (1.0 - rf.f));
    for (int64_t j = 0; j < n; ++j) {
      const int8_t gt = d[static_cast<size_t>(v * n + j)];
      x[static_cast<size_t>(j)] = gt < 0 ? 0.0 : (gt - 2.0 * rf.f) / sd;
    }
    for (int64_t b = 0; b < n; ++b)
      for (int64_t a = 0; a < n; ++a)
        g[static_cast<size_t>(a + b * n)] += x[static_cast<size_t>(a)] * x[static_cast<size_t>(b)];
  }
  for (double& e : g) e /= m_divisor;
  GrmEig out;
  out.w.resize(static_cast<size_t>(n));
  const int info =
      LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', static_cast<int>(n), g.data(), static_cast<int>(n), out.w.data());
  if (info != 0) out.w.assign(out.w.size(), std::nan(""));  // fails every comparison
  std::reverse(out.w.begin(), out.w.end());
  out.z.resize(g.size());
  for (int64_t c = 0; c < n; ++c)
    std::copy(g.begin() + (n - 1 - c) * n, g.begin() + (n - c) * n, out.z.begin() + c * n);
  return out;
}

}  // namespace strata::genomics
