// Corrupt and invalid input: every failure is a Status naming the array and the chunk key.
#include <nlohmann/json.hpp>

#include <filesystem>

#include "strata/io/zarr.hpp"
#include "io/zarr/zarr_test_util.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using strata::testing::TempDir;

class ZarrErrors : public ::testing::Test {
 protected:
  void SetUp() override { store_ = *LocalStore::open(dir_.str()); }
  ZarrArray make(const std::string& path, const std::string& compressor, ZarrFormat fmt = ZarrFormat::V2) {
    ZarrCreateOptions o;
    o.format = fmt;
    o.shape = {4, 4};
    o.chunks = {2, 2};
    o.dtype = DType(ScalarType::Int32);
    if (!compressor.empty()) o.compressor = std::shared_ptr<const BytesCodec>(*parse_codec_spec(compressor, 4));
    auto a = ZarrArray::create(store_, path, o);
    EXPECT_TRUE(a.ok()) << a.status().to_string();
    std::vector<int32_t> v(16, 5);
    EXPECT_TRUE(a->write_region({0, 0}, {4, 4}, v.data()).ok());
    return *a;
  }
  Status read_all(const ZarrArray& a) {
    std::vector<int32_t> v(16);
    return a.read_region({0, 0}, {4, 4}, v.data());
  }
  std::string prefix(const std::string& path) { return "^" + dir_.str() + "/" + path; }
  TempDir dir_;
  std::shared_ptr<LocalStore> store_;
};

TEST_F(ZarrErrors, CorruptCompressedChunk) {
  auto a = make("z", "zstd:1");
  testutil::put_file(dir_.str("z/0.1"), "not a zstd frame");
  STRATA_EXPECT_STATUS(read_all(a), StatusCode::Corrupt, prefix("z") + ": chunk '0\\.1': zstd: ");
  std::string good = testing::read_file(dir_.str("z/1.1"));
  testutil::put_file(dir_.str("z/1.1"), good.substr(0, good.size() - 3));  // truncated frame
  STRATA_EXPECT_STATUS(read_all(a), StatusCode::Corrupt, "chunk '0\\.1'");  // lowest chunk reported first
  testutil::put_file(dir_.str("z/0.1"), good);
  STRATA_EXPECT_STATUS(read_all(a), StatusCode::Corrupt, prefix("z") + ": chunk '1\\.1': zstd");
}

TEST_F(ZarrErrors, WrongDecodedSize) {
  auto a = make("raw", "");
  testutil::put_file(dir_.str("raw/1.0"), std::string(12, '\0'));
  STRATA_EXPECT_STATUS(read_all(a), StatusCode::Corrupt,
                       prefix("raw") + ": chunk '1\\.0': chunk holds 12 bytes, expected 16");
  auto b = make("bl", "blosc:lz4:5:shuffle");
  ZarrCreateOptions o;
  o.shape = {8};
  o.chunks = {8};
  o.dtype = DType(ScalarType::Int32);
  o.compressor = std::shared_ptr<const BytesCodec>(*parse_codec_spec("blosc:lz4:5:shuffle", 4));
  auto big = *ZarrArray::create(store_, "big", o);
  std::vector<int32_t> v(8, 1);
  STRATA_ASSERT_OK(big.write_region({0}, {8}, v.data()));
  testutil::put_file(dir_.str("bl/0.0"), testing::read_file(dir_.str("big/0")));  // 32 bytes where 16 belong
  STRATA_EXPECT_STATUS(read_all(b), StatusCode::Corrupt, prefix("bl") + ": chunk '0\\.0': blosc");
}

TEST_F(ZarrErrors, Crc32cMismatchV3) {
  ZarrCreateOptions o;
  o.format = ZarrFormat::V3;
  o.shape = {4};
  o.chunks = {4};
  o.dtype = DType(ScalarType::Int8);
  o.crc32c = true;
  auto a = *ZarrArray::create(store_, "c3", o);
  std::vector<int8_t> v = {1, 2, 3, 4};
  STRATA_ASSERT_OK(a.write_region({0}, {4}, v.data()));
  std::string s = testing::read_file(dir_.str("c3/c/0"));
  s[1] ^= 4;
  testutil::put_file(dir_.str("c3/c/0"), s);
  STRATA_EXPECT_STATUS(a.read_region({0}, {4}, v.data()), StatusCode::Corrupt, prefix("c3") + ": chunk 'c/0': crc32c");
}

