#include "io/codecs/codec_internal.hpp"
#include "io/codecs/codec_test_helpers.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using test::ByteVec;
using test::span_of;

TEST(Lz4CodecTest, RoundTripsAccelerationsAndSizes) {
  for (int accel : {1, 4, 100, 0, -3}) {
    auto codec = test::must_v2({{"id", "lz4"}, {"acceleration", accel}});
    for (size_t n : test::standard_sizes()) {
      test::expect_round_trip(*codec, test::compressible_bytes(n, 4));
      if (accel == 1) test::expect_round_trip(*codec, test::random_bytes(n));
    }
  }
}

TEST(Lz4CodecTest, UsesNumcodecsFraming) {
  auto codec = test::must_v2({{"id", "lz4"}});
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(span_of(ByteVec(1000, 7))));
  EXPECT_EQ(detail::load_le32(enc.data()), 1000u);
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes empty, codec->encode({}));
  EXPECT_EQ(empty.size(), 5u);  // length 0 and a lone zero token
}

TEST(Lz4CodecErrors, CorruptInputIsReported) {
  auto codec = test::must_v2({{"id", "lz4"}});
  ByteVec data = test::compressible_bytes(30000, 2);
  test::expect_truncations_fail(*codec, data);
  test::expect_flips_are_safe(*codec, data);
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(span_of(data)));
  ByteVec forged = test::to_vec(enc);
  detail::store_le32(forged.data(), 0xFFFFFFF0u);
  STRATA_EXPECT_STATUS(codec->decode(span_of(forged)), StatusCode::Corrupt, "length prefix claims");
  detail::store_le32(forged.data(), static_cast<uint32_t>(data.size() + 1));
  STRATA_EXPECT_STATUS(codec->decode(span_of(forged)), StatusCode::Corrupt, "lz4");
  ByteVec out(data.size() - 1);
  STRATA_EXPECT_STATUS(codec->decode_into(span_of(enc), {out.data(), out.size()}),
                       StatusCode::Corrupt, "header says 30000 bytes uncompressed");
}

TEST(Lz4CodecErrors, OversizedChunksAreRefused) {
  auto codec = test::must_v2({{"id", "lz4"}});
  uint8_t byte = 0;
  std::span<const uint8_t> huge(&byte, size_t{1} << 31);  // checked before any read
  STRATA_EXPECT_STATUS(codec->encode(huge), StatusCode::Unsupported, "LZ4's limit");
}

TEST(Lz4CodecTest, JsonForms) {
  auto codec = test::must_v2({{"id", "lz4"}});
  EXPECT_EQ(test::v2_of(*codec), (json{{"id", "lz4"}, {"acceleration", 1}}));
  STRATA_EXPECT_STATUS(test::v3_of(*codec), StatusCode::Unsupported, "no lz4 codec");
  EXPECT_EQ(codec->describe(), "lz4(1)");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "lz4"}, {"acceleration", "fast"}}, 1),
                       StatusCode::Invalid, "'acceleration' must be an integer");
  STRATA_EXPECT_STATUS(make_codec_v3({{"name", "lz4"}}, 1), StatusCode::Unsupported, "'lz4'");
}

TEST(Lz4CodecInterop, NumcodecsDecodesStrataAndBack) {
  std::vector<test::InteropCase> cases;
  for (int accel : {1, 10}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{100}, size_t{1} << 20}) {
      cases.push_back({"a" + std::to_string(accel) + "/n" + std::to_string(n),
                       {{"id", "lz4"}, {"acceleration", accel}}, 1, test::compressible_bytes(n, 1)});
    }
  }
  cases.push_back({"random", {{"id", "lz4"}, {"acceleration", 1}}, 1, test::random_bytes(1 << 20)});
  cases.push_back({"u4", {{"id", "lz4"}, {"acceleration", 1}}, 4, test::compressible_bytes(40000, 4)});
  // numcodecs 0.11 cannot decode a zero-length chunk, even one it wrote itself.
  test::run_numcodecs_interop(cases, {"a1/n0 decode", "a10/n0 decode"});
}

}  // namespace
}  // namespace strata::io
