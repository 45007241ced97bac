// AVX2 pair-count kernels (see pair_count_kernels.hpp and backend.hpp's CodePlanesView).
//
// Lanes run along column samples as in the AVX-512 kernel: a 256-bit vector holds one
// 64-variant word of a plane for 4 column samples, and a row sample's word is broadcast against
// it. AVX2 has no vector popcount, so counts come from 4-bit table lookups (VPSHUFB) summed in
// bytes and folded into 64-bit lane sums by VPSADBW before a byte can overflow.
//
// The nibble split costs nothing per pair: a row word is split once per chunk into its low
// nibbles (x & 0x0F…) and its high nibbles ((x >> 4) & 0x0F…), and a column word is stored
// beside its 4-bit shift. Then AND(row low, column) and AND(row high, column >> 4) are the
// lookup indices of (row & column) directly, and one field of 4 pairs and 64 variants costs 2
// ANDs, 2 VPSHUFBs and 2 byte adds. (Harley–Seal carry-save adders would cost 5 logic ops per
// input word before any popcount: more than the 6 ops here, as AVX2 has no ternary logic.)
//
// Words go in chunks of kChunk: each lookup adds at most 4 to a byte, two per word, so 31
// words reach at most 248 and the bytes are folded once per chunk. A chunk's row values for a
// block of kRowBlock rows (15.5 KiB per 8 rows) stay in L2 and one column vector's values for
// the chunk (7.75 KiB) stay in L1 while every row of the block passes it.
#include <algorithm>
#include <vector>

#include "backend/cpu/pair_count_kernels.hpp"
#include "strata/backend/backend.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_PAIR_AVX2 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_PAIR_AVX2
namespace {

#define STRATA_AVX2 __attribute__((target("avx2,popcnt")))

constexpr int64_t kLanes = kCodePlaneLanes;
constexpr int64_t kPlanes = kCodePlaneCount;
constexpr int64_t kChunk = 31;  // words between byte folds: 31 · 8 = 248 ≤ 255
constexpr int64_t kRowBlock = 64;
constexpr uint64_t kLowNibbles = 0x0F0F0F0F0F0F0F0Full;

inline int64_t round8(int64_t x) { return (x + 7) / 8 * 8; }

// Offset of plane p, word w of sample s in the planes buffer.
inline int64_t plane_at(int64_t s, int64_t words, int64_t w, int64_t p) {
  return (((s / kLanes) * words + w) * kPlanes + p) * kLanes + s % kLanes;
}

// Per word, the values of a row and of a column vector, in this order. KING adds the hom-ref
// plane (observed, neither het nor hom-alt).
enum Value : int { kHet = 0, kHetHi, kAlt, kAltHi, kObs, kObsHi, kRef, kRefHi };
constexpr int kCountValues = 6, kKingValues = 8;

// Row values of words [w0, w0 + n) of sample s: each plane's low and high nibbles.
template <int V>
STRATA_AVX2 inline void split_row(const uint64_t* planes, int64_t words, int64_t s, int64_t w0, int64_t n,
                                  uint64_t* out) {
  const uint64_t* a = planes + plane_at(s, words, w0, 0);
  for (int64_t w = 0; w < n; ++w, a += kPlanes * kLanes, out += V) {
    const uint64_t h = a[0], t = a[kLanes], o = a[2 * kLanes];
    out[kHet] = h & kLowNibbles, out[kHetHi] = (h >> 4) & kLowNibbles;
    out[kAlt] = t & kLowNibbles, out[kAltHi] = (t >> 4) & kLowNibbles;
    out[kObs] = o & kLowNibbles, out[kObsHi] = (o >> 4) & kLowNibbles;
    if constexpr (V == kKingValues) {
      const uint64_t r = o & ~(h | t);
      out[kRef] = r & kLowNibbles, out[kRefHi] = (r >> 4) & kLowNibbles;
    }
  }
}

// Column values of words [w0, w0 + n) of the 4 samples from s (a multiple of 4): each plane
// and its shift by 4 (the row's high-nibble mask drops what crosses a byte).
template <int V>
STRATA_AVX2 inline void split_cols(const uint64_t* planes, int64_t words, int64_t s, int64_t w0, int64_t n,
                                   __m256i* out) {
  const uint64_t* b = planes + plane_at(s, words, w0, 0);
  for (int64_t w = 0; w < n; ++w, b += kPlanes * kLanes, out += V) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i t = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + kLanes));
    const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 2 * kLanes));
    out[kHet] = h, out[kHetHi] = _mm256_srli_epi64(h, 4);
    out[kAlt] = t, out[kAltHi] = _mm256_srli_epi64(t, 4);
    out[kObs] = o, out[kObsHi] = _mm256_srli_epi64(o, 4);
    if constexpr (V == kKingValues) {
      const __m256i r = _mm256_andnot_si256(_mm256_or_si256(h, t), o);
      out[kRef] = r, out[kRefHi] = _mm256_srli_epi64(r, 4);
    }
  }
}

