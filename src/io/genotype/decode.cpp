// Integer decoders of genotype codes (the float decoders and counts are backend operations).
#include <algorithm>
#include <array>
#include <cstring>

#include "strata/io/genotype_decode.hpp"

namespace strata::io {
namespace {

// One byte of codes → four int8 dosages (missing → −1), little-endian in a uint32.
constexpr std::array<uint32_t, 256> make_i8_table() {
  std::array<uint32_t, 256> t{};
  constexpr uint8_t dosage[4] = {0, 1, 2, 0xFF};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t w = 0;
    for (int k = 0; k < 4; ++k) w |= uint32_t{dosage[(b >> (2 * k)) & 3]} << (8 * k);
    t[b] = w;
  }
  return t;
}
constexpr auto kI8Table = make_i8_table();

}  // namespace

void decode_row_i8(const uint8_t* codes, int64_t n, int8_t* out) {
  const int64_t full = n >> 2;
  for (int64_t i = 0; i < full; ++i) std::memcpy(out + 4 * i, &kI8Table[codes[i]], 4);
  for (int64_t j = full * 4; j < n; ++j) {
    const int c = (codes[j >> 2] >> (2 * (j & 3))) & 3;
    out[j] = static_cast<int8_t>(c == 3 ? -1 : c);
  }
}

void decode_row_bitplanes(const uint8_t* codes, int64_t n, uint64_t* one, uint64_t* two,
                          uint64_t* observed) {
  const int64_t words = (n + 63) / 64;
  const int64_t row_bytes = (n + 3) / 4;
  for (int64_t w = 0; w < words; ++w) {
    // 64 codes = 16 bytes = two 64-bit words of packed pairs.
    uint64_t part[2] = {0, 0};
    const int64_t off = 16 * w;
    const int64_t avail = std::min<int64_t>(16, row_bytes - off);
    std::memcpy(part, codes + off, static_cast<size_t>(avail));
    // Codes past n → 0 (hom REF) would set no plane bit except observed; mask them below.
    uint64_t lo = 0, hi = 0;
    for (int h = 0; h < 2; ++h) {
      const uint64_t l = part[h] & 0x5555555555555555ull;
      const uint64_t u = (part[h] >> 1) & 0x5555555555555555ull;
      lo |= compact_even_bits(l) << (32 * h);
      hi |= compact_even_bits(u) << (32 * h);
    }
    const int64_t valid = std::min<int64_t>(64, n - 64 * w);
    const uint64_t mask = valid == 64 ? ~0ull : ((1ull << valid) - 1);
    one[w] = lo & ~hi & mask;
    two[w] = hi & ~lo & mask;
    observed[w] = ~(lo & hi) & mask;
  }
}

}  // namespace strata::io
