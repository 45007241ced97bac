// Round trips and region semantics of ZarrArray (v2 and v3, with and without sharding).
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <filesystem>

#include "io/zarr/zarr_test_util.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using strata::testing::TempDir;
using namespace strata::io::testutil;

struct Layout {
  Shape shape, chunks, shard;
};

std::shared_ptr<const BytesCodec> codec(const std::string& spec, int64_t itemsize) {
  if (spec.empty()) return nullptr;
  auto c = parse_codec_spec(spec, itemsize);
  EXPECT_TRUE(c.ok()) << c.status().to_string();
  return c.ok() ? std::shared_ptr<const BytesCodec>(std::move(c).value()) : nullptr;
}

// Fill an array through random overlapping writes, then check full and random-box reads.
void round_trip(ZarrFormat fmt, DType dtype, const Layout& l, const std::string& compressor, bool crc,
                char sep, uint64_t seed) {
  SCOPED_TRACE(str_cat("v", static_cast<int>(fmt), " ", dtype.numpy_str(), " shape ", shape_to_string(l.shape),
                       " chunks ", shape_to_string(l.chunks), " shard ", shape_to_string(l.shard), " codec '",
                       compressor, "' crc ", crc, " sep ", sep));
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  auto o = testutil::create_options(fmt, l.shape, l.chunks, dtype);
  o.shard_shape = l.shard;
  o.fill_value = dtype.is_bool() ? ZarrFillValue(true) : ZarrFillValue(3);
  o.compressor = codec(compressor, dtype.itemsize());
  o.crc32c = crc;
  o.separator = sep;
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "grp/arr", o));
  const int64_t isz = dtype.itemsize();
  const int64_t n = *shape_numel(l.shape);
  std::vector<uint8_t> ref(static_cast<size_t>(n * isz));
  for (int64_t i = 0; i < n; ++i) std::memcpy(ref.data() + i * isz, a.fill_value_bytes().data(), isz);
  std::mt19937_64 rng(seed);
  Shape start, count;
  for (int w = 0; w < 4; ++w) {
    random_box(l.shape, rng, start, count);
    auto data = random_elements(*shape_numel(count), dtype, rng);
    STRATA_ASSERT_OK(a.write_region(start, count, data.data()));
    insert(ref, l.shape, start, count, data, isz);
  }
  // Reopen from disk so the parsed metadata is what gets exercised.
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, ZarrArray::open(store, "grp/arr"));
  EXPECT_EQ(b.shape(), l.shape);
  EXPECT_EQ(b.dtype(), dtype.native());
  EXPECT_EQ(b.stored_dtype(), dtype);
  std::vector<uint8_t> all(ref.size());
  STRATA_ASSERT_OK(b.read_region(Shape(l.shape.size(), 0), l.shape, all.data()));
  EXPECT_EQ(all, ref);
  for (int r = 0; r < 12; ++r) {
    random_box(l.shape, rng, start, count, /*allow_empty=*/true);
    std::vector<uint8_t> got(static_cast<size_t>(*shape_numel(count) * isz));
    STRATA_ASSERT_OK(b.read_region(start, count, got.data()));
    EXPECT_EQ(got, extract(ref, l.shape, start, count, isz)) << shape_to_string(start) << shape_to_string(count);
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto report, b.verify());
  EXPECT_TRUE(report.corrupt.empty());
  EXPECT_EQ(report.chunks_ok + static_cast<int64_t>(report.missing.size()), report.chunks_total);
}

TEST(ZarrArray, RoundTripV2Matrix) {
  const std::vector<Layout> layouts = {{{7, 5}, {3, 2}, {}}, {{10}, {4}, {}}, {{4, 5, 6}, {2, 3, 4}, {}}, {{3, 4}, {3, 4}, {}}};
  const std::vector<DType> dtypes = {DType(ScalarType::Int8),    DType(ScalarType::Bool),
                                     DType(ScalarType::UInt16),  DType(ScalarType::Int32, ByteOrder::Big),
                                     DType(ScalarType::Float32), DType(ScalarType::Float64),
                                     DType(ScalarType::Int64)};
  uint64_t seed = 1;
  for (const auto& l : layouts)
    for (const auto& dt : dtypes) {
      round_trip(ZarrFormat::V2, dt, l, seed % 3 == 0 ? "zstd:1" : "", false, '.', seed);
      ++seed;
    }
  for (const char* c : {"blosc:zstd:5:bitshuffle", "blosc:lz4:5:shuffle", "lz4", "zlib:1", "gzip:5"})
    round_trip(ZarrFormat::V2, DType(ScalarType::Int16), layouts[2], c, false, '/', seed++);
}

