#pragma once
/// \file
/// strata::Context: the one handle to the resources a computation runs with — worker threads,
/// memory budget, progress sink, run report, backend, communicator and cancellation. It is the
/// first argument of every algorithm entry point; algorithm parameters (PcaParams, SvdParams, …)
/// are separate from it. No library code reaches a process-global pool: each Context owns its
/// threads, so two computations on two contexts run side by side without sharing anything.
///
/// Copies share the same resources (the handle is reference-counted), like a shared_ptr.
/// All methods are thread-safe.
///
/// \code
/// strata::ContextOptions o;
/// o.threads = 8;
/// o.memory_budget = int64_t{4} << 30;
/// STRATA_ASSIGN_OR_RETURN(strata::Context ctx, strata::Context::make(o));
/// STRATA_ASSIGN_OR_RETURN(auto pcs, strata::genomics::pca(ctx, view, params));
/// std::string json = ctx.report().to_json();
/// \endcode

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/core/report.hpp"
#include "strata/core/result.hpp"

namespace strata {

class ThreadPool;
namespace backend {
class Backend;  // strata/backend/backend.hpp (a layer above core)
}

/// \brief Receives the progress of long computations (the CLI draws a bar, Python forwards to
/// a callback). The library never prints. Calls for one Context never overlap: begin, then any
/// number of update, then end.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  /// A task starts: `total` units of `unit` ("variants", "rows", "blocks"); 0 = unknown.
  virtual void begin(std::string_view label, int64_t total, std::string_view unit) = 0;
  /// `done` of `total` units are complete (total may grow while the task runs).
  virtual void update(int64_t done, int64_t total) = 0;
  /// The task ended (successfully or not).
  virtual void end(int64_t done, int64_t total) = 0;
  /// The task entered phase `name` (a pass's label: "variant counts", "king", "eigensolve").
  virtual void phase(std::string_view /*name*/) {}
};

/// \brief Which kind of device computations run on (the report's "backend"). Only the CPU
/// exists today; the operations themselves come from ContextOptions::backend_impl.
enum class BackendKind : uint8_t { Cpu };
const char* backend_name(BackendKind kind);

/// \brief What a communicator did so far (the report's "mpi" section).
struct CommStats {
  int64_t collectives = 0;       ///< collectives run (data and agreement)
  int64_t bytes_sent = 0;        ///< bytes this rank contributed to them
  double seconds = 0.0;          ///< time inside them (waiting for peers included)
};

/// \brief How the ranks of a distributed run talk (docs/architecture.md, "Distributed runs").
/// Every collective is deterministic: the same inputs give the same bits on every rank, and
/// floating-point sums are taken in a fixed order (rank order). A collective that cannot finish
/// (a peer failed, died or hangs past the deadline) returns an error naming the collective and
/// the rank; it never waits forever. All ranks must call the same collectives in the same order.
/// The base implementation is the single process (rank 0 of 1): collectives are copies.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  /// \brief The ranks running on this host, this one included: they share its hardware threads.
  virtual int ranks_on_this_host() const { return 1; }
  /// \brief Element-wise sum of `data` across ranks, added in rank order (0, 1, …), result on
  /// every rank: the same bits for the same rank count.
  virtual Status allreduce_sum(double* data, int64_t n) const;
  /// \brief Element-wise integer sum across ranks (exact), result on every rank.
  virtual Status allreduce_sum(int64_t* data, int64_t n) const;
  /// \brief Root's `bytes` on every rank (resized there).
  virtual Status broadcast(std::string& bytes, int root = 0) const;
  /// \brief Every rank's `mine`, in rank order, on rank 0 (`all` is untouched elsewhere).
  virtual Status gather(const std::string& mine, std::vector<std::string>* all) const;
  /// \brief Every rank's `mine`, in rank order, on every rank.
  virtual Status allgather(const std::string& mine, std::vector<std::string>* all) const;
  virtual Status barrier() const;
  /// \brief Point to point: `bytes` to rank `dest`, received there by recv() from this rank,
  /// in the order sent. The single-process communicator has no peers (Invalid).
  virtual Status send(const std::string& bytes, int dest) const;
  virtual Status recv(std::string* bytes, int source) const;
  /// \brief Error agreement: every rank passes its own status and gets the same one back —
  /// OK when every rank was OK, else the first error (lowest rank with an error of its own,
  /// before ranks that only saw a peer fail), its message prefixed with the rank. Once a
  /// failure is agreed, later calls return it without communicating (the ranks may have
  /// reached different agreement points).
  virtual Status agree(const Status& local) const;
  virtual CommStats stats() const { return {}; }
};
/// \brief The communicator of one process (rank 0 of 1; reductions are no-ops).
std::shared_ptr<const Communicator> single_process_communicator();

