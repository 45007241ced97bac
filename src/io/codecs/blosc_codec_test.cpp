#include <blosc.h>

#include "io/codecs/codec_internal.hpp"
#include "io/codecs/codec_test_helpers.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using test::ByteVec;
using test::span_of;

const std::vector<std::string>& cnames() {
  static const std::vector<std::string> names = {"blosclz", "lz4", "lz4hc", "zlib", "zstd", "snappy"};
  return names;
}

json blosc_v2(const std::string& cname, int clevel, int shuffle, int64_t blocksize = 0) {
  return {{"id", "blosc"}, {"cname", cname}, {"clevel", clevel}, {"shuffle", shuffle},
          {"blocksize", blocksize}};
}

TEST(BloscCodecTest, RoundTripsEveryCnameAndShuffle) {
  for (const auto& cname : cnames()) {
    for (int shuffle : {-1, 0, 1, 2}) {
      for (int itemsize : {1, 2, 4, 8}) {
        auto codec = test::must_v2(blosc_v2(cname, 5, shuffle), itemsize);
        ASSERT_NE(codec, nullptr);
        test::expect_round_trip(*codec, test::compressible_bytes(3000 * itemsize, itemsize));
        test::expect_round_trip(*codec, test::random_bytes(257 * itemsize));
      }
    }
  }
}

TEST(BloscCodecTest, RoundTripsStandardSizesAndLevels) {
  for (size_t n : test::standard_sizes()) {
    for (int clevel : {0, 1, 5, 9}) {
      auto codec = test::must_v2(blosc_v2("lz4", clevel, 1), 4);
      test::expect_round_trip(*codec, test::compressible_bytes(n, 4));
    }
    auto zstd = test::must_v2(blosc_v2("zstd", 5, 2), 1);
    test::expect_round_trip(*zstd, test::compressible_bytes(n, 1));
    test::expect_round_trip(*zstd, test::random_bytes(n));
  }
}

TEST(BloscCodecTest, HonoursBlocksizeAndOddTypesizes) {
  for (int64_t blocksize : {int64_t{256}, int64_t{4096}, int64_t{1} << 16}) {
    auto codec = test::must_v2(blosc_v2("zstd", 3, 1, blocksize), 4);
    test::expect_round_trip(*codec, test::compressible_bytes(100000, 4));
  }
  for (int64_t typesize : {3, 16, 255, 256, 1000}) {
    auto codec = test::must_v2(blosc_v2("blosclz", 5, 1), typesize);
    test::expect_round_trip(*codec, test::compressible_bytes(typesize * 500, 2));
  }
}

TEST(BloscCodecTest, WritesTheDocumentedHeader) {
  // formats.md §3: 1 MiB int8 at clevel 5, zstd + bitshuffle gives flags 0x94.
  auto codec = test::must_v2(blosc_v2("zstd", 5, 2), 1);
  auto enc = codec->encode(span_of(test::compressible_bytes(1 << 20, 1)));
  STRATA_ASSERT_OK(enc);
  EXPECT_EQ((*enc)[0], 2);
  EXPECT_EQ((*enc)[2], 0x94);
  EXPECT_EQ((*enc)[3], 1);
  EXPECT_EQ(detail::load_le32(enc->data() + 4), 1u << 20);
  EXPECT_EQ(detail::load_le32(enc->data() + 12), enc->size());
  // A tiny chunk is stored raw (MEMCPYED).
  auto small = codec->encode(span_of(ByteVec(8, 1)));
  STRATA_ASSERT_OK(small);
  EXPECT_EQ(small->size(), 24u);
  EXPECT_EQ((*small)[2] & 0x02, 0x02);
}

TEST(BloscCodecTest, AutoshuffleFollowsItemsize) {
  auto one = test::must_v2(blosc_v2("lz4", 5, -1), 1);
  auto four = test::must_v2(blosc_v2("lz4", 5, -1), 4);
  EXPECT_EQ(one->describe(), "blosc(lz4, 5, bitshuffle)");
  EXPECT_EQ(four->describe(), "blosc(lz4, 5, shuffle)");
  // v2 keeps -1, v3 needs the concrete choice.
  EXPECT_EQ(test::v2_of(*one)["shuffle"], -1);
  EXPECT_EQ((*test::v3_of(*one))["configuration"]["shuffle"], "bitshuffle");
}

