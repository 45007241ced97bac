#pragma once
// Read-ahead for a remote store: keys a pass will read soon (Store::prefetch) are fetched in the
// background by a few threads and held until the read that wants them takes them. What is held
// plus what is in flight stays within the byte window the hint names, so a pass sizes its
// read-ahead by bytes (from its memory budget), not by requests.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"

namespace strata::io::remote {

class Prefetcher {
 public:
  using Value = Result<std::optional<Bytes>>;
  /// `fetch(key, max_bytes)` reads one object (blocking, thread-safe); `threads` is how many
  /// requests may be in flight for read-ahead (started on the first hint).
  Prefetcher(std::function<Value(const std::string&, int64_t)> fetch, int threads);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  /// Queue `keys` (those not already queued, in flight or held) for reading; fetches start
  /// while held + in-flight bytes stay below `window_bytes` (in flight counted at the mean
  /// size of the objects fetched so far). Never blocks on the network.
  void hint(const std::vector<std::string>& keys, int64_t max_bytes, int64_t window_bytes);

  /// The answer for `key` when read-ahead has it: held → returned (and forgotten); in flight →
  /// waited for. nullopt when it was not asked for or not started (a queued key is dropped:
  /// the caller reads it itself now).
  std::optional<Value> take(const std::string& key);

  /// Whether `key` is held or in flight (take() will have it); a queued key is dropped (the
  /// caller reads it itself now) and gives false.
  bool started(const std::string& key);

 private:
  struct Entry {
    enum State { Queued, InFlight, Held } state = Queued;
    uint64_t seq = 0;
    int64_t max_bytes = -1;
    std::optional<Value> value;
  };
  void run();
  bool can_start() const;  // mu_ held
  void drop_stale();       // mu_ held

  std::function<Value(const std::string&, int64_t)> fetch_;
  int threads_wanted_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::string> queue_;
  std::unordered_map<std::string, Entry> entries_;
  std::vector<std::thread> threads_;
  int64_t window_ = 0, held_bytes_ = 0, in_flight_ = 0, fetched_ = 0, fetched_bytes_ = 0;
  uint64_t next_seq_ = 0, taken_seq_ = 0;
  bool stop_ = false;
};

}  // namespace strata::io::remote
