#pragma once
/// \file
/// Zarr v2 and v3 arrays and groups on a Store: metadata, chunk encode/decode pipelines
/// (filters/compressor, v3 codec chains including transpose and sharding_indexed), region reads
/// and writes in parallel, groups, attributes and consolidated metadata.
///
/// In memory strata always uses dense C-order, host byte order. Stored byte order, F order
/// (v2) and transpose codecs (v3) are converted at the chunk boundary.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open("cohort.vcz"));
/// STRATA_ASSIGN_OR_RETURN(auto gt, io::ZarrArray::open(store, "call_genotype"));
/// std::vector<int8_t> block(1000 * gt.shape()[1] * 2);
/// STRATA_RETURN_NOT_OK(gt.read_region({0, 0, 0}, {1000, gt.shape()[1], 2}, block.data()));
/// \endcode

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/dtype.hpp"
#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"
#include "strata/io/codec.hpp"
#include "strata/io/store.hpp"

namespace strata {
class ThreadPool;
}

namespace strata::io {

/// \brief Which Zarr format a node uses.
enum class ZarrFormat : int { V2 = 2, V3 = 3 };

/// \brief A fill value as Zarr metadata writes it: null, true/false, an integer, a number, or a
/// string ("NaN", "Infinity", "-Infinity", or a hex bit pattern such as "0x7fc00000").
/// Integers are held as int64_t, or uint64_t above its range, so equal values compare equal.
struct ZarrFillValue {
  using Value = std::variant<std::nullptr_t, bool, int64_t, uint64_t, double, std::string>;
  Value value = nullptr;

  ZarrFillValue() = default;
  ZarrFillValue(std::nullptr_t) {}
  ZarrFillValue(bool v) : value(v) {}
  template <std::signed_integral T>
  ZarrFillValue(T v) : value(static_cast<int64_t>(v)) {}
  template <std::unsigned_integral T>
    requires(!std::same_as<T, bool>)
  ZarrFillValue(T v) {
    if (static_cast<uint64_t>(v) <= static_cast<uint64_t>(INT64_MAX)) value = static_cast<int64_t>(v);
    else value = static_cast<uint64_t>(v);
  }
  template <std::floating_point T>
  ZarrFillValue(T v) : value(static_cast<double>(v)) {}
  ZarrFillValue(std::string v) : value(std::move(v)) {}
  ZarrFillValue(const char* v) : value(std::string(v)) {}

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value); }
  friend bool operator==(const ZarrFillValue&, const ZarrFillValue&) = default;
};

/// \brief Options for creating an array.
struct ZarrCreateOptions {
  ZarrFormat format = ZarrFormat::V2;
  Shape shape;
  Shape chunks;                   ///< read/write chunk shape (inner chunks when sharded)
  DType dtype = DType(ScalarType::Float64);
  /// Fill value (checked against dtype when the array is created).
  ZarrFillValue fill_value = 0;
  /// Compressor (v2) / bytes→bytes codec (v3); nullptr = none.
  std::shared_ptr<const BytesCodec> compressor;
  /// v3 only: outer shard shape (a multiple of `chunks` on every axis); empty = no sharding.
  Shape shard_shape;
  /// v3 only: append a crc32c codec after the compressor (and always on the shard index).
  bool crc32c = false;
  /// v2: dimension_separator "." or "/". v3: chunk_key_encoding "default" uses "/".
  char separator = '.';
  /// v3 dimension_names, or v2 "_ARRAY_DIMENSIONS" attribute when non-empty.
  std::vector<std::string> dimension_names;
  /// Attributes as JSON text of an object ("" = none).
  std::string attributes_json = "{}";
  /// Replace an existing array at the path instead of failing with AlreadyExists.
  bool overwrite = false;
};

/// \brief A Zarr array: metadata plus chunk-level and region-level I/O.
/// Cheap to copy (shares the store and the parsed pipeline). Thread-safe for concurrent reads
/// and for concurrent writes of distinct chunks (shards: distinct shards).
class ZarrArray {
 public:
  ZarrArray();
  ~ZarrArray();
  ZarrArray(const ZarrArray&);
  ZarrArray& operator=(const ZarrArray&);
  ZarrArray(ZarrArray&&) noexcept;
  ZarrArray& operator=(ZarrArray&&) noexcept;

  /// \brief Open the array at `path` ("" = store root) reading `.zarray` or `zarr.json`.
  static Result<ZarrArray> open(std::shared_ptr<Store> store, const std::string& path);
  /// \brief Create (write metadata for) a new array; parent groups are created as needed.
  static Result<ZarrArray> create(std::shared_ptr<Store> store, const std::string& path,
                                  const ZarrCreateOptions& options);

  ZarrFormat format() const;
  const std::string& path() const;
  const std::shared_ptr<Store>& store() const;
  /// "store/path", for messages.
  std::string describe() const;

  const Shape& shape() const;
  int64_t ndim() const;
  /// Element type in host byte order (stored byte order is handled internally).
  DType dtype() const;
  /// Stored element type (may be big-endian).
  DType stored_dtype() const;
  /// The read/write chunk grid: inner chunks when sharded.
  const ChunkGrid& chunk_grid() const;
  /// Outer shard shape when sharded, else empty.
  const Shape& shard_shape() const;
  /// The fill value as one element in host byte order (itemsize bytes).
  std::span<const uint8_t> fill_value_bytes() const;
  /// The fill value as stored in metadata.
  ZarrFillValue fill_value() const;
  /// The array's attributes (.zattrs or "attributes") as JSON text of an object.
  std::string attributes_json() const;
  /// Dimension names (v3 dimension_names or v2 _ARRAY_DIMENSIONS), empty if absent.
  std::vector<std::string> dimension_names() const;
  /// Human description of the codec pipeline, e.g. "blosc(zstd, 5, bitshuffle)".
  std::string codecs_description() const;
  /// The metadata document (.zarray or zarr.json) as JSON text.
  std::string metadata_json() const;

