// TreeSum: the same bits for any split of the block grid across ranks, emulated in one process.
#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include "strata/core/tree_sum.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

// Rank `rank` of `size` in one process: send() deposits bytes in a mailbox keyed by (from, to),
// recv() takes them; broadcast() is a no-op (rank 0 holds the sum; other ranks are not checked).
// The ranks run from the highest down, so every message is sent before it is received.
class MailboxComm final : public Communicator {
 public:
  using Mailbox = std::map<std::pair<int, int>, std::string>;
  MailboxComm(int rank, int size, Mailbox* box) : rank_(rank), size_(size), box_(box) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status send(const std::string& bytes, int dest) const override {
    (*box_)[{rank_, dest}] = bytes;
    ++sent_;
    return Status::OK();
  }
  Status recv(std::string* bytes, int source) const override {
    auto it = box_->find({source, rank_});
    if (it == box_->end()) return Status::CommError("nothing from rank ", source);
    *bytes = std::move(it->second);
    box_->erase(it);
    ++received_;
    return Status::OK();
  }
  Status broadcast(std::string&, int) const override { return Status::OK(); }
  mutable int sent_ = 0, received_ = 0;

 private:
  int rank_, size_;
  Mailbox* box_;
};

std::vector<double> partial(int64_t block, int64_t width) {
  std::mt19937_64 rng(static_cast<uint64_t>(block) * 7919 + 1);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  std::vector<double> v(static_cast<size_t>(width));
  for (double& x : v) x = u(rng) * std::pow(10.0, static_cast<double>(block % 7));  // mixed magnitudes
  return v;
}

std::vector<double> sum_with_ranks(int64_t blocks, int64_t width, int ranks, int* rank0_received = nullptr) {
  MailboxComm::Mailbox box;
  std::vector<double> total;
  // Ranks from the highest down (rank 0 last: it combines).
  for (int r = ranks - 1; r >= 0; --r) {
    const auto [first, count] = rank_range(blocks, 1, r, ranks);
    TreeSum t(width);
    for (int64_t b = first; b < first + count; ++b) t.push(b, partial(b, width));
    MailboxComm comm(r, ranks, &box);
    std::vector<double> out;
    if (r == 0) {
      EXPECT_TRUE(t.combine(comm, &total).ok());
      if (rank0_received) *rank0_received = comm.received_;
    } else {
      (void)t.combine(comm, &out);  // the no-op broadcast leaves it without a sum
      EXPECT_EQ(comm.sent_, 1) << "rank " << r;
    }
  }
  EXPECT_TRUE(box.empty());  // every message was received
  return total;
}

TEST(TreeSum, SameBitsForAnyRankCount) {
  const int64_t width = 5;
  for (int64_t blocks : {1, 2, 3, 5, 7, 8, 13, 16, 31, 33, 64, 100}) {
    TreeSum one(width);
    for (int64_t b = 0; b < blocks; ++b) one.push(b, partial(b, width));
    EXPECT_LE(one.held(), 8);  // log2(blocks) + 1
    std::vector<double> ref;
    ASSERT_TRUE(one.combine(*single_process_communicator(), &ref).ok());
    for (int ranks = 1; ranks <= 6; ++ranks) {
      const std::vector<double> got = sum_with_ranks(blocks, width, ranks);
      ASSERT_EQ(got.size(), ref.size());
      EXPECT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double)))
          << blocks << " blocks on " << ranks << " ranks";
    }
  }
}

TEST(TreeSum, RankZeroHearsFromLogTwoOfTheRanks) {
  // Pairwise merging: rank 0 receives ceil(log2 P) messages, not P - 1.
  for (int ranks : {2, 3, 4, 5, 8, 9, 16}) {
    int received = 0;
    (void)sum_with_ranks(40, 3, ranks, &received);
    int expect = 0;
    while ((1 << expect) < ranks) ++expect;
    EXPECT_EQ(received, expect) << ranks << " ranks";
  }
}

