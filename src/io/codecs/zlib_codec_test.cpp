#include "io/codecs/codec_internal.hpp"
#include "io/codecs/codec_test_helpers.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using test::ByteVec;
using test::span_of;

ByteVec concat(std::initializer_list<ByteVec> parts) {
  ByteVec all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

TEST(ZlibCodecTest, RoundTripsLevelsAndSizes) {
  for (const char* id : {"zlib", "gzip"}) {
    for (int level : {-1, 0, 1, 5, 9}) {
      auto codec = test::must_v2({{"id", id}, {"level", level}});
      for (size_t n : test::standard_sizes()) {
        test::expect_round_trip(*codec, test::compressible_bytes(n, 2));
        if (level == 1) test::expect_round_trip(*codec, test::random_bytes(n));
      }
    }
  }
}

TEST(ZlibCodecTest, WritesTheRightWrapper) {
  ByteVec data = test::compressible_bytes(1000);
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes z, test::must_v2({{"id", "zlib"}, {"level", 1}})->encode(span_of(data)));
  EXPECT_EQ(z[0], 0x78);
  EXPECT_EQ(z[1], 0x01);
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes g, test::must_v2({{"id", "gzip"}, {"level", 5}})->encode(span_of(data)));
  EXPECT_EQ(g[0], 0x1F);
  EXPECT_EQ(g[1], 0x8B);
  EXPECT_EQ(g[2], 0x08);
  // Each wrapper is refused by the other codec.
  STRATA_EXPECT_STATUS(test::must_v2({{"id", "gzip"}})->decode(span_of(z)), StatusCode::Corrupt, "gzip");
  STRATA_EXPECT_STATUS(test::must_v2({{"id", "zlib"}})->decode(span_of(g)), StatusCode::Corrupt, "zlib");
}

TEST(GzipCodecTest, DecodesMultipleMembersAndZeroPadding) {
  auto codec = test::must_v2({{"id", "gzip"}, {"level", 5}});
  ByteVec a = test::compressible_bytes(70000, 1, 1), b = test::random_bytes(300), c;
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes ea, codec->encode(span_of(a)));
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes eb, codec->encode(span_of(b)));
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes ec, codec->encode(span_of(c)));
  ByteVec stream = concat({test::to_vec(ea), test::to_vec(eb), test::to_vec(ec), test::to_vec(ea)});
  ByteVec expected = concat({a, b, a});
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes dec, codec->decode(span_of(stream)));
  EXPECT_TRUE(test::to_vec(dec) == expected);
  ByteVec out(expected.size());
  STRATA_EXPECT_OK(codec->decode_into(span_of(stream), {out.data(), out.size()}));
  EXPECT_TRUE(out == expected);
  ByteVec padded = concat({test::to_vec(eb), ByteVec(16, 0)});
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes dec2, codec->decode(span_of(padded)));
  EXPECT_TRUE(test::to_vec(dec2) == b);
  ByteVec junk = concat({test::to_vec(eb), ByteVec{1, 2, 3}});
  STRATA_EXPECT_STATUS(codec->decode(span_of(junk)), StatusCode::Corrupt, "gzip");
  // A second member cut short is truncation, not the end of the data.
  ByteVec cut = concat({test::to_vec(eb), ByteVec(ea.begin(), ea.begin() + 30)});
  STRATA_EXPECT_STATUS(codec->decode(span_of(cut)), StatusCode::Corrupt, "gzip");
}

TEST(ZlibCodecTest, TrailingDataAfterZlibStreamIsCorrupt) {
  auto codec = test::must_v2({{"id", "zlib"}});
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(span_of(ByteVec(100, 3))));
  ByteVec longer = concat({test::to_vec(enc), ByteVec{0}});
  STRATA_EXPECT_STATUS(codec->decode(span_of(longer)), StatusCode::Corrupt, "1 bytes of trailing data");
}

TEST(ZlibCodecErrors, CorruptInputIsReported) {
  for (const char* id : {"zlib", "gzip"}) {
    auto codec = test::must_v2({{"id", id}, {"level", 6}});
    ByteVec data = test::compressible_bytes(40000, 4);
    test::expect_truncations_fail(*codec, data);
    test::expect_flips_are_safe(*codec, data);
    STRATA_EXPECT_STATUS(codec->decode({}), StatusCode::Corrupt, "empty input");
    ByteVec out(10);
    STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(span_of(data)));
    STRATA_EXPECT_STATUS(codec->decode_into(span_of(enc), {out.data(), out.size()}),
                         StatusCode::Corrupt, "larger than the expected 10 bytes");
  }
}

TEST(ZlibCodecErrors, ConfigFieldsAreChecked) {
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "zlib"}, {"level", 10}}, 1), StatusCode::Invalid,
                       "zlib: field 'level' must be between -1 and 9");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "gzip"}, {"level", true}}, 1), StatusCode::Invalid,
                       "gzip: field 'level' must be an integer");
  STRATA_EXPECT_STATUS(make_codec_v3({{"name", "gzip"}}, 1), StatusCode::Invalid,
                       "missing field 'level'");
  STRATA_EXPECT_STATUS(make_codec_v3("zlib", 1), StatusCode::Unsupported, "'zlib'");
}

TEST(GzipCodecTest, JsonForms) {
  auto gzip = test::must_v2({{"id", "gzip"}, {"level", 5}});
  EXPECT_EQ(test::v2_of(*gzip), (json{{"id", "gzip"}, {"level", 5}}));
  EXPECT_EQ(*test::v3_of(*gzip), (json{{"name", "gzip"}, {"configuration", {{"level", 5}}}}));
  EXPECT_EQ(gzip->describe(), "gzip(5)");
  auto zlib = test::must_v2({{"id", "zlib"}});
  EXPECT_EQ(test::v2_of(*zlib), (json{{"id", "zlib"}, {"level", 1}}));
  STRATA_EXPECT_STATUS(test::v3_of(*zlib), StatusCode::Unsupported, "no zlib codec");
}

TEST(ZlibCodecInterop, NumcodecsDecodesStrataAndBack) {
  std::vector<test::InteropCase> cases;
  for (const char* id : {"zlib", "gzip"}) {
    for (int level : {1, 5, 9}) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{100}, size_t{65536}}) {
        cases.push_back({std::string(id) + "/l" + std::to_string(level) + "/n" + std::to_string(n),
                         {{"id", id}, {"level", level}}, 1, test::compressible_bytes(n, 1)});
      }
    }
    cases.push_back({std::string(id) + "/1MiB", {{"id", id}, {"level", 5}}, 1,
                     test::compressible_bytes(size_t{1} << 20, 1)});
    cases.push_back({std::string(id) + "/random", {{"id", id}, {"level", 1}}, 1,
                     test::random_bytes(100000)});
    cases.push_back({std::string(id) + "/u2", {{"id", id}, {"level", 3}}, 2,
                     test::compressible_bytes(50000, 2)});
  }
  test::run_numcodecs_interop(cases);
}

}  // namespace
}  // namespace strata::io
