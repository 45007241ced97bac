// The fused slice sum's cached element values (slice_values.hpp) against the CPU's element code
// bit for bit, over runs that start anywhere in a Philox block, with steps 1, 2, 3 and a jump
// (a new row), as the kernel visits them. Needs no GPU.
#include "backend/cuda/slice_values.hpp"

#include <gtest/gtest.h>

#include <bit>

namespace strata::backend::cuda {
namespace {

TEST(CudaSliceValues, SameBitsAsTheElementCode) {
  random::FillParams p;
  p.seed = 0xabcdef12345ull;
  p.stream = 3;
  p.mean = 10.0;
  p.sd = 1.5;
  for (random::Dist dist : {random::Dist::Normal, random::Dist::Uniform})
    for (uint64_t e0 : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, (uint64_t{1} << 34) + 5})
      for (uint64_t step : {uint64_t{1}, uint64_t{2}, uint64_t{3}}) {
        p.dist = dist;
        SliceValues value(p, 1.0);
        for (uint64_t k = 0; k < 40; ++k) {
          const uint64_t e = e0 + k * step + (k >= 20 ? 1000 : 0);  // a jump half way
          const double want = dist == random::Dist::Normal
                                  ? std::fma(random::detail::normal_elem(p.seed, p.stream, e), p.sd, p.mean) + 1.0
                                  : random::uniform_at(p.seed, p.stream, e) + 1.0;
          ASSERT_EQ(std::bit_cast<uint64_t>(value(e)), std::bit_cast<uint64_t>(want)) << e0 << " " << step << " " << k;
        }
      }
}

}  // namespace
}  // namespace strata::backend::cuda