TEST(TreeSum, IsTheFixedTree) {
  // Four blocks: (b0 + b1) + (b2 + b3) = (1e16) + (-1e16) = 0, where a left fold gives 1.
  TreeSum t(1);
  t.push(0, {1.0});
  t.push(1, {1e16});
  t.push(2, {-1e16});
  t.push(3, {1.0});
  std::vector<double> s;
  ASSERT_TRUE(t.combine(*single_process_communicator(), &s).ok());
  EXPECT_EQ(s[0], 0.0);
  TreeSum e(3);
  ASSERT_TRUE(e.combine(*single_process_communicator(), &s).ok());
  EXPECT_EQ(s, std::vector<double>(3, 0.0));  // an empty grid sums to zeros
}

// Ranges of blocks summed in trees of their own (workers), whose nodes one tree continues in
// order, give the bits of one tree over every block; nodes out of order or too wide are refused.
TEST(TreeSum, TakenNodesContinueAnotherTree) {
  const int64_t width = 4;
  for (int64_t blocks : {1, 5, 13, 32, 37}) {
    TreeSum one(width);
    for (int64_t b = 0; b < blocks; ++b) one.push(b, partial(b, width));
    std::vector<double> ref;
    ASSERT_TRUE(one.combine(*single_process_communicator(), &ref).ok());
    for (int64_t step : {1, 3, 4, 7}) {
      TreeSum driver(width);
      for (int64_t b0 = 0; b0 < blocks; b0 += step) {
        TreeSum worker(width);
        for (int64_t b = b0; b < std::min(blocks, b0 + step); ++b) worker.push(b, partial(b, width));
        std::vector<TreeSum::Node> nodes = worker.take_nodes();
        EXPECT_EQ(worker.held(), 0);
        ASSERT_TRUE(driver.push_nodes(std::move(nodes)).ok());
      }
      std::vector<double> got;
      ASSERT_TRUE(driver.combine(*single_process_communicator(), &got).ok());
      EXPECT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double))) << blocks << " by " << step;
    }
  }
  TreeSum driver(width);
  ASSERT_TRUE(driver.push_nodes({TreeSum::Node{0, 0, partial(0, width)}}).ok());
  STRATA_EXPECT_STATUS(driver.push_nodes({TreeSum::Node{0, 2, partial(2, width)}}), StatusCode::Invalid,
                       "starts at block 2 where block 1 was expected");
  STRATA_EXPECT_STATUS(driver.push_nodes({TreeSum::Node{0, 1, partial(1, width + 1)}}), StatusCode::Invalid,
                       "5 values where the partials have 4");
}

// Additions split over a pool, and partials filled into recycled vectors, give the serial bits.
TEST(TreeSum, PoolAndRecycledVectorsKeepTheBits) {
  const int64_t blocks = 13, width = 300'000;  // long enough to split
  ThreadPool pool(3);
  TreeSum serial(width), pooled(width, &pool);
  int recycled = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    serial.push(b, partial(b, width));
    std::vector<double> v = pooled.recycled();
    if (!v.empty()) {
      ++recycled;
      ASSERT_EQ(static_cast<int64_t>(v.size()), width);
    }
    const std::vector<double> p = partial(b, width);
    v.assign(p.begin(), p.end());
    pooled.push(b, std::move(v));
  }
  EXPECT_GT(recycled, 0);
  std::vector<double> a, c;
  ASSERT_TRUE(serial.combine(*single_process_communicator(), &a).ok());
  ASSERT_TRUE(pooled.combine(*single_process_communicator(), &c).ok());
  ASSERT_EQ(a.size(), c.size());
  EXPECT_EQ(std::memcmp(a.data(), c.data(), a.size() * sizeof(double)), 0);
}

TEST(RankRange, TilesWholeBlocksInRankOrder) {
  for (int64_t total : {0, 1, 4095, 4096, 4097, 100000}) {
    for (int size = 1; size <= 5; ++size) {
      int64_t next = 0;
      for (int r = 0; r < size; ++r) {
        const auto [first, count] = rank_range(total, 4096, r, size);
        EXPECT_EQ(first, next);
        if (first + count < total) {
          EXPECT_EQ((first + count) % 4096, 0);
        }
        next = first + count;
      }
      EXPECT_EQ(next, total);
    }
  }
}

}  // namespace
}  // namespace strata
