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
constexpr int64_t kBatchVariants = 2048;   // new variants read while the previous ones are swept

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

struct PairParts {
  int64_t n = 0, dot = 0, sa = 0, qa = 0, sb = 0, qb = 0;
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

// The same sums eight words at a time (AVX-512 VPOPCNTDQ), the tail by the scalar loop.
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) PairParts pair_parts_avx512(
    const uint64_t* a, const uint64_t* b, int64_t w, const GroupStats& sa, const GroupStats& sb) {
  const int64_t body = w / 8 * 8;
  if (body == 0) return pair_parts_popcnt(a, b, w, sa, sb);
  const bool complete = sa.complete && sb.complete;
  const uint64_t *ha = a, *pa = a + w, *ma = a + 2 * w, *hb = b, *pb = b + w, *mb = b + 2 * w;
  const __m512i zero = _mm512_setzero_si512();
  __m512i hh = zero, hd = zero, vn = zero, vqa = zero, vra = zero, vqb = zero, vrb = zero;
  for (int64_t t = 0; t < body; t += 8) {
    const __m512i xha = _mm512_loadu_si512(ha + t), xhb = _mm512_loadu_si512(hb + t);
    const __m512i xpa = _mm512_loadu_si512(pa + t), xpb = _mm512_loadu_si512(pb + t);
    const __m512i h = _mm512_and_si512(xha, xhb);
    // h & (pa ^ pb): ternary-logic truth table 0x60 over (h, pa, pb).
    hh = _mm512_add_epi64(hh, _mm512_popcnt_epi64(h));
    hd = _mm512_add_epi64(hd, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(h, xpa, xpb, 0x60)));
    if (complete) continue;
    const __m512i m = _mm512_and_si512(_mm512_loadu_si512(ma + t), _mm512_loadu_si512(mb + t));
    vn = _mm512_add_epi64(vn, _mm512_popcnt_epi64(m));
    vqa = _mm512_add_epi64(vqa, _mm512_popcnt_epi64(_mm512_and_si512(xha, m)));
    vra = _mm512_add_epi64(vra, _mm512_popcnt_epi64(_mm512_and_si512(xpa, m)));
    vqb = _mm512_add_epi64(vqb, _mm512_popcnt_epi64(_mm512_and_si512(xhb, m)));
    vrb = _mm512_add_epi64(vrb, _mm512_popcnt_epi64(_mm512_and_si512(xpb, m)));
  }
  int64_t nh = _mm512_reduce_add_epi64(hh), nd = _mm512_reduce_add_epi64(hd);
  int64_t n = _mm512_reduce_add_epi64(vn), qa = _mm512_reduce_add_epi64(vqa), ra = _mm512_reduce_add_epi64(vra);
  int64_t qb = _mm512_reduce_add_epi64(vqb), rb = _mm512_reduce_add_epi64(vrb);
  for (int64_t t = body; t < w; ++t) {
    const uint64_t h = ha[t] & hb[t];
    nh += __builtin_popcountll(h);
    nd += __builtin_popcountll(h & (pa[t] ^ pb[t]));
    const uint64_t m = ma[t] & mb[t];
    n += __builtin_popcountll(m);
    qa += __builtin_popcountll(ha[t] & m), ra += __builtin_popcountll(pa[t] & m);
    qb += __builtin_popcountll(hb[t] & m), rb += __builtin_popcountll(pb[t] & m);
  }
  PairParts r;
  r.dot = nh - 2 * nd;
  if (complete) {
    r.n = sa.n, r.sa = sa.sum, r.qa = sa.ssq, r.sb = sb.sum, r.qb = sb.ssq;
  } else {
    r.n = n, r.qa = qa, r.sa = 2 * ra - qa, r.qb = qb, r.sb = 2 * rb - qb;
  }
  return r;
}

