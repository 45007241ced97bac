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
// Where both samples observe every variant of a chunk (imputed or filtered data), the fields
// that involve "observed" are one sample's het or hom-alt count, summed once per sample and
// chunk: KING then counts 2 fields per pair (HetHet, IBS0) and the nine-field kernel 4.
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

// Over the words of a chunk: whether every variant is observed (then the fields that involve
// "observed" are the other sample's het and hom-alt counts) and those counts.
struct RowSums {
  bool complete;
  int64_t het, alt;
};
struct ColSums {
  bool complete;
  alignas(32) int64_t het[kLanes], alt[kLanes];
};

// Row values of words [w0, w0 + n) of sample s: each plane's low and high nibbles.
template <int V>
STRATA_AVX2 inline RowSums split_row(const uint64_t* planes, int64_t words, int64_t s, int64_t w0, int64_t n,
                                     uint64_t* out) {
  const uint64_t* a = planes + plane_at(s, words, w0, 0);
  uint64_t all = ~uint64_t{0};
  RowSums sums{false, 0, 0};
  for (int64_t w = 0; w < n; ++w, a += kPlanes * kLanes, out += V) {
    const uint64_t h = a[0], t = a[kLanes], o = a[2 * kLanes];
    all &= o;
    sums.het += __builtin_popcountll(h), sums.alt += __builtin_popcountll(t);
    out[kHet] = h & kLowNibbles, out[kHetHi] = (h >> 4) & kLowNibbles;
    out[kAlt] = t & kLowNibbles, out[kAltHi] = (t >> 4) & kLowNibbles;
    out[kObs] = o & kLowNibbles, out[kObsHi] = (o >> 4) & kLowNibbles;
    if constexpr (V == kKingValues) {
      const uint64_t r = o & ~(h | t);
      out[kRef] = r & kLowNibbles, out[kRefHi] = (r >> 4) & kLowNibbles;
    }
  }
  sums.complete = all == ~uint64_t{0};
  return sums;
}

// Column values of words [w0, w0 + n) of the group of 8 samples from s (a multiple of 8), as
// two vectors of 4 per word: each plane and its shift by 4 (the row's high-nibble mask drops
// what crosses a byte).
template <int V>
STRATA_AVX2 inline void split_cols(const uint64_t* planes, int64_t words, int64_t s, int64_t w0, int64_t n,
                                   __m256i* out, ColSums& sums) {
  const uint64_t* b = planes + plane_at(s, words, w0, 0);
  uint64_t all = ~uint64_t{0};
  for (int k = 0; k < kLanes; ++k) sums.het[k] = sums.alt[k] = 0;
  for (int64_t w = 0; w < n; ++w, b += kPlanes * kLanes) {
    for (int k = 0; k < kLanes; ++k) {
      all &= b[2 * kLanes + k];
      sums.het[k] += __builtin_popcountll(b[k]), sums.alt[k] += __builtin_popcountll(b[kLanes + k]);
    }
    for (int q = 0; q < 2; ++q, out += V) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 4 * q));
      const __m256i t = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + kLanes + 4 * q));
      const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 2 * kLanes + 4 * q));
      out[kHet] = h, out[kHetHi] = _mm256_srli_epi64(h, 4);
      out[kAlt] = t, out[kAltHi] = _mm256_srli_epi64(t, 4);
      out[kObs] = o, out[kObsHi] = _mm256_srli_epi64(o, 4);
      if constexpr (V == kKingValues) {
        const __m256i r = _mm256_andnot_si256(_mm256_or_si256(h, t), o);
        out[kRef] = r, out[kRefHi] = _mm256_srli_epi64(r, 4);
      }
    }
  }
  sums.complete = all == ~uint64_t{0};
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

// out[k] += x's lane k.
STRATA_AVX2 inline void add_lanes(int64_t* out, __m256i x) {
  __m256i* p = reinterpret_cast<__m256i*>(out);
  _mm256_storeu_si256(p, _mm256_add_epi64(_mm256_loadu_si256(p), x));
}

// out[k] += the sum of lane k's byte counts.
STRATA_AVX2 inline void fold(int64_t* out, __m256i acc) {
  add_lanes(out, _mm256_sad_epu8(acc, _mm256_setzero_si256()));
}

