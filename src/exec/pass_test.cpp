// Passes: block visiting, in-order combination, deterministic errors, the memory budget and a
// bounded-memory reduction over a virtual array far larger than the budget.
#include <atomic>
#include <mutex>
#include <set>

#include "array/array_test_util.hpp"
#include "strata/exec/pass.hpp"

namespace strata {
namespace {

using testing::host;

TEST(Pass, ForEachBlockVisitsEveryBlockOnce) {
  const Array a = host<double>({10, 7}, {3, 4}, [](int64_t i) { return double(i); });
  const Array b = a * 2;
  std::mutex mu;
  std::set<int64_t> seen;
  double total = 0;
  const Context ctx = testing::make_test_context(3);
  STRATA_ASSERT_OK(for_each_block(ctx, 
      {a, b},
      [&](const BlockInfo& info, std::span<const BlockView> v) -> Status {
        std::lock_guard<std::mutex> lk(mu);
        EXPECT_TRUE(seen.insert(info.index).second);
        for (int64_t i = 0; i < v[0].numel(); ++i) {
          EXPECT_EQ(v[1].as<double>()[i], 2 * v[0].as<double>()[i]);
          total += v[0].as<double>()[i];
        }
        return Status::OK();
      }));
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(total, 69.0 * 70 / 2);
}

TEST(Pass, ReduceBlocksCombinesInBlockOrder) {
  const Array a = host<int64_t>({50}, {3}, [](int64_t i) { return i; });
  for (int threads : {1, 2, 3}) {
    const Context ctx = testing::make_test_context(threads);
    auto order = reduce_blocks<std::vector<int64_t>>(
        ctx, {a}, {},
        [](const BlockInfo& info, std::span<const BlockView>) -> Result<std::vector<int64_t>> {
          return std::vector<int64_t>{info.index};
        },
        [](std::vector<int64_t>& acc, std::vector<int64_t>&& p) { acc.push_back(p[0]); });
    ASSERT_TRUE(order.ok());
    ASSERT_EQ(order->size(), 17u);
    for (int64_t i = 0; i < 17; ++i) EXPECT_EQ((*order)[i], i);
  }
}

TEST(Pass, LowestFailingBlockWins) {
  const Array a = host<double>({40}, {1}, [](int64_t i) { return double(i); });
  const Context ctx = testing::make_test_context(3);
  for (int rep = 0; rep < 5; ++rep) {
    Status st = for_each_block(ctx, 
        {a},
        [](const BlockInfo& info, std::span<const BlockView>) -> Status {
          if (info.index % 7 == 5) return Status::IOError("block ", info.index);
          return Status::OK();
        });
    STRATA_EXPECT_STATUS(st, StatusCode::IOError, "^block 5$");
  }
}

TEST(Pass, BlockOverBudgetIsOutOfMemory) {
  const Array a = Array::random_normal({1000, 1000}, {1000, 1000}, 0, 1, 0);
  const Context ctx = testing::make_test_context(0, 1 << 20);
  STRATA_EXPECT_STATUS(compute(ctx, a).status(), StatusCode::OutOfMemory, "memory budget");
}

// 2 GB of float64 generated and reduced under a 64 MiB budget: blocks are streamed tile by tile,
// so peak tracked memory and RSS growth stay far below the array size (and under the budget).
TEST(Pass, ReductionOverVirtualArrayStaysWithinBudget) {
  const int64_t budget = 64 << 20;
  const Array x = Array::random_normal({16384, 16384}, {2048, 2048}, 0, 1, 7);
  const int64_t rss0 = current_rss_bytes();
  const Context ctx = testing::make_test_context(0, budget);
  reset_peak_memory();
  auto r = compute(ctx, sum(x * x, {1}));
  STRATA_ASSERT_OK(r);
  const RunReport rep = ctx.report().snapshot();
  EXPECT_EQ(rep.elements_generated, 16384LL * 16384);
  EXPECT_LT(rep.peak_tracked_bytes, budget);
  const int64_t growth = current_rss_bytes() - rss0;
  EXPECT_LT(growth, budget) << "RSS grew by " << format_bytes(growth);
  // Row sums of squares of standard normals: mean 16384.
  double m = 0;
  for (double v : r->to_vector<double>()) m += v;
  EXPECT_NEAR(m / 16384, 16384, 16384 * 0.01);
}

}  // namespace
}  // namespace strata
