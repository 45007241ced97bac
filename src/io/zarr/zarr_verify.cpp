// ZarrArray::storage_info and ZarrArray::verify: walk every stored object of the grid.
#include <atomic>
#include <mutex>

#include "io/zarr/zarr_array_internal.hpp"

namespace strata::io {

using detail::Impl;

Result<ZarrArray::StorageInfo> ZarrArray::storage_info() const {
  if (!impl_) return Status::Invalid("the ZarrArray is not open");
  const Impl& a = *impl_;
  std::atomic<int64_t> bytes{0}, objects{0};
  STRATA_RETURN_NOT_OK(ThreadPool::global().parallel_for(a.outer.num_chunks(), [&](int64_t i) -> Status {
    const std::string key = a.object_key(a.outer.unravel(i));
    auto size = a.store->size(key);
    if (!size.ok()) return a.chunk_error(key, size.status());
    if (*size) {
      bytes += **size;
      objects += 1;
    }
    return Status::OK();
  }));
  return StorageInfo{bytes.load(), objects.load()};
}

namespace {

// Per-object outcome, gathered in grid order so the report does not depend on scheduling.
struct ObjectReport {
  int64_t ok = 0;
  std::vector<std::string> missing;
  std::vector<std::pair<std::string, std::string>> corrupt;
};

ObjectReport verify_plain(const Impl& a, int64_t linear) {
  ObjectReport r;
  const std::string key = detail::chunk_key_suffix(a.meta, a.grid.unravel(linear));
  const std::string store_key = detail::join_key(a.path, key);
  auto v = a.store->get(store_key);
  if (!v.ok()) {
    r.corrupt.emplace_back(key, v.status().message());
    return r;
  }
  if (!*v) {
    r.missing.push_back(key);
    return r;
  }
  auto buf = detail::allocate_bytes(a.chunk_nbytes());
  Status st = buf.ok() ? a.meta.pipeline->decode(**v, *buf) : buf.status();
  if (st.ok()) r.ok = 1;
  else r.corrupt.emplace_back(key, st.message());
  return r;
}

ObjectReport verify_shard(const Impl& a, int64_t linear) {
  const detail::ShardingSpec& spec = *a.meta.sharding;
  ObjectReport r;
  const Shape shard = a.outer.unravel(linear);
  const std::string key = detail::chunk_key_suffix(a.meta, shard);
  // The inner chunks of this shard that lie inside the array, as (slot, name).
  std::vector<std::pair<int64_t, std::string>> inner;
  a.grid.for_each_chunk_in(a.outer.chunk_origin(shard), a.outer.chunk_extent(shard), [&](const Shape& ci) {
    const int64_t slot = spec.slot_of(ci);
    inner.emplace_back(slot, key + detail::inner_slot_string(spec, slot));
  });
  auto v = a.store->get(detail::join_key(a.path, key));
  if (!v.ok() || !*v) {
    if (!v.ok()) r.corrupt.emplace_back(key, v.status().message());
    else
      for (auto& [slot, name] : inner) r.missing.push_back(name);
    return r;
  }
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
    return r;
  }
  auto buf = detail::allocate_bytes(a.chunk_nbytes());
  for (auto& [slot, name] : inner) {
    const uint64_t off = index[2 * slot], n = index[2 * slot + 1];
    if (off == detail::kShardEmpty) {
      r.missing.push_back(name);
      continue;
    }
    Status ds = buf.ok() ? spec.inner->decode(std::span<const uint8_t>(data.data() + off, n), *buf) : buf.status();
    if (ds.ok()) ++r.ok;
    else r.corrupt.emplace_back(name, ds.message());
  }
  return r;
}

}  // namespace

Result<ZarrArray::VerifyReport> ZarrArray::verify(ThreadPool* pool) const {
  if (!impl_) return Status::Invalid("the ZarrArray is not open");
  const Impl& a = *impl_;
  const ChunkGrid& objects = a.sharded() ? a.outer : a.grid;
  std::vector<ObjectReport> reports(static_cast<size_t>(objects.num_chunks()));
  STRATA_RETURN_NOT_OK(detail::pool_or_global(pool).parallel_for(objects.num_chunks(), [&](int64_t i) -> Status {
    reports[i] = a.sharded() ? verify_shard(a, i) : verify_plain(a, i);
    return Status::OK();
  }));
  VerifyReport out;
  out.chunks_total = a.grid.num_chunks();
  for (auto& r : reports) {
    out.chunks_ok += r.ok;
    for (auto& m : r.missing) out.missing.push_back(std::move(m));
    for (auto& c : r.corrupt) out.corrupt.push_back(std::move(c));
  }
  return out;
}

}  // namespace strata::io
