#include <zstd.h>

#include "io/codecs/codec_internal.hpp"
#include "io/codecs/codec_test_helpers.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using test::ByteVec;
using test::span_of;

// A zstd frame written without its content size, as streaming writers produce.
ByteVec frame_without_size(const ByteVec& data, int level = 3) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  ByteVec out(ZSTD_compressBound(data.size()));
  size_t n = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

ByteVec concat(std::initializer_list<ByteVec> parts) {
  ByteVec all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

TEST(ZstdCodecTest, RoundTripsLevelsAndSizes) {
  for (int level : {-5, 0, 1, 3, 9}) {
    for (bool checksum : {false, true}) {
      auto codec = test::must_v2({{"id", "zstd"}, {"level", level}, {"checksum", checksum}});
      for (size_t n : test::standard_sizes()) {
        test::expect_round_trip(*codec, test::compressible_bytes(n, 2));
        if (level == 3) test::expect_round_trip(*codec, test::random_bytes(n));
      }
    }
  }
  auto max = test::must_v2({{"id", "zstd"}, {"level", 22}});
  test::expect_round_trip(*max, test::compressible_bytes(5000, 4));
}

TEST(ZstdCodecTest, RecordsContentSizeForNumcodecs) {
  auto codec = test::must_v2({{"id", "zstd"}, {"level", 3}});
  auto enc = codec->encode(span_of(test::compressible_bytes(1000)));
  STRATA_ASSERT_OK(enc);
  EXPECT_EQ(ZSTD_getFrameContentSize(enc->data(), enc->size()), 1000u);
}

TEST(ZstdCodecTest, DecodesFramesWithoutContentSize) {
  auto codec = test::must_v2({{"id", "zstd"}});
  for (size_t n : {size_t{0}, size_t{1}, size_t{5000}, size_t{3} << 20}) {
    ByteVec data = test::compressible_bytes(n, 1);
    ByteVec frame = frame_without_size(data);
    ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);
    STRATA_ASSERT_OK_AND_ASSIGN(Bytes dec, codec->decode(span_of(frame)));
    EXPECT_TRUE(test::to_vec(dec) == data);
    ByteVec out(n);
    STRATA_EXPECT_OK(codec->decode_into(span_of(frame), {out.data(), out.size()}));
    EXPECT_TRUE(out == data);
    ByteVec wrong(n + 1);
    STRATA_EXPECT_STATUS(codec->decode_into(span_of(frame), {wrong.data(), wrong.size()}),
                         StatusCode::Corrupt, "zstd");
  }
  ByteVec frame = frame_without_size(test::compressible_bytes(10000));
  test::expect_truncations_fail(*codec, test::compressible_bytes(10000));
  for (size_t cut : {size_t{4}, size_t{10}, frame.size() - 1}) {
    ByteVec prefix(frame.begin(), frame.begin() + cut);
    STRATA_EXPECT_STATUS(codec->decode(span_of(prefix)), StatusCode::Corrupt, "zstd");
  }
}

TEST(ZstdCodecTest, DecodesConcatenatedAndSkippableFrames) {
  auto codec = test::must_v2({{"id", "zstd"}});
  ByteVec a = test::compressible_bytes(3000, 1, 1), b = test::random_bytes(200), c(500, 9);
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes ea, codec->encode(span_of(a)));
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes ec, codec->encode(span_of(c)));
  // Skippable frame: magic 0x184D2A50, 4-byte length, payload.
  ByteVec skip = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'};
  ByteVec expected = concat({a, b, c});
  for (const ByteVec& stream : {concat({test::to_vec(ea), frame_without_size(b), skip, test::to_vec(ec)}),
                                concat({test::to_vec(ea), skip, frame_without_size(b), test::to_vec(ec)})}) {
    STRATA_ASSERT_OK_AND_ASSIGN(Bytes dec, codec->decode(span_of(stream)));
    EXPECT_TRUE(test::to_vec(dec) == expected);
    ByteVec out(expected.size());
    STRATA_EXPECT_OK(codec->decode_into(span_of(stream), {out.data(), out.size()}));
    EXPECT_TRUE(out == expected);
  }
  ByteVec sized = concat({test::to_vec(ea), test::to_vec(ec)});
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes dec, codec->decode(span_of(sized)));
  EXPECT_TRUE(test::to_vec(dec) == concat({a, c}));
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes only_skip, codec->decode(span_of(skip)));
  EXPECT_TRUE(only_skip.empty());
}

