// Users' data through the CLI: inputs never replaced, directories never deleted, one overwrite
// rule, symlinks not followed, and a PCA killed at every step of its output commit.
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;

std::string cli() { return strata::testing::strata_cli_path(); }

// Every regular file under `dir` with its contents, for "nothing changed" checks.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = read_file(e.path().string());
  return out;
}

std::vector<std::string> staging_dirs(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(".strata-stage-", 0) == 0 || n.find(".tmp-") != std::string::npos) out.push_back(n);
  }
  return out;
}

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built at " << cli();
    auto r = run_command(cli() + " simulate -q --samples 60 --variants 400 --missing 0.02 --out " + tmp.str("base"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  std::string s() const { return cli() + " "; }
  TempDir tmp;
};

TEST_F(OutputSafety, PcaNeverReplacesItsInputStore) {
  auto c = run_command(s() + "convert -q " + tmp.str("base") + " " + tmp.str("cohort.zarr"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const auto before = snapshot(tmp.path() / "cohort.zarr");
  for (const char* extra : {"", " --overwrite"}) {
    auto r = run_command(s() + "pca -q " + tmp.str("cohort.zarr") + " -k 2 --out " + tmp.str("cohort") + extra);
    STRATA_EXPECT_CLI_ERROR(r, 2, "cohort.zarr is an input of this command");
  }
  EXPECT_EQ(snapshot(tmp.path() / "cohort.zarr"), before);
  EXPECT_FALSE(fs::exists(tmp.str("cohort.eigenvec"))) << "nothing is written when an output is refused";
}

TEST_F(OutputSafety, DirectoriesAtFileOutputsAreKept) {
  fs::create_directories(tmp.path() / "out.eigenvec");
  write_file(tmp.str("out.eigenvec/notes.txt"), "mine");
  auto r = run_command(s() + "pca -q " + tmp.str("base") + " -k 2 --out " + tmp.str("out"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "out.eigenvec is a directory; strata replaces only files at a file output's path");
  EXPECT_EQ(read_file(tmp.str("out.eigenvec/notes.txt")), "mine");
  EXPECT_FALSE(fs::exists(tmp.str("out.eigenval")));
}

TEST_F(OutputSafety, OverwriteNeverDeletesOrdinaryDirectoriesOrTheWorkingDirectory) {
  auto e = run_command(s() + "pca -q " + tmp.str("base") + " -k 2 --out " + tmp.str("p"));
  ASSERT_EQ(e.exit_code, 0) << e.output;
  ASSERT_EQ(run_command(s() + "zarr export " + tmp.str("p.zarr/eigenvectors") + " " + tmp.str("a.npy")).exit_code, 0);
  fs::create_directories(tmp.path() / "work/docs");
  write_file(tmp.str("work/docs/thesis.tex"), "years of work");
  const auto before = snapshot(tmp.path() / "work");
  const std::string in_work = "cd " + tmp.str("work") + " && ";
  // An existing ordinary directory is refused at run time (1); the working directory, its
  // ancestors and the root are refused as bad option values (2).
  const std::string not_zarr = "is not a Zarr store (no .zgroup, .zarray or zarr.json); strata replaces only Zarr stores";
  const std::string refused = ": it is the working directory, the root or an ancestor of the working directory";
  struct Target {
    std::string path;
    int code;
    std::string message;
  };
  const std::vector<Target> targets = {
      {"docs", 1, tmp.str("work/docs") + " " + not_zarr},
      {".", 2, "refusing to write " + tmp.str("work") + refused},
      {"..", 2, "refusing to write " + tmp.str() + refused},
      {"./", 2, "refusing to write " + tmp.str("work") + refused},
      {"/", 2, "refusing to write /" + refused},
  };
  for (const Target& t : targets) {
    SCOPED_TRACE(t.path);
    auto r = run_command(in_work + s() + "zarr import ../a.npy " + t.path + " --overwrite");
    STRATA_EXPECT_CLI_ERROR(r, t.code, t.message);
    auto v = run_command(in_work + s() + "svd -q ../p.zarr/eigenvectors -k 1 --out " + t.path + " --overwrite");
    STRATA_EXPECT_CLI_ERROR(v, t.code, t.message);
  }
  EXPECT_EQ(snapshot(tmp.path() / "work"), before);
  EXPECT_TRUE(staging_dirs(tmp.path() / "work").empty());
}

TEST_F(OutputSafety, OneOverwriteRuleForEveryCommand) {
  // Plain-file outputs are replaced without a flag.
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("f")).exit_code, 0);
    EXPECT_EQ(run_command(s() + "simulate -q --samples 10 --variants 5 --out " + tmp.str("sim")).exit_code, 0);
    EXPECT_EQ(run_command(s() + "convert -q " + tmp.str("base") + " " + tmp.str("copy.bed")).exit_code, 0);
  }
  // Directory outputs (Zarr stores): a rerun replaces the store strata wrote, for every
  // command alike; a store strata did not write needs --overwrite.
  const std::vector<std::string> makers = {
      "simulate -q --samples 10 --variants 5 --format vcz --out " + tmp.str("v"),
      "convert -q " + tmp.str("base") + " " + tmp.str("v.vcz"),
      "pca -q " + tmp.str("base") + " -k 2 --out " + tmp.str("v"),
  };
  for (const std::string& cmd : makers) {
    SCOPED_TRACE(cmd);
    fs::remove_all(tmp.path() / "v.vcz");
    fs::remove_all(tmp.path() / "v.zarr");
    ASSERT_EQ(run_command(s() + cmd).exit_code, 0);
    auto again = run_command(s() + cmd);
    EXPECT_EQ(again.exit_code, 0) << again.output;
    auto forced = run_command(s() + cmd + " --overwrite");
    EXPECT_EQ(forced.exit_code, 0) << forced.output;
    // Someone else's store at that path: refused without the flag, kept.
    for (const char* store : {"v.vcz", "v.zarr"}) {
      if (!fs::exists(tmp.path() / store)) continue;
      fs::remove(tmp.path() / store / ".strata-output");
      write_file((tmp.path() / store / "theirs").string(), "x");
    }
    auto foreign = run_command(s() + cmd);
    STRATA_EXPECT_CLI_ERROR(foreign, 1, "already exists and was not written by strata (use --overwrite to replace it)");
    EXPECT_TRUE(fs::exists(tmp.path() / "v.vcz" / "theirs") || fs::exists(tmp.path() / "v.zarr" / "theirs"));
  }
  EXPECT_TRUE(staging_dirs(tmp.path()).empty());
}

TEST_F(OutputSafety, PlantedSymlinksAreNotFollowed) {
  write_file(tmp.str("victim"), "precious");
  // At the output path itself: the link is replaced, its target is not written.
  fs::create_symlink(tmp.path() / "victim", tmp.path() / "fr.afreq");
  // At every name the old code used for temporaries.
  for (int pid = 1; pid < 64; ++pid)
    fs::create_symlink(tmp.path() / "victim", tmp.path() / ("fr.vmiss.tmp-" + std::to_string(pid)));
  auto r = run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("fr"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(tmp.str("victim")), "precious");
  EXPECT_FALSE(fs::is_symlink(tmp.path() / "fr.afreq"));
  EXPECT_THAT(read_file(tmp.str("fr.afreq")), ::testing::StartsWith("#CHROM"));
}

TEST_F(OutputSafety, UnwritableReportFailsBeforeAnyOutput) {
  fs::create_directories(tmp.path() / "run.json");  // a directory where the report goes
  auto r = run_command(s() + "pca -q " + tmp.str("base") + " -k 2 --out " + tmp.str("r") + " --report " + tmp.str("run.json"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "--report: " + tmp.str("run.json") + " is a directory");
  EXPECT_FALSE(fs::exists(tmp.str("r.eigenvec")));
  // A report never replaces a file that is not a run report (an input, say) ...
  const std::string bed = read_file(tmp.str("base.bed"));
  auto in = run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("f") + " --report " + tmp.str("base.bed"));
  STRATA_EXPECT_CLI_ERROR(in, 1, "base.bed exists and is not a strata run report; refusing to replace it with one");
  EXPECT_EQ(read_file(tmp.str("base.bed")), bed);
  // ... nor takes a name the file system cannot hold after the outputs are in place.
  auto longname = run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("g") + " --report " +
                              tmp.str(std::string(300, 'r') + ".json"));
  STRATA_EXPECT_CLI_ERROR(longname, 2, "r.json: the file name is longer than 255 bytes");
  EXPECT_FALSE(fs::exists(tmp.str("g.afreq")));
  // A stale report is always rewritten.
  write_file(tmp.str("old.json"), "{\"command\": \"freq\", \"seconds\": 0}");
  auto ok = run_command(s() + "freq -q " + tmp.str("base") + " --out " + tmp.str("f") + " --report " + tmp.str("old.json"));
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_THAT(read_file(tmp.str("old.json")), ::testing::HasSubstr("\"peak_rss_bytes\""));
  EXPECT_TRUE(staging_dirs(tmp.path()).empty());
}

