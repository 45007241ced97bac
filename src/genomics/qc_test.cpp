// Variant counts, filters and standardization tables.
#include <cmath>
#include <filesystem>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

using namespace strata::io;
namespace fs = std::filesystem;
using strata::testing::shared_data_dir;

// One variant per row of dosages (-1 = missing).
GenotypeViewPtr make_view(const std::vector<std::vector<int>>& rows) {
  const int64_t m = static_cast<int64_t>(rows.size()), n = static_cast<int64_t>(rows[0].size());
  std::vector<uint8_t> codes(static_cast<size_t>(m * packed_row_bytes(n)), 0xFF);
  for (int64_t v = 0; v < m; ++v)
    for (int64_t s = 0; s < n; ++s)
      set_code(codes.data() + v * packed_row_bytes(n), s, static_cast<uint8_t>(rows[v][s] < 0 ? int{kCodeMissing} : rows[v][s]));
  auto view = make_memory_genotypes(std::move(codes), m, n, numbered_samples(n), {"1"}, numbered_variants(m));
  EXPECT_TRUE(view.ok());
  return *view;
}

TEST(VariantStats, CountsAndFrequencies) {
  auto view = make_view({{0, 1, 2, -1, 2}, {0, 0, 0, 0, 0}, {-1, -1, -1, -1, -1}});
  STRATA_ASSERT_OK_AND_ASSIGN(auto c, compute_variant_counts(test_ctx(), *view));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].hom_ref, 1);
  EXPECT_EQ(c[0].het, 1);
  EXPECT_EQ(c[0].hom_alt, 2);
  EXPECT_EQ(c[0].missing, 1);
  EXPECT_EQ(c[0].allele_count(), 8);
  EXPECT_DOUBLE_EQ(c[0].alt_freq(), 5.0 / 8.0);
  EXPECT_DOUBLE_EQ(c[0].maf(), 3.0 / 8.0);
  EXPECT_DOUBLE_EQ(c[0].missing_rate(), 0.2);
  EXPECT_TRUE(c[1].monomorphic());
  EXPECT_TRUE(std::isnan(c[2].alt_freq()));
  EXPECT_TRUE(c[2].monomorphic());
}

TEST(VariantStats, FiltersFollowPlinkSemantics) {
  std::vector<VariantCounts> c(4);
  c[0] = {8, 2, 0, 0};   // maf 0.1
  c[1] = {5, 0, 0, 5};   // missing 0.5, monomorphic
  c[2] = {10, 0, 0, 0};  // monomorphic
  c[3] = {9, 1, 0, 0};   // maf 0.05
  VariantFilter f;
  f.min_maf = 0.1;       // keeps maf == 0.1
  f.max_missing = 0.5;   // keeps missing == 0.5 (drops only > 0.5)
  f.drop_monomorphic = true;
  auto r = apply_variant_filter(c, f);
  EXPECT_EQ(r.kept, (std::vector<int64_t>{0}));
  EXPECT_EQ(r.dropped_missing, 0);
  EXPECT_EQ(r.dropped_monomorphic, 2);
  EXPECT_EQ(r.dropped_maf, 1);
  f.max_missing = 0.4;
  r = apply_variant_filter(c, f);
  EXPECT_EQ(r.dropped_missing, 1);
}

TEST(VariantStats, StandardizeTables) {
  VariantCounts c{1, 2, 1, 1};  // f = 0.5
  float lut[4];
  make_standardize_lut(c, Standardization::Binom2, lut);
  const float s = 1.0f / std::sqrt(0.5f);
  EXPECT_FLOAT_EQ(lut[0], -1.0f * s);
  EXPECT_FLOAT_EQ(lut[1], 0.0f);
  EXPECT_FLOAT_EQ(lut[2], 1.0f * s);
  EXPECT_EQ(lut[3], 0.0f);  // missing → mean
  make_standardize_lut(c, Standardization::Binom, lut);
  EXPECT_FLOAT_EQ(lut[2], 2.0f);
  make_standardize_lut(c, Standardization::Center, lut);
  EXPECT_FLOAT_EQ(lut[0], -1.0f);
  double lutd[4];
  make_standardize_lut(c, Standardization::None, lutd);
  EXPECT_EQ(lutd[2], 2.0);
  EXPECT_EQ(lutd[3], 1.0);
  VariantCounts mono{4, 0, 0, 0};
  make_standardize_lut(mono, Standardization::Binom2, lut);
  for (float x : lut) EXPECT_EQ(x, 0.0f);
  STRATA_EXPECT_STATUS(parse_standardization("zscore"), StatusCode::Invalid, "unknown standardization");
}

