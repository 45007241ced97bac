// `strata convert|freq|simulate` end to end: outputs, determinism across threads, exit codes.
#include <filesystem>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

std::string cli() { return strata::testing::strata_cli_path(); }

TEST(GenotypeCli, SimulateIsIdenticalForAnyThreadCount) {
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  TempDir tmp;
  const std::string args = " simulate --samples 301 --variants 2001 --pops 4 --fst 0.1 --missing 0.01 --seed 9 -q";
  auto a = run_command(cli() + args + " --threads 1 --out " + tmp.str("a") + " --format both");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  auto b = run_command(cli() + args + " --threads 2 --out " + tmp.str("b") + " --format both --variants-chunk 250 --samples-chunk 64");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(read_file(tmp.str("a.bed")), read_file(tmp.str("b.bed")));
  EXPECT_EQ(read_file(tmp.str("a.fam")), read_file(tmp.str("b.fam")));
  EXPECT_EQ(read_file(tmp.str("a.fam")).substr(0, 5), "pop0\t");
  EXPECT_TRUE(fs::exists(tmp.str("a.vcz/sample_population/.zarray")));
  // Both stores decode to the same .bed.
  for (const char* s : {"a", "b"}) {
    auto c = run_command(cli() + " convert -q " + tmp.str(std::string(s) + ".vcz") + " " + tmp.str(std::string(s) + "2.bed"));
    ASSERT_EQ(c.exit_code, 0) << c.output;
    EXPECT_EQ(read_file(tmp.str(std::string(s) + "2.bed")), read_file(tmp.str("a.bed")));
  }
}

TEST(GenotypeCli, FreqWritesPlinkFiles) {
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  TempDir tmp;
  ASSERT_EQ(run_command(cli() + " simulate -q --samples 50 --variants 20 --out " + tmp.str("s")).exit_code, 0);
  auto r = run_command(cli() + " freq -q " + tmp.str("s") + " --out " + tmp.str("f"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(read_file(tmp.str("f.afreq")), ::testing::StartsWith("#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n1\tv0\tG\tA\t"));
  EXPECT_THAT(read_file(tmp.str("f.vmiss")), ::testing::StartsWith("#CHROM\tID\tMISSING_CT\tOBS_CT\tF_MISS\n1\tv0\t0\t50\t0\n"));
  // The header checks above ran; the byte comparison needs plink2.
  if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  auto p = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --bfile s --freq --missing variant-only --out p --threads 1");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(read_file(tmp.str("f.afreq")), read_file(tmp.str("p.afreq")));
  EXPECT_EQ(read_file(tmp.str("f.vmiss")), read_file(tmp.str("p.vmiss")));
}

TEST(GenotypeCli, ErrorsNameTheFileAndExitNonZero) {
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  TempDir tmp;
  strata::testing::write_file(tmp.str("bad.bed"), "nope");
  strata::testing::write_file(tmp.str("bad.bim"), "1\tv\t0\t1\tA\tG\n");
  strata::testing::write_file(tmp.str("bad.fam"), "a a 0 0 0 -9\n");
  auto r = run_command(cli() + " convert -q " + tmp.str("bad.bed") + " " + tmp.str("out.vcz"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "bad.bed: not a PLINK 1 .bed file (the first bytes are not 6c 1b)");
  EXPECT_FALSE(fs::exists(tmp.str("out.vcz")));
  r = run_command(cli() + " freq -q " + tmp.str("nothing") + " --out " + tmp.str("f"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "nothing: no such file, PLINK prefix or Zarr store");
  r = run_command(cli() + " simulate -q --samples 10 --variants 10 --fst 1.5 --out " + tmp.str("x"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "--fst: must be a number from 0 up to (not including) 1, got 1.5");
  EXPECT_FALSE(fs::exists(tmp.str("x.bed")));
}

}  // namespace
}  // namespace strata
