// AVX-512 random kernels. Philox runs on eight blocks per vector, one block per 64-bit lane with
// each 32-bit word in the low half of a lane (vpmuludq gives the full 64-bit product directly;
// the high halves may hold garbage and are masked where a word is consumed), several vectors in
// lockstep. The normals' ziggurat fast path is the scalar reference's one multiplication per
// lane (random_hd.hpp, table gathers); the 2.8 % of lanes it rejects are collected and resolved
// eight at a time with the slow path's operations lane-wise. Results equal the scalar path.
// x86-64 only: elsewhere (aarch64) best_isa() is Portable and random.cpp never names these kernels.
#if defined(__x86_64__)
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 intrinsic headers

#include <bit>
#include <cstring>

#include "core/random_internal.hpp"

#define STRATA_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))

namespace strata::random::detail::avx512 {
namespace {

struct Keys {
  __m512i k0[10], k1[10];
  __m512i c2, c3;
};

STRATA_AVX512 inline void make_keys(uint64_t seed, uint64_t stream, Keys& k) {
  uint32_t a = static_cast<uint32_t>(seed), b = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    k.k0[r] = _mm512_set1_epi64(a);
    k.k1[r] = _mm512_set1_epi64(b);
    a += kPhiloxW0;
    b += kPhiloxW1;
  }
  k.c2 = _mm512_set1_epi64(static_cast<uint32_t>(stream));
  k.c3 = _mm512_set1_epi64(static_cast<uint32_t>(stream >> 32));
}

#define STRATA_UNROLL _Pragma("GCC unroll 16")

// The helpers below work on arrays of independent vectors in lockstep: each step of a multiply
// or Horner chain is issued for every vector before the next step, so the two vector ports see
// G (or N) independent operations instead of one long dependency chain. Per lane the operations
// are those of the scalar reference, in the same order.

/// Philox4x32-10 of G groups of eight 64-bit block indices; w[g] = {x0, y0, x1, y1} of group g.
template <int G>
STRATA_AVX512 inline void philox_lanes(const __m512i* blk, const Keys& k, __m512i (*w)[4]) {
  const __m512i m0 = _mm512_set1_epi64(kPhiloxM0), m1 = _mm512_set1_epi64(kPhiloxM1);
  __m512i c0[G], c1[G], c2[G], c3[G];
  STRATA_UNROLL for (int g = 0; g < G; ++g) {
    c0[g] = blk[g];
    c1[g] = _mm512_srli_epi64(blk[g], 32);
    c2[g] = k.c2;
    c3[g] = k.c3;
  }
  for (int r = 0; r < 10; ++r) {
    STRATA_UNROLL for (int g = 0; g < G; ++g) {
      const __m512i p0 = _mm512_mul_epu32(c0[g], m0), p1 = _mm512_mul_epu32(c2[g], m1);
      c0[g] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[g], k.k0[r], 0x96);
      c2[g] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3[g], k.k1[r], 0x96);
      c1[g] = p1;
      c3[g] = p0;
    }
  }
  STRATA_UNROLL for (int g = 0; g < G; ++g) {
    w[g][0] = c0[g];
    w[g][1] = c1[g];
    w[g][2] = c2[g];
    w[g][3] = c3[g];
  }
}

/// Philox4x32-10 of the eight 64-bit block indices in `blk`.
STRATA_AVX512 inline void philox8(__m512i blk, const Keys& k, __m512i& x0, __m512i& y0, __m512i& x1,
                                  __m512i& y1) {
  __m512i w[1][4];
  philox_lanes<1>(&blk, k, w);
  x0 = w[0][0];
  y0 = w[0][1];
  x1 = w[0][2];
  y1 = w[0][3];
}

STRATA_AVX512 inline __m512i lane_iota() { return _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0); }

