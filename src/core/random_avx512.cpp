// AVX-512 random kernels. Philox runs on eight blocks per vector, one block per 64-bit lane with
// each 32-bit word in the low half of a lane (vpmuludq gives the full 64-bit product directly;
// the high halves may hold garbage and are masked where a word is consumed), several vectors in
// lockstep. The Box–Muller arithmetic mirrors random_internal.hpp operation by operation, so
// results equal the scalar path.
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

/// bm_radius on the low 32 bits of each lane of x[0..N).
template <int N>
STRATA_AVX512 inline void radius_lanes(const __m512i* x, __m512d* out) {
  __m512d r[N], p[N], e[N], lt[N];
  STRATA_UNROLL for (int j = 0; j < N; ++j) {
    const __m512i v = _mm512_or_si512(_mm512_srli_epi64(_mm512_slli_epi64(x[j], 32), 31), _mm512_set1_epi64(1));
    const __m512d d = _mm512_cvtepu64_pd(v);
    e[j] = _mm512_sub_pd(_mm512_getexp_pd(d), _mm512_set1_pd(33.0));
    const __m512d m = _mm512_getmant_pd(d, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
    const __m512i idx = _mm512_srli_epi64(_mm512_castpd_si512(d), 48);
    const __m512d rc = _mm512_permutex2var_pd(_mm512_loadu_pd(kLogRecip), idx, _mm512_loadu_pd(kLogRecip + 8));
    lt[j] = _mm512_permutex2var_pd(_mm512_loadu_pd(kLogTable), idx, _mm512_loadu_pd(kLogTable + 8));
    r[j] = _mm512_fmadd_pd(m, rc, _mm512_set1_pd(-1.0));
    p[j] = _mm512_set1_pd(kLogPoly[8]);
  }
  for (int k = 7; k >= 0; --k) {
    STRATA_UNROLL for (int j = 0; j < N; ++j) p[j] = _mm512_fmadd_pd(p[j], r[j], _mm512_set1_pd(kLogPoly[k]));
  }
  STRATA_UNROLL for (int j = 0; j < N; ++j) {
    const __m512d t = _mm512_fmadd_pd(p[j], r[j], lt[j]);
    const __m512d ln_u = _mm512_fmadd_pd(e[j], _mm512_set1_pd(kLn2), t);
    out[j] = _mm512_sqrt_pd(_mm512_mul_pd(ln_u, _mm512_set1_pd(-2.0)));
  }
}

/// sin_turns(y + shift) on the low 32 bits of each lane of y[0..N); `shift_hi[j]` holds shift << 32.
template <int N>
STRATA_AVX512 inline void sin_lanes(const __m512i* y, const __m512i* shift_hi, __m512d* out) {
  __m512d a[N], a2[N], s[N];
  STRATA_UNROLL for (int j = 0; j < N; ++j) {
    const __m512i t = _mm512_add_epi64(_mm512_slli_epi64(y[j], 32), shift_hi[j]);
    __m512i n = _mm512_or_si512(_mm512_srai_epi64(t, 31), _mm512_set1_epi64(1));
    const __mmask8 gt = _mm512_cmpgt_epi64_mask(n, _mm512_set1_epi64(int64_t{1} << 31));
    const __mmask8 lt = _mm512_cmplt_epi64_mask(n, _mm512_set1_epi64(-(int64_t{1} << 31)));
    n = _mm512_mask_sub_epi64(n, gt, _mm512_set1_epi64(int64_t{1} << 32), n);
    n = _mm512_mask_sub_epi64(n, lt, _mm512_set1_epi64(-(int64_t{1} << 32)), n);
    a[j] = _mm512_mul_pd(_mm512_cvtepi64_pd(n), _mm512_set1_pd(kTwoPiOver2p33));
    a2[j] = _mm512_mul_pd(a[j], a[j]);
    s[j] = _mm512_set1_pd(kSinPoly[8]);
  }
  for (int k = 7; k >= 0; --k) {
    STRATA_UNROLL for (int j = 0; j < N; ++j) s[j] = _mm512_fmadd_pd(s[j], a2[j], _mm512_set1_pd(kSinPoly[k]));
  }
  STRATA_UNROLL for (int j = 0; j < N; ++j) out[j] = _mm512_fmadd_pd(_mm512_mul_pd(a2[j], a[j]), s[j], a[j]);
}

STRATA_AVX512 inline __m512d radius8(__m512i x) {
  __m512d r;
  radius_lanes<1>(&x, &r);
  return r;
}

STRATA_AVX512 inline __m512d sin8(__m512i y, __m512i shift_hi) {
  __m512d s;
  sin_lanes<1>(&y, &shift_hi, &s);
  return s;
}

STRATA_AVX512 inline __m512d scale(__m512d r, __m512d s, __m512d sd, __m512d mean) {
  return _mm512_fmadd_pd(_mm512_mul_pd(r, s), sd, mean);
}

STRATA_AVX512 inline __m512i lane_iota() { return _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0); }

}  // namespace

