#pragma once
// Zarr v3 `sharding_indexed`: configuration, the shard index, and shard assembly.
//
// A shard holds the encoded inner chunks plus an index of (offset, nbytes) uint64 pairs, one
// per inner chunk in C order over the shard's inner-chunk grid. Empty inner chunks have
// offset = nbytes = 2^64-1 and read as the fill value.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/zarr/chunk_pipeline_internal.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/shape.hpp"

namespace strata::io::detail {

/// Index entry value marking an empty inner chunk.
inline constexpr uint64_t kShardEmpty = ~uint64_t{0};

/// \brief A parsed sharding_indexed configuration.
struct ShardingSpec {
  Shape shard_shape;        ///< outer chunk shape (one stored object)
  Shape inner_shape;        ///< inner chunk shape
  Shape chunks_per_shard;   ///< shard_shape / inner_shape
  int64_t inner_per_shard = 0;
  std::shared_ptr<const ChunkPipeline> inner;  ///< inner chunk codecs
  bool index_big_endian = false;
  bool index_crc32c = false;
  bool index_at_end = true;
  int64_t index_nbytes = 0;  ///< 16 per inner chunk, +4 with crc32c

  /// "sharding(inner [..]; ...; index at end)".
  std::string describe() const;
  /// Linear position (C order) of inner chunk `inner_index` (global inner-grid index) in its shard.
  int64_t slot_of(const Shape& inner_index) const;
};

/// \brief Parse a sharding_indexed `configuration` for shards of `shard_shape`.
Result<std::shared_ptr<const ShardingSpec>> parse_sharding(const nlohmann::json& configuration, DType dtype,
                                                           const Shape& shard_shape, int depth);

/// \brief Decode and check an encoded index (exactly index_nbytes bytes): crc32c when
/// configured, then (offset, nbytes) pairs in host order.
Result<std::vector<uint64_t>> decode_shard_index(std::span<const uint8_t> encoded, const ShardingSpec& spec);

/// \brief Check every index entry lies in the data region of a `shard_size`-byte shard.
Status validate_shard_index(const std::vector<uint64_t>& index, const ShardingSpec& spec, int64_t shard_size);

/// \brief Encode an index (2 entries per inner chunk) with the configured endian/crc32c.
Bytes encode_shard_index(const std::vector<uint64_t>& index, const ShardingSpec& spec);

/// \brief Lay out a shard: inner chunks (C order, nullopt = empty) plus the index.
/// Returns nullopt when every inner chunk is empty (the shard is not stored).
Result<std::optional<Bytes>> assemble_shard(const std::vector<std::optional<Bytes>>& inner,
                                            const ShardingSpec& spec);

/// \brief "[i, j]" of the inner chunk at linear position `slot` within its shard.
std::string inner_slot_string(const ShardingSpec& spec, int64_t slot);

}  // namespace strata::io::detail
