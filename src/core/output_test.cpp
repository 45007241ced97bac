// OutputSet: replacement rules, protected paths, inputs, symlinks, and kills at every commit step.
#include "strata/core/output.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

// Names in `dir` that a commit leaves behind (staging directories).
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(".strata-stage-", 0) == 0) out.push_back(e.path().filename().string());
  return out;
}

void make_zarr_group(const fs::path& dir, const std::string& marker) {
  fs::create_directories(dir);
  write_file((dir / ".zgroup").string(), "{\"zarr_format\": 2}");
  write_file((dir / "marker").string(), marker);
}

// Writes `tag` into PREFIX.a, PREFIX.b (files) and PREFIX.zarr/marker (a store) as one set.
Status write_set(const std::string& prefix, const std::string& tag, bool overwrite) {
  OutputRules rules;
  rules.overwrite = overwrite;
  STRATA_ASSIGN_OR_RETURN(auto set, OutputSet::begin(prefix + ".a", rules));
  STRATA_ASSIGN_OR_RETURN(std::string a, set->add_file(prefix + ".a"));
  STRATA_ASSIGN_OR_RETURN(std::string z, set->add_directory(prefix + ".zarr"));
  STRATA_ASSIGN_OR_RETURN(std::string b, set->add_file(prefix + ".b"));
  write_file(a, tag);
  write_file(b, tag);
  make_zarr_group(z, tag);
  return set->commit();
}

std::string tag_of(const std::string& prefix) {
  const std::string a = read_file(prefix + ".a"), b = read_file(prefix + ".b"),
                    z = read_file(prefix + ".zarr/marker");
  if (a == b && b == z) return a;
  return "mixed";
}

TEST(OutputSet, CreatesAndReplacesFilesAtomically) {
  TempDir d;
  const std::string p = d.str("sub/dir/out");  // parents are created
  STRATA_ASSERT_OK(write_set(p, "one", false));
  EXPECT_EQ(tag_of(p), "one");
  EXPECT_TRUE(leftovers(d.path() / "sub/dir").empty());
  // A rerun replaces the files and the store strata wrote, without a flag.
  EXPECT_TRUE(fs::exists(p + ".zarr/.strata-output"));
  STRATA_ASSERT_OK(write_set(p, "two", false));
  EXPECT_EQ(tag_of(p), "two");
  EXPECT_TRUE(leftovers(d.path() / "sub/dir").empty());
  STRATA_ASSERT_OK(write_set(p, "three", true));
  EXPECT_EQ(tag_of(p), "three");
  EXPECT_FALSE(fs::exists(p + ".zarr/.old")) << "old store content must not survive";
  EXPECT_TRUE(leftovers(d.path() / "sub/dir").empty());
}

TEST(OutputSet, AStoreStrataDidNotWriteNeedsOverwrite) {
  TempDir d;
  const std::string p = d.str("out");
  make_zarr_group(p + ".zarr", "theirs");
  STRATA_EXPECT_STATUS(write_set(p, "ours", false), StatusCode::AlreadyExists,
                       "out.zarr already exists and was not written by strata \\(use --overwrite");
  EXPECT_EQ(read_file(p + ".zarr/marker"), "theirs");
  // A mark with other contents is not strata's.
  write_file(p + ".zarr/.strata-output", "something else\n");
  STRATA_EXPECT_STATUS(write_set(p, "ours", false), StatusCode::AlreadyExists, "not written by strata");
  STRATA_ASSERT_OK(write_set(p, "ours", true));
  EXPECT_EQ(tag_of(p), "ours");
  EXPECT_TRUE(leftovers(d.path()).empty());
}

TEST(OutputSet, NeverReplacesDirectoriesThatAreNotZarrStores) {
  TempDir d;
  fs::create_directories(d.path() / "notes.zarr");
  write_file(d.str("notes.zarr/thesis.tex"), "precious");
  auto set = OutputSet::begin(d.str("notes.zarr"), OutputRules{true, {}});
  STRATA_ASSERT_OK(set);
  STRATA_EXPECT_STATUS((*set)->add_directory(d.str("notes.zarr")), StatusCode::AlreadyExists, "is not a Zarr store");
  // A directory where a file output goes is never deleted.
  fs::create_directories(d.path() / "out.eigenvec");
  write_file(d.str("out.eigenvec/keep"), "x");
  STRATA_EXPECT_STATUS((*set)->add_file(d.str("out.eigenvec")), StatusCode::AlreadyExists, "out.eigenvec is a directory");
  (*set).reset();
  EXPECT_EQ(read_file(d.str("notes.zarr/thesis.tex")), "precious");
  EXPECT_EQ(read_file(d.str("out.eigenvec/keep")), "x");
  EXPECT_TRUE(leftovers(d.path()).empty());
}

