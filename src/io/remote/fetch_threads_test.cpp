// FetchThreads: every index runs once, calls from several threads share the kept threads, and
// a call makes progress on its own while the threads are busy elsewhere.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "io/remote/fetch_threads_internal.hpp"

namespace strata::io::remote {
namespace {

TEST(FetchThreads, RunsEveryIndexOnceAcrossConcurrentCalls) {
  FetchThreads pool(3);
  std::vector<std::thread> callers;
  std::vector<std::vector<std::atomic<int>>> hits(6);
  for (auto& h : hits) h = std::vector<std::atomic<int>>(50);
  for (size_t c = 0; c < hits.size(); ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round)
        pool.run(hits[c].size(), 4, [&](size_t i) { hits[c][i].fetch_add(1); });
    });
  }
  for (auto& t : callers) t.join();
  for (auto& h : hits)
    for (auto& x : h) EXPECT_EQ(x.load(), 20);
}

TEST(FetchThreads, ACallProceedsWhileTheThreadsAreBusy) {
  FetchThreads pool(1);
  std::atomic<bool> release{false};
  std::thread busy([&] {
    pool.run(2, 2, [&](size_t) {
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the one thread is held
  std::atomic<int> ran{0};
  pool.run(5, 4, [&](size_t) { ran.fetch_add(1); });  // runs on the caller alone
  EXPECT_EQ(ran.load(), 5);
  release.store(true);
  busy.join();
}

TEST(FetchThreads, NoThreadsMeansTheCallerRunsAll) {
  FetchThreads pool(0);
  std::vector<int> seen;
  pool.run(4, 8, [&](size_t i) { seen.push_back(static_cast<int>(i)); });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3}));
  pool.run(0, 8, [&](size_t) { FAIL(); });
}

}  // namespace
}  // namespace strata::io::remote
