// Hostile paths through the CLI (issue classes "data loss, hangs, exits"): an output that is
// another output of the same command, links at outputs judged by their targets, text inputs
// that are devices or have no line ends, and exit codes of usage versus data errors.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;

std::string cli() { return strata::testing::strata_cli_path(); }

class HostilePaths : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built at " << cli();
    auto r = run_command(cli() + " simulate -q --samples 40 --variants 200 --out " + tmp.str("base"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  std::string s() const { return cli() + " "; }
  TempDir tmp;
};

TEST_F(HostilePaths, ReportNamingTheCommandsOwnTableIsRefused) {
  // Before: exit 0 and o.afreq held the JSON report instead of the frequency table.
  auto r = run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("o") + " --report " + tmp.str("o.afreq"));
  STRATA_EXPECT_CLI_ERROR(r, 2, tmp.str("o.afreq") + " is also another output of this command");
  EXPECT_FALSE(fs::exists(tmp.path() / "o.afreq"));
  EXPECT_FALSE(fs::exists(tmp.path() / "o.vmiss")) << "nothing is written when an output is refused";
  // The same file through a link and through a relative path.
  ASSERT_EQ(run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("o")).exit_code, 0);
  const std::string table = read_file(tmp.str("o.afreq"));
  fs::create_symlink(tmp.path() / "o.afreq", tmp.path() / "r.json");
  r = run_command("cd " + tmp.str("") + " && " + s() + "freq -q base --out o --report r.json");
  STRATA_EXPECT_CLI_ERROR(r, 2, "the same file as");
  r = run_command("cd " + tmp.str("") + " && " + s() + "pca -q base -k 2 --out o --report ./sub/../o.eigenval");
  STRATA_EXPECT_CLI_ERROR(r, 2, "o.eigenval is also another output of this command");
  EXPECT_EQ(read_file(tmp.str("o.afreq")), table);
  EXPECT_TRUE(fs::is_symlink(tmp.path() / "r.json"));
}

TEST_F(HostilePaths, LinkToADirectoryAtTheReportIsRefusedLikeTheDirectory) {
  // Before: the link was replaced by the report while a real directory there was refused.
  fs::create_directories(tmp.path() / "real");
  fs::create_directory_symlink(tmp.path() / "real", tmp.path() / "run.json");
  auto r = run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("o") + " --report " + tmp.str("run.json"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "run.json is a symbolic link to a directory");
  EXPECT_TRUE(fs::is_symlink(tmp.path() / "run.json"));
  EXPECT_FALSE(fs::exists(tmp.path() / "o.afreq"));
}

TEST_F(HostilePaths, DeviceAsBimFailsAtOnce) {
  // Before: `ln -sf /dev/zero base.bim; strata freq base` read 1.5 GB in 7 s and never ended.
  fs::remove(tmp.path() / "base.bim");
  fs::create_symlink("/dev/zero", tmp.path() / "base.bim");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_command("timeout 60 " + s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("o"));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  STRATA_EXPECT_CLI_ERROR(r, 1, "base.bim is a character device; strata reads text inputs only from regular files");
  EXPECT_LT(secs, 10.0);
}

TEST_F(HostilePaths, TextInputsHaveBoundedLinesAndNoDevices) {
  {
    std::ofstream f(tmp.str("long.txt"), std::ios::binary);
    f << std::string(9u << 20, 'a');  // 9 MiB without a line end
  }
  auto r = run_command(s() + "freq -q " + tmp.str("base") + " --keep " + tmp.str("long.txt") + " --out " + tmp.str("k"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "long.txt line 1: longer than 8 MiB without a line end");
  r = run_command(s() + "freq -q " + tmp.str("base") + " --keep /dev/zero --out " + tmp.str("k"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "/dev/zero is a character device");
  r = run_command(s() + "pca -q " + tmp.str("base") + " -k 2 --pop-file /dev/zero --out " + tmp.str("k"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "/dev/zero is a character device");
  write_file(tmp.str("pheno.txt"), "FID IID P\n");
  fs::remove(tmp.path() / "pheno.txt");
  fs::create_symlink("/dev/zero", tmp.path() / "pheno.txt");
  r = run_command("timeout 60 " + s() + "gwas -q " + tmp.str("base") + " --pheno " + tmp.str("pheno.txt") + " --out " + tmp.str("g"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "pheno.txt is a character device");
  // A pipe the user names is read (here a --keep list through a FIFO).
  ASSERT_EQ(::mkfifo(tmp.str("keep.fifo").c_str(), 0600), 0);
  const std::string fam = read_file(tmp.str("base.fam"));
  const std::string first = fam.substr(0, fam.find('\n'));
  write_file(tmp.str("one.txt"), first.substr(0, first.find(' ', first.find(' ') + 1)) + "\n");
  r = run_command("(cat " + tmp.str("one.txt") + " > " + tmp.str("keep.fifo") + " &); " + s() + "freq -q " + tmp.str("base") +
                  " --keep " + tmp.str("keep.fifo") + " --out " + tmp.str("f"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace strata
