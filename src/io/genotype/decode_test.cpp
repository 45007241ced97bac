// Integer decoders against a scalar reference (the float decoders and counts are backend
// operations, tested at every level by tests/backend/conformance_kernels_test.cpp).
#include <random>
#include <vector>

#include "strata/io/genotype.hpp"
#include "strata/io/genotype_decode.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

std::vector<uint8_t> random_row(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> row(static_cast<size_t>(packed_row_bytes(n)) + 8, 0xAB);  // junk past the row
  for (int64_t j = 0; j < n; ++j) set_code(row.data(), j, static_cast<uint8_t>(rng() & 3));
  return row;
}

TEST(DecodeTest, Int8Dosages) {
  for (int64_t n : {0, 1, 5, 64, 99}) {
    auto row = random_row(n, 11);
    std::vector<int8_t> out(static_cast<size_t>(n));
    decode_row_i8(row.data(), n, out.data());
    for (int64_t j = 0; j < n; ++j) {
      const int c = code_at(row.data(), j);
      EXPECT_EQ(out[j], c == 3 ? -1 : c);
    }
  }
}

TEST(DecodeTest, BitPlanes) {
  for (int64_t n : {1, 63, 64, 65, 200}) {
    auto row = random_row(n, 5);
    const int64_t words = (n + 63) / 64;
    std::vector<uint64_t> one(words), two(words), obs(words);
    decode_row_bitplanes(row.data(), n, one.data(), two.data(), obs.data());
    for (int64_t j = 0; j < words * 64; ++j) {
      const int c = j < n ? code_at(row.data(), j) : 3;
      const auto bit = [&](const std::vector<uint64_t>& p) { return (p[j / 64] >> (j % 64)) & 1; };
      EXPECT_EQ(bit(one), c == 1 ? 1u : 0u) << j;
      EXPECT_EQ(bit(two), c == 2 ? 1u : 0u) << j;
      EXPECT_EQ(bit(obs), c != 3 ? 1u : 0u) << j;
    }
  }
}

}  // namespace
}  // namespace strata::io
