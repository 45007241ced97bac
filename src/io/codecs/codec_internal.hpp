#pragma once
// Shared pieces of the bytes→bytes codecs: option structs and per-codec constructors used by
// the factories, JSON field readers with uniform error messages, little-endian helpers and
// decompression-bomb limits.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"
#include "io/codecs/codec_json_internal.hpp"
#include "strata/io/codec.hpp"

namespace strata::io::detail {

/// Largest output `decode()` produces when the stream does not record its decoded size.
inline constexpr int64_t kMaxUnknownDecodedBytes = int64_t{64} << 30;

// ---- option structs; make_* validate them (ranges, library support) ----

struct BloscOptions {
  std::string cname = "lz4";
  int clevel = 5;
  int shuffle = 1;        // numcodecs value: -1 auto, 0 none, 1 byte, 2 bit
  int64_t typesize = 1;   // element size of the array
  int64_t blocksize = 0;  // 0 = automatic
};
struct ZstdOptions {
  int level = 1;
  bool checksum = false;
};
struct Lz4Options {
  int acceleration = 1;
};
/// zlib (RFC 1950) and gzip (RFC 1952) share one implementation.
struct DeflateOptions {
  bool gzip = false;
  int level = 1;
};

Result<std::unique_ptr<BytesCodec>> make_blosc(const BloscOptions& options);
Result<std::unique_ptr<BytesCodec>> make_zstd(const ZstdOptions& options);
Result<std::unique_ptr<BytesCodec>> make_lz4(const Lz4Options& options);
Result<std::unique_ptr<BytesCodec>> make_deflate(const DeflateOptions& options);
std::unique_ptr<BytesCodec> make_crc32c();

/// crc32c() without the SSE4.2 path, so tests can check both implementations agree.
uint32_t crc32c_portable(std::span<const uint8_t> data, uint32_t init = 0);

// ---- JSON configuration readers, used by each codec's from_v2/from_v3 ----

Result<std::unique_ptr<BytesCodec>> blosc_from_v2(const nlohmann::json& config, int64_t itemsize);
Result<std::unique_ptr<BytesCodec>> blosc_from_v3(const nlohmann::json& configuration,
                                                  int64_t itemsize);
Result<std::unique_ptr<BytesCodec>> zstd_from_json(const nlohmann::json& config, bool v3);
Result<std::unique_ptr<BytesCodec>> lz4_from_v2(const nlohmann::json& config);
Result<std::unique_ptr<BytesCodec>> deflate_from_json(const nlohmann::json& config, bool gzip,
                                                      bool v3);

/// Integer field `field` of `obj` within [lo, hi]; `fallback` when absent (absent without a
/// fallback is Invalid). Non-integers and out-of-range values are Invalid naming the field.
Result<int64_t> json_int(const nlohmann::json& obj, std::string_view codec, const char* field,
                         std::optional<int64_t> fallback, int64_t lo, int64_t hi);
/// String field, same conventions as json_int.
Result<std::string> json_string(const nlohmann::json& obj, std::string_view codec,
                                const char* field, std::optional<std::string> fallback);
/// Boolean field, same conventions as json_int.
Result<bool> json_bool(const nlohmann::json& obj, std::string_view codec, const char* field,
                       std::optional<bool> fallback);

/// A default-initialised (not zeroed) byte vector of `n` bytes; OutOfMemory instead of throwing.
Result<Bytes> allocate_bytes(int64_t n, std::string_view codec);

/// Corrupt unless `got == expected`, naming the codec.
Status check_decoded_size(std::string_view codec, int64_t got, int64_t expected);

inline uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline void store_le32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}

/// Libraries want a valid pointer even for zero-length buffers.
inline const uint8_t* nonnull(std::span<const uint8_t> s) {
  static const uint8_t kEmpty = 0;
  return s.empty() ? &kEmpty : s.data();
}
inline uint8_t* nonnull(std::span<uint8_t> s, uint8_t* scratch) {
  return s.empty() ? scratch : s.data();
}

}  // namespace strata::io::detail