/// The ziggurat's fast path on the word in the low half of each lane: zig_value(w), and in
/// `slow` the lanes that zig_fast rejects (their value is resolved later).
STRATA_AVX512 inline __m512d zig_lanes(__m512i w, __mmask8& slow) {
  const __m512i top = _mm512_slli_epi64(w, 32);  // the word in the high half, the garbage gone
  const __m512i v = _mm512_or_si512(_mm512_srli_epi64(top, 39), _mm512_set1_epi64(1));  // 2j + 1
  const __m512d scale = _mm512_i64gather_pd(_mm512_and_si512(w, _mm512_set1_epi64(255)), kZigW, 8);
  const __m512i k = _mm512_i64gather_epi64(_mm512_and_si512(w, _mm512_set1_epi64(127)), kZigK64.k, 8);
  slow = _mm512_cmpge_epu64_mask(_mm512_srli_epi64(top, 40), k);
  return _mm512_mul_pd(_mm512_cvtepu64_pd(v), scale);
}

/// ln_scaled(d, k) lane-wise: getexp/getmant are the scalar code's exponent and mantissa bits of
/// a positive normal double, the table index the top 4 mantissa bits.
STRATA_AVX512 inline __m512d ln_lanes(__m512d d, double k) {
  const __m512d e = _mm512_add_pd(_mm512_getexp_pd(d), _mm512_set1_pd(k));
  const __m512d m = _mm512_getmant_pd(d, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
  const __m512i idx = _mm512_srli_epi64(_mm512_castpd_si512(d), 48);
  const __m512d rc = _mm512_permutex2var_pd(_mm512_loadu_pd(kLogRecip), idx, _mm512_loadu_pd(kLogRecip + 8));
  const __m512d lt = _mm512_permutex2var_pd(_mm512_loadu_pd(kLogTable), idx, _mm512_loadu_pd(kLogTable + 8));
  const __m512d r = _mm512_fmadd_pd(m, rc, _mm512_set1_pd(-1.0));
  __m512d p = _mm512_set1_pd(kLogPoly[8]);
  for (int j = 7; j >= 0; --j) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(kLogPoly[j]));
  return _mm512_fmadd_pd(e, _mm512_set1_pd(kLn2), _mm512_fmadd_pd(p, r, lt));
}

/// ln_word of the word in the low half of each lane: ln((2x + 1) * 2^-33).
STRATA_AVX512 inline __m512d ln_word_lanes(__m512i x) {
  const __m512i v = _mm512_or_si512(_mm512_srli_epi64(_mm512_slli_epi64(x, 32), 31), _mm512_set1_epi64(1));
  return ln_lanes(_mm512_cvtepu64_pd(v), -33.0);
}

