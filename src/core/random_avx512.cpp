// AVX-512 random kernels. Philox runs on eight blocks at once, one block per 64-bit lane with
// each 32-bit word in the low half of a lane (vpmuludq gives the full 64-bit product directly;
// the high halves may hold garbage and are masked where a word is consumed). The Box–Muller
// arithmetic mirrors random_internal.hpp operation by operation, so results equal the scalar path.
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 intrinsic headers

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

/// Philox4x32-10 of the eight 64-bit block indices in `blk`.
STRATA_AVX512 inline void philox8(__m512i blk, const Keys& k, __m512i& x0, __m512i& y0, __m512i& x1,
                                  __m512i& y1) {
  const __m512i m0 = _mm512_set1_epi64(kPhiloxM0), m1 = _mm512_set1_epi64(kPhiloxM1);
  __m512i c0 = blk, c1 = _mm512_srli_epi64(blk, 32), c2 = k.c2, c3 = k.c3;
  for (int r = 0; r < 10; ++r) {
    const __m512i p0 = _mm512_mul_epu32(c0, m0);
    const __m512i p1 = _mm512_mul_epu32(c2, m1);
    c0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1, k.k0[r], 0x96);
    c2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3, k.k1[r], 0x96);
    c1 = p1;
    c3 = p0;
  }
  x0 = c0;
  y0 = c1;
  x1 = c2;
  y1 = c3;
}

/// Two independent philox8 interleaved round by round: twice the instruction-level parallelism
/// for the long multiply/xor dependency chains.
STRATA_AVX512 inline void philox8x2(__m512i blk_a, __m512i blk_b, const Keys& k, __m512i* a, __m512i* b) {
  const __m512i m0 = _mm512_set1_epi64(kPhiloxM0), m1 = _mm512_set1_epi64(kPhiloxM1);
  __m512i a0 = blk_a, a1 = _mm512_srli_epi64(blk_a, 32), a2 = k.c2, a3 = k.c3;
  __m512i b0 = blk_b, b1 = _mm512_srli_epi64(blk_b, 32), b2 = k.c2, b3 = k.c3;
  for (int r = 0; r < 10; ++r) {
    const __m512i pa0 = _mm512_mul_epu32(a0, m0), pa1 = _mm512_mul_epu32(a2, m1);
    const __m512i pb0 = _mm512_mul_epu32(b0, m0), pb1 = _mm512_mul_epu32(b2, m1);
    a0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pa1, 32), a1, k.k0[r], 0x96);
    a2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pa0, 32), a3, k.k1[r], 0x96);
    b0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pb1, 32), b1, k.k0[r], 0x96);
    b2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pb0, 32), b3, k.k1[r], 0x96);
    a1 = pa1;
    a3 = pa0;
    b1 = pb1;
    b3 = pb0;
  }
  a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3;
  b[0] = b0, b[1] = b1, b[2] = b2, b[3] = b3;
}

/// bm_radius on the low 32 bits of each lane.
STRATA_AVX512 inline __m512d radius8(__m512i x) {
  const __m512i v = _mm512_or_si512(_mm512_srli_epi64(_mm512_slli_epi64(x, 32), 31), _mm512_set1_epi64(1));
  const __m512d d = _mm512_cvtepu64_pd(v);
  const __m512d e = _mm512_sub_pd(_mm512_getexp_pd(d), _mm512_set1_pd(33.0));
  const __m512d m = _mm512_getmant_pd(d, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
  const __m512i idx = _mm512_srli_epi64(_mm512_castpd_si512(d), 48);
  const __m512d rc = _mm512_permutex2var_pd(_mm512_loadu_pd(kLogRecip), idx, _mm512_loadu_pd(kLogRecip + 8));
  const __m512d lt = _mm512_permutex2var_pd(_mm512_loadu_pd(kLogTable), idx, _mm512_loadu_pd(kLogTable + 8));
  const __m512d r = _mm512_fmadd_pd(m, rc, _mm512_set1_pd(-1.0));
  __m512d p = _mm512_set1_pd(kLogPoly[8]);
  for (int k = 7; k >= 0; --k) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(kLogPoly[k]));
  const __m512d t = _mm512_fmadd_pd(p, r, lt);
  const __m512d ln_u = _mm512_fmadd_pd(e, _mm512_set1_pd(kLn2), t);
  return _mm512_sqrt_pd(_mm512_mul_pd(ln_u, _mm512_set1_pd(-2.0)));
}

