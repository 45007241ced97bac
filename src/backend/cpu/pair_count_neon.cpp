// Pair-count kernels on aarch64's Advanced SIMD (NEON), the CPU backend's neon level.
//
// Lanes run along samples as in the AVX-512 kernel (pair_count_kernels.cpp): a 128-bit vector
// holds one 64-variant word of a plane for 2 column samples, a row sample's word is broadcast
// against it (ld1r), and AND + CNT (byte popcounts) + UADALP (pairwise add of the bytes into
// 16-bit accumulators) counts 64 variants for 2 pairs. A 16-bit lane gains at most 16 per word,
// so accumulators are widened (UADDLP twice) and added to the int64 counts once per chunk of
// kWordChunk words, long before they could overflow. Blocks are 4 column samples (two vectors
// per plane) by 1 row sample for the nine counts (18 accumulators) and by 2 row samples for
// KING's five (20 accumulators), inside the 32 vector registers. Integer sums: the same bits
// as the portable kernels.
#include "backend/cpu/pair_count_neon.hpp"

#include <algorithm>

#include "strata/backend/backend.hpp"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define STRATA_PAIR_NEON 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_PAIR_NEON
namespace {

constexpr int64_t kLanes = kCodePlaneLanes;
constexpr int64_t kPlanes = kCodePlaneCount;
constexpr int64_t kStep = kPlanes * kLanes;  // from one word of a sample group to the next
constexpr int64_t kCols = 4;                 // column samples per block
// Words per chunk: the accumulators' bound (4095 words) is far off; the chunk keeps a tile's
// planes in L2 as in the AVX-512 kernel.
constexpr int64_t kWordChunk = 128;

inline int64_t round_to(int64_t x, int64_t m) { return (x + m - 1) / m * m; }


// The byte popcounts of x added pairwise into acc's 16-bit lanes (lanes 0–3: the low word).
inline uint16x8_t count_into(uint16x8_t acc, uint64x2_t x) {
  return vpadalq_u8(acc, vcntq_u8(vreinterpretq_u8_u64(x)));
}

// The two words' sums of acc added to out[0] and out[1].
inline void flush(uint16x8_t acc, int64_t* out) {
  const uint64x2_t s = vpaddlq_u32(vpaddlq_u16(acc));
  vst1q_s64(out, vaddq_s64(vld1q_s64(out), vreinterpretq_s64_u64(s)));
}

// Column vectors of one word: het, hom-alt, observed of 4 column samples, 2 per vector.
struct Columns {
  uint64x2_t h[2], t[2], o[2];
};

inline Columns load_columns(const uint64_t* b) {
  return {{vld1q_u64(b), vld1q_u64(b + 2)},
          {vld1q_u64(b + kLanes), vld1q_u64(b + kLanes + 2)},
          {vld1q_u64(b + 2 * kLanes), vld1q_u64(b + 2 * kLanes + 2)}};
}

// RA row samples × 4 column samples over words [w0, w1): the 9 pair counts, or with King the 5
// KING counts: hom-ref = observed and neither het nor hom-alt (BIC), opposite homozygotes
// (a ref & b alt) | (a alt & b ref) one count.
template <bool King, int RA>
inline void counts_block(const uint64_t* planes, int64_t words, int64_t w0, int64_t w1, int64_t a0, int64_t b0,
                         int64_t* out, int64_t rows, int64_t ldc) {
  constexpr int kFields = King ? kKingCountFields : kPairCountFields;
  uint16x8_t acc[RA][kFields][2];
  for (int r = 0; r < RA; ++r)
    for (int f = 0; f < kFields; ++f) acc[r][f][0] = acc[r][f][1] = vdupq_n_u16(0);
  const uint64_t* b = planes + plane_at(b0, words, w0, 0);
  const uint64_t* a[RA];
  for (int r = 0; r < RA; ++r) a[r] = planes + plane_at(a0 + r, words, w0, 0);
  for (int64_t w = w0; w < w1; ++w) {
    const Columns bc = load_columns(b);
    b += kStep;
    [[maybe_unused]] uint64x2_t br[2];
    if constexpr (King) {
      br[0] = vbicq_u64(bc.o[0], vorrq_u64(bc.h[0], bc.t[0]));
      br[1] = vbicq_u64(bc.o[1], vorrq_u64(bc.h[1], bc.t[1]));
    }
    for (int r = 0; r < RA; ++r) {
      const uint64x2_t ah = vld1q_dup_u64(a[r]), at = vld1q_dup_u64(a[r] + kLanes),
                       ao = vld1q_dup_u64(a[r] + 2 * kLanes);
      a[r] += kStep;
      uint16x8_t(*c)[2] = acc[r];
      if constexpr (King) {
        const uint64x2_t ar = vbicq_u64(ao, vorrq_u64(ah, at));
        for (int h = 0; h < 2; ++h) {
          c[kKingBoth][h] = count_into(c[kKingBoth][h], vandq_u64(ao, bc.o[h]));
          c[kKingHetHet][h] = count_into(c[kKingHetHet][h], vandq_u64(ah, bc.h[h]));
          c[kKingHetObs][h] = count_into(c[kKingHetObs][h], vandq_u64(ah, bc.o[h]));
          c[kKingObsHet][h] = count_into(c[kKingObsHet][h], vandq_u64(ao, bc.h[h]));
          c[kKingIbs0][h] =
              count_into(c[kKingIbs0][h], vorrq_u64(vandq_u64(ar, bc.t[h]), vandq_u64(at, br[h])));
        }
      } else {
        for (int h = 0; h < 2; ++h) {
          c[kPairBoth][h] = count_into(c[kPairBoth][h], vandq_u64(ao, bc.o[h]));
          c[kPairHetHet][h] = count_into(c[kPairHetHet][h], vandq_u64(ah, bc.h[h]));
          c[kPairHetAlt][h] = count_into(c[kPairHetAlt][h], vandq_u64(ah, bc.t[h]));
          c[kPairAltHet][h] = count_into(c[kPairAltHet][h], vandq_u64(at, bc.h[h]));
          c[kPairAltAlt][h] = count_into(c[kPairAltAlt][h], vandq_u64(at, bc.t[h]));
          c[kPairHetObs][h] = count_into(c[kPairHetObs][h], vandq_u64(ah, bc.o[h]));
          c[kPairAltObs][h] = count_into(c[kPairAltObs][h], vandq_u64(at, bc.o[h]));
          c[kPairObsHet][h] = count_into(c[kPairObsHet][h], vandq_u64(ao, bc.h[h]));
          c[kPairObsAlt][h] = count_into(c[kPairObsAlt][h], vandq_u64(ao, bc.t[h]));
        }
      }
    }
  }
  for (int r = 0; r < RA; ++r)
    for (int f = 0; f < kFields; ++f)
      for (int h = 0; h < 2; ++h) flush(acc[r][f][h], out + (f * rows + r) * ldc + 2 * h);
}

void counts_neon(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 int64_t* counts) {
  const int64_t ldc = round_to(cols, kLanes);
  for (int64_t w0 = 0; w0 < words; w0 += kWordChunk) {
    const int64_t w1 = std::min(words, w0 + kWordChunk);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < ldc; j += kCols)
        counts_block<false, 1>(planes, words, w0, w1, row0 + i, col0 + j, counts + i * ldc + j, rows, ldc);
  }
}

void king_neon(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
               int64_t* counts) {
  const int64_t ldc = round_to(cols, kLanes);
  const bool diagonal = row0 == col0;
  for (int64_t w0 = 0; w0 < words; w0 += kWordChunk) {
    const int64_t w1 = std::min(words, w0 + kWordChunk);
    for (int64_t i = 0; i < rows; i += 2) {
      const int64_t ra = std::min<int64_t>(2, rows - i);
      // On a diagonal tile, column blocks entirely right of this row block are not needed.
      const int64_t jend = diagonal ? std::min(ldc, round_to(i + ra, kCols)) : ldc;
      for (int64_t j = 0; j < jend; j += kCols) {
        int64_t* out = counts + i * ldc + j;
        if (ra == 2) {
          counts_block<true, 2>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc);
        } else {
          counts_block<true, 1>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc);
        }
      }
    }
  }
}

}  // namespace
#endif

const PairCountKernels* pair_counts_neon() {
#ifdef STRATA_PAIR_NEON
  // Advanced SIMD is part of every AArch64 CPU: nothing to detect.
  static const PairCountKernels k{counts_neon, pair_counts_portable().planes, king_neon};
  return &k;
#else
  return nullptr;
#endif
}

}  // namespace strata::backend::cpu