/// zig_attempt lane-wise on candidates w with their retry block's words b0, b1: the accepted
/// lanes in `done`, their values in z (other lanes keep theirs).
STRATA_AVX512 inline __m512d zig_attempt_lanes(__m512i w, __m512i b0, __m512i b1, __mmask8 active, __mmask8& done,
                                               __m512d z) {
  const __m512i i = _mm512_and_si512(w, _mm512_set1_epi64(127));
  const __mmask8 tail = _mm512_mask_cmpeq_epi64_mask(active, i, _mm512_setzero_si512());
  const __mmask8 wedge = active & ~tail;
  __mmask8 acc = 0;
  __m512d val = z;
  if (tail) {
    const __m512d x = _mm512_mul_pd(ln_word_lanes(b0), _mm512_set1_pd(kZigNegInvR));
    const __m512d y = _mm512_mul_pd(ln_word_lanes(b1), _mm512_set1_pd(-1.0));
    acc |= _mm512_mask_cmp_pd_mask(tail, _mm512_add_pd(y, y), _mm512_mul_pd(x, x), _CMP_GE_OQ);
    val = _mm512_mask_mov_pd(val, tail, _mm512_add_pd(_mm512_set1_pd(kZigR), x));
  }
  if (wedge) {
    const __m512i v = _mm512_or_si512(_mm512_srli_epi64(_mm512_slli_epi64(w, 32), 39), _mm512_set1_epi64(1));
    const __m512d x = _mm512_mul_pd(_mm512_cvtepu64_pd(v), _mm512_i64gather_pd(i, kZigW, 8));
    const __m512i v0 = _mm512_or_si512(_mm512_srli_epi64(_mm512_slli_epi64(b0, 32), 31), _mm512_set1_epi64(1));
    const __m512d u = _mm512_mul_pd(_mm512_cvtepu64_pd(v0), _mm512_set1_pd(0x1p-33));
    const __m512d y = _mm512_fmadd_pd(u, _mm512_i64gather_pd(i, kZigD, 8), _mm512_i64gather_pd(i, kZigF, 8));
    const __m512d h = _mm512_mul_pd(_mm512_mul_pd(x, x), _mm512_set1_pd(-0.5));
    acc |= _mm512_mask_cmp_pd_mask(wedge, ln_lanes(y, 0.0), h, _CMP_LT_OQ);
    val = _mm512_mask_mov_pd(val, wedge, x);
  }
  const __mmask8 neg = _mm512_test_epi64_mask(w, _mm512_set1_epi64(128));
  val = _mm512_castsi512_pd(_mm512_mask_xor_epi64(_mm512_castpd_si512(val), neg, _mm512_castpd_si512(val),
                                                  _mm512_set1_epi64(INT64_MIN)));
  done = acc;
  return _mm512_mask_mov_pd(z, acc, val);
}

// The elements a kernel call's fast pass left to the slow path (element index, word, output
// position), resolved 32 at a time with zig_attempt's steps lane-wise. All lanes of a batch are
// at the same attempt, so one retry block index each. push() is scalar work on the 2.8 % of
// lanes; the kernels call it between stages, where no vector register is live.
class SlowList {
 public:
  SlowList(const FillParams& p, const Keys& k, double* out) : p_(p), k_(k), out_(out) {}
  ~SlowList() { resolve(); }
  void push(uint64_t e, uint64_t w, int64_t pos) {
    e_[n_] = e;
    w_[n_] = w;
    pos_[n_] = pos;
    if (++n_ == kCap) resolve();
  }
  // kBatches batches of eight lanes in lockstep (their Philox blocks and attempts interleave).
  STRATA_AVX512 void resolve() {
    constexpr int kBatches = 4;
    const __m512i index_bits = _mm512_set1_epi64(static_cast<int64_t>(kZigRetryIndexMask));
    for (int t = 0; t < n_; t += 8 * kBatches) {
      __m512i e[kBatches], w[kBatches];
      __m512d z[kBatches];
      __mmask8 live[kBatches], active[kBatches];
      STRATA_UNROLL for (int j = 0; j < kBatches; ++j) {
        const int left = n_ - (t + 8 * j);
        live[j] = left >= 8 ? __mmask8(0xFF) : left <= 0 ? __mmask8(0) : static_cast<__mmask8>((1u << left) - 1);
        e[j] = _mm512_and_si512(_mm512_maskz_loadu_epi64(live[j], e_ + t + 8 * j), index_bits);
        w[j] = _mm512_maskz_loadu_epi64(live[j], w_ + t + 8 * j);
        z[j] = _mm512_setzero_pd();
        active[j] = live[j];
      }
      for (int64_t a = 1; a < 128; ++a) {
        __mmask8 any = 0;
        STRATA_UNROLL for (int j = 0; j < kBatches; ++j) any |= active[j];
        if (!any) break;
        const __m512i attempt = _mm512_set1_epi64(static_cast<int64_t>(zig_retry_block(0, static_cast<uint32_t>(a))));
        __m512i blk[kBatches], b[kBatches][4];
        STRATA_UNROLL for (int j = 0; j < kBatches; ++j) blk[j] = _mm512_or_si512(e[j], attempt);
        philox_lanes<kBatches>(blk, k_, b);
        STRATA_UNROLL for (int j = 0; j < kBatches; ++j) {
          if (!active[j]) continue;
          __mmask8 done;
          z[j] = zig_attempt_lanes(w[j], b[j][0], b[j][1], active[j], done, z[j]);
          active[j] &= ~done;
          w[j] = _mm512_mask_mov_epi64(w[j], active[j], b[j][2]);
          __mmask8 slow;
          const __m512d fast = zig_lanes(w[j], slow);
          z[j] = _mm512_mask_mov_pd(z[j], active[j] & ~slow, fast);
          active[j] &= slow;
        }
      }
      STRATA_UNROLL for (int j = 0; j < kBatches; ++j) {
        if (!live[j]) continue;
        if (active[j]) {  // 127 rejections in a row: the last candidate, as zig_normal
          __mmask8 unused;
          z[j] = _mm512_mask_mov_pd(z[j], active[j], zig_lanes(w[j], unused));
        }
        const __m512d v = _mm512_fmadd_pd(z[j], _mm512_set1_pd(p_.sd), _mm512_set1_pd(p_.mean));
        _mm512_mask_i64scatter_pd(out_, live[j], _mm512_maskz_loadu_epi64(live[j], pos_ + t + 8 * j), v, 8);
      }
    }
    n_ = 0;
  }