/// sin_turns(y + shift) on the low 32 bits of each lane; `shift_hi` holds shift << 32.
STRATA_AVX512 inline __m512d sin8(__m512i y, __m512i shift_hi) {
  const __m512i t = _mm512_add_epi64(_mm512_slli_epi64(y, 32), shift_hi);
  __m512i n = _mm512_or_si512(_mm512_srai_epi64(t, 31), _mm512_set1_epi64(1));
  const __mmask8 gt = _mm512_cmpgt_epi64_mask(n, _mm512_set1_epi64(int64_t{1} << 31));
  const __mmask8 lt = _mm512_cmplt_epi64_mask(n, _mm512_set1_epi64(-(int64_t{1} << 31)));
  n = _mm512_mask_sub_epi64(n, gt, _mm512_set1_epi64(int64_t{1} << 32), n);
  n = _mm512_mask_sub_epi64(n, lt, _mm512_set1_epi64(-(int64_t{1} << 32)), n);
  const __m512d a = _mm512_mul_pd(_mm512_cvtepi64_pd(n), _mm512_set1_pd(kTwoPiOver2p33));
  const __m512d a2 = _mm512_mul_pd(a, a);
  __m512d s = _mm512_set1_pd(kSinPoly[8]);
  for (int k = 7; k >= 0; --k) s = _mm512_fmadd_pd(s, a2, _mm512_set1_pd(kSinPoly[k]));
  const __m512d a3 = _mm512_mul_pd(a2, a);
  return _mm512_fmadd_pd(a3, s, a);
}

STRATA_AVX512 inline __m512d scale(__m512d r, __m512d s, __m512d sd, __m512d mean) {
  return _mm512_fmadd_pd(_mm512_mul_pd(r, s), sd, mean);
}

STRATA_AVX512 inline __m512i lane_iota() { return _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0); }

}  // namespace

STRATA_AVX512 void normal_contig(const FillParams& p, uint64_t b0, int64_t nb, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m512d sd = _mm512_set1_pd(p.sd), mean = _mm512_set1_pd(p.mean);
  const __m512i zero = _mm512_setzero_si512(), quarter = _mm512_set1_epi64(int64_t{1} << 62);
  const __m512i ia = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
  const __m512i ib = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  alignas(64) double tail[32];
  for (int64_t i = 0; i < nb; i += 8) {
    __m512i x0, y0, x1, y1;
    philox8(_mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i)), lane_iota()), k, x0, y0, x1, y1);
    const __m512d r0 = radius8(x0), r1 = radius8(x1);
    const __m512d a = scale(r0, sin8(y0, zero), sd, mean), b = scale(r0, sin8(y0, quarter), sd, mean);
    const __m512d c = scale(r1, sin8(y1, zero), sd, mean), d = scale(r1, sin8(y1, quarter), sd, mean);
    // 4x8 transpose so that out[4*lane + w] holds word-pair/branch w of block lane.
    const __m512d t0 = _mm512_unpacklo_pd(a, b), t1 = _mm512_unpackhi_pd(a, b);
    const __m512d t2 = _mm512_unpacklo_pd(c, d), t3 = _mm512_unpackhi_pd(c, d);
    const __m512d u0 = _mm512_permutex2var_pd(t0, ia, t2), u1 = _mm512_permutex2var_pd(t1, ia, t3);
    const __m512d u2 = _mm512_permutex2var_pd(t0, ib, t2), u3 = _mm512_permutex2var_pd(t1, ib, t3);
    double* dst = nb - i >= 8 ? out + 4 * i : tail;
    _mm512_storeu_pd(dst, _mm512_shuffle_f64x2(u0, u1, 0x44));
    _mm512_storeu_pd(dst + 8, _mm512_shuffle_f64x2(u0, u1, 0xEE));
    _mm512_storeu_pd(dst + 16, _mm512_shuffle_f64x2(u2, u3, 0x44));
    _mm512_storeu_pd(dst + 24, _mm512_shuffle_f64x2(u2, u3, 0xEE));
    if (dst == tail) std::memcpy(out + 4 * i, tail, sizeof(double) * 4 * (nb - i));
  }
}

