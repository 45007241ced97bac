// Region reads and writes: which chunks (and inner chunks of shards) a box touches, decoded
// and encoded in parallel; missing data reads as the fill value.
#include <cstring>

#include "io/zarr/zarr_array_internal.hpp"

namespace strata::io::detail {
namespace {

// Intersection of the region [start, start+count) with the box [origin, origin+extent).
struct Overlap {
  Shape lo, hi;
  Shape size() const {
    Shape s(lo.size());
    for (size_t i = 0; i < s.size(); ++i) s[i] = hi[i] - lo[i];
    return s;
  }
  bool covers(const Shape& origin, const Shape& extent) const {
    for (size_t i = 0; i < lo.size(); ++i)
      if (lo[i] != origin[i] || hi[i] != origin[i] + extent[i]) return false;
    return true;
  }
};

Overlap overlap(const Shape& start, const Shape& count, const Shape& origin, const Shape& extent) {
  Overlap o{Shape(start.size()), Shape(start.size())};
  for (size_t i = 0; i < start.size(); ++i) {
    o.lo[i] = std::max(start[i], origin[i]);
    o.hi[i] = std::min(start[i] + count[i], origin[i] + extent[i]);
  }
  return o;
}

Shape minus(const Shape& a, const Shape& b) {
  Shape r(a.size());
  for (size_t i = 0; i < a.size(); ++i) r[i] = a[i] - b[i];
  return r;
}

// Byte offset of a box inside a dense array of `shape` when the box is one contiguous run.
std::optional<int64_t> contiguous_offset(const Shape& shape, const Shape& box_start, const Shape& box_count,
                                         int64_t itemsize) {
  const size_t nd = shape.size();
  size_t k = 0;  // first axis where the box is not a single index
  while (k < nd && box_count[k] == 1) ++k;
  for (size_t i = k + 1; i < nd; ++i)
    if (box_start[i] != 0 || box_count[i] != shape[i]) return std::nullopt;
  int64_t lin = 0;
  for (size_t i = 0; i < nd; ++i) lin = lin * shape[i] + box_start[i];
  return lin * itemsize;
}

struct InnerTask {
  size_t shard;
  Shape index;
};

Status read_plain_region(const Impl& a, const Shape& start, const Shape& count, uint8_t* out, ThreadPool* pool) {
  const auto chunks = a.grid.chunks_in(start, count);
  const int64_t isz = a.itemsize();
  auto place = [&](int64_t i, const std::string& key, const std::optional<Bytes>& v) -> Status {
    const Shape& ci = chunks[i];
    const Shape origin = a.grid.chunk_origin(ci);
    const Overlap ov = overlap(start, count, origin, a.grid.chunk_extent(ci));
    if (!v) {
      fill_box(out, count, minus(ov.lo, start), ov.size(), a.meta.fill);
      return Status::OK();
    }
    // Whole, contiguous chunks decode straight into the output.
    if (ov.covers(origin, a.meta.chunks)) {
      if (auto off = contiguous_offset(count, minus(ov.lo, start), ov.size(), isz)) {
        Status st = a.meta.pipeline->decode(*v, std::span<uint8_t>(out + *off, a.chunk_nbytes()));
        return st.ok() ? st : a.chunk_error(key, st);
      }
    }
    STRATA_ASSIGN_OR_RETURN(std::span<uint8_t> buf, chunk_scratch(a.chunk_nbytes()));
    Status st = a.meta.pipeline->decode(*v, buf);
    if (!st.ok()) return a.chunk_error(key, st);
    copy_box(buf.data(), a.meta.chunks, minus(ov.lo, origin), out, count, minus(ov.lo, start), ov.size(), isz);
    return Status::OK();
  };
  const int fan_out = a.store->concurrency();
  if (fan_out <= 1) {
    return parallel_for(pool, static_cast<int64_t>(chunks.size()), [&](int64_t i) -> Status {
      const std::string key = a.object_key(chunks[i]);
      auto v = a.store->get_at_most(key, a.max_object_nbytes());
      if (!v.ok()) return a.chunk_error(key, v.status());
      return place(i, key, *v);
    });
  }
  // Remote stores: fetch a batch of chunks with many requests in flight (the next batch in
  // flight meanwhile), then decode it on the workers.
  std::vector<std::string> keys(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) keys[i] = a.object_key(chunks[i]);
  return for_each_fetched_batch(*a.store, keys, a.max_object_nbytes(), [&](int64_t b0, auto& got) {
    return parallel_for(pool, static_cast<int64_t>(got.size()), [&](int64_t i) -> Status {
      if (!got[i].ok()) return a.chunk_error(keys[b0 + i], got[i].status());
      return place(b0 + i, keys[b0 + i], *got[i]);
    });
  });
}

Status read_sharded_region(const Impl& a, const Shape& start, const Shape& count, uint8_t* out, ThreadPool* pool) {
  const auto shards = a.outer.chunks_in(start, count);
  std::vector<ShardIndex> indexes(shards.size());
  // One index read per shard; missing shards are filled right away.
  STRATA_RETURN_NOT_OK(parallel_for(pool, static_cast<int64_t>(shards.size()), [&](int64_t i) -> Status {
    STRATA_ASSIGN_OR_RETURN(indexes[i], read_shard_index(a, a.object_key(shards[i])));
    if (!indexes[i].present) {
      const Overlap ov = overlap(start, count, a.outer.chunk_origin(shards[i]), a.outer.chunk_extent(shards[i]));
      fill_box(out, count, minus(ov.lo, start), ov.size(), a.meta.fill);
    }
    return Status::OK();
  }));
  std::vector<InnerTask> tasks;
  for (size_t s = 0; s < shards.size(); ++s) {
    if (!indexes[s].present) continue;
    const Overlap ov = overlap(start, count, a.outer.chunk_origin(shards[s]), a.outer.chunk_extent(shards[s]));
    a.grid.for_each_chunk_in(ov.lo, ov.size(), [&](const Shape& inner) { tasks.push_back({s, inner}); });
  }
  const int64_t isz = a.itemsize();
  return parallel_for(pool, static_cast<int64_t>(tasks.size()), [&](int64_t t) -> Status {
    const InnerTask& task = tasks[t];
    const ShardIndex& index = indexes[task.shard];
    const int64_t slot = a.meta.sharding->slot_of(task.index);
    const Shape origin = a.grid.chunk_origin(task.index);
    const Overlap ov = overlap(start, count, origin, a.grid.chunk_extent(task.index));
    if (index.empty(slot)) {
      fill_box(out, count, minus(ov.lo, start), ov.size(), a.meta.fill);
      return Status::OK();
    }
    STRATA_ASSIGN_OR_RETURN(std::span<uint8_t> buf, chunk_scratch(a.chunk_nbytes()));
    STRATA_RETURN_NOT_OK(read_inner_chunk(a, a.object_key(shards[task.shard]), index, slot, buf));
    copy_box(buf.data(), a.meta.chunks, minus(ov.lo, origin), out, count, minus(ov.lo, start), ov.size(), isz);
    return Status::OK();
  });
}

// Build the full chunk at `origin` from existing content (or fill) plus the region's data.
Status merge_chunk(const Impl& a, const Shape& start, const Shape& count, const uint8_t* data, const Shape& origin,
                   const Shape& extent, std::span<uint8_t> buf, const std::function<Status()>& load_existing) {
  const Overlap ov = overlap(start, count, origin, extent);
  if (!ov.covers(origin, extent)) {
    STRATA_RETURN_NOT_OK(load_existing());
  } else if (extent != a.meta.chunks) {
    fill_elements(buf, a.meta.fill);  // edge padding is stored as the fill value
  }
  copy_box(data, count, minus(ov.lo, start), buf.data(), a.meta.chunks, minus(ov.lo, origin), ov.size(), a.itemsize());
  return Status::OK();
}

Status write_plain_region(const Impl& a, const Shape& start, const Shape& count, const uint8_t* data,
                          ThreadPool* pool) {
  const auto chunks = a.grid.chunks_in(start, count);
  return parallel_for(pool, static_cast<int64_t>(chunks.size()), [&](int64_t i) -> Status {
    const Shape& ci = chunks[i];
    const std::string key = a.object_key(ci);
    STRATA_ASSIGN_OR_RETURN(Bytes buf, allocate_bytes(a.chunk_nbytes()));
    STRATA_RETURN_NOT_OK(merge_chunk(a, start, count, data, a.grid.chunk_origin(ci), a.grid.chunk_extent(ci), buf,
                                     [&]() { return read_plain_chunk(a, key, buf).status(); }));
    auto enc = a.meta.pipeline->encode(buf);
    if (!enc.ok()) return a.chunk_error(key, enc.status());
    Status st = a.store->set(key, *enc);
    return st.ok() ? st : a.chunk_error(key, st);
  });
}

// Shards are rewritten whole: keep the encoded bytes of untouched inner chunks, re-encode the
// touched ones, drop inner chunks equal to the fill value, and skip all-empty shards.
Status write_sharded_region(const Impl& a, const Shape& start, const Shape& count, const uint8_t* data,
                            ThreadPool* pool) {
  const ShardingSpec& spec = *a.meta.sharding;
  const auto shards = a.outer.chunks_in(start, count);
  struct ShardState {
    std::string key;
    std::vector<std::optional<Bytes>> inner;
  };
  std::vector<ShardState> states(shards.size());
  STRATA_RETURN_NOT_OK(parallel_for(pool, static_cast<int64_t>(shards.size()), [&](int64_t i) -> Status {
    ShardState& s = states[i];
    s.key = a.object_key(shards[i]);
    s.inner.resize(static_cast<size_t>(spec.inner_per_shard));
    const Shape origin = a.outer.chunk_origin(shards[i]), extent = a.outer.chunk_extent(shards[i]);
    if (overlap(start, count, origin, extent).covers(origin, extent)) return Status::OK();
    auto v = a.store->get_at_most(s.key, a.max_object_nbytes());
    if (!v.ok()) return a.chunk_error(s.key, v.status());
    if (!*v) return Status::OK();
    const Bytes& shard = **v;
    const int64_t size = static_cast<int64_t>(shard.size());
    if (size < spec.index_nbytes)
      return a.chunk_error(s.key, Status::Corrupt("shard of ", size, " bytes is smaller than its index"));
    const int64_t index_at = spec.index_at_end ? size - spec.index_nbytes : 0;
    auto index = decode_shard_index(std::span<const uint8_t>(shard.data() + index_at, spec.index_nbytes), spec);
    if (!index.ok()) return a.chunk_error(s.key, index.status());
    Status vs = validate_shard_index(*index, spec, size);
    if (!vs.ok()) return a.chunk_error(s.key, vs);
    for (int64_t slot = 0; slot < spec.inner_per_shard; ++slot) {
      const uint64_t off = (*index)[2 * slot], n = (*index)[2 * slot + 1];
      if (off == kShardEmpty) continue;
      s.inner[slot] = Bytes(shard.begin() + static_cast<int64_t>(off), shard.begin() + static_cast<int64_t>(off + n));
    }
    return Status::OK();
  }));

  std::vector<InnerTask> tasks;
  for (size_t s = 0; s < shards.size(); ++s) {
    const Overlap ov = overlap(start, count, a.outer.chunk_origin(shards[s]), a.outer.chunk_extent(shards[s]));
    a.grid.for_each_chunk_in(ov.lo, ov.size(), [&](const Shape& inner) { tasks.push_back({s, inner}); });
  }
  STRATA_RETURN_NOT_OK(parallel_for(pool, static_cast<int64_t>(tasks.size()), [&](int64_t t) -> Status {
    ShardState& s = states[tasks[t].shard];
    const Shape& ci = tasks[t].index;
    const int64_t slot = spec.slot_of(ci);
    std::optional<Bytes>& cell = s.inner[slot];
    STRATA_ASSIGN_OR_RETURN(Bytes buf, allocate_bytes(a.chunk_nbytes()));
    auto load = [&]() -> Status {
      if (!cell) {
        fill_elements(buf, a.meta.fill);
        return Status::OK();
      }
      Status st = spec.inner->decode(*cell, buf);
      return st.ok() ? st : a.chunk_error(s.key, st.with_context("inner chunk " + inner_slot_string(spec, slot)));
    };
    STRATA_RETURN_NOT_OK(merge_chunk(a, start, count, data, a.grid.chunk_origin(ci), a.grid.chunk_extent(ci), buf, load));
    if (all_equal_fill(buf, a.meta.fill)) {
      cell.reset();
      return Status::OK();
    }
    auto enc = spec.inner->encode(buf);
    if (!enc.ok()) return a.chunk_error(s.key, enc.status());
    cell = std::move(enc).value();
    return Status::OK();
  }));

  return parallel_for(pool, static_cast<int64_t>(states.size()), [&](int64_t i) -> Status {
    ShardState& s = states[i];
    auto shard = assemble_shard(s.inner, spec);
    if (!shard.ok()) return a.chunk_error(s.key, shard.status());
    Status st = *shard ? a.store->set(s.key, **shard) : a.store->erase(s.key);
    s.inner.clear();
    return st.ok() ? st : a.chunk_error(s.key, st);
  });
}

}  // namespace

// A fresh multi-megabyte buffer per chunk costs page faults, and concurrent faults serialize
// threads on the kernel's memory-map lock; one reused buffer per thread keeps decoding scaling.
Result<std::span<uint8_t>> chunk_scratch(int64_t n) {
  thread_local Bytes scratch;
  if (static_cast<int64_t>(scratch.size()) < n) {
    scratch = Bytes();
    STRATA_ASSIGN_OR_RETURN(scratch, allocate_bytes(n));
  }
  return std::span<uint8_t>(scratch.data(), static_cast<size_t>(n));
}

Status for_each_fetched_batch(const Store& store, const std::vector<std::string>& keys, int64_t max_bytes,
                              const std::function<Status(int64_t, std::vector<Result<std::optional<Bytes>>>&)>& batch) {
  const auto total = static_cast<int64_t>(keys.size());
  const int64_t size = std::max(1, store.concurrency());
  int64_t hinted = size;  // keys [size, hinted) have been hinted
  for (int64_t b0 = 0; b0 < total; b0 += size) {
    const int64_t n = std::min(size, total - b0);
    // The next kBatchesAhead batches are in flight (within the byte window) while this one
    // is fetched and handled; the first batch is small so handling starts after one round.
    const int64_t upto = std::min(total, b0 + n + kBatchesAhead * size);
    if (hinted < upto) {
      store.prefetch(std::vector<std::string>(keys.begin() + hinted, keys.begin() + upto), max_bytes,
                     kBatchReadAheadBytes);
      hinted = upto;
    }
    auto got = store.get_many(std::vector<std::string>(keys.begin() + b0, keys.begin() + b0 + n), max_bytes);
    STRATA_RETURN_NOT_OK(batch(b0, got));
  }
  return Status::OK();
}

void fill_elements(std::span<uint8_t> dst, std::span<const uint8_t> fill) {
  if (dst.empty()) return;
  const size_t k = fill.size();
  bool uniform = true;
  for (size_t i = 1; i < k; ++i) uniform = uniform && fill[i] == fill[0];
  if (uniform) {
    std::memset(dst.data(), k ? fill[0] : 0, dst.size());
    return;
  }
  // Doubling copies of the element pattern.
  std::memcpy(dst.data(), fill.data(), std::min(k, dst.size()));
  size_t done = std::min(k, dst.size());
  while (done < dst.size()) {
    const size_t n = std::min(done, dst.size() - done);
    std::memcpy(dst.data() + done, dst.data(), n);
    done += n;
  }
}

bool all_equal_fill(std::span<const uint8_t> data, std::span<const uint8_t> fill) {
  const size_t k = fill.size();
  if (data.size() < k) return data.empty();
  if (std::memcmp(data.data(), fill.data(), k) != 0) return false;
  // Equal to its own shift by one element and starting with `fill` ⇒ all elements equal fill.
  return std::memcmp(data.data() + k, data.data(), data.size() - k) == 0;
}

void fill_box(void* dst, const Shape& shape, const Shape& start, const Shape& count, std::span<const uint8_t> fill) {
  const int64_t isz = static_cast<int64_t>(fill.size());
  for (int64_t c : count)
    if (c <= 0) return;
  auto* d = static_cast<uint8_t*>(dst);
  const int64_t nd = static_cast<int64_t>(shape.size());
  if (nd == 0) {
    std::memcpy(d, fill.data(), fill.size());
    return;
  }
  const Shape strides = c_strides(shape);
  // Rows are the innermost axis plus any trailing axes the box covers whole.
  int64_t last = nd - 1, row_elems = count[nd - 1];
  while (last > 0 && start[last] == 0 && count[last] == shape[last]) {
    --last;
    row_elems *= count[last];
  }
  const int64_t row = row_elems * isz;
  Shape idx(last, 0);
  while (true) {
    int64_t off = start[last] * strides[last];
    for (int64_t i = 0; i < last; ++i) off += (start[i] + idx[i]) * strides[i];
    fill_elements(std::span<uint8_t>(d + off * isz, static_cast<size_t>(row)), fill);
    int64_t k = last - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < count[k]) break;
      idx[k] = 0;
    }
    if (k < 0) break;
  }
}

