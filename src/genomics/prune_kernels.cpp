// The integer kernels of LD pruning (prune_kernels.hpp): bit-plane fills, plane counts, the
// pair sums and the batch r² bound, one implementation per CPU level.
#include "genomics/prune_kernels.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "genomics/prune_internal.hpp"
#include "strata/core/cpu_pin.hpp"
#include "strata/io/genotype_decode.hpp"

namespace strata::genomics::detail {
namespace {

// 32 packed codes starting at byte `at` of a row of `bytes` (missing past the end).
inline uint64_t code_word(const uint8_t* row, int64_t bytes, int64_t at) {
  uint64_t w = ~uint64_t{0};
  std::memcpy(&w, row + at, static_cast<size_t>(std::min<int64_t>(8, bytes - at)));
  return w;
}

template <class Popcount>
[[gnu::always_inline]] inline PairParts pair_parts_body(const uint64_t* a, const uint64_t* b, int64_t w,
                                                         const GroupStats& sa, const GroupStats& sb, Popcount pc) {
  const uint64_t *ha = a, *pa = a + w, *ma = a + 2 * w, *hb = b, *pb = b + w, *mb = b + 2 * w;
  PairParts r;
  int64_t hh = 0, hd = 0;
  for (int64_t t = 0; t < w; ++t) {
    const uint64_t h = ha[t] & hb[t];
    hh += pc(h);
    hd += pc(h & (pa[t] ^ pb[t]));
  }
  r.dot = hh - 2 * hd;
  if (sa.complete && sb.complete) {
    r.n = sa.n, r.sa = sa.sum, r.qa = sa.ssq, r.sb = sb.sum, r.qb = sb.ssq;
    return r;
  }
  int64_t n = 0, qa = 0, ra = 0, qb = 0, rb = 0;
  for (int64_t t = 0; t < w; ++t) {
    const uint64_t m = ma[t] & mb[t];
    n += pc(m);
    qa += pc(ha[t] & m);
    ra += pc(pa[t] & m);
    qb += pc(hb[t] & m);
    rb += pc(pb[t] & m);
  }
  r.n = n, r.qa = qa, r.sa = 2 * ra - qa, r.qb = qb, r.sb = 2 * rb - qb;
  return r;
}

PairParts pair_parts_generic(const uint64_t* a, const uint64_t* b, int64_t w, const GroupStats& sa,
                             const GroupStats& sb) {
  return pair_parts_body(a, b, w, sa, sb, [](uint64_t x) { return static_cast<int64_t>(std::popcount(x)); });
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same integer sums with the popcnt instruction where the CPU has it.
__attribute__((target("popcnt"))) PairParts pair_parts_popcnt(const uint64_t* a, const uint64_t* b, int64_t w,
                                                                const GroupStats& sa, const GroupStats& sb) {
  return pair_parts_body(a, b, w, sa, sb, [](uint64_t x) { return static_cast<int64_t>(__builtin_popcountll(x)); });
}

// The same sums four words at a time (AVX2): bytes popcounted by nibble lookup, summed in byte
// counters for up to 31 steps (at most 8 a step), then widened.
__attribute__((target("avx2"))) inline __m256i byte_popcounts(__m256i v) {
  const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2,
                                       3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  return _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(v, low)),
                         _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
}

__attribute__((target("avx2"))) inline __m256i load4(const uint64_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

template <bool kComplete>
__attribute__((target("avx2,popcnt"))) PairParts pair_parts_avx2_body(const uint64_t* a, const uint64_t* b, int64_t w,
                                                                       const GroupStats& sa, const GroupStats& sb) {
  constexpr int kSums = kComplete ? 2 : 7;  // hh, hd, then n, qa, ra, qb, rb
  const int64_t body = w / 4 * 4;
  const uint64_t *ha = a, *pa = a + w, *ma = a + 2 * w, *hb = b, *pb = b + w, *mb = b + 2 * w;
  const __m256i zero = _mm256_setzero_si256();
  __m256i acc[kSums];
  for (auto& x : acc) x = zero;
  for (int64_t t0 = 0; t0 < body; t0 += 4 * 31) {
    const int64_t t1 = std::min(body, t0 + 4 * 31);
    __m256i c[kSums];
    for (auto& x : c) x = zero;
    for (int64_t t = t0; t < t1; t += 4) {
      const __m256i xha = load4(ha + t), xhb = load4(hb + t), xpa = load4(pa + t), xpb = load4(pb + t);
      const __m256i h = _mm256_and_si256(xha, xhb);
      c[0] = _mm256_add_epi8(c[0], byte_popcounts(h));
      c[1] = _mm256_add_epi8(c[1], byte_popcounts(_mm256_and_si256(h, _mm256_xor_si256(xpa, xpb))));
      if constexpr (!kComplete) {
        const __m256i m = _mm256_and_si256(load4(ma + t), load4(mb + t));
        c[2] = _mm256_add_epi8(c[2], byte_popcounts(m));
        c[3] = _mm256_add_epi8(c[3], byte_popcounts(_mm256_and_si256(xha, m)));
        c[4] = _mm256_add_epi8(c[4], byte_popcounts(_mm256_and_si256(xpa, m)));
        c[5] = _mm256_add_epi8(c[5], byte_popcounts(_mm256_and_si256(xhb, m)));
        c[6] = _mm256_add_epi8(c[6], byte_popcounts(_mm256_and_si256(xpb, m)));
      }
    }
    for (int k = 0; k < kSums; ++k) acc[k] = _mm256_add_epi64(acc[k], _mm256_sad_epu8(c[k], zero));
  }
  int64_t sum[7] = {0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < kSums; ++k) {
    alignas(32) int64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[k]);
    sum[k] = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  }
  for (int64_t t = body; t < w; ++t) {
    const uint64_t h = ha[t] & hb[t], m = ma[t] & mb[t];
    sum[0] += __builtin_popcountll(h);
    sum[1] += __builtin_popcountll(h & (pa[t] ^ pb[t]));
    sum[2] += __builtin_popcountll(m);
    sum[3] += __builtin_popcountll(ha[t] & m), sum[4] += __builtin_popcountll(pa[t] & m);
    sum[5] += __builtin_popcountll(hb[t] & m), sum[6] += __builtin_popcountll(pb[t] & m);
  }
  PairParts r;
  r.dot = sum[0] - 2 * sum[1];
  if (kComplete) {
    r.n = sa.n, r.sa = sa.sum, r.qa = sa.ssq, r.sb = sb.sum, r.qb = sb.ssq;
  } else {
    r.n = sum[2], r.qa = sum[3], r.sa = 2 * sum[4] - sum[3], r.qb = sum[5], r.sb = 2 * sum[6] - sum[5];
  }
  return r;
}

PairParts pair_parts_avx2(const uint64_t* a, const uint64_t* b, int64_t w, const GroupStats& sa, const GroupStats& sb) {
  return sa.complete && sb.complete ? pair_parts_avx2_body<true>(a, b, w, sa, sb)
                                    : pair_parts_avx2_body<false>(a, b, w, sa, sb);
}

#endif

// A kernel of one pair, for the levels without a batched one.
using PairFn = PairParts (*)(const uint64_t*, const uint64_t*, int64_t, const GroupStats&, const GroupStats&);
template <PairFn One>
void pair_many_by_one(const uint64_t* a, const uint64_t* const* b, int count, int64_t w, const GroupStats& sa,
                      const GroupStats* const* sb, PairParts* out) {
  for (int j = 0; j < count; ++j) out[j] = One(a, b[j], w, sa, *sb[j]);
}

#if defined(__x86_64__) && defined(__GNUC__)
// The eight lanes' total (stored and added: _mm512_reduce_add_epi64 warns on GCC 12).
__attribute__((target("avx512f"))) inline int64_t sum_lanes(__m512i v) {
  alignas(64) int64_t lanes[8];
  _mm512_store_si512(lanes, v);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}

// Eight words at a time (AVX-512 VPOPCNTDQ); planes are whole vectors (plane_words), so there
// is no tail. A complete batch (no missing calls in `a` or any `b`) counts the cross products
// alone.
template <int kCount, bool kComplete>
__attribute__((target("avx512f,avx512vpopcntdq"))) void pair_many_avx512_body(const uint64_t* a,
                                                                              const uint64_t* const* b, int64_t w,
                                                                              const GroupStats& sa,
                                                                              const GroupStats* const* sb,
                                                                              PairParts* out) {
  constexpr int kSums = kComplete ? 2 : 7;  // hh, hd, then n, qa, ra, qb, rb
  const uint64_t *ha = a, *pa = a + w, *ma = a + 2 * w;
  __m512i acc[kCount][kSums];
  for (auto& row : acc)
    for (auto& x : row) x = _mm512_setzero_si512();
  for (int64_t t = 0; t < w; t += 8) {
    const __m512i xha = _mm512_loadu_si512(ha + t), xpa = _mm512_loadu_si512(pa + t);
    const __m512i xma = kComplete ? xha : _mm512_loadu_si512(ma + t);
    for (int j = 0; j < kCount; ++j) {
      const uint64_t* hb = b[j];
      const __m512i xhb = _mm512_loadu_si512(hb + t), xpb = _mm512_loadu_si512(hb + w + t);
      const __m512i h = _mm512_and_si512(xha, xhb);
      acc[j][0] = _mm512_add_epi64(acc[j][0], _mm512_popcnt_epi64(h));
      // h & (pa ^ pb): ternary-logic truth table 0x60 over (h, pa, pb).
      acc[j][1] = _mm512_add_epi64(acc[j][1], _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(h, xpa, xpb, 0x60)));
      if constexpr (!kComplete) {
        // H and P are set only where a call is: H_a & M_b is H_a over the calls of both.
        const __m512i xmb = _mm512_loadu_si512(hb + 2 * w + t);
        acc[j][2] = _mm512_add_epi64(acc[j][2], _mm512_popcnt_epi64(_mm512_and_si512(xma, xmb)));
        acc[j][3] = _mm512_add_epi64(acc[j][3], _mm512_popcnt_epi64(_mm512_and_si512(xha, xmb)));
        acc[j][4] = _mm512_add_epi64(acc[j][4], _mm512_popcnt_epi64(_mm512_and_si512(xpa, xmb)));
        acc[j][5] = _mm512_add_epi64(acc[j][5], _mm512_popcnt_epi64(_mm512_and_si512(xhb, xma)));
        acc[j][6] = _mm512_add_epi64(acc[j][6], _mm512_popcnt_epi64(_mm512_and_si512(xpb, xma)));
      }
    }
  }
  for (int j = 0; j < kCount; ++j) {
    int64_t sum[kSums];
    for (int k = 0; k < kSums; ++k) sum[k] = sum_lanes(acc[j][k]);
    PairParts& r = out[j];
    r.dot = sum[0] - 2 * sum[1];
    if constexpr (kComplete) {
      r.n = sa.n, r.sa = sa.sum, r.qa = sa.ssq, r.sb = sb[j]->sum, r.qb = sb[j]->ssq;
    } else {
      r.n = sum[2], r.qa = sum[3], r.sa = 2 * sum[4] - sum[3], r.qb = sum[5], r.sb = 2 * sum[6] - sum[5];
    }
  }
}

template <bool kComplete>
void pair_many_avx512_of(const uint64_t* a, const uint64_t* const* b, int count, int64_t w, const GroupStats& sa,
                         const GroupStats* const* sb, PairParts* out) {
  switch (count) {
    case 1: return pair_many_avx512_body<1, kComplete>(a, b, w, sa, sb, out);
    case 2: return pair_many_avx512_body<2, kComplete>(a, b, w, sa, sb, out);
    case 3: return pair_many_avx512_body<3, kComplete>(a, b, w, sa, sb, out);
    case 4: return pair_many_avx512_body<4, kComplete>(a, b, w, sa, sb, out);
    default: return pair_many_avx512_body<kMaxBatch, kComplete>(a, b, w, sa, sb, out);
  }
}

void pair_many_avx512(const uint64_t* a, const uint64_t* const* b, int count, int64_t w, const GroupStats& sa,
                      const GroupStats* const* sb, PairParts* out) {
  bool complete = sa.complete;
  for (int j = 0; j < count; ++j) complete = complete && sb[j]->complete;
  // Counted with the missing calls or without, the sums are the same when every call is there.
  if (complete) return pair_many_avx512_of<true>(a, b, count, w, sa, sb, out);
  pair_many_avx512_of<false>(a, b, count, w, sa, sb, out);
}

// STRATA_CPU caps these choices like every kernel table (levels: 1 = avx2, 3 = avx512): a pinned
// run takes the kernels a CPU of that level takes (the counts are exact either way).
bool pinned_at_least(int level) { return cpu_pin().max_level >= level; }
PairManyFn choose_pair_fn() {
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    return pair_many_avx512;
  if (pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
    return pair_many_by_one<pair_parts_avx2>;
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("popcnt") ? pair_many_by_one<pair_parts_popcnt>
                                                                             : pair_many_by_one<pair_parts_generic>;
}
#else
PairManyFn choose_pair_fn() { return pair_many_by_one<pair_parts_generic>; }
#endif

// Planes H, P, M of a packed row of every view sample, `words` words each (zero past the
// samples). The portable fill keeps sample order (64 samples a word); the SIMD fills take 64
// bytes (256 samples) at a time and put pair k of byte j of block i at bit j of word 4i + k.
// Every variant of a group is filled by the same function, and the pair sums do not depend on
// the order of the samples, so the counts are the same at every CPU level.

void fill_all_generic(const uint8_t* row, int64_t bytes, int64_t words, uint64_t* h, uint64_t* p, uint64_t* m) {
  for (int64_t t = 0; t < words; ++t) {
    uint64_t hw = 0, pw = 0, mw = 0;
    for (int half = 0; half < 2; ++half) {
      const int64_t at = 16 * t + 8 * half;
      const uint64_t c = at < bytes ? code_word(row, bytes, at) : ~uint64_t{0};
      const uint64_t lo = c, hi = c >> 1;
      hw |= io::compact_even_bits(~lo) << (32 * half);
      pw |= io::compact_even_bits(~lo & ~hi) << (32 * half);
      mw |= io::compact_even_bits(~(lo & hi)) << (32 * half);
    }
    h[t] = hw, p[t] = pw, m[t] = mw;
  }
}

template <class Popcount>
[[gnu::always_inline]] inline void count_body(const uint64_t* h, int64_t w, int64_t* hom, int64_t* ref, int64_t* n,
                                              Popcount pc) {
  int64_t a = 0, b = 0, c = 0;
  for (int64_t t = 0; t < w; ++t) {
    a += pc(h[t]);
    b += pc(h[w + t]);
    c += pc(h[2 * w + t]);
  }
  *hom = a, *ref = b, *n = c;
}

void count_generic(const uint64_t* h, int64_t w, int64_t* hom, int64_t* ref, int64_t* n) {
  count_body(h, w, hom, ref, n, [](uint64_t x) { return static_cast<int64_t>(std::popcount(x)); });
}

#if defined(__x86_64__) && defined(__GNUC__)
// The kBytes-byte blocks of a row (the last one padded with missing codes) by `Block`, which
// writes kBytes / 16 words of each plane; the words past them zeroed.
template <int kBytes, void (*Block)(const uint8_t*, uint64_t*, uint64_t*, uint64_t*)>
void fill_by_blocks(const uint8_t* row, int64_t bytes, int64_t words, uint64_t* h, uint64_t* p, uint64_t* m) {
  constexpr int kWords = kBytes / 16;
  int64_t i = 0;
  for (; kBytes * i + kBytes <= bytes; ++i) Block(row + kBytes * i, h + kWords * i, p + kWords * i, m + kWords * i);
  if (kBytes * i < bytes) {
    alignas(64) uint8_t tail[kBytes];
    std::memset(tail, 0xff, sizeof tail);
    std::memcpy(tail, row + kBytes * i, static_cast<size_t>(bytes - kBytes * i));
    Block(tail, h + kWords * i, p + kWords * i, m + kWords * i);
    ++i;
  }
  for (int64_t t = kWords * i; t < words; ++t) h[t] = p[t] = m[t] = 0;
}

// Pair k's low and high bits of each byte, taken by the byte's top bit (a byte's own bits
// reach it through the 16-bit shift).
__attribute__((target("avx2"))) inline uint64_t top_bits_avx2(__m256i v0, __m256i v1, int shift) {
  const __m128i s = _mm_cvtsi32_si128(shift);
  const auto lo = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_sll_epi16(v0, s)));
  const auto hi = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_sll_epi16(v1, s)));
  return uint64_t{lo} | uint64_t{hi} << 32;
}
__attribute__((target("avx2"))) void fill_block_avx2(const uint8_t* b, uint64_t* h, uint64_t* p, uint64_t* m) {
  const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
  const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
  for (int k = 0; k < 4; ++k) {
    const uint64_t lo = top_bits_avx2(v0, v1, 7 - 2 * k), hi = top_bits_avx2(v0, v1, 6 - 2 * k);
    h[k] = ~lo, p[k] = ~lo & ~hi, m[k] = ~(lo & hi);
  }
}
__attribute__((target("avx512f,avx512bw"))) inline uint64_t top_bits_avx512(__m512i v, int shift) {
  return static_cast<uint64_t>(_mm512_movepi8_mask(_mm512_sll_epi16(v, _mm_cvtsi32_si128(shift))));
}
__attribute__((target("avx512f,avx512bw"))) void fill_block_avx512(const uint8_t* b, uint64_t* h, uint64_t* p,
                                                                   uint64_t* m) {
  const __m512i v = _mm512_loadu_si512(b);
  for (int k = 0; k < 4; ++k) {
    const uint64_t lo = top_bits_avx512(v, 7 - 2 * k), hi = top_bits_avx512(v, 6 - 2 * k);
    h[k] = ~lo, p[k] = ~lo & ~hi, m[k] = ~(lo & hi);
  }
}
// 128 bytes (512 samples) with GFNI: one affine map per 64 bytes gathers each byte's four low
// code bits into one nibble and its four high bits into the other (the two maps swap the
// nibbles), so a blend joins block halves x and y: byte j of `lo` holds the low bits of x's
// byte j in bits 0-3 and of y's byte j in bits 4-7, and `hi` the high bits in the same places.
__attribute__((target("avx512f,avx512bw,gfni"))) void fill_block_gfni(const uint8_t* b, uint64_t* h, uint64_t* p,
                                                                      uint64_t* m) {
  // Row i of an 8 × 8 bit matrix is byte 7 − i of the qword: output bit i takes the input
  // bits that row sets. Low bits of codes 0-3 are input bits 0, 2, 4, 6; high bits 1, 3, 5, 7.
  const __m512i low_first = _mm512_set1_epi64(0x0104104002082080);   // lows to bits 0-3, highs to 4-7
  const __m512i high_first = _mm512_set1_epi64(0x0208208001041040);  // highs to bits 0-3, lows to 4-7
  const __m512i nibble = _mm512_set1_epi8(0x0f);
  const __m512i x = _mm512_loadu_si512(b), y = _mm512_loadu_si512(b + 64);
  // 0xca: a ? b : c, per bit.
  const __m512i lo = _mm512_ternarylogic_epi64(nibble, _mm512_gf2p8affine_epi64_epi8(x, low_first, 0),
                                               _mm512_gf2p8affine_epi64_epi8(y, high_first, 0), 0xca);
  const __m512i hi = _mm512_ternarylogic_epi64(nibble, _mm512_gf2p8affine_epi64_epi8(x, high_first, 0),
                                               _mm512_gf2p8affine_epi64_epi8(y, low_first, 0), 0xca);
  const __m512i ones = _mm512_set1_epi64(-1);
  _mm512_storeu_si512(h, _mm512_xor_si512(lo, ones));  // code 0 or 2
  // Truth tables over (lo, hi, hi): bit 0 is lo = hi = 0, bit 3 lo = 0 and hi = 1, bit 4 lo = 1
  // and hi = 0, bit 7 both set.
  _mm512_storeu_si512(p, _mm512_ternarylogic_epi64(lo, hi, hi, 0x01));  // code 0
  _mm512_storeu_si512(m, _mm512_ternarylogic_epi64(lo, hi, hi, 0x19));  // not code 3
}
constexpr FillAllFn fill_all_avx2 = fill_by_blocks<64, fill_block_avx2>;
constexpr FillAllFn fill_all_avx512 = fill_by_blocks<64, fill_block_avx512>;
constexpr FillAllFn fill_all_gfni = fill_by_blocks<128, fill_block_gfni>;

