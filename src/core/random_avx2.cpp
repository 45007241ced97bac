// AVX2 + FMA random kernels, for CPUs without AVX-512. The layout is random_avx512.cpp's: one
// Philox block per 64-bit lane (four per vector), each 32-bit word in the low half of a lane.
// The normals' ziggurat fast path is random_hd.hpp's one multiplication per lane (2j + 1 goes to
// double exactly through the 2^52 magic constant, the tables are gathered); the 2.8 % of lanes
// it rejects are resolved with the slow path's operations lane-wise (the table log with the
// exponent and mantissa cut from the bits). So the bits equal the portable and AVX-512 paths.
// x86-64 only: elsewhere (aarch64) best_isa() is Portable and random.cpp never names these kernels.
#if defined(__x86_64__)
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 intrinsic headers

#include <cstring>

#include "core/random_internal.hpp"

#define STRATA_AVX2 __attribute__((target("avx2,fma")))
#define STRATA_UNROLL _Pragma("GCC unroll 8")

namespace strata::random::detail::avx2 {
namespace {

constexpr int64_t kMagic = 0x4330000000000000;  // the bits of 2^52
constexpr double kTwo52 = 0x1p52;

struct Keys {
  __m256i k0[10], k1[10];
  __m256i c2, c3;
};

STRATA_AVX2 inline void make_keys(uint64_t seed, uint64_t stream, Keys& k) {
  uint32_t a = static_cast<uint32_t>(seed), b = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    k.k0[r] = _mm256_set1_epi64x(a);
    k.k1[r] = _mm256_set1_epi64x(b);
    a += kPhiloxW0;
    b += kPhiloxW1;
  }
  k.c2 = _mm256_set1_epi64x(static_cast<uint32_t>(stream));
  k.c3 = _mm256_set1_epi64x(static_cast<uint32_t>(stream >> 32));
}

/// Philox4x32-10 of G groups of four 64-bit block indices in lockstep; w[g] = {x0, y0, x1, y1}.
template <int G>
STRATA_AVX2 inline void philox_lanes(const __m256i* blk, const Keys& k, __m256i (*w)[4]) {
  const __m256i m0 = _mm256_set1_epi64x(kPhiloxM0), m1 = _mm256_set1_epi64x(kPhiloxM1);
  __m256i c0[G], c1[G], c2[G], c3[G];
  STRATA_UNROLL for (int g = 0; g < G; ++g) {
    c0[g] = blk[g];
    c1[g] = _mm256_srli_epi64(blk[g], 32);
    c2[g] = k.c2;
    c3[g] = k.c3;
  }
  for (int r = 0; r < 10; ++r) {
    STRATA_UNROLL for (int g = 0; g < G; ++g) {
      const __m256i p0 = _mm256_mul_epu32(c0[g], m0), p1 = _mm256_mul_epu32(c2[g], m1);
      c0[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1[g]), k.k0[r]);
      c2[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3[g]), k.k1[r]);
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

/// A non-negative integer below 2^52 held in a 64-bit lane, as the exact double.
STRATA_AVX2 inline __m256d small_u64_to_pd(__m256i v) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, _mm256_set1_epi64x(kMagic))), _mm256_set1_pd(kTwo52));
}

/// The ziggurat's fast path on the word in the low half of each lane: zig_value(w), and in the
/// low 4 bits of `slow` the lanes that zig_fast rejects (resolved later).
STRATA_AVX2 inline __m256d zig_lanes(__m256i w, int& slow) {
  const __m256i top = _mm256_slli_epi64(w, 32);  // the word in the high half, the garbage gone
  const __m256i v = _mm256_or_si256(_mm256_srli_epi64(top, 39), _mm256_set1_epi64x(1));  // 2j + 1 < 2^25
  const __m256d scale = _mm256_i64gather_pd(kZigW, _mm256_and_si256(w, _mm256_set1_epi64x(255)), 8);
  const __m256i k = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(kZigK64.k),
                                           _mm256_and_si256(w, _mm256_set1_epi64x(127)), 8);
  // j and K[i] are below 2^24, so the signed compare is the unsigned one.
  slow = ~_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(k, _mm256_srli_epi64(top, 40)))) & 0xF;
  return _mm256_mul_pd(small_u64_to_pd(v), scale);
}

