// AVX2 + FMA random kernels, for CPUs without AVX-512. The layout is random_avx512.cpp's: one
// Philox block per 64-bit lane (four per vector), each 32-bit word in the low half of a lane.
// The normals' ziggurat fast path is random_hd.hpp's one multiplication per lane (2j + 1 goes to
// double exactly through the 2^52 magic constant; the tables are read as pairs, no gathers);
// the 2.8 % of lanes it rejects are resolved with the slow path's operations lane-wise (the
// table log with the exponent and mantissa cut from the bits). So the bits equal the portable
// and AVX-512 paths.
// x86-64 only: elsewhere (aarch64) best_isa() is Portable and random.cpp never names these kernels.
#if defined(__x86_64__)
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 intrinsic headers

#include <cmath>
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

// The kernels' table lookups read pairs of doubles, one 16-byte load per lane: four scalar loads
// and two shuffles cost less than a 4-lane gather per value here.
template <int N>
struct PairTable {
  alignas(64) double e[N][2];
};

/// Entry w & 255 (kZigW's signed index): W[w & 255] and 2 K[w & 127] as doubles. The fast test
/// j < K[i] is 2j + 1 < 2 K[i] on exact doubles, sharing the candidate's conversion.
inline constexpr PairTable<256> kZigScaleTwoK = [] {
  PairTable<256> t{};
  for (int i = 0; i < 256; ++i) t.e[i][0] = kZigW[i], t.e[i][1] = 2.0 * kZigK[i & 127];
  return t;
}();
/// Layer i's wedge: D[i], F[i].
inline constexpr PairTable<128> kZigDF = [] {
  PairTable<128> t{};
  for (int i = 0; i < 128; ++i) t.e[i][0] = kZigD[i], t.e[i][1] = kZigF[i];
  return t;
}();
/// ln_scaled's tables on the top 4 mantissa bits.
inline constexpr PairTable<16> kLogRecipTable = [] {
  PairTable<16> t{};
  for (int i = 0; i < 16; ++i) t.e[i][0] = kLogRecip[i], t.e[i][1] = kLogTable[i];
  return t;
}();

/// Entries idx[0..3] of a pair table: the first members in `first`, the second in `second`.
template <int N>
STRATA_AVX2 inline void pair_lanes(const PairTable<N>& t, const uint64_t (&idx)[4], __m256d& first, __m256d& second) {
  const __m256d ac = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_load_pd(t.e[idx[0]])), _mm_load_pd(t.e[idx[2]]), 1);
  const __m256d bd = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_load_pd(t.e[idx[1]])), _mm_load_pd(t.e[idx[3]]), 1);
  first = _mm256_unpacklo_pd(ac, bd);
  second = _mm256_unpackhi_pd(ac, bd);
}

/// The lanes' (v >> shift) & mask, as scalars for pair_lanes.
STRATA_AVX2 inline void lane_indices(__m256i v, int shift, uint64_t mask, uint64_t (&idx)[4]) {
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  STRATA_UNROLL for (int l = 0; l < 4; ++l) idx[l] = (lanes[l] >> shift) & mask;
}

/// The ziggurat's fast path on the word in the low half of each lane: zig_value(w), and in the
/// low 4 bits of `slow` the lanes that zig_fast rejects (resolved later).
STRATA_AVX2 inline __m256d zig_lanes(__m256i w, int& slow) {
  uint64_t idx[4];
  lane_indices(w, 0, 255, idx);
  __m256d scale, two_k;
  pair_lanes(kZigScaleTwoK, idx, scale, two_k);
  const __m256i top = _mm256_slli_epi64(w, 32);  // the word in the high half, the garbage gone
  const __m256d v = small_u64_to_pd(_mm256_or_si256(_mm256_srli_epi64(top, 39), _mm256_set1_epi64x(1)));  // 2j + 1 < 2^25
  slow = _mm256_movemask_pd(_mm256_cmp_pd(v, two_k, _CMP_NLT_UQ));
  return _mm256_mul_pd(v, scale);
}

