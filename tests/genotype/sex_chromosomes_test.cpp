// X, Y, XY and MT as plink2 models them, end to end through the CLI against plink2 itself:
// frequencies and missingness byte for byte (males haploid on X, Y males only, MT haploid,
// founders only, chromosome names normalised), and KING, GRM and PCA over the autosomes and
// XY only. Before, strata counted every chromosome as a diploid autosome.
#include <cmath>
#include <filesystem>

#include "testing/sex_chromosome_cohort.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

std::string cli() { return strata::testing::strata_cli_path(); }

class SexChromosomes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    cohort_ = strata::testing::write_sex_chromosome_cohort(tmp_.str("c"), true);
    // GRM and PCA standardize with every sample's frequencies (GCTA's choice), plink2 with the
    // founders': they are compared on a cohort without pedigree.
    strata::testing::write_sex_chromosome_cohort(tmp_.str("u"), false);
  }
  testing::CommandResult run(const std::string& args) { return run_command("cd " + tmp_.str() + " && " + args); }
  std::vector<double> numbers(const std::string& file) {
    std::vector<double> v;
    for (const auto& row : strata::testing::read_rows(tmp_.str(file), ' '))
      for (const auto& f : row) v.push_back(std::stod(f));
    return v;
  }
  TempDir tmp_;
  strata::testing::SexChromosomeCohort cohort_;
};

TEST_F(SexChromosomes, FreqAndMissingEqualPlink2) {
  auto p = run("/usr/bin/plink2 --bfile c --freq --missing variant-only --out p --threads 1");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  auto s = run(cli() + " freq c --out s -q");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  const std::string ours = read_file(tmp_.str("s.afreq"));
  EXPECT_EQ(ours, read_file(tmp_.str("p.afreq")));
  EXPECT_EQ(read_file(tmp_.str("s.vmiss")), read_file(tmp_.str("p.vmiss")));
  // The names plink2 writes: chr1 → 1, chrX and 23 → X, chrY → Y, 25 → XY, chrM and M → MT.
  for (const char* row : {"\n1\tv0\t", "\nX\tv880\t", "\nX\tv881\t", "\nY\t", "\nXY\t", "\nMT\tv1180\t", "\nMT\tv1181\t"})
    EXPECT_NE(ours.find(row), std::string::npos) << row;
}

TEST_F(SexChromosomes, KingGrmAndPcaSkipXYAndMTAsPlink2Does) {
  const std::string excluded = "Excluding " + std::to_string(cohort_.non_autosomal) + " variants on non-autosomes from ";
  auto k = run(cli() + " king c --out s 2>&1");
  ASSERT_EQ(k.exit_code, 0) << k.output;
  EXPECT_NE(k.output.find(excluded + "KING-robust calculation."), std::string::npos) << k.output;
  ASSERT_EQ(run("/usr/bin/plink2 --bfile c --make-king triangle --out p --threads 1").exit_code, 0);
  const auto ours = numbers("s.king"), theirs = numbers("p.king");
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) ASSERT_NEAR(ours[i], theirs[i], 5e-7 * std::max(1.0, std::abs(theirs[i]))) << i;

  auto g = run(cli() + " grm u --out s 2>&1");
  ASSERT_EQ(g.exit_code, 0) << g.output;
  EXPECT_NE(g.output.find(excluded + "GRM construction."), std::string::npos) << g.output;
  ASSERT_EQ(run("/usr/bin/plink2 --bfile u --make-rel triangle --out p --threads 1").exit_code, 0);
  const auto our_rel = numbers("s.rel"), their_rel = numbers("p.rel");
  ASSERT_EQ(our_rel.size(), their_rel.size());
  for (size_t i = 0; i < our_rel.size(); ++i) ASSERT_NEAR(our_rel[i], their_rel[i], 2e-6) << i;

  auto c = run(cli() + " pca u -k 4 --method exact --out s 2>&1");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_NE(c.output.find(excluded + "PCA."), std::string::npos) << c.output;
  ASSERT_EQ(run("/usr/bin/plink2 --bfile u --pca 4 meanimpute --out p --threads 1").exit_code, 0);
  const auto our_ev = numbers("s.eigenval"), their_ev = numbers("p.eigenval");
  ASSERT_EQ(our_ev.size(), their_ev.size());
  for (size_t i = 0; i < our_ev.size(); ++i) EXPECT_NEAR(our_ev[i], their_ev[i], 1e-5 * their_ev[i]) << i;

  auto d = run(cli() + " distance c --metric ibs --out s 2>&1");
  ASSERT_EQ(d.exit_code, 0) << d.output;
  EXPECT_NE(d.output.find(excluded + "the distance calculation."), std::string::npos) << d.output;
}

