// HostArray::wrap: lazy arrays over memory someone else owns (the bindings' numpy arrays).
#include "core/test_context.hpp"
#include "array/array_test_util.hpp"

namespace strata {
namespace {

using testing::values;

TEST(HostWrap, ReadsTheOwnersMemoryInPlaceAndKeepsItAlive) {
  auto data = std::make_shared<std::vector<double>>(60);
  for (size_t i = 0; i < data->size(); ++i) (*data)[i] = double(i);
  std::weak_ptr<std::vector<double>> alive = data;
  auto h = HostArray::wrap(data->data(), {6, 10}, DType(ScalarType::Float64), data);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->raw(), data->data());  // no copy
  double* p = data->data();
  const Array a = Array::from_host(*h, {4, 4});
  data.reset();
  h = HostArray();
  ASSERT_FALSE(alive.expired());  // the Array holds the owner
  EXPECT_EQ(values<double>(sum(a))[0], 59.0 * 60 / 2);
  p[13] += 100;  // later computations see the owner's current values
  EXPECT_EQ(values<double>(sum(a))[0], 59.0 * 60 / 2 + 100);
  EXPECT_EQ(values<double>(a.slice({Slice::range(1, 2), Slice::range(3, 4)}))[0], 113.0);
}

TEST(HostWrap, RefusesBadArguments) {
  auto owner = std::make_shared<int>(0);
  STRATA_EXPECT_STATUS(HostArray::wrap(nullptr, {2, 2}, DType(ScalarType::Int32), owner).status(),
                       StatusCode::Invalid, "null");
  int32_t x[4] = {};
  STRATA_EXPECT_STATUS(HostArray::wrap(x, {2, 2}, DType(ScalarType::Int32), nullptr).status(),
                       StatusCode::Invalid, "owner");
  STRATA_EXPECT_STATUS(HostArray::wrap(x, {-1, 2}, DType(ScalarType::Int32), owner).status(),
                       StatusCode::Invalid, "negative");
  EXPECT_TRUE(HostArray::wrap(nullptr, {0, 3}, DType(ScalarType::Int32), owner).ok());
}

}  // namespace
}  // namespace strata
