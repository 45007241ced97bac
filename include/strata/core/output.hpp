#pragma once
/// \file
/// Output commit: every file and directory a strata command writes goes through an OutputSet,
/// so that users' data is never lost and a multi-file output appears all at once.
///
/// The rules (one for every command):
/// - A **file output** (`PREFIX.eigenvec`, `out.npy`, …) that exists is replaced atomically,
///   without a flag (as plink2 does). A directory or special file at that path is never
///   replaced.
/// - A **directory output** (a Zarr store) carries a `.strata-output` mark at its root. An
///   existing store with that mark (an earlier strata run's) is replaced without a flag, so a
///   rerun succeeds; any other existing directory is replaced only with `overwrite`, and only
///   when it is a Zarr node (`.zgroup`, `.zarray` or `zarr.json` at its root).
/// - No output may be, contain or lie inside an **input** of the same command, nor be `/`,
///   the home directory, the working directory or one of its ancestors.
/// - No two outputs of a command may be the same file: the paths (`--out`-derived files, the
///   `--report`, stores) must differ after resolving relative paths and symbolic links (checked
///   within an OutputSet, and across every OutputSet while a CommandOutputs scope is open).
/// - A symbolic link at a file output's path is judged by what it points to: a link to a
///   directory or a special file is refused like one; a link to a regular file (or to nothing) is
///   replaced by the new file, and its target is never written.
/// - Missing parent directories are created (for every command alike).
///
/// How an OutputSet commits (all outputs of a set live in one directory D):
/// 1. begin(): a private staging directory `D/.strata-stage-XXXXXX` (mkdtemp, mode 0700) holding
///    a `lock` file the process keeps flock()ed. Outputs are written inside it under fixed names,
///    files created with O_EXCL | O_NOFOLLOW.
/// 2. commit(): writes `journal` (the list of outputs and the inode of each staged entry),
///    fsync()s it and renames it into place: from then on the commit rolls forward.
/// 3. Renames each output into place in the order added (files with rename(2), which replaces
///    atomically; directories with renameat2(RENAME_EXCHANGE), so the old store moves into the
///    staging directory in the same step).
/// 4. Removes the staging directory (the final marker: no staging directory, no commit underway).
///
/// A process killed at any point leaves the old outputs, the new ones, or (killed during step 3)
/// a mix *with the staging directory and its journal beside them*. The next OutputSet in that
/// directory (any strata command writing there) finds staging directories whose lock no live
/// process holds: it finishes those with a journal (the renames whose staged inode is still in
/// place) and deletes the others.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"

namespace strata {

/// \brief What a command may replace, and what it must never touch.
struct OutputRules {
  /// Replace an existing directory output (a Zarr node). File outputs are always replaced.
  bool overwrite = false;
  /// Paths the command reads (files, prefixes' files, stores): never replaced, deleted or
  /// written into. A path that does not exist is ignored.
  std::vector<std::string> inputs;
  /// Replace, without `overwrite`, a store an earlier strata command wrote (its
  /// `.strata-output` mark): rerunning a command succeeds. Array writes (Python's `to_zarr`)
  /// turn it off, so an existing store needs `overwrite` as in Dask and zarr-python.
  bool replace_own_stores = true;
};

/// \brief A set of outputs in one directory, staged privately and committed together.
/// Destroying a set that was not committed removes everything staged.
class OutputSet {
 public:
  /// \brief Start a set whose outputs live in the directory of `first_output` (created when
  /// missing). Finishes or removes what killed runs left in that directory.
  static Result<std::unique_ptr<OutputSet>> begin(const std::string& first_output, OutputRules rules);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  /// \brief Declare a file output; returns the staged path to write it to. The staged file
  /// already exists (created empty, exclusively); open it for writing without O_CREAT games.
  Result<std::string> add_file(const std::string& final_path);
  /// \brief Declare a directory output; returns the staged directory (created, empty).
  Result<std::string> add_directory(const std::string& final_path);

  /// \brief Check that `final_path` may be declared later as a file (or directory) output of
  /// this set, without declaring it: lets a command fail before its work.
  Status check(const std::string& final_path, bool directory) const;

  /// \brief Move every output into place (see the file comment). After an error the set is
  /// left for the next run's recovery when the journal was written, else discarded.
  Status commit();
  /// \brief Drop one declared output before the commit: what was staged for it is removed and
  /// its path may be declared again (a writer that restarts with another layout). NotFound
  /// when the set has no such output.
  Status withdraw(const std::string& final_path);
  /// \brief Remove everything staged (also done by the destructor when not committed).
  void discard();

  /// \brief Final paths in the order added.
  std::vector<std::string> final_paths() const;
  /// \brief The staging directory (for messages and tests).
  std::string staging_dir() const;

 private:
  OutputSet();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// \brief The outputs of one command. While a scope is open (the CLI opens one around each
/// command), every output declared by any OutputSet or AtomicFile in the process must differ
/// from every other declared since the scope opened, after resolving symbolic links: a
/// `--report` naming the command's own table is refused (Invalid) before anything is written.
class CommandOutputs {
 public:
  CommandOutputs();
  ~CommandOutputs();
  CommandOutputs(const CommandOutputs&) = delete;
  CommandOutputs& operator=(const CommandOutputs&) = delete;
};

/// \brief The commit point of a distributed command (only rank 0 holds `out`; null elsewhere):
/// every rank passes the status of its own work, the ranks agree (Communicator::agree), and
/// rank 0 commits only when every rank succeeded — a failure on any rank leaves no output. The
/// agreed status is returned on every rank. Single process: `written`, then commit.
Status agree_and_commit(const Context& ctx, OutputSet* out, const Status& written);

/// \brief A single-file output written through its own OutputSet: `path()` is where to write,
/// commit() moves it into place.
class AtomicFile {
 public:
  static Result<AtomicFile> begin(const std::string& final_path, OutputRules rules = {});
  const std::string& path() const { return staged_; }
  Status commit() { return set_->commit(); }

 private:
  std::unique_ptr<OutputSet> set_;
  std::string staged_;
};

/// \brief Write `contents` to `final_path` atomically (through an AtomicFile).
Status write_file_atomically(const std::string& final_path, std::string_view contents, OutputRules rules = {});

/// \brief The paths an input argument may name, for OutputRules::inputs: itself and, for a
/// PLINK prefix or one of its files (`x`, `x.bed`, `x.bim`, `x.fam`), the whole fileset.
std::vector<std::string> input_paths(const std::string& argument);

/// \brief Create a new file exclusively (O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode 0666
/// before umask); returns the open descriptor.
Result<int> create_new_file(const std::string& path);

/// \brief Remove what killed runs left in `dir` (staging directories whose lock no live process
/// holds; journaled ones are finished first). Returns how many were cleaned.
Result<int64_t> recover_outputs(const std::string& dir);

}  // namespace strata
