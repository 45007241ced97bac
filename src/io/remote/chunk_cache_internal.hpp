#pragma once
// A bounded LRU of objects read from a remote store (chunk and shard bytes, and keys found
// missing), so passes that re-read a store (PCA's counts, load and loadings passes; blocks
// straddling a chunk) pay the network once while the working set fits.
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "strata/core/buffer.hpp"

namespace strata::io::remote {

class ChunkCache {
 public:
  explicit ChunkCache(int64_t capacity_bytes) : cap_(capacity_bytes) {}

  /// The cached answer (a value or "missing"), or nullopt when `key` is not cached.
  std::optional<std::optional<Bytes>> find(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  /// Keep nothing from now on (a reader that reads each object once: copies would be waste).
  void disable() {
    std::lock_guard lock(mu_);
    cap_ = 0;
    held_ = 0;
    lru_.clear();
    index_.clear();
  }

  /// Whether `key` is cached (its place in the LRU order unchanged).
  bool contains(const std::string& key) {
    std::lock_guard lock(mu_);
    return index_.count(key) > 0;
  }

  void put(const std::string& key, const std::optional<Bytes>& value) {
    const int64_t cost = cost_of(key, value);
    std::lock_guard lock(mu_);
    if (cap_ <= 0 || cost > cap_ / 4) return;  // one object never takes most of the cache
    if (index_.count(key)) return;
    lru_.emplace_front(key, value);
    index_[key] = lru_.begin();
    held_ += cost;
    while (held_ > cap_ && !lru_.empty()) {
      held_ -= cost_of(lru_.back().first, lru_.back().second);
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }

 private:
  static int64_t cost_of(const std::string& key, const std::optional<Bytes>& v) {
    return static_cast<int64_t>(key.size()) + 64 + (v ? static_cast<int64_t>(v->size()) : 0);
  }

  int64_t cap_;
  int64_t held_ = 0;
  std::mutex mu_;
  std::list<std::pair<std::string, std::optional<Bytes>>> lru_;
  std::unordered_map<std::string, std::list<std::pair<std::string, std::optional<Bytes>>>::iterator> index_;
};

}  // namespace strata::io::remote