// The nine fields of one row against CB column vectors of a group (b: the first one's values,
// 2V per word; col_het/col_alt: its sums) over n ≤ kChunk words. Complete: both samples
// observe every variant, so five fields are per-sample counts and four are counted. Two
// vectors share the row's broadcasts where the accumulators fit the 16 registers.
template <bool Complete, int CB>
STRATA_AVX2 inline void counts_block(const uint64_t* a, const __m256i* b, int64_t n, int64_t* out, int64_t fstride,
                                     const RowSums& row, const int64_t* col_het, const int64_t* col_alt) {
  const __m256i lut = nibble_lut();
  __m256i acc[CB][kPairCountFields];
  for (auto& q : acc)
    for (auto& x : q) x = _mm256_setzero_si256();
  for (int64_t w = 0; w < n; ++w, a += kCountValues, b += 2 * kCountValues) {
    const RowPair h = row_pair(a, kHet), t = row_pair(a, kAlt);
    for (int q = 0; q < CB; ++q) {
      const __m256i* bq = b + q * kCountValues;
      __m256i* c = acc[q];
      c[kPairHetHet] = add_field(c[kPairHetHet], lut, h, bq + kHet);
      c[kPairHetAlt] = add_field(c[kPairHetAlt], lut, h, bq + kAlt);
      c[kPairAltHet] = add_field(c[kPairAltHet], lut, t, bq + kHet);
      c[kPairAltAlt] = add_field(c[kPairAltAlt], lut, t, bq + kAlt);
      if constexpr (!Complete) {
        const RowPair o = row_pair(a, kObs);
        c[kPairHetObs] = add_field(c[kPairHetObs], lut, h, bq + kObs);
        c[kPairAltObs] = add_field(c[kPairAltObs], lut, t, bq + kObs);
        c[kPairObsHet] = add_field(c[kPairObsHet], lut, o, bq + kHet);
        c[kPairObsAlt] = add_field(c[kPairObsAlt], lut, o, bq + kAlt);
        c[kPairBoth] = add_field(c[kPairBoth], lut, o, bq + kObs);
      }
    }
  }
  for (int q = 0; q < CB; ++q) {
    int64_t* o = out + 4 * q;
    for (int f : {kPairHetHet, kPairHetAlt, kPairAltHet, kPairAltAlt}) fold(o + f * fstride, acc[q][f]);
    if constexpr (Complete) {
      add_lanes(o + kPairBoth * fstride, _mm256_set1_epi64x(64 * n));
      add_lanes(o + kPairHetObs * fstride, _mm256_set1_epi64x(row.het));
      add_lanes(o + kPairAltObs * fstride, _mm256_set1_epi64x(row.alt));
      add_lanes(o + kPairObsHet * fstride, _mm256_load_si256(reinterpret_cast<const __m256i*>(col_het + 4 * q)));
      add_lanes(o + kPairObsAlt * fstride, _mm256_load_si256(reinterpret_cast<const __m256i*>(col_alt + 4 * q)));
    } else {
      for (int f : {kPairBoth, kPairHetObs, kPairAltObs, kPairObsHet, kPairObsAlt}) fold(o + f * fstride, acc[q][f]);
    }
  }
}

