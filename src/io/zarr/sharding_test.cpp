// sharding_indexed: shards written byte by byte from the spec and read by strata, and shards
// written by strata taken apart by hand.
#include <nlohmann/json.hpp>

#include <cstring>

#include "strata/io/zarr.hpp"
#include "io/zarr/zarr_test_util.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using strata::testing::TempDir;

constexpr uint64_t kEmpty = ~uint64_t{0};

void put_u64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
void put_u32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
uint64_t get_u64(const std::string& s, size_t at) {
  uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}
uint32_t crc_of(const std::string& s) {
  return crc32c(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}
// A 2×2 uint16 inner chunk, little endian.
std::string inner(uint16_t a, uint16_t b, uint16_t c, uint16_t d) {
  uint16_t v[4] = {a, b, c, d};
  return std::string(reinterpret_cast<const char*>(v), 8);
}

json sharded_doc(const char* index_location) {
  json d = json::parse(R"({"zarr_format":3,"node_type":"array","shape":[6,4],"data_type":"uint16",
    "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4,4]}},
    "chunk_key_encoding":{"name":"default"},"fill_value":9,
    "codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[2,2],
      "codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
      "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]}}]})");
  d["codecs"][0]["configuration"]["index_location"] = index_location;
  return d;
}

// Index of (offset, nbytes) pairs + crc32c.
std::string index_bytes(const std::vector<uint64_t>& entries) {
  std::string idx;
  for (uint64_t e : entries) put_u64(idx, e);
  put_u32(idx, crc_of(idx));
  return idx;
}

class ShardFixture : public ::testing::Test {
 protected:
  void write_store(bool index_at_start) {
    testutil::put_file(dir_.str("zarr.json"), sharded_doc(index_at_start ? "start" : "end").dump());
    std::filesystem::create_directories(dir_.path() / "c" / "0");
    std::filesystem::create_directories(dir_.path() / "c" / "1");
    const uint64_t base = index_at_start ? 4 * 16 + 4 : 0;
    // Shard (0,0): inner chunks stored out of order with a gap; (0,1) is empty.
    const std::string s00 = inner(1, 2, 5, 6), s10 = inner(9, 10, 13, 14), s11 = inner(11, 12, 15, 16);
    std::string data = s11 + "GAP!" + s00 + s10;
    std::string idx = index_bytes({base + 12, 8, kEmpty, kEmpty, base + 20, 8, base + 0, 8});
    testutil::put_file(dir_.str("c/0/0"), index_at_start ? idx + data : data + idx);
    // Shard (1,0): only inner (0,0) is stored; rows 6-7 lie outside the array.
    std::string d2 = inner(17, 18, 21, 22);
    std::string idx2 = index_bytes({base, 8, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty});
    testutil::put_file(dir_.str("c/1/0"), index_at_start ? idx2 + d2 : d2 + idx2);
  }
  std::vector<uint16_t> expected() const {
    // Rows of 4; 9 where an inner chunk is empty.
    return {1, 2, 9, 9, 5, 6, 9, 9, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 9, 9, 21, 22, 9, 9};
  }
  TempDir dir_;
};

TEST(Shard, Crc32cKnownAnswer) { EXPECT_EQ(crc_of("123456789"), 0xE3069283u); }

TEST_F(ShardFixture, HandWrittenShardsReadIndexAtEnd) {
  write_store(false);
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir_.str()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, ""));
  EXPECT_EQ(a.shard_shape(), (Shape{4, 4}));
  EXPECT_EQ(a.chunk_grid().chunk_shape(), (Shape{2, 2}));
  EXPECT_EQ(a.chunk_key({2, 1}), "c/1/0");
  std::vector<uint16_t> all(24);
  STRATA_ASSERT_OK(a.read_region({0, 0}, {6, 4}, all.data()));
  EXPECT_EQ(all, expected());
  std::vector<uint16_t> part(3);
  STRATA_ASSERT_OK(a.read_region({3, 1}, {1, 3}, part.data()));
  EXPECT_EQ(part, (std::vector<uint16_t>{14, 15, 16}));
  std::vector<uint16_t> chunk(4);
  STRATA_ASSERT_OK_AND_ASSIGN(bool stored, a.read_chunk({0, 1}, std::span<uint8_t>(reinterpret_cast<uint8_t*>(chunk.data()), 8)));
  EXPECT_FALSE(stored);
  EXPECT_EQ(chunk, (std::vector<uint16_t>{9, 9, 9, 9}));
  STRATA_ASSERT_OK_AND_ASSIGN(auto report, a.verify());
  EXPECT_EQ(report.chunks_total, 6);
  EXPECT_EQ(report.chunks_ok, 4);
  EXPECT_EQ(report.missing, (std::vector<std::string>{"c/0/0[0, 1]", "c/1/0[0, 1]"}));
  EXPECT_TRUE(report.corrupt.empty());
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, a.storage_info());
  EXPECT_EQ(info.stored_objects, 2);
  EXPECT_EQ(info.stored_bytes, (4 + 24 + 68) + (8 + 68));
}

TEST_F(ShardFixture, HandWrittenShardsReadIndexAtStart) {
  write_store(true);
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir_.str()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, ""));
  std::vector<uint16_t> all(24);
  STRATA_ASSERT_OK(a.read_region({0, 0}, {6, 4}, all.data()));
  EXPECT_EQ(all, expected());
}