TEST(ZarrArray, RoundTripV3Matrix) {
  const std::vector<Layout> layouts = {{{7, 5}, {3, 2}, {}},        {{7, 5}, {3, 2}, {6, 4}},
                                       {{10}, {4}, {8}},            {{4, 5, 6}, {2, 3, 2}, {4, 3, 4}},
                                       {{9, 2}, {2, 2}, {4, 2}}};
  const std::vector<DType> dtypes = {DType(ScalarType::Int8), DType(ScalarType::UInt32, ByteOrder::Big),
                                     DType(ScalarType::Float32), DType(ScalarType::Float64, ByteOrder::Big),
                                     DType(ScalarType::Bool)};
  uint64_t seed = 100;
  for (const auto& l : layouts)
    for (const auto& dt : dtypes) {
      round_trip(ZarrFormat::V3, dt, l, seed % 2 ? "zstd:3" : "", seed % 3 == 0, '/', seed);
      ++seed;
    }
  for (const char* c : {"blosc:zstd:5:bitshuffle", "gzip:1"})
    round_trip(ZarrFormat::V3, DType(ScalarType::Int16), layouts[3], c, true, '/', seed++);
}

TEST(ZarrArray, ReadRegionAgreesWithReferenceForAnyThreadCount) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  ZarrCreateOptions o;
  o.shape = {23, 17, 3};
  o.chunks = {5, 4, 2};
  o.dtype = DType(ScalarType::Int32);
  o.compressor = codec("zstd:1", 4);
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "a", o));
  o.format = ZarrFormat::V3;
  o.shard_shape = {10, 8, 2};
  STRATA_ASSERT_OK_AND_ASSIGN(auto s, ZarrArray::create(store, "s", o));
  std::mt19937_64 rng(7);
  auto ref = random_elements(23 * 17 * 3, o.dtype, rng);
  STRATA_ASSERT_OK(a.write_region({0, 0, 0}, o.shape, ref.data()));
  STRATA_ASSERT_OK(s.write_region({0, 0, 0}, o.shape, ref.data()));
  ThreadPool one(1), three(3);
  Shape start, count;
  for (int r = 0; r < 150; ++r) {
    random_box(o.shape, rng, start, count, true);
    const auto want = extract(ref, o.shape, start, count, 4);
    for (ThreadPool* pool : {&one, &three}) {
      for (const ZarrArray* arr : {&a, &s}) {
        std::vector<uint8_t> got(want.size());
        STRATA_ASSERT_OK(arr->read_region(start, count, got.data(), pool));
        ASSERT_EQ(got, want) << arr->path() << " " << shape_to_string(start) << " " << shape_to_string(count);
      }
    }
  }
}

TEST(ZarrArray, MissingChunksReadAsFillIncludingNaN) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  for (ZarrFormat fmt : {ZarrFormat::V2, ZarrFormat::V3}) {
    auto o = testutil::create_options(fmt, {5}, {2});
    o.fill_value = "NaN";
    o.overwrite = true;
    if (fmt == ZarrFormat::V3) o.shard_shape = {4};
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "af", o));
    EXPECT_EQ(a.fill_value(), ZarrFillValue("NaN"));
    double one = 1.5;
    STRATA_ASSERT_OK(a.write_region({1}, {1}, &one));
    std::vector<double> got(5);
    STRATA_ASSERT_OK(a.read_region({0}, {5}, got.data()));
    EXPECT_TRUE(std::isnan(got[0]));
    EXPECT_EQ(got[1], 1.5);
    for (int i = 2; i < 5; ++i) EXPECT_TRUE(std::isnan(got[i])) << i;
    EXPECT_EQ(std::bit_cast<uint64_t>(got[4]), 0x7ff8000000000000ull);
  }
  json doc = json::parse(testing::read_file(dir.str("af/zarr.json")));
  EXPECT_EQ(doc["fill_value"], "NaN");
}

