#include "genomics/genotype_gram_int_kernels.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "genomics/genotype_gram_kernels.hpp"

namespace strata::genomics::detail {
namespace {

int code(const std::vector<uint8_t>& codes, int64_t stride, int64_t i, int64_t n) {
  return (codes[static_cast<size_t>(i * stride + n / 4)] >> (2 * (n % 4))) & 3;
}

struct Case {
  int64_t rows, n, w;
};

// Random codes (missing code 3 included) against extreme int16 operands: the kernels must
// return the exact integer sums, vectorized or not.
TEST(GenotypeGramIntKernels, ExactSums) {
  std::mt19937 rng(3);
  for (const Case c : {Case{96, 10000, 16}, Case{7, 70, 8}, Case{13, 33, 24}, Case{3072, 192, 16}, Case{1, 16, 8}}) {
    const int64_t stride = (c.n + 3) / 4, n32 = (c.n + 31) / 32 * 32, n16 = (c.n + 15) / 16 * 16;
    std::vector<uint8_t> codes(static_cast<size_t>((c.rows + 1) * stride + 64));
    for (auto& b : codes) b = static_cast<uint8_t>(rng());
    std::uniform_int_distribution<int> val(-32767, 32767);
    std::vector<int16_t> qt(static_cast<size_t>(c.w * n32), 0);
    for (int64_t j = 0; j < c.w; ++j)
      for (int64_t s = 0; s < c.n; ++s) qt[static_cast<size_t>(j * n32 + s)] = static_cast<int16_t>(rng() % 2 ? 32767 : val(rng));
    std::vector<int16_t> wp(static_cast<size_t>((c.rows + 1) / 2 * 2 * c.w), 0);
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.w; ++j) wp[static_cast<size_t>((i / 2) * 2 * c.w + 2 * j + i % 2)] = static_cast<int16_t>(val(rng));

    std::vector<int64_t> p_ref(static_cast<size_t>(c.rows * c.w), 0);
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.w; ++j)
        for (int64_t s = 0; s < c.n; ++s) p_ref[i * c.w + j] += code(codes, stride, i, s) * int64_t{qt[j * n32 + s]};
    std::vector<int64_t> z_ref(static_cast<size_t>(c.w * n16), 0);
    for (int64_t j = 0; j < c.w; ++j)
      for (int64_t s = 0; s < c.n; ++s)
        for (int64_t i = 0; i < c.rows; ++i)
          z_ref[j * n16 + s] += code(codes, stride, i, s) * int64_t{wp[(i / 2) * 2 * c.w + 2 * j + i % 2]};

    for (bool portable : {false, true}) {
      const bool before = force_portable_kernels(portable);
      std::vector<int64_t> p(static_cast<size_t>(c.rows * c.w), 0);
      codes_times_i16(codes.data(), stride, c.rows, n32, qt.data(), n32, c.w, p.data());
      EXPECT_EQ(p, p_ref) << "times rows " << c.rows << " n " << c.n << " portable " << portable;
      std::vector<int32_t> zt(static_cast<size_t>(c.w * n16), 0);
      codes_t_times_i16(codes.data(), stride, c.rows, n16, wp.data(), c.w, zt.data(), n16);
      for (int64_t j = 0; j < c.w; ++j)
        for (int64_t s = 0; s < c.n; ++s)
          ASSERT_EQ(zt[j * n16 + s], z_ref[j * n16 + s])
              << "t_times rows " << c.rows << " n " << c.n << " col " << j << " sample " << s << " portable " << portable;
      force_portable_kernels(before);
    }
  }
}

}  // namespace
}  // namespace strata::genomics::detail
