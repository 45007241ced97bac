#pragma once
// The scalar Box–Muller reference and the per-element values of strata/core/random.hpp, as
// __host__ __device__ code: random.cpp's portable kernels and the CUDA backend's kernels compile
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

/// sqrt(-2 ln u) with u = (x + 0.5) * 2^-32, never 0 or 1, so the result is finite and > 0.
STRATA_HD inline double bm_radius(uint32_t x) {
  const uint64_t v = 2 * uint64_t{x} + 1;  // u = v * 2^-33, exact in double
  const double d = static_cast<double>(v);
  const uint64_t bits = double_bits(d);
  const double e = static_cast<double>(static_cast<int64_t>(bits >> 52) - 1023) - 33.0;
  const double m = bits_double((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  const int i = static_cast<int>((bits >> 48) & 15);
  const double r = std::fma(m, STRATA_RANDOM_TABLE(kLogRecip, i), -1.0);
  double p = STRATA_RANDOM_TABLE(kLogPoly, 8);
  for (int k = 7; k >= 0; --k) p = std::fma(p, r, STRATA_RANDOM_TABLE(kLogPoly, k));
  const double t = std::fma(p, r, STRATA_RANDOM_TABLE(kLogTable, i));  // explicit: no a*b+c left to contract
  const double ln_u = std::fma(e, kLn2, t);
  return std::sqrt(ln_u * -2.0);
}

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

/// Words of element e's Box–Muller pair, the cosine branch folded into y (odd e).
STRATA_HD inline double normal_elem(uint64_t seed, uint64_t stream, uint64_t e) {
  const Words w = philox_block(seed, stream, e >> 2);
  const int pair = static_cast<int>((e >> 1) & 1);
  return normal_words(w[2 * pair], w[2 * pair + 1] + ((e & 1) ? (1u << 30) : 0u));
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