TEST(ZarrArray, EdgeChunksArePaddedWithFill) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  ZarrCreateOptions o;
  o.shape = {5, 3};
  o.chunks = {2, 2};
  o.dtype = DType(ScalarType::UInt8);
  o.fill_value = 7;
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "e", o));
  EXPECT_EQ(ZarrArray::open(store, "e")->fill_value(), ZarrFillValue(7));
  std::vector<uint8_t> v(15, 1);
  STRATA_ASSERT_OK(a.write_region({0, 0}, {5, 3}, v.data()));
  EXPECT_EQ(testing::read_file(dir.str("e/2.1")), std::string("\x01\x07\x07\x07", 4));
  EXPECT_EQ(testing::read_file(dir.str("e/0.1")), std::string("\x01\x07\x01\x07", 4));
  EXPECT_EQ(testing::read_file(dir.str("e/0.0")), std::string("\x01\x01\x01\x01", 4));
  // A partial write merges with what is stored.
  uint8_t nine = 9;
  STRATA_ASSERT_OK(a.write_region({4, 2}, {1, 1}, &nine));
  EXPECT_EQ(testing::read_file(dir.str("e/2.1")), std::string("\x09\x07\x07\x07", 4));
}

TEST(ZarrArray, ReadsFortranOrderAndBigEndianV2) {
  TempDir dir;
  testutil::put_file(dir.str("f/.zarray"), R"({"chunks":[2,3],"compressor":null,"dtype":">i2","fill_value":7,
    "filters":null,"order":"F","shape":[3,3],"zarr_format":2,"dimension_separator":"/"})");
  std::filesystem::create_directories(dir.path() / "f" / "0");
  // Chunk (0,0) holds [[1,2,3],[4,5,6]] in F order, big endian: 1,4,2,5,3,6.
  std::string c00;
  for (int v : {1, 4, 2, 5, 3, 6}) c00 += std::string{0, static_cast<char>(v)};
  testutil::put_file(dir.str("f/0/0"), c00);
  auto store = *LocalStore::open(dir.str());
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, "f"));
  EXPECT_EQ(a.stored_dtype(), DType(ScalarType::Int16, ByteOrder::Big));
  EXPECT_EQ(a.dtype(), DType(ScalarType::Int16));
  std::vector<int16_t> got(9);
  STRATA_ASSERT_OK(a.read_region({0, 0}, {3, 3}, got.data()));
  EXPECT_EQ(got, (std::vector<int16_t>{1, 2, 3, 4, 5, 6, 7, 7, 7}));
  // Writing keeps the array's own order and byte order.
  std::vector<int16_t> row = {-1, -2, -3};
  STRATA_ASSERT_OK(a.write_region({2, 0}, {1, 3}, row.data()));
  std::string c10 = testing::read_file(dir.str("f/1/0"));
  ASSERT_EQ(c10.size(), 12u);
  EXPECT_EQ(static_cast<uint8_t>(c10[0]), 0xff);  // -1 big endian, F order: element (0,0)
  EXPECT_EQ(static_cast<uint8_t>(c10[1]), 0xff);
  EXPECT_EQ(std::string(c10.data() + 2, 2), std::string("\x00\x07", 2));  // (1,0) padding = fill
  STRATA_ASSERT_OK(a.read_region({0, 0}, {3, 3}, got.data()));
  EXPECT_EQ(got, (std::vector<int16_t>{1, 2, 3, 4, 5, 6, -1, -2, -3}));
}

TEST(ZarrArray, ZeroDimensional) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  for (ZarrFormat fmt : {ZarrFormat::V2, ZarrFormat::V3}) {
    auto o = testutil::create_options(fmt, {}, {}, DType(ScalarType::Float32));
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, fmt == ZarrFormat::V2 ? "s2" : "s3", o));
    float v = 2.5f, got = 0;
    STRATA_ASSERT_OK(a.write_region({}, {}, &v));
    STRATA_ASSERT_OK(a.read_region({}, {}, &got));
    EXPECT_EQ(got, 2.5f);
    EXPECT_EQ(a.chunk_key({}), fmt == ZarrFormat::V2 ? "s2/0" : "s3/c");
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "s2" / "0"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "s3" / "c"));
}

