#pragma once
// ZarrArray's shared state and the chunk/shard helpers its translation units share.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/zarr/zarr_metadata_internal.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io {

struct ZarrArray::Impl {
  std::shared_ptr<Store> store;
  std::string path;
  std::string description;   ///< "store/path"
  detail::ArrayMetadata meta;
  ChunkGrid grid;            ///< read/write chunks (inner chunks when sharded)
  ChunkGrid outer;           ///< stored objects (shards when sharded)
  Shape shard_shape;         ///< empty unless sharded

  bool sharded() const { return meta.sharding != nullptr; }
  int64_t itemsize() const { return meta.dtype.itemsize(); }
  int64_t chunk_nbytes() const { return meta.pipeline->chunk_nbytes(); }
  /// Largest stored object (chunk, or shard with its index) the metadata allows; larger
  /// objects are Corrupt and refused before they are read.
  int64_t max_object_nbytes() const {
    if (!meta.sharding) return meta.pipeline->max_encoded_nbytes();
    return detail::saturating_add(
        detail::saturating_mul(meta.sharding->inner_per_shard, meta.pipeline->max_encoded_nbytes()),
        meta.sharding->index_nbytes);
  }
  /// Store key of the object at `outer_index`.
  std::string object_key(const Shape& outer_index) const {
    return detail::join_key(path, detail::chunk_key_suffix(meta, outer_index));
  }
  /// Shard (outer) index holding inner chunk `inner_index`.
  Shape shard_of(const Shape& inner_index) const;
  /// `st` with "store/path: chunk 'key'" in front.
  Status chunk_error(const std::string& key, const Status& st) const;
};

namespace detail {

using Impl = ZarrArray::Impl;

/// Verification (ZarrArray::verify, string arrays) lists missing keys by name for grids with at
/// most kListMissingGridMax stored objects, and at most kMaxMissingNames of them; chunks_missing
/// always has the full count.
constexpr int64_t kListMissingGridMax = int64_t{1} << 16;
constexpr size_t kMaxMissingNames = 1000;

/// \brief Fill `dst` with copies of the element `fill`.
void fill_elements(std::span<uint8_t> dst, std::span<const uint8_t> fill);
/// \brief Whether every element of `data` equals `fill` bitwise.
bool all_equal_fill(std::span<const uint8_t> data, std::span<const uint8_t> fill);
/// \brief Fill the box [start, start+count) of a dense C-order array of `shape` with `fill`.
void fill_box(void* dst, const Shape& shape, const Shape& start, const Shape& count, std::span<const uint8_t> fill);

/// \brief A shard's index as read from the store; `present` false when the shard is missing.
struct ShardIndex {
  bool present = false;
  int64_t size = 0;
  std::vector<uint64_t> entries;
  bool empty(int64_t slot) const { return !present || entries[2 * slot] == kShardEmpty; }
};
/// \brief Read and validate the index of the shard stored under `key` (one ranged read).
Result<ShardIndex> read_shard_index(const Impl& a, const std::string& key);
/// \brief Decode inner chunk `slot` of a shard into `out` (fill when empty). Returns whether stored.
Result<bool> read_inner_chunk(const Impl& a, const std::string& key, const ShardIndex& index, int64_t slot,
                              std::span<uint8_t> out);

/// \brief Decode the chunk object stored under `key` (non-sharded arrays) into `out`.
Result<bool> read_plain_chunk(const Impl& a, const std::string& key, std::span<uint8_t> out);

/// \brief Remote stores (concurrency() > 1): `keys` fetched in batches of concurrency() with
/// get_many, the next kBatchesAhead batches hinted (Store::prefetch, at most
/// kBatchReadAheadBytes) so they are in flight while `batch(first, got)` handles the batch on
/// hand (keys [first, first + got.size())). Stops at the first error `batch` returns.
inline constexpr int64_t kBatchReadAheadBytes = int64_t{64} << 20;
inline constexpr int64_t kBatchesAhead = 4;
Status for_each_fetched_batch(const Store& store, const std::vector<std::string>& keys, int64_t max_bytes,
                              const std::function<Status(int64_t, std::vector<Result<std::optional<Bytes>>>&)>& batch);

/// \brief This thread's decode scratch of `n` bytes (reused: valid until the next call on the thread).
Result<std::span<uint8_t>> chunk_scratch(int64_t n);

/// \brief Region I/O (zarr_region.cpp).
Status read_region_impl(const Impl& a, const Shape& start, const Shape& count, void* out, ThreadPool* pool);
Status write_region_impl(const Impl& a, const Shape& start, const Shape& count, const void* data, ThreadPool* pool);

/// \brief Linear indices (outer grid, sorted) of the objects stored for the array, found by
/// listing the store below it (keys that do not name a cell of the grid are ignored). Never
/// walks the grid, so it costs what is stored, not what the metadata claims.
Result<std::vector<int64_t>> list_stored_objects(const Impl& a);
/// \brief The same for any chunk grid stored under `path` with v2 keys ("i.j" or "i/j") or v3
/// default keys ("c/i/j", "c.i.j"); also used by string arrays. Rank-0 grids give none.
Result<std::vector<int64_t>> list_stored_chunks(const Store& store, const std::string& path, const ChunkGrid& grid,
                                                char separator, bool default_encoding);

/// \brief Check a box lies inside the array.
Status check_box(const Impl& a, const Shape& start, const Shape& count);

}  // namespace detail
}  // namespace strata::io
