// Decode kernels against a scalar reference, for every ISA the CPU has and odd row lengths.
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

class DecodeIsaTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    previous_ = decode_kernel_isa();
    if (!set_decode_kernel_isa(GetParam())) GTEST_SKIP() << GetParam() << " not available on this CPU";
  }
  void TearDown() override { set_decode_kernel_isa(previous_); }
  std::string previous_;
};

TEST_P(DecodeIsaTest, FloatMatchesScalar) {
  const float lut[4] = {-1.25f, 0.5f, 2.75f, 0.0f};
  const double lutd[4] = {-1.25, 0.5, 2.75, 0.125};
  for (int64_t n : {0, 1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1001}) {
    auto row = random_row(n, static_cast<uint32_t>(n) + 7);
    std::vector<float> out(static_cast<size_t>(n) + 4, 99.0f);
    std::vector<double> outd(static_cast<size_t>(n) + 4, 99.0);
    decode_row_f32(row.data(), n, lut, out.data());
    decode_row_f64(row.data(), n, lutd, outd.data());
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(out[j], lut[code_at(row.data(), j)]) << "n=" << n << " j=" << j;
      ASSERT_EQ(outd[j], lutd[code_at(row.data(), j)]) << "n=" << n << " j=" << j;
    }
    for (int64_t j = n; j < n + 4; ++j) {  // nothing written past n
      ASSERT_EQ(out[j], 99.0f);
      ASSERT_EQ(outd[j], 99.0);
    }
  }
}

TEST_P(DecodeIsaTest, CountsMatchScalar) {
  for (int64_t n : {0, 1, 7, 31, 32, 33, 64, 129, 1000}) {
    auto row = random_row(n, static_cast<uint32_t>(n) * 3 + 1);
    int64_t expect[4] = {0, 0, 0, 0};
    for (int64_t j = 0; j < n; ++j) ++expect[code_at(row.data(), j)];
    int64_t got[4];
    count_codes(row.data(), n, got);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(got[c], expect[c]) << "n=" << n << " code " << c;
  }
}

TEST_P(DecodeIsaTest, BlockDecodeUsesPerRowTables) {
  const int64_t rows = 3, n = 37, stride = packed_row_bytes(n) + 2, ld = n + 5;
  std::vector<uint8_t> codes(static_cast<size_t>(rows * stride));
  for (int64_t r = 0; r < rows; ++r) {
    auto row = random_row(n, static_cast<uint32_t>(r));
    std::copy(row.begin(), row.begin() + packed_row_bytes(n), codes.begin() + r * stride);
  }
  std::vector<float> luts = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  std::vector<float> out(static_cast<size_t>(rows * ld), -1.0f);
  decode_block_f32(codes.data(), rows, n, stride, luts.data(), out.data(), ld);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_EQ(out[r * ld + j], 10.0f * r + code_at(codes.data() + r * stride, j));
}

INSTANTIATE_TEST_SUITE_P(Isa, DecodeIsaTest, ::testing::Values("portable", "avx2", "avx512"));

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

TEST(DecodeTest, IsaIsReported) {
  const std::string isa = decode_kernel_isa();
  EXPECT_TRUE(isa == "portable" || isa == "avx2" || isa == "avx512") << isa;
  EXPECT_FALSE(set_decode_kernel_isa("sse9"));
}

}  // namespace
}  // namespace strata::io