TEST(ZarrArray, ChunkApiVerifyAndStorageInfo) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  auto o = testutil::create_options(ZarrFormat::V3, {4, 4}, {2, 2}, DType(ScalarType::Int32));
  o.crc32c = true;
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, "", o));
  std::vector<int32_t> chunk = {1, 2, 3, 4};
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(chunk.data()), 16);
  STRATA_ASSERT_OK(a.write_chunk({1, 0}, bytes));
  STRATA_ASSERT_OK(a.write_chunk({0, 1}, bytes));
  std::vector<int32_t> got(4);
  std::span<uint8_t> out(reinterpret_cast<uint8_t*>(got.data()), 16);
  STRATA_ASSERT_OK_AND_ASSIGN(bool stored, a.read_chunk({1, 0}, out));
  EXPECT_TRUE(stored);
  EXPECT_EQ(got, chunk);
  STRATA_ASSERT_OK_AND_ASSIGN(stored, a.read_chunk({1, 1}, out));
  EXPECT_FALSE(stored);
  STRATA_EXPECT_STATUS(a.read_chunk({2, 0}, out), StatusCode::Invalid, "outside the chunk grid");
  STRATA_EXPECT_STATUS(a.write_chunk({0, 0}, bytes.subspan(0, 8)), StatusCode::Invalid, "expected 16");
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, a.storage_info());
  EXPECT_EQ(info.stored_objects, 2);
  EXPECT_EQ(info.stored_bytes, 2 * (16 + 4));
  testutil::put_file(dir.str("c/0/1"), "garbage!");
  STRATA_ASSERT_OK_AND_ASSIGN(auto report, a.verify());
  EXPECT_EQ(report.chunks_total, 4);
  EXPECT_EQ(report.chunks_ok, 1);
  EXPECT_EQ(report.missing, (std::vector<std::string>{"c/0/0", "c/1/1"}));
  testutil::expect_one_corrupt(report, "c/0/1", "crc32c");
}

TEST(ZarrArray, AttributesAndDimensionNames) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  for (ZarrFormat fmt : {ZarrFormat::V2, ZarrFormat::V3}) {
    auto o = testutil::create_options(fmt, {3, 2}, {3, 2});
    o.dimension_names = {"variants", "samples"};
    o.attributes_json = R"({"source": "test"})";
    const std::string path = fmt == ZarrFormat::V2 ? "v2/x" : "v3/x";
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, path, o));
    STRATA_ASSERT_OK_AND_ASSIGN(auto b, ZarrArray::open(store, path));
    EXPECT_EQ(b.dimension_names(), o.dimension_names);
    EXPECT_EQ(json::parse(b.attributes_json())["source"], "test");
    STRATA_ASSERT_OK(b.set_attributes_json(R"({"k": 1, "_ARRAY_DIMENSIONS": ["a", "b"]})"));
    EXPECT_EQ(json::parse(b.attributes_json())["k"], 1);
    STRATA_EXPECT_STATUS(b.set_attributes_json("[1]"), StatusCode::Invalid, "must be a JSON object");
    STRATA_EXPECT_STATUS(b.set_attributes_json("{"), StatusCode::Invalid, "not valid JSON");
    STRATA_ASSERT_OK_AND_ASSIGN(auto c, ZarrArray::open(store, path));
    EXPECT_EQ(json::parse(c.attributes_json())["k"], 1);
    if (fmt == ZarrFormat::V2) {
      EXPECT_EQ(c.dimension_names(), (std::vector<std::string>{"a", "b"}));
    } else {
      EXPECT_EQ(c.dimension_names(), o.dimension_names);
      EXPECT_EQ(json::parse(c.metadata_json())["dimension_names"], json({"variants", "samples"}));
    }
    EXPECT_EQ(json::parse(a.attributes_json())["source"], "test");  // other handles keep their snapshot
  }
  EXPECT_EQ(json::parse(testing::read_file(dir.str("v2/x/.zattrs")))["k"], 1);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "v2" / ".zgroup"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / ".zgroup"));
}

}  // namespace
}  // namespace strata::io
