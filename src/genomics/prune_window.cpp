// One stretch of ld_prune: founders' calls as bit planes (read in parallel, a batch of windows
// ahead) and plink2's serial window sweep, which computes a pair's r² only when it asks for it.
#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "genomics/prune_internal.hpp"
#include "strata/core/cpu_pin.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/genotype_decode.hpp"

namespace strata::genomics::detail {
namespace {

constexpr double kSmallEpsilon = 0x1p-44;  // plink2's tolerance on frequencies and the threshold
constexpr int64_t kBatchVariants = 256;  // new variants read while the previous ones are swept
constexpr int64_t kInlineBatchVariants = 128;  // read in turn with the sweep: planes stay in cache

// Calls of one variant over one group: planes H (homozygous), P (hom REF), M (called).
struct GroupStats {
  int64_t n = 0, sum = 0, ssq = 0, hom_ref = 0, hom_alt = 0;  // sum of +1/0/−1 codes, of squares
  bool complete = false;
};

// 32 packed codes starting at byte `at` of a row of `bytes` (missing past the end).
inline uint64_t code_word(const uint8_t* row, int64_t bytes, int64_t at) {
  uint64_t w = ~uint64_t{0};
  std::memcpy(&w, row + at, static_cast<size_t>(std::min<int64_t>(8, bytes - at)));
  return w;
}

// Every kernel sets every field (no initializers: the sweep's arrays of them stay cheap).
struct PairParts {
  int64_t n, dot, sa, qa, sb, qb;
};

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

// The sums of `a` against each of `b[0, count)`, count <= kMaxBatch: the sweep asks for the
// next few kept variants of a scan at once (a hit among them ends the scan; the pairs after it
// are wasted, and hits are rare), so `a` is loaded once for all of them.
constexpr int kMaxBatch = 4;
using PairFn = PairParts (*)(const uint64_t*, const uint64_t*, int64_t, const GroupStats&, const GroupStats&);
using PairManyFn = void (*)(const uint64_t* a, const uint64_t* const* b, int count, int64_t w, const GroupStats& sa,
                            const GroupStats* const* sb, PairParts* out);

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
PairManyFn pick_pair_fn() {
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    return pair_many_avx512;
  if (pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
    return pair_many_by_one<pair_parts_avx2>;
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("popcnt") ? pair_many_by_one<pair_parts_popcnt>
                                                                             : pair_many_by_one<pair_parts_generic>;
}
#else
PairManyFn pick_pair_fn() { return pair_many_by_one<pair_parts_generic>; }
#endif

// Planes H, P, M of a packed row of every view sample, `words` words each (zero past the
// samples). The portable fill keeps sample order (64 samples a word); the SIMD fills take 64
// bytes (256 samples) at a time and put pair k of byte j of block i at bit j of word 4i + k.
// Every variant of a group is filled by the same function, and the pair sums do not depend on
// the order of the samples, so the counts are the same at every CPU level.
using FillAllFn = void (*)(const uint8_t*, int64_t, int64_t, uint64_t*, uint64_t*, uint64_t*);
using CountFn = void (*)(const uint64_t*, int64_t, int64_t*, int64_t*, int64_t*);

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
// The 64-byte blocks of a row (the last one padded with missing codes) by `Block`, the words
// past them zeroed.
template <void (*Block)(const uint8_t*, uint64_t*, uint64_t*, uint64_t*)>
void fill_by_blocks(const uint8_t* row, int64_t bytes, int64_t words, uint64_t* h, uint64_t* p, uint64_t* m) {
  int64_t i = 0;
  for (; 64 * i + 64 <= bytes; ++i) Block(row + 64 * i, h + 4 * i, p + 4 * i, m + 4 * i);
  if (64 * i < bytes) {
    alignas(64) uint8_t tail[64];
    std::memset(tail, 0xff, sizeof tail);
    std::memcpy(tail, row + 64 * i, static_cast<size_t>(bytes - 64 * i));
    Block(tail, h + 4 * i, p + 4 * i, m + 4 * i);
    ++i;
  }
  for (int64_t t = 4 * i; t < words; ++t) h[t] = p[t] = m[t] = 0;
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
constexpr FillAllFn fill_all_avx2 = fill_by_blocks<fill_block_avx2>;
constexpr FillAllFn fill_all_avx512 = fill_by_blocks<fill_block_avx512>;

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
FillAllFn pick_fill_all() {
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
    return fill_all_avx512;
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("avx2") ? fill_all_avx2 : fill_all_generic;
}
CountFn pick_count() {
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    return count_avx512;
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("popcnt") ? count_popcnt : count_generic;
}
#else
FillAllFn pick_fill_all() { return fill_all_generic; }
CountFn pick_count() { return count_generic; }
#endif

// Words of a group's plane: whole 512-bit vectors (the pair kernels need no tail) that also
// hold the SIMD fills' 64-byte blocks.
int64_t plane_words(int64_t samples) { return (samples + 511) / 512 * 8; }

// Bit planes and counts of a run of consecutive variants of the stretch, at most `capacity`
// of them, in a ring (variant i in slot i mod capacity: moving on copies nothing).
class PlaneStore {
 public:
  // The ring's size is a power of two, so a slot is a mask.
  PlaneStore(const PruneGroups& g, int64_t capacity)
      : groups_(g), cap_(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(1, capacity))))) {
    for (int k = 0; k < 2; ++k) words_[k] = plane_words(static_cast<int64_t>(g.samples[k].size()));
    stride_ = 3 * (words_[0] + words_[1]);
    all0_ = !g.het_missing && static_cast<int64_t>(g.samples[0].size()) == g.num_view_samples;
    planes_.resize(static_cast<size_t>(cap_ * stride_));
    stats_.resize(static_cast<size_t>(2 * cap_));
    mono_.resize(static_cast<size_t>(cap_));
  }
  bool mono(int64_t i) const { return mono_[slot(i)] != 0; }
  // plink2's major-allele frequency from group 0's counts (a diploid group of every founder).
  double diploid_major_freq(int64_t i) const {
    const GroupStats& g = stats_[2 * slot(i)];
    if (g.n == 0) return 1.0;
    const double ref = static_cast<double>(2 * g.hom_ref + (g.n - g.hom_ref - g.hom_alt)) / static_cast<double>(2 * g.n);
    return ref >= 0.5 ? ref : 1.0 - ref;
  }

