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

// The input (X or y) and the problem, exit 1: these are data errors, not usage errors (before:
// exit 2, and LAPACK's "syev: argument 5 rejected" for an X whose XᵀX overflows).
TEST_F(HostilePaths, GlmDataErrorsExitOneAndNameTheInput) {
  const std::string py = strata::testing::python_with_zarr();
  if (py.empty()) GTEST_SKIP() << "Debian's python3 with numpy not found";
  auto made = strata::testing::run_python(
      "import numpy as np, os\n"
      "os.chdir('" + tmp.str("") + "')\n"
      "r = np.random.default_rng(0)\n"
      "np.save('x1.npy', np.arange(40.0)); np.save('x3.npy', np.ones((40, 3, 2)))\n"
      "np.save('x.npy', r.normal(size=(40, 3))); np.save('xbig.npy', r.normal(size=(40, 3)) * 1e200)\n"
      "np.save('y.npy', (np.arange(40) % 2).astype(float))\n"
      "np.save('yo.npy', np.array(['a'] * 40, dtype=object), allow_pickle=True)\n");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  for (const char* x : {"x1", "x3", "x", "xbig"})
    ASSERT_EQ(run_command(s() + "zarr import -q " + tmp.str(std::string(x) + ".npy") + " " + tmp.str(std::string(x) + ".zarr")).exit_code, 0);
  fs::create_directories(tmp.path() / "grp.zarr");
  write_file(tmp.str("grp.zarr/.zgroup"), "{\"zarr_format\": 2}");
  auto glm = [&](const std::string& x, const std::string& y, const std::string& family = "logistic") {
    return run_command(s() + "glm -q --family " + family + " --solver newton --x " + tmp.str(x) + " --y " + tmp.str(y) +
                       " --out " + tmp.str("g"));
  };
  STRATA_EXPECT_CLI_ERROR(glm("x1.zarr", "y.npy"), 1, "x1.zarr: expected a 2-D array, found 1-D");
  STRATA_EXPECT_CLI_ERROR(glm("x3.zarr", "y.npy"), 1, "x3.zarr: expected a 2-D array, found 3-D");
  STRATA_EXPECT_CLI_ERROR(glm("grp.zarr", "y.npy"), 1, "is a Zarr group, not an array");
  STRATA_EXPECT_CLI_ERROR(glm("x.zarr", "yo.npy"), 1, "y: " + tmp.str("yo.npy") + ": unsupported dtype");
  for (const char* family : {"logistic", "normal"}) {
    auto r = glm("xbig.zarr", "y.npy", family);
    STRATA_EXPECT_CLI_ERROR(r, 1, "X: the information matrix XᵀWX is not finite");
    EXPECT_EQ(r.output.find("LAPACK"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(tmp.path() / "g.coef.tsv"));
  // Usage errors stay exit 2, with the library's message (the one Python raises).
  STRATA_EXPECT_CLI_ERROR(run_command(s() + "glm -q --family logistic --solver newton --x " + tmp.str("x.zarr") + " --y " +
                                      tmp.str("y.npy") + " --out " + tmp.str("g") + " --tol -1"),
                          2, "--tol: tol must be a finite number > 0, got -1");
}

TEST_F(HostilePaths, EmptyFiltersAreUsageErrors) {
  // Before: --chr '' and --pheno-name '' ran with no filter, exit 0.
  for (const char* chr : {"''", "','", "' '"})
    STRATA_EXPECT_CLI_ERROR(run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("o") + " --chr " + chr), 2,
                            "--chr: must name at least one value");
  ASSERT_EQ(run_command("awk 'BEGIN { print \"FID IID P\" } { print $1, $2, NR % 2 + 1 }' " + tmp.str("base.fam") + " > " +
                        tmp.str("ph.txt")).exit_code, 0);
  for (const char* name : {"''", "','"})
    STRATA_EXPECT_CLI_ERROR(run_command(s() + "gwas -q " + tmp.str("base") + " --pheno " + tmp.str("ph.txt") + " --out " +
                                        tmp.str("g") + " --pheno-name " + name),
                            2, "--pheno-name: must name at least one value");
  EXPECT_EQ(run_command(s() + "gwas -q " + tmp.str("base") + " --pheno " + tmp.str("ph.txt") + " --out " + tmp.str("g") +
                        " --pheno-name P").exit_code, 0);
}

TEST_F(HostilePaths, AFailedWriteToStandardOutputIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ASSERT_EQ(run_command(s() + "convert -q " + tmp.str("base") + " " + tmp.str("c.zarr")).exit_code, 0);
  // Before: exit 0 with nothing written.
  auto r = run_command("(" + s() + "zarr info " + tmp.str("c.zarr") + " > /dev/full)");  // stderr to the test
  STRATA_EXPECT_CLI_ERROR(r, 1, "cannot write to standard output: No space left on device");
  EXPECT_EQ(run_command(s() + "zarr info " + tmp.str("c.zarr") + " > /dev/null").exit_code, 0);
}

}  // namespace
}  // namespace strata
