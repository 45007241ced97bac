// format_pca_value against printf's "%.9g" (glibc, C locale): random magnitudes across the
// whole double range, values next to rounding ties and powers of ten, and the special values.
#include "strata/genomics/pca_format.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

std::string printf_g9(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

void expect_printf(double x) {
  char buf[32];
  ASSERT_EQ(std::string(format_pca_value(x, buf)), printf_g9(x)) << std::hexfloat << x;
}

TEST(PcaFormat, MatchesPrintfOnRandomMagnitudes) {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> mant(1.0, 10.0);
  std::uniform_int_distribution<int> exp10(-30, 30);
  for (int i = 0; i < 400000; ++i) {
    const double x = mant(g) * std::pow(10.0, exp10(g)) * (i % 2 ? -1.0 : 1.0);
    expect_printf(x);
  }
  std::normal_distribution<double> loading(0.0, 0.01);
  for (int i = 0; i < 400000; ++i) expect_printf(loading(g));
}

TEST(PcaFormat, MatchesPrintfNextToTiesAndPowersOfTen) {
  std::mt19937_64 g(11);
  std::uniform_int_distribution<int64_t> digits(100000000, 999999999);
  std::uniform_int_distribution<int> exp10(-12, 8);
  for (int i = 0; i < 100000; ++i) {
    // d.ddddddddd5 · 10^e: the decimal tie (and its neighbours in binary) of the 9-digit grid.
    const double tie = (static_cast<double>(digits(g)) + 0.5) * std::pow(10.0, exp10(g) - 8);
    expect_printf(tie);
    expect_printf(std::nextafter(tie, 0.0));
    expect_printf(std::nextafter(tie, 1e300));
  }
  for (int e = -40; e <= 40; ++e) {
    const double p = std::pow(10.0, e);
    for (double x : {p, std::nextafter(p, 0.0), std::nextafter(p, 1e300), p * 0.9999999995, p * 0.99999999949,
                     p * 0.99999999951, -p})
      expect_printf(x);
  }
  // Exact binary ties: halves of integers above 2^27 scale to exact .5 at 9 digits.
  for (double x : {1000000000.5, 123456789.5, 123456788.5, 0.5, 2.5, 1e-5 + 0.0, 0.000123456785, 1.234567885})
    expect_printf(x);
}

TEST(PcaFormat, SpecialValues) {
  for (double x : {0.0, -0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max(), 1e9, 999999999.4, 999999999.6, 123456789012.0})
    expect_printf(x);
  char buf[32];
  EXPECT_EQ(std::string(format_pca_value(std::numeric_limits<double>::quiet_NaN(), buf)), "nan");
}

}  // namespace
}  // namespace strata::genomics
