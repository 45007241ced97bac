// Backend conformance, pair counts: the bit planes and the nine-field and KING counts of tiles
// against plain loops over the codes, at every registered level.
#include "backend/conformance.hpp"

namespace strata::backend::conformance {
namespace {

// Pair counts: planes built by the backend from codes (trailing pairs of a row's last byte
// random too: they are past the samples and must count nothing), then joint counts of tiles
// (whole, offset, offset diagonal) against plain loops over the codes. Exact.
void check_pair_counts(const Backend& be, const Codes& c) {
  const int64_t n = c.n, m = c.rows;
  {
    const int64_t words = (m + 63) / 64;
    std::vector<uint64_t> planes(static_cast<size_t>(CodePlanesView::buffer_words(n, words)), ~uint64_t{0});
    for (int64_t w = 0; w < words; ++w) {
      const CodesView block{c.buf.data() + w * 64 * c.stride, std::min<int64_t>(64, m - w * 64), n, c.stride};
      ASSERT_TRUE(be.code_planes(block, planes.data(), words, w).ok());
    }
    auto plane_bit = [&](int64_t s, int64_t v, int p) {
      const uint64_t word = planes[static_cast<size_t>((((s / 8) * words + v / 64) * 3 + p) * 8 + s % 8)];
      return static_cast<int>((word >> (v % 64)) & 1);
    };
    for (int64_t s = 0; s < (n + 7) / 8 * 8; ++s)
      for (int64_t v = 0; v < words * 64; ++v) {
        const int code = s < n && v < m ? c.code(v, s) : 3;
        ASSERT_EQ(plane_bit(s, v, 0), code == 1 ? 1 : 0) << "n " << n << " sample " << s << " variant " << v;
        ASSERT_EQ(plane_bit(s, v, 1), code == 2 ? 1 : 0) << "n " << n << " sample " << s << " variant " << v;
        ASSERT_EQ(plane_bit(s, v, 2), code != 3 ? 1 : 0) << "n " << n << " sample " << s << " variant " << v;
      }
    const CodePlanesView pv{planes.data(), n, words};
    // Tiles: the whole square, an offset one (rows from 1, columns from the second group) and
    // a diagonal one from the second group.
    for (auto [row0, rows, col0, cols] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{0, n, 0, n},
                                          {std::min<int64_t>(1, n - 1), n - std::min<int64_t>(1, n - 1),
                                           n > 8 ? 8 : 0, n > 8 ? n - 8 : n},
                                          {n > 8 ? 8 : 0, n > 8 ? n - 8 : n, n > 8 ? 8 : 0, n > 8 ? n - 8 : n}}) {
      const int64_t ldc = (cols + 7) / 8 * 8;
      std::vector<int64_t> got(static_cast<size_t>(kPairCountFields * rows * ldc), 5);
      ASSERT_TRUE(be.pair_code_counts(pv, row0, rows, col0, cols, got.data()).ok());
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < ldc; ++j) {
          int64_t ref[kPairCountFields] = {};
          for (int64_t v = 0; v < m && col0 + j < n; ++v) {
            const int a = c.code(v, row0 + i), b = c.code(v, col0 + j);
            const bool ao = a != 3, bo = b != 3;
            ref[kPairBoth] += ao && bo;
            ref[kPairHetHet] += a == 1 && b == 1;
            ref[kPairHetAlt] += a == 1 && b == 2;
            ref[kPairAltHet] += a == 2 && b == 1;
            ref[kPairAltAlt] += a == 2 && b == 2;
            ref[kPairHetObs] += a == 1 && bo;
            ref[kPairAltObs] += a == 2 && bo;
            ref[kPairObsHet] += ao && b == 1;
            ref[kPairObsAlt] += ao && b == 2;
          }
          for (int f = 0; f < kPairCountFields; ++f)
            ASSERT_EQ(got[static_cast<size_t>((f * rows + i) * ldc + j)], ref[f] + 5)
                << "n " << n << " m " << m << " field " << f << " pair " << row0 + i << "," << col0 + j;
        }
      // The KING counts of the same tile (on a diagonal tile only pairs j <= i are required).
      std::vector<int64_t> king(static_cast<size_t>(kKingCountFields * rows * ldc), 7);
      ASSERT_TRUE(be.pair_king_counts(pv, row0, rows, col0, cols, king.data()).ok());
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < ldc && !(row0 == col0 && j > i); ++j) {
          int64_t ref[kKingCountFields] = {};
          for (int64_t v = 0; v < m && col0 + j < n; ++v) {
            const int a = c.code(v, row0 + i), b = c.code(v, col0 + j);
            ref[kKingBoth] += a != 3 && b != 3;
            ref[kKingHetHet] += a == 1 && b == 1;
            ref[kKingHetObs] += a == 1 && b != 3;
            ref[kKingObsHet] += a != 3 && b == 1;
            ref[kKingIbs0] += (a == 0 && b == 2) || (a == 2 && b == 0);
          }
          for (int f = 0; f < kKingCountFields; ++f)
            ASSERT_EQ(king[static_cast<size_t>((f * rows + i) * ldc + j)], ref[f] + 7)
                << "KING n " << n << " m " << m << " field " << f << " pair " << row0 + i << "," << col0 + j;
        }
    }
  }
}