Status check_box(const Impl& a, const Shape& start, const Shape& count) {
  const Shape& shape = a.meta.shape;
  bool ok = start.size() == shape.size() && count.size() == shape.size();
  for (size_t i = 0; ok && i < shape.size(); ++i)
    ok = start[i] >= 0 && count[i] >= 0 && start[i] <= shape[i] && count[i] <= shape[i] - start[i];
  if (!ok)
    return Status::Invalid(a.description, ": region start ", shape_to_string(start), " count ", shape_to_string(count),
                           " is outside the array shape ", shape_to_string(shape));
  return Status::OK();
}

Result<bool> read_plain_chunk(const Impl& a, const std::string& key, std::span<uint8_t> out) {
  auto v = a.store->get_at_most(key, a.max_object_nbytes());
  if (!v.ok()) return a.chunk_error(key, v.status());
  if (!*v) {
    fill_elements(out, a.meta.fill);
    return false;
  }
  Status st = a.meta.pipeline->decode(**v, out);
  if (!st.ok()) return a.chunk_error(key, st);
  return true;
}

Result<ShardIndex> read_shard_index(const Impl& a, const std::string& key) {
  const ShardingSpec& spec = *a.meta.sharding;
  ShardIndex index;
  auto size = a.store->size(key);
  if (!size.ok()) return a.chunk_error(key, size.status());
  if (!*size) return index;
  if (**size < spec.index_nbytes)
    return a.chunk_error(key, Status::Corrupt("shard of ", **size, " bytes is smaller than its ", spec.index_nbytes,
                                              "-byte index"));
  auto bytes = a.store->get_range(key, spec.index_at_end ? **size - spec.index_nbytes : 0, spec.index_nbytes);
  if (!bytes.ok()) return a.chunk_error(key, bytes.status());
  if (!*bytes) return index;  // removed since the size query
  auto entries = decode_shard_index(**bytes, spec);
  if (!entries.ok()) return a.chunk_error(key, entries.status());
  Status st = validate_shard_index(*entries, spec, **size);
  if (!st.ok()) return a.chunk_error(key, st);
  index.present = true;
  index.size = **size;
  index.entries = std::move(entries).value();
  return index;
}