  // Keep variants [from, end()) and make room for `add` more after them (the caller sizes
  // the ring for the most it keeps at once).
  void shift(int64_t from, int64_t add) {
    base_ = std::clamp(from, base_, end_);
    end_ += add;
  }

  // Fill variant i (made room for) from its packed row of every view sample.
  void fill(int64_t i, const uint8_t* row, int64_t row_bytes) {
    uint64_t* p = plane(i);
    GroupStats* st = &stats_[2 * slot(i)];
    for (int k = 0; k < 2; ++k) {
      uint64_t* h = p + 3 * (k == 0 ? 0 : words_[0]);
      const int64_t w = words_[k];
      if (k == 0 && all0_) {
        fill_all_(row, row_bytes, w, h, h + w, h + 2 * w);
      } else {
        std::fill(h, h + 3 * w, uint64_t{0});
        const std::vector<int64_t>& s = groups_.samples[k];
        const bool het_missing = k == 0 && groups_.het_missing;
        for (size_t j = 0; j < s.size(); ++j) {
          uint8_t c = io::code_at(row, s[j]);
          if (het_missing && c == io::kCodeHet) c = io::kCodeMissing;
          const uint64_t bit = uint64_t{1} << (j & 63);
          if (c == io::kCodeHomRef || c == io::kCodeHomAlt) h[j >> 6] |= bit;
          if (c == io::kCodeHomRef) h[w + static_cast<int64_t>(j >> 6)] |= bit;
          if (c != io::kCodeMissing) h[2 * w + static_cast<int64_t>(j >> 6)] |= bit;
        }
      }
      GroupStats& g = st[k];
      int64_t hom = 0, ref = 0, n = 0;
      count_planes_(h, w, &hom, &ref, &n);
      g.n = n, g.ssq = hom, g.hom_ref = ref, g.hom_alt = hom - ref, g.sum = 2 * ref - hom;
      g.complete = n == static_cast<int64_t>(groups_.samples[k].size());
    }
    // No variance in the weighted calls: plink2 removes the variant as it enters its window.
    const int64_t nm = st[0].n + 2 * st[1].n;
    const int64_t plus = st[0].hom_ref + 2 * st[1].hom_ref, minus = st[0].hom_alt + 2 * st[1].hom_alt;
    mono_[slot(i)] = (plus == 0 && minus == 0) || plus == nm || minus == nm;
  }

