#pragma once
// The linalg sketches' draws: the array layer's Philox4x32-10 (strata/array/philox.hpp,
// formats.md §9) with strata's keying: key = seed, counter = {lo(e/4), hi(e/4), lo(stream),
// hi(stream)}, word e mod 4 of the output block. The value at element e depends only on
// (seed, stream, e), so results never depend on chunking. Only the transforms live here.

#include <array>
#include <cmath>
#include <cstdint>

#include "strata/array/philox.hpp"

namespace strata::linalg::detail {

using strata::philox_block;

/// Uniform double in (0, 1) from two words (formats.md §9).
inline double uniform_f64(uint32_t x, uint32_t y) {
  const uint64_t bits = static_cast<uint64_t>(x) ^ (static_cast<uint64_t>(y) << 21);
  return static_cast<double>(bits & ((uint64_t{1} << 53) - 1)) * 0x1p-53 + 0x1p-54;
}

/// Two standard normals from two words (Box–Muller, branch free).
inline void normal_pair(uint32_t x, uint32_t y, double& z0, double& z1) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const double u1 = (static_cast<double>(x) + 0.5) * 0x1p-32;
  const double theta = (static_cast<double>(y) + 0.5) * 0x1p-32 * kTwoPi;
  const double r = std::sqrt(-2.0 * std::log(u1));
  z0 = r * std::sin(theta);
  z1 = r * std::cos(theta);
}

/// Standard normal at element e of (seed, stream): block e/4 gives four normals.
inline double normal_at(uint64_t seed, uint64_t stream, uint64_t e) {
  const auto w = philox_block(seed, stream, e / 4);
  double z[4];
  normal_pair(w[0], w[1], z[0], z[1]);
  normal_pair(w[2], w[3], z[2], z[3]);
  return z[e % 4];
}

}  // namespace strata::linalg::detail
