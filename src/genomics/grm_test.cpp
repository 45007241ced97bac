// compute_grm against a float64 oracle from the dosages (plink2's definition, with and without
// meanimpute), the same bits for any threads / tile size / band split, and format_grm_value
// against printf's %g.
#include "strata/genomics/grm.hpp"

#include <cmath>
#include <cstdio>
#include <random>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/backend/backend.hpp"
#include "strata/genomics/grm_output.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

// plink2's GRM from dosages (−1 = missing): x = (g − 2f)/√(2f(1 − f)) with f from observed
// calls, missing x = 0, monomorphic x = 0; divided by M or by the variants both observe.
std::vector<double> oracle_grm(const std::vector<int8_t>& d, int64_t m, int64_t n, bool meanimpute,
                               std::vector<double>* pair_counts) {
  std::vector<double> x(static_cast<size_t>(m * n), 0.0);
  std::vector<double> obs(static_cast<size_t>(m * n), 0.0);
  for (int64_t v = 0; v < m; ++v) {
    double alt = 0, called = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int8_t g = d[static_cast<size_t>(v * n + j)];
      if (g >= 0) alt += g, called += 1;
    }
    const double f = called > 0 ? alt / (2 * called) : 0.0;
    const double var = 2 * f * (1 - f);
    for (int64_t j = 0; j < n; ++j) {
      const int8_t g = d[static_cast<size_t>(v * n + j)];
      obs[static_cast<size_t>(v * n + j)] = g >= 0;
      if (g >= 0 && var > 0) x[static_cast<size_t>(v * n + j)] = (g - 2 * f) / std::sqrt(var);
    }
  }
  std::vector<double> out(static_cast<size_t>(n * n));
  pair_counts->assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b) {
      double s = 0, both = 0;
      for (int64_t v = 0; v < m; ++v) {
        s += x[static_cast<size_t>(v * n + a)] * x[static_cast<size_t>(v * n + b)];
        both += obs[static_cast<size_t>(v * n + a)] * obs[static_cast<size_t>(v * n + b)];
      }
      const double cnt = meanimpute ? double(m) : both;
      (*pair_counts)[static_cast<size_t>(a * n + b)] = cnt;
      out[static_cast<size_t>(a * n + b)] = s / cnt;
    }
  return out;
}

TEST(Grm, MatchesTheFloat64DefinitionWithAndWithoutMeanimpute) {
  const int64_t m = 1100, n = 37;  // two blocks of variants and a partial one; n not a tile multiple
  for (bool float64 : {true, false}) {
  SCOPED_TRACE(float64 ? "float64 panels" : "float32 panels");
  const auto d = cohort_dosages(m, n, 5);
  const auto view = cohort(m, n, 5);
  ASSERT_NE(view, nullptr);
  const Context ctx = testing::make_test_context(2);
  for (bool meanimpute : {false, true}) {
    std::vector<double> counts;
    const auto ref = oracle_grm(d, m, n, meanimpute, &counts);
    GrmParams p;
    p.meanimpute = meanimpute;
    p.float64 = float64;
    p.tile = 16;
    std::vector<double> got(static_cast<size_t>(n * n), std::nan("")), got_counts(got.size(), -1.0);
    int64_t tiles = 0;
    STRATA_ASSERT_OK_AND_ASSIGN(GrmInfo info, compute_grm(ctx, view, p, [&](const GrmTile& t) {
                                  ++tiles;
                                  EXPECT_GE(t.row0, t.col0);
                                  EXPECT_EQ(t.counts != nullptr, !meanimpute);
                                  for (int64_t i = 0; i < t.rows; ++i)
                                    for (int64_t j = 0; j < t.cols; ++j) {
                                      got[static_cast<size_t>((t.row0 + i) * n + t.col0 + j)] = t.values[i * t.cols + j];
                                      if (t.counts)
                                        got_counts[static_cast<size_t>((t.row0 + i) * n + t.col0 + j)] =
                                            t.counts[i * t.cols + j];
                                    }
                                  return Status::OK();
                                }));
    EXPECT_EQ(tiles, 3);  // tile 16 rounds up to 32: 2 tile rows of the lower triangle
    EXPECT_EQ(info.grm_variants, m);  // the monomorphic variant counts
    EXPECT_EQ(info.pairwise_counts, !meanimpute);
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b <= a; ++b) {
        const auto e = static_cast<size_t>(a * n + b);
        // Float64 panels: float64 sums in another order than the oracle's (~1e-16 relative).
        EXPECT_NEAR(got[e], ref[e], (float64 ? 1e-12 : 2e-7) * std::max(1.0, std::fabs(ref[e])))
            << a << "," << b << " " << meanimpute;
        if (!meanimpute) EXPECT_EQ(got_counts[e], counts[e]) << a << "," << b;
      }
  }
  }
}

TEST(Grm, SameBitsForAnyThreadsTilesAndBands) {
  const int64_t m = 1300, n = 70;
  const auto view = cohort(m, n, 9);
  ASSERT_NE(view, nullptr);
  for (bool float64 : {true, false}) {
  SCOPED_TRACE(float64 ? "float64 panels" : "float32 panels");
  GrmParams p;
  p.float64 = float64;
  p.tile = 32;
  STRATA_ASSERT_OK_AND_ASSIGN(auto ref, compute_grm_dense(testing::make_test_context(1), view, p));
  for (int threads : {1, 2, 3}) {
    for (int64_t tile : {16, 32, 50}) {
      p.tile = tile;
      GrmInfo info;
      STRATA_ASSERT_OK_AND_ASSIGN(auto g, compute_grm_dense(testing::make_test_context(threads), view, p, &info));
      EXPECT_EQ(g, ref) << threads << " threads, tile " << tile;
      EXPECT_EQ(info.bands, 1);
    }
  }
  // A budget too small for every tile at once: one band (pass over the variants) per tile row.
  p.tile = 16;
  GrmInfo info;
  STRATA_ASSERT_OK_AND_ASSIGN(auto banded, compute_grm_dense(testing::make_test_context(2, 1), view, p, &info));
  EXPECT_EQ(info.bands, 3);  // tile 16 rounds up to 32: 3 tile rows
  EXPECT_EQ(banded, ref);
  }
}

