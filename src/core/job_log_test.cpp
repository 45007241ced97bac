// PREFIX.log: what a Job writes beside its outputs, what it appends when it ends, and the log
// a failed run leaves (write_failed_job_logs).
#include <filesystem>

#include "core/test_context.hpp"
#include "strata/core/job.hpp"
#include "strata/core/log.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;
namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Context context_with_command_line() {
  ContextOptions o;
  o.threads = 1;
  o.command_line = "strata demo in.txt --out 'my out'";
  o.machine = "cpu test-level";
  return *Context::make(o);
}

TEST(JobLog, PathDropsStoreAndFilesetExtensions) {
  EXPECT_EQ(log_path_for("out/x"), "out/x.log");
  EXPECT_EQ(log_path_for("x.zarr"), "x.log");
  EXPECT_EQ(log_path_for("x.vcz/"), "x.log");
  EXPECT_EQ(log_path_for("x.bed"), "x.log");
  EXPECT_EQ(log_path_for("x.vcf.gz"), "x.log");
  EXPECT_EQ(log_path_for("x.eigen"), "x.eigen.log");
  EXPECT_EQ(log_path_for(""), "");
}

TEST(JobLog, CommittedRunLogsCommandMachineFilesWarningsAndCounts) {
  TempDir dir;
  const std::string input = (fs::path(dir.path()) / "in.txt").string();
  write_file(input, "data");
  const std::string prefix = (fs::path(dir.path()) / "out").string();
  Context ctx = context_with_command_line();
  {
    Job job(ctx, "demo", input, prefix);
    std::string staged;
    ASSERT_TRUE(job.declare(prefix + ".a", {}, [&](OutputSet& out) -> Status {
      STRATA_ASSIGN_OR_RETURN(staged, out.add_file(prefix + ".a"));
      return Status::OK();
    }).ok());
    EXPECT_FALSE(fs::exists(prefix + ".log"));  // staged with the outputs
    log_warning("12 variants have no ID");
    write_file(staged, "result");
    ASSERT_TRUE(job.commit(Status::OK()).ok());
    EXPECT_EQ(job.files(), std::vector<std::string>{prefix + ".a"});  // the log is not a result
    EXPECT_EQ(job.log_path(), prefix + ".log");
    const std::string at_commit = read_file(prefix + ".log");
    EXPECT_TRUE(has(at_commit, "Written:\n  " + prefix + ".a\n  " + prefix + ".log\n")) << at_commit;
    EXPECT_FALSE(has(at_commit, "Wall time")) << at_commit;  // appended when the Job ends
    job.summary().set("samples", 5000).set("variants", 50000);
    log_warning("a warning after the commit");
  }
  const std::string log = read_file(prefix + ".log");
  EXPECT_TRUE(has(log, "strata ")) << log;
  EXPECT_TRUE(has(log, "Command line: strata demo in.txt --out 'my out'\n")) << log;
  EXPECT_TRUE(has(log, "Machine: ")) << log;
  EXPECT_TRUE(has(log, "cpu test-level; 1 threads; memory budget ")) << log;
  EXPECT_TRUE(has(log, "Input: " + input + "\n")) << log;
  EXPECT_TRUE(has(log, "warning: 12 variants have no ID\n")) << log;
  EXPECT_TRUE(has(log, "warning: a warning after the commit\n")) << log;
  EXPECT_TRUE(has(log, "  samples: 5000\n  variants: 50000\n")) << log;
  EXPECT_TRUE(has(log, "Start: ")) << log;
  EXPECT_TRUE(has(log, "End: ")) << log;
  EXPECT_TRUE(has(log, "Wall time: ")) << log;
}

TEST(JobLog, QuietTerminalStillLogsWarnings) {
  TempDir dir;
  const std::string prefix = (fs::path(dir.path()) / "q").string();
  Context ctx = context_with_command_line();
  const LogLevel before = log_level();
  set_log_level(LogLevel::Off);  // nothing reaches the terminal
  {
    Job job(ctx, "demo", "", prefix);
    ASSERT_TRUE(job.declare(prefix + ".a", {}, [&](OutputSet& out) { return out.add_file(prefix + ".a").status(); }).ok());
    log_warning("silenced on the terminal");
    ASSERT_TRUE(job.commit(Status::OK()).ok());
  }
  set_log_level(before);
  EXPECT_TRUE(has(read_file(prefix + ".log"), "warning: silenced on the terminal\n"));
}

