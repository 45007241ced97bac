#pragma once
// The simulator's draws on top of the array layer's Philox4x32-10 (strata/array/philox.hpp,
// formats.md §9): every random word is a pure function of (seed, stream, element index), so
// simulated data does not depend on chunking or threads. The transforms below (53-bit
// uniform from two words, Box–Muller, gamma, beta) are the simulator's own and pin its output.

#include <array>
#include <cmath>
#include <cstdint>

#include "strata/array/philox.hpp"

namespace strata::genomics::detail {

/// The shared round function under the names the simulator's vector kernels use.
struct Philox {
  static constexpr uint32_t kM0 = kPhiloxM0, kM1 = kPhiloxM1;
  static constexpr uint32_t kW0 = kPhiloxW0, kW1 = kPhiloxW1;

  /// One Philox4x32-10 block for counter (c0..c3) and key (k0, k1).
  static constexpr std::array<uint32_t, 4> block(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                                 uint32_t k0, uint32_t k1) {
    return philox4x32_10({c0, c1, c2, c3}, {k0, k1});
  }
};

/// Streams: the purpose of a draw, in counter words 2..3 (formats.md §9 keying).
enum Stream : uint32_t {
  kStreamAlleles = 0,     ///< element = 2·(v·N + s) + allele
  kStreamMissing = 1,     ///< element = v·N + s
  kStreamVariant = 2,     ///< per-variant frequency draws (sequential within the variant)
  kStreamPopulation = 3,  ///< element = sample index
};

/// The 4-word block holding element e of `stream` (word e mod 4 is element e's).
inline std::array<uint32_t, 4> philox_at(uint64_t seed, uint32_t stream, uint64_t e) {
  return philox_block(seed, stream, e >> 2);
}

/// Uniform in (0, 1) from 32 random bits (never 0 or 1).
inline double uniform01(uint32_t x) { return (double(x) + 0.5) * 0x1p-32; }

/// Sequential draws of one variant: block j of counter {lo(v), hi(v), stream, j}.
class VariantDraws {
 public:
  VariantDraws(uint64_t seed, uint64_t variant) : seed_(seed), v_(variant) {}
  uint32_t next_u32() {
    if (pos_ == 4) {
      buf_ = Philox::block(static_cast<uint32_t>(v_), static_cast<uint32_t>(v_ >> 32),
                           kStreamVariant, j_++, static_cast<uint32_t>(seed_),
                           static_cast<uint32_t>(seed_ >> 32));
      pos_ = 0;
    }
    return buf_[pos_++];
  }
  double uniform() {
    // 53-bit uniform in (0, 1) from two words.
    const uint64_t a = next_u32() >> 5, b = next_u32() >> 6;
    return (double(a * 67108864u + b) + 0.5) * 0x1p-53;
  }
  double normal() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  /// Gamma(shape, 1) by Marsaglia–Tsang (shape < 1 through the U^(1/shape) boost).
  double gamma(double shape) {
    if (shape < 1.0) {
      const double g = gamma(shape + 1.0);
      return g * std::pow(uniform(), 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
      if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }
  /// Beta(a, b) as X / (X + Y) of two gammas.
  double beta(double a, double b) {
    const double x = gamma(a), y = gamma(b);
    return x / (x + y);
  }

 private:
  uint64_t seed_, v_;
  uint32_t j_ = 0;
  std::array<uint32_t, 4> buf_{};
  int pos_ = 4;
};

}  // namespace strata::genomics::detail
