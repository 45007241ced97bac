// Slicing, transpose, rechunk, matmul and map_blocks against loops.
#include "core/test_context.hpp"
#include "array/array_test_util.hpp"
#include "array/node.hpp"

using strata::testing::test_ctx;

namespace strata {
namespace {

using testing::host;
using testing::values;

TEST(Slicing, NegativeStepsAndComposition) {
  const Array a = host<int64_t>({9, 8}, {4, 3}, [](int64_t i) { return i; });
  const auto v = values<int64_t>(a.slice({Slice::range(7, 1, -2), Slice::every(-3)}));
  std::vector<int64_t> ref;
  for (int64_t i = 7; i > 1; i -= 2) {
    for (int64_t j = 7; j >= 0; j -= 3) ref.push_back(i * 8 + j);
  }
  EXPECT_EQ(v, ref);
  const Array ss = a.slice({Slice::range(1, 9, 2)}).slice({Slice::every(-1), Slice::range(2, -1)});
  EXPECT_EQ(ss.node()->inputs()[0], a.node().get());  // slice of slice = one slice of the source
  const auto w = values<int64_t>(ss);
  std::vector<int64_t> ref2;
  for (int64_t i = 7; i >= 1; i -= 2) {
    for (int64_t j = 2; j < 7; ++j) ref2.push_back(i * 8 + j);
  }
  EXPECT_EQ(w, ref2);
  EXPECT_EQ(a.slice({Slice::range(5, 2)}).shape(), (Shape{0, 8}));
  EXPECT_EQ(values<int64_t>(sum(a.slice({Slice::range(5, 2)})))[0], 0);
  STRATA_EXPECT_STATUS(a.slice({Slice::every(0)}).status(), StatusCode::Invalid, "zero");
}

TEST(Transpose, MatchesLoops) {
  const Array a = host<float>({3, 4, 5}, {2, 3, 2}, [](int64_t i) { return float(i); });
  const Array t = transpose(a, {2, 0, 1});
  EXPECT_EQ(t.shape(), (Shape{5, 3, 4}));
  const auto v = values<float>(t);
  for (int64_t k = 0; k < 5; ++k) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(v[(k * 3 + i) * 4 + j], float(i * 20 + j * 5 + k));
    }
  }
  const auto tt = values<float>(transpose(a).slice({Slice::every(2)}) + 1);
  EXPECT_EQ(tt[0], 1.0f);
  EXPECT_EQ(a.rechunk({1, 1, 1}).chunks(), (Shape{1, 1, 1}));
  EXPECT_EQ(values<float>(a.rechunk({1, 1, 1})), values<float>(a));
}

TEST(Matmul, MatchesLoopsForChunkings) {
  auto fa = [](int64_t i) { return (i % 7) - 3.0; };
  auto fb = [](int64_t i) { return (i % 5) * 0.5 - 1; };
  const int64_t m = 9, k = 11, n = 6;
  std::vector<double> ref(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t q = 0; q < k; ++q) ref[i * n + j] += fa(i * k + q) * fb(q * n + j);
    }
  }
  for (const Shape& ch : testing::chunkings_2d()) {
    const Array a = host<double>({m, k}, ch, fa), b = host<double>({k, n}, {ch[1], 4}, fb);
    const auto got = values<double>(matmul(a, b));
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_DOUBLE_EQ(got[i], ref[i]) << shape_to_string(ch);
    // A slice of the product: only the selected rows/columns.
    const auto s = values<double>(matmul(a, b).slice({Slice::every(-2), Slice::range(1, 5, 3)}));
    EXPECT_DOUBLE_EQ(s[0], ref[8 * n + 1]);
    EXPECT_DOUBLE_EQ(s[1], ref[8 * n + 4]);
  }
  const Array ai = host<int32_t>({2, 3}, {1, 2}, [](int64_t i) { return i + 1; });
  const Array bi = host<int32_t>({3, 2}, {2, 1}, [](int64_t i) { return i - 2; });
  EXPECT_EQ(values<int64_t>(matmul(ai, bi)), (std::vector<int64_t>{4, 10, 4, 19}));
  EXPECT_EQ(matmul(ai, bi).dtype().type, ScalarType::Int32);
  STRATA_EXPECT_STATUS(matmul(ai, ai).status(), StatusCode::Invalid, "align");
}

TEST(MapBlocks, AppliesPerChunkAndSlicesThroughChunks) {
  const Array x = host<double>({7, 5}, {3, 2}, [](int64_t i) { return double(i); });
  const Array y = map_blocks({x, x * 10}, DType(ScalarType::Float64),
                             [](std::span<const MapBlockInput> in, const MapBlockOutput& out) {
                               const int64_t n = out.shape[0] * out.shape[1];
                               for (int64_t i = 0; i < n; ++i) {
                                 out.as<double>()[i] = in[0].as<double>()[i] + in[1].as<double>()[i] + out.origin[0];
                               }
                               return Status::OK();
                             });
  const auto v = values<double>(y);
  for (int64_t i = 0; i < 35; ++i) EXPECT_DOUBLE_EQ(v[i], 11.0 * i + ((i / 5) / 3) * 3);
  const auto s = values<double>(y.slice({Slice::range(2, 5), Slice::every(3)}));
  EXPECT_DOUBLE_EQ(s[0], 11.0 * 10 + 0);
  EXPECT_DOUBLE_EQ(s[2], 11.0 * 15 + 3);
  const Array bad = map_blocks({x}, DType(ScalarType::Float64), [](auto, const MapBlockOutput&) {
    return Status::IOError("user failure");
  });
  STRATA_EXPECT_STATUS(compute(test_ctx(), bad).status(), StatusCode::IOError, "user failure");
}

}  // namespace
}  // namespace strata
