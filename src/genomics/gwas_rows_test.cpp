// strata gwas's in-memory rows (run_gwas): the files are the rows printed, a run made of shares
// of its variants (variant_begin/end, encode/decode, shares) is the whole run bit for bit, and
// malformed share bytes or ranges are errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/test_context.hpp"
#include "strata/core/context.hpp"
#include "strata/genomics/gwas.hpp"
#include "strata/io/genotype_dosage.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using strata::testing::TempDir;

// 300 variants x 8,192 samples (the scan's blocks are then 128 variants): dosages with
// fractions on some rows and 2 % missing; Q quantitative, B case/control; one covariate.
class GwasRowsTest : public ::testing::Test {
 protected:
  static constexpr int64_t kM = 300, kN = 8192;
  void SetUp() override {
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u;
    std::normal_distribution<double> g;
    dosages_.resize(static_cast<size_t>(kM * kN));
    for (int64_t v = 0; v < kM; ++v) {
      const double f = 0.05 + 0.45 * u(rng);
      for (int64_t s = 0; s < kN; ++s) {
        double d = (u(rng) < f) + (u(rng) < f);
        if (v % 3 == 0) d = std::fabs(d - 0.25 * u(rng));
        dosages_[v * kN + s] = u(rng) < 0.02 ? NAN : static_cast<float>(d);
      }
    }
    io::DosageMatrix m;
    m.data = dosages_.data();
    m.type = io::DosageType::Float32;
    m.rows = kM;
    m.cols = kN;
    m.row_stride = kN;
    io::SampleInfo samples;
    for (int64_t s = 0; s < kN; ++s) samples.id.push_back("S" + std::to_string(s));
    STRATA_ASSERT_OK_AND_ASSIGN(view_, io::make_dosage_genotypes(m, samples));
    std::ostringstream ph, cv;
    ph.precision(17);
    cv.precision(17);
    ph << "#IID Q B\n";
    cv << "#IID C1\n";
    for (int64_t s = 0; s < kN; ++s) {
      const double c = g(rng);
      ph << "S" << s << ' ' << (u(rng) < 0.03 ? std::string("NA") : std::to_string(0.3 * c + g(rng))) << ' '
         << (u(rng) < 1 / (1 + std::exp(-c)) ? 2 : 1) << '\n';
      cv << "S" << s << ' ' << c << '\n';
    }
    strata::testing::write_file(dir_.str("pheno.txt"), ph.str());
    strata::testing::write_file(dir_.str("covar.txt"), cv.str());
    o_.pheno_path = dir_.str("pheno.txt");
    o_.covar_path = dir_.str("covar.txt");
    o_.ci = 0.95;
    o_.write_plot = false;
  }
  Context ctx_ = strata::testing::make_test_context(2);
  TempDir dir_;
  std::vector<float> dosages_;
  io::GenotypeViewPtr view_;
  GwasOptions o_;
};

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> out;
  std::string cur;
  for (char x : s) {
    if (x == c) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += x;
    }
  }
  out.push_back(cur);
  return out;
}

