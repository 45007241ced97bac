#pragma once
// The element values of the CUDA backend's fused slice sum (random_kernels.cu), for the device
// and the host (slice_values_test.cpp holds them to the CPU's element code without a GPU).
#include <cmath>
#include <cstdint>

#include "core/random_hd.hpp"
#include "strata/core/random.hpp"

namespace strata::backend::cuda {

// Element values of one run, each Philox block computed once for all the consecutive elements
// that use it: normal e is the ziggurat on word e mod 4 of block e / 4, uniform e comes from
// block e / 2. The value is the same expression as normal_elem / uniform_at on the cached words,
// so the same bits; the cache only removes repeated work. x + add: the two roundings the array
// engine makes, in its order.
class SliceValues {
 public:
  STRATA_HD SliceValues(const random::FillParams& p, double add) : p_(p), add_(add) {}
  STRATA_HD double operator()(uint64_t e) {
    const bool normal = p_.dist == random::Dist::Normal;
    const uint64_t b = normal ? e >> 2 : e >> 1;
    if (b != block_) {
      words_ = random::philox_block(p_.seed, p_.stream, b);
      block_ = b;
    }
    if (!normal) {
      const int j = static_cast<int>(2 * (e & 1));
      return random::uniform_f64(words_[j], words_[j + 1]) + add_;
    }
    const double z = random::detail::zig_normal(p_.seed, p_.stream, e, words_[e & 3]);
    return std::fma(z, p_.sd, p_.mean) + add_;
  }

 private:
  random::FillParams p_;
  double add_;
  uint64_t block_ = ~uint64_t{0};
  random::Words words_{};
};

}  // namespace strata::backend::cuda