// KING's five fields, as counts_block; where complete, HetHet and IBS0 are counted. Opposite
// homozygotes (a ref & b alt) | (a alt & b ref) are one lookup per nibble.
template <bool Complete, int CB>
STRATA_AVX2 inline void king_block(const uint64_t* a, const __m256i* b, int64_t n, int64_t* out, int64_t fstride,
                                   const RowSums& row, const int64_t* col_het) {
  const __m256i lut = nibble_lut();
  __m256i acc[CB][kKingCountFields];
  for (auto& q : acc)
    for (auto& x : q) x = _mm256_setzero_si256();
  for (int64_t w = 0; w < n; ++w, a += kKingValues, b += 2 * kKingValues) {
    const RowPair h = row_pair(a, kHet), r = row_pair(a, kRef), t = row_pair(a, kAlt);
    for (int q = 0; q < CB; ++q) {
      const __m256i* bq = b + q * kKingValues;
      __m256i* c = acc[q];
      c[kKingHetHet] = add_field(c[kKingHetHet], lut, h, bq + kHet);
      const __m256i lo = _mm256_or_si256(_mm256_and_si256(r.lo, bq[kAlt]), _mm256_and_si256(t.lo, bq[kRef]));
      const __m256i hi = _mm256_or_si256(_mm256_and_si256(r.hi, bq[kAltHi]), _mm256_and_si256(t.hi, bq[kRefHi]));
      c[kKingIbs0] = add_lookups(c[kKingIbs0], lut, lo, hi);
      if constexpr (!Complete) {
        const RowPair o = row_pair(a, kObs);
        c[kKingHetObs] = add_field(c[kKingHetObs], lut, h, bq + kObs);
        c[kKingObsHet] = add_field(c[kKingObsHet], lut, o, bq + kHet);
        c[kKingBoth] = add_field(c[kKingBoth], lut, o, bq + kObs);
      }
    }
  }
  for (int q = 0; q < CB; ++q) {
    int64_t* o = out + 4 * q;
    for (int f : {kKingHetHet, kKingIbs0}) fold(o + f * fstride, acc[q][f]);
    if constexpr (Complete) {
      add_lanes(o + kKingBoth * fstride, _mm256_set1_epi64x(64 * n));
      add_lanes(o + kKingHetObs * fstride, _mm256_set1_epi64x(row.het));
      add_lanes(o + kKingObsHet * fstride, _mm256_load_si256(reinterpret_cast<const __m256i*>(col_het + 4 * q)));
    } else {
      for (int f : {kKingBoth, kKingHetObs, kKingObsHet}) fold(o + f * fstride, acc[q][f]);
    }
  }
}

// Chunks of words, blocks of rows, then groups of 8 columns: one group's values pass every row
// of the block. On a diagonal KING tile group g is needed only by rows ≥ 8g.
template <bool King>
STRATA_AVX2 inline void tile_avx2(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                  int64_t cols, int64_t* counts, bool lower_only) {
  constexpr int V = King ? kKingValues : kCountValues;
  const int64_t ldc = round8(cols), groups = ldc / kLanes, fstride = rows * ldc;
  std::vector<uint64_t> row_values(static_cast<size_t>(kRowBlock * kChunk * V));
  RowSums row_sums[kRowBlock];
  alignas(32) __m256i col_values[kChunk * 2 * V];
  ColSums col_sums;
  for (int64_t w0 = 0; w0 < words; w0 += kChunk) {
    const int64_t n = std::min(kChunk, words - w0);
    for (int64_t i0 = 0; i0 < rows; i0 += kRowBlock) {
      const int64_t i1 = std::min(rows, i0 + kRowBlock);
      for (int64_t i = i0; i < i1; ++i)
        row_sums[i - i0] =
            split_row<V>(planes, words, row0 + i, w0, n, &row_values[static_cast<size_t>((i - i0) * kChunk * V)]);
      const int64_t gend = lower_only ? std::min(groups, (i1 + kLanes - 1) / kLanes) : groups;
      for (int64_t g = 0; g < gend; ++g) {
        split_cols<V>(planes, words, col0 + kLanes * g, w0, n, col_values, col_sums);
        for (int64_t i = lower_only ? std::max(i0, kLanes * g) : i0; i < i1; ++i) {
          const uint64_t* a = &row_values[static_cast<size_t>((i - i0) * kChunk * V)];
          const RowSums& rs = row_sums[i - i0];
          int64_t* out = counts + i * ldc + kLanes * g;
          const int64_t *het = col_sums.het, *alt = col_sums.alt;
          if (rs.complete && col_sums.complete) {
            if constexpr (King) {
              king_block<true, 2>(a, col_values, n, out, fstride, rs, het);
            } else {
              counts_block<true, 2>(a, col_values, n, out, fstride, rs, het, alt);
            }
          } else {
            for (int q = 0; q < 2; ++q) {
              if constexpr (King) {
                king_block<false, 1>(a, col_values + q * V, n, out + 4 * q, fstride, rs, het + 4 * q);
              } else {
                counts_block<false, 1>(a, col_values + q * V, n, out + 4 * q, fstride, rs, het + 4 * q, alt + 4 * q);
              }
            }
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
