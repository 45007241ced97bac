// The shared host/device element code (random_hd.hpp): the values the CUDA kernels compute with
// it are, on the host, exactly what random::fill writes — every distribution and output type,
// contiguous, strided, sliced and backwards runs, bit for bit. Runs everywhere (no device).
#include "core/random_hd.hpp"

#include <cstring>
#include <vector>

#include "testing/testing.hpp"

namespace strata::random {
namespace {

std::vector<FillParams> every_kind() {
  std::vector<FillParams> all;
  for (ScalarType t : {ScalarType::Float64, ScalarType::Float32}) {
    FillParams n;
    n.dist = Dist::Normal;
    n.seed = 0x1234567890abcdefull;
    n.stream = 3;
    n.mean = 10.0;
    n.sd = 2.5;
    n.out = t;
    all.push_back(n);
    FillParams u;
    u.dist = Dist::Uniform;
    u.seed = 42;
    u.out = t;
    all.push_back(u);
  }
  FillParams i;
  i.dist = Dist::Integers;
  i.seed = 7;
  i.low = -5;
  i.range = 3;  // randint(-5, -2): the SVD bench's small ranges
  all.push_back(i);
  i.low = 0;
  i.range = ~uint64_t{0};  // the full 64-bit range: the high half of the 128-bit product
  all.push_back(i);
  return all;
}

TEST(RandomSharedElementCode, StoreElementEqualsFill) {
  struct Run {
    int64_t e0, step, n;
  };
  // Contiguous with every alignment to a Philox block, step 2 (a [::2] slice) of both
  // parities, long strides (one block per element), broadcast and backwards.
  const Run runs[] = {{0, 1, 1000}, {1, 1, 37}, {3, 1, 129}, {0, 2, 300}, {1, 2, 301}, {6, 2, 5},
                      {5, 1000003, 40}, {123456789012, 7, 50}, {99, 0, 4}, {4000, -3, 100}};
  for (const FillParams& p : every_kind()) {
    const int64_t size = DType(p.out).itemsize();
    for (const Run& r : runs) {
      std::vector<uint8_t> got(static_cast<size_t>(r.n * size));
      for (int64_t k = 0; k < r.n; ++k) detail::store_element(p, static_cast<uint64_t>(r.e0 + k * r.step), got.data(), k);
      // Against the bulk kernels (word runs, block-shared normals; AVX-512 where the CPU has it).
      for (Isa isa : {Isa::Portable, Isa::Avx512}) {
        if (!isa_available(isa)) continue;
        std::vector<uint8_t> want(got.size());
        fill(p, r.e0, r.step, r.n, want.data(), isa);
        EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size()), 0)
            << isa_name(isa) << " dist " << int(p.dist) << " out " << DType(p.out).name() << " run " << r.e0
            << "+k*" << r.step;
      }
    }
  }
}

}  // namespace
}  // namespace strata::random