STRATA_AVX2 inline __m256i nibble_lut() {
  return _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3,
                          4);
}

// Byte counts of 4-bit indices lo and hi (each byte < 16), added to acc.
STRATA_AVX2 inline __m256i add_lookups(__m256i acc, __m256i lut, __m256i lo, __m256i hi) {
  return _mm256_add_epi8(acc, _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi)));
}

// Row values broadcast: the low/high nibble pair of one plane.
struct RowPair {
  __m256i lo, hi;
};
STRATA_AVX2 inline RowPair row_pair(const uint64_t* a, int v) {
  return {_mm256_set1_epi64x(static_cast<long long>(a[v])), _mm256_set1_epi64x(static_cast<long long>(a[v + 1]))};
}

// One field: popcounts of (row plane & column plane) added to acc; b points at the column
// plane and its shift.
STRATA_AVX2 inline __m256i add_field(__m256i acc, __m256i lut, RowPair a, const __m256i* b) {
  return add_lookups(acc, lut, _mm256_and_si256(a.lo, b[0]), _mm256_and_si256(a.hi, b[1]));
}

// counts[f·fstride + k] += the lane sums of field f's byte counts.
template <int F>
STRATA_AVX2 inline void fold(const __m256i (&acc)[F], int64_t* out, int64_t fstride) {
  const __m256i zero = _mm256_setzero_si256();
  for (int f = 0; f < F; ++f) {
    __m256i* p = reinterpret_cast<__m256i*>(out + f * fstride);
    _mm256_storeu_si256(p, _mm256_add_epi64(_mm256_loadu_si256(p), _mm256_sad_epu8(acc[f], zero)));
  }
}

// The nine fields of one row against one column vector over n ≤ kChunk words.
STRATA_AVX2 inline void counts_block(const uint64_t* a, const __m256i* b, int64_t n, int64_t* out, int64_t fstride) {
  const __m256i lut = nibble_lut();
  __m256i acc[kPairCountFields];
  for (auto& x : acc) x = _mm256_setzero_si256();
  for (int64_t w = 0; w < n; ++w, a += kCountValues, b += kCountValues) {
    const RowPair h = row_pair(a, kHet);
    acc[kPairHetHet] = add_field(acc[kPairHetHet], lut, h, b + kHet);
    acc[kPairHetAlt] = add_field(acc[kPairHetAlt], lut, h, b + kAlt);
    acc[kPairHetObs] = add_field(acc[kPairHetObs], lut, h, b + kObs);
    const RowPair t = row_pair(a, kAlt);
    acc[kPairAltHet] = add_field(acc[kPairAltHet], lut, t, b + kHet);
    acc[kPairAltAlt] = add_field(acc[kPairAltAlt], lut, t, b + kAlt);
    acc[kPairAltObs] = add_field(acc[kPairAltObs], lut, t, b + kObs);
    const RowPair o = row_pair(a, kObs);
    acc[kPairObsHet] = add_field(acc[kPairObsHet], lut, o, b + kHet);
    acc[kPairObsAlt] = add_field(acc[kPairObsAlt], lut, o, b + kAlt);
    acc[kPairBoth] = add_field(acc[kPairBoth], lut, o, b + kObs);
  }
  fold(acc, out, fstride);
}

