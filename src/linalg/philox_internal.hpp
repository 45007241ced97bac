#pragma once
// Philox4x32-10 (formats.md §9), keyed as strata recommends: key = seed, counter =
// {lo(e/4), hi(e/4), lo(stream), hi(stream)}, word e mod 4 of the output block. The value at
// element e depends only on (seed, stream, e), so results never depend on chunking.
// To be unified with the array layer's generator once strata/array provides one.

#include <array>
#include <cmath>
#include <cstdint>

namespace strata::linalg::detail {

inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += kW0;
    k1 += kW1;
  }
  return c;
}

/// The 4-word block holding counter index `block` of `stream` for `seed`.
inline std::array<uint32_t, 4> philox_block(uint64_t seed, uint64_t stream, uint64_t block) {
  return philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                        static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)},
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

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
