#include <cstring>
#include <numeric>

#include "io/zarr/chunk_pipeline_internal.hpp"
#include "testing/testing.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

std::span<const uint8_t> bytes_of(const std::vector<int32_t>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4};
}

TEST(ZarrChunkPipeline, PermuteAxes) {
  // 2×3×4 array, value = its C-order index.
  std::vector<int32_t> src(24);
  std::iota(src.begin(), src.end(), 0);
  std::vector<int32_t> dst(24);
  permute_axes(reinterpret_cast<const uint8_t*>(src.data()), {2, 3, 4}, {2, 0, 1},
               reinterpret_cast<uint8_t*>(dst.data()), 4);
  // dst has shape (4, 2, 3) and dst[k][i][j] = src[i][j][k].
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(dst[(k * 2 + i) * 3 + j], src[(i * 3 + j) * 4 + k]);
}

TEST(ZarrChunkPipeline, V2FortranOrderAndBigEndian) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto p, make_v2_pipeline(nullptr, nullptr, DType(ScalarType::Int32, ByteOrder::Big),
                                                       'F', Shape{2, 3}));
  std::vector<int32_t> c_order = {0, 1, 2, 3, 4, 5};  // [[0,1,2],[3,4,5]]
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, p.encode(bytes_of(c_order)));
  // Stored: Fortran order (0,3,1,4,2,5), each big-endian.
  std::vector<int32_t> expect = {0, 3, 1, 4, 2, 5};
  for (auto& v : expect) v = static_cast<int32_t>(__builtin_bswap32(static_cast<uint32_t>(v)));
  ASSERT_EQ(enc.size(), 24u);
  EXPECT_EQ(std::memcmp(enc.data(), expect.data(), 24), 0);
  std::vector<int32_t> back(6);
  STRATA_ASSERT_OK(p.decode(enc, std::span<uint8_t>(reinterpret_cast<uint8_t*>(back.data()), 24)));
  EXPECT_EQ(back, c_order);
}

TEST(ZarrChunkPipeline, V2CompressorsRoundTrip) {
  std::vector<int32_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int32_t>(i % 7);
  for (const char* cfg :
       {R"({"id":"zstd","level":3})", R"({"id":"blosc","cname":"lz4","clevel":5,"shuffle":1,"blocksize":0})",
        R"({"id":"zlib","level":1})", R"({"id":"gzip","level":5})", R"({"id":"lz4","acceleration":1})"}) {
    STRATA_ASSERT_OK_AND_ASSIGN(auto p, make_v2_pipeline(json::array(), json::parse(cfg), DType(ScalarType::Int32),
                                                         'C', Shape{10, 100}));
    STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, p.encode(bytes_of(data)));
    EXPECT_LT(enc.size(), 4000u) << cfg;
    std::vector<int32_t> back(1000);
    STRATA_ASSERT_OK(p.decode(enc, std::span<uint8_t>(reinterpret_cast<uint8_t*>(back.data()), 4000)));
    EXPECT_EQ(back, data) << cfg;
  }
}

TEST(ZarrChunkPipeline, V3TransposeBytesCrc) {
  json codecs = json::parse(R"([{"name":"transpose","configuration":{"order":[1,0]}},
      {"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}},"crc32c"])");
  STRATA_ASSERT_OK_AND_ASSIGN(V3Codecs c, parse_v3_codecs(codecs, DType(ScalarType::Int32), Shape{2, 3}, 0));
  ASSERT_TRUE(c.pipeline);
  std::vector<int32_t> data = {1, 2, 3, 4, 5, 6};
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, c.pipeline->encode(bytes_of(data)));
  std::vector<int32_t> back(6);
  std::span<uint8_t> out(reinterpret_cast<uint8_t*>(back.data()), 24);
  STRATA_ASSERT_OK(c.pipeline->decode(enc, out));
  EXPECT_EQ(back, data);
  // A flipped byte fails the checksum.
  enc[enc.size() / 2] ^= 0x10;
  STRATA_EXPECT_STATUS(c.pipeline->decode(enc, out), StatusCode::Corrupt, "crc32c");
  // Two transposes compose.
  codecs = json::parse(R"([{"name":"transpose","configuration":{"order":[1,2,0]}},
      {"name":"transpose","configuration":{"order":[1,2,0]}}, {"name":"bytes","configuration":{"endian":"little"}}])");
  STRATA_ASSERT_OK_AND_ASSIGN(c, parse_v3_codecs(codecs, DType(ScalarType::Int32), Shape{2, 1, 3}, 0));
  STRATA_ASSERT_OK_AND_ASSIGN(enc, c.pipeline->encode(bytes_of(data)));
  // order1 gives shape (1,3,2); order2 of that gives (3,2,1) = axes (2,0,1) of the original.
  std::vector<int32_t> stored(6);
  std::memcpy(stored.data(), enc.data(), 24);
  EXPECT_EQ(stored, (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  STRATA_ASSERT_OK(c.pipeline->decode(enc, out));
  EXPECT_EQ(back, data);
}

TEST(ZarrChunkPipeline, DecodeSizeMismatchIsCorrupt) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto raw, make_v2_pipeline(nullptr, nullptr, DType(ScalarType::Int32), 'C', Shape{4}));
  std::vector<uint8_t> out(16), short_in(12);
  STRATA_EXPECT_STATUS(raw.decode(short_in, out), StatusCode::Corrupt, "chunk holds 12 bytes, expected 16");
  STRATA_ASSERT_OK_AND_ASSIGN(auto z, make_v2_pipeline(nullptr, json::parse(R"({"id":"zstd","level":1})"),
                                                       DType(ScalarType::Int32), 'C', Shape{3}));
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, z.encode(std::span<const uint8_t>(out.data(), 12)));
  STRATA_EXPECT_STATUS(raw.decode(enc, out), StatusCode::Corrupt, "expected 16");
  std::vector<uint8_t> out3(12);
  STRATA_ASSERT_OK_AND_ASSIGN(auto z4, make_v2_pipeline(nullptr, json::parse(R"({"id":"zstd","level":1})"),
                                                        DType(ScalarType::Int32), 'C', Shape{4}));
  STRATA_EXPECT_STATUS(z4.decode(enc, out), StatusCode::Corrupt, "zstd");
  enc.resize(enc.size() / 2);
  STRATA_EXPECT_STATUS(z.decode(enc, out3), StatusCode::Corrupt, "zstd");
}

}  // namespace
}  // namespace strata::io::detail