TEST(BloscCodecErrors, TruncatedFramesAreCorrupt) {
  for (const auto& [cname, shuffle] : {std::pair{"lz4", 1}, {"zstd", 2}, {"blosclz", 0}}) {
    auto codec = test::must_v2(blosc_v2(cname, 5, shuffle), 4);
    test::expect_truncations_fail(*codec, test::compressible_bytes(50000, 4));
    test::expect_truncations_fail(*codec, test::random_bytes(40));  // MEMCPYED frame
  }
}

TEST(BloscCodecErrors, FlippedBytesNeverCrash) {
  for (const auto& cname : cnames()) {
    auto codec = test::must_v2(blosc_v2(cname, 5, 1), 2);
    test::expect_flips_are_safe(*codec, test::compressible_bytes(20000, 2));
  }
}

TEST(BloscCodecErrors, RandomlyMutatedFramesStayInBounds) {
  // Mutations aim mostly at the header, block offsets and split sizes that libblosc trusts;
  // the guard page turns any read past the frame into a crash.
  std::mt19937_64 rng(11);
  ByteVec data = test::compressible_bytes(20000, 4);
  for (const auto& cname : cnames()) {
    for (int shuffle : {0, 1, 2}) {
      auto codec = test::must_v2(blosc_v2(cname, 5, shuffle, 4096), 4);
      STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(span_of(data)));
      for (int iter = 0; iter < 300; ++iter) {
        ByteVec m = test::to_vec(enc);
        for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
          size_t pos = rng() % 2 ? rng() % std::min<size_t>(64, m.size()) : rng() % m.size();
          m[pos] = static_cast<uint8_t>(rng());
        }
        test::GuardedCopy frame(span_of(m));
        (void)codec->decode(frame.span());
        ByteVec out(data.size());
        (void)codec->decode_into(frame.span(), {out.data(), out.size()});
      }
    }
  }
}

TEST(BloscCodecErrors, HeaderChecksNameTheProblem) {
  auto codec = test::must_v2(blosc_v2("lz4", 5, 1), 4);
  auto enc = codec->encode(span_of(test::compressible_bytes(4096, 4)));
  STRATA_ASSERT_OK(enc);
  ByteVec frame = test::to_vec(*enc);

  ByteVec longer = frame;
  longer.push_back(0);
  STRATA_EXPECT_STATUS(codec->decode(span_of(longer)), StatusCode::Corrupt,
                       "header says [0-9]+ bytes compressed but chunk has [0-9]+");
  ByteVec v = frame;
  v[0] = 9;
  STRATA_EXPECT_STATUS(codec->decode(span_of(v)), StatusCode::Corrupt, "format version 9");
  v = frame;
  v[3] = 0;
  STRATA_EXPECT_STATUS(codec->decode(span_of(v)), StatusCode::Corrupt, "typesize 0");
  v = frame;
  detail::store_le32(v.data() + 8, 0);
  STRATA_EXPECT_STATUS(codec->decode(span_of(v)), StatusCode::Corrupt, "block size 0");
  v = frame;
  detail::store_le32(v.data() + 4, 0x7FFFFFF0u);
  STRATA_EXPECT_STATUS(codec->decode(span_of(v)), StatusCode::Corrupt, "bytes uncompressed");
  v = frame;
  detail::store_le32(v.data() + 16, 0xFFFF);
  STRATA_EXPECT_STATUS(codec->decode(span_of(v)), StatusCode::Corrupt, "block 0 starts at");
  ByteVec out(100);
  STRATA_EXPECT_STATUS(codec->decode_into(span_of(frame), {out.data(), out.size()}),
                       StatusCode::Corrupt, "header says 4096 bytes uncompressed but 100");
}

TEST(BloscCodecErrors, OversizedChunksAreRefused) {
  auto codec = test::must_v2(blosc_v2("lz4", 5, 1), 1);
  uint8_t byte = 0;
  // The size check happens before any byte is read.
  std::span<const uint8_t> huge(&byte, size_t{1} << 31);
  STRATA_EXPECT_STATUS(codec->encode(huge), StatusCode::Unsupported, "exceeds blosc's limit");
}

