#pragma once
/// \file
/// The shape every output-writing command shares. A command is a declared output set, a
/// selection and a body over the Context; strata::Job owns the rest:
///
/// - rank 0 declares every output before any pass (checked against the inputs and what
///   exists) and every rank learns the outcome (Job::declare);
/// - the phases are timed by scope (Job::phase → PhaseTimer), into the Context's report;
/// - the command's report fields gather in a Summary (Job::summary) that the CLI writes to
///   `--report` and Python returns as a dict — one set of fields for both;
/// - the ranks agree on rank 0's writing and rank 0 commits (Job::commit), which also records
///   the final paths ("files") and the wall time ("wall_seconds");
/// - rank 0 writes `PREFIX.log` (log_path_for): the command line, version, machine, start
///   time, the warnings logged during the run (LogCapture), the files written; it is staged
///   with the outputs and committed with them, and when the Job ends the summary's fields
///   (counts), the phases, the end time and the wall time are appended. The commit also removes
///   the plots (.svg/.png) the previous log of the same command listed and this run does not
///   write, so no plot outlives the tables it drew. A Job that ends
///   without committing leaves its log text for write_failed_job_logs (the CLI writes it with
///   the error): a failed run leaves a log that says so, and none of the other outputs.
///
/// \code
/// Job job(ctx, "king", input, prefix);
/// PhaseTimer open = job.phase("open");
/// std::string table;
/// STRATA_RETURN_NOT_OK(job.declare(prefix + ".kin0", rules, [&](OutputSet& out) -> Status {
///   STRATA_ASSIGN_OR_RETURN(table, out.add_file(prefix + ".kin0"));
///   return Status::OK();
/// }));
/// ...open the selection; STRATA_RETURN_NOT_OK(job.agree(opened.status())); open.stop();
/// ...the passes; rank 0 writes into `table`...
/// STRATA_RETURN_NOT_OK(job.commit(job.writer() ? write() : Status::OK()));
/// job.summary().set("pairs_written", pairs);
/// \endcode

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "strata/core/output.hpp"
#include "strata/core/status.hpp"

namespace strata {

class Context;
class LogCapture;

/// \brief Named fields of a command's report, in the order they were set (setting a name again
/// replaces its value). Values: bool, integers, doubles (NaN prints as null), text, lists of
/// those, nested summaries, lists of summaries, and JSON text made elsewhere.
class Summary {
 public:
  /// JSON text to nest as it is (an object or array another module formats).
  struct Json {
    std::string text;
  };
  using Value = std::variant<std::nullptr_t, bool, int64_t, double, std::string, std::vector<int64_t>,
                             std::vector<double>, std::vector<std::string>, std::vector<Summary>,
                             std::shared_ptr<const Summary>, Json>;

  Summary& set(const std::string& key, Value value);
  Summary& set(const std::string& key, const char* text) { return set(key, Value(std::string(text))); }
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Summary& set(const std::string& key, I v) {
    return set(key, Value(static_cast<int64_t>(v)));
  }
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, int64_t>, int> = 0>
  Summary& set(const std::string& key, const std::vector<I>& v) {
    return set(key, Value(std::vector<int64_t>(v.begin(), v.end())));
  }
  Summary& set(const std::string& key, Summary nested);
  /// \brief Every field of `other`, set here in its order.
  Summary& merge(const Summary& other);

  bool contains(const std::string& key) const;
  const Value* find(const std::string& key) const;
  bool empty() const { return fields_.empty(); }
  const std::vector<std::pair<std::string, Value>>& fields() const { return fields_; }

  /// \brief The fields as a JSON object (compact text).
  std::string to_json() const;

 private:
  std::vector<std::pair<std::string, Value>> fields_;
};

/// \brief Seconds from `start` to now (the steady clock).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// \brief Adds the time from its construction to stop() (or its destruction) to phase `name`
/// of the Context's report.
class PhaseTimer {
 public:
  PhaseTimer(const Context& ctx, std::string name);
  ~PhaseTimer() { stop(); }
  PhaseTimer(PhaseTimer&& other) noexcept;
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  PhaseTimer& operator=(PhaseTimer&&) = delete;
  /// \brief Record the phase now (once; later calls and the destructor add nothing). Returns
  /// its seconds.
  double stop();

 private:
  const Context* ctx_;
  std::string name_;
  std::chrono::steady_clock::time_point start_;
  double seconds_ = 0.0;
};

/// \brief The log file of a command writing to `prefix`: `prefix.log`, a store's or a
/// fileset's extension (.zarr, .vcz, .bed, .pgen, .vcf, .vcf.gz, .bcf, .npy) dropped first
/// ("" for an empty prefix).
std::string log_path_for(const std::string& prefix);

/// \brief Write the log of every Job on this process that ended without committing (since the
/// last call), with `error` as its last lines, atomically at its PREFIX.log; the inputs of each
/// are never replaced. Returns the first failure (the caller's error matters more: best effort).
Status write_failed_job_logs(const Status& error);

/// \brief One run of an output-writing command (see the file comment).
class Job {
 public:
  /// `command` names the command in the report; `input` is what it reads (its paths are
  /// protected from being overwritten), `prefix` where its outputs go.
  Job(const Context& ctx, std::string command, std::string input, std::string prefix);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  const Context& ctx() const { return *ctx_; }
  /// \brief Whether this rank writes the outputs (rank 0).
  bool writer() const { return writer_; }
  const std::string& input() const { return input_; }
  const std::string& prefix() const { return prefix_; }

  /// \brief Rank 0 begins the output set at `first` (the input's paths added to `rules.inputs`)
  /// and `stage` adds the files and directories it will write; every rank gets the outcome.
  Status declare(const std::string& first, OutputRules rules, const std::function<Status(OutputSet&)>& stage);
  /// \brief Rank 0's output set (null elsewhere, and before declare()).
  OutputSet* outputs() const { return out_.get(); }
  /// \brief Rank 0's staging directory ("" elsewhere).
  std::string staging_dir() const;
  /// \brief Every rank passes its status and gets the agreed one (Communicator::agree).
  Status agree(const Status& local) const;
  /// \brief A scoped timer of phase `name`.
  PhaseTimer phase(std::string name) const { return PhaseTimer(*ctx_, std::move(name)); }
  /// \brief The command's report fields ("command", "input" and "output_prefix" are set).
  Summary& summary() { return summary_; }
  /// \brief Every rank passes its own writing's status (rank 0 the outputs', others OK); the
  /// ranks agree and rank 0 commits. Sets "files" (the final paths, rank 0) and
  /// "wall_seconds" in the summary.
  Status commit(const Status& written);
  /// \brief The committed outputs' final paths, the log aside (rank 0; empty elsewhere).
  const std::vector<std::string>& files() const { return files_; }
  /// \brief Where this Job's log goes (log_path_for(prefix)).
  const std::string& log_path() const { return log_path_; }

 private:
  std::string log_head() const;
  std::string log_warnings(size_t from) const;
  std::string log_tail() const;
  const Context* ctx_;
  bool writer_;
  std::string input_, prefix_;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<OutputSet> out_;
  Summary summary_;
  std::vector<std::string> files_;
  std::string command_, log_path_, log_staged_, started_at_;
  std::unique_ptr<LogCapture> capture_;
  std::vector<std::string> protected_;  ///< the inputs (a failure log never replaces them)
  size_t warnings_written_ = 0;
  bool committed_ = false, declare_failed_ = false;
};

}  // namespace strata
