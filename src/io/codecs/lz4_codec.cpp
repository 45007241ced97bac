// numcodecs LZ4 framing: a 4-byte little-endian decoded length followed by one raw LZ4 block
// (not the LZ4 frame format). Zarr v2 only; v3 has no lz4 codec.

#include <lz4.h>

#include "io/codecs/codec_internal.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

constexpr int64_t kPrefixBytes = 4;
// An LZ4 block expands at most ~255x (each extra length byte adds 255 bytes of output).
constexpr int64_t kLz4MaxExpansion = 256;

class Lz4Codec final : public BytesCodec {
 public:
  explicit Lz4Codec(Lz4Options o) : o_(o) {}

  std::string name() const override { return "lz4"; }

  Result<Bytes> encode(std::span<const uint8_t> in) const override {
    const int64_t n = static_cast<int64_t>(in.size());
    if (n > LZ4_MAX_INPUT_SIZE) {
      return Status::Unsupported("lz4: chunk of ", n, " bytes exceeds LZ4's limit of ",
                                 LZ4_MAX_INPUT_SIZE, " bytes; use smaller chunks");
    }
    const int bound = LZ4_compressBound(static_cast<int>(n));
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(kPrefixBytes + bound, "lz4"));
    store_le32(out.data(), static_cast<uint32_t>(n));
    int r = LZ4_compress_fast(reinterpret_cast<const char*>(nonnull(in)),
                              reinterpret_cast<char*>(out.data() + kPrefixBytes),
                              static_cast<int>(n), bound, o_.acceleration);
    if (r <= 0) return Status::Internal("lz4: compression failed");
    out.resize(static_cast<size_t>(kPrefixBytes + r));
    return out;
  }

  Result<Bytes> decode(std::span<const uint8_t> in) const override {
    STRATA_ASSIGN_OR_RETURN(int64_t n, decoded_length(in));
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(n, "lz4"));
    STRATA_RETURN_NOT_OK(decompress(in, out));
    return out;
  }

  Status decode_into(std::span<const uint8_t> in, std::span<uint8_t> out) const override {
    STRATA_ASSIGN_OR_RETURN(int64_t n, decoded_length(in));
    if (n != static_cast<int64_t>(out.size())) {
      return Status::Corrupt("lz4: header says ", n, " bytes uncompressed but ", out.size(),
                             " were expected");
    }
    return decompress(in, out);
  }

  std::string config_json_v2() const override {
    return json{{"id", "lz4"}, {"acceleration", o_.acceleration}}.dump();
  }

  Result<std::string> config_json_v3() const override {
    return Status::Unsupported("lz4: Zarr v3 has no lz4 codec; use zstd or blosc");
  }

  std::string describe() const override { return str_cat("lz4(", o_.acceleration, ")"); }

 private:
  static Result<int64_t> decoded_length(std::span<const uint8_t> in) {
    const int64_t len = static_cast<int64_t>(in.size());
    if (len < kPrefixBytes + 1) {
      return Status::Corrupt("lz4: chunk has ", len, " bytes, too short for the ", kPrefixBytes,
                             "-byte length prefix and a block");
    }
    if (len - kPrefixBytes > INT32_MAX) {
      return Status::Unsupported("lz4: compressed block of ", len - kPrefixBytes,
                                 " bytes is over LZ4's 2 GiB limit");
    }
    const int64_t n = load_le32(in.data());
    if (n > LZ4_MAX_INPUT_SIZE || n > (len - kPrefixBytes) * kLz4MaxExpansion) {
      return Status::Corrupt("lz4: length prefix claims ", n, " bytes from a ",
                             len - kPrefixBytes, "-byte block");
    }
    return n;
  }

  static Status decompress(std::span<const uint8_t> in, std::span<uint8_t> out) {
    char scratch = 0;
    char* dst = out.empty() ? &scratch : reinterpret_cast<char*>(out.data());
    int r = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + kPrefixBytes), dst,
                                static_cast<int>(in.size() - kPrefixBytes),
                                static_cast<int>(out.size()));
    if (r < 0) return Status::Corrupt("lz4: corrupt or truncated block");
    return check_decoded_size("lz4", r, static_cast<int64_t>(out.size()));
  }

  Lz4Options o_;
};

}  // namespace

Result<std::unique_ptr<BytesCodec>> make_lz4(const Lz4Options& o) {
  return std::unique_ptr<BytesCodec>(std::make_unique<Lz4Codec>(o));
}

Result<std::unique_ptr<BytesCodec>> lz4_from_v2(const json& config) {
  // LZ4 treats values <= 0 as 1 and caps large ones, so any int is meaningful.
  STRATA_ASSIGN_OR_RETURN(int64_t accel,
                          json_int(config, "lz4", "acceleration", 1, INT32_MIN, INT32_MAX));
  return make_lz4({.acceleration = static_cast<int>(accel)});
}

}  // namespace strata::io::detail