// KING's five fields of one row against one column vector over n ≤ kChunk words. Opposite
// homozygotes (a ref & b alt) | (a alt & b ref) are one lookup per nibble.
STRATA_AVX2 inline void king_block(const uint64_t* a, const __m256i* b, int64_t n, int64_t* out, int64_t fstride) {
  const __m256i lut = nibble_lut();
  __m256i acc[kKingCountFields];
  for (auto& x : acc) x = _mm256_setzero_si256();
  for (int64_t w = 0; w < n; ++w, a += kKingValues, b += kKingValues) {
    const RowPair h = row_pair(a, kHet);
    acc[kKingHetHet] = add_field(acc[kKingHetHet], lut, h, b + kHet);
    acc[kKingHetObs] = add_field(acc[kKingHetObs], lut, h, b + kObs);
    const RowPair o = row_pair(a, kObs);
    acc[kKingObsHet] = add_field(acc[kKingObsHet], lut, o, b + kHet);
    acc[kKingBoth] = add_field(acc[kKingBoth], lut, o, b + kObs);
    const RowPair r = row_pair(a, kRef), t = row_pair(a, kAlt);
    const __m256i lo = _mm256_or_si256(_mm256_and_si256(r.lo, b[kAlt]), _mm256_and_si256(t.lo, b[kRef]));
    const __m256i hi = _mm256_or_si256(_mm256_and_si256(r.hi, b[kAltHi]), _mm256_and_si256(t.hi, b[kRefHi]));
    acc[kKingIbs0] = add_lookups(acc[kKingIbs0], lut, lo, hi);
  }
  fold(acc, out, fstride);
}

// Chunks of words, blocks of rows, then column vectors: one column vector's values pass every
// row of the block. On a diagonal KING tile column vector c is needed only by rows ≥ 4c.
template <bool King>
STRATA_AVX2 inline void tile_avx2(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                  int64_t cols, int64_t* counts, bool lower_only) {
  constexpr int V = King ? kKingValues : kCountValues;
  const int64_t ldc = round8(cols), vecs = ldc / 4, fstride = rows * ldc;
  std::vector<uint64_t> row_values(static_cast<size_t>(kRowBlock * kChunk * V));
  alignas(32) __m256i col_values[kChunk * V];
  for (int64_t w0 = 0; w0 < words; w0 += kChunk) {
    const int64_t n = std::min(kChunk, words - w0);
    for (int64_t i0 = 0; i0 < rows; i0 += kRowBlock) {
      const int64_t i1 = std::min(rows, i0 + kRowBlock);
      for (int64_t i = i0; i < i1; ++i)
        split_row<V>(planes, words, row0 + i, w0, n, &row_values[static_cast<size_t>((i - i0) * kChunk * V)]);
      const int64_t cend = lower_only ? std::min(vecs, (i1 + 3) / 4) : vecs;
      for (int64_t c = 0; c < cend; ++c) {
        split_cols<V>(planes, words, col0 + 4 * c, w0, n, col_values);
        for (int64_t i = lower_only ? std::max(i0, 4 * c) : i0; i < i1; ++i) {
          const uint64_t* a = &row_values[static_cast<size_t>((i - i0) * kChunk * V)];
          if constexpr (King) {
            king_block(a, col_values, n, counts + i * ldc + 4 * c, fstride);
          } else {
            counts_block(a, col_values, n, counts + i * ldc + 4 * c, fstride);
          }
        }
      }
    }
  }
}

STRATA_AVX2 void counts_avx2(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                             int64_t cols, int64_t* counts) {
  tile_avx2<false>(planes, words, row0, rows, col0, cols, counts, false);
}

STRATA_AVX2 void king_avx2(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                           int64_t cols, int64_t* counts) {
  tile_avx2<true>(planes, words, row0, rows, col0, cols, counts, row0 == col0);
}

}  // namespace
#endif

const PairCountKernels* pair_counts_avx2() {
#ifdef STRATA_PAIR_AVX2
  static const PairCountKernels* k = []() -> const PairCountKernels* {
    const PairCountKernels* popcnt = pair_counts_popcnt();
    if (!popcnt || !__builtin_cpu_supports("avx2")) return nullptr;
    static const PairCountKernels avx2{counts_avx2, popcnt->planes, king_avx2};
    return &avx2;
  }();
  return k;
#else
  return nullptr;
#endif
}

}  // namespace strata::backend::cpu
