// Code and bit counts against a sample-by-sample count, for every row length up to a few
// words (the masked tail) and rows whose bytes past the last sample are not zero. Run with
// STRATA_CPU=portable for the generic build.
#include <array>
#include <random>
#include <vector>

#include "io/genotype/code_counts_internal.hpp"
#include "testing/testing.hpp"

namespace strata::io::detail {
namespace {

TEST(CodeCounts, MatchSampleBySampleCounts) {
  std::mt19937 rng(3);
  for (int64_t n = 0; n <= 200; ++n) {
    std::vector<uint8_t> row(static_cast<size_t>((n + 3) / 4 + 8));
    for (uint8_t& b : row) b = static_cast<uint8_t>(rng());  // past n too: must be ignored
    std::array<int64_t, 4> want{}, got{5, 6, 7, 8};  // counts add to what is there
    for (int64_t j = 0; j < n; ++j) ++want[(row[static_cast<size_t>(j >> 2)] >> (2 * (j & 3))) & 3];
    add_code_counts(row.data(), n, got.data());
    for (int c = 0; c < 4; ++c) EXPECT_EQ(got[c], want[c] + 5 + c) << "n " << n << " code " << c;
    int64_t bits = 0;
    for (int64_t j = 0; j < n; ++j) bits += row[static_cast<size_t>(j >> 3)] >> (j & 7) & 1;
    EXPECT_EQ(count_set_bits(row.data(), n), bits) << "n " << n;
  }
}

}  // namespace
}  // namespace strata::io::detail
