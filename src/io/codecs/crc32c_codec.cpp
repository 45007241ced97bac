// CRC-32C (Castagnoli) and the Zarr v3 crc32c codec: the payload followed by its CRC-32C as
// 4 little-endian bytes. The checksum uses the SSE4.2 crc32 instruction when the CPU has it
// (checked at run time) and portable slicing-by-8 tables otherwise.

#include <array>
#include <cstdio>

#include "io/codecs/codec_internal.hpp"
#include "strata/core/cpu_pin.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define STRATA_CRC32C_X86 1
#endif

namespace strata::io {
namespace detail {
namespace {

using nlohmann::json;

constexpr uint32_t kPolyReflected = 0x82F63B78u;

using CrcTables = std::array<std::array<uint32_t, 256>, 8>;

// tables[k][b]: CRC of byte b followed by k zero bytes, for consuming 8 bytes per step.
constexpr CrcTables make_tables() {
  CrcTables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ ((c & 1u) ? kPolyReflected : 0u);
    t[0][b] = c;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  }
  return t;
}
constexpr CrcTables kTables = make_tables();

inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint32_t crc_portable(uint32_t crc, const uint8_t* p, size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    const uint64_t w = load_le64(p) ^ crc;
    crc = kTables[7][w & 0xFF] ^ kTables[6][(w >> 8) & 0xFF] ^ kTables[5][(w >> 16) & 0xFF] ^
          kTables[4][(w >> 24) & 0xFF] ^ kTables[3][(w >> 32) & 0xFF] ^
          kTables[2][(w >> 40) & 0xFF] ^ kTables[1][(w >> 48) & 0xFF] ^ kTables[0][w >> 56];
  }
  for (; n > 0; ++p, --n) crc = kTables[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return crc;
}

#ifdef STRATA_CRC32C_X86
__attribute__((target("sse4.2"))) uint32_t crc_sse42(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, *p);
  return c32;
}
#endif

using CrcFn = uint32_t (*)(uint32_t, const uint8_t*, size_t);

CrcFn pick_crc() {
#ifdef STRATA_CRC32C_X86
  // SSE4.2 arrived with the avx2 level's CPUs; a portable pin keeps the table code.
  if (cpu_pin().max_level >= kCpuLevelAvx2 && __builtin_cpu_supports("sse4.2")) return crc_sse42;
#endif
  return crc_portable;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

constexpr int64_t kCrcBytes = 4;

class Crc32cCodec final : public BytesCodec {
 public:
  std::string name() const override { return "crc32c"; }

  Result<Bytes> encode(std::span<const uint8_t> in) const override {
    STRATA_ASSIGN_OR_RETURN(Bytes out,
                            allocate_bytes(static_cast<int64_t>(in.size()) + kCrcBytes, "crc32c"));
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    store_le32(out.data() + in.size(), crc32c(in));
    return out;
  }

  Result<Bytes> decode(std::span<const uint8_t> in) const override {
    STRATA_ASSIGN_OR_RETURN(std::span<const uint8_t> payload, verify(in));
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(static_cast<int64_t>(payload.size()), "crc32c"));
    if (!payload.empty()) std::memcpy(out.data(), payload.data(), payload.size());
    return out;
  }

  Status decode_into(std::span<const uint8_t> in, std::span<uint8_t> out) const override {
    STRATA_ASSIGN_OR_RETURN(std::span<const uint8_t> payload, verify(in));
    STRATA_RETURN_NOT_OK(check_decoded_size("crc32c", static_cast<int64_t>(payload.size()),
                                            static_cast<int64_t>(out.size())));
    if (!payload.empty()) std::memcpy(out.data(), payload.data(), payload.size());
    return Status::OK();
  }

  std::string config_json_v2() const override { return R"({"id":"crc32c"})"; }
  Result<std::string> config_json_v3() const override { return std::string(R"({"name":"crc32c"})"); }
  std::string describe() const override { return "crc32c"; }

 private:
  // The payload of `in` once its trailing checksum has been checked.
  static Result<std::span<const uint8_t>> verify(std::span<const uint8_t> in) {
    if (static_cast<int64_t>(in.size()) < kCrcBytes) {
      return Status::Corrupt("crc32c: chunk has ", in.size(), " bytes, fewer than the ",
                             kCrcBytes, "-byte checksum");
    }
    std::span<const uint8_t> payload = in.first(in.size() - kCrcBytes);
    const uint32_t stored = load_le32(in.data() + payload.size());
    const uint32_t computed = crc32c(payload);
    if (stored != computed) {
      return Status::Corrupt("crc32c: checksum mismatch: stored ", hex32(stored), ", computed ",
                             hex32(computed), " over ", payload.size(), " bytes");
    }
    return payload;
  }
};

}  // namespace

std::unique_ptr<BytesCodec> make_crc32c() { return std::make_unique<Crc32cCodec>(); }

uint32_t crc32c_portable(std::span<const uint8_t> data, uint32_t init) {
  return ~crc_portable(~init, data.data(), data.size());
}

}  // namespace detail

uint32_t crc32c(std::span<const uint8_t> data, uint32_t init) {
  static const detail::CrcFn fn = detail::pick_crc();
  return ~fn(~init, data.data(), data.size());
}

}  // namespace strata::io
