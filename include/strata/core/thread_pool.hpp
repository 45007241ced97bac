#pragma once
/// \file
/// A fixed-size thread pool: the single owner of CPU parallelism in strata. Each Context
/// (strata/core/context.hpp) owns one; there is no process-global pool.
///
/// Results must not depend on the number of threads: callers give each task its own output
/// slot and combine slots in index order.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <atomic>
#include <thread>
#include <vector>

#include "strata/core/status.hpp"

namespace strata {

class ThreadPool {
 public:
  /// \brief Start `num_threads` workers (>= 1; 0 means hardware concurrency).
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }

  /// \brief Run `fn(i)` for i in [0, n) on the pool and wait. Returns the error of the lowest
  /// failing index (deterministic), OK otherwise. Exceptions are caught and become Internal.
  /// Called from inside a worker of this pool, it runs inline (no deadlock, no nesting).
  Status parallel_for(int64_t n, const std::function<Status(int64_t)>& fn);

  /// \brief Enqueue a fire-and-forget task (must not throw; exceptions are swallowed & logged).
  void submit(std::function<void()> task);

  /// \brief True when the calling thread is one of this pool's workers.
  bool in_worker() const;


 private:
  void worker_loop();
  std::vector<std::thread> workers_;
  std::deque<std::function<void()>> queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<int64_t> queued_{0};      // tasks in queue_, read by spinning workers
  std::atomic<bool> stopping_{false};  // stop_, read by spinning workers
};

/// \brief `pool->parallel_for(n, fn)`, or a serial loop in index order when `pool` is null
/// (library code never reaches for a process-global pool; callers pass their Context's).
Status parallel_for(ThreadPool* pool, int64_t n, const std::function<Status(int64_t)>& fn);

}  // namespace strata
