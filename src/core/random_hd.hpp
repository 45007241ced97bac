#pragma once
// The scalar references of strata/core/random.hpp's transforms (Box–Muller for word pairs, the
// ziggurat for normal array elements) and the per-element values, as __host__ __device__ code: random.cpp's portable kernels and the CUDA backend's kernels compile
// this one source. Exactness across devices rests on three rules:
//  - only exact integer steps, IEEE +, ×, √ (correctly rounded on both: nvcc's default
//    -prec-sqrt=true) and explicit fma;
//  - no contraction: GCC in ISO C++ mode does not turn a*b+c into an fma, and the CUDA backend
//    is compiled with -fmad=false so nvcc does not either;
//  - the same table entries: the device reads copies initialized from the host constexpr arrays.
// random_avx512.cpp performs the same operations lane-wise on the same tables.

#include <cmath>
#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

#include "core/ziggurat_tables.hpp"
#include "strata/core/random.hpp"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace strata::random::detail {

// ln(m) for m in [1, 2) uses a 16-entry table on the top 4 mantissa bits:
// ln(m) = ln((33+2i)/32) + log1p(m * 32/(33+2i) - 1), |r| <= 1/33, degree-9 Taylor (< 1e-16).
inline constexpr double kLogRecip[16] = {
    32.0 / 33, 32.0 / 35, 32.0 / 37, 32.0 / 39, 32.0 / 41, 32.0 / 43, 32.0 / 45, 32.0 / 47,
    32.0 / 49, 32.0 / 51, 32.0 / 53, 32.0 / 55, 32.0 / 57, 32.0 / 59, 32.0 / 61, 32.0 / 63};
inline constexpr double kLogTable[16] = {
    0x1.f829b0e783300p-6, 0x1.6f0d28ae56b4cp-4, 0x1.29552f81ff523p-3, 0x1.9525a9cf456b4p-3,
    0x1.fb9186d5e3e2bp-3, 0x1.2e8e2bae11d31p-2, 0x1.5d1bdbf5809cap-2, 0x1.89a3386c1425bp-2,
    0x1.b44f77bcc8f63p-2, 0x1.dd46a04c1c4a1p-2, 0x1.02552a5a5d0ffp-1, 0x1.154c3d2f4d5eap-1,
    0x1.2795e1289b11bp-1, 0x1.393e0d3562a1ap-1, 0x1.4a4f85db03ebbp-1, 0x1.5ad404c359f2dp-1};
inline constexpr double kLn2 = 0x1.62e42fefa39efp-1;
// log1p Taylor coefficients c1..c9 = (-1)^(k+1)/k.
inline constexpr double kLogPoly[9] = {1.0, -1.0 / 2, 1.0 / 3, -1.0 / 4, 1.0 / 5,
                                       -1.0 / 6, 1.0 / 7, -1.0 / 8, 1.0 / 9};

constexpr double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }
// sin(a) = a + a^3 * (c3 + a^2 (c5 + ... + a^2 c19)), |a| <= pi/2, Taylor error < 3e-16.
inline constexpr double kSinPoly[9] = {
    -1.0 / factorial(3),  1.0 / factorial(5),  -1.0 / factorial(7),
    1.0 / factorial(9),   -1.0 / factorial(11), 1.0 / factorial(13),
    -1.0 / factorial(15), 1.0 / factorial(17), -1.0 / factorial(19)};
// 2*pi / 2^33: the angle of one step of n in sin_turns_odd.
inline constexpr double kTwoPiOver2p33 = 0x1.921fb54442d18p+2 * 0x1p-33;

inline constexpr uint32_t kZigK[128] = {STRATA_ZIG_K_VALUES};
inline constexpr double kZigW[256] = {STRATA_ZIG_W_VALUES};
inline constexpr double kZigF[128] = {STRATA_ZIG_F_VALUES};
inline constexpr double kZigD[128] = {STRATA_ZIG_D_VALUES};
inline constexpr double kZigR = STRATA_ZIG_R;
inline constexpr double kZigNegInvR = STRATA_ZIG_NEG_INV_R;

#if defined(__CUDACC__)
// Device copies of the tables, entry for entry the host values (constant initializers).
static __device__ const double kLogRecipDev[16] = {
    kLogRecip[0], kLogRecip[1], kLogRecip[2],  kLogRecip[3],  kLogRecip[4],  kLogRecip[5],  kLogRecip[6],  kLogRecip[7],
    kLogRecip[8], kLogRecip[9], kLogRecip[10], kLogRecip[11], kLogRecip[12], kLogRecip[13], kLogRecip[14], kLogRecip[15]};
