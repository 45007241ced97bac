// gwas --adjust's corrections against plink2 2.00a3.5 `--adjust-file` on the same P values
// (a .glm.linear-like table of simulated P values: inflated, tied, tiny, P = 1, NA), byte for
// byte, for the default columns and the gc / log10 / cols= modifiers; λ; the conversions.
#include "strata/genomics/gwas_adjust.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "strata/core/thread_pool.hpp"
#include "strata/linalg/stats.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

// ln of a printed P value, from its mantissa and exponent (values below DBL_MIN too).
double ln_of_text(const std::string& s) {
  const size_t e = s.find_first_of("eE");
  const double mantissa = std::stod(s.substr(0, e));
  const double exp10 = e == std::string::npos ? 0.0 : std::stod(s.substr(e + 1));
  return std::log(mantissa) + exp10 * M_LN10;
}

struct Table {
  std::string text;    // the .glm.linear-like file
  AdjustTests tests;   // its valid rows for `o`
};

// 20,000 P values (three 8,192-row chunks) of an inflated scan (χ² × 1.3), every 7th repeating an earlier one (ties), a
// few tiny (below 1e-29: plink2's asymptotic χ², and below DBL_MIN), some 1 and some NA.
Table simulated(const AdjustOptions& o) {
  std::mt19937_64 rng(36);
  std::normal_distribution<double> normal(0.0, 1.0);
  Table t;
  t.text = "#CHROM\tPOS\tID\tREF\tALT\tA1\tTEST\tOBS_CT\tBETA\tSE\tT_STAT\tP\tERRCODE\n";
  std::vector<std::string> ps;
  for (int i = 0; i < 20000; ++i) {
    std::string p;
    if (i % 101 == 5) {
      p = "NA";
    } else if (i % 211 == 3) {
      p = "1";
    } else if (i % 7 == 6) {
      p = ps[static_cast<size_t>(i / 2)];
    } else if (i == 40) {
      p = "3.2e-35";
    } else if (i == 41) {
      p = "1.5e-320";
    } else if (i == 42) {
      p = "8.1e-400";
    } else {
      const double z = normal(rng) * std::sqrt(1.3) + (i % 500 == 9 ? 7.0 : 0.0);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", linalg::p_from_z(z));
      p = buf;
    }
    ps.push_back(p);
    const std::string chrom = std::to_string(1 + i / 7000), pos = std::to_string(1000 + 17 * i);
    const std::string id = "rs" + std::to_string(i), ref = i % 2 ? "A" : "G", alt = i % 3 ? "C" : "T";
    const std::string& a1 = i % 5 ? alt : ref;
    t.text += chrom + "\t" + pos + "\t" + id + "\t" + ref + "\t" + alt + "\t" + a1 + "\tADD\t900\t0.1\t0.1\t1\t" + p +
              (p == "NA" ? "\tCONST_ALLELE\n" : "\t.\n");
    if (p == "NA") continue;
    t.tests.ln_p.push_back(ln_of_text(p));
    t.tests.labels.push_back(adjust_label(o, chrom, pos, id, ref, alt, a1));
  }
  return t;
}

std::string strata_adjusted(const AdjustOptions& o, const AdjustTests& tests, GcLambda* gc,
                            ThreadPool* pool = nullptr) {
  std::string out = adjusted_header(o);
  const Status st = write_adjusted_rows(o, tests, [&](const std::string& s) {
    out += s;
    return Status::OK();
  }, gc, pool);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return out;
}

class AdjustPlink2 : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(AdjustPlink2, EqualsAdjustFileByteForByte) {
  if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  auto o = parse_adjust_options(GetParam());
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  const Table t = simulated(*o);
  TempDir tmp;
  {
    std::FILE* f = std::fopen(tmp.str("scan.glm.linear").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(t.text.data(), 1, t.text.size(), f);
    std::fclose(f);
  }
  std::string mods;
  for (const auto& m : GetParam()) mods += " " + m;
  const auto r = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --adjust-file scan.glm.linear test=ADD" + mods +
                             " --out ref");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  GcLambda gc;
  const std::string mine = strata_adjusted(*o, t.tests, &gc);
  const std::string ref = read_file(tmp.str("ref.adjusted"));
  EXPECT_EQ(mine, ref);
  ThreadPool pool(3);  // the same bytes on three threads
  EXPECT_EQ(strata_adjusted(*o, t.tests, nullptr, &pool), mine);
  // The log's λ (printf %g) is strata's.
  char buf[64];
  std::snprintf(buf, sizeof buf, "lambda (based on median chisq) = %g.", gc.lambda);
  EXPECT_NE(read_file(tmp.str("ref.log")).find(buf), std::string::npos) << buf;
  EXPECT_GT(gc.lambda, 1.1);  // the simulated inflation is seen
  EXPECT_EQ(gc.tests, static_cast<int64_t>(t.tests.ln_p.size()));
}

INSTANTIATE_TEST_SUITE_P(Modifiers, AdjustPlink2,
                         ::testing::Values(std::vector<std::string>{}, std::vector<std::string>{"gc"},
                                           std::vector<std::string>{"log10"},
                                           std::vector<std::string>{"gc", "log10", "cols=+qq,+pos,+ref,+alt"},
                                           std::vector<std::string>{"cols=chrom,a1,unadj,gc,qq,fdrbh"},
                                           std::vector<std::string>{"cols=-chrom,-sidakss,-sidaksd"}));