__attribute__((target("popcnt"))) void count_popcnt(const uint64_t* h, int64_t w, int64_t* hom, int64_t* ref,
                                                    int64_t* n) {
  count_body(h, w, hom, ref, n, [](uint64_t x) { return static_cast<int64_t>(__builtin_popcountll(x)); });
}
// Eight words at a time (planes are whole vectors).
__attribute__((target("avx512f,avx512vpopcntdq"))) void count_avx512(const uint64_t* h, int64_t w, int64_t* hom,
                                                                     int64_t* ref, int64_t* n) {
  __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  for (int64_t t = 0; t < w; t += 8)
    for (int k = 0; k < 3; ++k) acc[k] = _mm512_add_epi64(acc[k], _mm512_popcnt_epi64(_mm512_loadu_si512(h + k * w + t)));
  *hom = sum_lanes(acc[0]), *ref = sum_lanes(acc[1]), *n = sum_lanes(acc[2]);
}
FillAllFn choose_fill_all() {
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
    return __builtin_cpu_supports("gfni") ? fill_all_gfni : fill_all_avx512;
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("avx2") ? fill_all_avx2 : fill_all_generic;
}
CountFn choose_count() {
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    return count_avx512;
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("popcnt") ? count_popcnt : count_generic;
}
#else
FillAllFn choose_fill_all() { return fill_all_generic; }
CountFn choose_count() { return count_generic; }
#endif

