// ZarrArray::storage_info and ZarrArray::verify: find the stored objects by listing the store
// (never by enumerating the chunk grid, which metadata can make 2^62 cells large), decode them,
// and count the missing chunks arithmetically.
#include <algorithm>
#include <functional>

#include "io/zarr/zarr_array_internal.hpp"

namespace strata::io {

using detail::Impl;

namespace detail {

namespace {

// A chunk index component as written in keys: decimal digits, no sign, no leading zeros (so
// each index has exactly one key), below `limit`.
bool parse_index(std::string_view s, int64_t limit, int64_t& out) {
  if (s.empty() || s.size() > 19 || (s.size() > 1 && s[0] == '0')) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v >= limit) return false;
  out = v;
  return true;
}

}  // namespace

Result<std::vector<int64_t>> list_stored_objects(const Impl& a) {
  if (a.outer.num_chunks() > 0 && a.outer.ndim() == 0) {
    STRATA_ASSIGN_OR_RETURN(auto size, a.store->size(a.object_key(Shape{})));
    return size ? std::vector<int64_t>{0} : std::vector<int64_t>{};
  }
  return list_stored_chunks(*a.store, a.path, a.outer, a.meta.separator, a.meta.key_encoding == KeyEncoding::Default);
}

namespace {
Result<std::vector<int64_t>> list_chunks_by_listing(const Store& store, const std::string& path, const ChunkGrid& g,
                                                    char separator, bool default_encoding);
}  // namespace

Result<std::vector<int64_t>> list_stored_chunks(const Store& store, const std::string& path, const ChunkGrid& g,
                                                char separator, bool default_encoding) {
  auto listed = list_chunks_by_listing(store, path, g, separator, default_encoding);
  if (listed.ok() || listed.status().code() != StatusCode::Unsupported) return listed;
  // A store that cannot list (plain HTTP): every key of the grid; missing ones show on reading.
  std::vector<int64_t> all(static_cast<size_t>(g.num_chunks()));
  for (int64_t i = 0; i < g.num_chunks(); ++i) all[static_cast<size_t>(i)] = i;
  return all;
}

namespace {
Result<std::vector<int64_t>> list_chunks_by_listing(const Store& store, const std::string& path, const ChunkGrid& g,
                                                    char separator, bool default_encoding) {
  const Shape& grid = g.grid_shape();
  const size_t nd = grid.size();
  std::vector<int64_t> out;
  if (g.num_chunks() == 0 || nd == 0) return out;
  auto linear = [&](const Shape& idx) {
    int64_t lin = 0;
    for (size_t i = 0; i < nd; ++i) lin = lin * grid[i] + idx[i];
    return lin;
  };
  Shape idx(nd, 0);
  if (separator == '/') {
    // Nested keys: one directory level per axis.
    std::function<Status(const std::string&, size_t)> walk = [&](const std::string& dir, size_t level) -> Status {
      STRATA_ASSIGN_OR_RETURN(auto names, store.list_dir(dir));
      for (const auto& name : names) {
        if (!parse_index(name, grid[level], idx[level])) continue;
        if (level + 1 == nd) out.push_back(linear(idx));
        else STRATA_RETURN_NOT_OK(walk(join_key(dir, name), level + 1));
      }
      return Status::OK();
    };
    STRATA_RETURN_NOT_OK(walk(default_encoding ? join_key(path, "c") : path, 0));
  } else {
    // Flat keys: "i.j.k" (or "c.i.j.k") in the array's directory.
    STRATA_ASSIGN_OR_RETURN(auto names, store.list_dir(path));
    for (const auto& name : names) {
      std::string_view rest = name;
      if (default_encoding) {
        if (!rest.starts_with("c.")) continue;
        rest.remove_prefix(2);
      }
      bool ok = true;
      for (size_t i = 0; ok && i < nd; ++i) {
        const size_t dot = i + 1 < nd ? rest.find('.') : rest.size();
        if (dot == std::string_view::npos) {
          ok = false;
          break;
        }
        ok = parse_index(rest.substr(0, dot), grid[i], idx[i]);
        rest.remove_prefix(std::min(rest.size(), dot + 1));
      }
      if (ok) out.push_back(linear(idx));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}
}  // namespace

}  // namespace detail

Result<ZarrArray::StorageInfo> ZarrArray::storage_info() const {
  if (!impl_) return Status::Invalid("the ZarrArray is not open");
  const Impl& a = *impl_;
  STRATA_ASSIGN_OR_RETURN(std::vector<int64_t> stored, detail::list_stored_objects(a));
  std::vector<int64_t> sizes(stored.size(), -1);
  STRATA_RETURN_NOT_OK(parallel_for(nullptr, static_cast<int64_t>(stored.size()), [&](int64_t i) -> Status {
    const std::string key = a.object_key(a.outer.unravel(stored[i]));
    auto size = a.store->size(key);
    if (!size.ok()) return a.chunk_error(key, size.status());
    if (*size) sizes[i] = **size;
    return Status::OK();
  }));
  StorageInfo out;
  for (int64_t s : sizes) {
    if (s < 0) continue;
    out.stored_bytes = detail::saturating_add(out.stored_bytes, s);
    out.stored_objects += 1;
  }
  return out;
}

namespace {

// Per-object outcome, gathered in grid order so the report does not depend on scheduling.
struct ObjectReport {
  int64_t ok = 0;
  int64_t corrupt_chunks = 0;  ///< chunks stored but unreadable (a whole bad shard counts all of its)
  std::vector<std::string> missing;
  std::vector<std::pair<std::string, std::string>> corrupt;
};

// `fetched`: the object already read (remote stores fetch batches), else read here.
using Fetched = Result<std::optional<Bytes>>;

ObjectReport verify_plain(const Impl& a, int64_t linear, Fetched* fetched) {
  ObjectReport r;
  const std::string key = detail::chunk_key_suffix(a.meta, a.grid.unravel(linear));
  const std::string store_key = detail::join_key(a.path, key);
  auto v = fetched ? std::move(*fetched) : a.store->get_at_most(store_key, a.max_object_nbytes());
  if (!v.ok()) {
    r.corrupt.emplace_back(key, v.status().message());
    r.corrupt_chunks = 1;
    return r;
  }
  if (!*v && !a.store->can_list()) return r;  // every grid key was probed: absent is missing
  if (!*v) {  // listed at a full chunk key but not a value: a directory where a chunk belongs
    r.corrupt.emplace_back(key, "is a directory, not a chunk");
    r.corrupt_chunks = 1;
    return r;
  }
  auto buf = detail::chunk_scratch(a.chunk_nbytes());
  Status st = buf.ok() ? a.meta.pipeline->decode(**v, *buf) : buf.status();
  if (st.ok()) {
    r.ok = 1;
  } else {
    r.corrupt.emplace_back(key, st.message());
    r.corrupt_chunks = 1;
  }
  return r;
}

// Inner chunks of shard `shard` that lie inside the array, counted per axis.
int64_t inner_chunks_in_shard(const Impl& a, const Shape& shard) {
  const Shape origin = a.outer.chunk_origin(shard), extent = a.outer.chunk_extent(shard);
  int64_t n = 1;
  for (size_t i = 0; i < origin.size(); ++i) n *= ceil_div(extent[i], a.meta.chunks[i]);
  return n;
}

ObjectReport verify_shard(const Impl& a, int64_t linear, Fetched* fetched) {
  const detail::ShardingSpec& spec = *a.meta.sharding;
  ObjectReport r;
  const Shape shard = a.outer.unravel(linear);
  const std::string key = detail::chunk_key_suffix(a.meta, shard);
  auto v = fetched ? std::move(*fetched) : a.store->get_at_most(detail::join_key(a.path, key), a.max_object_nbytes());
  if (!v.ok()) {
    r.corrupt.emplace_back(key, v.status().message());
    r.corrupt_chunks = inner_chunks_in_shard(a, shard);
    return r;
  }
  if (!*v) return r;
  const Bytes& data = **v;
  const int64_t size = static_cast<int64_t>(data.size());
  Status st = size < spec.index_nbytes ? Status::Corrupt("shard smaller than its index") : Status::OK();
  std::vector<uint64_t> index;
  if (st.ok()) {
    const int64_t at = spec.index_at_end ? size - spec.index_nbytes : 0;
    auto idx = detail::decode_shard_index(std::span<const uint8_t>(data.data() + at, spec.index_nbytes), spec);
    st = idx.ok() ? detail::validate_shard_index(*idx, spec, size) : idx.status();
    if (idx.ok()) index = std::move(idx).value();
  }
  if (!st.ok()) {
    r.corrupt.emplace_back(key, st.message());
    r.corrupt_chunks = inner_chunks_in_shard(a, shard);
    return r;
  }
  auto buf = detail::chunk_scratch(a.chunk_nbytes());
  a.grid.for_each_chunk_in(a.outer.chunk_origin(shard), a.outer.chunk_extent(shard), [&](const Shape& ci) {
    const int64_t slot = spec.slot_of(ci);
    const uint64_t off = index[2 * slot], n = index[2 * slot + 1];
    if (off == detail::kShardEmpty) {
      if (r.missing.size() < detail::kMaxMissingNames) r.missing.push_back(key + detail::inner_slot_string(spec, slot));
      return;
    }
    Status ds = buf.ok() ? spec.inner->decode(std::span<const uint8_t>(data.data() + off, n), *buf) : buf.status();
    if (ds.ok()) {
      ++r.ok;
    } else {
      r.corrupt.emplace_back(key + detail::inner_slot_string(spec, slot), ds.message());
      ++r.corrupt_chunks;
    }
  });
  return r;
}

// Names of the chunks of an absent object (a plain chunk, or every in-array inner chunk of a shard).
void absent_object_names(const Impl& a, int64_t linear, std::vector<std::string>& out) {
  const Shape index = a.outer.unravel(linear);
  const std::string key = detail::chunk_key_suffix(a.meta, index);
  if (!a.sharded()) {
    out.push_back(key);
    return;
  }
  const detail::ShardingSpec& spec = *a.meta.sharding;
  a.grid.for_each_chunk_in(a.outer.chunk_origin(index), a.outer.chunk_extent(index), [&](const Shape& ci) {
    if (out.size() < detail::kMaxMissingNames) out.push_back(key + detail::inner_slot_string(spec, spec.slot_of(ci)));
  });
}

}  // namespace

Result<ZarrArray::VerifyReport> ZarrArray::verify(ThreadPool* pool) const {
  if (!impl_) return Status::Invalid("the ZarrArray is not open");
  const Impl& a = *impl_;
  STRATA_ASSIGN_OR_RETURN(std::vector<int64_t> stored, detail::list_stored_objects(a));
  std::vector<ObjectReport> reports(stored.size());
  auto check = [&](int64_t i, Fetched* got) {
    reports[i] = a.sharded() ? verify_shard(a, stored[i], got) : verify_plain(a, stored[i], got);
    return Status::OK();
  };
  const int fan_out = a.store->concurrency();
  if (fan_out <= 1) {
    STRATA_RETURN_NOT_OK(parallel_for(pool, static_cast<int64_t>(stored.size()), [&](int64_t i) { return check(i, nullptr); }));
  } else {
    // Remote stores: many objects in flight per batch (the next batch in flight meanwhile),
    // checked on the workers as a batch lands.
    std::vector<std::string> keys(stored.size());
    for (size_t i = 0; i < stored.size(); ++i) keys[i] = a.object_key(a.outer.unravel(stored[i]));
    STRATA_RETURN_NOT_OK(detail::for_each_fetched_batch(*a.store, keys, a.max_object_nbytes(), [&](int64_t b0, auto& got) {
      return parallel_for(pool, static_cast<int64_t>(got.size()), [&](int64_t i) { return check(b0 + i, &got[i]); });
    }));
  }
  VerifyReport out;
  out.chunks_total = a.grid.num_chunks();
  int64_t corrupt_chunks = 0;
  const bool list_missing = a.outer.num_chunks() <= detail::kListMissingGridMax;
  size_t next = 0;  // position in `stored` while listing absent objects in grid order
  auto list_absent_before = [&](int64_t end) {
    if (!list_missing) return;
    for (int64_t lin = next == 0 ? 0 : stored[next - 1] + 1; lin < end && out.missing.size() < detail::kMaxMissingNames; ++lin)
      absent_object_names(a, lin, out.missing);
  };
  for (size_t i = 0; i < stored.size(); ++i) {
    list_absent_before(stored[i]);
    next = i + 1;
    ObjectReport& r = reports[i];
    out.chunks_ok += r.ok;
    corrupt_chunks += r.corrupt_chunks;
    if (r.ok == 0 && r.corrupt_chunks == 0 && r.missing.empty()) {  // listed, but no value
      if (list_missing && out.missing.size() < detail::kMaxMissingNames) absent_object_names(a, stored[i], out.missing);
    }
    for (auto& m : r.missing)
      if (list_missing && out.missing.size() < detail::kMaxMissingNames) out.missing.push_back(std::move(m));
    for (auto& c : r.corrupt) out.corrupt.push_back(std::move(c));
  }
  list_absent_before(a.outer.num_chunks());
  out.chunks_missing = out.chunks_total - out.chunks_ok - corrupt_chunks;
  return out;
}

}  // namespace strata::io
