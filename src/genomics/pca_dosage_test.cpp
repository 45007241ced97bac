// PCA and the GRM of a view with fractional dosages against a float64 oracle written here from
// the dosages (plink2's definition: f from the observed dosages, x = (d − 2f)/√(2f(1 − f)),
// missing x = 0, divided by M or by the variants both samples observe); every PCA route.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "core/test_context.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/io/genotype_dosage.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

constexpr int64_t kM = 400, kN = 70;

// m × n dosages on plink2's 1/16384 grid (so the view's stored values are these exactly): two
// populations, most values fractional, 3 % missing (NaN) on every 3rd variant, variant 4 constant.
std::vector<double> dosages() {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<double> d(static_cast<size_t>(kM * kN));
  for (int64_t v = 0; v < kM; ++v) {
    const double p = 0.05 + 0.5 * u(rng), q = std::clamp(p + 0.4 * (u(rng) - 0.5), 0.02, 0.95);
    for (int64_t s = 0; s < kN; ++s) {
      const double f = s < kN / 3 ? q : p;
      const double call = (u(rng) < f) + (u(rng) < f);
      double x = std::fmin(2.0, std::fmax(0.0, call + 0.3 * z(rng)));
      x = std::round(x * 16384) / 16384;
      if (v % 3 == 2 && u(rng) < 0.03) x = std::nan("");
      if (v == 4) x = 0.0;
      d[static_cast<size_t>(v * kN + s)] = x;
    }
  }
  return d;
}

// Standardized rows (m × n) as the oracle defines them; `observed` 1/0 per entry.
std::vector<double> standardized(const std::vector<double>& d, std::vector<double>& observed) {
  std::vector<double> x(d.size(), 0.0);
  observed.assign(d.size(), 0.0);
  for (int64_t v = 0; v < kM; ++v) {
    double sum = 0, obs = 0;
    for (int64_t s = 0; s < kN; ++s) {
      const double g = d[static_cast<size_t>(v * kN + s)];
      if (!std::isnan(g)) sum += g, obs += 1;
    }
    const double f = sum / (2 * obs), var = 2 * f * (1 - f);
    for (int64_t s = 0; s < kN; ++s) {
      const auto i = static_cast<size_t>(v * kN + s);
      observed[i] = !std::isnan(d[i]);
      if (observed[i] > 0 && var > 1e-12) x[i] = (d[i] - 2 * f) / std::sqrt(var);
    }
  }
  return x;
}

io::GenotypeViewPtr view_of(const std::vector<double>& d) {
  auto b = io::DosageViewBuilder::make(kM, kN);
  if (!b.ok()) return nullptr;
  const io::DosageMatrix mat{d.data(), io::DosageType::Float64, kM, kN, kN, 1};
  if (!b->add_rows(0, mat).ok()) return nullptr;
  auto v = std::move(*b).finish({}, {});
  return v.ok() ? *v : nullptr;
}

TEST(PcaDosages, EveryRouteMatchesTheDosageOracle) {
  const auto d = dosages();
  const auto view = view_of(d);
  ASSERT_NE(view, nullptr);
  ASSERT_TRUE(view->has_dosages());
  std::vector<double> observed;
  const auto x = standardized(d, observed);
  std::vector<double> g(static_cast<size_t>(kN * kN), 0.0);  // XᵀX / M, column-major
  for (int64_t v = 0; v < kM; ++v)
    for (int64_t b = 0; b < kN; ++b)
      for (int64_t a = 0; a < kN; ++a)
        g[static_cast<size_t>(a + b * kN)] += x[static_cast<size_t>(v * kN + a)] * x[static_cast<size_t>(v * kN + b)] / kM;
  std::vector<double> w(static_cast<size_t>(kN));
  ASSERT_EQ(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', static_cast<int>(kN), g.data(), static_cast<int>(kN), w.data()), 0);
  std::reverse(w.begin(), w.end());
  for (auto [method, route] : {std::pair{linalg::SvdMethod::Exact, PcaRoute::Tsqr},
                               std::pair{linalg::SvdMethod::Exact, PcaRoute::Grm},
                               std::pair{linalg::SvdMethod::Exact, PcaRoute::Krylov},
                               std::pair{linalg::SvdMethod::Randomized, PcaRoute::Auto}}) {
    PcaParams o;
    o.k = 4;
    o.method = method;
    o.exact_route = route;
    o.iterations = 10;  // spans every sample: exact to the products' rounding
    STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
    EXPECT_EQ(r.filter.dropped_monomorphic, 1);
    EXPECT_EQ(r.grm_variants, kM);
    const double tol = route == PcaRoute::Tsqr ? 1e-10 : route == PcaRoute::Auto ? 1e-4 : 1e-6;
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(r.eigenvalues[i] / w[i], 1.0, tol) << pca_route_name(route) << " PC" << i + 1;
  }
}

TEST(GrmDosages, MatchesTheDosageOracleWithAndWithoutMeanimpute) {
  const auto d = dosages();
  const auto view = view_of(d);
  ASSERT_NE(view, nullptr);
  std::vector<double> observed;
  const auto x = standardized(d, observed);
  for (bool meanimpute : {false, true}) {
    GrmParams p;
    p.meanimpute = meanimpute;
    p.tile = 32;
    GrmInfo info;
    STRATA_ASSERT_OK_AND_ASSIGN(std::vector<double> got, compute_grm_dense(test_ctx(), view, p, &info));
    EXPECT_EQ(info.pairwise_counts, !meanimpute);
    EXPECT_EQ(info.integer_variants, 0);
    for (int64_t a = 0; a < kN; ++a)
      for (int64_t b = 0; b < kN; ++b) {
        double s = 0, both = 0;
        for (int64_t v = 0; v < kM; ++v) {
          const auto ia = static_cast<size_t>(v * kN + a), ib = static_cast<size_t>(v * kN + b);
          s += x[ia] * x[ib];
          both += observed[ia] * observed[ib];
        }
        const double want = s / (meanimpute ? double(kM) : both);
        // Float64 panels (GrmParams::float64): float64 sums in another order than these.
        ASSERT_NEAR(got[static_cast<size_t>(a * kN + b)], want, 1e-12) << meanimpute << " (" << a << ", " << b << ")";
      }
  }
}

}  // namespace
}  // namespace strata::genomics