void bound_batch_scalar(const int64_t* dot, const GroupStats& a, const GroupStats* const* b, int count, int64_t group,
                        double thresh, uint32_t* above, uint32_t* below) {
  const CallSums ca{a.n, a.sum, a.ssq, a.hom_ref, a.hom_alt};
  *above = *below = 0;
  for (int j = 0; j < count; ++j) {
    const R2Bound r = bound_r2(dot[j], ca, CallSums{b[j]->n, b[j]->sum, b[j]->ssq, b[j]->hom_ref, b[j]->hom_alt},
                               group, thresh);
    *above |= uint32_t{r == R2Bound::kAbove} << j, *below |= uint32_t{r == R2Bound::kBelow} << j;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The least and the greatest square over intervals [lo, hi], lane by lane.
__attribute__((target("avx512f"))) inline __m512d least_square(__m512d lo, __m512d hi) {
  const __m512d zero = _mm512_setzero_pd();
  const __m512d x = _mm512_max_pd(zero, _mm512_max_pd(lo, _mm512_sub_pd(zero, hi)));
  return _mm512_mul_pd(x, x);
}
__attribute__((target("avx512f"))) inline __m512d most_square(__m512d lo, __m512d hi) {
  return _mm512_max_pd(_mm512_mul_pd(lo, lo), _mm512_mul_pd(hi, hi));
}

// One int64 field of the GroupStats each lane of `ptr` points to, as doubles.
__attribute__((target("avx512f,avx512dq"))) inline __m512d stats_field(__m512i ptr, size_t offset) {
  const __m512i at = _mm512_add_epi64(ptr, _mm512_set1_epi64(static_cast<int64_t>(offset)));
  return _mm512_cvtepi64_pd(_mm512_i64gather_epi64(at, static_cast<const void*>(nullptr), 1));
}

// bound_r2 over the batch's lanes at once (the same arithmetic: every interval end exact in
// double, the comparisons with the same margin); lanes past `count` are masked off.
__attribute__((target("avx512f,avx512dq"))) void bound_batch_avx512(const int64_t* dot, const GroupStats& a,
                                                          const GroupStats* const* b, int count, int64_t group,
                                                          double thresh, uint32_t* above, uint32_t* below) {
  *above = *below = 0;
  if (group > (int64_t{1} << 26)) return;  // as bound_r2: the ends would not be exact
  // The b lanes' fields gathered through their pointers (lanes past `count` repeat b[0]):
  // vector loads of values just stored one by one would wait on store forwarding.
  const __mmask8 lanes = static_cast<__mmask8>((1u << count) - 1);
  const __m512i ptr = _mm512_mask_loadu_epi64(_mm512_set1_epi64(reinterpret_cast<int64_t>(b[0])), lanes, b);
  const __m512d zero = _mm512_setzero_pd(), g = _mm512_set1_pd(static_cast<double>(group));
  const __m512d an = _mm512_set1_pd(static_cast<double>(a.n));
  const __m512d D = _mm512_cvtepi64_pd(_mm512_maskz_loadu_epi64(lanes, dot)), Bn = stats_field(ptr, offsetof(GroupStats, n));
  const __m512d n_lo = _mm512_max_pd(zero, _mm512_sub_pd(_mm512_add_pd(an, Bn), g)), n_hi = _mm512_min_pd(an, Bn);
  const __m512d la = _mm512_min_pd(_mm512_sub_pd(g, Bn), an), lb = _mm512_min_pd(_mm512_sub_pd(g, an), Bn);
  const __m512d asum = _mm512_set1_pd(static_cast<double>(a.sum)), Bsum = stats_field(ptr, offsetof(GroupStats, sum));
  const __m512d sa_lo = _mm512_sub_pd(asum, _mm512_min_pd(la, _mm512_set1_pd(static_cast<double>(a.hom_ref))));
  const __m512d sa_hi = _mm512_add_pd(asum, _mm512_min_pd(la, _mm512_set1_pd(static_cast<double>(a.hom_alt))));
  const __m512d sb_lo = _mm512_sub_pd(Bsum, _mm512_min_pd(lb, stats_field(ptr, offsetof(GroupStats, hom_ref))));
  const __m512d sb_hi = _mm512_add_pd(Bsum, _mm512_min_pd(lb, stats_field(ptr, offsetof(GroupStats, hom_alt))));
  const __m512d aq = _mm512_set1_pd(static_cast<double>(a.ssq)), Bq = stats_field(ptr, offsetof(GroupStats, ssq));
  const __m512d qa_lo = _mm512_sub_pd(aq, _mm512_min_pd(la, aq)), qb_lo = _mm512_sub_pd(Bq, _mm512_min_pd(lb, Bq));
  const __m512d p1 = _mm512_mul_pd(sa_lo, sb_lo), p2 = _mm512_mul_pd(sa_lo, sb_hi);
  const __m512d p3 = _mm512_mul_pd(sa_hi, sb_lo), p4 = _mm512_mul_pd(sa_hi, sb_hi);
  const __m512d dl = _mm512_mul_pd(D, n_lo), dh = _mm512_mul_pd(D, n_hi);
  const __m512d cov_lo = _mm512_sub_pd(_mm512_min_pd(dl, dh), _mm512_max_pd(_mm512_max_pd(p1, p2), _mm512_max_pd(p3, p4)));
  const __m512d cov_hi = _mm512_sub_pd(_mm512_max_pd(dl, dh), _mm512_min_pd(_mm512_min_pd(p1, p2), _mm512_min_pd(p3, p4)));
  const __m512d va_lo = _mm512_sub_pd(_mm512_mul_pd(qa_lo, n_lo), most_square(sa_lo, sa_hi));
  const __m512d va_hi = _mm512_sub_pd(_mm512_mul_pd(aq, n_hi), least_square(sa_lo, sa_hi));
  const __m512d vb_lo = _mm512_sub_pd(_mm512_mul_pd(qb_lo, n_lo), most_square(sb_lo, sb_hi));
  const __m512d vb_hi = _mm512_sub_pd(_mm512_mul_pd(Bq, n_hi), least_square(sb_lo, sb_hi));
  const __mmask8 ok = _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(va_lo, zero, _CMP_GT_OQ), vb_lo, zero, _CMP_GT_OQ) & lanes;
  // As bound_r2: thresh · va · vb · (1 ± margin), multiplied in the same order.
  const __m512d t = _mm512_set1_pd(thresh);
  const __m512d lim_hi = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(t, va_hi), vb_hi), _mm512_set1_pd(1 + 1e-9));
  const __m512d lim_lo = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(t, va_lo), vb_lo), _mm512_set1_pd(1 - 1e-9));
  const __mmask8 up = _mm512_mask_cmp_pd_mask(ok, least_square(cov_lo, cov_hi), lim_hi, _CMP_GT_OQ);
  const __mmask8 down = _mm512_mask_cmp_pd_mask(ok & ~up, most_square(cov_lo, cov_hi), lim_lo, _CMP_LT_OQ);
  *above = up, *below = down;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// The same four lanes at a time with AVX2 (lanes j0 .. j0 + 3; those past `count` repeat b[0]
