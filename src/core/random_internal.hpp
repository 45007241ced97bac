#pragma once
// Internals of the random module (random.cpp, random_avx512.cpp): the scalar Box–Muller
// reference and the AVX-512 kernels. The AVX-512 code performs exactly the same IEEE operations
// in the same order (fma where std::fma is written here, plain mul/add elsewhere; this relies
// on ISO C++ mode, where GCC does not contract a*b+c), so every path gives identical bits.

#include <bit>
#include <cmath>
#include <cstdint>

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

/// sqrt(-2 ln u) with u = (x + 0.5) * 2^-32, never 0 or 1, so the result is finite and > 0.
inline double bm_radius(uint32_t x) {
  const uint64_t v = 2 * uint64_t{x} + 1;  // u = v * 2^-33, exact in double
  const double d = static_cast<double>(v);
  const uint64_t bits = std::bit_cast<uint64_t>(d);
  const double e = static_cast<double>(static_cast<int64_t>(bits >> 52) - 1023) - 33.0;
  const double m = std::bit_cast<double>((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  const int i = static_cast<int>((bits >> 48) & 15);
  const double r = std::fma(m, kLogRecip[i], -1.0);
  double p = kLogPoly[8];
  for (int k = 7; k >= 0; --k) p = std::fma(p, r, kLogPoly[k]);
  const double t = std::fma(p, r, kLogTable[i]);  // explicit: no a*b+c left to contract
  const double ln_u = std::fma(e, kLn2, t);
  return std::sqrt(ln_u * -2.0);
}

/// sin(2*pi*n*2^-33) for odd n in (-2^32, 2^32): folded exactly in integers to |angle| <= pi/2.
inline double sin_turns_odd(int64_t n) {
  constexpr int64_t kQuarter = int64_t{1} << 31, kHalf = int64_t{1} << 32;
  if (n > kQuarter) n = kHalf - n;
  if (n < -kQuarter) n = -kHalf - n;
  const double a = static_cast<double>(n) * kTwoPiOver2p33;
  const double a2 = a * a;
  double s = kSinPoly[8];
  for (int k = 7; k >= 0; --k) s = std::fma(s, a2, kSinPoly[k]);
  const double a3 = a2 * a;
  return std::fma(a3, s, a);
}

/// sin(2*pi*(y + 0.5) * 2^-32); cos is the same with y + 2^30.
inline double sin_turns(uint32_t y) { return sin_turns_odd(2 * static_cast<int64_t>(static_cast<int32_t>(y)) + 1); }

inline double normal_words(uint32_t x, uint32_t y) { return bm_radius(x) * sin_turns(y); }

/// Words of element e's Box–Muller pair, the cosine branch folded into y (odd e).
inline double normal_elem(uint64_t seed, uint64_t stream, uint64_t e) {
  const Words w = philox_block(seed, stream, e >> 2);
  const int pair = static_cast<int>((e >> 1) & 1);
  return normal_words(w[2 * pair], w[2 * pair + 1] + ((e & 1) ? (1u << 30) : 0u));
}

// AVX-512 kernels (random_avx512.cpp); callers check isa_available(Isa::Avx512) first.
namespace avx512 {
/// Normal values (fma(z, sd, mean)) of elements 4*b0 .. 4*(b0+nb)-1 (4 per block).
void normal_contig(const FillParams& p, uint64_t b0, int64_t nb, double* out);
/// Elements 4b+parity and 4b+2+parity for blocks b0 .. b0+nb-1 (a step-2 run), 2 per block.
void normal_step2(const FillParams& p, uint64_t b0, int64_t nb, int parity, double* out);
/// Elements e0 + k*step, one Philox block each (any step).
void normal_strided(const FillParams& p, uint64_t e0, int64_t step, int64_t n, double* out);
/// Raw words of blocks b0 .. b0+nb-1, 4 per block, block-major.
void philox_words(uint64_t seed, uint64_t stream, uint64_t b0, int64_t nb, uint32_t* out);
}  // namespace avx512

}  // namespace strata::random::detail