  // Bit j set when r² of variants a < b[j] exceeds `thresh` (plink2's exact comparison),
  // count <= kMaxBatch.
  uint32_t exceeds(PairManyFn fn, int64_t a, const int64_t* b, int count, double thresh) const {
    PairParts t[kMaxBatch], u[kMaxBatch];
    const uint64_t* pb[kMaxBatch];
    const GroupStats* sb[kMaxBatch];
    for (int j = 0; j < count; ++j) pb[j] = plane(b[j]), sb[j] = &stats_[2 * slot(b[j])];
    const uint64_t* pa = plane(a);
    const GroupStats* sa = &stats_[2 * slot(a)];
    fn(pa, pb, count, words_[0], sa[0], sb, t);
    if (words_[1] > 0) {
      for (int j = 0; j < count; ++j) pb[j] += 3 * words_[0], sb[j] += 1;
      fn(pa + 3 * words_[0], pb, count, words_[1], sa[1], sb, u);
      for (int j = 0; j < count; ++j) {
        t[j].n += 2 * u[j].n, t[j].dot += 2 * u[j].dot, t[j].sa += 2 * u[j].sa, t[j].qa += 2 * u[j].qa;
        t[j].sb += 2 * u[j].sb, t[j].qb += 2 * u[j].qb;
      }
    }
    uint32_t mask = 0;
    for (int j = 0; j < count; ++j) {
      const double cov = static_cast<double>(t[j].dot * t[j].n - t[j].sa * t[j].sb);
      const double va = static_cast<double>(t[j].qa * t[j].n - t[j].sa * t[j].sa);
      const double vb = static_cast<double>(t[j].qb * t[j].n - t[j].sb * t[j].sb);
      if (cov * cov > thresh * va * vb) mask |= uint32_t{1} << j;
    }
    return mask;
  }

 private:
  size_t slot(int64_t i) const { return static_cast<size_t>(i & (cap_ - 1)); }
  uint64_t* plane(int64_t i) { return planes_.data() + static_cast<int64_t>(slot(i)) * stride_; }
  const uint64_t* plane(int64_t i) const { return planes_.data() + static_cast<int64_t>(slot(i)) * stride_; }

