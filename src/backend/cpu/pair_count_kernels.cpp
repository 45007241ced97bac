// Pair-count kernels (see pair_count_kernels.hpp and backend.hpp's CodePlanesView).
//
// The AVX-512 kernel runs lanes along samples: a vector holds one 64-variant word of a plane
// for 8 column samples, and a row sample's word is broadcast against it, so one AND +
// VPOPCNTQ + add counts 64 variants for 8 pairs and no horizontal sum is ever needed. Blocks
// of 2 row samples × 8 column samples keep 18 accumulators in registers while the words of a
// chunk stream past; chunks of words keep a tile's planes in L2.
#include "backend/cpu/pair_count_kernels.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "strata/backend/backend.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_PAIR_X86 1
#endif

namespace strata::backend::cpu {
namespace {

constexpr int64_t kLanes = kCodePlaneLanes;
constexpr int64_t kPlanes = kCodePlaneCount;

// The 9 pair counts, or with King KING's five: hom-ref = observed and neither het nor hom-alt,
// so opposite homozygotes are one popcount: (a ref & b alt) | (a alt & b ref). KING may skip
// the pairs above a diagonal tile's diagonal.
template <bool King, class Popcount>
inline void counts_scalar(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                          int64_t cols, int64_t* counts, Popcount pop) {
  constexpr int kFields = King ? kKingCountFields : kPairCountFields;
  const int64_t ldc = round8(cols);
  const bool lower_only = King && row0 == col0;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < ldc && !(lower_only && j > i); ++j) {
      int64_t c[kFields] = {};
      const uint64_t* a = planes + plane_at(row0 + i, words, 0, 0);
      const uint64_t* b = planes + plane_at(col0 + j, words, 0, 0);
      for (int64_t w = 0; w < words; ++w, a += kPlanes * kLanes, b += kPlanes * kLanes) {
        const uint64_t ah = a[0], at = a[kLanes], ao = a[2 * kLanes];
        const uint64_t bh = b[0], bt = b[kLanes], bo = b[2 * kLanes];
        if constexpr (King) {
          const uint64_t ar = ao & ~(ah | at), br = bo & ~(bh | bt);
          c[kKingBoth] += pop(ao & bo);
          c[kKingHetHet] += pop(ah & bh);
          c[kKingHetObs] += pop(ah & bo);
          c[kKingObsHet] += pop(ao & bh);
          c[kKingIbs0] += pop((ar & bt) | (at & br));
        } else {
          c[kPairBoth] += pop(ao & bo);
          c[kPairHetHet] += pop(ah & bh);
          c[kPairHetAlt] += pop(ah & bt);
          c[kPairAltHet] += pop(at & bh);
          c[kPairAltAlt] += pop(at & bt);
          c[kPairHetObs] += pop(ah & bo);
          c[kPairAltObs] += pop(at & bo);
          c[kPairObsHet] += pop(ao & bh);
          c[kPairObsAlt] += pop(ao & bt);
        }
      }
      for (int f = 0; f < kFields; ++f) counts[(f * rows + i) * ldc + j] += c[f];
    }
  }
}

// The low (or high) bits of 8 packed 2-bit codes, one bit per code.
inline uint64_t gather_bits(uint32_t x) {
  x &= 0x5555u;
  x = (x | x >> 1) & 0x3333u;
  x = (x | x >> 2) & 0x0F0Fu;
  x = (x | x >> 4) & 0x00FFu;
  return x;
}

// Transpose of an 8 × 8 bit matrix (bit 8r + c → bit 8c + r).
inline uint64_t transpose8(uint64_t x) {
  uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  x ^= t ^ (t << 28);
  return x;
}