/// ln_scaled(d, k) lane-wise for positive normal doubles d: the exponent through the magic
/// constant (exact small integers), the mantissa and table index cut from the bits, the two log
/// tables gathered.
STRATA_AVX2 inline __m256d ln_lanes(__m256d d, double k) {
  const __m256i bits = _mm256_castpd_si256(d);
  const __m256d e = _mm256_sub_pd(small_u64_to_pd(_mm256_srli_epi64(bits, 52)), _mm256_set1_pd(1023.0 - k));
  const __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFF)),
                                                        _mm256_set1_epi64x(0x3FF0000000000000)));
  const __m256i idx = _mm256_and_si256(_mm256_srli_epi64(bits, 48), _mm256_set1_epi64x(15));
  const __m256d r = _mm256_fmadd_pd(m, _mm256_i64gather_pd(kLogRecip, idx, 8), _mm256_set1_pd(-1.0));
  __m256d p = _mm256_set1_pd(kLogPoly[8]);
  for (int j = 7; j >= 0; --j) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kLogPoly[j]));
  return _mm256_fmadd_pd(e, _mm256_set1_pd(kLn2), _mm256_fmadd_pd(p, r, _mm256_i64gather_pd(kLogTable, idx, 8)));
}

/// (2x + 1) for the word x in the low half of each lane, as an exact double (< 2^33).
STRATA_AVX2 inline __m256d odd_of_word(__m256i x) {
  return small_u64_to_pd(_mm256_or_si256(_mm256_srli_epi64(_mm256_slli_epi64(x, 32), 31), _mm256_set1_epi64x(1)));
}

/// zig_attempt lane-wise on candidates w (lanes `active`, all ones) with their retry block's
/// words b0, b1: z takes the accepted lanes' values; returns the accepted lanes.
STRATA_AVX2 inline __m256i zig_attempt_lanes(__m256i w, __m256i b0, __m256i b1, __m256i active, __m256d& z) {
  const __m256i i = _mm256_and_si256(w, _mm256_set1_epi64x(127));
  const __m256i tail = _mm256_and_si256(active, _mm256_cmpeq_epi64(i, _mm256_setzero_si256()));
  const __m256i wedge = _mm256_andnot_si256(tail, active);
  __m256i acc = _mm256_setzero_si256();
  __m256d val = z;
  if (_mm256_movemask_pd(_mm256_castsi256_pd(tail))) {
    const __m256d x = _mm256_mul_pd(ln_lanes(odd_of_word(b0), -33.0), _mm256_set1_pd(kZigNegInvR));
    const __m256d y = _mm256_mul_pd(ln_lanes(odd_of_word(b1), -33.0), _mm256_set1_pd(-1.0));
    const __m256i ok = _mm256_castpd_si256(_mm256_cmp_pd(_mm256_add_pd(y, y), _mm256_mul_pd(x, x), _CMP_GE_OQ));
    acc = _mm256_or_si256(acc, _mm256_and_si256(ok, tail));
    val = _mm256_blendv_pd(val, _mm256_add_pd(_mm256_set1_pd(kZigR), x), _mm256_castsi256_pd(tail));
  }
  if (_mm256_movemask_pd(_mm256_castsi256_pd(wedge))) {
    const __m256i v = _mm256_or_si256(_mm256_srli_epi64(_mm256_slli_epi64(w, 32), 39), _mm256_set1_epi64x(1));
    const __m256d x = _mm256_mul_pd(small_u64_to_pd(v), _mm256_i64gather_pd(kZigW, i, 8));
    const __m256d u = _mm256_mul_pd(odd_of_word(b0), _mm256_set1_pd(0x1p-33));
    const __m256d y = _mm256_fmadd_pd(u, _mm256_i64gather_pd(kZigD, i, 8), _mm256_i64gather_pd(kZigF, i, 8));
    const __m256d h = _mm256_mul_pd(_mm256_mul_pd(x, x), _mm256_set1_pd(-0.5));
    const __m256i ok = _mm256_castpd_si256(_mm256_cmp_pd(ln_lanes(y, 0.0), h, _CMP_LT_OQ));
    acc = _mm256_or_si256(acc, _mm256_and_si256(ok, wedge));
    val = _mm256_blendv_pd(val, x, _mm256_castsi256_pd(wedge));
  }
  const __m256i neg = _mm256_slli_epi64(_mm256_and_si256(w, _mm256_set1_epi64x(128)), 56);  // bit 7 -> sign
  val = _mm256_xor_pd(val, _mm256_castsi256_pd(neg));
  z = _mm256_blendv_pd(z, val, _mm256_castsi256_pd(acc));
  return acc;
}