std::string printed(double x) {
  if (std::isnan(x)) return "NA";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

TEST_F(GwasRowsTest, TheFilesAreTheRowsPrinted) {
  STRATA_ASSERT_OK_AND_ASSIGN(GwasResult r, run_gwas(ctx_, view_, "dosages", o_, dir_.str("out")));
  ASSERT_EQ(r.rows.phenotypes.size(), 2u);
  ASSERT_EQ(r.rows.variants.size(), kM);
  for (size_t j = 0; j < 2; ++j) {
    const GwasStats& st = r.rows.phenotypes[j];
    const std::string file = r.summary.phenotypes[j].file;
    const std::vector<std::string> lines = split(strata::testing::read_file(file), '\n');
    ASSERT_EQ(static_cast<int64_t>(lines.size()), kM + 2) << file;  // header, rows, ""
    const std::vector<std::string> head = split(lines[0], '\t');
    for (int64_t v = 0; v < kM; ++v) {
      const std::vector<std::string> f = split(lines[v + 1], '\t');
      ASSERT_EQ(f.size(), head.size());
      auto at = [&](const char* name) { return f[std::find(head.begin(), head.end(), name) - head.begin()]; };
      EXPECT_EQ(at("OBS_CT"), std::to_string(st.obs[v]));
      EXPECT_EQ(at("A1"), r.rows.variants.a1[v]);
      EXPECT_EQ(at(j == 0 ? "BETA" : "OR"), printed(st.beta[v]));
      EXPECT_EQ(at(j == 0 ? "SE" : "LOG(OR)_SE"), printed(st.se[v]));
      EXPECT_EQ(at("L95"), printed(st.l95[v]));
      EXPECT_EQ(at("U95"), printed(st.u95[v]));
      EXPECT_EQ(at(j == 0 ? "T_STAT" : "Z_STAT"), printed(st.stat[v]));
      EXPECT_EQ(at("P"), printed(st.p[v]));
      EXPECT_EQ(at("ERRCODE"), st.errcode[v]);
      EXPECT_EQ(std::isnan(st.ln_p[v]), st.errcode[v] != "." && st.errcode[v] != "UNFINISHED");
    }
  }
  // Missing dosages leave a variant's fits.
  EXPECT_LT(r.rows.phenotypes[0].obs[0], r.summary.phenotypes[0].samples);
}

TEST_F(GwasRowsTest, SharesOfTheVariantsMakeTheWholeRun) {
  STRATA_ASSERT_OK_AND_ASSIGN(GwasResult whole, run_gwas(ctx_, view_, "dosages", o_));
  const int64_t block = gwas_block_variants(kN);
  ASSERT_EQ(block, 128);
  std::vector<GwasRows> shares;
  for (int64_t b : {int64_t{0}, block, 2 * block}) {
    GwasOptions o = o_;
    o.variant_begin = b;
    o.variant_end = b == 2 * block ? -1 : b + block;
    STRATA_ASSERT_OK_AND_ASSIGN(GwasResult part, run_gwas(strata::testing::make_test_context(1), view_, "d", o));
    STRATA_ASSERT_OK_AND_ASSIGN(GwasRows back, decode_gwas_rows(encode_gwas_rows(part.rows)));
    shares.push_back(std::move(back));
  }
  STRATA_ASSERT_OK_AND_ASSIGN(GwasResult merged, run_gwas(ctx_, view_, "dosages", o_, "", &shares));
  ASSERT_EQ(merged.rows.variants.pos, whole.rows.variants.pos);
  EXPECT_EQ(merged.rows.variants.a1, whole.rows.variants.a1);
  for (size_t j = 0; j < 2; ++j) {
    const GwasStats &a = whole.rows.phenotypes[j], &b = merged.rows.phenotypes[j];
    EXPECT_EQ(a.obs, b.obs);
    EXPECT_EQ(a.errcode, b.errcode);
    EXPECT_EQ(a.firth, b.firth);
    for (auto c : {&GwasStats::beta, &GwasStats::se, &GwasStats::stat, &GwasStats::p, &GwasStats::ln_p})
      EXPECT_TRUE(same_bits(a.*c, b.*c)) << j;
    const GwasPhenotypeSummary &sa = whole.summary.phenotypes[j], &sb = merged.summary.phenotypes[j];
    EXPECT_EQ(std::memcmp(&sa.gc.lambda, &sb.gc.lambda, sizeof(double)), 0);
    EXPECT_EQ(sa.gc.tests, sb.gc.tests);
    EXPECT_EQ(sa.errcodes, sb.errcodes);
    EXPECT_EQ(sa.firth, sb.firth);
  }
  EXPECT_EQ(merged.summary.num_variants, kM);
  EXPECT_EQ(merged.summary.warnings, whole.summary.warnings);
}

TEST_F(GwasRowsTest, BadSharesAndRangesAreErrors) {
  STRATA_ASSERT_OK_AND_ASSIGN(GwasResult r, run_gwas(ctx_, view_, "dosages", o_));
  const std::string bytes = encode_gwas_rows(r.rows);
  STRATA_EXPECT_STATUS(decode_gwas_rows(bytes.substr(0, bytes.size() / 2)), StatusCode::Corrupt, "gwas rows");
  STRATA_EXPECT_STATUS(decode_gwas_rows(bytes + "x"), StatusCode::Corrupt, "gwas rows");
  GwasOptions o = o_;
  o.variant_begin = 10;
  o.variant_end = 5;
  STRATA_EXPECT_STATUS(run_gwas(ctx_, view_, "dosages", o), StatusCode::Invalid, "not a range");
  o.variant_begin = 0;
  o.variant_end = kM + 1;
  STRATA_EXPECT_STATUS(run_gwas(ctx_, view_, "dosages", o), StatusCode::Invalid, "not a range");
  std::vector<GwasRows> wrong(1);  // no phenotypes
  STRATA_EXPECT_STATUS(run_gwas(ctx_, view_, "dosages", o_, "", &wrong), StatusCode::Invalid, "phenotypes");
}

}  // namespace
}  // namespace strata::genomics
