// Elementwise operations against plain loops, over many chunkings, with broadcasting, scalars
// and numpy result dtypes.
#include <cmath>
#include <functional>

#include "array/array_test_util.hpp"
#include "array/node.hpp"

namespace strata {
namespace {

using testing::host;
using testing::values;

const Shape kShape{7, 9};

double fa(int64_t i) { return (i % 11) - 4.5 + 0.25 * (i % 3); }
double fb(int64_t i) { return ((i * 7) % 13) - 6.0; }

TEST(Elementwise, BinaryOpsMatchLoops) {
  using F = std::function<double(double, double)>;
  struct Case {
    const char* name;
    std::function<Array(const Array&, const Array&)> op;
    F ref;
  };
  const std::vector<Case> cases = {
      {"add", [](auto& a, auto& b) { return a + b; }, [](double x, double y) { return x + y; }},
      {"sub", [](auto& a, auto& b) { return a - b; }, [](double x, double y) { return x - y; }},
      {"mul", [](auto& a, auto& b) { return a * b; }, [](double x, double y) { return x * y; }},
      {"div", [](auto& a, auto& b) { return a / b; }, [](double x, double y) { return x / y; }},
      {"pow", [](auto& a, auto& b) { return power(abs(a), b * 0.5); },
       [](double x, double y) { return std::pow(std::fabs(x), y * 0.5); }},
      {"max", [](auto& a, auto& b) { return maximum(a, b); }, [](double x, double y) { return std::max(x, y); }},
      {"min", [](auto& a, auto& b) { return minimum(a, b); }, [](double x, double y) { return std::min(x, y); }},
      {"lt", [](auto& a, auto& b) { return (a < b).astype(DType(ScalarType::Float64)); },
       [](double x, double y) { return double(x < y); }},
      {"ge", [](auto& a, auto& b) { return (a >= b).astype(DType(ScalarType::Float64)); },
       [](double x, double y) { return double(x >= y); }},
      {"eq", [](auto& a, auto& b) { return equal(a, b).astype(DType(ScalarType::Float64)); },
       [](double x, double y) { return double(x == y); }},
      {"and_or", [](auto& a, auto& b) { return ((a > 0.0) & (b > 0.0)) | !(a > -1.0); },
       [](double x, double y) { return double((x > 0 && y > 0) || !(x > -1)); }},
      {"where", [](auto& a, auto& b) { return where(a > b, a * 2, b - 1); },
       [](double x, double y) { return x > y ? x * 2 : y - 1; }},
      {"chain", [](auto& a, auto& b) { return clip(sqrt(abs(a)) * exp(b * 0.1) - log(abs(b) + 1), -1.0, 1.5); },
       [](double x, double y) {
         return std::clamp(std::sqrt(std::fabs(x)) * std::exp(y * 0.1) - std::log(std::fabs(y) + 1), -1.0, 1.5);
       }},
  };
  for (const Case& c : cases) {
    for (const Shape& ch : testing::chunkings_2d()) {
      const Array a = host<double>(kShape, ch, fa), b = host<double>(kShape, {3, 4}, fb);
      const auto got = values<double>(c.op(a, b).astype(DType(ScalarType::Float64)));
      ASSERT_EQ(got.size(), 63u);
      for (int64_t i = 0; i < 63; ++i) {
        const double r = c.ref(fa(i), fb(i));
        if (std::isnan(r)) {
          EXPECT_TRUE(std::isnan(got[i]));
        } else {
          EXPECT_DOUBLE_EQ(got[i], r) << c.name << " chunks " << shape_to_string(ch) << " i " << i;
        }
      }
    }
  }
}

TEST(Elementwise, Broadcasting) {
  const Array m = host<double>({4, 5}, {3, 2}, fa);
  const Array row = host<double>({5}, {2}, fb);
  const Array col = host<double>({4, 1}, {1, 1}, [](int64_t i) { return 100.0 * i; });
  const auto got = values<double>(m + row * col - 1);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j) EXPECT_DOUBLE_EQ(got[i * 5 + j], fa(i * 5 + j) + fb(j) * 100.0 * i - 1);
  }
  const Array outer = col + row;  // (4,1) + (5,) -> (4,5)
  EXPECT_EQ(outer.shape(), (Shape{4, 5}));
  const auto o = values<double>(outer);
  EXPECT_DOUBLE_EQ(o[2 * 5 + 3], 200.0 + fb(3));
  STRATA_EXPECT_STATUS((m + host<double>({3}, {3}, fa)).status(), StatusCode::Invalid, "broadcast");
  STRATA_EXPECT_STATUS(sum(m + host<double>({3}, {3}, fa)).status(), StatusCode::Invalid, "broadcast");
}

