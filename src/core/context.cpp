// Context: the shared state behind the handle (pool, budget, report, progress, cancellation).
#include "strata/core/context.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <system_error>

#include "strata/core/buffer.hpp"
#include "strata/core/output.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata {
namespace {

class SingleProcess final : public Communicator {};

}  // namespace

const char* backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cpu:
      return "cpu";
  }
  return "unknown";
}

// The single process: every collective is a copy of this rank's data.
Status Communicator::allreduce_sum(double*, int64_t) const { return Status::OK(); }
Status Communicator::allreduce_sum(int64_t*, int64_t) const { return Status::OK(); }
Status Communicator::broadcast(std::string&, int) const { return Status::OK(); }
Status Communicator::gather(const std::string& mine, std::vector<std::string>* all) const {
  if (all) *all = {mine};
  return Status::OK();
}
Status Communicator::allgather(const std::string& mine, std::vector<std::string>* all) const {
  return gather(mine, all);
}
Status Communicator::barrier() const { return Status::OK(); }
Status Communicator::send(const std::string&, int dest) const {
  return Status::Invalid("send to rank ", dest, ": a single process has no peers");
}
Status Communicator::recv(std::string*, int source) const {
  return Status::Invalid("receive from rank ", source, ": a single process has no peers");
}
Status Communicator::agree(const Status& local) const { return local; }

std::pair<int64_t, int64_t> rank_range(int64_t total, int64_t block, int rank, int size) {
  if (total <= 0 || size <= 0) return {0, 0};
  block = std::max<int64_t>(1, block);
  const int64_t blocks = (total + block - 1) / block;
  const int64_t b0 = blocks * rank / size, b1 = blocks * (rank + 1) / size;
  const int64_t first = std::min(total, b0 * block);
  return {first, std::min(total, b1 * block) - first};
}

std::shared_ptr<const Communicator> single_process_communicator() {
  static const auto comm = std::make_shared<const SingleProcess>();
  return comm;
}

struct Context::State {
  std::unique_ptr<ThreadPool> pool;
  int64_t memory_budget = 0;
  BackendKind backend = BackendKind::Cpu;
  std::shared_ptr<const backend::Backend> backend_impl;
  std::shared_ptr<const Communicator> comm;
  std::shared_ptr<ProgressSink> sink;
  std::string command_line, machine;
  std::mutex report_mu;
  RunReport report;
  std::atomic<bool> cancelled{false};
  // Progress: one task at a time (the outermost ProgressScope); updates are throttled and
  // serialized so the sink sees begin / update… / end from one thread at a time.
  std::mutex progress_mu;
  int depth = 0;
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> total{0};
  std::atomic<int64_t> weight{1};  // ProgressWeight
  std::chrono::steady_clock::time_point last_update;
};

Context::Context() {
  Result<Context> made = make(ContextOptions{});
  if (!made.ok()) throw std::system_error(EAGAIN, std::generic_category(), made.status().message());
  s_ = made->s_;
}

Status check_thread_count(int64_t threads) {
  if (threads < 0 || threads > kMaxThreads)
    return Status::Invalid("threads must be 0 (all cores) or 1–", kMaxThreads, ", got ", threads);
  return Status::OK();
}

Result<int64_t> parse_memory_budget(std::string_view text) {
  auto bytes = parse_memory_size(text);
  // A bare number below 1 MiB cannot be bytes (the least budget): it is plink2's --memory, in
  // MiB ("4000" = 4000 MiB).
  const bool bare = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (bytes.ok() && bare && *bytes < kMinUserMemoryBudget) bytes = *bytes * kMinUserMemoryBudget;
  if (!bytes.ok() || *bytes < kMinUserMemoryBudget)
    return Status::Invalid("memory must be a memory size such as 2G, 512M, 1500000000 (bytes) or 4000 (MiB, as "
                           "plink2's --memory: a bare number below 1048576), at least 1M, got '", text, "'");
  return *bytes;
}

Status check_memory_budget(int64_t bytes) {
  if (bytes < kMinUserMemoryBudget)
    return Status::Invalid("memory must be at least 1M (", kMinUserMemoryBudget, " bytes), got ", bytes);
  return Status::OK();
}

int64_t default_memory_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return int64_t{4} << 30;
  return static_cast<int64_t>(pages) * page / 2;
}

int64_t memory_budget_or_default(int64_t requested) { return requested > 0 ? requested : default_memory_budget(); }

Result<Context> Context::make(const ContextOptions& options) {
  STRATA_RETURN_NOT_OK(check_thread_count(options.threads));
  if (options.memory_budget < 0) return Status::Invalid("memory budget must be at least 0, got ", options.memory_budget);
  auto s = std::make_shared<State>();
  try {
    s->pool = std::make_unique<ThreadPool>(options.threads);
  } catch (const std::system_error& e) {
    return Status::IOError(e.what());
  }
  s->memory_budget = memory_budget_or_default(options.memory_budget);
  s->backend = options.backend;
  s->backend_impl = options.backend_impl;
  s->comm = options.communicator ? options.communicator : single_process_communicator();
  s->sink = options.progress;
  s->command_line = options.command_line;
  s->machine = options.machine;
  return Context(std::move(s));
}