/// \brief The first `count` of `total` items split across `size` ranks in contiguous ranges of
/// whole blocks of `block` items: rank r owns blocks [B·r/size, B·(r+1)/size) of the B blocks.
/// Returns {first item, items}.
std::pair<int64_t, int64_t> rank_range(int64_t total, int64_t block, int rank, int size);

/// The most worker threads a Context may have (the CLI's --threads, Python's threads=).
inline constexpr int kMaxThreads = 1024;
/// The smallest memory budget a user may give (--memory, Python's memory=): 1 MiB.
inline constexpr int64_t kMinUserMemoryBudget = int64_t{1} << 20;

/// \brief Threads as a user gives them: 0 (all cores) or 1..kMaxThreads; Invalid otherwise,
/// with the message the CLI and Python both print. Context::make applies it.
Status check_thread_count(int64_t threads);
/// \brief A memory budget as a user writes it ("2G", "512M", "1500000000" bytes, or plink2's
/// "4000" MiB: a bare number below 1048576 counts MiB), at least
/// kMinUserMemoryBudget; Invalid with the message the CLI and Python both print.
Result<int64_t> parse_memory_budget(std::string_view text);
/// \brief A memory budget in bytes given by a user: at least kMinUserMemoryBudget.
Status check_memory_budget(int64_t bytes);
/// \brief The memory budget of a run whose user gives none (every CLI command's `--memory`,
/// Python's memory=None, ContextOptions::memory_budget = 0): half of the physical memory, as
/// plink2 defaults its workspace (4 GiB where the system does not say).
int64_t default_memory_budget();
/// \brief The budget a Context gets for `requested` bytes: `requested` when positive, else
/// default_memory_budget().
int64_t memory_budget_or_default(int64_t requested);

/// \brief Resources of a Context.
struct ContextOptions {
  /// Worker threads (0 = one per hardware thread). Results never depend on it.
  int threads = 0;
  /// Bytes a computation may hold for blocks, caches and resident data (0 =
  /// default_memory_budget()). Block grids derive from the data and this budget, never the threads.
  int64_t memory_budget = 0;
  /// Progress receiver; null = silent.
  std::shared_ptr<ProgressSink> progress;
  BackendKind backend = BackendKind::Cpu;
  /// The operations computations run (backend::of(ctx)); null = the shared CPU backend at the
  /// best instruction set this CPU has (backend::cpu_backend()).
  std::shared_ptr<const backend::Backend> backend_impl;
  /// null = single process.
  std::shared_ptr<const Communicator> communicator;
  /// The command line that started the run (the CLI's argv), for the Jobs' PREFIX.log.
  std::string command_line;
  /// The machine in a line (CPU level, device), for PREFIX.log; the threads and the memory
  /// budget are added from this Context.
  std::string machine;
};

/// \brief The resources handle. See the file comment.
class Context {
 public:
  struct State;  ///< shared resources (defined in the implementation)

  /// \brief A context with default options. Throws std::system_error only if not even one
  /// worker thread can start; use make() to get that as a Status instead.
  Context();
  /// \brief A context with `options`: IOError naming the limit when no worker thread starts.
  static Result<Context> make(const ContextOptions& options);

