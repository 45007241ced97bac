#include <thread>

#include "io/codecs/codec_internal.hpp"
#include "io/codecs/codec_test_helpers.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using test::ByteVec;
using test::span_of;

// A codec without its own decode_into, to exercise the default one.
class ReverseCodec final : public BytesCodec {
 public:
  std::string name() const override { return "reverse"; }
  Result<Bytes> encode(std::span<const uint8_t> in) const override {
    return Bytes(in.rbegin(), in.rend());
  }
  Result<Bytes> decode(std::span<const uint8_t> in) const override { return encode(in); }
  std::string config_json_v2() const override { return R"({"id":"reverse"})"; }
  Result<std::string> config_json_v3() const override { return std::string(R"({"name":"reverse"})"); }
  std::string describe() const override { return "reverse"; }
};

TEST(CodecFactoryTest, DefaultDecodeIntoChecksSize) {
  ReverseCodec codec;
  test::expect_round_trip(codec, test::random_bytes(100));
  test::expect_round_trip(codec, {});
  ByteVec out(3);
  STRATA_EXPECT_STATUS(codec.decode_into(span_of(ByteVec{1, 2}), {out.data(), out.size()}),
                       StatusCode::Corrupt, "reverse: decoded 2 bytes but 3 were expected");
}

TEST(CodecFactoryTest, V2AndV3JsonRoundTrip) {
  const std::vector<json> v2 = {
      {{"id", "blosc"}, {"cname", "zstd"}, {"clevel", 5}, {"shuffle", 2}, {"blocksize", 0}},
      {{"id", "blosc"}, {"cname", "lz4"}, {"clevel", 1}, {"shuffle", -1}, {"blocksize", 8192}},
      {{"id", "zstd"}, {"level", 3}},
      {{"id", "zstd"}, {"level", 7}, {"checksum", true}},
      {{"id", "lz4"}, {"acceleration", 1}},
      {{"id", "zlib"}, {"level", 1}},
      {{"id", "gzip"}, {"level", 5}},
      {{"id", "crc32c"}},
  };
  for (const json& config : v2) {
    SCOPED_TRACE(config.dump());
    STRATA_ASSERT_OK_AND_ASSIGN(auto codec, make_codec_v2(config, 2));
    EXPECT_EQ(test::v2_of(*codec), config);
    STRATA_ASSERT_OK_AND_ASSIGN(auto again, make_codec_v2(test::v2_of(*codec), 2));
    EXPECT_EQ(again->describe(), codec->describe());
    auto v3 = test::v3_of(*codec);
    if (!v3.ok()) {
      STRATA_EXPECT_STATUS(v3, StatusCode::Unsupported, "^(lz4|zlib): Zarr v3 has no (lz4|zlib) codec; use ");
      continue;
    }
    STRATA_ASSERT_OK_AND_ASSIGN(auto from_v3, make_codec_v3(*v3, 2));
    EXPECT_EQ(*test::v3_of(*from_v3), *v3);
    EXPECT_EQ(from_v3->describe(), codec->describe());
    // Same bytes decode through either construction.
    ByteVec data = test::compressible_bytes(5000, 2);
    STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(span_of(data)));
    STRATA_ASSERT_OK_AND_ASSIGN(Bytes dec, from_v3->decode(span_of(enc)));
    EXPECT_TRUE(test::to_vec(dec) == data);
  }
}

TEST(CodecFactoryTest, UnknownIdsAreUnsupported) {
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "bz2"}}, 1), StatusCode::Unsupported, "'bz2'");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "delta"}, {"dtype", "<i4"}}, 4), StatusCode::Unsupported,
                       "'delta'");
  STRATA_EXPECT_STATUS(make_codec_v3("bytes", 1), StatusCode::Unsupported, "'bytes'");
  STRATA_EXPECT_STATUS(make_codec_v3({{"name", "sharding_indexed"}}, 1), StatusCode::Unsupported,
                       "'sharding_indexed'");
  STRATA_EXPECT_STATUS(make_codec_v3({{"name", "numcodecs.bz2"}}, 1), StatusCode::Unsupported,
                       "'bz2'");
}