using PairFn = PairParts (*)(const uint64_t*, const uint64_t*, int64_t, const GroupStats&, const GroupStats&);
// STRATA_CPU caps these choices like every kernel table (levels: 1 = avx2, 3 = avx512): a pinned
// run takes the kernels a CPU of that level takes (the counts are exact either way).
bool pinned_at_least(int level) { return cpu_pin().max_level >= level; }
PairFn pick_pair_fn() {
  if (pinned_at_least(kCpuLevelAvx512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    return pair_parts_avx512;
  if (pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
    return pair_parts_avx2;
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("popcnt") ? pair_parts_popcnt : pair_parts_generic;
}
#else
using PairFn = PairParts (*)(const uint64_t*, const uint64_t*, int64_t, const GroupStats&, const GroupStats&);
PairFn pick_pair_fn() { return pair_parts_generic; }
#endif

// Planes H, P, M of a packed row of every view sample (64 samples a word): `Pack` takes the
// even bits of a word of codes.
template <class Pack>
[[gnu::always_inline]] inline void fill_all_body(const uint8_t* row, int64_t bytes, uint64_t* h, uint64_t* p,
                                                 uint64_t* m, Pack pack) {
  const int64_t words = (bytes + 15) / 16;
  for (int64_t t = 0; t < words; ++t) {
    uint64_t hw = 0, pw = 0, mw = 0;
    for (int half = 0; half < 2; ++half) {
      const int64_t at = 16 * t + 8 * half;
      const uint64_t c = at < bytes ? code_word(row, bytes, at) : ~uint64_t{0};
      const uint64_t lo = c, hi = c >> 1;
      hw |= pack(~lo) << (32 * half);
      pw |= pack(~lo & ~hi) << (32 * half);
      mw |= pack(~(lo & hi)) << (32 * half);
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

using FillAllFn = void (*)(const uint8_t*, int64_t, uint64_t*, uint64_t*, uint64_t*);
using CountFn = void (*)(const uint64_t*, int64_t, int64_t*, int64_t*, int64_t*);

void fill_all_generic(const uint8_t* row, int64_t bytes, uint64_t* h, uint64_t* p, uint64_t* m) {
  fill_all_body(row, bytes, h, p, m, io::compact_even_bits);
}
void count_generic(const uint64_t* h, int64_t w, int64_t* hom, int64_t* ref, int64_t* n) {
  count_body(h, w, hom, ref, n, [](uint64_t x) { return static_cast<int64_t>(std::popcount(x)); });
}

#if defined(__x86_64__) && defined(__GNUC__)
struct PextEven {
  __attribute__((target("bmi2"))) uint64_t operator()(uint64_t x) const { return _pext_u64(x, 0x5555555555555555ull); }
};
__attribute__((target("bmi2"))) void fill_all_bmi2(const uint8_t* row, int64_t bytes, uint64_t* h, uint64_t* p,
                                                   uint64_t* m) {
  fill_all_body(row, bytes, h, p, m, PextEven{});
}
__attribute__((target("popcnt"))) void count_popcnt(const uint64_t* h, int64_t w, int64_t* hom, int64_t* ref,
                                                    int64_t* n) {
  count_body(h, w, hom, ref, n, [](uint64_t x) { return static_cast<int64_t>(__builtin_popcountll(x)); });
}
// pext is microcoded (slow) on Zen 1/2: those take the shifts.
FillAllFn pick_fill_all() {
  const bool fast_pext = __builtin_cpu_is("intel") || __builtin_cpu_supports("avx512f");  // Zen 4, not Zen 1/2
  return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("bmi2") && fast_pext ? fill_all_bmi2 : fill_all_generic;
}
CountFn pick_count() { return pinned_at_least(kCpuLevelAvx2) && __builtin_cpu_supports("popcnt") ? count_popcnt : count_generic; }
#else
FillAllFn pick_fill_all() { return fill_all_generic; }
CountFn pick_count() { return count_generic; }
#endif

// Bit planes and counts of a run of consecutive variants of the stretch, at most `capacity`
// of them, in a ring (variant i in slot i mod capacity: moving on copies nothing).
class PlaneStore {
 public:
  PlaneStore(const PruneGroups& g, int64_t capacity) : groups_(g), cap_(std::max<int64_t>(1, capacity)) {
    for (int k = 0; k < 2; ++k) words_[k] = (static_cast<int64_t>(g.samples[k].size()) + 63) / 64;
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
    std::fill(p, p + stride_, uint64_t{0});
    GroupStats* st = &stats_[2 * slot(i)];
    for (int k = 0; k < 2; ++k) {
      uint64_t* h = p + 3 * (k == 0 ? 0 : words_[0]);
      const int64_t w = words_[k];
      if (k == 0 && all0_) {
        fill_all_(row, row_bytes, h, h + w, h + 2 * w);
      } else {
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

  // Whether r² of variants a < b exceeds `thresh` (plink2's exact comparison).
  bool exceeds(PairFn fn, int64_t a, int64_t b, double thresh) const {
    const uint64_t* pa = plane(a);
    const uint64_t* pb = plane(b);
    const GroupStats* sa = &stats_[2 * slot(a)];
    const GroupStats* sb = &stats_[2 * slot(b)];
    PairParts t = fn(pa, pb, words_[0], sa[0], sb[0]);
    if (words_[1] > 0) {
      const PairParts u = fn(pa + 3 * words_[0], pb + 3 * words_[0], words_[1], sa[1], sb[1]);
      t.n += 2 * u.n, t.dot += 2 * u.dot, t.sa += 2 * u.sa, t.qa += 2 * u.qa, t.sb += 2 * u.sb, t.qb += 2 * u.qb;
    }
    const double cov = static_cast<double>(t.dot * t.n - t.sa * t.sb);
    const double va = static_cast<double>(t.qa * t.n - t.sa * t.sa);
    const double vb = static_cast<double>(t.qb * t.n - t.sb * t.sb);
    return cov * cov > thresh * va * vb;
  }

 private:
  size_t slot(int64_t i) const { return static_cast<size_t>(i % cap_); }
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
      if (s == size) continue;
      while (true) {
        const int64_t b = members[static_cast<size_t>(s)];
        if (exceeds(a, b)) {
          if (maj[static_cast<size_t>(a)] > maj[static_cast<size_t>(b)] * (1 + kSmallEpsilon)) {
            rem[static_cast<size_t>(f)] = 1;
            removed[static_cast<size_t>(a)] = 1;
          } else {
            rem[static_cast<size_t>(s)] = 1;
            removed[static_cast<size_t>(b)] = 1;
            const int64_t next = next_kept(s + 1);
            unchecked[static_cast<size_t>(a)] = next < size ? members[static_cast<size_t>(next)] : end;
          }
          break;
        }
        s = next_kept(s + 1);
        if (s == size) {
          unchecked[static_cast<size_t>(a)] = end;
          break;
        }
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
  const PairFn fn = pick_pair_fn();
  std::vector<int64_t> unchecked(static_cast<size_t>(len), 0);
  std::vector<int64_t> members;
  std::vector<uint8_t> rem;
  const int64_t row_bytes = io::packed_row_bytes(view.num_samples());
  // Batches of whole windows adding at most kBatchVariants new variants (at least one window).
  struct Batch {
    size_t k0, k1;       // windows [k0, k1]
    int64_t nb, ne;      // new variants [nb, ne)
  };
  std::vector<Batch> batches;
  for (size_t k0 = 0, prev_end = 0; k0 < windows.size();) {
    size_t k1 = k0;
    while (k1 + 1 < windows.size() && windows[k1].second - static_cast<int64_t>(prev_end) < kBatchVariants) ++k1;
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
  auto exceeds = [&](int64_t a, int64_t b) { return store.exceeds(fn, a, b, thresh); };
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