  /// \brief Store key of the chunk at `index` (the shard's key when sharded).
  std::string chunk_key(const Shape& chunk_index) const;

  /// \brief Decode one chunk into `out` (chunk_numel * itemsize bytes, the full chunk shape,
  /// C order, host byte order). Missing chunks fill with the fill value.
  /// Returns whether the chunk was stored (false = filled).
  Result<bool> read_chunk(const Shape& chunk_index, std::span<uint8_t> out) const;

  /// \brief Encode and store one chunk given as the full chunk shape (edge padding included),
  /// C order, host byte order. Sharded arrays: use write_region (a shard is written whole).
  Status write_chunk(const Shape& chunk_index, std::span<const uint8_t> data) const;

  /// \brief Read the box [start, start+count) into `out` (dense C order, host byte order).
  /// Touches only the chunks the box overlaps; decodes them in parallel on `pool`
  /// (nullptr = serially, on the calling thread).
  Status read_region(const Shape& start, const Shape& count, void* out,
                     ThreadPool* pool = nullptr) const;

  /// \brief Read-ahead hint for a read_region of the box to come: remote stores start fetching
  /// its chunks (Store::prefetch, at most `window_bytes` ahead). Sharded arrays: nothing yet
  /// (their inner chunks are range reads). Out-of-bounds boxes are ignored.
  void prefetch_region(const Shape& start, const Shape& count, int64_t window_bytes) const;

  /// \brief Write the box [start, start+count) from `data` (dense C order). Chunks (shards)
  /// partly covered are read, merged and rewritten. Encodes in parallel on `pool`.
  Status write_region(const Shape& start, const Shape& count, const void* data,
                      ThreadPool* pool = nullptr) const;

  /// \brief Replace the attributes with `attributes_json`, the JSON text of an object
  /// (rewrites .zattrs / zarr.json atomically).
  Status set_attributes_json(std::string_view attributes_json);

  /// \brief Total bytes of stored chunk (or shard) objects, and how many exist (found by
  /// listing the store, not by walking the chunk grid).
  struct StorageInfo {
    int64_t stored_bytes = 0;
    int64_t stored_objects = 0;
  };
  Result<StorageInfo> storage_info() const;

  /// \brief Outcome of verify(): chunk keys that are missing or fail to decode.
  struct VerifyReport {
    int64_t chunks_total = 0;    ///< chunks in the grid (inner chunks when sharded)
    int64_t chunks_ok = 0;       ///< stored and decoded
    int64_t chunks_missing = 0;  ///< not stored (read as the fill value): counted, not enumerated
    /// Keys of missing chunks (inner: "key[i, j]"), in grid order; listed only for grids of at
    /// most 65,536 stored objects and at most 1,000 keys (chunks_missing is the full count).
    std::vector<std::string> missing;
    std::vector<std::pair<std::string, std::string>> corrupt;  ///< key, error message
  };
  /// \brief Decode every stored chunk (in parallel) and report missing and corrupt ones. The
  /// stored chunks are found by listing the store, so the cost follows what is stored.
  Result<VerifyReport> verify(ThreadPool* pool = nullptr) const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// \brief Kind of node found at a path.
enum class NodeKind { Missing, Group, Array };

/// \brief One node of a hierarchy listing.
struct ZarrNodeInfo {
  std::string path;     ///< relative to the store root ("" = root)
  NodeKind kind = NodeKind::Missing;
  ZarrFormat format = ZarrFormat::V2;
};

/// \brief What is at `path` (checks .zarray/.zgroup/zarr.json).
Result<ZarrNodeInfo> zarr_node_info(const std::shared_ptr<Store>& store, const std::string& path);

/// \brief All nodes under `path` (inclusive), depth-first in sorted order. Uses consolidated
/// metadata (.zmetadata / inline v3) when present and falls back to listing.
Result<std::vector<ZarrNodeInfo>> zarr_walk(const std::shared_ptr<Store>& store,
                                            const std::string& path);

/// \brief Create a group (and its parents) at `path` with attributes given as the JSON text of
/// an object. An existing group of the same format keeps its attributes unless new (non-empty)
/// ones are given.
Status zarr_create_group(const std::shared_ptr<Store>& store, const std::string& path,
                         ZarrFormat format, std::string_view attributes_json = "{}");

/// \brief A group's attributes as JSON text of an object.
Result<std::string> zarr_group_attributes_json(const std::shared_ptr<Store>& store,
                                               const std::string& path);

/// \brief Write consolidated metadata for the hierarchy under `path` (v2: `.zmetadata`).
Status zarr_consolidate(const std::shared_ptr<Store>& store, const std::string& path = "");

/// \brief Split "store.zarr/a/b" into a store root and a node path: the longest prefix that is
/// a directory holding Zarr metadata at some ancestor level. Plain directories → path "".
struct ZarrLocation {
  std::string store_root;
  std::string node_path;
};
Result<ZarrLocation> resolve_zarr_location(const std::string& path);

}  // namespace strata::io
