// Prefetcher: background reads of hinted keys, bounded by a byte window.
#include "io/remote/prefetcher_internal.hpp"

#include <algorithm>
#include <system_error>

#include "io/remote/http_client_internal.hpp"

namespace strata::io::remote {
namespace {

// Held objects this many hints behind the newest one taken are dropped: passes read roughly in
// hint order, so such an object was skipped (a pass that stopped early, a hint never read).
constexpr uint64_t kStaleAfter = 512;
// Requests started before any has landed (object sizes unknown until then).
constexpr int64_t kFirstWave = 4;

void note_peak(int64_t bytes) {
  std::atomic<int64_t>& peak = counters().prefetch_peak_bytes;
  int64_t seen = peak.load();
  while (bytes > seen && !peak.compare_exchange_weak(seen, bytes)) {
  }
}

}  // namespace

Prefetcher::Prefetcher(std::function<Value(const std::string&, int64_t)> fetch, int threads)
    : fetch_(std::move(fetch)), threads_wanted_(std::max(1, threads)) {}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool Prefetcher::can_start() const {
  if (queue_.empty()) return false;
  if (held_bytes_ == 0 && in_flight_ == 0) return true;  // one at a time at least
  if (fetched_ == 0) return in_flight_ < kFirstWave;      // sizes unknown until one lands
  const int64_t mean = fetched_bytes_ / fetched_;
  return held_bytes_ + (in_flight_ + 1) * mean <= window_;
}

void Prefetcher::drop_stale() {
  if (taken_seq_ < kStaleAfter) return;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.state == Entry::Held && it->second.seq + kStaleAfter < taken_seq_) {
      held_bytes_ -= it->second.value->ok() && **it->second.value ? static_cast<int64_t>((**it->second.value)->size()) : 0;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

void Prefetcher::hint(const std::vector<std::string>& keys, int64_t max_bytes, int64_t window_bytes) {
  if (keys.empty() || window_bytes <= 0) return;
  std::lock_guard lock(mu_);
  if (stop_) return;
  window_ = window_bytes;
  for (const auto& k : keys) {
    auto [it, fresh] = entries_.try_emplace(k);
    if (!fresh) continue;
    it->second.seq = ++next_seq_;
    it->second.max_bytes = max_bytes;
    queue_.push_back(k);
  }
  // Threads start with the first hint; a process that cannot start one simply reads on demand.
  while (static_cast<int>(threads_.size()) < threads_wanted_) {
    try {
      threads_.emplace_back([this] { run(); });
    } catch (const std::system_error&) {
      break;
    }
  }
  work_cv_.notify_all();
}

void Prefetcher::run() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || can_start(); });
    if (stop_) return;
    const std::string key = std::move(queue_.front());
    queue_.pop_front();
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.state != Entry::Queued) continue;
    it->second.state = Entry::InFlight;
    const int64_t max_bytes = it->second.max_bytes;
    ++in_flight_;
    // Wake-ups are passed on one at a time (a landing or a take frees room for about one
    // more request): waking every thread each time cost thousands of context switches a run.
    if (can_start()) work_cv_.notify_one();
    lock.unlock();
    Value v = fetch_(key, max_bytes);
    lock.lock();
    --in_flight_;
    const int64_t size = v.ok() && *v ? static_cast<int64_t>((*v)->size()) : 0;
    ++fetched_;
    fetched_bytes_ += size;
    counters().prefetched += 1;
    it = entries_.find(key);
    if (it != entries_.end()) {
      it->second.state = Entry::Held;
      it->second.value = std::move(v);
      held_bytes_ += size;
      note_peak(held_bytes_ + in_flight_ * (fetched_bytes_ / fetched_));
    }
    done_cv_.notify_all();
    work_cv_.notify_one();
  }
}

bool Prefetcher::started(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  if (it->second.state != Entry::Queued) return true;
  entries_.erase(it);
  return false;
}

std::optional<Prefetcher::Value> Prefetcher::take(const std::string& key) {
  std::unique_lock lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (it->second.state == Entry::Queued) {
    entries_.erase(it);  // its queue slot is skipped when reached
    return std::nullopt;
  }
  done_cv_.wait(lock, [&] {
    it = entries_.find(key);
    return it == entries_.end() || it->second.state == Entry::Held;
  });
  if (it == entries_.end()) return std::nullopt;
  Value v = std::move(*it->second.value);
  taken_seq_ = std::max(taken_seq_, it->second.seq);
  held_bytes_ -= v.ok() && *v ? static_cast<int64_t>((*v)->size()) : 0;
  entries_.erase(it);
  counters().prefetch_hits += 1;
  drop_stale();
  work_cv_.notify_one();
  return v;
}

}  // namespace strata::io::remote
