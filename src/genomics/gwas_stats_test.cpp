// strata gwas statistics: P-values against independent references (numerical integration in
// extended precision; erfc), the normal quantile, the max-corr / VIF check.
#include <gtest/gtest.h>

#include <cmath>

#include "gwas_internal.hpp"

namespace strata::genomics::gwas_detail {
namespace {

TEST(GwasStats, StudentTailMatchesIntegration) {
  // References: 1 − 2∫₀ᵗ f(x)dx by Simpson's rule on 2·10⁶ intervals in 80-bit long double.
  EXPECT_NEAR(p_from_t(2.4657172934125587663, 53) / 0.016944950158415827404, 1.0, 1e-12);
  EXPECT_NEAR(p_from_t(-2.4657172934125587663, 53) / 0.016944950158415827404, 1.0, 1e-12);
  // df → ∞ approaches the normal tail; t = 0 gives 1.
  EXPECT_NEAR(p_from_t(1.959963984540054, 1e7), 0.05, 1e-7);
  EXPECT_DOUBLE_EQ(p_from_t(0.0, 10), 1.0);
  // Far tail keeps relative accuracy: df = 1 (Cauchy) has P = 1 − 2·atan(t)/π.
  EXPECT_NEAR(p_from_t(1e6, 1) / (2.0 / M_PI * std::atan(1.0 / 1e6)), 1.0, 1e-10);
}

TEST(GwasStats, NormalTailAndQuantile) {
  EXPECT_NEAR(p_from_z(1.959963984540054), 0.05, 1e-15);
  // 2·Φ(−10), Φ(−10) = 7.619853024160527e-24.
  EXPECT_NEAR(p_from_z(-10.0) / 1.5239706048321054e-23, 1.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-12);
}

TEST(GwasStats, CorrAndVifCheck) {
  // Gram of [1, a, b] over 4 samples: a = (0,1,2,3), b = a + tiny → correlation ≈ 1.
  auto gram_of = [](const std::vector<std::vector<double>>& cols) {
    const int64_t p = static_cast<int64_t>(cols.size());
    std::vector<double> g(static_cast<size_t>(p * p));
    for (int64_t i = 0; i < p; ++i)
      for (int64_t j = 0; j < p; ++j)
        for (size_t s = 0; s < cols[0].size(); ++s) g[i * p + j] += cols[i][s] * cols[j][s];
    return g;
  };
  const std::vector<double> one(4, 1.0), a{0, 1, 2, 3}, b{0.001, 1, 2, 3}, c{1, 0, 0, 1}, d{1, -1, 1, -1};
  EXPECT_EQ(check_corr_and_vif(gram_of({one, a, b}), 3, 0.999, 50), Err::CorrTooHigh);
  EXPECT_EQ(check_corr_and_vif(gram_of({one, a, c}), 3, 0.999, 50), Err::Ok);
  // a + c − d is not collinear; e = a + c is with a, c.
  std::vector<double> e(4);
  for (int s = 0; s < 4; ++s) e[s] = a[s] + c[s];
  EXPECT_NE(check_corr_and_vif(gram_of({one, a, c, e}), 4, 0.999, 50), Err::Ok);
  EXPECT_EQ(check_corr_and_vif(gram_of({one, a, d}), 3, 0.999, 50), Err::Ok);
}

}  // namespace
}  // namespace strata::genomics::gwas_detail
