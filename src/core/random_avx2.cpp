// AVX2 + FMA random kernels, for CPUs without AVX-512. The layout is random_avx512.cpp's: one
// Philox block per 64-bit lane (four per vector), each 32-bit word in the low half of a lane.
// AVX2 lacks AVX-512's 64-bit conversions, getexp/getmant, 64-bit arithmetic shifts and
// two-table permutes, so those steps are done with exact equivalents: integers below 2^52 go to
// double through the 2^52 magic constant, exponent and mantissa are cut from the bits, the two
// log tables are gathered, and the sine's integer fold is done on exact doubles. Every value is
// the one random_hd.hpp computes (same IEEE operations on the same operands), so the bits equal
// the portable and AVX-512 paths.
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

/// bm_radius on the low 32 bits of each lane of x[0..N).
template <int N>
STRATA_AVX2 inline void radius_lanes(const __m256i* x, __m256d* out) {
  __m256d r[N], p[N], e[N], lt[N];
  STRATA_UNROLL for (int j = 0; j < N; ++j) {
    // v = 2x + 1 < 2^33; d = v exactly, as bm_radius's static_cast<double>(v).
    const __m256i v = _mm256_and_si256(_mm256_or_si256(_mm256_slli_epi64(x[j], 1), _mm256_set1_epi64x(1)),
                                       _mm256_set1_epi64x((int64_t{1} << 33) - 1));
    const __m256d d = small_u64_to_pd(v);
    const __m256i bits = _mm256_castpd_si256(d);
    // (biased exponent - 1023) - 33: exact small integers, as in bm_radius.
    e[j] = _mm256_sub_pd(small_u64_to_pd(_mm256_srli_epi64(bits, 52)), _mm256_set1_pd(1023.0 + 33.0));
    const __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFF)),
                                                          _mm256_set1_epi64x(0x3FF0000000000000)));
    const __m256i idx = _mm256_and_si256(_mm256_srli_epi64(bits, 48), _mm256_set1_epi64x(15));
    const __m256d rc = _mm256_i64gather_pd(kLogRecip, idx, 8);
    lt[j] = _mm256_i64gather_pd(kLogTable, idx, 8);
    r[j] = _mm256_fmadd_pd(m, rc, _mm256_set1_pd(-1.0));
    p[j] = _mm256_set1_pd(kLogPoly[8]);
  }
  for (int k = 7; k >= 0; --k) {
    STRATA_UNROLL for (int j = 0; j < N; ++j) p[j] = _mm256_fmadd_pd(p[j], r[j], _mm256_set1_pd(kLogPoly[k]));
  }
  STRATA_UNROLL for (int j = 0; j < N; ++j) {
    const __m256d t = _mm256_fmadd_pd(p[j], r[j], lt[j]);
    const __m256d ln_u = _mm256_fmadd_pd(e[j], _mm256_set1_pd(kLn2), t);
    out[j] = _mm256_sqrt_pd(_mm256_mul_pd(ln_u, _mm256_set1_pd(-2.0)));
  }
}

/// sin_turns(y + shift) on the low 32 bits of each lane of y[0..N); shift[j] holds the 32-bit
/// shift (0 or 2^30) in the low half of each lane. n = 2·int32(y + shift) + 1 and its fold to
/// |n| <= 2^31 are exact in double, so a = n·2π/2^33 is sin_turns_odd's.
template <int N>
STRATA_AVX2 inline void sin_lanes(const __m256i* y, const __m256i* shift, __m256d* out) {
  const __m256i low_dwords = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m256d quarter = _mm256_set1_pd(0x1p31), half = _mm256_set1_pd(0x1p32);
  __m256d a[N], a2[N], s[N];
  STRATA_UNROLL for (int j = 0; j < N; ++j) {
    const __m256i t = _mm256_permutevar8x32_epi32(_mm256_add_epi32(y[j], shift[j]), low_dwords);
    __m256d n = _mm256_fmadd_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(t)), _mm256_set1_pd(2.0), _mm256_set1_pd(1.0));
    n = _mm256_blendv_pd(n, _mm256_sub_pd(half, n), _mm256_cmp_pd(n, quarter, _CMP_GT_OQ));
    n = _mm256_blendv_pd(n, _mm256_sub_pd(_mm256_sub_pd(_mm256_setzero_pd(), half), n),
                         _mm256_cmp_pd(n, _mm256_sub_pd(_mm256_setzero_pd(), quarter), _CMP_LT_OQ));
    a[j] = _mm256_mul_pd(n, _mm256_set1_pd(kTwoPiOver2p33));
    a2[j] = _mm256_mul_pd(a[j], a[j]);
    s[j] = _mm256_set1_pd(kSinPoly[8]);
  }
  for (int k = 7; k >= 0; --k) {
    STRATA_UNROLL for (int j = 0; j < N; ++j) s[j] = _mm256_fmadd_pd(s[j], a2[j], _mm256_set1_pd(kSinPoly[k]));
  }
  STRATA_UNROLL for (int j = 0; j < N; ++j) out[j] = _mm256_fmadd_pd(_mm256_mul_pd(a2[j], a[j]), s[j], a[j]);
}