TEST_F(ShardFixture, CorruptShardsNameArrayAndKey) {
  write_store(false);
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir_.str()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, ""));
  std::vector<uint16_t> all(24);
  const std::string good = testing::read_file(dir_.str("c/0/0"));
  // Flipped index byte: crc mismatch.
  std::string bad = good;
  bad[bad.size() - 10] ^= 1;
  testutil::put_file(dir_.str("c/0/0"), bad);
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {6, 4}, all.data()), StatusCode::Corrupt,
                       "^" + dir_.str() + ": chunk 'c/0/0': shard index crc32c mismatch");
  // Index entry pointing past the data (with a valid crc).
  std::string data = good.substr(0, good.size() - 68);
  testutil::put_file(dir_.str("c/0/0"), data + index_bytes({12, 8, kEmpty, kEmpty, 20, 800, 0, 8}));
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {6, 4}, all.data()), StatusCode::Corrupt,
                       "chunk 'c/0/0': shard index out of range: inner chunk \\[1, 0\\]");
  // Half an entry empty.
  testutil::put_file(dir_.str("c/0/0"), data + index_bytes({12, 8, kEmpty, 0, 20, 8, 0, 8}));
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {6, 4}, all.data()), StatusCode::Corrupt, "out of range");
  // Inner chunk with the wrong size.
  testutil::put_file(dir_.str("c/0/0"), data + index_bytes({12, 7, kEmpty, kEmpty, 20, 8, 0, 8}));
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {2, 2}, all.data()), StatusCode::Corrupt,
                       "chunk 'c/0/0': inner chunk \\[0, 0\\]: chunk holds 7 bytes, expected 8");
  STRATA_ASSERT_OK_AND_ASSIGN(auto report, a.verify());
  ASSERT_EQ(report.corrupt.size(), 1u);
  EXPECT_EQ(report.corrupt[0].first, "c/0/0[0, 0]");
  // Truncated shard, smaller than its index.
  testutil::put_file(dir_.str("c/0/0"), good.substr(0, 30));
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {6, 4}, all.data()), StatusCode::Corrupt,
                       "chunk 'c/0/0': shard of 30 bytes is smaller than its 68-byte index");
  STRATA_ASSERT_OK_AND_ASSIGN(report, a.verify());
  ASSERT_EQ(report.corrupt.size(), 1u);
  EXPECT_EQ(report.corrupt[0].first, "c/0/0");
}

TEST(Shard, StrataWrittenShardsParsedByHand) {
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str()));
  auto o = testutil::create_options(ZarrFormat::V3, {6, 4}, {2, 2}, DType(ScalarType::UInt16));
  o.shard_shape = {4, 4};
  o.fill_value = 9;
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "g/arr", o));
  std::vector<uint16_t> v = {1, 2, 9, 9, 5, 6, 9, 9, 9, 10, 11, 12, 13, 14, 15, 16, 9, 9, 9, 9, 9, 9, 9, 9};
  STRATA_ASSERT_OK(a.write_region({0, 0}, {6, 4}, v.data()));
  // The all-fill second shard is not written at all.
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "g/arr/c/1/0"));
  const std::string shard = testing::read_file(dir.str("g/arr/c/0/0"));
  ASSERT_EQ(shard.size(), 3u * 8 + 68);  // three stored inner chunks + index with crc32c
  const std::string idx = shard.substr(24);
  uint32_t crc;
  std::memcpy(&crc, idx.data() + 64, 4);
  EXPECT_EQ(crc, crc_of(idx.substr(0, 64)));
  // Inner (0,1) equals the fill value and is left out.
  EXPECT_EQ(get_u64(idx, 16), kEmpty);
  EXPECT_EQ(get_u64(idx, 24), kEmpty);
  const std::string want[4] = {inner(1, 2, 5, 6), "", inner(9, 10, 13, 14), inner(11, 12, 15, 16)};
  for (int s : {0, 2, 3}) {
    const uint64_t off = get_u64(idx, 16 * s), n = get_u64(idx, 16 * s + 8);
    ASSERT_EQ(n, 8u);
    EXPECT_EQ(shard.substr(off, n), want[s]) << "inner chunk " << s;
  }
  // Metadata as written: sharding_indexed with bytes + crc32c index codecs.
  json doc = json::parse(testing::read_file(dir.str("g/arr/zarr.json")));
  EXPECT_EQ(doc["codecs"][0]["name"], "sharding_indexed");
  EXPECT_EQ(doc["codecs"][0]["configuration"]["index_codecs"][1]["name"], "crc32c");
  EXPECT_EQ(doc["chunk_grid"]["configuration"]["chunk_shape"], json({4, 4}));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "g/zarr.json"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "zarr.json"));

  // Partial overwrite keeps untouched inner chunks; writing fill over everything removes the shard.
  uint16_t one = 77;
  STRATA_ASSERT_OK(a.write_region({3, 3}, {1, 1}, &one));
  std::vector<uint16_t> back(24);
  STRATA_ASSERT_OK(a.read_region({0, 0}, {6, 4}, back.data()));
  v[15] = 77;
  EXPECT_EQ(back, v);
  std::vector<uint16_t> fill(24, 9);
  STRATA_ASSERT_OK(a.write_region({0, 0}, {6, 4}, fill.data()));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "g/arr/c/0/0"));
  STRATA_ASSERT_OK(a.read_region({0, 0}, {6, 4}, back.data()));
  EXPECT_EQ(back, fill);
}

}  // namespace
}  // namespace strata::io