TEST(JobLog, FailedRunLeavesALogWithTheErrorAndNoOutputs) {
  TempDir dir;
  const std::string prefix = (fs::path(dir.path()) / "bad").string();
  Context ctx = context_with_command_line();
  (void)write_failed_job_logs(Status::OK());  // nothing left from other tests
  {
    Job job(ctx, "demo", "", prefix);
    std::string staged;
    ASSERT_TRUE(job.declare(prefix + ".a", {}, [&](OutputSet& out) -> Status {
      STRATA_ASSIGN_OR_RETURN(staged, out.add_file(prefix + ".a"));
      return Status::OK();
    }).ok());
    write_file(staged, "half");
    log_warning("before the failure");
    EXPECT_FALSE(job.commit(Status::IOError(prefix, ".a: disk full")).ok());
  }
  EXPECT_FALSE(fs::exists(prefix + ".log"));  // the caller writes it, with the error
  ASSERT_TRUE(write_failed_job_logs(Status::IOError(prefix, ".a: disk full")).ok());
  EXPECT_FALSE(fs::exists(prefix + ".a"));
  const std::string log = read_file(prefix + ".log");
  EXPECT_TRUE(has(log, "Command line: strata demo")) << log;
  EXPECT_TRUE(has(log, "warning: before the failure\n")) << log;
  EXPECT_TRUE(has(log, "Error: " + prefix + ".a: disk full\n")) << log;
  EXPECT_TRUE(has(log, "failed; no output was written")) << log;
  EXPECT_FALSE(has(log, "Written:")) << log;
}

TEST(JobLog, NoFailureLogWhereTheOutputsWereRefused) {
  TempDir dir;
  const std::string prefix = (fs::path(dir.path()) / "data").string();
  write_file(prefix + ".a", "keep me");
  Context ctx = context_with_command_line();
  (void)write_failed_job_logs(Status::OK());
  {
    Job job(ctx, "demo", prefix + ".a", prefix);
    EXPECT_FALSE(job.declare(prefix + ".a", {}, [&](OutputSet& out) { return out.add_file(prefix + ".a").status(); }).ok());
  }
  ASSERT_TRUE(write_failed_job_logs(Status::Invalid("refused")).ok());
  EXPECT_FALSE(fs::exists(prefix + ".log"));
  EXPECT_EQ(read_file(prefix + ".a"), "keep me");
}

// One run of `command` writing `names` (each under `prefix`) through a Job.
void run_writing(const Context& ctx, const std::string& command, const std::string& prefix,
                 const std::vector<std::string>& names) {
  Job job(ctx, command, "", prefix);
  std::vector<std::string> staged(names.size());
  ASSERT_TRUE(job.declare(prefix + names[0], {}, [&](OutputSet& out) -> Status {
    for (size_t i = 0; i < names.size(); ++i) {
      STRATA_ASSIGN_OR_RETURN(staged[i], out.add_file(prefix + names[i]));
    }
    return Status::OK();
  }).ok());
  for (const std::string& s : staged) write_file(s, command);
  ASSERT_TRUE(job.commit(Status::OK()).ok());
}

TEST(JobLog, RerunRemovesThePlotsItNoLongerDraws) {
  TempDir dir;
  const std::string prefix = (fs::path(dir.path()) / "p").string();
  Context ctx = context_with_command_line();
  run_writing(ctx, "pca", prefix, {".eigenvec", ".svg", ".png", ".Q2.qq.svg"});
  write_file(prefix + ".mine.png", "the user's own");  // never listed in a log: kept
  run_writing(ctx, "pca", prefix, {".eigenvec", ".svg"});
  EXPECT_TRUE(fs::exists(prefix + ".svg"));
  EXPECT_FALSE(fs::exists(prefix + ".png"));
  EXPECT_FALSE(fs::exists(prefix + ".Q2.qq.svg"));
  EXPECT_EQ(read_file(prefix + ".mine.png"), "the user's own");
  const std::string log = read_file(prefix + ".log");
  EXPECT_TRUE(has(log, "Removed (plots of the previous run that this run does not draw):\n  " + prefix + ".png\n")) << log;
  // Another command at the same prefix leaves the plots of the first alone; tables are never removed.
  run_writing(ctx, "pca", prefix, {".eigenvec", ".svg", ".png"});
  run_writing(ctx, "grm", prefix, {".rel"});
  EXPECT_TRUE(fs::exists(prefix + ".png"));
  EXPECT_TRUE(fs::exists(prefix + ".eigenvec"));
}

TEST(JobLog, StalePlotThatIsNotAFileIsLeftAlone) {
  TempDir dir;
  const std::string prefix = (fs::path(dir.path()) / "p").string();
  Context ctx = context_with_command_line();
  run_writing(ctx, "pca", prefix, {".eigenvec", ".png"});
  fs::remove(prefix + ".png");
  fs::create_directory(prefix + ".png");
  run_writing(ctx, "pca", prefix, {".eigenvec"});
  EXPECT_TRUE(fs::is_directory(prefix + ".png"));
}

}  // namespace
}  // namespace strata