// From hard calls the GRM is the same bits at every CPU level, portable included (the sparse
// step's products are exact or fused everywhere), with and without missing calls.
TEST(Grm, SameBitsAtEveryCpuLevel) {
  const auto view = cohort(700, 75, 11);
  ASSERT_NE(view, nullptr);
  for (bool meanimpute : {false, true}) {
    GrmParams p;
    p.meanimpute = meanimpute;
    p.tile = 32;
    std::vector<double> ref;
    int levels = 0;
    for (backend::CpuIsa isa : {backend::CpuIsa::Portable, backend::CpuIsa::Avx2, backend::CpuIsa::Avx512,
                                backend::CpuIsa::Avx512Vnni, backend::CpuIsa::Neon}) {
      auto be = backend::make_cpu_backend(isa);
      if (!be.ok()) continue;  // not this CPU's (or above STRATA_CPU)
      ContextOptions o;
      o.backend_impl = *be;
      o.threads = 2;
      STRATA_ASSERT_OK_AND_ASSIGN(Context ctx, Context::make(o));
      STRATA_ASSERT_OK_AND_ASSIGN(auto g, compute_grm_dense(ctx, view, p));
      if (ref.empty()) ref = g;
      EXPECT_EQ(g, ref) << backend::cpu_isa_name(isa) << " meanimpute " << meanimpute;
      ++levels;
    }
    EXPECT_GE(levels, 1);
    if (levels < 2) std::printf("[ note ] one CPU level here: nothing to compare it with\n");
  }
}

// Integer products (complete variants; the rest of the cohort's variants have missing calls
// and stay on the float32 path): within the float path's bound of the float64 definition, and
// the same bits for any threads / tile size / band split.
TEST(Grm, IntegerProductsMatchTheDefinitionAndAreTheSameBitsForAnyTiling) {
  const int64_t m = 1300, n = 70;
  const auto d = cohort_dosages(m, n, 9);
  const auto view = cohort(m, n, 9);
  ASSERT_NE(view, nullptr);
  GrmParams p;
  p.meanimpute = true;
  p.integer_products = true;
  p.tile = 32;
  GrmInfo info;
  const Context one = testing::make_test_context(1);
  STRATA_ASSERT_OK_AND_ASSIGN(auto ref, compute_grm_dense(one, view, p, &info));
  if (backend::of(one).fast_u8s8()) EXPECT_GT(info.integer_variants, 400);  // ~half the variants
  std::vector<double> counts;
  const auto exact = oracle_grm(d, m, n, true, &counts);
  // Weights and centring weights rounded to ~20 bits: entries within ~3e-8 typically, 1.2e-7 at
  // most here (the float32 path: 5e-8); eigenvalues average these errors over many entries.
  for (size_t e = 0; e < ref.size(); ++e)
    EXPECT_NEAR(ref[e], exact[e], 2.5e-7 * std::max(1.0, std::fabs(exact[e]))) << e;
  for (int threads : {1, 2, 3}) {
    for (int64_t tile : {16, 32, 50}) {
      p.tile = tile;
      STRATA_ASSERT_OK_AND_ASSIGN(auto g, compute_grm_dense(testing::make_test_context(threads), view, p));
      EXPECT_EQ(g, ref) << threads << " threads, tile " << tile;
    }
  }
  p.tile = 16;
  STRATA_ASSERT_OK_AND_ASSIGN(auto banded, compute_grm_dense(testing::make_test_context(2, 1), view, p, &info));
  EXPECT_EQ(info.bands, 3);
  EXPECT_EQ(banded, ref);
}

TEST(Grm, RefusesOneSampleAndABadTile) {
  const Context ctx = testing::make_test_context(1);
  const auto one = cohort(20, 1, 3);
  ASSERT_NE(one, nullptr);
  auto sink = [](const GrmTile&) { return Status::OK(); };
  STRATA_EXPECT_STATUS(compute_grm(ctx, one, GrmParams{}, sink).status(), StatusCode::InvalidData,
                       "a relationship matrix needs at least 2 samples, got 1");
  GrmParams p;
  const auto many = cohort(5, 400, 3);
  p.tile = -3;
  STRATA_EXPECT_STATUS(compute_grm(ctx, many, p, sink).status(), StatusCode::Invalid, "tile must be positive");
}

TEST(Grm, FormatsValuesAsPrintfG) {
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> xs = {0.0, 1.0, -1.0, 1.02265455, 0.0507527, 5.18998e-05, -1.4831e-06, 9.13074e-05,
                            0.000826638, 123456.5, 999999.5, 1e-5, 0.99999951, 3.83333333333, 1e22, 1e-300,
                            -0.0001, 99999.95};
  for (int i = 0; i < 20000; ++i) xs.push_back(u(g) * std::pow(10.0, static_cast<int>(u(g) * 8)));
  for (double x : xs) {
    char want[64], got[64];
    std::snprintf(want, sizeof(want), "%g", x);
    *format_grm_value(x, got) = '\0';
    EXPECT_STREQ(got, want) << x;
  }
}

}  // namespace
}  // namespace strata::genomics
