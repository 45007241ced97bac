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
// The fields that involve "observed" go through the missing plane m = ~observed, which is
// sparse in real data: per bit, o_a·o_b = 1 − m_a − m_b + m_a·m_b, h_a·o_b = h_a − h_a·m_b and
// o_a·h_b = h_b − m_a·h_b. The single-sample terms are summed once per sample and chunk, and
// the pair terms only over the words where the row sample (m_a·…) or a column of the vector
// (…·m_b) has a missing call. KING counts 2 fields per pair and word (HetHet, IBS0) plus 2 per
// word listed for the row and 1 per word listed for the column vector, at most the 5 of the
// direct count; the nine-field kernel 4 + 3 + 2 of 9. Imputed or filtered data, with no
// missing call, costs the 2 (4) fields alone. Blocks where many words are listed (about 1 %
// of calls missing) count all fields directly: the listed-word loops run slower per op.
//
// Words go in chunks of kChunk: each lookup adds at most 4 to a byte, two per word, so 31
// words reach at most 248 and the bytes are folded once per chunk. A chunk's row values for a
// block of kRowBlock rows (15.5 KiB per 8 rows) stay in L2 and one group of 8 columns' values
// for the chunk (15.5 KiB) stay in L1 while every row of the block passes it; blocks of 1 row
// × 8 columns share the row's broadcasts (the direct count takes 4 columns at a time: its 5 or
// 9 accumulators per vector fill the 16 registers).
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



// Per word, the values of a row and of a column vector, in this order. KING adds the hom-ref
// plane (observed, neither het nor hom-alt).
enum Value : int { kHet = 0, kHetHi, kAlt, kAltHi, kObs, kObsHi, kRef, kRefHi };
constexpr int kCountValues = 6, kKingValues = 8;

// A sample's het, hom-alt and missing calls over all words (one_sample_terms).
enum Sum : int { kSumHet = 0, kSumAlt, kSumMiss };
constexpr int kSums = 3;

STRATA_AVX2 inline void sample_sums(const uint64_t* planes, int64_t words, int64_t s, int64_t* out, int64_t stride) {
  const uint64_t* a = planes + plane_at(s, words, 0, 0);
  int64_t h = 0, t = 0, m = 0;
  for (int64_t w = 0; w < words; ++w, a += kPlanes * kLanes)
    h += __builtin_popcountll(a[0]), t += __builtin_popcountll(a[kLanes]), m += __builtin_popcountll(~a[2 * kLanes]);
  out[kSumHet * stride] = h, out[kSumAlt * stride] = t, out[kSumMiss * stride] = m;
}

// A row's sums over the words of a chunk, and the words where it has a missing call.
struct RowSums {
  int64_t het, alt, miss;
  int count;
  uint8_t list[kChunk];
};
// The same for a group of 8 columns (lanes), and the words listed per vector of 4.
struct ColSums {
  alignas(32) int64_t het[kLanes], alt[kLanes], miss[kLanes];
  int count[2];
  uint8_t list[2][kChunk];
};

// Row values of words [w0, w0 + n) of sample s: each plane's low and high nibbles.
template <int V>
STRATA_AVX2 inline void split_row(const uint64_t* planes, int64_t words, int64_t s, int64_t w0, int64_t n,
                                  uint64_t* out, RowSums& sums) {
  const uint64_t* a = planes + plane_at(s, words, w0, 0);
  sums.het = sums.alt = sums.miss = 0;
  sums.count = 0;
  for (int64_t w = 0; w < n; ++w, a += kPlanes * kLanes, out += V) {
    const uint64_t h = a[0], t = a[kLanes], o = a[2 * kLanes];
    sums.het += __builtin_popcountll(h), sums.alt += __builtin_popcountll(t), sums.miss += __builtin_popcountll(~o);
    if (~o) sums.list[sums.count++] = static_cast<uint8_t>(w);
    out[kHet] = h & kLowNibbles, out[kHetHi] = (h >> 4) & kLowNibbles;
    out[kAlt] = t & kLowNibbles, out[kAltHi] = (t >> 4) & kLowNibbles;
    out[kObs] = o & kLowNibbles, out[kObsHi] = (o >> 4) & kLowNibbles;
    if constexpr (V == kKingValues) {
      const uint64_t r = o & ~(h | t);
      out[kRef] = r & kLowNibbles, out[kRefHi] = (r >> 4) & kLowNibbles;
    }
  }
}

