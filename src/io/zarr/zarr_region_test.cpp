// Region I/O touches only what it needs: overlapping chunks, one index read per shard, ranged
// reads of inner chunks, and writes only through Store::set.
#include <mutex>
#include <set>

#include "io/zarr/zarr_array_internal.hpp"
#include "io/zarr/zarr_test_util.hpp"
#include "strata/core/thread_pool.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::TempDir;

// A LocalStore that records which keys each operation touched.
class CountingStore : public Store {
 public:
  explicit CountingStore(std::shared_ptr<LocalStore> inner) : inner_(std::move(inner)) {}
  Result<std::optional<Bytes>> get(const std::string& key) const override {
    note("get " + key);
    return inner_->get(key);
  }
  Result<std::optional<Bytes>> get_at_most(const std::string& key, int64_t max_bytes) const override {
    note("get " + key);
    return inner_->get_at_most(key, max_bytes);
  }
  Result<std::optional<Bytes>> get_range(const std::string& key, int64_t offset, int64_t length) const override {
    note(str_cat("range ", key, " ", offset, " ", length));
    return inner_->get_range(key, offset, length);
  }
  Status set(const std::string& key, std::span<const uint8_t> value) override {
    note("set " + key);
    return inner_->set(key, value);
  }
  Status erase(const std::string& key) override {
    note("erase " + key);
    return inner_->erase(key);
  }
  Result<bool> exists(const std::string& key) const override { return inner_->exists(key); }
  Result<std::vector<std::string>> list_dir(const std::string& prefix) const override { return inner_->list_dir(prefix); }
  std::string describe() const override { return inner_->describe(); }
  Result<std::optional<int64_t>> size(const std::string& key) const override {
    note("size " + key);
    return inner_->size(key);
  }
  std::multiset<std::string> take() {
    std::lock_guard<std::mutex> lk(mu_);
    return std::move(log_);
  }

 private:
  void note(std::string s) const {
    std::lock_guard<std::mutex> lk(mu_);
    log_.insert(std::move(s));
  }
  std::shared_ptr<LocalStore> inner_;
  mutable std::mutex mu_;
  mutable std::multiset<std::string> log_;
};

TEST(ZarrRegion, ReadsAndWritesTouchOnlyOverlappingChunks) {
  TempDir dir;
  auto store = std::make_shared<CountingStore>(*LocalStore::open(dir.str()));
  ZarrCreateOptions o;
  o.shape = {6, 6};
  o.chunks = {2, 3};
  o.dtype = DType(ScalarType::UInt8);
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "a", o));
  store->take();
  std::vector<uint8_t> v(36, 1);
  STRATA_ASSERT_OK(a.write_region({0, 0}, {6, 6}, v.data()));
  // Whole chunks are written without reading them first.
  EXPECT_EQ(store->take(), (std::multiset<std::string>{"set a/0.0", "set a/0.1", "set a/1.0", "set a/1.1", "set a/2.0",
                                                       "set a/2.1"}));
  STRATA_ASSERT_OK(a.write_region({1, 2}, {2, 2}, v.data()));
  // Partly covered chunks are read, merged and rewritten.
  EXPECT_EQ(store->take(), (std::multiset<std::string>{"get a/0.0", "set a/0.0", "get a/0.1", "set a/0.1", "get a/1.0",
                                                       "set a/1.0", "get a/1.1", "set a/1.1"}));
  std::vector<uint8_t> out(4);
  STRATA_ASSERT_OK(a.read_region({4, 4}, {2, 2}, out.data()));
  EXPECT_EQ(store->take(), std::multiset<std::string>{"get a/2.1"});
}

TEST(ZarrRegion, ShardReadsUseTheIndexOnceAndRangedInnerReads) {
  TempDir dir;
  auto store = std::make_shared<CountingStore>(*LocalStore::open(dir.str()));
  auto o = testutil::create_options(ZarrFormat::V3, {8, 8}, {2, 2}, DType(ScalarType::UInt8));
  o.shard_shape = {4, 8};
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "s", o));
  store->take();
  std::vector<uint8_t> v(64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i + 1);
  STRATA_ASSERT_OK(a.write_region({0, 0}, {8, 8}, v.data()));
  EXPECT_EQ(store->take(), (std::multiset<std::string>{"set s/c/0/0", "set s/c/1/0"}));
  std::vector<uint8_t> out(6);
  // Rows 1-2, cols 3-5: inner chunks (0,1),(0,2),(1,1),(1,2) of shard (0,0) only.
  STRATA_ASSERT_OK(a.read_region({1, 3}, {2, 3}, out.data()));
  auto log = store->take();
  EXPECT_EQ(log.count("size s/c/0/0"), 1u);
  int ranges = 0;
  for (const auto& e : log) {
    EXPECT_EQ(e.rfind("get ", 0), std::string::npos) << "whole-object read: " << e;
    EXPECT_EQ(e.find("s/c/1/0"), std::string::npos) << e;
    ranges += e.rfind("range s/c/0/0", 0) == 0;
  }
  EXPECT_EQ(ranges, 1 + 4);  // the index, then four inner chunks
  EXPECT_EQ(out, (std::vector<uint8_t>{12, 13, 14, 20, 21, 22}));
}

TEST(ZarrRegion, FillBoxMatchesNaiveFill) {
  std::mt19937_64 rng(3);
  const Shape shape = {4, 3, 5};
  const std::vector<uint8_t> fill = {1, 2, 3};
  Shape start, count;
  for (int r = 0; r < 200; ++r) {
    testutil::random_box(shape, rng, start, count, true);
    std::vector<uint8_t> got(60 * 3, 0), want(60 * 3, 0);
    detail::fill_box(got.data(), shape, start, count, fill);
    for (int64_t i = 0; i < count[0]; ++i)
      for (int64_t j = 0; j < count[1]; ++j)
        for (int64_t k = 0; k < count[2]; ++k) {
          const int64_t lin = ((start[0] + i) * 3 + start[1] + j) * 5 + start[2] + k;
          std::copy(fill.begin(), fill.end(), want.begin() + lin * 3);
        }
    ASSERT_EQ(got, want) << shape_to_string(start) << shape_to_string(count);
  }
  std::vector<uint8_t> buf(10);
  EXPECT_TRUE(detail::all_equal_fill(std::span<const uint8_t>(buf.data(), 0), fill));
  detail::fill_elements(std::span<uint8_t>(buf.data(), 9), fill);
  EXPECT_TRUE(detail::all_equal_fill(std::span<const uint8_t>(buf.data(), 9), fill));
  buf[7] = 9;
  EXPECT_FALSE(detail::all_equal_fill(std::span<const uint8_t>(buf.data(), 9), fill));
}

}  // namespace
}  // namespace strata::io
