// concatenate and reshape against loops, for chunkings and strided boxes of their results.
#include "array/array_test_util.hpp"

namespace strata {
namespace {

using testing::host;
using testing::values;

TEST(Concatenate, MatchesLoopsAlongEachAxisAndThroughSlices) {
  for (const Shape& ch : testing::chunkings_2d()) {
    const Array a = host<int32_t>({3, 4}, ch, [](int64_t i) { return i; });
    const Array b = host<int32_t>({2, 4}, {1, 2}, [](int64_t i) { return 100 + i; });
    const Array c = host<int32_t>({3, 1}, {2, 1}, [](int64_t i) { return -1 - i; });
    const auto rows = values<int32_t>(concatenate({a, b}, 0));
    std::vector<int32_t> ref;
    for (int i = 0; i < 12; ++i) ref.push_back(i);
    for (int i = 0; i < 8; ++i) ref.push_back(100 + i);
    EXPECT_EQ(rows, ref);
    const Array cols = concatenate({a, c, a}, 1);
    EXPECT_EQ(cols.shape(), (Shape{3, 9}));
    const auto v = values<int32_t>(cols);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 9; ++j) {
        const int32_t want = j < 4 ? i * 4 + j : j == 4 ? -1 - i : i * 4 + (j - 5);
        EXPECT_EQ(v[i * 9 + j], want) << i << "," << j;
      }
    }
    // A reversed, strided slice across the borders reads the right parts of each input.
    const auto s = values<int32_t>(cols.slice({Slice::all(), Slice::range(8, 0, -3)}));
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(s[i * 3 + 0], i * 4 + 3);
      EXPECT_EQ(s[i * 3 + 1], i * 4 + 0);
      EXPECT_EQ(s[i * 3 + 2], i * 4 + 2);
    }
  }
}

TEST(Concatenate, RefusesMismatches) {
  const Array a = host<float>({2, 3}, {1, 3}, [](int64_t i) { return float(i); });
  const Array b = host<double>({2, 3}, {1, 3}, [](int64_t i) { return double(i); });
  STRATA_EXPECT_STATUS(concatenate({a, b}, 0).status(), StatusCode::Invalid, "dtypes differ");
  STRATA_EXPECT_STATUS(concatenate({a, a.slice({Slice::all(), Slice::range(0, 2)})}, 0).status(),
                       StatusCode::Invalid, "differ off axis 0");
  STRATA_EXPECT_STATUS(concatenate({a}, 2).status(), StatusCode::Invalid, "axis out of range");
  STRATA_EXPECT_STATUS(concatenate({}, 0).status(), StatusCode::Invalid, "no arrays");
}

TEST(Reshape, KeepsCOrderForAnyChunkingAndStridedReads) {
  for (const Shape& ch : testing::chunkings_2d()) {
    const Array a = host<int64_t>({6, 10}, ch, [](int64_t i) { return i * 3; });
    const Array r = reshape(a + 1, {4, 3, 5});
    EXPECT_EQ(r.shape(), (Shape{4, 3, 5}));
    const auto v = values<int64_t>(r);
    for (int64_t i = 0; i < 60; ++i) EXPECT_EQ(v[i], i * 3 + 1);
    const auto s = values<int64_t>(r.slice({Slice::range(3, 0, -2), Slice::all(), Slice::every(2)}));
    std::vector<int64_t> ref;
    for (int64_t i = 3; i > 0; i -= 2) {
      for (int64_t j = 0; j < 3; ++j) {
        for (int64_t k = 0; k < 5; k += 2) ref.push_back((i * 15 + j * 5 + k) * 3 + 1);
      }
    }
    EXPECT_EQ(s, ref);
    EXPECT_EQ(values<int64_t>(sum(reshape(a, {60})))[0], 3 * 59 * 60 / 2);
  }
  const Array scalar = host<double>({}, {}, [](int64_t) { return 2.5; });
  EXPECT_EQ(values<double>(reshape(scalar, {1, 1})), std::vector<double>{2.5});
  const Array a = host<double>({2, 3}, {1, 3}, [](int64_t i) { return double(i); });
  STRATA_EXPECT_STATUS(reshape(a, {4, 2}).status(), StatusCode::Invalid, "cannot reshape");
}

TEST(Reshape, OfAnEmptyArrayIsEmptyWithoutReadingIt) {
  // a zero-length axis makes the input's row stride 0: the planner's cover must not divide by it
  const Array a = host<int8_t>({4, 4, 2}, {1, 1, 1}, [](int64_t i) { return int8_t(i); });
  const Array empty = a.slice({Slice::range(0, 0), Slice::range(0, 0), Slice::range(0, 0)});
  for (const Shape& to : {Shape{0, 0}, Shape{0}, Shape{2, 0, 3}}) {
    const Array r = reshape(empty, to);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r.shape(), to);
    EXPECT_TRUE(values<int8_t>(r).empty());
  }
  EXPECT_TRUE(values<int8_t>(reshape(a.slice({Slice::range(0, 0), Slice::all(), Slice::all()}), {0, 8})).empty());
}

}  // namespace
}  // namespace strata
