#pragma once
// The per-chunk codec pipeline: a chunk in memory (dense C order, host byte order) ↔ its
// stored bytes. v2: order + dtype byte order + filters + compressor. v3: transpose codecs,
// the `bytes` codec (endian), then bytes→bytes codecs.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/dtype.hpp"
#include "strata/core/shape.hpp"
#include "strata/io/codec.hpp"

namespace strata::io::detail {

struct ShardingSpec;

/// \brief Encodes and decodes chunks of one fixed shape. Immutable and thread-safe once built.
class ChunkPipeline {
 public:
  /// \brief A pipeline for chunks of `chunk_shape` with elements of `stored` dtype.
  /// `permutation` maps stored axis i to in-memory axis permutation[i] (empty = identity).
  /// `codecs` run in this order when encoding (reverse when decoding).
  static Result<ChunkPipeline> make(Shape chunk_shape, DType stored, std::vector<int64_t> permutation,
                                    std::vector<std::shared_ptr<const BytesCodec>> codecs,
                                    std::vector<std::string> description);

  /// \brief Decode stored bytes into `out` (exactly chunk_nbytes()). A decoded size other than
  /// the chunk size is Corrupt.
  Status decode(std::span<const uint8_t> in, std::span<uint8_t> out) const;
  /// \brief Encode one chunk (chunk_nbytes() bytes, C order, host byte order).
  Result<Bytes> encode(std::span<const uint8_t> in) const;

  int64_t chunk_nbytes() const { return nbytes_; }
  /// Upper bound on the stored size of one chunk: the decoded size plus a generous allowance
  /// per codec (n/8 + 4 KiB; real compressors expand incompressible data by far less).
  /// Stored objects above it are refused before they are read. Saturates at INT64_MAX.
  int64_t max_encoded_nbytes() const { return max_encoded_; }
  const Shape& chunk_shape() const { return chunk_shape_; }
  DType stored_dtype() const { return stored_; }
  /// "transpose[1,0], bytes(big), blosc(zstd, 5, shuffle)" or "none".
  std::string describe() const;

 private:
  Shape chunk_shape_;
  DType stored_;
  std::vector<int64_t> perm_;  // empty when the identity
  std::vector<std::shared_ptr<const BytesCodec>> codecs_;
  std::vector<std::string> description_;
  int64_t nbytes_ = 0;
  int64_t max_encoded_ = 0;
};

/// \brief a + b, saturating at INT64_MAX (both non-negative).
inline int64_t saturating_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }
/// \brief a * b, saturating at INT64_MAX (both non-negative).
inline int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t out;
  return __builtin_mul_overflow(a, b, &out) ? INT64_MAX : out;
}

/// \brief Build the v2 pipeline from `filters`, `compressor`, `order` ('C' or 'F').
Result<ChunkPipeline> make_v2_pipeline(const nlohmann::json& filters, const nlohmann::json& compressor,
                                       DType stored, char order, const Shape& chunk_shape);

/// \brief A parsed v3 `codecs` list: either a plain pipeline or sharding_indexed.
struct V3Codecs {
  std::shared_ptr<const ChunkPipeline> pipeline;   ///< set unless sharded
  std::shared_ptr<const ShardingSpec> sharding;    ///< set when sharded
};

/// \brief Parse a v3 `codecs` list for chunks of `chunk_shape` of `dtype` (host order).
/// `depth` > 0 inside sharding_indexed (nested sharding is refused).
Result<V3Codecs> parse_v3_codecs(const nlohmann::json& codecs, DType dtype, const Shape& chunk_shape,
                                 int depth);

/// \brief One v3 codec entry (object or short-hand string) split into its parts.
struct CodecEntry {
  std::string name;
  nlohmann::json configuration = nlohmann::json::object();
  bool must_understand = true;
};
Result<CodecEntry> parse_codec_entry(const nlohmann::json& entry);

/// \brief Reorder the axes of a dense C-order array: `dst` axis i is `src` axis perm[i].
void permute_axes(const uint8_t* src, const Shape& src_shape, const std::vector<int64_t>& perm,
                  uint8_t* dst, int64_t itemsize);

/// \brief Allocate `n` bytes without throwing (OutOfMemory instead).
Result<Bytes> allocate_bytes(int64_t n);

}  // namespace strata::io::detail