// The lanes the fast path rejected (element, word, output position), resolved four at a time
// (two batches in lockstep) with zig_attempt's steps lane-wise, between stages: a call inside a
// stage would spill its live vectors.
class SlowLanes {
 public:
  SlowLanes(const FillParams& p, const Keys& k, double* out) : p_(p), k_(k), out_(out) {}
  ~SlowLanes() { resolve(); }
  STRATA_AVX2 void add(int m, __m256i w, int64_t e0, int64_t de, int64_t pos0, int64_t dpos) {
    if (!m) return;
    alignas(32) uint64_t ws[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(ws), w);
    for (; m; m &= m - 1) {
      const int l = __builtin_ctz(static_cast<unsigned>(m));
      e_[n_] = static_cast<uint64_t>(e0 + l * de);
      w_[n_] = ws[l];
      pos_[n_] = pos0 + l * dpos;
      ++n_;
    }
  }
  void make_room() {
    if (n_ > kCap - kStageLanes) resolve();
  }
  STRATA_AVX2 void resolve() {
    constexpr int kBatches = 2;
    const __m256i index_bits = _mm256_set1_epi64x(static_cast<int64_t>(kZigRetryIndexMask));
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    for (int t = 0; t < n_; t += 4 * kBatches) {
      __m256i e[kBatches], w[kBatches], active[kBatches];
      __m256d z[kBatches];
      STRATA_UNROLL for (int j = 0; j < kBatches; ++j) {
        const int base = t + 4 * j;
        active[j] = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n_ - base), lane);  // lanes below n_
        e[j] = _mm256_and_si256(_mm256_maskload_epi64(reinterpret_cast<const long long*>(e_ + base), active[j]), index_bits);
        w[j] = _mm256_maskload_epi64(reinterpret_cast<const long long*>(w_ + base), active[j]);
        z[j] = _mm256_setzero_pd();
      }
      const __m256i live0 = active[0], live1 = active[1];
      for (int64_t a = 1; a < 128; ++a) {
        int any = 0;
        STRATA_UNROLL for (int j = 0; j < kBatches; ++j) any |= _mm256_movemask_pd(_mm256_castsi256_pd(active[j]));
        if (!any) break;
        const __m256i attempt = _mm256_set1_epi64x(static_cast<int64_t>(zig_retry_block(0, static_cast<uint32_t>(a))));
        __m256i blk[kBatches], b[kBatches][4];
        STRATA_UNROLL for (int j = 0; j < kBatches; ++j) blk[j] = _mm256_or_si256(e[j], attempt);
        philox_lanes<kBatches>(blk, k_, b);
        STRATA_UNROLL for (int j = 0; j < kBatches; ++j) {
          if (!_mm256_movemask_pd(_mm256_castsi256_pd(active[j]))) continue;
          const __m256i done = zig_attempt_lanes(w[j], b[j][0], b[j][1], active[j], z[j]);
          active[j] = _mm256_andnot_si256(done, active[j]);
          w[j] = _mm256_blendv_epi8(w[j], b[j][2], active[j]);
          int slow;
          const __m256d fast = zig_lanes(w[j], slow);
          const __m256i slow_lanes = _mm256_cmpgt_epi64(
              _mm256_and_si256(_mm256_set1_epi64x(slow), _mm256_setr_epi64x(1, 2, 4, 8)), _mm256_setzero_si256());
          z[j] = _mm256_blendv_pd(z[j], fast, _mm256_castsi256_pd(_mm256_andnot_si256(slow_lanes, active[j])));
          active[j] = _mm256_and_si256(active[j], slow_lanes);
        }
      }
      STRATA_UNROLL for (int j = 0; j < kBatches; ++j) {
        if (_mm256_movemask_pd(_mm256_castsi256_pd(active[j]))) {  // 127 rejections in a row: as zig_normal
          int unused;
          z[j] = _mm256_blendv_pd(z[j], zig_lanes(w[j], unused), _mm256_castsi256_pd(active[j]));
        }
        alignas(32) double v[4];
        _mm256_store_pd(v, _mm256_fmadd_pd(z[j], _mm256_set1_pd(p_.sd), _mm256_set1_pd(p_.mean)));
        const int live = _mm256_movemask_pd(_mm256_castsi256_pd(j == 0 ? live0 : live1));
        for (int l = 0; l < 4; ++l) {
          if (live & (1 << l)) out_[pos_[t + 4 * j + l]] = v[l];
        }
      }
    }
    n_ = 0;
  }

 private:
  static constexpr int kStageLanes = 64;  // more than one stage adds (kGroups x 4 lanes x 4 words = 48)
  static constexpr int kCap = 256;
  const FillParams& p_;
  const Keys& k_;
  double* out_;
  int n_ = 0;
  uint64_t e_[kCap], w_[kCap];
  int64_t pos_[kCap];
};

