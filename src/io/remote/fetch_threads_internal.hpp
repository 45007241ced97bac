#pragma once
// Threads kept for a store's concurrent requests (get_many): starting a thread per request in
// flight, per call, cost a clone, a stack and its page faults each, hundreds of them per
// `zarr verify` of a remote store.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::io::remote {

class FetchThreads {
 public:
  /// Up to `max_threads` threads, started as calls need them.
  explicit FetchThreads(int max_threads);
  ~FetchThreads();
  FetchThreads(const FetchThreads&) = delete;
  FetchThreads& operator=(const FetchThreads&) = delete;

  /// Runs fn(i) for every i in [0, n) on the caller and up to `width - 1` of the threads, and
  /// returns when all have run. The caller takes indices too, so a call never waits on threads
  /// busy with other calls (or on a thread that could not be started).
  void run(size_t n, size_t width, const std::function<void(size_t)>& fn);

 private:
  struct Job;
  void loop();

  const size_t max_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;  // one entry per helper a job asked for
  std::vector<std::thread> threads_;
  size_t available_ = 0;  // threads not running a job
  bool stop_ = false;
};

}  // namespace strata::io::remote