/// ln_scaled(d, k) lane-wise for positive normal doubles d: the exponent through the magic
/// constant (exact small integers), the mantissa and table index cut from the bits.
STRATA_AVX2 inline __m256d ln_lanes(__m256d d, double k) {
  const __m256i bits = _mm256_castpd_si256(d);
  uint64_t idx[4];
  lane_indices(bits, 48, 15, idx);
  __m256d recip, table;
  pair_lanes(kLogRecipTable, idx, recip, table);
  const __m256d e = _mm256_sub_pd(small_u64_to_pd(_mm256_srli_epi64(bits, 52)), _mm256_set1_pd(1023.0 - k));
  const __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFF)),
                                                        _mm256_set1_epi64x(0x3FF0000000000000)));
  const __m256d r = _mm256_fmadd_pd(m, recip, _mm256_set1_pd(-1.0));
  __m256d p = _mm256_set1_pd(kLogPoly[8]);
  for (int j = 7; j >= 0; --j) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kLogPoly[j]));
  return _mm256_fmadd_pd(e, _mm256_set1_pd(kLn2), _mm256_fmadd_pd(p, r, table));
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
    uint64_t idx[4];
    lane_indices(w, 0, 127, idx);
    __m256d scale, unused, d, f;
    pair_lanes(kZigScaleTwoK, idx, scale, unused);  // i < 128: the positive W[i]
    pair_lanes(kZigDF, idx, d, f);
    const __m256i v = _mm256_or_si256(_mm256_srli_epi64(_mm256_slli_epi64(w, 32), 39), _mm256_set1_epi64x(1));
    const __m256d x = _mm256_mul_pd(small_u64_to_pd(v), scale);
    const __m256d u = _mm256_mul_pd(odd_of_word(b0), _mm256_set1_pd(0x1p-33));
    const __m256d y = _mm256_fmadd_pd(u, d, f);
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

/// vpermd indices that move the 64-bit lanes set in a 4-bit mask to the front, in order.
struct LeftPack {
  alignas(32) int32_t idx[16][8];
  constexpr LeftPack() : idx{} {
    for (int m = 0; m < 16; ++m) {
      int out = 0;
      for (int l = 0; l < 4; ++l) {
        if (m & (1 << l)) {
          idx[m][2 * out] = 2 * l;
          idx[m][2 * out + 1] = 2 * l + 1;
          ++out;
        }
      }
      for (; out < 4; ++out) idx[m][2 * out] = idx[m][2 * out + 1] = 0;
    }
  }
};
inline constexpr LeftPack kLeftPack{};