// and are masked off). AVX2 has no int64 → double conversion: lanes are set from scalars.
__attribute__((target("avx2"))) inline __m256d lanes4(const int64_t* v, int j0, int count) {
  auto at = [&](int j) { return static_cast<double>(v[j0 + j < count ? j0 + j : 0]); };
  return _mm256_set_pd(at(3), at(2), at(1), at(0));
}
__attribute__((target("avx2"))) inline __m256d least_square4(__m256d lo, __m256d hi) {
  const __m256d zero = _mm256_setzero_pd();
  const __m256d x = _mm256_max_pd(zero, _mm256_max_pd(lo, _mm256_sub_pd(zero, hi)));
  return _mm256_mul_pd(x, x);
}
__attribute__((target("avx2"))) inline __m256d most_square4(__m256d lo, __m256d hi) {
  return _mm256_max_pd(_mm256_mul_pd(lo, lo), _mm256_mul_pd(hi, hi));
}
__attribute__((target("avx2"))) void bound_batch_avx2(const int64_t* dot, const GroupStats& a, const GroupStats* const* b,
                                                      int count, int64_t group, double thresh, uint32_t* above,
                                                      uint32_t* below) {
  *above = *below = 0;
  if (group > (int64_t{1} << 26)) return;  // as bound_r2: the ends would not be exact
  int64_t bn[kMaxBatch], bsum[kMaxBatch], bssq[kMaxBatch], bref[kMaxBatch], balt[kMaxBatch];
  for (int j = 0; j < count; ++j)
    bn[j] = b[j]->n, bsum[j] = b[j]->sum, bssq[j] = b[j]->ssq, bref[j] = b[j]->hom_ref, balt[j] = b[j]->hom_alt;
  const __m256d zero = _mm256_setzero_pd(), g = _mm256_set1_pd(static_cast<double>(group));
  const __m256d an = _mm256_set1_pd(static_cast<double>(a.n)), asum = _mm256_set1_pd(static_cast<double>(a.sum));
  const __m256d aref = _mm256_set1_pd(static_cast<double>(a.hom_ref)), aalt = _mm256_set1_pd(static_cast<double>(a.hom_alt));
  const __m256d aq = _mm256_set1_pd(static_cast<double>(a.ssq)), t = _mm256_set1_pd(thresh);
  for (int j0 = 0; j0 < count; j0 += 4) {
    const __m256d D = lanes4(dot, j0, count), Bn = lanes4(bn, j0, count), Bsum = lanes4(bsum, j0, count);
    const __m256d Bq = lanes4(bssq, j0, count);
    const __m256d n_lo = _mm256_max_pd(zero, _mm256_sub_pd(_mm256_add_pd(an, Bn), g)), n_hi = _mm256_min_pd(an, Bn);
    const __m256d la = _mm256_min_pd(_mm256_sub_pd(g, Bn), an), lb = _mm256_min_pd(_mm256_sub_pd(g, an), Bn);
    const __m256d sa_lo = _mm256_sub_pd(asum, _mm256_min_pd(la, aref)), sa_hi = _mm256_add_pd(asum, _mm256_min_pd(la, aalt));
    const __m256d sb_lo = _mm256_sub_pd(Bsum, _mm256_min_pd(lb, lanes4(bref, j0, count)));
    const __m256d sb_hi = _mm256_add_pd(Bsum, _mm256_min_pd(lb, lanes4(balt, j0, count)));
    const __m256d qa_lo = _mm256_sub_pd(aq, _mm256_min_pd(la, aq)), qb_lo = _mm256_sub_pd(Bq, _mm256_min_pd(lb, Bq));
    const __m256d p1 = _mm256_mul_pd(sa_lo, sb_lo), p2 = _mm256_mul_pd(sa_lo, sb_hi);
    const __m256d p3 = _mm256_mul_pd(sa_hi, sb_lo), p4 = _mm256_mul_pd(sa_hi, sb_hi);
    const __m256d dl = _mm256_mul_pd(D, n_lo), dh = _mm256_mul_pd(D, n_hi);
    const __m256d cov_lo = _mm256_sub_pd(_mm256_min_pd(dl, dh), _mm256_max_pd(_mm256_max_pd(p1, p2), _mm256_max_pd(p3, p4)));
    const __m256d cov_hi = _mm256_sub_pd(_mm256_max_pd(dl, dh), _mm256_min_pd(_mm256_min_pd(p1, p2), _mm256_min_pd(p3, p4)));
    const __m256d va_lo = _mm256_sub_pd(_mm256_mul_pd(qa_lo, n_lo), most_square4(sa_lo, sa_hi));
    const __m256d va_hi = _mm256_sub_pd(_mm256_mul_pd(aq, n_hi), least_square4(sa_lo, sa_hi));
    const __m256d vb_lo = _mm256_sub_pd(_mm256_mul_pd(qb_lo, n_lo), most_square4(sb_lo, sb_hi));
    const __m256d vb_hi = _mm256_sub_pd(_mm256_mul_pd(Bq, n_hi), least_square4(sb_lo, sb_hi));
    const int lanes = count - j0 >= 4 ? 0xf : (1 << (count - j0)) - 1;
    const int ok = _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(va_lo, zero, _CMP_GT_OQ),
                                                    _mm256_cmp_pd(vb_lo, zero, _CMP_GT_OQ))) & lanes;
    // As bound_r2: thresh · va · vb · (1 ± margin), multiplied in the same order.
    const __m256d lim_hi = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(t, va_hi), vb_hi), _mm256_set1_pd(1 + 1e-9));
    const __m256d lim_lo = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(t, va_lo), vb_lo), _mm256_set1_pd(1 - 1e-9));
    const int up = _mm256_movemask_pd(_mm256_cmp_pd(least_square4(cov_lo, cov_hi), lim_hi, _CMP_GT_OQ)) & ok;
    const int down = _mm256_movemask_pd(_mm256_cmp_pd(most_square4(cov_lo, cov_hi), lim_lo, _CMP_LT_OQ)) & ok & ~up;
    *above |= static_cast<uint32_t>(up) << j0, *below |= static_cast<uint32_t>(down) << j0;
  }
}
#endif

BoundFn choose_bound_fn() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
    return bound_batch_avx512;
  if (pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("avx2")) return bound_batch_avx2;
#endif
  return bound_batch_scalar;
}

}  // namespace

PairManyFn pick_pair_fn() { return choose_pair_fn(); }
BoundFn pick_bound_fn() { return choose_bound_fn(); }
FillAllFn pick_fill_all() { return choose_fill_all(); }
CountFn pick_count() { return choose_count(); }

}  // namespace strata::genomics::detail