TEST_F(ZarrErrors, BadMetadata) {
  testutil::put_file(dir_.str("m/.zarray"), "{\"zarr_format\": 2, ");
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "m"), StatusCode::Corrupt, prefix("m") + "/\\.zarray: malformed JSON");
  testutil::put_file(dir_.str("m/.zarray"),
                      R"({"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<i4","compressor":{"id":"snappy2"},
                          "fill_value":0,"filters":null,"order":"C"})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "m"), StatusCode::Unsupported,
                       prefix("m") + "/\\.zarray: compressor: .*'snappy2'");
  testutil::put_file(dir_.str("m/.zarray"), R"({"zarr_format":2,"shape":[4],"chunks":["2"],"dtype":"<i4"})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "m"), StatusCode::Corrupt, "\"chunks\" must hold integers");
  testutil::put_file(dir_.str("m/.zarray"), R"({"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<i4"})");
  testutil::put_file(dir_.str("m/.zattrs"), "[1]");
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "m"), StatusCode::Corrupt, "m/\\.zattrs: expected a JSON object");
  testutil::put_file(dir_.str("v3/zarr.json"), R"({"zarr_format":3,"node_type":"array","shape":[4],
      "data_type":"int32","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},
      "chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}},
      {"name":"zfp"}]})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "v3"), StatusCode::Unsupported,
                       prefix("v3") + "/zarr\\.json: codecs\\[1\\]: .*'zfp'");
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "nothing"), StatusCode::NotFound, "nothing: no Zarr array here");
  STRATA_ASSERT_OK(zarr_create_group(store_, "grp", ZarrFormat::V2));
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "grp"), StatusCode::InvalidData, "is a Zarr group, not an array");
  STRATA_ASSERT_OK(zarr_create_group(store_, "grp3", ZarrFormat::V3));
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "grp3"), StatusCode::InvalidData, "is a Zarr group, not an array");
}

TEST_F(ZarrErrors, InvalidRequests) {
  auto a = make("r", "");
  std::vector<int32_t> v(16);
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {5, 4}, v.data()), StatusCode::Invalid, "outside the array shape");
  STRATA_EXPECT_STATUS(a.read_region({-1, 0}, {1, 1}, v.data()), StatusCode::Invalid, "outside");
  STRATA_EXPECT_STATUS(a.write_region({0}, {1}, v.data()), StatusCode::Invalid, "outside");
  ZarrCreateOptions o;
  o.shape = {4, 4};
  o.chunks = {2, 2};
  STRATA_EXPECT_STATUS(ZarrArray::create(store_, "r", o), StatusCode::AlreadyExists, "r: a Zarr array already exists");
  o.overwrite = true;
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, ZarrArray::create(store_, "r", o));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "r" / "0.0"));  // old chunks are gone
  STRATA_EXPECT_STATUS(ZarrArray::create(store_, "r/inner", o), StatusCode::Invalid, "cannot create a node inside the array");
  o.chunks = {0, 2};
  STRATA_EXPECT_STATUS(ZarrArray::create(store_, "x", o), StatusCode::Invalid, "chunk extents must be >= 1");
  o.chunks = {2, 2};
  o.format = ZarrFormat::V3;
  o.shard_shape = {3, 2};
  STRATA_EXPECT_STATUS(ZarrArray::create(store_, "x", o), StatusCode::Invalid, "not a multiple of chunks");
  o.shard_shape = {};
  o.compressor = std::shared_ptr<const BytesCodec>(*parse_codec_spec("lz4", 8));
  STRATA_EXPECT_STATUS(ZarrArray::create(store_, "x", o), StatusCode::Unsupported, "lz4");
  STRATA_EXPECT_STATUS(ZarrArray::open(store_, "../escape"), StatusCode::Invalid, "'\\.\\.'");
  ZarrArray closed;
  STRATA_EXPECT_STATUS(closed.read_region({}, {}, v.data()), StatusCode::Invalid, "not open");
  EXPECT_TRUE(closed.shape().empty());
}

}  // namespace
}  // namespace strata::io