TEST(OutputSet, RefusesTheWorkingDirectoryItsAncestorsRootAndHome) {
  TempDir d;
  fs::create_directories(d.path() / "work/inner");
  write_file(d.str("work/inner/data"), "keep");
  const fs::path old_cwd = fs::current_path();
  fs::current_path(d.path() / "work/inner");
  for (const std::string p : {".", "..", "./", "../..", "/"}) {
    auto set = OutputSet::begin(d.str("x"), OutputRules{true, {}});
    ASSERT_TRUE(set.ok()) << set.status().to_string();
    STRATA_EXPECT_STATUS((*set)->add_directory(p), StatusCode::Invalid, "refusing to write");
  }
  const char* home = std::getenv("HOME");
  if (home && *home && fs::is_directory(home)) {
    auto set = OutputSet::begin(d.str("x"), OutputRules{true, {}});
    ASSERT_TRUE(set.ok());
    STRATA_EXPECT_STATUS((*set)->add_directory(home), StatusCode::Invalid, "refusing to write|home directory");
  }
  fs::current_path(old_cwd);
  EXPECT_EQ(read_file(d.str("work/inner/data")), "keep");
}

TEST(OutputSet, NeverTouchesAnInput) {
  TempDir d;
  make_zarr_group(d.path() / "cohort.zarr", "input");
  make_zarr_group(d.path() / "cohort.zarr/sub", "input");
  write_file(d.str("base.bed"), "bed");
  OutputRules rules{true, {d.str("cohort.zarr/sub"), d.str("base.bed")}};
  auto set = OutputSet::begin(d.str("cohort.zarr"), rules);
  ASSERT_TRUE(set.ok());
  // The input itself, a directory holding it, a path inside it.
  STRATA_EXPECT_STATUS((*set)->add_directory(d.str("cohort.zarr/sub")), StatusCode::Invalid, "is an input of this command");
  STRATA_EXPECT_STATUS((*set)->add_directory(d.str("cohort.zarr")), StatusCode::Invalid, "is an input of this command");
  STRATA_EXPECT_STATUS((*set)->add_file(d.str("base.bed")), StatusCode::Invalid, "is an input of this command");
  auto inner = OutputSet::begin(d.str("cohort.zarr/sub/x"), rules);
  ASSERT_TRUE(inner.ok());
  STRATA_EXPECT_STATUS((*inner)->add_file(d.str("cohort.zarr/sub/x")), StatusCode::Invalid, "is an input");
  // Through a symbolic link to the input, too.
  fs::create_directory_symlink(d.path() / "cohort.zarr", d.path() / "link.zarr");
  STRATA_EXPECT_STATUS((*set)->add_directory(d.str("link.zarr")), StatusCode::Invalid, "is an input|symbolic link");
  (*set).reset();
  (*inner).reset();
  EXPECT_EQ(read_file(d.str("cohort.zarr/sub/marker")), "input");
  EXPECT_EQ(read_file(d.str("base.bed")), "bed");
}

TEST(OutputSet, ReplacesASymlinkNotItsTarget) {
  TempDir d;
  write_file(d.str("victim"), "precious");
  fs::create_symlink(d.path() / "victim", d.path() / "out.txt");
  STRATA_ASSERT_OK(write_file_atomically(d.str("out.txt"), "new"));
  EXPECT_EQ(read_file(d.str("victim")), "precious");
  EXPECT_FALSE(fs::is_symlink(d.path() / "out.txt"));
  EXPECT_EQ(read_file(d.str("out.txt")), "new");
}

TEST(OutputSet, ALinkToADirectoryIsRefusedLikeTheDirectory) {
  TempDir d;
  fs::create_directories(d.path() / "real");
  write_file(d.str("real/keep"), "kept");
  fs::create_directory_symlink(d.path() / "real", d.path() / "run.json");
  STRATA_EXPECT_STATUS(write_file_atomically(d.str("run.json"), "{}"), StatusCode::AlreadyExists,
                       "is a symbolic link to a directory");
  EXPECT_TRUE(fs::is_symlink(d.path() / "run.json"));
  EXPECT_EQ(read_file(d.str("real/keep")), "kept");
  EXPECT_TRUE(leftovers(d.path()).empty());
}