TEST(ZstdCodecErrors, CorruptInputIsReported) {
  auto codec = test::must_v2({{"id", "zstd"}, {"level", 3}, {"checksum", true}});
  ByteVec data = test::compressible_bytes(20000, 2);
  test::expect_truncations_fail(*codec, data);
  test::expect_flips_are_safe(*codec, data);
  STRATA_EXPECT_STATUS(codec->decode({}), StatusCode::Corrupt, "empty input");
  ByteVec garbage = test::random_bytes(100);
  STRATA_EXPECT_STATUS(codec->decode(span_of(garbage)), StatusCode::Corrupt, "no valid frame header");
  STRATA_ASSERT_OK_AND_ASSIGN(Bytes enc, codec->encode(span_of(data)));
  ByteVec trailing = concat({test::to_vec(enc), ByteVec{1, 2, 3}});
  STRATA_EXPECT_STATUS(codec->decode(span_of(trailing)), StatusCode::Corrupt, "at byte");
  // A flipped bit in the last block's content is caught (by the block decoder, before the checksum).
  ByteVec flipped = test::to_vec(enc);
  flipped[flipped.size() - 6] ^= 0x10;
  STRATA_EXPECT_STATUS(codec->decode(span_of(flipped)), StatusCode::Corrupt,
                       "^zstd: corrupt data \\(Data corruption detected\\)$");
  // A flipped bit in the stored checksum (the frame's last 4 bytes) fails the checksum.
  ByteVec bad_sum = test::to_vec(enc);
  bad_sum[bad_sum.size() - 2] ^= 0x10;
  STRATA_EXPECT_STATUS(codec->decode(span_of(bad_sum)), StatusCode::Corrupt, "^zstd: corrupt data \\(.*checksum\\)$");
}

TEST(ZstdCodecErrors, ForgedContentSizeIsNotAllocated) {
  auto codec = test::must_v2({{"id", "zstd"}});
  // Frame header: magic, FHD 0xE0 (8-byte content size, single segment), size 2^40, then a
  // raw last block of 1 byte.
  ByteVec frame = {0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 1, 0, 0, 0x09, 0, 0, 'a'};
  STRATA_EXPECT_STATUS(codec->decode(span_of(frame)), StatusCode::Corrupt, "claim");
}

TEST(ZstdCodecErrors, ConfigFieldsAreChecked) {
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "zstd"}, {"level", 23}}, 1), StatusCode::Invalid,
                       "'level' must be between");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "zstd"}, {"level", 1.5}}, 1), StatusCode::Invalid,
                       "'level' must be an integer");
  STRATA_EXPECT_STATUS(make_codec_v2({{"id", "zstd"}, {"checksum", 1}}, 1), StatusCode::Invalid,
                       "'checksum' must be true or false");
  STRATA_EXPECT_STATUS(make_codec_v3({{"name", "zstd"}, {"configuration", json::object()}}, 1),
                       StatusCode::Invalid, "missing field 'level'");
  STRATA_EXPECT_STATUS(make_codec_v3({{"name", "zstd"}, {"configuration", {1, 2}}}, 1),
                       StatusCode::Invalid, "'configuration' must be an object");
}

TEST(ZstdCodecTest, JsonFormsRoundTrip) {
  auto codec = test::must_v2({{"id", "zstd"}, {"level", 3}});
  EXPECT_EQ(test::v2_of(*codec), (json{{"id", "zstd"}, {"level", 3}}));
  EXPECT_EQ(*test::v3_of(*codec),
            (json{{"name", "zstd"}, {"configuration", {{"level", 3}, {"checksum", false}}}}));
  EXPECT_EQ(codec->describe(), "zstd(3)");
  auto defaulted = test::must_v2({{"id", "zstd"}});
  EXPECT_EQ(defaulted->describe(), "zstd(1)");
  STRATA_ASSERT_OK_AND_ASSIGN(
      auto v3, make_codec_v3({{"name", "zstd"}, {"configuration", {{"level", -3}, {"checksum", true}}}}, 1));
  EXPECT_EQ(v3->describe(), "zstd(-3, checksum)");
  EXPECT_EQ(test::v2_of(*v3), (json{{"id", "zstd"}, {"level", -3}, {"checksum", true}}));
}

TEST(ZstdCodecInterop, NumcodecsDecodesStrataAndBack) {
  std::vector<test::InteropCase> cases;
  for (int level : {1, 3, 9, -1}) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{100}, size_t{65536}}) {
      cases.push_back({"l" + std::to_string(level) + "/n" + std::to_string(n),
                       {{"id", "zstd"}, {"level", level}}, 1, test::compressible_bytes(n, 1)});
    }
  }
  cases.push_back({"1MiB", {{"id", "zstd"}, {"level", 3}}, 1, test::compressible_bytes(1 << 20, 1)});
  cases.push_back({"random", {{"id", "zstd"}, {"level", 3}}, 1, test::random_bytes(100000)});
  cases.push_back({"i8", {{"id", "zstd"}, {"level", 5}}, 8, test::compressible_bytes(80000, 8)});
  // numcodecs 0.11 refuses to decode a zero-length frame (its content size is 0).
  cases.push_back({"empty", {{"id", "zstd"}, {"level", 3}}, 1, {}});
  test::run_numcodecs_interop(cases, {"empty decode"});
}

}  // namespace
}  // namespace strata::io