TEST_P(Conformance, CodePlanesAndPairCounts) {
  std::mt19937_64 rng(12);
  // Word counts around the kernels' chunks (the AVX2 kernel folds its byte sums every 31
  // words, the AVX-512 one chunks by 128): 1, 2, 4, 16, 31, 32, 71 and 129 words.
  for (auto [n, m] : {std::pair<int64_t, int64_t>{1, 5}, {2, 64}, {7, 65}, {65, 200}, {130, 129}, {17, 1000},
                      {21, 31 * 64}, {12, 31 * 64 + 1}, {21, 70 * 64 + 5}, {9, 128 * 64 + 3}}) {
    SCOPED_TRACE(testing::Message() << "random codes n " << n << " m " << m);
    check_pair_counts(*be_, Codes(m, n, 1, rng));
  }
  // Few missing calls: the AVX2 kernels count the fields that involve "observed" through the
  // missing calls, over the words that have some (and directly where many words have). None
  // but for one call of sample 5 in the third word and one of sample 40 in the 35th, then one
  // call in 250 missing: 41 words (chunks of 31 and 10 words at the AVX2 level).
  for (int rate : {0, 250}) {
    Codes c(41 * 64, 45, 1, rng);
    for (int64_t v = 0; v < c.rows; ++v)
      for (int64_t s = 0; s < c.n; ++s) {
        uint8_t& byte = c.buf[static_cast<size_t>(v * c.stride + s / 4)];
        const bool missing = rate ? rng() % rate == 0 : (v == 150 && s == 5) || (v == 2200 && s == 40);
        if (missing) {
          byte |= static_cast<uint8_t>(3 << (2 * (s % 4)));
        } else if (c.code(v, s) == 3) {
          byte ^= static_cast<uint8_t>(1 << (2 * (s % 4) + (v + s) % 2));
        }
      }
    SCOPED_TRACE(testing::Message() << "few missing calls, rate 1 in " << rate << " (0: two calls)");
    check_pair_counts(*be_, c);
  }
  // Every count at its most for whole words (each byte of a popcount at 8): per row, samples
  // het, then alternating hom-ref / hom-alt, then missing, the same for every variant; 31 and
  // 129 words, 41 samples (tiles with partial vectors and groups).
  for (int64_t m : {int64_t{31 * 64}, int64_t{129 * 64}}) {
    SCOPED_TRACE(testing::Message() << "constant codes m " << m);
    Codes c(m, 41, 1, rng);
    for (int64_t v = 0; v < m; ++v)
      for (int64_t s = 0; s < c.stride * 4; ++s) {
        const int code = s < 16 ? 1 : s < 36 ? (s % 2 == 0 ? 0 : 2) : 3;
        uint8_t& byte = c.buf[static_cast<size_t>(v * c.stride + s / 4)];
        byte = static_cast<uint8_t>((byte & ~(3 << (2 * (s % 4)))) | code << (2 * (s % 4)));
      }
    check_pair_counts(*be_, c);
  }
  // A tile outside the planes is refused, not read.
  std::vector<uint64_t> planes(static_cast<size_t>(CodePlanesView::buffer_words(9, 1)), 0);
  std::vector<int64_t> out(1024, 0);
  const Status st = be_->pair_code_counts({planes.data(), 9, 1}, 0, 9, 4, 5, out.data());
  EXPECT_EQ(st.code(), StatusCode::Invalid);
  EXPECT_NE(st.message().find("multiple of 8"), std::string::npos) << st.message();
  EXPECT_EQ(be_->pair_king_counts({planes.data(), 9, 1}, 0, 9, 4, 5, out.data()).code(), StatusCode::Invalid);
}

}  // namespace
}  // namespace strata::backend::conformance