TEST(OutputSet, NoTwoOutputsOfACommandAreTheSameFile) {
  TempDir d;
  write_file(d.str("o.afreq"), "old table");
  CommandOutputs command;
  // The report is staged first, then the command's table under the same name: refused.
  auto report = AtomicFile::begin(d.str("o.afreq"));
  ASSERT_TRUE(report.ok()) << report.status().message();
  auto set = OutputSet::begin(d.str("o.afreq"), {});
  ASSERT_TRUE(set.ok());
  STRATA_EXPECT_STATUS((*set)->add_file(d.str("o.afreq")), StatusCode::Invalid,
                       "o.afreq is also another output of this command");
  // Through a relative path and through a symbolic link, too.
  fs::create_symlink(d.path() / "o.afreq", d.path() / "link");
  STRATA_EXPECT_STATUS((*set)->add_file(d.str("link")), StatusCode::Invalid, "also another output of this command");
  STRATA_EXPECT_STATUS((*set)->check(d.str("sub/../o.afreq"), false), StatusCode::Invalid, "also another output of this command");
  STRATA_ASSERT_OK((*set)->add_file(d.str("o.vmiss")).status());
  EXPECT_EQ(read_file(d.str("o.afreq")), "old table");
}

TEST(OutputSet, ADiscardedSetFreesItsPathsForTheCommand) {
  // convert retries a VCF with mixed ploidy: the first attempt's set is discarded and the same
  // store declared again.
  TempDir d;
  CommandOutputs command;
  {
    auto first = OutputSet::begin(d.str("c.vcz"), {});
    ASSERT_TRUE(first.ok());
    STRATA_ASSERT_OK((*first)->add_directory(d.str("c.vcz")).status());
  }
  auto again = OutputSet::begin(d.str("c.vcz"), {});
  ASSERT_TRUE(again.ok());
  STRATA_ASSERT_OK((*again)->add_directory(d.str("c.vcz")).status());
  STRATA_ASSERT_OK((*again)->commit());
  // Committed: claimed for the rest of the command.
  auto third = OutputSet::begin(d.str("c.vcz"), {});
  ASSERT_TRUE(third.ok());
  STRATA_EXPECT_STATUS((*third)->add_directory(d.str("c.vcz")), StatusCode::Invalid, "also another output");
}

TEST(OutputSet, AWithdrawnOutputMayBeDeclaredAgain) {
  // A writer that restarts (convert widening a VCF's ploidy axis) drops what it staged and
  // declares the same store again in the command's one set; the other outputs stay.
  TempDir d;
  CommandOutputs command;
  auto set = OutputSet::begin(d.str("c.vcz"), {});
  ASSERT_TRUE(set.ok());
  STRATA_ASSERT_OK_AND_ASSIGN(std::string first, (*set)->add_directory(d.str("c.vcz")));
  STRATA_ASSERT_OK_AND_ASSIGN(std::string table, (*set)->add_file(d.str("c.txt")));
  { std::ofstream(first + "/stale") << "x"; }
  { std::ofstream(table) << "kept"; }
  STRATA_EXPECT_STATUS((*set)->add_directory(d.str("c.vcz")), StatusCode::Invalid, "also another output");
  STRATA_EXPECT_STATUS((*set)->withdraw(d.str("other.vcz")), StatusCode::NotFound, "is not an output of this set");
  STRATA_ASSERT_OK((*set)->withdraw(d.str("c.vcz")));
  EXPECT_FALSE(std::filesystem::exists(first));
  STRATA_ASSERT_OK_AND_ASSIGN(std::string second, (*set)->add_directory(d.str("c.vcz")));
  EXPECT_NE(second, table);
  { std::ofstream(second + "/.zgroup") << "{}"; }
  STRATA_ASSERT_OK((*set)->commit());
  EXPECT_TRUE(std::filesystem::exists(d.str("c.vcz/.zgroup")));
  EXPECT_FALSE(std::filesystem::exists(d.str("c.vcz/stale")));
  EXPECT_EQ(read_file(d.str("c.txt")), "kept");
  EXPECT_EQ((*set)->final_paths().size(), 2u);
}