TEST(BloscCodecErrors, ConfigFieldsAreChecked) {
  STRATA_EXPECT_STATUS(make_codec_v2(blosc_v2("lz5", 5, 1), 1), StatusCode::Invalid, "cname 'lz5'");
  STRATA_EXPECT_STATUS(make_codec_v2(blosc_v2("lz4", 10, 1), 1), StatusCode::Invalid, "'clevel'");
  STRATA_EXPECT_STATUS(make_codec_v2(blosc_v2("lz4", 5, 3), 1), StatusCode::Invalid, "'shuffle'");
  STRATA_EXPECT_STATUS(make_codec_v2(blosc_v2("lz4", 5, 1, -1), 1), StatusCode::Invalid,
                       "'blocksize'");
  STRATA_EXPECT_STATUS(make_codec_v2(json{{"id", "blosc"}, {"clevel", "5"}}, 1),
                       StatusCode::Invalid, "'clevel' must be an integer");
  STRATA_EXPECT_STATUS(make_codec_v2(json{{"id", "blosc"}, {"cname", 4}}, 1), StatusCode::Invalid,
                       "'cname' must be a string");
  STRATA_EXPECT_STATUS(make_codec_v2(blosc_v2("lz4", 5, 1), 0), StatusCode::Invalid, "typesize");
  json v3 = {{"name", "blosc"},
             {"configuration", {{"cname", "zstd"}, {"clevel", 5}, {"shuffle", 2}}}};
  STRATA_EXPECT_STATUS(make_codec_v3(v3, 1), StatusCode::Invalid, "'shuffle' must be a string");
  v3["configuration"]["shuffle"] = "byteshuffle";
  STRATA_EXPECT_STATUS(make_codec_v3(v3, 1), StatusCode::Invalid, "byteshuffle");
  v3["configuration"].erase("shuffle");
  STRATA_EXPECT_STATUS(make_codec_v3(v3, 1), StatusCode::Invalid, "missing field 'shuffle'");
}

TEST(BloscCodecTest, V3ConfigRoundTrips) {
  json v3 = {{"name", "blosc"},
             {"configuration",
              {{"cname", "zstd"}, {"clevel", 5}, {"shuffle", "bitshuffle"}, {"typesize", 4},
               {"blocksize", 0}}}};
  STRATA_ASSERT_OK_AND_ASSIGN(auto codec, make_codec_v3(v3, 1));
  EXPECT_EQ(*test::v3_of(*codec), v3);
  EXPECT_EQ(codec->describe(), "blosc(zstd, 5, bitshuffle)");
  test::expect_round_trip(*codec, test::compressible_bytes(10000, 4));
}

TEST(BloscCodecInterop, NumcodecsDecodesStrataAndBack) {
  std::vector<test::InteropCase> cases;
  for (const auto& cname : cnames()) {
    for (int shuffle : {0, 1, 2}) {
      cases.push_back({cname + "/s" + std::to_string(shuffle), blosc_v2(cname, 5, shuffle), 4,
                       test::compressible_bytes(65536, 4)});
    }
  }
  for (int itemsize : {1, 2, 8}) {
    for (int shuffle : {-1, 1, 2}) {
      cases.push_back({"zstd/i" + std::to_string(itemsize) + "/s" + std::to_string(shuffle),
                       blosc_v2("zstd", 7, shuffle), itemsize,
                       test::compressible_bytes(30000 * itemsize, itemsize)});
    }
  }
  for (size_t n : {0, 1, 7, 100}) {
    cases.push_back({"lz4/n" + std::to_string(n), blosc_v2("lz4", 5, 1), 1, test::random_bytes(n)});
  }
  cases.push_back({"lz4/random-1MiB", blosc_v2("lz4", 5, 1), 1, test::random_bytes(1 << 20)});
  cases.push_back({"zstd/1MiB", blosc_v2("zstd", 5, 2), 1, test::compressible_bytes(1 << 20, 1)});
  cases.push_back({"lz4/clevel0", blosc_v2("lz4", 0, 1), 4, test::compressible_bytes(4000, 4)});
  cases.push_back({"lz4hc/clevel9", blosc_v2("lz4hc", 9, 1), 2, test::compressible_bytes(40000, 2)});
  cases.push_back({"zstd/blocksize4096", blosc_v2("zstd", 3, 1, 4096), 4,
                   test::compressible_bytes(100000, 4)});
  // numcodecs 0.11 cannot decode a zero-length chunk, even one it wrote itself.
  test::run_numcodecs_interop(cases, {"lz4/n0 decode"});
}

}  // namespace
}  // namespace strata::io
