// `strata qc` against plink2 itself: `.smiss`, `.vmiss`, `.het`, `.hardy` and `.hardy.x` byte for
// byte on HapMap3, the PLINK edge-case files, the X/Y cohort (with and without pedigree) and a
// simulated cohort with missing calls; the same bytes for any thread count; bad input refused
// with no output left behind.
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

class QcPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  }
  testing::CommandResult run(const std::string& args) { return run_command("cd " + tmp_.str() + " && " + args); }
  // Both tools over `bfile` (plink2 with `plink2_extra`), every table compared byte for byte.
  void expect_same_tables(const std::string& bfile, const std::string& plink2_extra, const std::string& strata_extra,
                          bool hardy_x) {
    auto p = run("/usr/bin/plink2 --bfile " + bfile + " --missing --het --hardy " + plink2_extra + " --out p --threads 2");
    ASSERT_EQ(p.exit_code, 0) << p.output;
    auto s = run(cli() + " qc " + bfile + ".bed --missing --het --hardy " + strata_extra + " --out s -q --threads 2");
    ASSERT_EQ(s.exit_code, 0) << s.output;
    for (const char* ext : {".smiss", ".vmiss", ".het", ".hardy"}) {
      SCOPED_TRACE(ext);
      ASSERT_TRUE(fs::exists(tmp_.str(std::string("s") + ext)));
      EXPECT_EQ(read_file(tmp_.str(std::string("s") + ext)), read_file(tmp_.str(std::string("p") + ext)));
    }
    EXPECT_EQ(fs::exists(tmp_.str("s.hardy.x")), hardy_x);
    EXPECT_EQ(fs::exists(tmp_.str("p.hardy.x")), hardy_x);
    if (hardy_x) EXPECT_EQ(read_file(tmp_.str("s.hardy.x")), read_file(tmp_.str("p.hardy.x")));
  }
  TempDir tmp_;
};

TEST_F(QcPlink2, HapMap3EqualsPlink2AtAnyThreadCount) {
  const std::string d = strata::testing::shared_data_dir();
  const std::string hm = d + "/hapmap3/HM3_thinned_autosomal_overlap";
  if (d.empty() || !fs::exists(hm + ".bed"))
    GTEST_SKIP() << "HapMap3 absent (hapmap3/HM3_thinned_autosomal_overlap.bed); " << strata::testing::kSkipNoSharedData;
  expect_same_tables(hm, "", "", false);
  // One thread and three: the same bytes (the expected-heterozygosity sums are exact).
  for (const char* t : {"1", "3"}) {
    auto s = run(cli() + " qc " + hm + " --missing --het --hardy --out t" + t + " -q --threads " + t);
    ASSERT_EQ(s.exit_code, 0) << s.output;
    for (const char* ext : {".smiss", ".vmiss", ".het", ".hardy"})
      EXPECT_EQ(read_file(tmp_.str(std::string("t") + t + ext)), read_file(tmp_.str(std::string("s") + ext))) << t << ext;
  }
  // One table alone is the same table.
  auto h = run(cli() + " qc " + hm + " --het --out h -q");
  ASSERT_EQ(h.exit_code, 0) << h.output;
  EXPECT_EQ(read_file(tmp_.str("h.het")), read_file(tmp_.str("p.het")));
  EXPECT_FALSE(fs::exists(tmp_.str("h.smiss")));
  EXPECT_FALSE(fs::exists(tmp_.str("h.hardy")));
}

TEST_F(QcPlink2, EdgeCaseFilesEqualPlink2WithBadFreqs) {
  const std::string d = strata::testing::shared_data_dir();
  if (d.empty() || !fs::exists(d + "/plink/example.bed")) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  // Multi-base alleles, all-missing phenotypes (no PHENO1 column), FIDs of 0, 10 % missing calls,
  // monomorphic variants (E(HET_A1) 0, skipped by --het).
  for (const char* name : {"example", "plink_sim_10s_100v_10pmiss"}) {
    SCOPED_TRACE(name);
    expect_same_tables(d + "/plink/" + name, "--bad-freqs", "--bad-freqs", false);
  }
}

TEST_F(QcPlink2, HetRefusesFewerThan50FoundersAsPlink2Does) {
  const std::string d = strata::testing::shared_data_dir();
  if (d.empty() || !fs::exists(d + "/plink/example.bed")) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  auto p = run("/usr/bin/plink2 --bfile " + d + "/plink/example --het --out p");
  EXPECT_NE(p.exit_code, 0);
  auto s = run(cli() + " qc " + d + "/plink/example --missing --het --out s -q");
  STRATA_EXPECT_CLI_ERROR(s, 1, "--bad-freqs");
  EXPECT_NE(s.output.find("fewer than 50"), std::string::npos) << s.output;
  EXPECT_FALSE(fs::exists(tmp_.str("s.smiss")));  // nothing is written when a table is refused
  EXPECT_FALSE(fs::exists(tmp_.str("s.vmiss")));
  EXPECT_FALSE(fs::exists(tmp_.str("s.het")));
}

TEST_F(QcPlink2, SexChromosomeCohortEqualsPlink2) {
  // X (as chrX and 23) in .hardy.x from female genotypes and male alleles; Y and MT skipped by
  // --hardy and --het, XY kept; Y's calls counted for males only in .smiss and .vmiss; founders only.
  for (bool children : {false, true}) {
    SCOPED_TRACE(children ? "with children" : "founders only");
    strata::testing::write_sex_chromosome_cohort(tmp_.str("c"), children);
    expect_same_tables("c", "", "", true);
  }
}

TEST_F(QcPlink2, SimulatedCohortWithMissingCallsEqualsPlink2) {
  auto g = run(cli() + " simulate --samples 301 --variants 3000 --missing 0.02 --seed 7 --out sim -q");
  ASSERT_EQ(g.exit_code, 0) << g.output;
  expect_same_tables("sim", "", "", false);
}

TEST_F(QcPlink2, BadInputIsRefusedWithoutOutput) {
  auto none = run(cli() + " qc nowhere --missing --out s -q");
  STRATA_EXPECT_CLI_ERROR(none, 1, "nowhere");
  strata::testing::write_sex_chromosome_cohort(tmp_.str("c"), false);
  auto nothing = run(cli() + " qc c --out s -q");
  STRATA_EXPECT_CLI_ERROR(nothing, 2, "--missing, --het, --hardy and/or --check-sex");
  // A .bed cut short: refused, and no table is left behind.
  fs::resize_file(tmp_.str("c.bed"), fs::file_size(tmp_.str("c.bed")) / 2);
  auto cut = run(cli() + " qc c --missing --hardy --out s -q");
  EXPECT_EQ(cut.exit_code, 1) << cut.output;
  EXPECT_NE(cut.output.find("c.bed"), std::string::npos) << cut.output;
  for (const char* ext : {".smiss", ".vmiss", ".hardy", ".hardy.x"}) EXPECT_FALSE(fs::exists(tmp_.str(std::string("s") + ext))) << ext;
}

}  // namespace
}  // namespace strata