// Block `lane` of a, b, c, d (its four values: pair 0 sin, pair 0 cos, pair 1 sin, pair 1 cos)
// to out[4*lane .. 4*lane+3]: a 4 x 8 transpose.
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

STRATA_AVX512 void normal_contig(const FillParams& p, uint64_t b0, int64_t nb, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m512d sd = _mm512_set1_pd(p.sd), mean = _mm512_set1_pd(p.mean);
  const __m512i zero = _mm512_setzero_si512(), quarter = _mm512_set1_epi64(int64_t{1} << 62);
  // Stages of 32 blocks: four groups' Philox words in lockstep, then two groups at a time
  // (4 radii, 8 sines: both branches of each pair). Same operations per value as the tail.
  constexpr int kGroups = 4, kStep = 2;
  const __m512i shifts[4 * kStep] = {zero, quarter, zero, quarter, zero, quarter, zero, quarter};
  int64_t i = 0;
  for (; i + 8 * kGroups <= nb; i += 8 * kGroups) {
    __m512i w[kGroups][4], blk[kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g)
      blk[g] = _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i + 8 * g)), lane_iota());
    philox_lanes<kGroups>(blk, k, w);
    for (int g0 = 0; g0 < kGroups; g0 += kStep) {
      __m512i xs[2 * kStep], ys[4 * kStep];
      STRATA_UNROLL for (int g = 0; g < kStep; ++g) {
        xs[2 * g] = w[g0 + g][0];
        xs[2 * g + 1] = w[g0 + g][2];
        ys[4 * g] = ys[4 * g + 1] = w[g0 + g][1];
        ys[4 * g + 2] = ys[4 * g + 3] = w[g0 + g][3];
      }
      __m512d r[2 * kStep], s[4 * kStep];
      radius_lanes<2 * kStep>(xs, r);
      sin_lanes<4 * kStep>(ys, shifts, s);
      STRATA_UNROLL for (int g = 0; g < kStep; ++g) {
        store_blocks8(scale(r[2 * g], s[4 * g], sd, mean), scale(r[2 * g], s[4 * g + 1], sd, mean),
                      scale(r[2 * g + 1], s[4 * g + 2], sd, mean), scale(r[2 * g + 1], s[4 * g + 3], sd, mean),
                      out + 4 * (i + 8 * (g0 + g)));
      }
    }
  }
  alignas(64) double tail[32];
  for (; i < nb; i += 8) {
    __m512i x0, y0, x1, y1;
    philox8(_mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i)), lane_iota()), k, x0, y0, x1, y1);
    const __m512d r0 = radius8(x0), r1 = radius8(x1);
    double* dst = nb - i >= 8 ? out + 4 * i : tail;
    store_blocks8(scale(r0, sin8(y0, zero), sd, mean), scale(r0, sin8(y0, quarter), sd, mean),
                  scale(r1, sin8(y1, zero), sd, mean), scale(r1, sin8(y1, quarter), sd, mean), dst);
    if (dst == tail) std::memcpy(out + 4 * i, tail, sizeof(double) * 4 * (nb - i));
  }
}

STRATA_AVX512 void normal_step2(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m512d sd = _mm512_set1_pd(p.sd), mean = _mm512_set1_pd(p.mean);
  const __m512i shift = _mm512_set1_epi64(parity ? int64_t{1} << 62 : 0);
  const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  // Stages of 64 blocks: the Philox words of eight groups in lockstep, then the kept values
  // (words 0 and 2 of each block: radius from the first word of a pair, sine of the second)
  // four word pairs at a time. Per value the operations are the tail loop's below.
  constexpr int kGroups = 8, kPairs = 4;
  const __m512i shifts[kPairs] = {shift, shift, shift, shift};
  int64_t i = 0;
  for (; i + 8 * kGroups <= nb; i += 8 * kGroups) {
    __m512i w[kGroups][4];
    __m512i blk[kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g)
      blk[g] = _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(b0 + i + 8 * g)), lane_iota());
    philox_lanes<kGroups>(blk, k, w);
    for (int g0 = 0; g0 < kGroups; g0 += kPairs / 2) {
      __m512i xs[kPairs], ys[kPairs];
      STRATA_UNROLL for (int q = 0; q < kPairs; ++q) {
        xs[q] = w[g0 + q / 2][2 * (q & 1)];
        ys[q] = w[g0 + q / 2][2 * (q & 1) + 1];
      }
      __m512d r[kPairs], s[kPairs];
      radius_lanes<kPairs>(xs, r);
      sin_lanes<kPairs>(ys, shifts, s);
      STRATA_UNROLL for (int q = 0; q < kPairs; q += 2) {
        const __m512d a = scale(r[q], s[q], sd, mean), b = scale(r[q + 1], s[q + 1], sd, mean);
        double* o = out + 2 * (i + 8 * (g0 + q / 2));
        _mm512_storeu_pd(o, _mm512_permutex2var_pd(a, lo, b));
        _mm512_storeu_pd(o + 8, _mm512_permutex2var_pd(a, hi, b));
      }
    }
  }
  alignas(64) double tail[16];
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