  const PruneGroups& groups_;
  int64_t cap_ = 1;
  FillAllFn fill_all_ = pick_fill_all();
  CountFn count_planes_ = pick_count();
  int64_t words_[2] = {0, 0};
  int64_t stride_ = 0;
  bool all0_ = false;
  int64_t base_ = 0, end_ = 0;
  std::vector<uint64_t> planes_;
  std::vector<GroupStats> stats_;
  std::vector<uint8_t> mono_;
};

// plink2's sweep of one window at its end (`end`): every kept variant against the later kept
// ones it has not met, until a sweep removes nothing.
template <class Exceeds>
void sweep_window(const std::vector<int64_t>& members, std::vector<uint8_t>& rem, std::vector<int64_t>& unchecked,
                  const std::vector<double>& maj, int64_t end, std::vector<uint8_t>& removed, Exceeds exceeds) {
  const auto size = static_cast<int64_t>(members.size());
  auto next_kept = [&](int64_t s) {
    while (s < size && rem[static_cast<size_t>(s)]) ++s;
    return s;
  };
  int64_t removed_ct = std::count(rem.begin(), rem.end(), uint8_t{1});
  int64_t prev_ct = 0;
  do {
    prev_ct = removed_ct;
    for (int64_t f = next_kept(0); f < size; f = next_kept(f + 1)) {
      const int64_t a = members[static_cast<size_t>(f)];
      int64_t s = next_kept(f + 1);
      while (s < size && members[static_cast<size_t>(s)] < unchecked[static_cast<size_t>(a)]) s = next_kept(s + 1);
      // The scan meets the kept variants from s on until a hit: up to kMaxBatch of them are
      // asked for at once (nothing changes before the first hit).
      while (s < size) {
        int64_t at[kMaxBatch], b[kMaxBatch];
        int count = 0;
        for (int64_t t = s; t < size && count < kMaxBatch; t = next_kept(t + 1)) {
          at[count] = t, b[count] = members[static_cast<size_t>(t)];
          ++count;
        }
        const uint32_t hits = exceeds(a, b, count);
        if (hits == 0) {
          s = next_kept(at[count - 1] + 1);
          if (s == size) unchecked[static_cast<size_t>(a)] = end;
          continue;
        }
        const int j = std::countr_zero(hits);
        s = at[j];
        if (maj[static_cast<size_t>(a)] > maj[static_cast<size_t>(b[j])] * (1 + kSmallEpsilon)) {
          rem[static_cast<size_t>(f)] = 1;
          removed[static_cast<size_t>(a)] = 1;
        } else {
          rem[static_cast<size_t>(s)] = 1;
          removed[static_cast<size_t>(b[j])] = 1;
          const int64_t next = next_kept(s + 1);
          unchecked[static_cast<size_t>(a)] = next < size ? members[static_cast<size_t>(next)] : end;
        }
        break;
      }
    }
    removed_ct = std::count(rem.begin(), rem.end(), uint8_t{1});
  } while (removed_ct > prev_ct);
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> prune_windows(const std::vector<int64_t>& pos, int64_t len,
                                                       const PruneWindow& w) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (len <= 0) return out;
  if (!w.in_bp) {
    int64_t s = 0, e = std::min(len, w.size);
    out.emplace_back(s, e);
    while (e < len) {
      s += w.step;
      e = std::min(s + w.size, len);
      out.emplace_back(s, e);
    }
    return out;
  }
  int64_t s = 0, e = 1;
  while (e < len && pos[static_cast<size_t>(e)] <= pos[0] + w.size) ++e;
  out.emplace_back(s, e);
  while (e < len) {
    const int64_t min_bp = pos[static_cast<size_t>(e)] - w.size;
    do ++s;
    while (pos[static_cast<size_t>(s)] < min_bp);
    const int64_t thresh = pos[static_cast<size_t>(s)] + w.size;
    do ++e;
    while (e < len && pos[static_cast<size_t>(e)] <= thresh);
    out.emplace_back(s, e);
  }
  return out;
}

std::vector<std::pair<int64_t, int64_t>> prune_stretches(const std::vector<int64_t>& pos, int64_t len,
                                                         const PruneWindow& w) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (len < 2) return out;
  if (!w.in_bp) return {{0, len}};
  int64_t first = 0, prev = pos[0];
  for (int64_t i = 1; i < len; ++i) {
    const int64_t p = pos[static_cast<size_t>(i)];
    if (p >= w.size && p - w.size > prev) {
      if (i > first + 1) out.emplace_back(first, i - first);
      first = i;
    }
    prev = p;
  }
  if (len > first + 1) out.emplace_back(first, len - first);
  return out;
}

