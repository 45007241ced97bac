// FetchThreads: a job is an index range shared by its caller and the helpers that join it.
#include "io/remote/fetch_threads_internal.hpp"

#include <algorithm>
#include <atomic>
#include <system_error>

namespace strata::io::remote {

struct FetchThreads::Job {
  const std::function<void(size_t)>* fn;  // the caller's; touched only while indices remain
  size_t n;
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;

  // Runs indices until none is left. A helper arriving after the caller returned finds none.
  void work() {
    size_t ran = 0;
    for (size_t i; (i = next.fetch_add(1)) < n; ++ran) (*fn)(i);
    if (ran == 0) return;
    std::lock_guard lock(mu);
    done += ran;
    if (done == n) cv.notify_all();
  }
};

FetchThreads::FetchThreads(int max_threads) : max_threads_(static_cast<size_t>(std::max(0, max_threads))) {}

FetchThreads::~FetchThreads() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void FetchThreads::loop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    std::shared_ptr<Job> job = std::move(queue_.front());
    queue_.pop_front();
    --available_;
    lock.unlock();
    job->work();
    job.reset();
    lock.lock();
    ++available_;
  }
}

void FetchThreads::run(size_t n, size_t width, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->n = n;
  const size_t helpers = std::min(n, std::max<size_t>(width, 1)) - 1;
  if (helpers > 0) {
    {
      std::lock_guard lock(mu_);
      for (size_t h = 0; h < helpers; ++h) queue_.push_back(job);
      // Threads for what the available ones cannot take, up to the bound; one that fails to
      // start leaves its share to the others and the caller.
      while (queue_.size() > available_ && threads_.size() < max_threads_) {
        try {
          threads_.emplace_back([this] { loop(); });
        } catch (const std::system_error&) {
          break;
        }
        ++available_;
      }
    }
    cv_.notify_all();
  }
  job->work();
  std::unique_lock lock(job->mu);
  job->cv.wait(lock, [&] { return job->done == n; });
}

}  // namespace strata::io::remote