// Column values of words [w0, w0 + n) of the group of 8 samples from s (a multiple of 8), as
// two vectors of 4 per word: each plane and its shift by 4 (the row's high-nibble mask drops
// what crosses a byte).
template <int V>
STRATA_AVX2 inline void split_cols(const uint64_t* planes, int64_t words, int64_t s, int64_t w0, int64_t n,
                                   __m256i* out, ColSums& sums) {
  const uint64_t* b = planes + plane_at(s, words, w0, 0);
  for (int k = 0; k < kLanes; ++k) sums.het[k] = sums.alt[k] = sums.miss[k] = 0;
  sums.count[0] = sums.count[1] = 0;
  for (int64_t w = 0; w < n; ++w, b += kPlanes * kLanes) {
    for (int q = 0; q < 2; ++q, out += V) {
      uint64_t any = 0;
      for (int k = 4 * q; k < 4 * q + 4; ++k) {
        const uint64_t m = ~b[2 * kLanes + k];
        any |= m;
        sums.het[k] += __builtin_popcountll(b[k]), sums.alt[k] += __builtin_popcountll(b[kLanes + k]);
        sums.miss[k] += __builtin_popcountll(m);
      }
      if (any) sums.list[q][sums.count[q]++] = static_cast<uint8_t>(w);
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

// The same with the column's missing plane (~observed; ~(o >> 4) differs from (~o) >> 4 only
// in bits the row's nibble mask clears).
STRATA_AVX2 inline __m256i add_field_missing(__m256i acc, __m256i lut, RowPair a, const __m256i* b_obs) {
  return add_lookups(acc, lut, _mm256_andnot_si256(b_obs[0], a.lo), _mm256_andnot_si256(b_obs[1], a.hi));
}

// The row's missing plane from its observed nibbles.
STRATA_AVX2 inline RowPair row_missing(const uint64_t* a) {
  const RowPair o = row_pair(a, kObs);
  const __m256i low = _mm256_set1_epi64x(static_cast<long long>(kLowNibbles));
  return {_mm256_xor_si256(o.lo, low), _mm256_xor_si256(o.hi, low)};
}

// The lane sums of byte counts.
STRATA_AVX2 inline __m256i lane_sums(__m256i bytes) { return _mm256_sad_epu8(bytes, _mm256_setzero_si256()); }

STRATA_AVX2 inline __m256i load4(const int64_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }

// out[k] += x's lane k.
STRATA_AVX2 inline void add_lanes(int64_t* out, __m256i x) {
  __m256i* p = reinterpret_cast<__m256i*>(out);
  _mm256_storeu_si256(p, _mm256_add_epi64(_mm256_loadu_si256(p), x));
}

// The fields of one row against a group of 8 columns (two vectors; b: the values of the
// group, 2V per word) over n ≤ kChunk words. Pair terms: Main over every word, RowMiss
// (m_a · column plane) over the row's listed words, ColMiss (row plane · m_b) over each
// vector's listed words. KING's opposite homozygotes (a ref & b alt) | (a alt & b ref) are
// one lookup per nibble.
template <bool King>
struct Fields;

template <>
struct Fields<true> {
  static constexpr int V = kKingValues, kMain = 2, kRowMiss = 2, kColMiss = 1;
  // Main: HetHet, IBS0, for vectors [Q0, Q0 + CB) of the group; with ColDense the ColMiss
  // terms too (for every word).
  template <int Q0, int CB, bool ColDense>
  STRATA_AVX2 static void main(__m256i (&acc)[2][kMain], __m256i (&col)[2][kColMiss], __m256i lut, const uint64_t* a,
                               const __m256i* b) {
    const RowPair h = row_pair(a, kHet), r = row_pair(a, kRef), t = row_pair(a, kAlt);
    for (int q = Q0; q < Q0 + CB; ++q) {
      const __m256i* bq = b + q * V;
      acc[q][0] = add_field(acc[q][0], lut, h, bq + kHet);
      const __m256i lo = _mm256_or_si256(_mm256_and_si256(r.lo, bq[kAlt]), _mm256_and_si256(t.lo, bq[kRef]));
      const __m256i hi = _mm256_or_si256(_mm256_and_si256(r.hi, bq[kAltHi]), _mm256_and_si256(t.hi, bq[kRefHi]));
      acc[q][1] = add_lookups(acc[q][1], lut, lo, hi);
      if constexpr (ColDense) col[q][0] = add_field_missing(col[q][0], lut, h, bq + kObs);
    }
  }
  // RowMiss: m_a·m_b, m_a·h_b.
  STRATA_AVX2 static void row_miss(__m256i (&acc)[2][kRowMiss], __m256i lut, const uint64_t* a, const __m256i* b) {
    const RowPair m = row_missing(a);
    for (int q = 0; q < 2; ++q) {
      acc[q][0] = add_field_missing(acc[q][0], lut, m, b + q * V + kObs);
      acc[q][1] = add_field(acc[q][1], lut, m, b + q * V + kHet);
    }
  }
  // ColMiss: h_a·m_b.
  STRATA_AVX2 static void col_miss(__m256i (&acc)[kColMiss], __m256i lut, const uint64_t* a, const __m256i* bq) {
    acc[0] = add_field_missing(acc[0], lut, row_pair(a, kHet), bq + kObs);
  }
  // All five fields of one vector (b: its values, 2V per word), "observed" counted directly.
  STRATA_AVX2 static void direct(const uint64_t* a, const __m256i* b, int64_t n, int64_t* out, int64_t fstride) {
    const __m256i lut = nibble_lut();
    __m256i acc[kKingCountFields];
    for (auto& x : acc) x = _mm256_setzero_si256();
    for (int64_t w = 0; w < n; ++w, a += V, b += 2 * V) {
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
    for (int f = 0; f < kKingCountFields; ++f) add_lanes(out + f * fstride, lane_sums(acc[f]));
  }
  // What the direct count holds beyond the pair terms: the chunk's one-sample terms, which
  // the tile adds for all chunks at once (one_sample_terms).
  STRATA_AVX2 static void drop_one_sample_terms(int64_t n, const RowSums& row, const ColSums& col, int q,
                                                int64_t* out, int64_t fstride) {
    const __m256i both = _mm256_sub_epi64(_mm256_set1_epi64x(64 * n - row.miss), load4(col.miss + 4 * q));
    add_lanes(out + kKingBoth * fstride, _mm256_sub_epi64(_mm256_setzero_si256(), both));
    add_lanes(out + kKingObsHet * fstride, _mm256_sub_epi64(_mm256_setzero_si256(), load4(col.het + 4 * q)));
    add_lanes(out + kKingHetObs * fstride, _mm256_set1_epi64x(-row.het));
  }
  // The pair terms: Main's fields, the RowMiss and ColMiss corrections where there are any.
  STRATA_AVX2 static void store(const __m256i (&main)[kMain], const __m256i (&row_miss)[kRowMiss],
                                const __m256i (&col_miss)[kColMiss], bool rows_missing, bool cols_missing,
                                int64_t* out, int64_t fstride) {
    const __m256i zero = _mm256_setzero_si256();
    add_lanes(out + kKingHetHet * fstride, lane_sums(main[0]));
    add_lanes(out + kKingIbs0 * fstride, lane_sums(main[1]));
    if (rows_missing) {
      add_lanes(out + kKingBoth * fstride, lane_sums(row_miss[0]));
      add_lanes(out + kKingObsHet * fstride, _mm256_sub_epi64(zero, lane_sums(row_miss[1])));
    }
    if (cols_missing) add_lanes(out + kKingHetObs * fstride, _mm256_sub_epi64(zero, lane_sums(col_miss[0])));
  }
  // The one-sample terms of every word, added once per tile: o_a·o_b's 1 − m_a − m_b, h_a·o_b's
  // h_a, o_a·h_b's h_b (row: the row sample's sums, col: the column samples').
  static void one_sample_terms(int64_t words, const int64_t* row, const int64_t* col, int64_t ldc, int64_t* out,
                               int64_t fstride) {
    for (int64_t j = 0; j < ldc; ++j) {
      out[kKingBoth * fstride + j] += 64 * words - row[kSumMiss] - col[kSumMiss * ldc + j];
      out[kKingHetObs * fstride + j] += row[kSumHet];
      out[kKingObsHet * fstride + j] += col[kSumHet * ldc + j];
    }
  }
};

template <>
struct Fields<false> {
  static constexpr int V = kCountValues, kMain = 4, kRowMiss = 3, kColMiss = 2;
  // Main: HetHet, HetAlt, AltHet, AltAlt (and the ColMiss terms with ColDense).
  template <int Q0, int CB, bool ColDense>
  STRATA_AVX2 static void main(__m256i (&acc)[2][kMain], __m256i (&col)[2][kColMiss], __m256i lut, const uint64_t* a,
                               const __m256i* b) {
    const RowPair h = row_pair(a, kHet), t = row_pair(a, kAlt);
    for (int q = Q0; q < Q0 + CB; ++q) {
      const __m256i* bq = b + q * V;
      acc[q][0] = add_field(acc[q][0], lut, h, bq + kHet);
      acc[q][1] = add_field(acc[q][1], lut, h, bq + kAlt);
      acc[q][2] = add_field(acc[q][2], lut, t, bq + kHet);
      acc[q][3] = add_field(acc[q][3], lut, t, bq + kAlt);
      if constexpr (ColDense) {
        col[q][0] = add_field_missing(col[q][0], lut, h, bq + kObs);
        col[q][1] = add_field_missing(col[q][1], lut, t, bq + kObs);
      }
    }
  }
  // RowMiss: m_a·m_b, m_a·h_b, m_a·t_b.
  STRATA_AVX2 static void row_miss(__m256i (&acc)[2][kRowMiss], __m256i lut, const uint64_t* a, const __m256i* b) {
    const RowPair m = row_missing(a);
    for (int q = 0; q < 2; ++q) {
      acc[q][0] = add_field_missing(acc[q][0], lut, m, b + q * V + kObs);
      acc[q][1] = add_field(acc[q][1], lut, m, b + q * V + kHet);
      acc[q][2] = add_field(acc[q][2], lut, m, b + q * V + kAlt);
    }
  }
  // ColMiss: h_a·m_b, t_a·m_b.
  STRATA_AVX2 static void col_miss(__m256i (&acc)[kColMiss], __m256i lut, const uint64_t* a, const __m256i* bq) {
    acc[0] = add_field_missing(acc[0], lut, row_pair(a, kHet), bq + kObs);
    acc[1] = add_field_missing(acc[1], lut, row_pair(a, kAlt), bq + kObs);
  }
  // All nine fields of one vector, "observed" counted directly.
  STRATA_AVX2 static void direct(const uint64_t* a, const __m256i* b, int64_t n, int64_t* out, int64_t fstride) {
    const __m256i lut = nibble_lut();
    __m256i acc[kPairCountFields];
    for (auto& x : acc) x = _mm256_setzero_si256();
    for (int64_t w = 0; w < n; ++w, a += V, b += 2 * V) {
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
    for (int f = 0; f < kPairCountFields; ++f) add_lanes(out + f * fstride, lane_sums(acc[f]));
  }
  STRATA_AVX2 static void drop_one_sample_terms(int64_t n, const RowSums& row, const ColSums& col, int q,
                                                int64_t* out, int64_t fstride) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i both = _mm256_sub_epi64(_mm256_set1_epi64x(64 * n - row.miss), load4(col.miss + 4 * q));
    add_lanes(out + kPairBoth * fstride, _mm256_sub_epi64(zero, both));
    add_lanes(out + kPairObsHet * fstride, _mm256_sub_epi64(zero, load4(col.het + 4 * q)));
    add_lanes(out + kPairObsAlt * fstride, _mm256_sub_epi64(zero, load4(col.alt + 4 * q)));
    add_lanes(out + kPairHetObs * fstride, _mm256_set1_epi64x(-row.het));
    add_lanes(out + kPairAltObs * fstride, _mm256_set1_epi64x(-row.alt));
  }
  STRATA_AVX2 static void store(const __m256i (&main)[kMain], const __m256i (&row_miss)[kRowMiss],
                                const __m256i (&col_miss)[kColMiss], bool rows_missing, bool cols_missing,
                                int64_t* out, int64_t fstride) {
    const __m256i zero = _mm256_setzero_si256();
    add_lanes(out + kPairHetHet * fstride, lane_sums(main[0]));
    add_lanes(out + kPairHetAlt * fstride, lane_sums(main[1]));
    add_lanes(out + kPairAltHet * fstride, lane_sums(main[2]));
    add_lanes(out + kPairAltAlt * fstride, lane_sums(main[3]));
    if (rows_missing) {
      add_lanes(out + kPairBoth * fstride, lane_sums(row_miss[0]));
      add_lanes(out + kPairObsHet * fstride, _mm256_sub_epi64(zero, lane_sums(row_miss[1])));
      add_lanes(out + kPairObsAlt * fstride, _mm256_sub_epi64(zero, lane_sums(row_miss[2])));
    }
    if (cols_missing) {
      add_lanes(out + kPairHetObs * fstride, _mm256_sub_epi64(zero, lane_sums(col_miss[0])));
      add_lanes(out + kPairAltObs * fstride, _mm256_sub_epi64(zero, lane_sums(col_miss[1])));
    }
  }
  static void one_sample_terms(int64_t words, const int64_t* row, const int64_t* col, int64_t ldc, int64_t* out,
                               int64_t fstride) {
    for (int64_t j = 0; j < ldc; ++j) {
      out[kPairBoth * fstride + j] += 64 * words - row[kSumMiss] - col[kSumMiss * ldc + j];
      out[kPairHetObs * fstride + j] += row[kSumHet];
      out[kPairAltObs * fstride + j] += row[kSumAlt];
      out[kPairObsHet * fstride + j] += col[kSumHet * ldc + j];
      out[kPairObsAlt * fstride + j] += col[kSumAlt * ldc + j];
    }
  }
};

template <bool King>
STRATA_AVX2 inline void block(const uint64_t* a, const __m256i* b, int64_t n, const RowSums& row, const ColSums& col,
                              int64_t* out, int64_t fstride) {
  using F = Fields<King>;
  constexpr int V = F::V;
  // A listed word costs (per vector) 12 ops for the row and 6 for the column vector against
  // the 34 of a direct KING count, in loops that run ~1.5 times slower per op than the main
  // one. So the column terms go into the main loop, for every word, once 2/3 of the words are
  // listed for the vectors, and all fields are counted directly once 2/3 are for the row (at
  // 1 % of calls missing 47 % of a row's words are listed, 92 % of a vector's).
  if (3 * row.count >= 2 * n) {
    for (int q = 0; q < 2; ++q) {
      F::direct(a, b + q * V, n, out + 4 * q, fstride);
      F::drop_one_sample_terms(n, row, col, q, out + 4 * q, fstride);
    }
    return;
  }
  const bool col_dense = 3 * (col.count[0] + col.count[1]) >= 4 * n;
  const __m256i lut = nibble_lut();
  __m256i main[2][F::kMain], row_miss[2][F::kRowMiss], col_miss[2][F::kColMiss];
  for (int q = 0; q < 2; ++q) {
    for (auto& x : main[q]) x = _mm256_setzero_si256();
    for (auto& x : row_miss[q]) x = _mm256_setzero_si256();
    for (auto& x : col_miss[q]) x = _mm256_setzero_si256();
  }
  if (!col_dense) {
    for (int64_t w = 0; w < n; ++w) F::template main<0, 2, false>(main, col_miss, lut, a + w * V, b + w * 2 * V);
    for (int q = 0; q < 2; ++q)
      for (int k = 0; k < col.count[q]; ++k)
        F::col_miss(col_miss[q], lut, a + col.list[q][k] * V, b + col.list[q][k] * 2 * V + q * V);
  } else if constexpr (King) {
    for (int64_t w = 0; w < n; ++w) F::template main<0, 2, true>(main, col_miss, lut, a + w * V, b + w * 2 * V);
  } else {  // 8 accumulators per vector: one vector at a time
    for (int64_t w = 0; w < n; ++w) F::template main<0, 1, true>(main, col_miss, lut, a + w * V, b + w * 2 * V);
    for (int64_t w = 0; w < n; ++w) F::template main<1, 1, true>(main, col_miss, lut, a + w * V, b + w * 2 * V);
  }
  for (int k = 0; k < row.count; ++k) F::row_miss(row_miss, lut, a + row.list[k] * V, b + row.list[k] * 2 * V);
  for (int q = 0; q < 2; ++q)
    F::store(main[q], row_miss[q], col_miss[q], row.count > 0, col_dense || col.count[q] > 0, out + 4 * q, fstride);
}

// Chunks of words, blocks of rows, then groups of 8 columns: one group's values pass every row
// of the block. On a diagonal KING tile group g is needed only by rows ≥ 8g.
template <bool King>
STRATA_AVX2 inline void tile_avx2(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                  int64_t cols, int64_t* counts, bool lower_only) {
  constexpr int V = Fields<King>::V;
  const int64_t ldc = round8(cols), groups = ldc / kLanes, fstride = rows * ldc;
  std::vector<uint64_t> row_values(static_cast<size_t>(kRowBlock * kChunk * V));
  std::vector<RowSums> row_sums(kRowBlock);
  alignas(32) __m256i col_values[kChunk * 2 * V];
  ColSums col_sums;
  // The one-sample terms first (the pair terms are added to them).
  std::vector<int64_t> col_total(static_cast<size_t>(kSums * ldc));
  for (int64_t j = 0; j < ldc; ++j) sample_sums(planes, words, col0 + j, &col_total[static_cast<size_t>(j)], ldc);
  for (int64_t i = 0; i < rows; ++i) {
    int64_t row_total[kSums];
    sample_sums(planes, words, row0 + i, row_total, 1);
    Fields<King>::one_sample_terms(words, row_total, col_total.data(), ldc, counts + i * ldc, fstride);
  }
  for (int64_t w0 = 0; w0 < words; w0 += kChunk) {
    const int64_t n = std::min(kChunk, words - w0);
    for (int64_t i0 = 0; i0 < rows; i0 += kRowBlock) {
      const int64_t i1 = std::min(rows, i0 + kRowBlock);
      for (int64_t i = i0; i < i1; ++i)
        split_row<V>(planes, words, row0 + i, w0, n, &row_values[static_cast<size_t>((i - i0) * kChunk * V)],
                     row_sums[static_cast<size_t>(i - i0)]);
      const int64_t gend = lower_only ? std::min(groups, (i1 + kLanes - 1) / kLanes) : groups;
      for (int64_t g = 0; g < gend; ++g) {
        split_cols<V>(planes, words, col0 + kLanes * g, w0, n, col_values, col_sums);
        for (int64_t i = lower_only ? std::max(i0, kLanes * g) : i0; i < i1; ++i)
          block<King>(&row_values[static_cast<size_t>((i - i0) * kChunk * V)], col_values, n,
                      row_sums[static_cast<size_t>(i - i0)], col_sums, counts + i * ldc + kLanes * g, fstride);
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