ThreadPool& Context::pool() const { return *s_->pool; }
int Context::threads() const { return s_->pool->size(); }
int64_t Context::memory_budget() const { return s_->memory_budget; }
BackendKind Context::backend() const { return s_->backend; }
const std::shared_ptr<const backend::Backend>& Context::backend_impl() const { return s_->backend_impl; }
const Communicator& Context::communicator() const { return comm_ ? *comm_ : *s_->comm; }
const std::string& Context::command_line() const { return s_->command_line; }
const std::string& Context::machine() const { return s_->machine; }
Context Context::local() const {
  Context c(s_);
  c.comm_ = single_process_communicator();
  return c;
}
Context::Report Context::report() const { return Report(s_); }

void Context::cancel() const { s_->cancelled.store(true); }
void Context::reset_cancel() const { s_->cancelled.store(false); }
bool Context::cancelled() const { return s_->cancelled.load(std::memory_order_relaxed); }
Status Context::check_cancelled() const {
  return cancelled() ? Status::Cancelled("the computation was cancelled") : Status::OK();
}

void Context::advance_progress(int64_t units) const {
  State& s = *s_;
  if (!s.sink || units == 0) return;
  units *= s.weight.load(std::memory_order_relaxed);
  const int64_t done = s.done.fetch_add(units, std::memory_order_relaxed) + units;
  std::unique_lock<std::mutex> lk(s.progress_mu, std::try_to_lock);
  if (!lk.owns_lock() || s.depth == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - s.last_update < std::chrono::milliseconds(100)) return;
  s.last_update = now;
  s.sink->update(done, s.total.load());
}

void Context::progress_phase(std::string_view name) const {
  State& s = *s_;
  if (!s.sink || name.empty()) return;
  std::lock_guard<std::mutex> lk(s.progress_mu);
  if (s.depth == 0) return;
  s.sink->phase(name);
  s.sink->update(s.done.load(), s.total.load());
}

void Context::Report::add_phase(const std::string& name, double seconds) const {
  State& s = *s_;
  std::lock_guard<std::mutex> lk(s.report_mu);
  s.report.add_phase(name, seconds);
}

void Context::Report::add_pass(int64_t blocks) const {
  State& s = *s_;
  std::lock_guard<std::mutex> lk(s.report_mu);
  s.report.passes += 1;
  s.report.blocks += blocks;
}

void Context::Report::add_bytes_read(int64_t bytes) const {
  State& s = *s_;
  std::lock_guard<std::mutex> lk(s.report_mu);
  s.report.bytes_read += bytes;
}

void Context::Report::merge(const RunReport& part) const {
  State& s = *s_;
  std::lock_guard<std::mutex> lk(s.report_mu);
  s.report += part;
}

RunReport Context::Report::snapshot() const {
  State& s = *s_;
  RunReport r;
  {
    std::lock_guard<std::mutex> lk(s.report_mu);
    r = s.report;
  }
  r.threads = s.pool->size();
  r.memory_budget = s.memory_budget;
  r.backend = backend_name(s.backend);
  r.peak_tracked_bytes = std::max(r.peak_tracked_bytes, memory_stats().peak_bytes);
  r.peak_rss_bytes = std::max(r.peak_rss_bytes, peak_rss_bytes());
  return r;
}

void Context::Report::clear() const {
  State& s = *s_;
  std::lock_guard<std::mutex> lk(s.report_mu);
  s.report = RunReport{};
}

std::string Context::Report::to_json() const { return snapshot().to_json(); }
Status Context::Report::write_json(const std::string& path) const { return snapshot().write_json(path); }
ProgressScope::ProgressScope(const Context& ctx, std::string_view label, int64_t total, std::string_view unit)
    : s_(ctx.s_) {
  Context::State& s = *s_;
  if (!s.sink) return;
  std::lock_guard<std::mutex> lk(s.progress_mu);
  if (s.depth++ > 0) {
    s.total.fetch_add(total * s.weight.load());  // nested: one bar for the whole run
    return;
  }
  owner_ = true;
  s.done.store(0);
  s.total.store(total);
  s.last_update = std::chrono::steady_clock::now();
  s.sink->begin(label, total, unit);
}

ProgressScope::~ProgressScope() {
  Context::State& s = *s_;
  if (!s.sink) return;
  std::lock_guard<std::mutex> lk(s.progress_mu);
  --s.depth;
  if (owner_) s.sink->end(s.done.load(), s.total.load());
}

void ProgressScope::add_total(int64_t units) {
  if (s_->sink) s_->total.fetch_add(units * s_->weight.load());
}

ProgressWeight::ProgressWeight(const Context& ctx, int64_t weight)
    : s_(ctx.s_), before_(s_->weight.exchange(std::max<int64_t>(1, weight))) {}

ProgressWeight::~ProgressWeight() { s_->weight.store(before_); }

}  // namespace strata