TEST(VariantSubset, ReadsKeptRowsInOrder) {
  auto view = make_view({{0, 0}, {1, 1}, {2, 2}, {-1, 0}, {0, 2}});
  auto sub = make_variant_subset(view, {1, 2, 4});
  ASSERT_EQ(sub->num_variants(), 3);
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, read_genotype_block(*sub, 0, 3));
  EXPECT_EQ(code_at(b.row(0), 0), 1);
  EXPECT_EQ(code_at(b.row(1), 0), 2);
  EXPECT_EQ(code_at(b.row(2), 1), 2);
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, sub->variants(1, 2));
  EXPECT_EQ(info.id, (std::vector<std::string>{"v2", "v4"}));
}

TEST(VariantStats, HapMap3CodeFrequencies) {
  const std::string hm = shared_data_dir() + "/hapmap3/HM3_thinned_autosomal_overlap";
  if (shared_data_dir().empty() || !fs::exists(hm + ".bed"))
    GTEST_SKIP() << "HapMap3 absent (" << hm << ".bed); " << strata::testing::kSkipNoSharedData;
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, BedReader::open(hm));
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, compute_variant_counts(test_ctx(), *bed));
  int64_t c[4] = {0, 0, 0, 0};
  for (const auto& v : counts) {
    c[0] += v.hom_ref;
    c[1] += v.het;
    c[2] += v.hom_alt;
    c[3] += v.missing;
  }
  const double total = double(bed->num_variants()) * double(bed->num_samples());
  // data/README: .bed code 0 (hom A1 = ALT) 21.07 %, 1 (missing) 0.153 %, 2 (het) 44.75 %, 3 (hom A2) 34.03 %.
  EXPECT_NEAR(100 * c[kCodeHomAlt] / total, 21.07, 0.01);
  EXPECT_NEAR(100 * c[kCodeMissing] / total, 0.153, 0.001);
  EXPECT_NEAR(100 * c[kCodeHet] / total, 44.75, 0.01);
  EXPECT_NEAR(100 * c[kCodeHomRef] / total, 34.03, 0.01);
}

}  // namespace
}  // namespace strata::genomics