  ThreadPool& pool() const;
  int threads() const;
  int64_t memory_budget() const;
  BackendKind backend() const;
  /// ContextOptions::backend_impl (may be null); algorithms use backend::of(ctx).
  const std::shared_ptr<const backend::Backend>& backend_impl() const;
  const Communicator& communicator() const;
  /// ContextOptions::command_line and ::machine (for the Jobs' PREFIX.log).
  const std::string& command_line() const;
  const std::string& machine() const;
  /// \brief This context with the single-process communicator (same threads, budget, report,
  /// progress): work one rank does alone.
  Context local() const;

  /// \brief The report computations on this context add to (thread-safe accessors).
  class Report {
   public:
    void add_phase(const std::string& name, double seconds) const;
    /// One pass of `blocks` blocks ran (the pass engine calls this).
    void add_pass(int64_t blocks) const;
    /// Stored bytes consumed (genotype codes, chunks).
    void add_bytes_read(int64_t bytes) const;
    /// Merge a pass's counters (phases summed, peaks maxed).
    void merge(const RunReport& part) const;
    /// The counters so far, with threads, budget, backend and the current peaks filled in.
    RunReport snapshot() const;
    std::string to_json() const;
    Status write_json(const std::string& path) const;
    /// Forget everything recorded (a new run on the same resources).
    void clear() const;

   private:
    friend class Context;
    explicit Report(std::shared_ptr<State> s) : s_(std::move(s)) {}
    std::shared_ptr<State> s_;
  };
  Report report() const;

  /// \brief Ask running computations to stop: they return Cancelled at the next block.
  void cancel() const;
  /// \brief Clear an earlier cancel() so the context can run the next computation (bindings
  /// reuse a context after a cancelled call).
  void reset_cancel() const;
  bool cancelled() const;
  /// \brief Cancelled("…") once cancel() was called, OK otherwise.
  Status check_cancelled() const;

  /// \brief Add `units` of work done to the task of the innermost open ProgressScope that
  /// began a task (no-op when none, or when there is no sink). Callable from any thread.
  void advance_progress(int64_t units) const;
  /// \brief Name the phase the open task is in (the pass engine names each pass by its label);
  /// no-op when no task is open.
  void progress_phase(std::string_view name) const;

 private:
  explicit Context(std::shared_ptr<State> state) : s_(std::move(state)) {}
  friend class ProgressScope;
  friend class ProgressWeight;
  std::shared_ptr<State> s_;
  std::shared_ptr<const Communicator> comm_;  ///< overrides the state's (local())
};

/// \brief One progress task over the passes of an algorithm. The outermost scope on a Context
/// begins a task on its sink; scopes opened inside it (a nested algorithm) add their total to
/// it instead, so a command shows one bar for its whole run. Work is reported with
/// Context::advance_progress (the pass engine does it per block).
class ProgressScope {
 public:
  ProgressScope(const Context& ctx, std::string_view label, int64_t total, std::string_view unit);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;
  /// Grow the task's total (more passes than first estimated), or shrink it with a negative
  /// `units` (a run that stopped early).
  void add_total(int64_t units);

 private:
  std::shared_ptr<Context::State> s_;
  bool owner_ = false;
};

/// \brief While alive, every unit of progress (advance_progress, a nested scope's total,
/// add_total) counts `weight` times: a phase whose unit (a variant) costs more than another
/// phase's weighs more in the bar, so the bar and its ETA follow the time. Restores the
/// earlier weight when it ends.
class ProgressWeight {
 public:
  ProgressWeight(const Context& ctx, int64_t weight);
  ~ProgressWeight();
  ProgressWeight(const ProgressWeight&) = delete;
  ProgressWeight& operator=(const ProgressWeight&) = delete;

 private:
  std::shared_ptr<Context::State> s_;
  int64_t before_;
};

}  // namespace strata