// The lanes the fast path rejected (retry index, word, destination), resolved between stages (a
// call inside a stage would spill its live vectors) in rounds: round a makes attempt a on every
// pending lane, eight lanes per step and no step depending on another, so the Philox and log
// latencies overlap; the lanes still pending are packed to the front for round a + 1. Almost
// all lanes finish in round 1.
class SlowLanes {
 public:
  /// Lane l of a vector is element e0 + l * de, stored at dst0 + l * ddst.
  SlowLanes(const FillParams& p, const Keys& k, int64_t de, int64_t ddst) : p_(p), k_(k), de_(de), ddst_(ddst) {}
  ~SlowLanes() { resolve(); }
  /// Lanes m of candidates w: element e0 + l * de, destination dst0 + l * ddst. Branch-free (a
  /// vector has a rejected lane one time in ten, unpredictably) and almost free of vector work:
  /// a record of every call is written, kept when m is not empty, and unpacked in resolve().
  STRATA_AVX2 void add(int m, __m256i w, int64_t e0, double* dst0) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(rec_w_[nrec_]), w);
    rec_[nrec_] = {static_cast<uint64_t>(e0), dst0, m};
    nrec_ += m != 0;
  }
  void make_room() {
    if (nrec_ > kRecords - kStageRecords) resolve();
  }
  STRATA_AVX2 void resolve() {
    // The records' lanes, packed to the front of each vector without branches.
    const auto times = [](int64_t x, uint64_t k) { return static_cast<int64_t>(k * static_cast<uint64_t>(x)); };
    const __m256i lane_de = _mm256_setr_epi64x(0, de_, times(de_, 2), times(de_, 3));  // wraps in dead lanes only
    const __m256i lane_ddst = _mm256_setr_epi64x(0, 8 * ddst_, 16 * ddst_, 24 * ddst_);
    const __m256i index_bits = _mm256_set1_epi64x(static_cast<int64_t>(kZigRetryIndexMask));
    for (int r = 0; r < nrec_; ++r) {
      const __m256i pack = _mm256_load_si256(reinterpret_cast<const __m256i*>(kLeftPack.idx[rec_[r].mask]));
      const __m256i e = _mm256_and_si256(
          _mm256_add_epi64(_mm256_set1_epi64x(static_cast<int64_t>(rec_[r].e0)), lane_de), index_bits);
      const __m256i dst = _mm256_add_epi64(_mm256_set1_epi64x(reinterpret_cast<int64_t>(rec_[r].dst0)), lane_ddst);
      const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(rec_w_[r]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(e_ + n_), _mm256_permutevar8x32_epi32(e, pack));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w_ + n_), _mm256_permutevar8x32_epi32(w, pack));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst_ + n_), _mm256_permutevar8x32_epi32(dst, pack));
      n_ += __builtin_popcount(static_cast<unsigned>(rec_[r].mask));
    }
    nrec_ = 0;
    for (uint32_t a = 1; n_ > 0 && a < 128; ++a) n_ = attempt_round(a);
    for (int i = 0; i < n_; ++i) {  // 127 rejections in a row: as zig_normal, the last candidate
      *dst_[i] = std::fma(zig_value(static_cast<uint32_t>(w_[i])), p_.sd, p_.mean);
    }
    n_ = 0;
  }

 private:
  static constexpr int kVectors = 2;                     // vectors per step, in lockstep
  static constexpr int kStep = 4 * kVectors;
  static constexpr int kStageRecords = 16;  // more than one stage adds (kGroups x 4 words = 12)
  static constexpr int kRecords = 128;
  static constexpr int kCap = 4 * kRecords;
  struct Record {
    uint64_t e0;
    double* dst0;
    int mask;
  };

  /// Attempt a on lanes [0, n_): writes the finished lanes' values, packs the pending ones to the
  /// front and returns their count.
  STRATA_AVX2 int attempt_round(uint32_t a) {
    for (int i = n_; i < n_ + kStep; ++i) {  // the last step's dead lanes write to a scratch slot
      e_[i] = w_[i] = 0;
      dst_[i] = &scratch_;
    }
    const __m256i attempt = _mm256_set1_epi64x(static_cast<int64_t>(zig_retry_block(0, a)));
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256d sd = _mm256_set1_pd(p_.sd), mean = _mm256_set1_pd(p_.mean);
    int pending = 0;
    for (int t = 0; t < n_; t += kStep) {
      __m256i e[kVectors], w[kVectors], dst[kVectors], live[kVectors], blk[kVectors], b[kVectors][4];
      STRATA_UNROLL for (int j = 0; j < kVectors; ++j) {
        const int base = t + 4 * j;
        live[j] = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n_ - base), lane);
        e[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e_ + base));
        w[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w_ + base));
        dst[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst_ + base));
        blk[j] = _mm256_or_si256(e[j], attempt);
      }
      philox_lanes<kVectors>(blk, k_, b);
      STRATA_UNROLL for (int j = 0; j < kVectors; ++j) {
        __m256d z = _mm256_setzero_pd();
        const __m256i accepted = zig_attempt_lanes(w[j], b[j][0], b[j][1], live[j], z);
        const __m256i next = _mm256_andnot_si256(accepted, live[j]);  // the next candidate: word 2
        w[j] = _mm256_blendv_epi8(w[j], b[j][2], next);
        int slow;
        const __m256d fast = zig_lanes(w[j], slow);
        const __m256i slow_lanes = _mm256_cmpgt_epi64(
            _mm256_and_si256(_mm256_set1_epi64x(slow), _mm256_setr_epi64x(1, 2, 4, 8)), _mm256_setzero_si256());
        z = _mm256_blendv_pd(z, fast, _mm256_castsi256_pd(next));
        // Every lane's value goes out (a pending lane's is overwritten by a later round).
        const __m256d v = _mm256_fmadd_pd(z, sd, mean);
        double* const* d = dst_ + t + 4 * j;
        _mm_storel_pd(d[0], _mm256_castpd256_pd128(v));
        _mm_storeh_pd(d[1], _mm256_castpd256_pd128(v));
        _mm_storel_pd(d[2], _mm256_extractf128_pd(v, 1));
        _mm_storeh_pd(d[3], _mm256_extractf128_pd(v, 1));
        const int keep = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_and_si256(next, slow_lanes)));
        const __m256i pack = _mm256_load_si256(reinterpret_cast<const __m256i*>(kLeftPack.idx[keep]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(e_ + pending), _mm256_permutevar8x32_epi32(e[j], pack));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(w_ + pending), _mm256_permutevar8x32_epi32(w[j], pack));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst_ + pending), _mm256_permutevar8x32_epi32(dst[j], pack));
        pending += __builtin_popcount(static_cast<unsigned>(keep));
      }
    }
    return pending;
  }

  const FillParams& p_;
  const Keys& k_;
  const int64_t de_, ddst_;
  int nrec_ = 0, n_ = 0;
  Record rec_[kRecords];
  alignas(32) uint64_t rec_w_[kRecords][4];
  double scratch_ = 0;
  alignas(32) uint64_t e_[kCap + kStep], w_[kCap + kStep];
  alignas(32) double* dst_[kCap + kStep];
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
  SlowLanes slow(p, k, 4, Run::kKept);
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
        slow.add(m[q] & live, kept[q], static_cast<int64_t>(4 * (b0 + first)) + Run::word(q, parity),
                 out + Run::kKept * first + q);
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
  SlowLanes slow(p, k, step, 1);
  for (int64_t i = 0; i < n; i += 4 * kGroups) {
    __m256i e[kGroups], blk[kGroups], w[kGroups][4];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g) {
      e[g] = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<int64_t>(e0) + (i + 4 * g) * step), lane_step);
      blk[g] = _mm256_srli_epi64(e[g], 2);
    }
    philox_lanes<kGroups>(blk, k, w);
    for (int g = 0; g < kGroups && i + 4 * g < n; ++g) {
      const int64_t first = i + 4 * g, left = n - first;
      const __m256i second = _mm256_cmpeq_epi64(_mm256_and_si256(e[g], two), two);
      const __m256i odd = _mm256_cmpeq_epi64(_mm256_and_si256(e[g], one), one);
      const __m256i word = _mm256_blendv_epi8(_mm256_blendv_epi8(w[g][0], w[g][2], second),
                                              _mm256_blendv_epi8(w[g][1], w[g][3], second), odd);
      int m;
      const __m256d z = _mm256_fmadd_pd(zig_lanes(word, m), sd, mean);
      if (left >= 4) {
        _mm256_storeu_pd(out + first, z);
      } else {
        const __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
        _mm256_maskstore_pd(out + first, mask, z);
      }
      slow.add(m & (left >= 4 ? 0xF : (1 << left) - 1), word, static_cast<int64_t>(e0) + first * step, out + first);
    }
    slow.make_room();
  }
}

