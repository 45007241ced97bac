// WireWriter / WireReader: round trips, and a message that ends early is an error, not a read past it.
#include "strata/core/wire.hpp"

#include "testing/testing.hpp"

namespace strata {
namespace {

TEST(Wire, RoundTripsValuesVectorsAndStrings) {
  WireWriter w;
  w.put(int64_t{-7});
  w.put_string("tile\ttext\n");
  w.put_vector(std::vector<uint32_t>{3, 9, 27});
  const double raw[2] = {1.5, -0.25};
  w.put_raw(raw, 2);
  WireReader r(w.bytes(), "test message");
  int64_t v = 0;
  std::string s;
  std::vector<uint32_t> u;
  double back[2] = {0, 0};
  ASSERT_TRUE(r.get(v).ok());
  ASSERT_TRUE(r.get_string(s).ok());
  ASSERT_TRUE(r.get_vector(u).ok());
  ASSERT_TRUE(r.get_raw(back, 2).ok());
  EXPECT_EQ(v, -7);
  EXPECT_EQ(s, "tile\ttext\n");
  EXPECT_EQ(u, (std::vector<uint32_t>{3, 9, 27}));
  EXPECT_EQ(back[0], 1.5);
  EXPECT_EQ(back[1], -0.25);
  EXPECT_TRUE(r.done());
}

TEST(Wire, ATruncatedMessageIsACommError) {
  WireWriter w;
  w.put_vector(std::vector<double>{1, 2, 3});
  const std::string cut = w.bytes().substr(0, w.bytes().size() - 4);
  WireReader r(cut, "rank 3's tiles");
  std::vector<double> v;
  STRATA_EXPECT_STATUS(r.get_vector(v), StatusCode::CommError, "rank 3's tiles: the message ends after 8 of 28 bytes");
  // A length larger than the message: refused before any allocation of that size.
  WireWriter big;
  big.put(uint64_t{1} << 60);
  WireReader r2(big.bytes(), "rank 1");
  std::string s;
  STRATA_EXPECT_STATUS(r2.get_string(s), StatusCode::CommError, "rank 1: the message ends");
}

}  // namespace
}  // namespace strata