TEST(OutputSet, OutputsOfOneSetAreDistinct) {
  TempDir d;
  auto set = OutputSet::begin(d.str("a"), {});
  ASSERT_TRUE(set.ok());
  STRATA_ASSERT_OK((*set)->add_file(d.str("a")).status());
  STRATA_EXPECT_STATUS((*set)->add_file(d.str("./a")), StatusCode::Invalid, "also another output of this command");
}

TEST(OutputSet, SeparateCommandsMayReuseAPath) {
  TempDir d;
  for (int i = 0; i < 2; ++i) {
    CommandOutputs command;
    STRATA_ASSERT_OK(write_file_atomically(d.str("x"), "v" + std::to_string(i)));
  }
  STRATA_ASSERT_OK(write_file_atomically(d.str("x"), "v2"));  // no scope: each call alone
  STRATA_ASSERT_OK(write_file_atomically(d.str("x"), "v3"));
  EXPECT_EQ(read_file(d.str("x")), "v3");
}

TEST(OutputSet, StagedFilesAreCreatedExclusively) {
  TempDir d;
  const std::string f = d.str("exists");
  write_file(f, "x");
  auto fd = create_new_file(f);
  STRATA_EXPECT_STATUS(fd, StatusCode::IOError, "exists: cannot create: File exists");
  fs::create_symlink(d.path() / "nowhere", d.path() / "dangling");
  STRATA_EXPECT_STATUS(create_new_file(d.str("dangling")), StatusCode::IOError, "dangling: cannot create");
  EXPECT_FALSE(fs::exists(d.path() / "nowhere"));
}

TEST(OutputSet, DiscardedSetsLeaveNothing) {
  TempDir d;
  {
    auto set = OutputSet::begin(d.str("out.a"), {});
    ASSERT_TRUE(set.ok());
    auto a = (*set)->add_file(d.str("out.a"));
    ASSERT_TRUE(a.ok());
    write_file(*a, "partial");
  }
  EXPECT_FALSE(fs::exists(d.path() / "out.a"));
  EXPECT_TRUE(leftovers(d.path()).empty());
}

TEST(OutputSet, RecoveryLeavesLiveSetsAlone) {
  TempDir d;
  auto set = OutputSet::begin(d.str("out.a"), {});
  ASSERT_TRUE(set.ok());
  auto cleaned = recover_outputs(d.str());
  ASSERT_TRUE(cleaned.ok());
  EXPECT_EQ(*cleaned, 0);
  EXPECT_TRUE(fs::is_directory((*set)->staging_dir()));
}

// Kill a child at commit step `step` (SIGKILL, as a user's kill -9 or the OOM killer would).
void commit_killed_at(const std::string& prefix, const std::string& tag, int step) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("STRATA_FAULT_COMMIT_STEP", std::to_string(step).c_str(), 1);
    Status st = write_set(prefix, tag, true);
    _exit(st.ok() ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "step " << step << " status " << status;
}

TEST(OutputSet, KillAtEveryCommitStepLeavesOldOrNewAfterRecovery) {
  // Steps 0 .. n + 2 for n = 3 outputs.
  for (int step = 0; step <= 5; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    TempDir d;
    const std::string p = d.str("run");
    STRATA_ASSERT_OK(write_set(p, "old", false));
    commit_killed_at(p, "new", step);
    const std::string seen = tag_of(p);
    // Before the journal is in place the old outputs are untouched; after it, the outputs are
    // old, new, or a mix that a staging directory with its journal marks as unfinished.
    if (step == 0) EXPECT_EQ(seen, "old");
    if (seen == "mixed") {
      const auto left = leftovers(d.path());
      ASSERT_EQ(left.size(), 1u);
      EXPECT_TRUE(fs::exists(d.path() / left[0] / "journal"));
    }
    ASSERT_FALSE(leftovers(d.path()).empty()) << "a killed commit leaves its staging directory";
    // The next run in that directory (any output there) finishes or removes it.
    STRATA_ASSERT_OK(write_file_atomically(d.str("other.txt"), "x"));
    EXPECT_TRUE(leftovers(d.path()).empty());
    EXPECT_EQ(tag_of(p), step == 0 ? "old" : "new");
  }
}

}  // namespace
}  // namespace strata