 private:
  static constexpr int kCap = 64;
  const FillParams& p_;
  const Keys& k_;
  double* out_;
  int n_ = 0;
  uint64_t e_[kCap], w_[kCap];
  int64_t pos_[kCap];
};

// One stage's words and the lanes the fast path rejected: bit 8 * v + l of `bits` is lane l of
// the stage's vector v (at most 16 vectors).
struct StageSlow {
  alignas(64) uint64_t w[16][8];
  uint64_t bits[2] = {0, 0};
  STRATA_AVX512 void note(int v, __m512i words, __mmask8 m) {
    _mm512_store_si512(w[v], words);
    bits[v >> 3] |= uint64_t{m} << (8 * (v & 7));
  }
  /// Calls f(v, l, word) for every rejected lane, in order.
  template <class F> void each(F&& f) const {
    for (int h = 0; h < 2; ++h) {
      for (uint64_t b = bits[h]; b; b &= b - 1) {
        const int bit = 64 * h + __builtin_ctzll(b), v = bit >> 3, l = bit & 7;
        f(v, l, w[v][l]);
      }
    }
  }
};

}  // namespace

// Block `lane` of a, b, c, d (its four values: words 0, 1, 2, 3) to out[4*lane .. 4*lane+3]:
// a 4 x 8 transpose.
STRATA_AVX512 inline void store_blocks8(__m512d a, __m512d b, __m512d c, __m512d d, double* dst) {
  const __m512i ia = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
  const __m512i ib = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  const __m512d t0 = _mm512_unpacklo_pd(a, b), t1 = _mm512_unpackhi_pd(a, b);
  const __m512d t2 = _mm512_unpacklo_pd(c, d), t3 = _mm512_unpackhi_pd(c, d);
  const __m512d u0 = _mm512_permutex2var_pd(t0, ia, t2), u1 = _mm512_permutex2var_pd(t1, ia, t3);
  const __m512d u2 = _mm512_permutex2var_pd(t0, ib, t2), u3 = _mm512_permutex2var_pd(t1, ib, t3);
  _mm512_storeu_pd(dst, _mm512_shuffle_f64x2(u0, u1, 0x44));
  _mm512_storeu_pd(dst + 8, _mm512_shuffle_f64x2(u0, u1, 0xEE));
  _mm512_storeu_pd(dst + 16, _mm512_shuffle_f64x2(u2, u3, 0x44));
  _mm512_storeu_pd(dst + 24, _mm512_shuffle_f64x2(u2, u3, 0xEE));
}