// The 32 kept values (words 0 and 2 of each block: radius from the first word of the pair, sine
// of the second) of the 16 blocks whose Philox words are wa (blocks 0–7) and wb (8–15), in
// element order.
STRATA_AVX512 inline void step2_values16(const __m512i* wa, const __m512i* wb, __m512i shift, __m512d sd, __m512d mean,
                                         double* o) {
  const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  const __m512d a = scale(radius8(wa[0]), sin8(wa[1], shift), sd, mean);
  const __m512d b = scale(radius8(wa[2]), sin8(wa[3], shift), sd, mean);
  const __m512d c = scale(radius8(wb[0]), sin8(wb[1], shift), sd, mean);
  const __m512d d = scale(radius8(wb[2]), sin8(wb[3], shift), sd, mean);
  _mm512_storeu_pd(o, _mm512_permutex2var_pd(a, lo, b));
  _mm512_storeu_pd(o + 8, _mm512_permutex2var_pd(a, hi, b));
  _mm512_storeu_pd(o + 16, _mm512_permutex2var_pd(c, lo, d));
  _mm512_storeu_pd(o + 24, _mm512_permutex2var_pd(c, hi, d));
}

STRATA_AVX512 void normal_step2(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m512d sd = _mm512_set1_pd(p.sd), mean = _mm512_set1_pd(p.mean);
  const __m512i shift = _mm512_set1_epi64(parity ? int64_t{1} << 62 : 0);
  const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  alignas(64) double tail[16];
  int64_t i = 0;
  // Two stages per 64 blocks: the Philox words of all of them first, then their transforms.
  // The operations are the loop's below, in the same order per value (the same bits); split,
  // the out-of-order core sees independent work in each stage instead of one long chain
  // (multiply rounds, then log, sqrt and sine) per 16 blocks.
  constexpr int64_t kStage = 64;
  for (; i + kStage <= nb; i += kStage) {
    __m512i w[kStage / 8][4];
    for (int64_t g = 0; g < kStage / 16; ++g) {
      const __m512i base = _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i + 16 * g)), lane_iota());
      philox8x2(base, _mm512_add_epi64(base, _mm512_set1_epi64(8)), k, w[2 * g], w[2 * g + 1]);
    }
    for (int64_t g = 0; g < kStage / 16; ++g) step2_values16(w[2 * g], w[2 * g + 1], shift, sd, mean, out + 2 * (i + 16 * g));
  }
  for (; i + 16 <= nb; i += 16) {
    __m512i wa[4], wb[4];
    const __m512i base = _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i)), lane_iota());
    philox8x2(base, _mm512_add_epi64(base, _mm512_set1_epi64(8)), k, wa, wb);
    step2_values16(wa, wb, shift, sd, mean, out + 2 * i);
  }
  for (; i < nb; i += 8) {
    __m512i x0, y0, x1, y1;
    philox8(_mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i)), lane_iota()), k, x0, y0, x1, y1);
    const __m512d a = scale(radius8(x0), sin8(y0, shift), sd, mean);
    const __m512d b = scale(radius8(x1), sin8(y1, shift), sd, mean);
    double* dst = nb - i >= 8 ? out + 2 * i : tail;
    _mm512_storeu_pd(dst, _mm512_permutex2var_pd(a, lo, b));
    _mm512_storeu_pd(dst + 8, _mm512_permutex2var_pd(a, hi, b));
    if (dst == tail) std::memcpy(out + 2 * i, tail, sizeof(double) * 2 * (nb - i));
  }
}

STRATA_AVX512 void normal_strided(const FillParams& p, uint64_t e0, int64_t step, int64_t n, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m512d sd = _mm512_set1_pd(p.sd), mean = _mm512_set1_pd(p.mean);
  const __m512i lane_step = _mm512_mullo_epi64(lane_iota(), _mm512_set1_epi64(step));
  const __m512i one = _mm512_set1_epi64(1), two = _mm512_set1_epi64(2);
  for (int64_t i = 0; i < n; i += 8) {
    const __m512i e = _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(e0 + i * step)), lane_step);
    __m512i x0, y0, x1, y1;
    philox8(_mm512_srli_epi64(e, 2), k, x0, y0, x1, y1);
    const __mmask8 second = _mm512_test_epi64_mask(e, two);
    const __m512i x = _mm512_mask_blend_epi64(second, x0, x1), y = _mm512_mask_blend_epi64(second, y0, y1);
    const __m512i shift = _mm512_slli_epi64(_mm512_and_si512(e, one), 62);
    const __m512d z = scale(radius8(x), sin8(y, shift), sd, mean);
    const __mmask8 m = n - i >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (n - i)) - 1);
    _mm512_mask_storeu_pd(out + i, m, z);
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

}  // namespace strata::random::detail::avx512
