// Manhattan/QQ plots of a gwas table, genomic control λ, and the kinship against IBS0 plot.
#include <cmath>
#include <regex>

#include "strata/genomics/plot.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using strata::testing::read_file;
using strata::testing::TempDir;
using strata::testing::write_file;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(LambdaGc, MedianChiSquareOverItsExpectation) {
  // p = 0.5 is χ²(1) = 0.45493642 (the median itself): λ = 1.
  EXPECT_NEAR(lambda_gc({0.5}), 1.0, 1e-6);
  // p = 0.05 is χ² = 3.841459 (z = 1.959964); median of {0.01, 0.05, 0.9} is 0.05.
  EXPECT_NEAR(lambda_gc({0.9, 0.05, 0.01, NAN}), 3.841459 / 0.4549364, 1e-5);
  // Even count: the mean of the two middle χ² values (p 0.05 → 3.841459, p 0.5 → 0.4549364).
  EXPECT_NEAR(lambda_gc({0.01, 0.05, 0.5, 0.9}), (3.841459 + 0.4549364) / 2 / 0.4549364, 1e-5);
  EXPECT_TRUE(std::isnan(lambda_gc({})));
}

// A linear gwas table: chromosomes out of order (2, 1, X), a covariate row, an NA row.
std::string gwas_table(int per_chrom) {
  std::string t = "#CHROM\tPOS\tID\tREF\tALT\tA1\tTEST\tOBS_CT\tBETA\tSE\tT_STAT\tP\tERRCODE\n";
  for (const char* chrom : {"2", "1", "X"})
    for (int i = 0; i < per_chrom; ++i) {
      const double p = (i + 0.5) / per_chrom;
      t += str_cat(chrom, "\t", 1000 * (i + 1), "\tv", i, "\tA\tG\tG\tADD\t100\t0.1\t0.1\t1\t", p, "\t.\n");
      t += str_cat(chrom, "\t", 1000 * (i + 1), "\tv", i, "\tA\tG\tG\tAGE\t100\t0.1\t0.1\t1\t1e-30\t.\n");
    }
  t += "1\t999999\tna\tA\tG\tG\tADD\t100\tNA\tNA\tNA\tNA\tCONST_OMITTED_ALLELE\n";
  t += "1\t1000000\ttop\tA\tG\tG\tADD\t100\t1\t0.1\t9\t2e-12\t.\n";
  return t;
}

TEST(GwasPlots, ManhattanAndQq) {
  TempDir tmp;
  write_file(tmp.str("g.glm.linear"), gwas_table(2000));
  GwasPlotPaths paths{tmp.str("m.svg"), "", tmp.str("q.svg"), ""};
  STRATA_ASSERT_OK(write_gwas_plots(tmp.str("g.glm.linear"), "QT", paths));
  const std::string m = read_file(tmp.str("m.svg")), q = read_file(tmp.str("q.svg"));
  EXPECT_THAT(m, ::testing::HasSubstr(">QT (6001 variants)<"));  // ADD rows with a P only
  // Chromosome labels in genome order.
  const size_t c1 = m.find(">1</text>"), c2 = m.find(">2</text>"), cx = m.find(">X</text>");
  ASSERT_NE(c1, std::string::npos);
  EXPECT_LT(c1, c2);
  EXPECT_LT(c2, cx);
  EXPECT_THAT(m, ::testing::HasSubstr(">P = 5e-8<"));
  EXPECT_THAT(m, ::testing::HasSubstr(">-log10(P)<"));
  // P > 0.01 drawn once per half pixel: far fewer than the 6001 markers (the top hit kept).
  const size_t markers = count(m, "<circle");
  EXPECT_LT(markers, 4000u);
  EXPECT_GT(markers, 500u);
  // λ of the uniform quantiles (and the top hit) is 1 to 3 decimals.
  EXPECT_THAT(q, ::testing::HasSubstr(">λ_GC = 1.00"));
  EXPECT_THAT(q, ::testing::HasSubstr(">expected -log10(P)<"));
  // Same table, same bytes.
  STRATA_ASSERT_OK(write_gwas_plots(tmp.str("g.glm.linear"), "QT", {tmp.str("m2.svg"), "", "", ""}));
  EXPECT_EQ(read_file(tmp.str("m2.svg")), m);
}

TEST(GwasPlots, RefusesATableWithoutP) {
  TempDir tmp;
  write_file(tmp.str("g.txt"), "#CHROM\tPOS\tID\tBETA\n1\t1\tx\t0.1\n");
  STRATA_EXPECT_STATUS(write_gwas_plots(tmp.str("g.txt"), "QT", {tmp.str("m.svg"), "", "", ""}), StatusCode::InvalidData,
                       "g.txt: a gwas table needs #CHROM, POS and P");
  write_file(tmp.str("h.txt"), "#CHROM\tPOS\tP\n1\t5\n");
  STRATA_EXPECT_STATUS(write_gwas_plots(tmp.str("h.txt"), "QT", {tmp.str("m.svg"), "", "", ""}), StatusCode::InvalidData,
                       "h.txt:2: 2 columns");
}

TEST(KinshipPlot, ThresholdsClassesAndBoundedSize) {
  TempDir tmp;
  std::string t = "#IID1\tIID2\tNSNP\tHETHET\tIBS0\tKINSHIP\n";
  t += "a\tb\t100\t0.2\t0.0\t0.49\n";   // duplicate
  t += "a\tc\t100\t0.2\t0.002\t0.25\n";  // first degree
  t += "a\td\t100\t0.2\t0.03\t0.12\n";   // second
  t += "a\te\t100\t0.2\t0.06\t0.06\n";   // third
  for (int i = 0; i < 20000; ++i) t += str_cat("x", i, "\ty\t100\t0.1\t", 0.1 + 0.00001 * (i % 100), "\t-0.01\n");
  t += "a\tz\t0\tnan\tnan\tnan\n";  // no common variant: not drawn
  write_file(tmp.str("k.kin0"), t);
  STRATA_ASSERT_OK(write_kinship_plot(tmp.str("k.kin0"), "test", tmp.str("k.svg"), ""));
  const std::string svg = read_file(tmp.str("k.svg"));
  for (const char* s : {">0.354<", ">0.177<", ">0.0884<", ">0.0442<", ">duplicate/MZ (1)<", ">1st degree (1)<",
                        ">2nd degree (1)<", ">3rd degree (1)<", ">unrelated (20000)<", "(20004 pairs)"})
    EXPECT_THAT(svg, ::testing::HasSubstr(s));
  EXPECT_LT(count(svg, "<circle"), 200u);  // 20,000 pairs on a few pixels
  write_file(tmp.str("bad.kin0"), "#IID1\tIID2\tKINSHIP\n");
  STRATA_EXPECT_STATUS(write_kinship_plot(tmp.str("bad.kin0"), "t", tmp.str("b.svg"), ""), StatusCode::InvalidData,
                       "needs IBS0 and KINSHIP");
}

}  // namespace
}  // namespace strata::genomics
