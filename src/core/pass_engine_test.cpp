// The pass engine's schedulers: in-order commits for any thread count, the budget, errors,
// cancellation, and the pipelined pass's overlap of reads with compute.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/test_context.hpp"
#include "strata/core/pass_engine.hpp"
#include "strata/core/thread_pool.hpp"
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

// Read-ahead: every block hinted once, in order, never more than the window ahead of the
// newest block started, and the window recorded in the report; results unchanged.
TEST(PassEngine, ReadAheadHintsEachBlockOnceWithinTheWindow) {
  for (int threads : {1, 2, 3}) {
    const Context ctx = testing::make_test_context(threads);
    PassOptions o;
    o.read_ahead = {3, 3000};
    std::mutex mu;
    std::vector<int64_t> hinted;
    std::atomic<int64_t> newest{-1};
    bool beyond = false;
    o.prefetch = [&](int64_t i) {
      std::lock_guard lock(mu);
      hinted.push_back(i);
      beyond = beyond || i > newest.load() + 1 + 3 + threads;
    };
    std::vector<int64_t> order;
    STRATA_ASSERT_OK(run_blocks(
        ctx, 40, 1000,
        [&](int64_t i) {
          int64_t seen = newest.load();
          while (i > seen && !newest.compare_exchange_weak(seen, i)) {
          }
          return Status::OK();
        },
        [&](int64_t i) {
          order.push_back(i);
          return Status::OK();
        },
        o));
    ASSERT_EQ(hinted.size(), 40u);
    for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(hinted[i], i);
    EXPECT_FALSE(beyond);
    for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(order[i], i);
    const RunReport r = ctx.report().snapshot();
    EXPECT_EQ(r.read_ahead_blocks, 3);
    EXPECT_EQ(r.read_ahead_bytes, 3000);
    EXPECT_NE(r.to_json().find("\"read_ahead\""), std::string::npos);
  }
}

TEST(PassEngine, ReadAheadInPipelinedPassesAndItsWindowFromTheBudget) {
  const Context ctx = testing::make_test_context(1, /*memory_budget=*/int64_t{64} << 20);
  // A quarter of the budget, at most kReadAheadBlocks blocks; none when a block is above it.
  EXPECT_EQ(read_ahead_window(ctx, 1 << 20).blocks, kReadAheadBlocks);
  EXPECT_EQ(read_ahead_window(ctx, 5 << 20).blocks, 3);
  EXPECT_EQ(read_ahead_window(ctx, 5 << 20).bytes, 15 << 20);
  EXPECT_EQ(read_ahead_window(ctx, 20 << 20).blocks, 0);
  PassOptions o;
  o.read_ahead = {2, 1};
  std::vector<int64_t> hinted;
  std::atomic<int64_t> last_read{-1};
  o.prefetch = [&](int64_t i) {
    EXPECT_LE(i, last_read.load() + 2 + 2);  // hinted as block last + 1 starts
    hinted.push_back(i);
  };
  STRATA_ASSERT_OK(run_pipelined(
      ctx, 10,
      [&](int64_t i, int) {
        last_read = i;
        return Status::OK();
      },
      [](int64_t, int) { return Status::OK(); }, o));
  ASSERT_EQ(hinted.size(), 10u);
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(hinted[i], i);
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
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  if (hw < 2) GTEST_SKIP() << "reads overlap only beside a spare hardware thread; this machine has " << hw;
  const Context ctx = testing::make_test_context(hw - 1);
  ASSERT_TRUE(pipelined_reads(ctx));
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

TEST(PassEngine, PipelinedReadsRunInlineWithoutASpareHardwareThread) {
  // Every hardware thread is a worker: each read runs on the calling thread, right before its
  // block's compute (and may use the workers itself).
  const Context ctx = testing::make_test_context(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  ASSERT_FALSE(pipelined_reads(ctx));
  const auto caller = std::this_thread::get_id();
  std::vector<std::pair<char, int64_t>> events;
  STRATA_ASSERT_OK(run_pipelined(
      ctx, 4,
      [&](int64_t i, int) -> Status {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        std::atomic<int64_t> parts{0};
        STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(3, [&](int64_t) -> Status {
          ++parts;
          return Status::OK();
        }));
        EXPECT_EQ(parts.load(), 3);
        events.emplace_back('r', i);
        return Status::OK();
      },
      [&](int64_t i, int) -> Status {
        events.emplace_back('c', i);
        return Status::OK();
      }));
  const std::vector<std::pair<char, int64_t>> expected = {{'r', 0}, {'c', 0}, {'r', 1}, {'c', 1},
                                                          {'r', 2}, {'c', 2}, {'r', 3}, {'c', 3}};
  EXPECT_EQ(events, expected);
}

// Ranks of a distributed run on one host share its hardware threads: with as many ranks there as
// hardware threads, a rank with one worker has none to spare for a reader.
TEST(PassEngine, PipelinedReadsCountTheRanksOnThisHost) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  class HostRanks final : public Communicator {
   public:
    explicit HostRanks(int n) : n_(n) {}
    int size() const override { return n_; }
    int ranks_on_this_host() const override { return n_; }

   private:
    int n_;
  };
  ContextOptions o;
  o.threads = 1;
  o.communicator = std::make_shared<HostRanks>(hw);
  const Context shared = *Context::make(o);
  EXPECT_FALSE(pipelined_reads(shared));
  if (hw >= 2) {
    o.communicator = std::make_shared<HostRanks>(hw - 1);
    EXPECT_TRUE(pipelined_reads(*Context::make(o)));
  }
}