namespace {

// The two run shapes the block kernels fill: a contiguous run keeps all four words of a block,
// a step-2 run words kParity and 2 + kParity. Kept word q of block b is element 4b + word(q) and
// goes to out[kKept * b + q]; kGroups Philox groups run in lockstep per stage.
struct ContigRun {
  static constexpr int kKept = 4, kGroups = 4;
  static constexpr int word(int q) { return q; }
  STRATA_AVX512 static void store(const __m512d (&z)[kKept], double* dst) { store_blocks8(z[0], z[1], z[2], z[3], dst); }
};

template <int kParity>
struct Step2Run {
  static constexpr int kKept = 2, kGroups = 8;
  static constexpr int word(int q) { return 2 * q + kParity; }
  STRATA_AVX512 static void store(const __m512d (&z)[kKept], double* dst) {
    _mm512_storeu_pd(dst, _mm512_permutex2var_pd(z[0], _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), z[1]));
    _mm512_storeu_pd(dst + 8, _mm512_permutex2var_pd(z[0], _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), z[1]));
  }
};

// Lanes `live` of one vector of blocks starting at block `first` (of the run): the kept words'
// values to out[kKept * first ...], their words and rejected lanes to the stage's vectors v0 ...
template <class Run>
STRATA_AVX512 inline void run_group(const __m512i (&w)[4], int64_t first, __mmask8 live, __m512d sd, __m512d mean,
                                    double* out, StageSlow& slow, int v0) {
  __mmask8 m[Run::kKept];
  __m512d z[Run::kKept];
  STRATA_UNROLL for (int q = 0; q < Run::kKept; ++q) z[q] = _mm512_fmadd_pd(zig_lanes(w[Run::word(q)], m[q]), sd, mean);
  if (live == 0xFF) {
    Run::store(z, out + Run::kKept * first);
  } else {
    alignas(64) double tail[8 * Run::kKept];
    Run::store(z, tail);
    std::memcpy(out + Run::kKept * first, tail,
                sizeof(double) * Run::kKept * std::popcount(static_cast<unsigned>(live)));
  }
  STRATA_UNROLL for (int q = 0; q < Run::kKept; ++q) slow.note(v0 + q, w[Run::word(q)], m[q] & live);
}

// Vector v = kKept * g + q of a stage at block i: lane l is block b0 + i + 8g + l.
template <class Run>
void push_stage(const StageSlow& st, uint64_t b0, int64_t i, SlowList& slow) {
  st.each([&](int v, int l, uint64_t w) {
    const int64_t blk = i + 8 * (v / Run::kKept) + l, q = v % Run::kKept;
    slow.push(4 * (b0 + static_cast<uint64_t>(blk)) + static_cast<uint64_t>(Run::word(static_cast<int>(q))), w,
              Run::kKept * blk + q);
  });
}

STRATA_AVX512 inline __m512i blocks8(uint64_t b) {
  return _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b)), lane_iota());
}

// Blocks b0 .. b0 + nb - 1 of a run: stages of kGroups groups' Philox words in lockstep, then
// the kept words' fast path; the rejected lanes go to the slow list between stages.
template <class Run>
STRATA_AVX512 void normal_run(const FillParams& p, uint64_t b0, int64_t nb, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m512d sd = _mm512_set1_pd(p.sd), mean = _mm512_set1_pd(p.mean);
  SlowList slow(p, k, out);
  constexpr int kGroups = Run::kGroups;
  int64_t i = 0;
  for (; i + 8 * kGroups <= nb; i += 8 * kGroups) {
    __m512i w[kGroups][4], blk[kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g) blk[g] = blocks8(b0 + i + 8 * g);
    philox_lanes<kGroups>(blk, k, w);
    StageSlow st;
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g)
      run_group<Run>(w[g], i + 8 * g, 0xFF, sd, mean, out, st, Run::kKept * g);
    push_stage<Run>(st, b0, i, slow);
  }
  for (; i < nb; i += 8) {
    __m512i w[1][4];
    const __m512i blk = blocks8(b0 + i);
    philox_lanes<1>(&blk, k, w);
    const __mmask8 live = nb - i >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (nb - i)) - 1);
    StageSlow st;
    run_group<Run>(w[0], i, live, sd, mean, out, st, 0);
    push_stage<Run>(st, b0, i, slow);
  }
}

}  // namespace

