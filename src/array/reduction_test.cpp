// Reductions against loops (whole and per axis, keepdims, dtypes), bit-identical results for
// any thread count, and NaN handling.
#include <cmath>
#include <limits>

#include "array/array_test_util.hpp"

namespace strata {
namespace {

using testing::host;
using testing::values;

double fv(int64_t i) { return std::sin(0.37 * i) * 10 + (i % 5); }

TEST(Reduction, AllOpsAllAxesAllChunkings) {
  const Shape shape{6, 7};
  for (const Shape& ch : testing::chunkings_2d()) {
    const Array a = host<double>(shape, ch, fv);
    for (int axis = -1; axis < 2; ++axis) {
      const Axes ax = axis < 0 ? Axes{} : Axes{axis};
      const int64_t outer = axis == 0 ? 7 : axis == 1 ? 6 : 1;
      const int64_t inner = axis < 0 ? 42 : shape[axis];
      auto elem = [&](int64_t o, int64_t k) {
        if (axis < 0) return fv(k);
        return axis == 0 ? fv(k * 7 + o) : fv(o * 7 + k);
      };
      const auto s = values<double>(sum(a, ax)), m = values<double>(mean(a, ax));
      const auto v = values<double>(var(a, ax)), sd = values<double>(stddev(a, ax, 1));
      const auto mn = values<double>(min(a, ax)), mx = values<double>(max(a, ax));
      const auto cnt = values<int64_t>(count_nonzero(a > 3.0, ax));
      ASSERT_EQ(s.size(), static_cast<size_t>(outer));
      for (int64_t o = 0; o < outer; ++o) {
        double rs = 0, rmn = INFINITY, rmx = -INFINITY;
        int64_t rc = 0;
        for (int64_t k = 0; k < inner; ++k) {
          rs += elem(o, k);
          rmn = std::min(rmn, elem(o, k));
          rmx = std::max(rmx, elem(o, k));
          rc += elem(o, k) > 3.0;
        }
        double rv = 0;
        for (int64_t k = 0; k < inner; ++k) rv += (elem(o, k) - rs / inner) * (elem(o, k) - rs / inner);
        EXPECT_NEAR(s[o], rs, 1e-12) << "axis " << axis << " chunks " << shape_to_string(ch);
        EXPECT_NEAR(m[o], rs / inner, 1e-13);
        EXPECT_NEAR(v[o], rv / inner, 1e-12);
        EXPECT_NEAR(sd[o], std::sqrt(rv / (inner - 1)), 1e-12);
        EXPECT_EQ(mn[o], rmn);
        EXPECT_EQ(mx[o], rmx);
        EXPECT_EQ(cnt[o], rc);
      }
    }
  }
}

TEST(Reduction, ThreeDimensionalKeepdimsAndDtypes) {
  const Array a = host<int16_t>({3, 4, 5}, {2, 3, 2}, [](int64_t i) { return i * 37 % 101 - 50; });
  const Array s = sum(a, {0, 2}, true);
  EXPECT_EQ(s.shape(), (Shape{1, 4, 1}));
  EXPECT_EQ(s.dtype().type, ScalarType::Int64);
  const auto got = values<int64_t>(s);
  for (int64_t j = 0; j < 4; ++j) {
    int64_t r = 0;
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t k = 0; k < 5; ++k) r += ((i * 20 + j * 5 + k) * 37 % 101) - 50;
    }
    EXPECT_EQ(got[j], r);
  }
  EXPECT_EQ(sum(host<uint8_t>({3}, {1}, [](int64_t i) { return 200 + i; })).dtype().type, ScalarType::UInt64);
  EXPECT_EQ(values<uint64_t>(sum(host<uint8_t>({3}, {1}, [](int64_t i) { return 200 + i; })))[0], 603u);
  EXPECT_EQ(mean(a).dtype().type, ScalarType::Float64);
  EXPECT_EQ(sum(Array::full({3}, {2}, 1.5, DType(ScalarType::Float32))).dtype().type, ScalarType::Float32);
  EXPECT_EQ(min(a).dtype().type, ScalarType::Int16);
  STRATA_EXPECT_STATUS(sum(a, {3}).status(), StatusCode::Invalid, "out of bounds");
  STRATA_EXPECT_STATUS(min(a.slice({Slice::range(0, 0)})).status(), StatusCode::Invalid, "no identity");
}

TEST(Reduction, BitIdenticalForAnyThreadCount) {
  const Array x = Array::random_normal({300, 257}, {37, 19}, 10, 1, 3);
  for (const Array& r : {sum(x), sum(x, {0}), var(x, {1}), mean(x * x + 1)}) {
    const auto one = values<double>(r, 1);
    EXPECT_TRUE(testing::same_bits(one, values<double>(r, 2)));
    EXPECT_TRUE(testing::same_bits(one, values<double>(r, 3)));
  }
}

TEST(Reduction, NanPropagates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Array a = host<double>({5}, {2}, [&](int64_t i) { return i == 3 ? nan : double(i); });
  EXPECT_TRUE(std::isnan(values<double>(max(a))[0]));
  EXPECT_TRUE(std::isnan(values<double>(min(a))[0]));
  EXPECT_TRUE(std::isnan(values<double>(sum(a))[0]));
}

TEST(Reduction, ReductionInsideExpression) {
  const Array x = host<double>({4, 3}, {3, 2}, fv);
  const auto centred = values<double>(x - mean(x, {0}));
  const auto means = values<double>(mean(x, {0}));
  for (int64_t i = 0; i < 12; ++i) EXPECT_NEAR(centred[i], fv(i) - means[i % 3], 1e-12);
  EXPECT_NEAR(values<double>(sum(x - mean(x)))[0], 0.0, 1e-12);
}

}  // namespace
}  // namespace strata