// Planes of word `word` from up to 64 rows. Per group of 8 samples and 8 rows, the codes' low
// and high bits form two 8 × 8 bit matrices (row = variant, column = sample); het, hom-alt and
// observed follow bitwise and one transpose each turns them sample-major.
inline void planes_scalar(const uint8_t* codes, int64_t stride, int64_t rows, int64_t samples, uint64_t* planes,
                          int64_t words, int64_t word) {
  const int64_t groups = round8(samples) / kLanes;
  const int64_t row_bytes = (samples + 3) / 4;
  for (int64_t g = 0; g < groups; ++g) {
    uint64_t h[kLanes] = {}, t[kLanes] = {}, o[kLanes] = {};
    const int64_t first_byte = g * 2;
    const int64_t bytes = std::min<int64_t>(2, row_bytes - first_byte);
    const int64_t lanes = std::min<int64_t>(kLanes, samples - g * kLanes);
    const uint64_t lane_mask = (lanes == kLanes ? 0xFFull : (uint64_t{1} << lanes) - 1) * 0x0101010101010101ull;
    for (int64_t v0 = 0; v0 < rows; v0 += 8) {
      uint64_t lo = 0, hi = 0;
      for (int64_t k = 0; k < 8; ++k) {
        uint32_t two = 0xFFFFu;  // rows past the block: missing
        if (v0 + k < rows) {
          const uint8_t* row = codes + (v0 + k) * stride + first_byte;
          two = bytes == 2 ? uint32_t{row[0]} | uint32_t{row[1]} << 8 : uint32_t{row[0]} | 0xFF00u;
        }
        lo |= gather_bits(two) << (8 * k);
        hi |= gather_bits(two >> 1) << (8 * k);
      }
      const uint64_t het = transpose8(lo & ~hi & lane_mask), alt = transpose8(hi & ~lo & lane_mask),
                     obs = transpose8(~(lo & hi) & lane_mask);
      for (int l = 0; l < kLanes; ++l) {
        h[l] |= ((het >> (8 * l)) & 0xFF) << v0;
        t[l] |= ((alt >> (8 * l)) & 0xFF) << v0;
        o[l] |= ((obs >> (8 * l)) & 0xFF) << v0;
      }
    }
    uint64_t* out = planes + ((g * words + word) * kPlanes) * kLanes;
    std::memcpy(out, h, sizeof h);
    std::memcpy(out + kLanes, t, sizeof t);
    std::memcpy(out + 2 * kLanes, o, sizeof o);
  }
}

#ifdef STRATA_PAIR_X86
__attribute__((target("popcnt"))) void king_popcnt(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows,
                                                   int64_t col0, int64_t cols, int64_t* counts) {
  counts_scalar<true>(planes, words, row0, rows, col0, cols, counts,
                      [](uint64_t x) __attribute__((target("popcnt"))) { return __builtin_popcountll(x); });
}

__attribute__((target("popcnt"))) void counts_popcnt(const uint64_t* planes, int64_t words, int64_t row0,
                                                     int64_t rows, int64_t col0, int64_t cols, int64_t* counts) {
  counts_scalar<false>(planes, words, row0, rows, col0, cols, counts,
                      [](uint64_t x) __attribute__((target("popcnt"))) { return __builtin_popcountll(x); });
}

#define STRATA_VPOPCNT __attribute__((target("avx512f,avx512vpopcntdq")))

// Words per chunk: a 256 × 256 tile's planes for the chunk (512 samples × 3 × 8 bytes × 128)
// take 1.5 MiB, inside a 2 MiB L2.
constexpr int64_t kWordChunk = 128;

STRATA_VPOPCNT inline __m512i add_popcount(__m512i acc, __m512i x, __m512i y) {
  return _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(x, y)));
}

// RA row samples × 8 column samples over words [w0, w1): the 9 pair counts, or with King the 5
// KING counts (5 popcounts per word and pair instead of 9; the column hom-ref plane is one
// ternary-logic op per word, shared by the block's rows).
template <bool King, int RA>
STRATA_VPOPCNT inline void block_avx512(const uint64_t* planes, int64_t words, int64_t w0, int64_t w1, int64_t a0,
                                        int64_t b0, int64_t* out, int64_t rows, int64_t ldc) {
  constexpr int kFields = King ? kKingCountFields : kPairCountFields;
  __m512i acc[RA][kFields];
  for (int r = 0; r < RA; ++r)
    for (int f = 0; f < kFields; ++f) acc[r][f] = _mm512_setzero_si512();
  const uint64_t* b = planes + plane_at(b0, words, w0, 0);
  const uint64_t* a[RA];
  for (int r = 0; r < RA; ++r) a[r] = planes + plane_at(a0 + r, words, w0, 0);
  for (int64_t w = w0; w < w1; ++w) {
    const __m512i bh = _mm512_loadu_si512(b), bt = _mm512_loadu_si512(b + kLanes),
                  bo = _mm512_loadu_si512(b + 2 * kLanes);
    [[maybe_unused]] const __m512i br = King ? _mm512_ternarylogic_epi64(bo, bh, bt, 0x10) : bo;  // bo & ~(bh | bt)
    b += kPlanes * kLanes;
#pragma GCC unroll 4
    for (int r = 0; r < RA; ++r) {
      // Broadcasts straight from memory (a load each), and the row's hom-ref word as a vector
      // op: a scalar and/not/or would route every word through general registers.
      const __m512i ah = _mm512_set1_epi64(static_cast<long long>(a[r][0]));
      const __m512i at = _mm512_set1_epi64(static_cast<long long>(a[r][kLanes]));
      const __m512i ao = _mm512_set1_epi64(static_cast<long long>(a[r][2 * kLanes]));
      a[r] += kPlanes * kLanes;
      __m512i* c = acc[r];
      if constexpr (King) {
        const __m512i ar = _mm512_ternarylogic_epi64(ao, ah, at, 0x10);  // ao & ~(ah | at)
        c[kKingBoth] = add_popcount(c[kKingBoth], ao, bo);
        c[kKingHetHet] = add_popcount(c[kKingHetHet], ah, bh);
        c[kKingHetObs] = add_popcount(c[kKingHetObs], ah, bo);
        c[kKingObsHet] = add_popcount(c[kKingObsHet], ao, bh);
        // (ar & bt) | (at & br)
        const __m512i opposite = _mm512_ternarylogic_epi64(_mm512_and_si512(ar, bt), at, br, 0xF8);
        c[kKingIbs0] = _mm512_add_epi64(c[kKingIbs0], _mm512_popcnt_epi64(opposite));
      } else {
        c[kPairBoth] = add_popcount(c[kPairBoth], ao, bo);
        c[kPairHetHet] = add_popcount(c[kPairHetHet], ah, bh);
        c[kPairHetAlt] = add_popcount(c[kPairHetAlt], ah, bt);
        c[kPairAltHet] = add_popcount(c[kPairAltHet], at, bh);
        c[kPairAltAlt] = add_popcount(c[kPairAltAlt], at, bt);
        c[kPairHetObs] = add_popcount(c[kPairHetObs], ah, bo);
        c[kPairAltObs] = add_popcount(c[kPairAltObs], at, bo);
        c[kPairObsHet] = add_popcount(c[kPairObsHet], ao, bh);
        c[kPairObsAlt] = add_popcount(c[kPairObsAlt], ao, bt);
      }
    }
  }
  for (int r = 0; r < RA; ++r)
    for (int f = 0; f < kFields; ++f) {
      int64_t* p = out + (f * rows + r) * ldc;
      _mm512_storeu_si512(p, _mm512_add_epi64(_mm512_loadu_si512(p), acc[r][f]));
    }
}

