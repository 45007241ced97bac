// One seed, one set of bits: random arrays (two chunkings, 1–3 threads), linalg's random
// source (any block height, transposed or not) and the random module's portable and AVX-512
// kernels all give the same matrix.
#include <cstring>
#include <vector>

#include "array/array_test_util.hpp"
#include "strata/core/random.hpp"
#include "strata/linalg/row_blocks.hpp"

namespace strata::linalg {
namespace {

constexpr int64_t kRows = 37, kCols = 29;
constexpr uint64_t kSeed = 0x5eed5eed1234ull;

bool same(const std::vector<double>& a, const std::vector<double>& b) { return strata::testing::same_bits(a, b); }

// The source read in blocks of `height` rows.
std::vector<double> read_in_blocks(const RowBlockSource& src, int64_t height) {
  std::vector<double> out(static_cast<size_t>(src.rows() * src.cols()));
  for (int64_t r = 0; r < src.rows(); r += height) {
    const int64_t h = std::min(height, src.rows() - r);
    EXPECT_TRUE(src.read_block(r, h, out.data() + r * src.cols()).ok());
  }
  return out;
}

// The module's kernels over elements 0 .. rows·cols − 1 (the C-order index of (i, j)).
std::vector<double> module_fill(random::Dist dist, random::Isa isa) {
  random::FillParams p;
  p.dist = dist;
  p.seed = kSeed;
  std::vector<double> out(static_cast<size_t>(kRows * kCols));
  random::fill(p, 0, 1, kRows * kCols, out.data(), isa);
  return out;
}

void check_all_paths(RandomDistribution dist) {
  const bool normal = dist == RandomDistribution::Normal;
  const random::Dist mdist = normal ? random::Dist::Normal : random::Dist::Uniform;
  const std::vector<double> ref = module_fill(mdist, random::Isa::Portable);
  for (int64_t e = 0; e < kRows * kCols; ++e) {
    const double v = normal ? random::normal_at(kSeed, 0, e) : random::uniform_at(kSeed, 0, e);
    ASSERT_EQ(std::memcmp(&v, &ref[e], sizeof v), 0) << "element " << e;
  }
  // The reference is the portable kernel; arrays and sources below run random::best_isa().
  for (const Shape& chunks : {Shape{5, 7}, Shape{kRows, 4}}) {
    const Array x = normal ? Array::random_normal({kRows, kCols}, chunks, 0.0, 1.0, kSeed)
                           : Array::random_uniform({kRows, kCols}, chunks, kSeed);
    for (int threads : {1, 2, 3}) {
      EXPECT_TRUE(same(strata::testing::values<double>(x, threads), ref))
          << "array chunks " << shape_to_string(chunks) << ", " << threads << " threads";
    }
  }

  STRATA_ASSERT_OK_AND_ASSIGN(auto src, make_random_source(kRows, kCols, dist, kSeed));
  for (int64_t height : {int64_t{1}, int64_t{6}, kRows}) {
    EXPECT_TRUE(same(read_in_blocks(*src, height), ref)) << "source blocks of " << height;
  }
  // Rows of the transposed source are the columns.
  STRATA_ASSERT_OK_AND_ASSIGN(auto t, src->transposed());
  for (int64_t height : {int64_t{1}, int64_t{5}, kCols}) {
    const std::vector<double> tv = read_in_blocks(*t, height);
    for (int64_t i = 0; i < kRows; ++i)
      for (int64_t j = 0; j < kCols; ++j)
        ASSERT_EQ(std::memcmp(&tv[j * kRows + i], &ref[i * kCols + j], sizeof(double)), 0) << i << " " << j;
  }
  // Float reads are the float64 values rounded.
  std::vector<float> f(static_cast<size_t>(kRows * kCols));
  ASSERT_TRUE(src->read_block(0, kRows, f.data()).ok());
  for (int64_t e = 0; e < kRows * kCols; ++e) ASSERT_EQ(f[e], static_cast<float>(ref[e])) << e;
}

TEST(RandomPaths, NormalSameBitsEverywhere) { check_all_paths(RandomDistribution::Normal); }

TEST(RandomPaths, UniformSameBitsEverywhere) { check_all_paths(RandomDistribution::Uniform01); }

TEST(RandomPaths, VectorKernelsCompared) {
  int compared = 0;
  for (random::Isa isa : {random::Isa::Avx2, random::Isa::Avx512}) {
    if (!random::isa_available(isa)) continue;
    for (random::Dist d : {random::Dist::Normal, random::Dist::Uniform})
      EXPECT_TRUE(same(module_fill(d, isa), module_fill(d, random::Isa::Portable))) << random::isa_name(isa);
    ++compared;
  }
  if (compared == 0)
    GTEST_SKIP() << "this CPU has neither AVX2 + FMA nor AVX-512: the paths above ran the portable kernels only";
}

TEST(RandomPaths, RandInt3AnyBlockHeight) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, make_random_source(kRows, kCols, RandomDistribution::RandInt3, kSeed));
  const std::vector<double> full = read_in_blocks(*src, kRows);
  for (int64_t e = 0; e < kRows * kCols; ++e)
    ASSERT_EQ(full[e], random::randint3(random::byte_at(kSeed, 0, e))) << e;
  EXPECT_TRUE(same(read_in_blocks(*src, 3), full));
  STRATA_ASSERT_OK_AND_ASSIGN(auto t, src->transposed());
  const std::vector<double> tv = read_in_blocks(*t, 4);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j) ASSERT_EQ(tv[j * kRows + i], full[i * kCols + j]);
}

}  // namespace
}  // namespace strata::linalg
