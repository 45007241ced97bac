#pragma once
/// \file
/// Byte-stream codecs used by Zarr v2 (compressor/filters) and v3 (bytes→bytes codecs):
/// blosc, zstd, lz4 (numcodecs framing), zlib, gzip, crc32c.
///
/// A codec is configured once (from Zarr metadata or a CLI spec) and is then stateless and
/// thread-safe: many chunks are encoded/decoded concurrently with the same object.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"

namespace strata::io {

/// \brief A bytes→bytes transformation (compressor, checksum).
class BytesCodec {
 public:
  virtual ~BytesCodec() = default;

  /// \brief Identifier: numcodecs "id" / v3 "name" ("blosc", "zstd", "lz4", "zlib", "gzip", "crc32c").
  virtual std::string name() const = 0;

  /// \brief Encode `in`. Fails only on library errors or buffers too large for the format.
  virtual Result<Bytes> encode(std::span<const uint8_t> in) const = 0;

  /// \brief Decode `in` whose decoded size is unknown (or unused).
  /// Corrupt/truncated input gives StatusCode::Corrupt, never a crash.
  virtual Result<Bytes> decode(std::span<const uint8_t> in) const = 0;

  /// \brief Decode `in` into exactly `out.size()` bytes. A decoded size different from
  /// `out.size()` is Corrupt. Default: decode() then size check and copy; codecs override this
  /// to decompress in place.
  virtual Status decode_into(std::span<const uint8_t> in, std::span<uint8_t> out) const;

  /// \brief numcodecs-style configuration for a Zarr v2 `compressor`/`filters` entry, as JSON
  /// text, e.g. {"id":"blosc","cname":"zstd","clevel":5,"shuffle":2,"blocksize":0}.
  virtual std::string config_json_v2() const = 0;

  /// \brief Zarr v3 codec entry as JSON text, e.g.
  /// {"name":"zstd","configuration":{"level":3,"checksum":false}}.
  /// Codecs without a v3 form (lz4, zlib) return Unsupported.
  virtual Result<std::string> config_json_v3() const = 0;

  /// \brief Short human description for `strata zarr info`, e.g. "blosc(zstd, 5, bitshuffle)".
  virtual std::string describe() const = 0;
};

/// \brief Parse a CLI codec spec: `none` (returns nullptr), `zstd:LEVEL`, `lz4`, `zlib:LEVEL`,
/// `gzip:LEVEL`, `blosc:CNAME:LEVEL:SHUFFLE` (SHUFFLE = noshuffle|shuffle|bitshuffle).
Result<std::unique_ptr<BytesCodec>> parse_codec_spec(std::string_view spec, int64_t itemsize);

/// \brief CRC-32C (Castagnoli, RFC 3720) of `data`, as used by the Zarr v3 crc32c codec.
uint32_t crc32c(std::span<const uint8_t> data, uint32_t init = 0);

}  // namespace strata::io