// Kill `strata pca` (SIGKILL) at every step of its output commit. Afterwards each output is the
// old run's or the new run's; a mix is only visible beside a staging directory with a journal;
// the next strata command in that directory finishes the commit, and nothing is left over.
TEST_F(OutputSafety, PcaKilledAtEveryCommitStep) {
  const std::vector<std::string> outs = {".eigenvec", ".eigenval", ".eigenvec.var", ".zarr/eigenvalues/0", ".svg"};
  const std::string a_cmd = s() + "pca -q " + tmp.str("base") + " -k 2 --out ";
  const std::string b_cmd = s() + "pca -q " + tmp.str("base") + " -k 3 --overwrite --out ";
  ASSERT_EQ(run_command(a_cmd + tmp.str("A")).exit_code, 0);
  ASSERT_EQ(run_command(b_cmd + tmp.str("B")).exit_code, 0);
  auto contents = [&](const std::string& prefix) {
    std::vector<std::string> v;
    for (const auto& o : outs) v.push_back(read_file(prefix + o));
    return v;
  };
  // The outputs name nothing run-specific, so run A's and B's files are references.
  const auto old_files = contents(tmp.str("A")), new_files = contents(tmp.str("B"));
  for (size_t i = 0; i < outs.size(); ++i) ASSERT_NE(old_files[i], new_files[i]) << outs[i];
  for (int step = 0; step <= static_cast<int>(outs.size()) + 2; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    TempDir d;
    const std::string p = d.str("run");
    ASSERT_EQ(run_command(a_cmd + p).exit_code, 0);
    auto killed = run_command("STRATA_FAULT_COMMIT_STEP=" + std::to_string(step) + " " + b_cmd + p);
    EXPECT_EQ(killed.exit_code, 128 + 9) << killed.output;
    const auto seen = contents(p);
    int n_old = 0, n_new = 0;
    for (size_t i = 0; i < outs.size(); ++i) {
      n_old += seen[i] == old_files[i];
      n_new += seen[i] == new_files[i];
      EXPECT_TRUE(seen[i] == old_files[i] || seen[i] == new_files[i]) << outs[i] << " is neither run's";
    }
    const auto left = staging_dirs(d.path());
    EXPECT_EQ(left.size(), 1u) << "a killed commit leaves its staging directory as the marker";
    if (n_old > 0 && n_new > 0) {
      ASSERT_EQ(left.size(), 1u);
      EXPECT_TRUE(fs::exists(d.path() / left[0] / "journal")) << "a mix must carry its journal";
    }
    if (step == 0) EXPECT_EQ(n_old, static_cast<int>(outs.size()));
    // Any later strata command writing in that directory finishes the commit.
    ASSERT_EQ(run_command(s() + "freq -q " + tmp.str("base") + " --out " + d.str("other")).exit_code, 0);
    EXPECT_TRUE(staging_dirs(d.path()).empty());
    EXPECT_EQ(contents(p), step == 0 ? old_files : new_files);
  }
}

}  // namespace
}  // namespace strata
