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

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
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

/// \brief Options for creating an array.
struct ZarrCreateOptions {
  ZarrFormat format = ZarrFormat::V2;
  Shape shape;
  Shape chunks;                   ///< read/write chunk shape (inner chunks when sharded)
  DType dtype = DType(ScalarType::Float64);
  /// Fill value as JSON (number, "NaN", "Infinity", "-Infinity", true/false, or null).
  nlohmann::json fill_value = 0;
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
  nlohmann::json attributes = nlohmann::json::object();
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
  /// The fill value as stored in metadata (JSON).
  const nlohmann::json& fill_value_json() const;
  /// The array's attributes (.zattrs or "attributes").
  const nlohmann::json& attributes() const;
  /// Dimension names (v3 dimension_names or v2 _ARRAY_DIMENSIONS), empty if absent.
  std::vector<std::string> dimension_names() const;
  /// Human description of the codec pipeline, e.g. "blosc(zstd, 5, bitshuffle)".
  std::string codecs_description() const;
  /// The raw metadata document (.zarray or zarr.json).
  const nlohmann::json& metadata_json() const;

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
  /// (nullptr = the global pool).
  Status read_region(const Shape& start, const Shape& count, void* out,
                     ThreadPool* pool = nullptr) const;

  /// \brief Write the box [start, start+count) from `data` (dense C order). Chunks (shards)
  /// partly covered are read, merged and rewritten. Encodes in parallel on `pool`.
  Status write_region(const Shape& start, const Shape& count, const void* data,
                      ThreadPool* pool = nullptr) const;

  /// \brief Replace the attributes (rewrites .zattrs / zarr.json atomically).
  Status set_attributes(const nlohmann::json& attributes);

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

/// \brief Create a group (and its parents) at `path` with attributes.
Status zarr_create_group(const std::shared_ptr<Store>& store, const std::string& path,
                         ZarrFormat format,
                         const nlohmann::json& attributes = nlohmann::json::object());

/// \brief A group's attributes.
Result<nlohmann::json> zarr_group_attributes(const std::shared_ptr<Store>& store,
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
