// strata qc's tables from first principles: the `.het` sums against a direct per-sample loop,
// `.smiss` counts, the expected heterozygosity and phenotype rules. (Byte equality with plink2:
// tests/genotype/qc_plink2_test.cpp.)
#include <cmath>
#include <filesystem>
#include <random>

#include "core/test_context.hpp"
#include "genomics/qc_tables_count.hpp"
#include "strata/genomics/qc_tables.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

using strata::testing::TempDir;

TEST(QcTables, ExpectedHeterozygosityIsPlink2s) {
  EXPECT_DOUBLE_EQ(detail::het_expected({1, 2, 1, 0}), 0.5);
  EXPECT_DOUBLE_EQ(detail::het_expected({9, 0, 1, 3}), 2 * 0.9 * 0.1);
  EXPECT_LT(detail::het_expected({10, 0, 0, 2}), 0.0);  // monomorphic: skipped
  EXPECT_LT(detail::het_expected({0, 0, 4, 0}), 0.0);
  EXPECT_DOUBLE_EQ(detail::het_expected({0, 0, 0, 5}), 0.5);  // no founder observed: p = 1/2
}

TEST(QcTables, PhenotypeMissingFollowsTheColumnsType) {
  EXPECT_TRUE(phenotype_value_missing("-9", false));
  EXPECT_TRUE(phenotype_value_missing("NA", true));
  EXPECT_TRUE(phenotype_value_missing("0", true));    // case/control: 0 is missing
  EXPECT_FALSE(phenotype_value_missing("0", false));  // quantitative: 0 is a value
  EXPECT_FALSE(phenotype_value_missing("2", true));
}

// A random cohort of `n` founders × `m` autosomal variants with missing calls; codes[v][i].
std::vector<std::vector<int>> write_cohort(const std::string& prefix, int n, int m) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::string fam, bim, bed("\x6c\x1b\x01", 3);
  for (int i = 0; i < n; ++i) fam += "f" + std::to_string(i) + " i" + std::to_string(i) + " 0 0 " + std::to_string(1 + i % 2) + " -9\n";
  static const uint8_t kBed[4] = {0b11, 0b10, 0b00, 0b01};  // ALT dosage 0, 1, 2, missing
  std::vector<std::vector<int>> codes(static_cast<size_t>(m), std::vector<int>(static_cast<size_t>(n)));
  for (int v = 0; v < m; ++v) {
    const double p = v % 17 == 0 ? 0.0 : u(rng);  // some monomorphic rows
    std::string row(static_cast<size_t>((n + 3) / 4), '\0');
    for (int i = 0; i < n; ++i) {
      int g = (u(rng) < p) + (u(rng) < p);
      if (u(rng) < 0.05) g = 3;
      codes[size_t(v)][size_t(i)] = g;
      row[size_t(i / 4)] = static_cast<char>(row[size_t(i / 4)] | (kBed[g] << (2 * (i % 4))));
    }
    bed += row;
    bim += std::string(v < m / 2 ? "1" : "2") + " v" + std::to_string(v) + " 0 " + std::to_string(100 + v) + " A G\n";
  }
  strata::testing::write_file(prefix + ".bed", bed);
  strata::testing::write_file(prefix + ".bim", bim);
  strata::testing::write_file(prefix + ".fam", fam);
  return codes;
}

TEST(QcTables, HetAndMissingEqualADirectLoop) {
  TempDir tmp;
  const int n = 61, m = 700;
  const auto codes = write_cohort(tmp.str("c"), n, m);
  QcOptions o;
  STRATA_ASSERT_OK_AND_ASSIGN(QcSummary s, run_qc_to_files(test_ctx(), tmp.str("c"), tmp.str("q"), o));
  EXPECT_EQ(s.num_samples, n);
  // Frequencies over every (founder) sample, then per sample sums over its observed calls.
  std::vector<double> e(m, -1);
  int64_t used = 0;
  for (int v = 0; v < m; ++v) {
    int64_t ref = 0, tot = 0;
    for (int g : codes[size_t(v)])
      if (g != 3) ref += 2 - g, tot += 2;
    const double p = double(ref) / double(tot);
    if (2 * p * (1 - p) >= 0x1p-35) e[size_t(v)] = 2 * p * (1 - p), ++used;
  }
  EXPECT_EQ(s.het_variants, used);
  const auto het = strata::testing::read_rows(tmp.str("q.het"));
  const auto smiss = strata::testing::read_rows(tmp.str("q.smiss"));
  ASSERT_EQ(het.size(), size_t(n) + 1);
  ASSERT_EQ(smiss.size(), size_t(n) + 1);
  EXPECT_EQ(smiss[0], (std::vector<std::string>{"#FID", "IID", "MISSING_CT", "OBS_CT", "F_MISS"}));
  for (int i = 0; i < n; ++i) {
    int64_t nobs = 0, ohet = 0, missing = 0;
    double ehet = 0;
    for (int v = 0; v < m; ++v) {
      const int g = codes[size_t(v)][size_t(i)];
      missing += g == 3;
      if (e[size_t(v)] < 0 || g == 3) continue;
      ++nobs;
      ohet += g == 1;
      ehet += e[size_t(v)];
    }
    const auto& row = het[size_t(i) + 1];
    ASSERT_EQ(row.size(), 6u);
    EXPECT_EQ(row[1], "i" + std::to_string(i));
    EXPECT_EQ(std::stoll(row[2]), nobs - ohet);
    EXPECT_NEAR(std::stod(row[3]), double(nobs) - ehet, 1e-5 * (double(nobs) - ehet));
    EXPECT_EQ(std::stoll(row[4]), nobs);
    EXPECT_NEAR(std::stod(row[5]), 1 - double(ohet) / ehet, 2e-6);
    EXPECT_EQ(std::stoll(smiss[size_t(i) + 1][2]), missing);
    EXPECT_EQ(smiss[size_t(i) + 1][3], std::to_string(m));
  }
}

TEST(QcTables, RefusalsLeaveNoOutput) {
  TempDir tmp;
  write_cohort(tmp.str("c"), 20, 40);
  QcOptions o;
  auto few = run_qc_to_files(test_ctx(), tmp.str("c"), tmp.str("q"), o);
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.status().message().find("fewer than 50"), std::string::npos) << few.status().to_string();
  EXPECT_FALSE(std::filesystem::exists(tmp.str("q.smiss")));
  o.het = o.missing = o.hardy = false;
  EXPECT_FALSE(run_qc_to_files(test_ctx(), tmp.str("c"), tmp.str("q"), o).ok());
  o.het = true;
  o.bad_freqs = true;
  STRATA_EXPECT_OK(run_qc_to_files(test_ctx(), tmp.str("c"), tmp.str("q"), o).status());
  EXPECT_TRUE(std::filesystem::exists(tmp.str("q.het")));
  EXPECT_FALSE(std::filesystem::exists(tmp.str("q.smiss")));
}

}  // namespace
}  // namespace strata::genomics