static __device__ const double kLogTableDev[16] = {
    kLogTable[0], kLogTable[1], kLogTable[2],  kLogTable[3],  kLogTable[4],  kLogTable[5],  kLogTable[6],  kLogTable[7],
    kLogTable[8], kLogTable[9], kLogTable[10], kLogTable[11], kLogTable[12], kLogTable[13], kLogTable[14], kLogTable[15]};
static __device__ const double kLogPolyDev[9] = {kLogPoly[0], kLogPoly[1], kLogPoly[2], kLogPoly[3], kLogPoly[4],
                                                 kLogPoly[5], kLogPoly[6], kLogPoly[7], kLogPoly[8]};
static __device__ const uint32_t kZigKDev[128] = {STRATA_ZIG_K_VALUES};
static __device__ const double kZigWDev[256] = {STRATA_ZIG_W_VALUES};
static __device__ const double kZigFDev[128] = {STRATA_ZIG_F_VALUES};
static __device__ const double kZigDDev[128] = {STRATA_ZIG_D_VALUES};
static __device__ const double kSinPolyDev[9] = {kSinPoly[0], kSinPoly[1], kSinPoly[2], kSinPoly[3], kSinPoly[4],
                                                 kSinPoly[5], kSinPoly[6], kSinPoly[7], kSinPoly[8]};
#endif

// Table entry i of `name` as the code running (host or device) sees it.
#if defined(__CUDA_ARCH__)
#define STRATA_RANDOM_TABLE(name, i) name##Dev[i]
#else
#define STRATA_RANDOM_TABLE(name, i) name[i]
#endif

STRATA_HD inline uint64_t double_bits(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  return std::bit_cast<uint64_t>(d);
#endif
}
STRATA_HD inline double bits_double(uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(b));
#else
  return std::bit_cast<double>(b);
#endif
}

