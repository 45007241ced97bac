// Random arrays: chunking/slicing invariance, slice pushdown counts and distribution checks.
// The generator itself (Philox, transforms, kernels) is tested in core/random_test.cpp.
#include <cmath>
#include <map>

#include "array/array_test_util.hpp"

namespace strata {
namespace {

using testing::values;

TEST(RandomArray, ChunkingAndThreadInvariance) {
  const Shape shape{23, 31};
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<double> ref;
    for (const Shape& c : testing::chunkings_2d()) {
      Array x = kind == 0   ? Array::random_normal(shape, c, 1.0, 3.0, 99)
                : kind == 1 ? Array::random_uniform(shape, c, 99)
                            : Array::random_integers(shape, c, -3, 1000, 99).astype(DType(ScalarType::Float64));
      for (int threads : {1, 3}) {
        auto v = values<double>(x, threads);
        if (ref.empty()) ref = v;
        EXPECT_TRUE(testing::same_bits(v, ref)) << "kind " << kind << " chunks " << shape_to_string(c);
      }
    }
  }
}

TEST(RandomArray, SlicesEqualSlicedFullArray) {
  const Shape shape{17, 29};
  const Array full = Array::random_normal(shape, {5, 6}, 0, 1, 5);
  const auto all = values<double>(full);
  struct Case {
    Slice r, c;
  };
  const std::vector<Case> cases = {{Slice::every(2), Slice::every(2)}, {Slice::range(3, 15, 3), Slice::every(-1)},
                                   {Slice::every(-2), Slice::range(-5, 2, -3)}, {Slice::range(16, 17), Slice::all()}};
  for (const Case& cs : cases) {
    const Array s = full.slice({cs.r, cs.c});
    const Array s_other = Array::random_normal(shape, {3, 29}, 0, 1, 5).slice({cs.r, cs.c});
    const auto got = values<double>(s), got2 = values<double>(s_other);
    // Reference: index arithmetic on the full array.
    auto idx = [](const Slice& sl, int64_t n) {
      std::vector<int64_t> out;
      const int64_t st = sl.step;
      int64_t b = sl.start.value_or(st > 0 ? 0 : n - 1), e = sl.stop.value_or(st > 0 ? n : -1 - n);
      if (b < 0) b += n;
      if (e < 0) e += n;
      for (int64_t i = b; st > 0 ? i < std::min(e, n) : i > std::max<int64_t>(e, -1); i += st) out.push_back(i);
      return out;
    };
    std::vector<double> ref;
    for (int64_t i : idx(cs.r, shape[0])) {
      for (int64_t j : idx(cs.c, shape[1])) ref.push_back(all[i * shape[1] + j]);
    }
    EXPECT_TRUE(testing::same_bits(got, ref));
    EXPECT_TRUE(testing::same_bits(got2, ref));
  }
}

TEST(RandomArray, SlicePushdownGeneratesOnlyNeededElements) {
  const Array x = Array::random_normal({1000, 998}, {100, 100}, 10, 1, 0);
  RunReport rep;
  auto v = values<double>(sum((x + 1).slice({Slice::every(2), Slice::every(3)})), 2, &rep);
  EXPECT_EQ(rep.elements_generated, 500 * 333);
  RunReport rep2;
  values<double>(sum(x.slice({Slice::range(10, 20), Slice::range(5, 6)}) * 2.0), 1, &rep2);
  EXPECT_EQ(rep2.elements_generated, 10);
}

TEST(RandomArray, Distributions) {
  const int64_t n = 1 << 21;
  auto moments = [](const std::vector<double>& v) {
    double m = 0, s2 = 0;
    for (double x : v) m += x;
    m /= v.size();
    for (double x : v) s2 += (x - m) * (x - m);
    return std::pair<double, double>(m, s2 / v.size());
  };
  const auto z = values<double>(Array::random_normal({n}, {1 << 16}, 3.0, 2.0, 11));
  auto [zm, zv] = moments(z);
  EXPECT_NEAR(zm, 3.0, 5 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(zv, 4.0, 5 * 4.0 * std::sqrt(2.0 / n));
  int64_t beyond3 = 0;
  for (double x : z) beyond3 += std::fabs(x - 3.0) > 6.0;
  EXPECT_NEAR(static_cast<double>(beyond3) / n, 0.0026998, 0.0006);
  const auto u = values<double>(Array::random_uniform({n}, {1 << 16}, 12));
  auto [um, uv] = moments(u);
  EXPECT_NEAR(um, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(uv, 1.0 / 12, 0.002);
  for (double x : u) ASSERT_TRUE(x >= 0.0 && x < 1.0);
  const auto uf = values<float>(Array::random_uniform({n}, {1 << 16}, 12, DType(ScalarType::Float32)));
  for (float x : uf) ASSERT_TRUE(x >= 0.0f && x < 1.0f);
  // Small integer ranges: every value equally likely (chi-square, 2 dof, p ~ 1e-6 threshold).
  const auto k = values<int64_t>(Array::random_integers({n}, {1 << 16}, 5, 8, 13));
  std::map<int64_t, int64_t> counts;
  for (int64_t x : k) counts[x]++;
  ASSERT_EQ(counts.size(), 3u);
  double chi2 = 0;
  for (auto [val, c] : counts) {
    EXPECT_GE(val, 5);
    EXPECT_LT(val, 8);
    chi2 += (c - n / 3.0) * (c - n / 3.0) / (n / 3.0);
  }
  EXPECT_LT(chi2, 27.6);
  const auto one = values<int64_t>(Array::random_integers({100}, {7}, -4, -3, 1));
  for (int64_t x : one) EXPECT_EQ(x, -4);
}

TEST(RandomArray, InvalidArguments) {
  STRATA_EXPECT_STATUS(Array::random_integers({3}, {1}, 5, 5, 0).status(), StatusCode::Invalid, "low < high");
  STRATA_EXPECT_STATUS(Array::random_normal({3}, {1}, 0, -1, 0).status(), StatusCode::Invalid, "sd >= 0");
  STRATA_EXPECT_STATUS(Array::random_uniform({3, 3}, {1}, 0).status(), StatusCode::Invalid, "rank");
}

}  // namespace
}  // namespace strata