TEST(GwasAdjust, LambdaIsMedianChisqOverItsExpectation) {
  // χ² = 1.5, 2.5, 3.5 (P values from them): median 2.5 → λ = 2.5 / 0.456.
  std::vector<double> ln_p;
  for (double c : {3.5, 1.5, 2.5}) ln_p.push_back(chisq_to_ln_p(c));
  GcLambda g = genomic_control_lambda(ln_p);
  EXPECT_EQ(g.tests, 3);
  EXPECT_NEAR(g.median_chisq, 2.5, 1e-12);
  EXPECT_NEAR(g.lambda, 2.5 / 0.456, 1e-12);
  ln_p.push_back(chisq_to_ln_p(0.1));  // even count: mean of the middle two (1.5, 2.5)
  ln_p.push_back(std::nan(""));        // not a test
  g = genomic_control_lambda(ln_p);
  EXPECT_EQ(g.tests, 4);
  EXPECT_NEAR(g.median_chisq, 2.0, 1e-12);
  // Deflated scans report 1, as plink2 does; the median stays.
  g = genomic_control_lambda({chisq_to_ln_p(0.01), chisq_to_ln_p(0.02)});
  EXPECT_EQ(g.lambda, 1.0);
  EXPECT_NEAR(g.median_chisq, 0.015, 1e-12);
  EXPECT_TRUE(std::isnan(genomic_control_lambda({}).lambda));
}

TEST(GwasAdjust, ConversionsFollowPlink2sApproximations) {
  // plink2's χ² tail above χ² = 0.4 is Numerical Recipes' erfc (relative error < 1.2e-7), and
  // its inverse below P ≈ 5.6e-29 a 5-term expansion (~0.2 % high at χ² = 1000): both kept, the
  // GC column depends on them (byte-equality above), but they stay near the exact values.
  for (double c : {1e-6, 0.3, 1.0, 3.84, 30.0, 120.0}) {
    EXPECT_NEAR(ln_p_to_chisq(chisq_to_ln_p(c)), c, 1e-6 * std::max(1.0, c)) << c;
    EXPECT_NEAR(chisq_to_ln_p(c), linalg::ln_p_from_z(std::sqrt(c)), 3e-7 * std::max(1.0, c)) << c;
  }
  EXPECT_NEAR(chisq_to_ln_p(3.841458820694124), std::log(0.05), 1e-6);
  EXPECT_NEAR(ln_p_to_chisq(chisq_to_ln_p(1000.0)), 1000.0, 5.0);
  EXPECT_GT(ln_p_to_chisq(chisq_to_ln_p(1000.0)), 1000.0);
  EXPECT_LT(chisq_to_ln_p(2000.0), -990.0);  // beyond DBL_MIN, still finite
  EXPECT_EQ(ln_p_to_chisq(0.0), 0.0);
  EXPECT_EQ(format_plink_ln(std::log(0.05)), "0.05");
  EXPECT_EQ(format_plink_ln(0.0), "1");
  EXPECT_EQ(format_plink_ln(std::log(1.5) - 400 * M_LN10), "1.5e-400");
  EXPECT_EQ(format_plink_ln(std::log(2.25) - 20 * M_LN10), "2.25e-20");
}

TEST(GwasAdjust, LnPOfStatisticsBeyondUnderflow) {
  // Where P is representable the logs agree; beyond, they stay finite and keep falling.
  EXPECT_NEAR(linalg::ln_p_from_z(5.0), std::log(linalg::p_from_z(5.0)), 1e-12);
  EXPECT_NEAR(linalg::ln_p_from_z(37.5), std::log(linalg::p_from_z(37.5)), 1e-9);
  EXPECT_NEAR(linalg::ln_p_from_t(8.0, 50), std::log(linalg::p_from_t(8.0, 50)), 1e-10);
  const double z60 = linalg::ln_p_from_z(60.0), t_big = linalg::ln_p_from_t(1e4, 200);
  EXPECT_TRUE(std::isfinite(z60));
  EXPECT_LT(z60, -1700.0);
  EXPECT_LT(linalg::ln_p_from_z(61.0), z60);
  EXPECT_TRUE(std::isfinite(t_big));
  EXPECT_LT(t_big, -1000.0);
  // The t tail tends to the normal one as df grows.
  EXPECT_NEAR(linalg::ln_p_from_t(45.0, 1e9), linalg::ln_p_from_z(45.0), 0.01);  // gap ~ t⁴/(4·df)
}

TEST(GwasAdjust, ModifiersAreCheckedAndNamed) {
  auto o = parse_adjust_options({"gc", "log10", "cols=+qq,-chrom"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->gc && o->log10);
  EXPECT_EQ(adjusted_header(*o),
            "#ID\tA1\tLOG10_UNADJ\tLOG10_GC\tLOG10_QQ\tLOG10_BONF\tLOG10_HOLM\tLOG10_SIDAK_SS\tLOG10_SIDAK_SD\t"
            "LOG10_FDR_BH\tLOG10_FDR_BY\n");
  auto bad = parse_adjust_options({"qq"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::Invalid);
  EXPECT_NE(bad.status().message().find("unknown modifier 'qq'"), std::string::npos);
  bad = parse_adjust_options({"cols=chrom,+qq"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("mix"), std::string::npos);
  bad = parse_adjust_options({"cols=chrom,bogus"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown column 'bogus'"), std::string::npos);
  bad = parse_adjust_options({"cols=chrom,id"});
  ASSERT_FALSE(bad.ok());  // "id" is not a column name of plink2's (ID is always there)
}

}  // namespace
}  // namespace strata::genomics