namespace strata::genomics {
namespace {

// plink2 2.00a3.5 `--hardy` on chrX (.hardy.x: female hom A1, het, hom AX, male A1, male AX, P)
// of a simulated cohort with haploid males; P printed to 6 significant digits.
TEST(Hwe, XChromosomeTestEqualsPlink2Hardy) {
  const double rows[][6] = {
      {88, 13, 1, 83, 8, 0.518849},  {7, 24, 68, 16, 75, 0.0875724}, {11, 44, 45, 27, 63, 0.87125},
      {2, 17, 82, 10, 82, 0.435432}, {6, 49, 45, 31, 57, 0.251474},  {0, 18, 80, 6, 84, 0.613396},
      {87, 11, 4, 81, 9, 0.00561322}, {14, 61, 25, 26, 65, 0.00240218}, {38, 34, 30, 49, 43, 0.00339025},
      {39, 49, 12, 49, 40, 0.364979}, {42, 43, 16, 50, 40, 0.339941}};
  for (const auto& r : rows) {
    const double p = hwe_xchr_exact_p(int64_t(r[1]), int64_t(r[0]), int64_t(r[2]), int64_t(r[3]), int64_t(r[4]));
    EXPECT_NEAR(p, r[5], 5e-6 * r[5]) << r[0] << " " << r[1] << " " << r[2] << " " << r[3] << " " << r[4];
  }
  EXPECT_EQ(hwe_xchr_exact_p(0, 0, 0, 0, 0), 1.0);
  // Females only: the autosomal exact test.
  EXPECT_NEAR(hwe_xchr_exact_p(10, 30, 5, 0, 0), hwe_exact_p(10, 30, 5), 1e-9);
}

// The X test by full enumeration of every (male count, het count) configuration in long double.
double xchr_p_by_enumeration(int64_t het, int64_t hom1, int64_t hom2, int64_t m1, int64_t m2) {
  const int64_t nf = het + hom1 + hom2, nm = m1 + m2, n1 = 2 * hom1 + het + m1;
  auto lt = [&](int64_t m, int64_t h) -> long double {
    const int64_t f11 = (n1 - m - h) / 2, f22 = nf - f11 - h;
    return std::lgamma((long double)nf + 1) - std::lgamma((long double)f11 + 1) - std::lgamma((long double)h + 1) -
           std::lgamma((long double)f22 + 1) + (long double)h * std::log(2.0L) + std::lgamma((long double)nm + 1) -
           std::lgamma((long double)m + 1) - std::lgamma((long double)(nm - m) + 1);
  };
  const long double obs = lt(m1, het);
  long double all = 0, tail = 0;
  for (int64_t m = 0; m <= nm; ++m)
    for (int64_t h = 0; h <= nf; ++h) {
      const int64_t twice_f11 = n1 - m - h;
      if (twice_f11 < 0 || twice_f11 % 2 != 0 || nf - twice_f11 / 2 - h < 0) continue;
      const long double v = std::exp(lt(m, h) - obs);
      all += v;
      if (v <= 1 + 1e-7L) tail += v;
    }
  return double(tail / all);
}

// Every configuration enumerated in long double (the definition of the test) against the
// pruned walk, on random small cohorts: large p-values (the closed-form total less the terms
// above the observation), tiny ones, one sex only, and counts whose odd and even rows zigzag.
TEST(Hwe, XChromosomeTestEqualsFullEnumeration) {
  auto brute = xchr_p_by_enumeration;
  uint64_t state = 12345;
  auto next = [&](int64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return int64_t((state >> 33) % uint64_t(n));
  };
  for (int i = 0; i < 3000; ++i) {
    const int64_t het = next(30), hom1 = next(i % 3 == 0 ? 3 : 40), hom2 = next(40), m1 = next(i % 5 == 0 ? 1 : 120),
                  m2 = next(120);
    const double want = brute(het, hom1, hom2, m1, m2), got = hwe_xchr_exact_p(het, hom1, hom2, m1, m2);
    ASSERT_NEAR(got, want, 1e-9 * want + 1e-300) << het << " " << hom1 << " " << hom2 << " " << m1 << " " << m2;
  }
}

// Far in the tail (the test walks only the tail there, against the closed-form total): het
// deficits, frequencies that differ between the sexes, and both, down to p below 1e-100.
TEST(Hwe, XChromosomeTestAtExtremePEqualsFullEnumeration) {
  struct Case {
    int64_t het, hom1, hom2, m1, m2;
  };
  const Case cases[] = {
      {40, 200, 160, 150, 250},  {10, 200, 190, 180, 220}, {0, 150, 250, 120, 280},  {120, 140, 140, 260, 140},
      {60, 170, 170, 20, 380},   {5, 300, 95, 390, 10},    {200, 100, 100, 0, 400},   {90, 160, 150, 300, 100},
      {1, 399, 0, 0, 400},       {30, 250, 120, 40, 360},  {150, 200, 50, 100, 300},  {0, 200, 200, 200, 200},
  };
  int below_1e15 = 0, below_1e50 = 0;
  for (const Case& c : cases) {
    const double want = xchr_p_by_enumeration(c.het, c.hom1, c.hom2, c.m1, c.m2);
    const double got = hwe_xchr_exact_p(c.het, c.hom1, c.hom2, c.m1, c.m2);
    EXPECT_NEAR(got, want, 1e-9 * want + 1e-300) << c.het << " " << c.hom1 << " " << c.hom2 << " " << c.m1 << " " << c.m2;
    below_1e15 += want < 1e-15;
    below_1e50 += want < 1e-50;
  }
  EXPECT_GE(below_1e15, 9);  // the cases are in the far tail, as meant
  EXPECT_GE(below_1e50, 4);
}

}  // namespace
}  // namespace strata::genomics