Result<bool> read_inner_chunk(const Impl& a, const std::string& key, const ShardIndex& index, int64_t slot,
                              std::span<uint8_t> out) {
  if (index.empty(slot)) {
    fill_elements(out, a.meta.fill);
    return false;
  }
  const ShardingSpec& spec = *a.meta.sharding;
  const std::string where = "inner chunk " + inner_slot_string(spec, slot);
  if (index.entries[2 * slot + 1] > static_cast<uint64_t>(spec.inner->max_encoded_nbytes()))
    return a.chunk_error(key, Status::Corrupt(where, ": ", index.entries[2 * slot + 1], " stored bytes exceed the ",
                                              spec.inner->max_encoded_nbytes(), "-byte limit for one inner chunk"));
  auto bytes = a.store->get_range(key, static_cast<int64_t>(index.entries[2 * slot]),
                                  static_cast<int64_t>(index.entries[2 * slot + 1]));
  if (!bytes.ok()) return a.chunk_error(key, bytes.status().with_context(where));
  if (!*bytes) return a.chunk_error(key, Status::NotFound(where, ": the shard disappeared while reading"));
  Status st = spec.inner->decode(**bytes, out);
  if (!st.ok()) return a.chunk_error(key, st.with_context(where));
  return true;
}

Status read_region_impl(const Impl& a, const Shape& start, const Shape& count, void* out, ThreadPool* pool) {
  auto* o = static_cast<uint8_t*>(out);
  return a.sharded() ? read_sharded_region(a, start, count, o, pool) : read_plain_region(a, start, count, o, pool);
}

Status write_region_impl(const Impl& a, const Shape& start, const Shape& count, const void* data, ThreadPool* pool) {
  const auto* d = static_cast<const uint8_t*>(data);
  return a.sharded() ? write_sharded_region(a, start, count, d, pool) : write_plain_region(a, start, count, d, pool);
}

}  // namespace strata::io::detail
