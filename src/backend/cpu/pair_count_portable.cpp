// Portable pair-count kernels (see pair_count_kernels.hpp): plain loops over the 8 column
// samples of a plane group, which the compiler vectorizes with the baseline's vectors (SSE2 on
// x86-64, NEON on aarch64). Without a vector popcount, AND results are counted per byte by the
// SWAR steps (≤ 8 per byte), summed in bytes over chunks of 31 words (≤ 248) and folded once per
// chunk. The fields with "observed" go through the missing plane m = ~observed, as in the AVX2
// kernels: o_a·o_b = 1 − m_a − m_b + m_a·m_b, h_a·o_b = h_a − h_a·m_b, o_a·h_b = h_b − m_a·h_b
// (likewise hom-alt), one-sample sums once per sample, pair terms only on words where a sample
// of the block misses a call.
#include <algorithm>
#include <vector>

#include "backend/cpu/pair_count_kernels.hpp"
#include "strata/backend/backend.hpp"

namespace strata::backend::cpu {
namespace {

constexpr int64_t kLanes = kCodePlaneLanes;
constexpr int64_t kPlanes = kCodePlaneCount;
constexpr int64_t kChunk = 31;  // words between byte folds: 31 · 8 = 248 ≤ 255


// Per byte, the number of set bits (≤ 8).
inline uint64_t byte_counts(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  return (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
}
// The sum of the 8 bytes (each ≤ 255).
inline int64_t fold(uint64_t x) {
  x = (x & 0x00FF00FF00FF00FFull) + ((x >> 8) & 0x00FF00FF00FF00FFull);
  x += x >> 16;
  x += x >> 32;
  return static_cast<int64_t>(x & 0xFFFF);
}

inline int64_t popcount(uint64_t x) { return fold(byte_counts(x)); }

struct SampleSums {
  int64_t het = 0, alt = 0, miss = 0;
};
inline SampleSums sample_sums(const uint64_t* planes, int64_t words, int64_t s) {
  SampleSums r;
  const uint64_t* a = planes + plane_at(s, words, 0, 0);
  for (int64_t w = 0; w < words; ++w, a += kPlanes * kLanes)
    r.het += popcount(a[0]), r.alt += popcount(a[kLanes]), r.miss += popcount(~a[2 * kLanes]);
  return r;
}

// Pair terms of one row sample against the 8 column samples of group b0 / 8, in F fields:
// KING (F = 5): HetHet, IBS0, then the missing terms m·m, h·m, m·h; the nine fields (F = 9):
// HetHet, HetAlt, AltHet, AltAlt, then m·m, h·m, t·m, m·h, m·t.
template <bool King>
void row_against_group(const uint64_t* planes, int64_t words, int64_t a0, int64_t b0, int64_t (*total)[kLanes]) {
  constexpr int kPair = King ? 2 : 4, kMiss = King ? 3 : 5;
  const uint64_t* a = planes + plane_at(a0, words, 0, 0);
  const uint64_t* b = planes + plane_at(b0, words, 0, 0);
  for (int64_t w0 = 0; w0 < words; w0 += kChunk) {
    const int64_t w1 = std::min(words, w0 + kChunk);
    uint64_t acc[kPair + kMiss][kLanes] = {};
    for (int64_t w = w0; w < w1; ++w) {
      const uint64_t* aw = a + w * kPlanes * kLanes;
      const uint64_t* bw = b + w * kPlanes * kLanes;
      const uint64_t ah = aw[0], at = aw[kLanes], ao = aw[2 * kLanes], ma = ~ao;
      const uint64_t* bh = bw;
      const uint64_t* bt = bw + kLanes;
      const uint64_t* bo = bw + 2 * kLanes;
      if constexpr (King) {
        const uint64_t ar = ao & ~(ah | at);
        for (int64_t l = 0; l < kLanes; ++l) {
          const uint64_t br = bo[l] & ~(bh[l] | bt[l]);
          acc[0][l] += byte_counts(ah & bh[l]);
          acc[1][l] += byte_counts((ar & bt[l]) | (at & br));
        }
      } else {
        for (int64_t l = 0; l < kLanes; ++l) {
          acc[0][l] += byte_counts(ah & bh[l]);
          acc[1][l] += byte_counts(ah & bt[l]);
          acc[2][l] += byte_counts(at & bh[l]);
          acc[3][l] += byte_counts(at & bt[l]);
        }
      }
      uint64_t any = ma;
      for (int64_t l = 0; l < kLanes; ++l) any |= ~bo[l];
      if (any == 0) continue;  // everyone observes every variant of this word
      for (int64_t l = 0; l < kLanes; ++l) {
        const uint64_t mb = ~bo[l];
        acc[kPair][l] += byte_counts(ma & mb);
        acc[kPair + 1][l] += byte_counts(ah & mb);
        if constexpr (King) {
          acc[kPair + 2][l] += byte_counts(ma & bh[l]);
        } else {
          acc[kPair + 2][l] += byte_counts(at & mb);
          acc[kPair + 3][l] += byte_counts(ma & bh[l]);
          acc[kPair + 4][l] += byte_counts(ma & bt[l]);
        }
      }
    }
    for (int f = 0; f < kPair + kMiss; ++f)
      for (int64_t l = 0; l < kLanes; ++l) total[f][l] += fold(acc[f][l]);
  }
}

template <bool King>
void pairs_portable(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                    int64_t* counts) {
  constexpr int kFields = King ? kKingCountFields : kPairCountFields;
  constexpr int kTerms = King ? 5 : 9;
  const int64_t ldc = round8(cols);
  const bool diagonal = King && row0 == col0;
  std::vector<SampleSums> cs(static_cast<size_t>(ldc));
  for (int64_t j = 0; j < ldc; ++j) cs[static_cast<size_t>(j)] = sample_sums(planes, words, col0 + j);
  for (int64_t i = 0; i < rows; ++i) {
    const SampleSums ra = sample_sums(planes, words, row0 + i);
    // On a diagonal KING tile, column groups wholly right of the row are not needed.
    const int64_t jend = diagonal ? std::min(ldc, round8(i + 1)) : ldc;
    for (int64_t j0 = 0; j0 < jend; j0 += kLanes) {
      int64_t t[kTerms][kLanes] = {};
      row_against_group<King>(planes, words, row0 + i, col0 + j0, t);
      for (int64_t l = 0; l < kLanes; ++l) {
        const SampleSums& sb = cs[static_cast<size_t>(j0 + l)];
        int64_t c[kFields];
        if constexpr (King) {
          c[kKingBoth] = 64 * words - ra.miss - sb.miss + t[2][l];
          c[kKingHetHet] = t[0][l];
          c[kKingHetObs] = ra.het - t[3][l];
          c[kKingObsHet] = sb.het - t[4][l];
          c[kKingIbs0] = t[1][l];
        } else {
          c[kPairBoth] = 64 * words - ra.miss - sb.miss + t[4][l];
          c[kPairHetHet] = t[0][l];
          c[kPairHetAlt] = t[1][l];
          c[kPairAltHet] = t[2][l];
          c[kPairAltAlt] = t[3][l];
          c[kPairHetObs] = ra.het - t[5][l];
          c[kPairAltObs] = ra.alt - t[6][l];
          c[kPairObsHet] = sb.het - t[7][l];
          c[kPairObsAlt] = sb.alt - t[8][l];
        }
        for (int f = 0; f < kFields; ++f) counts[(f * rows + i) * ldc + j0 + l] += c[f];
      }
    }
  }
}

}  // namespace

void pair_counts_vector_portable(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                 int64_t cols, int64_t* counts) {
  pairs_portable<false>(planes, words, row0, rows, col0, cols, counts);
}
void king_counts_vector_portable(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                 int64_t cols, int64_t* counts) {
  pairs_portable<true>(planes, words, row0, rows, col0, cols, counts);
}

}  // namespace strata::backend::cpu