TEST(CodecFactoryTest, MalformedEntriesAreInvalid) {
  STRATA_EXPECT_STATUS(make_codec_v2(json(nullptr), 1), StatusCode::Invalid, "JSON object");
  STRATA_EXPECT_STATUS(make_codec_v2("zstd", 1), StatusCode::Invalid, "JSON object");
  STRATA_EXPECT_STATUS(make_codec_v2(json::object(), 1), StatusCode::Invalid, "missing field 'id'");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", 3}}, 1), StatusCode::Invalid, "'id' must be a string");
  STRATA_EXPECT_STATUS(make_codec_v3(42, 1), StatusCode::Invalid, "name or an object");
  STRATA_EXPECT_STATUS(make_codec_v3({{"configuration", json::object()}}, 1), StatusCode::Invalid,
                       "missing field 'name'");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "zstd"}, {"level", uint64_t{1} << 63}}, 1),
                       StatusCode::Invalid, "'level' must be an integer");
}

TEST(CodecFactoryTest, NumcodecsWrappedV3Names) {
  STRATA_ASSERT_OK_AND_ASSIGN(
      auto codec, make_codec_v3({{"name", "numcodecs.zlib"}, {"configuration", {{"level", 4}}}}, 1));
  EXPECT_EQ(codec->describe(), "zlib(4)");
  STRATA_ASSERT_OK_AND_ASSIGN(auto lz4, make_codec_v3("numcodecs.lz4", 1));
  EXPECT_EQ(lz4->describe(), "lz4(1)");
}

TEST(CodecFactoryTest, ParsesCliSpecs) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto none, parse_codec_spec("none", 1));
  EXPECT_EQ(none, nullptr);
  const std::vector<std::pair<std::string, std::string>> good = {
      {"zstd:3", "zstd(3)"},
      {"zstd:-5", "zstd(-5)"},
      {"lz4", "lz4(1)"},
      {"zlib:6", "zlib(6)"},
      {"gzip:9", "gzip(9)"},
      {"blosc:zstd:5:bitshuffle", "blosc(zstd, 5, bitshuffle)"},
      {"blosc:lz4:1:shuffle", "blosc(lz4, 1, shuffle)"},
      {"blosc:blosclz:9:noshuffle", "blosc(blosclz, 9, noshuffle)"},
  };
  for (const auto& [spec, description] : good) {
    STRATA_ASSERT_OK_AND_ASSIGN(auto codec, parse_codec_spec(spec, 4));
    ASSERT_NE(codec, nullptr) << spec;
    EXPECT_EQ(codec->describe(), description);
    test::expect_round_trip(*codec, test::compressible_bytes(2000, 4));
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto blosc, parse_codec_spec("blosc:zstd:5:shuffle", 8));
  EXPECT_EQ((*test::v3_of(*blosc))["configuration"]["typesize"], 8);
}

TEST(CodecFactoryTest, BadCliSpecsExplainTheGrammar) {
  for (const char* spec : {"", "zstd", "zstd:x", "zstd:3:1", "lz4:1", "snappy", "none:1",
                           "blosc:zstd:5", "blosc:zstd:5:byteshuffle", "gzip:1.5", "ZSTD:3"}) {
    SCOPED_TRACE(spec);
    STRATA_EXPECT_STATUS(parse_codec_spec(spec, 1), StatusCode::Invalid,
                         "expected none \\| zstd:LEVEL \\| lz4");
  }
  STRATA_EXPECT_STATUS(parse_codec_spec("zstd:99", 1), StatusCode::Invalid, "level must be between");
  STRATA_EXPECT_STATUS(parse_codec_spec("gzip:10", 1), StatusCode::Invalid, "level must be between");
  STRATA_EXPECT_STATUS(parse_codec_spec("blosc:lz77:5:shuffle", 1), StatusCode::Invalid, "cname 'lz77'");
  STRATA_EXPECT_STATUS(parse_codec_spec("blosc:zstd:12:shuffle", 1), StatusCode::Invalid, "clevel");
}

TEST(CodecFactoryTest, CodecsAreSharedAcrossThreads) {
  std::vector<std::unique_ptr<BytesCodec>> codecs;
  for (const char* spec : {"zstd:3", "lz4", "gzip:5", "zlib:1", "blosc:zstd:5:bitshuffle"}) {
    codecs.push_back(std::move(parse_codec_spec(spec, 2)).value());
  }
  codecs.push_back(std::move(make_codec_v3("crc32c", 1)).value());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        ByteVec data = test::compressible_bytes(3000 + 17 * round, 2, t * 100 + round);
        for (const auto& codec : codecs) {
          auto enc = codec->encode(span_of(data));
          auto dec = enc.ok() ? codec->decode(span_of(*enc)) : Result<Bytes>(enc.status());
          if (!dec.ok() || test::to_vec(*dec) != data) ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace strata::io