TEST(PassEngine, PipelinedWithoutReadsComputesEveryBlockInOrder) {
  const Context ctx = testing::make_test_context(2);
  std::vector<int64_t> order;
  STRATA_ASSERT_OK(run_pipelined(ctx, 5, nullptr, [&](int64_t i, int slot) -> Status {
    EXPECT_EQ(slot, i % 2);
    order.push_back(i);
    return Status::OK();
  }));
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
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

namespace strata {
namespace {

TEST(SymmetricTiles, CoverTheUpperTriangleOnce) {
  for (int64_t n : {1, 7, 64, 65}) {
    for (int64_t tile : {1, 8, 64, 100}) {
      const SymmetricTiles g = SymmetricTiles::make(n, tile);
      std::vector<int> covered(static_cast<size_t>(n * n), 0);
      for (int64_t t = 0; t < g.count; ++t) {
        const auto tl = g.at(t);
        EXPECT_LE(tl.row0, tl.col0);
        for (int64_t i = tl.row0; i < tl.row0 + tl.rows; ++i)
          for (int64_t j = tl.col0; j < tl.col0 + tl.cols; ++j) ++covered[static_cast<size_t>(i * n + j)];
      }
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          EXPECT_EQ(covered[static_cast<size_t>(i * n + j)], j / tile >= i / tile ? 1 : 0) << n << " " << tile;
    }
  }
}

// XᵀX of a float matrix streamed in row blocks, by tiles: the same bits for 1, 2 and 3 threads
// and for two tile sizes (each element sums its rows in block order), and equal to a plain
// triple loop in that order.
TEST(SymmetricTiles, GramIsTheSameBitsForAnyThreadsAndTiles) {
  const int64_t rows = 300, n = 45, block = 64;
  std::vector<double> x(static_cast<size_t>(rows * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1 * static_cast<double>(i)) * 3.0;
  std::vector<double> ref(static_cast<size_t>(n * n), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i; j < n; ++j) ref[i * n + j] += x[r * n + i] * x[r * n + j];
  const int64_t blocks = (rows + block - 1) / block;
  for (int threads : {1, 2, 3}) {
    for (int64_t tile : {8, 20}) {
      const Context ctx = testing::make_test_context(threads);
      std::vector<double> g(static_cast<size_t>(n * n), 0.0);
      int64_t buffered[2] = {-1, -1};
      STRATA_ASSERT_OK(run_symmetric_tiles(
          ctx, SymmetricTiles::make(n, tile), blocks,
          [&](int64_t b, int slot) {
            buffered[slot] = b;  // a real pass reads block b into buffer `slot`
            return Status::OK();
          },
          [&](int64_t b, int slot, int64_t, const SymmetricTiles::Tile& t) {
            EXPECT_EQ(buffered[slot], b);
            const int64_t r1 = std::min(rows, (b + 1) * block);
            for (int64_t r = b * block; r < r1; ++r)
              for (int64_t i = t.row0; i < t.row0 + t.rows; ++i)
                for (int64_t j = std::max(i, t.col0); j < t.col0 + t.cols; ++j)
                  g[i * n + j] += x[r * n + i] * x[r * n + j];
            return Status::OK();
          }));
      EXPECT_EQ(g, ref) << threads << " threads, tile " << tile;
    }
  }
}

// A band (a subset of the tiles) runs only its tiles, each over every block in order, and
// bad indices are refused.
TEST(SymmetricTiles, BandRunsOnlyItsTilesOverEveryBlock) {
  const Context ctx = testing::make_test_context(2);
  const SymmetricTiles g = SymmetricTiles::make(10, 3);  // 4 per side, 10 tiles
  const std::vector<int64_t> band = {7, 2, 9};
  const int64_t blocks = 5;
  std::vector<std::vector<int64_t>> seen(static_cast<size_t>(g.count));
  std::mutex mu;
  STRATA_ASSERT_OK(run_symmetric_tiles(
      ctx, g, band, blocks, [](int64_t, int) { return Status::OK(); },
      [&](int64_t b, int, int64_t t, const SymmetricTiles::Tile& tile) {
        const auto expect = g.at(t);
        EXPECT_EQ(tile.row0, expect.row0);
        EXPECT_EQ(tile.col0, expect.col0);
        std::lock_guard<std::mutex> lock(mu);
        seen[static_cast<size_t>(t)].push_back(b);
        return Status::OK();
      }));
  for (int64_t t = 0; t < g.count; ++t) {
    const bool listed = t == 7 || t == 2 || t == 9;
    EXPECT_EQ(seen[static_cast<size_t>(t)], listed ? std::vector<int64_t>({0, 1, 2, 3, 4}) : std::vector<int64_t>())
        << "tile " << t;
  }
  const Status bad = run_symmetric_tiles(
      ctx, g, std::vector<int64_t>{10}, blocks, [](int64_t, int) { return Status::OK(); },
      [](int64_t, int, int64_t, const SymmetricTiles::Tile&) { return Status::OK(); });
  EXPECT_EQ(bad.code(), StatusCode::Invalid);
  EXPECT_NE(bad.message().find("tile 10 out of range [0, 10)"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace strata
