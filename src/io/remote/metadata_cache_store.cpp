// MetadataCacheStore: Zarr metadata from consolidated documents or cached answers; everything
// else (chunks, shards) goes to the remote store.
#include "io/remote/metadata_cache_store_internal.hpp"

#include <cstdlib>

#include "io/remote/chunk_cache_internal.hpp"
#include "io/remote/prefetcher_internal.hpp"

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/store_key_internal.hpp"

namespace strata::io::remote {
namespace {

using nlohmann::json;

bool is_metadata_key(const std::string& key) {
  const size_t slash = key.rfind('/');
  const std::string_view name = slash == std::string::npos ? std::string_view(key) : std::string_view(key).substr(slash + 1);
  return name == ".zarray" || name == ".zgroup" || name == ".zattrs" || name == "zarr.json" || name == ".zmetadata";
}

// STRATA_REMOTE_CACHE_BYTES (default 256 MiB, 0 = off): remote objects kept for re-reads.
int64_t chunk_cache_bytes() {
  const char* v = std::getenv("STRATA_REMOTE_CACHE_BYTES");
  if (!v || !*v) return int64_t{256} << 20;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  return *end == '\0' && x >= 0 ? x : int64_t{256} << 20;
}

Bytes to_bytes(const json& j) {
  const std::string s = j.dump();
  return Bytes(s.begin(), s.end());
}

class MetadataCacheStore final : public Store {
 public:
  explicit MetadataCacheStore(std::shared_ptr<Store> inner)
      : inner_(std::move(inner)),
        ahead_([s = inner_.get()](const std::string& key, int64_t max_bytes) { return s->get_at_most(key, max_bytes); },
               inner_->concurrency()) {}

  // Loads consolidated metadata; a malformed document is ignored (the per-node files remain).
  Status load() {
    STRATA_ASSIGN_OR_RETURN(auto zm, fetch(".zmetadata"));
    if (zm) {
      auto doc = json::parse(zm->begin(), zm->end(), nullptr, false);
      auto meta = doc.is_object() ? doc.find("metadata") : doc.end();
      if (doc.is_object() && meta != doc.end() && meta->is_object()) {
        for (auto it = meta->begin(); it != meta->end(); ++it)
          if (detail::check_key(it.key(), false).ok() && is_metadata_key(it.key()))
            cache_[it.key()] = to_bytes(*it);
        consolidated_ = true;
        return Status::OK();
      }
    }
    STRATA_ASSIGN_OR_RETURN(auto zj, fetch("zarr.json"));
    if (!zj) return Status::OK();
    auto doc = json::parse(zj->begin(), zj->end(), nullptr, false);
    if (!doc.is_object() || doc.value("node_type", json()) != "group") return Status::OK();
    auto cm = doc.find("consolidated_metadata");
    if (cm == doc.end() || !cm->is_object() || cm->value("kind", json()) != "inline") return Status::OK();
    auto meta = cm->find("metadata");
    if (meta == cm->end() || !meta->is_object()) return Status::OK();
    for (auto it = meta->begin(); it != meta->end(); ++it)
      if (it->is_object() && detail::check_key(it.key(), false).ok()) cache_[it.key() + "/zarr.json"] = to_bytes(*it);
    consolidated_ = true;
    return Status::OK();
  }

  bool consolidated() const { return consolidated_; }
  void keep_no_chunks() const { chunks_.disable(); }