TEST(Elementwise, ResultDtypes) {
  auto arr = [](ScalarType t) { return Array::full({2}, {1}, 1.0, DType(t)); };
  using S = ScalarType;
  EXPECT_EQ((arr(S::Int8) + 1).dtype().type, S::Int8);
  EXPECT_EQ((arr(S::Int8) + 1.5).dtype().type, S::Float64);
  EXPECT_EQ((arr(S::Float32) * 2.0).dtype().type, S::Float32);
  EXPECT_EQ((arr(S::Int8) + arr(S::UInt8)).dtype().type, S::Int16);
  EXPECT_EQ((arr(S::Int64) + arr(S::UInt64)).dtype().type, S::Float64);
  EXPECT_EQ((arr(S::Int32) + arr(S::Float32)).dtype().type, S::Float64);
  EXPECT_EQ((arr(S::Int16) + arr(S::Float32)).dtype().type, S::Float32);
  EXPECT_EQ((arr(S::Int32) / arr(S::Int32)).dtype().type, S::Float64);
  EXPECT_EQ((arr(S::UInt8) < 3).dtype().type, S::Bool);
  EXPECT_EQ(sqrt(arr(S::Int32)).dtype().type, S::Float64);
  EXPECT_EQ(sqrt(arr(S::Float32)).dtype().type, S::Float32);
  EXPECT_EQ((arr(S::Bool) + arr(S::Bool)).dtype().type, S::Int64);
  EXPECT_EQ((arr(S::Bool) + 1).dtype().type, S::Int64);
  EXPECT_EQ(abs(arr(S::Int16)).dtype().type, S::Int16);
}

TEST(Elementwise, IntegerSemantics) {
  const Array a = host<int8_t>({6}, {4}, [](int64_t i) { return 120 + i; });
  const auto wrapped = values<int64_t>(a + 10);  // int8 wraps like numpy
  EXPECT_EQ(wrapped[0], -126);
  const auto q = values<double>(host<int32_t>({3}, {2}, [](int64_t i) { return i + 1; }) / 2);
  EXPECT_DOUBLE_EQ(q[0], 0.5);
  const auto p = values<int64_t>(power(host<int64_t>({4}, {3}, [](int64_t i) { return i - 1; }), 3));
  EXPECT_EQ(p, (std::vector<int64_t>{-1, 0, 1, 8}));
  const auto c = values<int64_t>(astype(host<double>({4}, {4}, [](int64_t i) { return -1.7 + i * 1e20; }),
                                        DType(ScalarType::Int32)));
  EXPECT_EQ(c[0], -1);
  EXPECT_EQ(c[1], INT32_MAX);  // saturating
}

TEST(Elementwise, FusesIntoOneNode) {
  const Array x = Array::random_normal({10, 10}, {5, 5}, 0, 1, 1);
  const Array y = sqrt(abs(x + 1) * 2) - x;
  // One fused node whose leaves are the random source (once, deduplicated) and the two scalars.
  const std::string d = y.describe();
  EXPECT_EQ(d.find("fused"), 0u);
  EXPECT_EQ(d.find("fused", 1), std::string::npos);
  EXPECT_EQ(y.node()->inputs().size(), 3u);
}

}  // namespace
}  // namespace strata