// The counting filters with plink2's model: --maf on founder frequencies with ploidy, --geno and
// --mind counting Y for males only, --hwe with plink2's X test (female genotypes and male
// alleles) and no test on Y and MT. Before, X/Y/MT were diploid autosomes (--hwe 0.01 removed
// 439 variants of such a cohort where plink2 removes 13).
TEST_F(SexChromosomes, SelectionFiltersEqualPlink2) {
  for (const char* flag : {"--maf 0.2", "--maf 0.05", "--geno 0.02", "--hwe 0.01", "--hwe 0.3", "--mind 0.02 --geno 0.05"}) {
    SCOPED_TRACE(flag);
    auto p = run(std::string("/usr/bin/plink2 --bfile c ") + flag + " --write-snplist --write-samples --out p --threads 1");
    ASSERT_EQ(p.exit_code, 0) << p.output;
    auto s = run(cli() + " freq c " + flag + " --out s -q");
    ASSERT_EQ(s.exit_code, 0) << s.output;
    std::string ours;
    for (const auto& row : strata::testing::read_rows(tmp_.str("s.afreq")))
      if (row[0][0] != '#') ours += row[1] + "\n";
    EXPECT_EQ(ours, read_file(tmp_.str("p.snplist")));
    // Samples: .vmiss's OBS_CT is the number of samples kept (males only on Y).
    const auto vmiss = strata::testing::read_rows(tmp_.str("s.vmiss"));
    const auto ids = strata::testing::read_rows(tmp_.str("p.id"));
    ASSERT_GT(vmiss.size(), 1u);
    EXPECT_EQ(std::stoll(vmiss[1][3]), static_cast<long long>(ids.size()) - 1);  // less the header
  }
}

// Association with plink2's chromosome models: X with sex as a covariate over the samples of
// known sex (males coded 0/2), Y over males and MT over everyone with the haploid coding
// (dosage / 2: BETA and SE twice the diploid ones), A1 the minor allele counting a male's call
// once. Linear rows equal plink2's text but for P's last digit (its t tail); logistic odds ratios
// within 1e-4 (plink2's logistic SEs are single precision, settled elsewhere against statsmodels).
// Before, every chromosome was fitted as an autosome with a warning.
TEST_F(SexChromosomes, GwasEqualsPlink2OnXYAndMT) {
  std::string pheno = "#FID\tIID\tQ\tB\n";
  for (int64_t i = 0; i < cohort_.samples; ++i)
    pheno += "F" + std::to_string(i) + "\tI" + std::to_string(i) + "\t" + std::to_string(std::sin(1.7 * double(i)) +
             0.01 * double(i % 7)) + "\t" + (i % 3 == 0 ? "2" : "1") + "\n";
  strata::testing::write_file(tmp_.str("ph.txt"), pheno);
  auto p = run("/usr/bin/plink2 --bfile u --pheno ph.txt --glm allow-no-covars hide-covar --out p --threads 1");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  auto s = run(cli() + " gwas u --pheno ph.txt --out s -q");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  for (const char* file : {".Q.glm.linear", ".B.glm.logistic.hybrid"}) {
    SCOPED_TRACE(file);
    const bool logistic = std::string(file).find("logistic") != std::string::npos;
    const auto ours = strata::testing::read_rows(tmp_.str(std::string("s") + file));
    const auto theirs = strata::testing::read_rows(tmp_.str(std::string("p") + file));
    ASSERT_EQ(ours.size(), theirs.size());
    ASSERT_EQ(ours.size(), static_cast<size_t>(cohort_.variants + 1));
    int64_t compared = 0;
    for (size_t r = 1; r < ours.size(); ++r) {
      const auto &a = ours[r], &b = theirs[r];
      ASSERT_EQ(a.size(), b.size());
      if (a[0] != "X" && a[0] != "Y" && a[0] != "MT" && a[0] != "XY") continue;
      ++compared;
      const size_t est = logistic ? 9 : 8;  // OR / BETA
      for (size_t c = 0; c < est; ++c) ASSERT_EQ(a[c], b[c]) << "row " << r << " column " << c;
      ASSERT_EQ(a.back(), b.back()) << "row " << r;
      if (b[est] == "NA") continue;
      EXPECT_NEAR(std::stod(a[est]), std::stod(b[est]), (logistic ? 1e-4 : 2e-6) * std::abs(std::stod(b[est]))) << r;
      if (!logistic)
        for (size_t c = est + 1; c + 1 < a.size(); ++c)
          EXPECT_NEAR(std::stod(a[c]), std::stod(b[c]), 2e-6 * std::abs(std::stod(b[c])) + 1e-12) << r << " " << c;
    }
    EXPECT_EQ(compared, cohort_.non_autosomal + cohort_.xy);
  }
}

TEST_F(SexChromosomes, AutosomeFlagsAndNothingLeft) {
  const int64_t autosomal = cohort_.variants - cohort_.non_autosomal - cohort_.xy;
  auto a = run(cli() + " freq c --autosome --out a 2>&1");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_NE(a.output.find("--autosome: " + std::to_string(autosomal) + " variants remaining."), std::string::npos) << a.output;
  auto b = run(cli() + " freq c --autosome-xy --out b 2>&1");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_NE(b.output.find("--autosome-xy: " + std::to_string(autosomal + cohort_.xy) + " variants remaining."),
            std::string::npos) << b.output;
  STRATA_EXPECT_CLI_ERROR(run(cli() + " freq c --autosome --autosome-xy --out e 2>&1"), 2, "--autosome excludes --autosome-xy");
  // KING on X alone: nothing autosomal is left, and the error says why.
  STRATA_EXPECT_CLI_ERROR(run(cli() + " king c --chr X --out k 2>&1"), 1, "no autosomal variants left");
}

}  // namespace
}  // namespace strata
