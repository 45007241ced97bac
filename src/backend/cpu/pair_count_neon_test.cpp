// The NEON pair-count kernels against the portable ones, bit for bit, on random planes: word
// counts past the kernels' 128-word chunk (the 16-bit accumulators are flushed per chunk), row
// counts that are not multiples of the row blocks, column tiles from either half of a lane
// group, diagonal KING tiles. Skipped off aarch64.
#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "backend/cpu/pair_count_neon.hpp"
#include "strata/backend/backend.hpp"

namespace strata::backend::cpu {
namespace {

TEST(PairCountNeon, SameCountsAsPortable) {
  const PairCountKernels* neon = pair_counts_neon();
  if (!neon) GTEST_SKIP() << "no NEON kernels in this build (not aarch64)";
  const PairCountKernels& ref = pair_counts_portable();
  std::mt19937_64 rng(7);
  // (samples, words, all bits set): all ones over 4100 words would overflow a 16-bit lane (16
  // per word) without the per-chunk flush.
  for (auto [samples, words, ones] : {std::tuple<int64_t, int64_t, bool>{13, 1, false}, {24, 129, false},
                                      {40, 300, false}, {9, 4100, false}, {9, 4100, true}}) {
    // Any bits: the kernels' formulas are compared, not genotypes (densities vary per plane).
    std::vector<uint64_t> planes(static_cast<size_t>(CodePlanesView::buffer_words(samples, words)), ~uint64_t{0});
    for (size_t k = 0; k < planes.size() && !ones; ++k) {
      const int p = static_cast<int>(k / kCodePlaneLanes % kCodePlaneCount);
      const uint64_t x = rng();
      planes[k] = p == 2 ? x | rng() : x & rng();
    }
    const int64_t n = samples;
    for (auto [row0, rows, col0, cols] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{0, n, 0, n},
                                          {1, n - 1, 8, n - 8}, {3, 5, 0, 4}, {n - 1, 1, 0, n}}) {
      const int64_t ldc = (cols + 7) / 8 * 8;
      for (const bool king : {false, true}) {
        const int fields = king ? kKingCountFields : kPairCountFields;
        std::vector<int64_t> want(static_cast<size_t>(fields * rows * ldc), 3), got = want;
        (king ? ref.king : ref.counts)(planes.data(), words, row0, rows, col0, cols, want.data());
        (king ? neon->king : neon->counts)(planes.data(), words, row0, rows, col0, cols, got.data());
        for (int f = 0; f < fields; ++f)
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < ldc && !(king && row0 == col0 && j > i); ++j) {
              const size_t at = static_cast<size_t>((f * rows + i) * ldc + j);
              ASSERT_EQ(got[at], want[at]) << (king ? "king" : "counts") << " samples " << samples << " words "
                                           << words << " tile " << row0 << "+" << rows << " x " << col0 << "+"
                                           << cols << " field " << f << " pair " << i << "," << j;
            }
      }
    }
  }
}

}  // namespace
}  // namespace strata::backend::cpu
