// Fuzzes the decoders of the Zarr bytes codecs with arbitrary chunks.
// Input layout: byte 0 picks the codec, bytes 1-3 give a decode_into size (little-endian, at most
// 1 MiB), the rest is the encoded chunk. Besides "no crash, no sanitizer report", it checks that
// decode() and decode_into() agree: when decode() succeeds, decode_into() with exactly that many
// bytes must succeed with the same output, and one byte more must fail.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "io/codecs/codec_json_internal.hpp"
#include "strata/io/codec.hpp"

namespace {

using strata::io::BytesCodec;

std::vector<std::unique_ptr<BytesCodec>> make_codecs() {
  using nlohmann::json;
  std::vector<std::unique_ptr<BytesCodec>> codecs;
  for (const json& config : {json{{"id", "blosc"}, {"cname", "lz4"}, {"clevel", 5}, {"shuffle", 1}},
                             json{{"id", "zstd"}, {"level", 3}}, json{{"id", "lz4"}},
                             json{{"id", "zlib"}, {"level", 1}}, json{{"id", "gzip"}, {"level", 5}},
                             json{{"id", "crc32c"}}}) {
    auto codec = strata::io::make_codec_v2(config, 4);
    if (!codec.ok()) __builtin_trap();
    codecs.push_back(std::move(codec).value());
  }
  return codecs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::unique_ptr<BytesCodec>> codecs = make_codecs();
  if (size < 4) return 0;
  const BytesCodec& codec = *codecs[data[0] % codecs.size()];
  const size_t want = data[1] | (size_t{data[2]} << 8) | (size_t(data[3] & 0xF) << 16);
  std::span<const uint8_t> chunk(data + 4, size - 4);

  auto decoded = codec.decode(chunk);
  std::vector<uint8_t> out(want);
  (void)codec.decode_into(chunk, out);

  if (decoded.ok()) {
    std::vector<uint8_t> exact(decoded->size());
    if (!codec.decode_into(chunk, exact).ok()) __builtin_trap();
    if (!exact.empty() && std::memcmp(exact.data(), decoded->data(), exact.size()) != 0) {
      __builtin_trap();
    }
    std::vector<uint8_t> bigger(decoded->size() + 1);
    if (codec.decode_into(chunk, bigger).ok()) __builtin_trap();
  }
  return 0;
}