STRATA_AVX2 inline __m256d scale(__m256d r, __m256d s, __m256d sd, __m256d mean) {
  return _mm256_fmadd_pd(_mm256_mul_pd(r, s), sd, mean);
}

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

}  // namespace

STRATA_AVX2 void normal_contig(const FillParams& p, uint64_t b0, int64_t nb, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m256d sd = _mm256_set1_pd(p.sd), mean = _mm256_set1_pd(p.mean);
  const __m256i zero = _mm256_setzero_si256(), quarter = _mm256_set1_epi64x(1 << 30);
  const __m256i shifts[4] = {zero, quarter, zero, quarter};
  alignas(32) double tail[16];
  for (int64_t i = 0; i < nb; i += 4 * kGroups) {
    __m256i w[kGroups][4], blk[kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g) blk[g] = blocks4(b0 + i + 4 * g);
    philox_lanes<kGroups>(blk, k, w);
    for (int g = 0; g < kGroups && i + 4 * g < nb; ++g) {
      const __m256i xs[2] = {w[g][0], w[g][2]}, ys[4] = {w[g][1], w[g][1], w[g][3], w[g][3]};
      __m256d r[2], s[4];
      radius_lanes<2>(xs, r);
      sin_lanes<4>(ys, shifts, s);
      const int64_t left = nb - (i + 4 * g);
      double* dst = left >= 4 ? out + 4 * (i + 4 * g) : tail;
      store_blocks4(scale(r[0], s[0], sd, mean), scale(r[0], s[1], sd, mean), scale(r[1], s[2], sd, mean),
                    scale(r[1], s[3], sd, mean), dst);
      if (dst == tail) std::memcpy(out + 4 * (i + 4 * g), tail, sizeof(double) * 4 * left);
    }
  }
}

STRATA_AVX2 void normal_step2(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m256d sd = _mm256_set1_pd(p.sd), mean = _mm256_set1_pd(p.mean);
  const __m256i shift = _mm256_set1_epi64x(parity ? 1 << 30 : 0);
  const __m256i shifts[2 * kGroups] = {shift, shift, shift, shift, shift, shift};
  alignas(32) double tail[8];
  for (int64_t i = 0; i < nb; i += 4 * kGroups) {
    __m256i w[kGroups][4], blk[kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g) blk[g] = blocks4(b0 + i + 4 * g);
    philox_lanes<kGroups>(blk, k, w);
    __m256i xs[2 * kGroups], ys[2 * kGroups];
    STRATA_UNROLL for (int g = 0; g < kGroups; ++g) {
      xs[2 * g] = w[g][0], ys[2 * g] = w[g][1];
      xs[2 * g + 1] = w[g][2], ys[2 * g + 1] = w[g][3];
    }
    __m256d r[2 * kGroups], s[2 * kGroups];
    radius_lanes<2 * kGroups>(xs, r);
    sin_lanes<2 * kGroups>(ys, shifts, s);
    for (int g = 0; g < kGroups && i + 4 * g < nb; ++g) {
      const int64_t left = nb - (i + 4 * g);
      double* dst = left >= 4 ? out + 2 * (i + 4 * g) : tail;
      store_pairs4(scale(r[2 * g], s[2 * g], sd, mean), scale(r[2 * g + 1], s[2 * g + 1], sd, mean), dst);
      if (dst == tail) std::memcpy(out + 2 * (i + 4 * g), tail, sizeof(double) * 2 * left);
    }
  }
}

STRATA_AVX2 void normal_strided(const FillParams& p, uint64_t e0, int64_t step, int64_t n, double* out) {
  Keys k;
  make_keys(p.seed, p.stream, k);
  const __m256d sd = _mm256_set1_pd(p.sd), mean = _mm256_set1_pd(p.mean);
  const __m256i lane_step = _mm256_setr_epi64x(0, step, 2 * step, 3 * step);
  const __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
  for (int64_t i = 0; i < n; i += 4) {
    const __m256i e = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<int64_t>(e0 + i * step)), lane_step);
    __m256i w[1][4];
    const __m256i blk = _mm256_srli_epi64(e, 2);
    philox_lanes<1>(&blk, k, w);
    const __m256i second = _mm256_cmpeq_epi64(_mm256_and_si256(e, two), two);
    const __m256i x = _mm256_blendv_epi8(w[0][0], w[0][2], second), y = _mm256_blendv_epi8(w[0][1], w[0][3], second);
    const __m256i shift = _mm256_slli_epi64(_mm256_and_si256(e, one), 30);
    __m256d r, s;
    radius_lanes<1>(&x, &r);
    sin_lanes<1>(&y, &shift, &s);
    const __m256d z = scale(r, s, sd, mean);
    const int64_t left = n - i;
    if (left >= 4) {
      _mm256_storeu_pd(out + i, z);
    } else {
      const __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
      _mm256_maskstore_pd(out + i, mask, z);
    }
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