STRATA_AVX512 void normal_contig(const FillParams& p, uint64_t b0, int64_t nb, double* out) {
  normal_run<ContigRun>(p, b0, nb, out);
}

STRATA_AVX512 void normal_step2(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out) {
  if (parity) {
    normal_run<Step2Run<1>>(p, b0, nb, out);
  } else {
    normal_run<Step2Run<0>>(p, b0, nb, out);
  }
}

STRATA_AVX512 void normal_strided(const FillParams& p, uint64_t e0, int64_t step, int64_t n, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m512d sd = _mm512_set1_pd(p.sd), mean = _mm512_set1_pd(p.mean);
  const __m512i lane_step = _mm512_mullo_epi64(lane_iota(), _mm512_set1_epi64(step));
  const __m512i one = _mm512_set1_epi64(1), two = _mm512_set1_epi64(2);
  SlowList slow(p, k, out);
  for (int64_t i = 0; i < n; i += 8) {
    const int64_t first = static_cast<int64_t>(e0) + i * step;
    const __m512i e = _mm512_add_epi64(_mm512_set1_epi64(first), lane_step);
    __m512i x0, y0, x1, y1;
    philox8(_mm512_srli_epi64(e, 2), k, x0, y0, x1, y1);
    const __mmask8 second = _mm512_test_epi64_mask(e, two), odd = _mm512_test_epi64_mask(e, one);
    const __m512i w = _mm512_mask_blend_epi64(odd, _mm512_mask_blend_epi64(second, x0, x1),
                                              _mm512_mask_blend_epi64(second, y0, y1));
    __mmask8 m;
    const __m512d z = _mm512_fmadd_pd(zig_lanes(w, m), sd, mean);
    const __mmask8 live = n - i >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (n - i)) - 1);
    _mm512_mask_storeu_pd(out + i, live, z);
    if (m & live) {
      alignas(64) uint64_t ws[8];
      _mm512_store_si512(ws, w);
      for (unsigned b = m & live; b; b &= b - 1) {
        const int l = __builtin_ctz(b);
        slow.push(static_cast<uint64_t>(first + l * step), ws[l], i + l);
      }
    }
  }
}

STRATA_AVX512 void philox_words(uint64_t seed, uint64_t stream, uint64_t b0, int64_t nb, uint32_t* out) {
  Keys k;
  make_keys(seed, stream, k);
  const __m512i m32 = _mm512_set1_epi64(0xFFFFFFFFll);
  const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  alignas(64) uint32_t tail[32];
  for (int64_t i = 0; i < nb; i += 8) {
    __m512i x0, y0, x1, y1;
    philox8(_mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i)), lane_iota()), k, x0, y0, x1, y1);
    // (x & 0xffffffff) | (y << 32): words 0,1 (and 2,3) of each block as one 64-bit lane.
    const __m512i w01 = _mm512_ternarylogic_epi64(x0, _mm512_slli_epi64(y0, 32), m32, 0xEC);
    const __m512i w23 = _mm512_ternarylogic_epi64(x1, _mm512_slli_epi64(y1, 32), m32, 0xEC);
    uint32_t* dst = nb - i >= 8 ? out + 4 * i : tail;
    _mm512_storeu_si512(dst, _mm512_permutex2var_epi64(w01, lo, w23));
    _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi64(w01, hi, w23));
    if (dst == tail) std::memcpy(out + 4 * i, tail, sizeof(uint32_t) * 4 * (nb - i));
  }
}

const VectorKernels kKernels = {normal_contig, normal_step2, normal_strided, philox_words};

}  // namespace strata::random::detail::avx512

#endif  // defined(__x86_64__)
