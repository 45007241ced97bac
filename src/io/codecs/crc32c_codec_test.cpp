#include "io/codecs/codec_internal.hpp"
#include "io/codecs/codec_test_helpers.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using test::ByteVec;
using test::span_of;

std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(Crc32cTest, KnownVectors) {
  // RFC 3720 B.4 and the common check value.
  EXPECT_EQ(crc32c(bytes_of("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c(span_of(ByteVec(32, 0x00))), 0x8A9136AAu);
  EXPECT_EQ(crc32c(span_of(ByteVec(32, 0xFF))), 0x62A8AB43u);
  ByteVec inc(32), dec(32);
  for (int i = 0; i < 32; ++i) {
    inc[i] = static_cast<uint8_t>(i);
    dec[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(crc32c(span_of(inc)), 0x46DD794Eu);
  EXPECT_EQ(crc32c(span_of(dec)), 0x113FDB5Cu);
  EXPECT_EQ(crc32c({}), 0u);
  EXPECT_EQ(crc32c(bytes_of("a")), 0xC1D04330u);
}

TEST(Crc32cTest, PortableAndHardwarePathsAgree) {
  ByteVec data = test::random_bytes(10000, 3);
  // Every length and misalignment up to a few words, then a large buffer.
  for (size_t start = 0; start < 9; ++start) {
    for (size_t len = 0; len < 70; ++len) {
      std::span<const uint8_t> s(data.data() + start, len);
      ASSERT_EQ(crc32c(s), detail::crc32c_portable(s)) << start << "+" << len;
    }
  }
  EXPECT_EQ(crc32c(span_of(data)), detail::crc32c_portable(span_of(data)));
  EXPECT_EQ(detail::crc32c_portable(bytes_of("123456789")), 0xE3069283u);
}

TEST(Crc32cTest, ChainsAcrossPieces) {
  ByteVec data = test::random_bytes(5000, 9);
  std::span<const uint8_t> all = span_of(data);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{13}, size_t{4096}, data.size()}) {
    EXPECT_EQ(crc32c(all.subspan(cut), crc32c(all.first(cut))), crc32c(all));
    EXPECT_EQ(detail::crc32c_portable(all.subspan(cut), detail::crc32c_portable(all.first(cut))),
              crc32c(all));
  }
}

TEST(Crc32cCodecTest, AppendsLittleEndianChecksum) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto codec, make_codec_v3("crc32c", 1));
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(bytes_of("123456789")));
  ASSERT_EQ(enc.size(), 13u);
  EXPECT_EQ(ByteVec(enc.begin() + 9, enc.end()), (ByteVec{0x83, 0x92, 0x06, 0xE3}));
  for (size_t n : test::standard_sizes()) {
    test::expect_round_trip(*codec, test::random_bytes(n));
  }
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes empty, codec->encode({}));
  EXPECT_EQ(test::to_vec(empty), (ByteVec{0, 0, 0, 0}));
}

TEST(Crc32cCodecTest, MismatchIsCorruptWithBothValues) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto codec, make_codec_v3(json{{"name", "crc32c"}}, 1));
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(bytes_of("123456789")));
  ByteVec bad = test::to_vec(enc);
  bad[0] ^= 1;
  STRATA_EXPECT_STATUS(codec->decode(span_of(bad)), StatusCode::Corrupt,
                       "checksum mismatch: stored 0xE3069283, computed 0x[0-9A-F]{8}");
  ByteVec out(9);
  STRATA_EXPECT_STATUS(codec->decode_into(span_of(bad), {out.data(), out.size()}),
                       StatusCode::Corrupt, "stored 0xE3069283");
  STRATA_EXPECT_STATUS(codec->decode(span_of(ByteVec{1, 2, 3})), StatusCode::Corrupt,
                       "fewer than the 4-byte checksum");
  test::expect_truncations_fail(*codec, test::random_bytes(100));
  test::expect_flips_are_safe(*codec, test::random_bytes(100));
}

TEST(Crc32cCodecTest, JsonForms) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto codec, make_codec_v3("crc32c", 1));
  EXPECT_EQ(*test::v3_of(*codec), (json{{"name", "crc32c"}}));
  EXPECT_EQ(codec->describe(), "crc32c");
  EXPECT_EQ(codec->name(), "crc32c");
  STRATA_ASSERT_OK_AND_ASSIGN(auto again, make_codec_v3(*test::v3_of(*codec), 1));
  EXPECT_EQ(again->describe(), "crc32c");
  STRATA_ASSERT_OK_AND_ASSIGN(auto v2, make_codec_v2(test::v2_of(*codec), 1));
  EXPECT_EQ(v2->name(), "crc32c");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "crc32c"}, {"location", "start"}}, 1),
                       StatusCode::Unsupported, "location 'start'");
}

}  // namespace
}  // namespace strata::io