STRATA_AVX2 void philox_words(uint64_t seed, uint64_t stream, uint64_t b0, int64_t nb, uint32_t* out) {
  Keys k;
  make_keys(seed, stream, k);
  const __m256i m32 = _mm256_set1_epi64x(0xFFFFFFFFll);
  alignas(32) uint32_t tail[16];
  for (int64_t i = 0; i < nb; i += 4 * kGroups) {  // kGroups Philox chains in lockstep hide the multiplies' latency
    __m256i w[kGroups][4], blk[kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g) blk[g] = blocks4(b0 + i + 4 * g);
    philox_lanes<kGroups>(blk, k, w);
    for (int g = 0; g < kGroups && i + 4 * g < nb; ++g) {
      const int64_t first = i + 4 * g;
      // Words 0,1 (and 2,3) of each block as one 64-bit lane, then block-major order.
      const __m256i w01 = _mm256_or_si256(_mm256_and_si256(w[g][0], m32), _mm256_slli_epi64(w[g][1], 32));
      const __m256i w23 = _mm256_or_si256(_mm256_and_si256(w[g][2], m32), _mm256_slli_epi64(w[g][3], 32));
      const __m256i lo = _mm256_unpacklo_epi64(w01, w23), hi = _mm256_unpackhi_epi64(w01, w23);
      uint32_t* dst = nb - first >= 4 ? out + 4 * first : tail;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_permute2x128_si256(lo, hi, 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
      if (dst == tail) std::memcpy(out + 4 * first, tail, sizeof(uint32_t) * 4 * (nb - first));
    }
  }
}

const VectorKernels kKernels = {normal_contig, normal_step2, normal_strided, philox_words};

}  // namespace strata::random::detail::avx2

#endif  // defined(__x86_64__)