/// ln(d * 2^k) for a positive normal double d and an integer k: a 16-entry table on the top 4
/// mantissa bits and a degree-9 log1p, ln = fma(exponent + k, ln 2, table + log1p).
STRATA_HD inline double ln_scaled(double d, double k) {
  const uint64_t bits = double_bits(d);
  const double e = static_cast<double>(static_cast<int64_t>(bits >> 52) - 1023) + k;
  const double m = bits_double((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  const int i = static_cast<int>((bits >> 48) & 15);
  const double r = std::fma(m, STRATA_RANDOM_TABLE(kLogRecip, i), -1.0);
  double p = STRATA_RANDOM_TABLE(kLogPoly, 8);
  for (int j = 7; j >= 0; --j) p = std::fma(p, r, STRATA_RANDOM_TABLE(kLogPoly, j));
  const double t = std::fma(p, r, STRATA_RANDOM_TABLE(kLogTable, i));  // explicit: no a*b+c left to contract
  return std::fma(e, kLn2, t);
}

/// ln u with u = (x + 0.5) * 2^-32 = (2x + 1) * 2^-33, never 0 or 1.
STRATA_HD inline double ln_word(uint32_t x) {
  return ln_scaled(static_cast<double>(2 * uint64_t{x} + 1), -33.0);  // 2x + 1 < 2^33: exact
}

/// sqrt(-2 ln u) with u = (x + 0.5) * 2^-32, finite and > 0.
STRATA_HD inline double bm_radius(uint32_t x) { return std::sqrt(ln_word(x) * -2.0); }

/// sin(2*pi*n*2^-33) for odd n in (-2^32, 2^32): folded exactly in integers to |angle| <= pi/2.
STRATA_HD inline double sin_turns_odd(int64_t n) {
  constexpr int64_t kQuarter = int64_t{1} << 31, kHalf = int64_t{1} << 32;
  if (n > kQuarter) n = kHalf - n;
  if (n < -kQuarter) n = -kHalf - n;
  const double a = static_cast<double>(n) * kTwoPiOver2p33;
  const double a2 = a * a;
  double s = STRATA_RANDOM_TABLE(kSinPoly, 8);
  for (int k = 7; k >= 0; --k) s = std::fma(s, a2, STRATA_RANDOM_TABLE(kSinPoly, k));
  const double a3 = a2 * a;
  return std::fma(a3, s, a);
}

/// sin(2*pi*(y + 0.5) * 2^-32); cos is the same with y + 2^30.
STRATA_HD inline double sin_turns(uint32_t y) {
  return sin_turns_odd(2 * static_cast<int64_t>(static_cast<int32_t>(y)) + 1);
}

STRATA_HD inline double normal_words(uint32_t x, uint32_t y) { return bm_radius(x) * sin_turns(y); }

// The normal arrays' ziggurat (Marsaglia & Tsang 2000, 128 layers). Element e's word w (word
// e mod 4 of block e / 4, as uniform_f32 uses) is layer i = w & 127, sign bit 7, j = w >> 8; the
// candidate (2j + 1) * 2^-25 * x[i] is accepted at once when j < K[i] (97.2 % of words). Otherwise
// the candidate is resolved with the words of retry blocks of e (block index 2^63 | a << 56 | e,
// a = 1, 2, ...: never a block of the array itself), one block per attempt: the tail (layer 0)
// or the wedge test, and on rejection the next candidate is word 2 of that block. So the value is
// a pure function of (seed, stream, e) whatever the chunking, the kernel or the device.

/// Whether word w's candidate is inside its layer's rectangle (accepted without a test).
STRATA_HD inline bool zig_fast(uint32_t w) { return (w >> 8) < STRATA_RANDOM_TABLE(kZigK, w & 127); }

/// Word w's candidate with its sign: (2j + 1) * W[w & 255], one rounding.
STRATA_HD inline double zig_value(uint32_t w) {
  return static_cast<double>((w >> 7) | 1u) * STRATA_RANDOM_TABLE(kZigW, w & 255);
}

/// The element-index bits of a retry block index; indices at or past 2^56 wrap.
inline constexpr uint64_t kZigRetryIndexMask = (uint64_t{1} << 56) - 1;

/// Block index of element e's retry a (1 <= a < 128): bit 63 (no array block has it), a, e.
STRATA_HD constexpr uint64_t zig_retry_block(uint64_t e, uint32_t a) {
  return (uint64_t{1} << 63) | (uint64_t{a} << 56) | (e & kZigRetryIndexMask);
}

/// One attempt on candidate w (not fast-accepted) with the words b of its retry block: true
/// with the value in z, or false with w set to the next candidate (b[2]), also not fast-accepted.
STRATA_HD inline bool zig_attempt(uint32_t& w, const Words& b, double& z) {
  const uint32_t i = w & 127;
  if (i == 0) {  // base layer past r: the tail, x = -ln(u1) / r, accepted when -2 ln(u2) >= x^2
    const double x = ln_word(b[0]) * kZigNegInvR;
    const double y = ln_word(b[1]) * -1.0;
    if (y + y >= x * x) {
      const double t = kZigR + x;
      z = (w & 128) ? -t : t;
      return true;
    }
  } else {  // wedge: a height F[i] + u * D[i] under exp(-x^2 / 2), compared in logs
    const double x = static_cast<double>((w >> 7) | 1u) * STRATA_RANDOM_TABLE(kZigW, i);
    const double u = static_cast<double>(2 * uint64_t{b[0]} + 1) * 0x1p-33;
    const double y = std::fma(u, STRATA_RANDOM_TABLE(kZigD, i), STRATA_RANDOM_TABLE(kZigF, i));
    if (ln_scaled(y, 0.0) < x * x * -0.5) {
      z = (w & 128) ? -x : x;
      return true;
    }
  }
  w = b[2];
  if (zig_fast(w)) {
    z = zig_value(w);
    return true;
  }
  return false;
}

/// Standard normal of element e whose own word is w.
STRATA_HD inline double zig_normal(uint64_t seed, uint64_t stream, uint64_t e, uint32_t w) {
  if (zig_fast(w)) return zig_value(w);
  double z = 0;
  for (uint32_t a = 1; a < 128; ++a) {
    if (zig_attempt(w, philox_block(seed, stream, zig_retry_block(e, a)), z)) return z;
  }
  return zig_value(w);  // 127 rejections in a row (probability < 1e-190): the last candidate
}

/// Standard normal element e of (seed, stream).
STRATA_HD inline double normal_elem(uint64_t seed, uint64_t stream, uint64_t e) {
  return zig_normal(seed, stream, e, philox_block(seed, stream, e >> 2)[e & 3]);
}

/// Element e of the run `p` describes, converted to p.out and stored at out[k] — what
/// random::fill writes there (random_hd_test.cpp holds the two to the same bits).
STRATA_HD inline void store_element(const FillParams& p, uint64_t e, void* out, int64_t k) {
  switch (p.dist) {
    case Dist::Normal: {
      const double v = std::fma(normal_elem(p.seed, p.stream, e), p.sd, p.mean);
      if (p.out == ScalarType::Float64) {
        static_cast<double*>(out)[k] = v;
      } else {
        static_cast<float*>(out)[k] = static_cast<float>(v);  // float32 normals: the double rounded
      }
      return;
    }
    case Dist::Uniform:
      if (p.out == ScalarType::Float64) {
        static_cast<double*>(out)[k] = uniform_at(p.seed, p.stream, e);
      } else {
        static_cast<float*>(out)[k] = uniform_f32(word_at(p.seed, p.stream, e));
      }
      return;
    case Dist::Integers:
      static_cast<int64_t*>(out)[k] = integer_at(p.seed, p.stream, e, p.low, p.range);
      return;
  }
}

}  // namespace strata::random::detail
