// The pass engine's schedulers: in-order commits for any thread count, the budget, errors,
// cancellation, and the pipelined pass's overlap of reads with compute.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/test_context.hpp"
#include "strata/core/pass_engine.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

TEST(PassEngine, CommitsInOrderForAnyThreadCount) {
  for (int threads : {1, 2, 3}) {
    const Context ctx = testing::make_test_context(threads);
    std::vector<int64_t> order;
    STRATA_ASSERT_OK(run_blocks(
        ctx, 50, 0, [](int64_t) { return Status::OK(); },
        [&](int64_t i) {
          order.push_back(i);
          return Status::OK();
        }));
    ASSERT_EQ(order.size(), 50u);
    for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
    EXPECT_EQ(ctx.report().snapshot().passes, 1);
    EXPECT_EQ(ctx.report().snapshot().blocks, 50);
  }
}

TEST(PassEngine, CancelledContextStopsWithCancelled) {
  const Context ctx = testing::make_test_context(2);
  std::atomic<int64_t> ran{0};
  const Status st = run_blocks(
      ctx, 1000, 0,
      [&](int64_t i) {
        if (i == 10) ctx.cancel();
        ++ran;
        return Status::OK();
      },
      nullptr);
  STRATA_EXPECT_STATUS(st, StatusCode::Cancelled, "cancelled");
  EXPECT_LT(ran.load(), 1000);
}

// compute(i) waits until read(i + 1) has started: it only returns if the reads really overlap.
TEST(PassEngine, PipelinedReadsOverlapCompute) {
  const Context ctx = testing::make_test_context(2);
  std::mutex mu;
  std::condition_variable cv;
  int64_t reads_started = 0;
  std::vector<std::pair<char, int64_t>> events;
  const int64_t n = 6;
  STRATA_ASSERT_OK(run_pipelined(
      ctx, n,
      [&](int64_t i, int slot) -> Status {
        EXPECT_EQ(slot, i % 2);
        std::lock_guard<std::mutex> lk(mu);
        reads_started = i + 1;
        events.emplace_back('r', i);
        cv.notify_all();
        return Status::OK();
      },
      [&](int64_t i, int slot) -> Status {
        EXPECT_EQ(slot, i % 2);
        std::unique_lock<std::mutex> lk(mu);
        const bool overlapped =
            cv.wait_for(lk, std::chrono::seconds(10), [&] { return i + 1 == n || reads_started >= i + 2; });
        EXPECT_TRUE(overlapped) << "read " << i + 1 << " did not start while block " << i << " computed";
        events.emplace_back('c', i);
        return Status::OK();
      }));
  // Every block is read before it is computed, and computed in order.
  int64_t computed = 0;
  for (const auto& [kind, i] : events) {
    if (kind == 'c') EXPECT_EQ(i, computed++);
  }
  EXPECT_EQ(computed, n);
}

TEST(PassEngine, PipelinedFirstErrorWinsAndNoReadAfterIt) {
  const Context ctx = testing::make_test_context(1);
  std::atomic<int64_t> max_read{-1};
  const Status st = run_pipelined(
      ctx, 20,
      [&](int64_t i, int) -> Status {
        int64_t m = max_read.load();
        while (i > m && !max_read.compare_exchange_weak(m, i)) {
        }
        return i == 7 ? Status::IOError("read ", i) : Status::OK();
      },
      [&](int64_t i, int) -> Status { return i == 3 ? Status::Corrupt("compute ", i) : Status::OK(); });
  STRATA_EXPECT_STATUS(st, StatusCode::Corrupt, "^compute 3$");
  EXPECT_LE(max_read.load(), 4);  // at most one read ahead of the failing block
}

}  // namespace
}  // namespace strata
