// PREFIX.log from the CLI: every command that writes under --out leaves one with the command
// line, the counts and the files; -q silences the terminal, not the log; a rerun replaces the
// log and writes the same bytes elsewhere; a failed run's log carries the error.
#include <filesystem>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

std::string cli() { return strata::testing::strata_cli_path(); }

class RunLog : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    auto r = run_command(cli() + " simulate --samples 40 --variants 300 --seed 5 --out " + tmp_.str("sim"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    sim_output_ = r.output;
  }
  TempDir tmp_;
  std::string sim_output_;
};

TEST_F(RunLog, SimulateAndKingLogTheirRunAndSayWhatTheyWrote) {
  // Terminal: a success line with the counts and the files (simulate printed nothing before).
  EXPECT_THAT(sim_output_, HasSubstr("strata: simulate done in "));
  EXPECT_THAT(sim_output_, HasSubstr(tmp_.str("sim.bed")));
  EXPECT_THAT(sim_output_, HasSubstr(tmp_.str("sim.log")));
  const std::string sim_log = read_file(tmp_.str("sim.log"));
  EXPECT_THAT(sim_log, HasSubstr("Command line: strata simulate --samples 40 --variants 300 --seed 5 --out "));
  EXPECT_THAT(sim_log, HasSubstr("Written:\n"));
  for (const char* f : {"sim.bed", "sim.bim", "sim.fam", "sim.log"}) EXPECT_THAT(sim_log, HasSubstr("  " + tmp_.str(f) + "\n"));
  EXPECT_THAT(sim_log, HasSubstr("  samples: 40\n  variants: 300\n"));
  EXPECT_THAT(sim_log, HasSubstr("Wall time: "));

  auto r = run_command(cli() + " king -q " + tmp_.str("sim") + " --out " + tmp_.str("k"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");  // -q: nothing on the terminal
  const std::string log = read_file(tmp_.str("k.log"));
  EXPECT_THAT(log, HasSubstr("strata "));
  EXPECT_THAT(log, HasSubstr(" king\n"));
  EXPECT_THAT(log, HasSubstr("Command line: strata king -q " + tmp_.str("sim") + " --out " + tmp_.str("k") + "\n"));
  EXPECT_THAT(log, HasSubstr("Machine: "));
  EXPECT_THAT(log, HasSubstr(" threads; memory budget "));
  EXPECT_THAT(log, HasSubstr("Input: " + tmp_.str("sim") + "\n"));
  EXPECT_THAT(log, HasSubstr("Written:\n  " + tmp_.str("k.king") + "\n  " + tmp_.str("k.king.id") + "\n  " +
                             tmp_.str("k.log") + "\nResults:"));
  EXPECT_THAT(log, HasSubstr("  samples: 40\n"));
  EXPECT_THAT(log, HasSubstr("  variants: 300\n"));
  EXPECT_THAT(log, HasSubstr("End: "));

  r = run_command(cli() + " king " + tmp_.str("sim") + " --out " + tmp_.str("k2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("strata: king done in "));
  EXPECT_THAT(r.output, HasSubstr("40 samples, 300 variants, 780 pairs written; wrote " + tmp_.str("k2.king")));
}

TEST_F(RunLog, RerunReplacesTheLogAndWritesTheSameBytes) {
  const std::string cmd = cli() + " pca -q " + tmp_.str("sim") + " -k 3 --out " + tmp_.str("p");
  auto r = run_command(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string vec = read_file(tmp_.str("p.eigenvec")), val = read_file(tmp_.str("p.eigenval"));
  r = run_command(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(tmp_.str("p.eigenvec")), vec);
  EXPECT_EQ(read_file(tmp_.str("p.eigenval")), val);
  const std::string log = read_file(tmp_.str("p.log"));
  EXPECT_EQ(log.find("Command line:"), log.rfind("Command line:"));  // replaced, not appended
  EXPECT_THAT(log, HasSubstr("  " + tmp_.str("p.eigenvec") + "\n"));
}

TEST_F(RunLog, WarningsGoToTheLogEvenWithQuiet) {
  // A variant at a negative position is skipped with a warning (as plink2 does).
  std::string bim = read_file(tmp_.str("sim.bim"));
  const size_t tab1 = bim.find('\t'), tab2 = bim.find('\t', tab1 + 1), tab3 = bim.find('\t', tab2 + 1);
  bim.replace(tab3 + 1, bim.find('\t', tab3 + 1) - tab3 - 1, "-1");
  strata::testing::write_file(tmp_.str("sim.bim"), bim);
  auto r = run_command(cli() + " freq -q " + tmp_.str("sim") + " --out " + tmp_.str("f"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("negative position"));  // warnings still reach the terminal
  const std::string log = read_file(tmp_.str("f.log"));
  EXPECT_THAT(log, HasSubstr("Command line: strata freq -q"));
  EXPECT_THAT(log, HasSubstr("warning: " + tmp_.str("sim.bim") + ": 1 of 300 variants have a negative position"))
      << log;
}

TEST_F(RunLog, FailedRunLogsTheErrorAndLeavesNoOtherOutput) {
  auto r = run_command(cli() + " pca -q " + tmp_.str("sim") + " -k 45 --out " + tmp_.str("bad"));
  ASSERT_NE(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(tmp_.str("bad.eigenvec")));
  ASSERT_TRUE(fs::exists(tmp_.str("bad.log"))) << r.output;
  const std::string log = read_file(tmp_.str("bad.log"));
  EXPECT_THAT(log, HasSubstr("Command line: strata pca -q"));
  EXPECT_THAT(log, HasSubstr("Error: "));
  EXPECT_THAT(log, HasSubstr("k = 45"));
  EXPECT_THAT(log, Not(HasSubstr("Written:")));
}

}  // namespace
}  // namespace strata