  Result<std::optional<Bytes>> get(const std::string& key) const override {
    if (!is_metadata_key(key)) return get_object(key, -1);
    return fetch(key);
  }
  Result<std::optional<Bytes>> get_at_most(const std::string& key, int64_t max_bytes) const override {
    if (!is_metadata_key(key)) return get_object(key, max_bytes);
    STRATA_ASSIGN_OR_RETURN(auto v, fetch(key));
    if (v && static_cast<int64_t>(v->size()) > max_bytes)
      return Status::Corrupt(describe(), "/", key, ": object of ", v->size(), " bytes exceeds the ", max_bytes,
                             "-byte limit for it");
    return v;
  }
  Result<std::optional<Bytes>> get_range(const std::string& key, int64_t offset, int64_t length) const override {
    return inner_->get_range(key, offset, length);
  }
  Result<std::optional<int64_t>> size(const std::string& key) const override {
    if (!is_metadata_key(key)) return inner_->size(key);
    STRATA_ASSIGN_OR_RETURN(auto v, fetch(key));
    if (!v) return std::optional<int64_t>();
    return std::optional<int64_t>(static_cast<int64_t>(v->size()));
  }
  Result<bool> exists(const std::string& key) const override {
    STRATA_ASSIGN_OR_RETURN(auto s, size(key));
    return s.has_value();
  }
  Status set(const std::string& key, std::span<const uint8_t>) override {
    return Status::Unsupported(describe(), ": opened for reading (cannot write '", key, "')");
  }
  Status erase(const std::string& key) override {
    return Status::Unsupported(describe(), ": opened for reading (cannot remove '", key, "')");
  }
  Status erase_prefix(const std::string& prefix) override { return erase(prefix); }
  Result<std::vector<std::string>> list_dir(const std::string& prefix) const override {
    auto listed = inner_->list_dir(prefix);
    if (listed.ok() || listed.status().code() != StatusCode::Unsupported || !consolidated_) return listed;
    // No listing (plain HTTP): the children that consolidated metadata names, for walking
    // groups. Inside an array it knows no chunks, so the store's own answer stands.
    STRATA_RETURN_NOT_OK(detail::check_key(prefix, true));
    const std::string p = prefix.empty() ? "" : prefix + "/";
    std::vector<std::string> names;
    std::lock_guard lock(mu_);
    if (!is_group_node(p)) return listed;
    for (const auto& [k, v] : cache_) {
      if (!v || k.size() <= p.size() || k.compare(0, p.size(), p) != 0) continue;
      const std::string rest = k.substr(p.size());
      names.push_back(rest.substr(0, rest.find('/')));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }
  std::string describe() const override { return inner_->describe(); }
  std::vector<Result<std::optional<Bytes>>> get_many(const std::vector<std::string>& keys,
                                                     int64_t max_bytes) const override {
    std::vector<Result<std::optional<Bytes>>> out(keys.size(), Result<std::optional<Bytes>>(std::optional<Bytes>()));
    std::vector<std::string> misses;
    std::vector<size_t> where;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (auto hit = chunks_.find(keys[i])) {
        out[i] = checked_size(keys[i], std::move(*hit), max_bytes);
      } else {
        misses.push_back(keys[i]);
        where.push_back(i);
      }
    }
    if (misses.empty()) return out;
    // Keys read ahead (held or in flight) are taken after the others have been asked for.
    std::vector<std::string> now, later;
    std::vector<size_t> where_now, where_later;
    for (size_t j = 0; j < misses.size(); ++j) {
      const bool ahead = ahead_.started(misses[j]);
      (ahead ? later : now).push_back(misses[j]);
      (ahead ? where_later : where_now).push_back(where[j]);
    }
    auto got = inner_->get_many(now, max_bytes);
    for (size_t j = 0; j < now.size(); ++j) {
      if (got[j].ok()) chunks_.put(now[j], *got[j]);
      out[where_now[j]] = std::move(got[j]);
    }
    for (size_t j = 0; j < later.size(); ++j) out[where_later[j]] = get_object(later[j], max_bytes);
    return out;
  }
  void prefetch(const std::vector<std::string>& keys, int64_t max_bytes, int64_t window_bytes) const override {
    std::vector<std::string> wanted;
    for (const auto& k : keys)
      if (!is_metadata_key(k) && !chunks_.contains(k)) wanted.push_back(k);
    ahead_.hint(wanted, max_bytes, window_bytes);
  }
  int concurrency() const override { return inner_->concurrency(); }
  bool can_list() const override { return inner_->can_list(); }

 private:
  // Chunks and shards through the LRU; a cached object larger than `max_bytes` is refused as
  // the store would refuse it.
  Result<std::optional<Bytes>> get_object(const std::string& key, int64_t max_bytes) const {
    if (auto hit = chunks_.find(key)) return checked_size(key, std::move(*hit), max_bytes);
    // Read ahead: a failed read-ahead is not the answer; the read below gives the store's own.
    if (auto got = ahead_.take(key); got && got->ok()) {
      chunks_.put(key, **got);
      return checked_size(key, std::move(**got), max_bytes);
    }
    auto v = max_bytes < 0 ? inner_->get(key) : inner_->get_at_most(key, max_bytes);
    if (v.ok()) chunks_.put(key, *v);
    return v;
  }
  Result<std::optional<Bytes>> checked_size(const std::string& key, std::optional<Bytes> v, int64_t max_bytes) const {
    if (v && max_bytes >= 0 && static_cast<int64_t>(v->size()) > max_bytes)
      return Status::Corrupt(describe(), "/", key, ": object of ", v->size(), " bytes exceeds the ", max_bytes,
                             "-byte limit for it");
    return v;
  }

  // Whether the cache holds group metadata at `p` ("" or "a/b/"); mu_ held. Only groups are
  // listed from consolidated metadata: it names no chunks.
  bool is_group_node(const std::string& p) const {
    auto v2 = cache_.find(p + ".zgroup");
    if (v2 != cache_.end() && v2->second) return true;
    auto v3 = cache_.find(p + "zarr.json");
    if (v3 == cache_.end() || !v3->second) return false;
    auto doc = json::parse(v3->second->begin(), v3->second->end(), nullptr, false);
    return doc.is_object() && doc.value("node_type", json()) == "group";
  }

  Result<std::optional<Bytes>> fetch(const std::string& key) const {
    {
      std::lock_guard lock(mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) return it->second;
      // Consolidated metadata lists every node: any other metadata key is absent.
      if (consolidated_ && key != ".zmetadata") return std::optional<Bytes>();
    }
    STRATA_ASSIGN_OR_RETURN(auto v, inner_->get_at_most(key, detail::kMaxMetadataBytes));
    std::lock_guard lock(mu_);
    cache_[key] = v;
    return v;
  }

  std::shared_ptr<Store> inner_;
  mutable ChunkCache chunks_{chunk_cache_bytes()};
  mutable Prefetcher ahead_;  // after inner_: its threads stop before the store they read goes
  mutable std::mutex mu_;
  mutable std::map<std::string, std::optional<Bytes>> cache_;
  bool consolidated_ = false;
};

}  // namespace

Result<std::shared_ptr<Store>> make_metadata_cache_store(std::shared_ptr<Store> inner) {
  auto s = std::make_shared<MetadataCacheStore>(std::move(inner));
  STRATA_RETURN_NOT_OK(s->load());
  return std::shared_ptr<Store>(s);
}

bool has_consolidated_metadata(const Store& store) {
  auto* m = dynamic_cast<const MetadataCacheStore*>(&store);
  return m && m->consolidated();
}

void keep_no_chunks(const Store& store) {
  if (auto* m = dynamic_cast<const MetadataCacheStore*>(&store)) m->keep_no_chunks();
}

}  // namespace strata::io::remote
