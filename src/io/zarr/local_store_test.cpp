#include <atomic>
#include <filesystem>
#include <thread>

#include "strata/io/store.hpp"
#include "io/zarr/zarr_test_util.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::TempDir;

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
std::string as_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

TEST(LocalStore, SetGetExistsErase) {
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str("s"), /*create=*/true));
  STRATA_ASSERT_OK_AND_ASSIGN(auto missing, store->get("a/b/c"));
  EXPECT_FALSE(missing.has_value());
  STRATA_ASSERT_OK(store->set("a/b/c", as_bytes("hello")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto v, store->get("a/b/c"));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(as_string(*v), "hello");
  STRATA_ASSERT_OK(store->set("a/b/c", as_bytes("bye")));  // overwrite
  STRATA_ASSERT_OK_AND_ASSIGN(v, store->get("a/b/c"));
  EXPECT_EQ(as_string(*v), "bye");
  STRATA_ASSERT_OK_AND_ASSIGN(bool ex, store->exists("a/b/c"));
  EXPECT_TRUE(ex);
  STRATA_ASSERT_OK_AND_ASSIGN(ex, store->exists("a/b"));  // a directory is a prefix, not a key
  EXPECT_FALSE(ex);
  STRATA_ASSERT_OK_AND_ASSIGN(auto sz, store->size("a/b/c"));
  EXPECT_EQ(sz, std::optional<int64_t>(3));
  STRATA_ASSERT_OK(store->erase("a/b/c"));
  STRATA_ASSERT_OK(store->erase("a/b/c"));  // missing is fine
  STRATA_ASSERT_OK_AND_ASSIGN(ex, store->exists("a/b/c"));
  EXPECT_FALSE(ex);
  STRATA_ASSERT_OK(store->set("empty", {}));
  STRATA_ASSERT_OK_AND_ASSIGN(v, store->get("empty"));
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->empty());
}

TEST(LocalStore, GetRange) {
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str(), false));
  STRATA_ASSERT_OK(store->set("k", as_bytes("0123456789")));
  auto range = [&](int64_t off, int64_t len) {
    auto r = store->get_range("k", off, len);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() && *r ? as_string(**r) : std::string("<none>");
  };
  EXPECT_EQ(range(2, 3), "234");
  EXPECT_EQ(range(0, -1), "0123456789");
  EXPECT_EQ(range(7, -1), "789");
  EXPECT_EQ(range(-4, -1), "6789");
  EXPECT_EQ(range(-4, 2), "67");
  EXPECT_EQ(range(10, 0), "");
  STRATA_EXPECT_STATUS(store->get_range("k", 8, 5), StatusCode::Corrupt, "k: range of 5 bytes at offset 8");
  STRATA_EXPECT_STATUS(store->get_range("k", -11, 1), StatusCode::Corrupt, "outside the 10-byte object");
  STRATA_EXPECT_STATUS(store->get_range("k", 11, 0), StatusCode::Corrupt, "outside");
  STRATA_ASSERT_OK_AND_ASSIGN(auto none, store->get_range("nope", 0, 1));
  EXPECT_FALSE(none.has_value());
}

TEST(LocalStore, ListDirSortedAndHidesTemporaries) {
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str(), false));
  for (const char* k : {"g/b", "g/a/x", "g/.zattrs", "g/c.0", "top"}) STRATA_ASSERT_OK(store->set(k, as_bytes("x")));
  testutil::put_file(dir.str("g/.strata-tmp.1.2"), "partial");
  STRATA_ASSERT_OK_AND_ASSIGN(auto names, store->list_dir("g"));
  EXPECT_EQ(names, (std::vector<std::string>{".zattrs", "a", "b", "c.0"}));
  STRATA_ASSERT_OK_AND_ASSIGN(names, store->list_dir(""));
  EXPECT_EQ(names, (std::vector<std::string>{"g", "top"}));
  STRATA_ASSERT_OK_AND_ASSIGN(names, store->list_dir("missing/dir"));
  EXPECT_TRUE(names.empty());
  STRATA_ASSERT_OK_AND_ASSIGN(names, store->list_dir("top"));  // a key, not a directory
  EXPECT_TRUE(names.empty());
}

TEST(LocalStore, ErasePrefix) {
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str(), false));
  for (const char* k : {"a/b/0", "a/b/1", "a/c", "d"}) STRATA_ASSERT_OK(store->set(k, as_bytes("x")));
  STRATA_ASSERT_OK(store->erase_prefix("a/b"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto names, store->list_dir("a"));
  EXPECT_EQ(names, std::vector<std::string>{"c"});
  STRATA_ASSERT_OK(store->erase_prefix("nothing/here"));
  STRATA_ASSERT_OK(store->erase_prefix(""));
  STRATA_ASSERT_OK_AND_ASSIGN(names, store->list_dir(""));
  EXPECT_TRUE(names.empty());
  EXPECT_TRUE(std::filesystem::is_directory(dir.path()));  // the root stays
}

TEST(LocalStore, RejectsKeysEscapingTheRoot) {
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str(), false));
  STRATA_EXPECT_STATUS(store->get("../x"), StatusCode::Invalid, "contains '..'");
  STRATA_EXPECT_STATUS(store->set("a/../../x", as_bytes("x")), StatusCode::Invalid, "'..'");
  STRATA_EXPECT_STATUS(store->set("/etc/x", as_bytes("x")), StatusCode::Invalid, "absolute");
  STRATA_EXPECT_STATUS(store->set("a//b", as_bytes("x")), StatusCode::Invalid, "empty path component");
  STRATA_EXPECT_STATUS(store->set("", as_bytes("x")), StatusCode::Invalid, "empty store key");
}

TEST(LocalStore, OpenErrorsNameThePath) {
  TempDir dir;
  STRATA_EXPECT_STATUS(LocalStore::open(dir.str("nope")), StatusCode::NotFound, "nope: no such directory");
  testutil::put_file(dir.str("file"), "x");
  STRATA_EXPECT_STATUS(LocalStore::open(dir.str("file")), StatusCode::Invalid, "file: not a directory");
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str(), false));
  // A key whose parent is a regular file cannot be written: the error names the path and errno.
  STRATA_EXPECT_STATUS(store->set("file/child", as_bytes("x")), StatusCode::IOError, "file.*(exists|directory)");
  EXPECT_EQ(store->describe(), dir.str());
}

TEST(LocalStore, WritesAreAtomicForReaders) {
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str(), false));
  const std::string a(1 << 18, 'a'), b(1 << 18, 'b');
  STRATA_ASSERT_OK(store->set("k", as_bytes(a)));
  std::atomic<bool> done{false};
  std::atomic<int> torn{0};
  std::thread reader([&] {
    while (!done) {
      auto v = store->get("k");
      if (!v.ok() || !*v || (*v)->size() != a.size()) {
        ++torn;
        continue;
      }
      const uint8_t first = (**v)[0];
      for (uint8_t c : **v)
        if (c != first) {
          ++torn;
          break;
        }
    }
  });
  for (int i = 0; i < 40; ++i) STRATA_EXPECT_OK(store->set("k", as_bytes(i % 2 ? a : b)));
  done = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  STRATA_ASSERT_OK_AND_ASSIGN(auto names, store->list_dir(""));
  EXPECT_EQ(names, std::vector<std::string>{"k"});  // no temporary files left behind
}

}  // namespace
}  // namespace strata::io