STRATA_VPOPCNT void counts_avx512(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                  int64_t cols, int64_t* counts) {
  const int64_t ldc = round8(cols);
  for (int64_t w0 = 0; w0 < words; w0 += kWordChunk) {
    const int64_t w1 = std::min(words, w0 + kWordChunk);
    for (int64_t i = 0; i < rows; i += 2) {
      for (int64_t j = 0; j < ldc; j += kLanes) {
        int64_t* out = counts + i * ldc + j;
        if (rows - i >= 2) {
          block_avx512<false, 2>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc);
        } else {
          block_avx512<false, 1>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc);
        }
      }
    }
  }
}

// KING: blocks of 4 row samples share the column planes.
STRATA_VPOPCNT void king_avx512(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                int64_t cols, int64_t* counts) {
  const int64_t ldc = round8(cols);
  const bool diagonal = row0 == col0;
  for (int64_t w0 = 0; w0 < words; w0 += kWordChunk) {
    const int64_t w1 = std::min(words, w0 + kWordChunk);
    for (int64_t i = 0; i < rows; i += 4) {
      const int64_t ra = std::min<int64_t>(4, rows - i);
      // On a diagonal tile, column groups entirely right of this row block are not needed.
      const int64_t jend = diagonal ? std::min(ldc, round8(i + ra)) : ldc;
      for (int64_t j = 0; j < jend; j += kLanes) {
        int64_t* out = counts + i * ldc + j;
        switch (ra) {
          case 4: block_avx512<true, 4>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc); break;
          case 3: block_avx512<true, 3>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc); break;
          case 2: block_avx512<true, 2>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc); break;
          default: block_avx512<true, 1>(planes, words, w0, w1, row0 + i, col0 + j, out, rows, ldc); break;
        }
      }
    }
  }
}

__attribute__((target("popcnt"))) void planes_popcnt(const uint8_t* codes, int64_t stride, int64_t rows,
                                                     int64_t samples, uint64_t* planes, int64_t words, int64_t word) {
  planes_scalar(codes, stride, rows, samples, planes, words, word);
}
#endif

void planes_portable(const uint8_t* codes, int64_t stride, int64_t rows, int64_t samples, uint64_t* planes,
                     int64_t words, int64_t word) {
  planes_scalar(codes, stride, rows, samples, planes, words, word);
}

}  // namespace

const PairCountKernels& pair_counts_portable() {
  static const PairCountKernels k{pair_counts_vector_portable, planes_portable, king_counts_vector_portable};
  return k;
}

const PairCountKernels* pair_counts_popcnt() {
#ifdef STRATA_PAIR_X86
  static const PairCountKernels k{counts_popcnt, planes_popcnt, king_popcnt};
  return __builtin_cpu_supports("popcnt") ? &k : nullptr;
#else
  return nullptr;
#endif
}

const PairCountKernels* pair_counts_avx512() {
#ifdef STRATA_PAIR_X86
  static const PairCountKernels k{counts_avx512, planes_popcnt, king_avx512};
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") ? &k : nullptr;
#else
  return nullptr;
#endif
}

}  // namespace strata::backend::cpu