Status prune_stretch(const Context& ctx, const io::GenotypeView& view, int64_t first, int64_t len,
                     const std::vector<int64_t>& positions, const std::vector<double>& maj_freq,
                     const PruneGroups& groups, const PruneWindow& window, std::vector<uint8_t>& removed) {
  std::vector<double> own_maj;  // filled as the planes are, when maj_freq is empty
  if (maj_freq.empty()) own_maj.assign(static_cast<size_t>(len), 0.0);
  const std::vector<double>& maj = maj_freq.empty() ? own_maj : maj_freq;
  const auto windows = prune_windows(positions, len, window);
  const double thresh = window.r2 * (1 + kSmallEpsilon);
  const PairManyFn fn = pick_pair_fn();
  std::vector<int64_t> unchecked(static_cast<size_t>(len), 0);
  std::vector<int64_t> members;
  std::vector<uint8_t> rem;
  const int64_t row_bytes = io::packed_row_bytes(view.num_samples());
  // Batches of whole windows adding at most `batch_variants` new variants (at least one window):
  // many while other threads read ahead, few when this thread reads and sweeps in turn.
  const bool inline_reads = ctx.pool().size() <= 1 || ctx.pool().in_worker();
  const int64_t batch_variants = inline_reads ? kInlineBatchVariants : kBatchVariants;
  struct Batch {
    size_t k0, k1;       // windows [k0, k1]
    int64_t nb, ne;      // new variants [nb, ne)
  };
  std::vector<Batch> batches;
  for (size_t k0 = 0, prev_end = 0; k0 < windows.size();) {
    size_t k1 = k0;
    while (k1 + 1 < windows.size() && windows[k1].second - static_cast<int64_t>(prev_end) < batch_variants) ++k1;
    batches.push_back({k0, k1, static_cast<int64_t>(prev_end), windows[k1].second});
    prev_end = static_cast<size_t>(windows[k1].second);
    k0 = k1 + 1;
  }
  // The ring holds what batch b's windows reach back to and batch b + 1's new variants.
  int64_t capacity = batches.empty() ? 1 : batches[0].ne, most_new = capacity;
  for (size_t b = 0; b + 1 < batches.size(); ++b) {
    capacity = std::max(capacity, batches[b + 1].ne - windows[batches[b].k0].first);
    most_new = std::max(most_new, batches[b + 1].ne - batches[b + 1].nb);
  }
  PlaneStore store(groups, capacity);
  // Planes of batch b's new variants, in chunks that read their own rows (views are
  // thread-safe) into one buffer kept across batches.
  constexpr int64_t kFillChunk = 256;
  std::vector<uint8_t> codes(static_cast<size_t>(most_new * row_bytes));
  auto fill_chunks = [&](size_t b) { return (batches[b].ne - batches[b].nb + kFillChunk - 1) / kFillChunk; };
  auto fill_chunk = [&](size_t b, int64_t c) -> Status {
    const int64_t v0 = batches[b].nb + c * kFillChunk, v1 = std::min(batches[b].ne, v0 + kFillChunk);
    uint8_t* rows = codes.data() + (v0 - batches[b].nb) * row_bytes;
    STRATA_RETURN_NOT_OK(view.read_codes(first + v0, v1 - v0, 0, view.num_samples(), rows, row_bytes));
    for (int64_t v = v0; v < v1; ++v) {
      store.fill(v, rows + (v - v0) * row_bytes, row_bytes);
      if (!own_maj.empty()) own_maj[static_cast<size_t>(v)] = store.diploid_major_freq(v);
    }
    return Status::OK();
  };
  // The serial sweep of batch b's windows; each pair's r² is computed when the sweep asks
  // for it, so pairs with a variant already removed cost nothing.
  int64_t prev_end = 0;
  auto exceeds = [&](int64_t a, const int64_t* b, int count) { return store.exceeds(fn, a, b, count, thresh); };
  auto sweep = [&](size_t b) {
    for (size_t k = batches[b].k0; k <= batches[b].k1; ++k) {
      const auto [start, end] = windows[k];
      if (k > 0) {  // the previous window's kept variants still in this one
        size_t out = 0;
        for (size_t j = 0; j < members.size(); ++j)
          if (!rem[j] && members[j] >= start) members[out++] = members[j];
        members.resize(out);
        rem.assign(out, 0);
      }
      for (int64_t i = prev_end; i < end; ++i) {
        const bool mono = store.mono(i);
        members.push_back(i);
        rem.push_back(mono ? 1 : 0);
        if (mono) removed[static_cast<size_t>(i)] = 1;
        unchecked[static_cast<size_t>(i)] = i + 1;
      }
      sweep_window(members, rem, unchecked, maj, end, removed, exceeds);
      prev_end = end;
    }
  };
  // Batch b is swept while batch b + 1 is read, on the pool's other threads; the sweep alone
  // decides, so the result does not depend on the thread count.
  if (batches.empty()) return Status::OK();
  store.shift(0, batches[0].ne);
  STRATA_RETURN_NOT_OK(parallel_for(&ctx.pool(), fill_chunks(0), [&](int64_t c) { return fill_chunk(0, c); }));
  for (size_t b = 0; b < batches.size(); ++b) {
    const bool more = b + 1 < batches.size();
    // Keep what batch b's windows reach back to; make room for batch b + 1.
    store.shift(windows[batches[b].k0].first, more ? batches[b + 1].ne - batches[b + 1].nb : 0);
    const int64_t chunks = more ? fill_chunks(b + 1) : 0;
    STRATA_RETURN_NOT_OK(parallel_for(&ctx.pool(), 1 + chunks, [&](int64_t t) -> Status {
      if (t == 0) {
        sweep(b);
        return Status::OK();
      }
      return fill_chunk(b + 1, t - 1);
    }));
  }
  return Status::OK();
}

}  // namespace strata::genomics::detail
