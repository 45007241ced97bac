#include "strata/core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <system_error>

#include "strata/core/log.hpp"

namespace strata {
namespace {
thread_local const ThreadPool* t_current_pool = nullptr;

// A worker that finishes a task, and a caller that finishes its share of a parallel_for, poll
// for this long (yielding the core to any other runnable thread) before sleeping on the
// condition variable: passes issue parallel_for back to back with a little serial work between
// (the Krylov steps of an eigensolve, ~0.1 ms each), and a futex wake-up costs ~40 µs on a VM.
// Without it a 2-thread eigensolve of a 1,000-sample GRM was slower than 1 thread.
constexpr auto kSpin = std::chrono::microseconds(100);

// Polls `ready` (yielding) until it holds or kSpin passes; returns its last value.
template <class Ready>
bool spin_until(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();
  }
  return true;
}
}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers_.reserve(num_threads);
  // A thread can fail to start (process or memory limits: std::system_error, EAGAIN). Keep the
  // workers that started rather than throwing out of a half-built pool (whose joinable threads
  // would terminate the process). With none started there is no pool: rethrow (no thread to join).
  for (int i = 0; i < num_threads; ++i) {
    try {
      workers_.emplace_back([this] { worker_loop(); });
    } catch (const std::system_error& e) {
      if (i == 0) {
        throw std::system_error(e.code(), str_cat("cannot start a worker thread (", num_threads,
                                                  " requested; check the process and memory limits, e.g. ulimit -u)"));
      }
      log_message(LogLevel::Warning, str_cat("started only ", i, " of ", num_threads, " worker threads (", e.code().message(),
                                             "; a process or memory limit, e.g. ulimit -u); continuing with ", i));
      break;
    }
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    stopping_.store(true);
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
}

bool ThreadPool::in_worker() const { return t_current_pool == this; }

void ThreadPool::worker_loop() {
  t_current_pool = this;
  while (true) {
    std::function<void()> task;
    spin_until([this] { return queued_.load(std::memory_order_acquire) > 0 || stopping_.load(std::memory_order_relaxed); });
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stop_ || !queue_.empty(); });
      if (stop_ && queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    try {
      task();
    } catch (const std::exception& e) {
      log_message(LogLevel::Error, str_cat("uncaught exception in worker: ", e.what()));
    } catch (...) {
      log_message(LogLevel::Error, "uncaught exception in worker");
    }
  }
}

void ThreadPool::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back(std::move(task));
    queued_.fetch_add(1, std::memory_order_release);
  }
  cv_.notify_one();
}

Status ThreadPool::parallel_for(int64_t n, const std::function<Status(int64_t)>& fn) {
  if (n <= 0) return Status::OK();
  auto run_one = [&fn](int64_t i) -> Status {
    try {
      return fn(i);
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemory("out of memory: an allocation failed (in parallel task ", i, ")");
    } catch (const std::exception& e) {
      return Status::Internal("exception in task ", i, ": ", e.what());
    } catch (...) {
      return Status::Internal("unknown exception in task ", i);
    }
  };
  if (in_worker() || size() <= 1 || n == 1) {
    for (int64_t i = 0; i < n; ++i) {
      Status st = run_one(i);
      if (!st.ok()) return st;
    }
    return Status::OK();
  }
  // Work is handed out dynamically; each task records its own status; the lowest failing index
  // wins so the reported error does not depend on scheduling.
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> first_error{INT64_MAX};
    std::mutex mu;
    std::condition_variable cv;
    std::atomic<int> active{0};
    Status error;
  };
  auto sh = std::make_shared<Shared>();
  auto drain = [sh, n, &run_one]() {
    while (true) {
      int64_t i = sh->next.fetch_add(1);
      if (i >= n) break;
      if (i > sh->first_error.load()) continue;  // an earlier task failed: skip later ones
      Status st = run_one(i);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lk(sh->mu);
        if (i < sh->first_error.load()) {
          sh->first_error.store(i);
          sh->error = std::move(st);
        }
      }
    }
  };
  int helpers = static_cast<int>(std::min<int64_t>(size(), n)) - 1;
  sh->active = helpers;
  for (int h = 0; h < helpers; ++h) {
    submit([sh, drain]() {
      drain();
      std::lock_guard<std::mutex> lk(sh->mu);
      if (--sh->active == 0) sh->cv.notify_all();
    });
  }
  // The calling thread works too, marked as "inside the pool" so nested calls run inline.
  const ThreadPool* prev = t_current_pool;
  t_current_pool = this;
  drain();
  t_current_pool = prev;
  spin_until([&] { return sh->active.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lk(sh->mu);
  sh->cv.wait(lk, [&] { return sh->active.load() == 0; });
  return sh->error;
}


Status parallel_for(ThreadPool* pool, int64_t n, const std::function<Status(int64_t)>& fn) {
  if (pool) return pool->parallel_for(n, fn);
  for (int64_t i = 0; i < n; ++i) STRATA_RETURN_NOT_OK(fn(i));
  return Status::OK();
}

}  // namespace strata