STRATA_AVX2 inline __m256i blocks4(uint64_t b) {
  return _mm256_add_epi64(_mm256_set1_epi64x(static_cast<int64_t>(b)), _mm256_setr_epi64x(0, 1, 2, 3));
}

/// Four blocks' values a (pair 0 sin), b (pair 0 cos), c (pair 1 sin), d (pair 1 cos) to
/// out[4*lane .. 4*lane+3]: a 4 x 4 transpose.
STRATA_AVX2 inline void store_blocks4(__m256d a, __m256d b, __m256d c, __m256d d, double* dst) {
  const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
  const __m256d t2 = _mm256_unpacklo_pd(c, d), t3 = _mm256_unpackhi_pd(c, d);
  _mm256_storeu_pd(dst, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(dst + 4, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(dst + 8, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(dst + 12, _mm256_permute2f128_pd(t1, t3, 0x31));
}

/// Four blocks' kept values a (pair 0) and b (pair 1) to out[2*lane], out[2*lane+1].
STRATA_AVX2 inline void store_pairs4(__m256d a, __m256d b, double* dst) {
  const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
  _mm256_storeu_pd(dst, _mm256_permute2f128_pd(t0, t1, 0x20));
  _mm256_storeu_pd(dst + 4, _mm256_permute2f128_pd(t0, t1, 0x31));
}

constexpr int kGroups = 3;  // Philox groups (and transform vectors) in lockstep: more spill the 16 ymm registers

// The two run shapes (random_avx512.cpp's): a contiguous run keeps all four words of a block,
// a step-2 run words parity and 2 + parity. Kept word q of block b is element 4b + word(q) and
// goes to out[kKept * b + q].
struct ContigRun {
  static constexpr int kKept = 4;
  static int word(int q, int) { return q; }
  STRATA_AVX2 static void store(const __m256d (&z)[kKept], double* dst) { store_blocks4(z[0], z[1], z[2], z[3], dst); }
};
struct Step2Run {
  static constexpr int kKept = 2;
  static int word(int q, int parity) { return 2 * q + parity; }
  STRATA_AVX2 static void store(const __m256d (&z)[kKept], double* dst) { store_pairs4(z[0], z[1], dst); }
};

// Blocks b0 .. b0 + nb - 1 of a run: kGroups groups' Philox words in lockstep, then the kept
// words' fast path; the rejected lanes go to the slow list, resolved between stages.
template <class Run>
STRATA_AVX2 void normal_run(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m256d sd = _mm256_set1_pd(p.sd), mean = _mm256_set1_pd(p.mean);
  SlowLanes slow(p, k, out);
  alignas(32) double tail[4 * Run::kKept];
  for (int64_t i = 0; i < nb; i += 4 * kGroups) {
    __m256i w[kGroups][4], blk[kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g) blk[g] = blocks4(b0 + i + 4 * g);
    philox_lanes<kGroups>(blk, k, w);
    for (int g = 0; g < kGroups && i + 4 * g < nb; ++g) {
      const int64_t first = i + 4 * g, left = nb - first;
      const int live = left >= 4 ? 0xF : (1 << left) - 1;
      __m256i kept[Run::kKept];
      int m[Run::kKept];
      __m256d z[Run::kKept];
      STRATA_UNROLL for (int q = 0; q < Run::kKept; ++q) {
        kept[q] = parity ? w[g][Run::word(q, 1)] : w[g][Run::word(q, 0)];
        z[q] = _mm256_fmadd_pd(zig_lanes(kept[q], m[q]), sd, mean);
      }
      double* dst = left >= 4 ? out + Run::kKept * first : tail;
      Run::store(z, dst);
      if (dst == tail) std::memcpy(out + Run::kKept * first, tail, sizeof(double) * Run::kKept * left);
      STRATA_UNROLL for (int q = 0; q < Run::kKept; ++q) {
        slow.add(m[q] & live, kept[q], static_cast<int64_t>(4 * (b0 + first)) + Run::word(q, parity), 4,
                 Run::kKept * first + q, Run::kKept);
      }
    }
    slow.make_room();
  }
}

}  // namespace

STRATA_AVX2 void normal_contig(const FillParams& p, uint64_t b0, int64_t nb, double* out) {
  normal_run<ContigRun>(p, b0, nb, 0, out);
}

STRATA_AVX2 void normal_step2(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out) {
  normal_run<Step2Run>(p, b0, nb, parity, out);
}

STRATA_AVX2 void normal_strided(const FillParams& p, uint64_t e0, int64_t step, int64_t n, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m256d sd = _mm256_set1_pd(p.sd), mean = _mm256_set1_pd(p.mean);
  const __m256i lane_step = _mm256_setr_epi64x(0, step, 2 * step, 3 * step);
  const __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
  SlowLanes slow(p, k, out);
  for (int64_t i = 0; i < n; i += 4) {
    const int64_t first = static_cast<int64_t>(e0) + i * step;
    const __m256i e = _mm256_add_epi64(_mm256_set1_epi64x(first), lane_step);
    __m256i w[1][4];
    const __m256i blk = _mm256_srli_epi64(e, 2);
    philox_lanes<1>(&blk, k, w);
    const __m256i second = _mm256_cmpeq_epi64(_mm256_and_si256(e, two), two);
    const __m256i odd = _mm256_cmpeq_epi64(_mm256_and_si256(e, one), one);
    const __m256i word = _mm256_blendv_epi8(_mm256_blendv_epi8(w[0][0], w[0][2], second),
                                            _mm256_blendv_epi8(w[0][1], w[0][3], second), odd);
    int m;
    const __m256d z = _mm256_fmadd_pd(zig_lanes(word, m), sd, mean);
    const int64_t left = n - i;
    if (left >= 4) {
      _mm256_storeu_pd(out + i, z);
    } else {
      const __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
      _mm256_maskstore_pd(out + i, mask, z);
    }
    slow.add(m & (left >= 4 ? 0xF : (1 << left) - 1), word, first, step, i, 1);
    slow.make_room();
  }
}

STRATA_AVX2 void philox_words(uint64_t seed, uint64_t stream, uint64_t b0, int64_t nb, uint32_t* out) {
  Keys k;
  make_keys(seed, stream, k);
  const __m256i m32 = _mm256_set1_epi64x(0xFFFFFFFFll);
  alignas(32) uint32_t tail[16];
  for (int64_t i = 0; i < nb; i += 4) {
    __m256i w[1][4];
    const __m256i blk = blocks4(b0 + i);
    philox_lanes<1>(&blk, k, w);
    // Words 0,1 (and 2,3) of each block as one 64-bit lane, then block-major order.
    const __m256i w01 = _mm256_or_si256(_mm256_and_si256(w[0][0], m32), _mm256_slli_epi64(w[0][1], 32));
    const __m256i w23 = _mm256_or_si256(_mm256_and_si256(w[0][2], m32), _mm256_slli_epi64(w[0][3], 32));
    const __m256i lo = _mm256_unpacklo_epi64(w01, w23), hi = _mm256_unpackhi_epi64(w01, w23);
    uint32_t* dst = nb - i >= 4 ? out + 4 * i : tail;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    if (dst == tail) std::memcpy(out + 4 * i, tail, sizeof(uint32_t) * 4 * (nb - i));
  }
}

}  // namespace strata::random::detail::avx2

#endif  // defined(__x86_64__)
