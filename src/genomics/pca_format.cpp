// PCA text numbers (see strata/genomics/pca_format.hpp).
#include "strata/genomics/pca_format.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace strata::genomics {
namespace {

constexpr int kDigits = 9;
constexpr uint64_t kLow = 100'000'000, kHigh = 1'000'000'000;  // 10^8, 10^9

// 5^q for q ≤ 27 (below 2^63), computed once at compile time.
constexpr auto kPow5 = [] {
  std::array<uint64_t, 28> p{};
  p[0] = 1;
  for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 5;
  return p;
}();

enum class Scaled { Ok, TooSmall, TooLarge, Unsupported };

// The 9 significant digits of |x| = m·2^e, correctly rounded (ties to even, as printf in the
// default rounding mode), for a decimal exponent x10 whose scale 10^(8 − x10) is 10^0 … 10^27:
// m·5^q fits 117 bits, so the scaled value is exact in 128-bit integers. TooSmall/TooLarge:
// x10 was one off (the digits before rounding fall outside [10^8, 10^9)). The rounded digits
// may reach 10^9 (then the caller moves to the next power of ten).
Scaled nine_digits(uint64_t m, int e, int x10, uint64_t& digits) {
  const int q = kDigits - 1 - x10;
  if (q < 0 || q > 27) return Scaled::Unsupported;
  const unsigned __int128 p = static_cast<unsigned __int128>(m) * kPow5[static_cast<size_t>(q)];
  const int shift = -(e + q);  // |x|·10^q = p / 2^shift
  if (shift <= 0 || shift >= 120) return Scaled::Unsupported;
  const unsigned __int128 floor = p >> shift, rest = p - (floor << shift);
  if (floor < kLow) return Scaled::TooSmall;
  if (floor >= kHigh) return Scaled::TooLarge;
  const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
  auto d = static_cast<uint64_t>(floor);
  if (rest > half || (rest == half && (d & 1) != 0)) ++d;
  digits = d;
  return Scaled::Ok;
}

// "%.9g" of ±(digits · 10^(x10 − 8)) with digits in [10^8, 10^9): printf's %g rules (style e
// when the exponent is below −4 or at least 9; trailing zeros and a bare point removed).
size_t write_g(bool negative, uint64_t digits, int x10, char* out) {
  char d[kDigits];
  for (int i = kDigits - 1; i >= 0; --i) {
    d[i] = static_cast<char>('0' + digits % 10);
    digits /= 10;
  }
  int last = kDigits - 1;  // last significant digit kept
  while (last > 0 && d[last] == '0') --last;
  char* o = out;
  if (negative) *o++ = '-';
  if (x10 < -4 || x10 >= kDigits) {
    *o++ = d[0];
    if (last > 0) {
      *o++ = '.';
      for (int i = 1; i <= last; ++i) *o++ = d[i];
    }
    *o++ = 'e';
    *o++ = x10 < 0 ? '-' : '+';
    const int ax = x10 < 0 ? -x10 : x10;
    if (ax >= 100) *o++ = static_cast<char>('0' + ax / 100);
    *o++ = static_cast<char>('0' + ax / 10 % 10);
    *o++ = static_cast<char>('0' + ax % 10);
  } else if (x10 < 0) {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -x10 - 1; ++i) *o++ = '0';
    for (int i = 0; i <= last; ++i) *o++ = d[i];
  } else {
    for (int i = 0; i <= x10; ++i) *o++ = d[i];
    if (last > x10) {
      *o++ = '.';
      for (int i = x10 + 1; i <= last; ++i) *o++ = d[i];
    }
  }
  return static_cast<size_t>(o - out);
}

// The fast path for normal numbers whose scale fits nine_digits(); false otherwise.
bool format_fast(double x, char* out, size_t& len) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0 || biased == 0x7ff) return false;  // zero, subnormal, inf, nan
  const uint64_t m = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int e = biased - 1075;  // |x| = m·2^e
  // floor(log10 |x|) from the binary exponent: this or one more.
  int x10 = ((biased - 1023) * 78913) >> 18;
  uint64_t digits = 0;
  Scaled s = nine_digits(m, e, x10, digits);
  if (s == Scaled::TooLarge) s = nine_digits(m, e, ++x10, digits);
  if (s != Scaled::Ok) return false;
  if (digits == kHigh) {  // rounded up to the next power of ten
    digits = kLow;
    ++x10;
  }
  len = write_g((bits >> 63) != 0, digits, x10, out);
  return true;
}

}  // namespace

// printf's "%.9g" text, locale-free: exact 128-bit scaling for the usual magnitudes (about 5×
// faster than std::to_chars's precision path, which loadings tables call millions of times),
// std::to_chars (the same text by its specification) for the rest.
std::string_view format_pca_value(double x, std::span<char, 32> buf) {
  size_t len = 0;
  if (format_fast(x, buf.data(), len)) return std::string_view(buf.data(), len);
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::general, kDigits);
  return std::string_view(buf.data(), static_cast<size_t>(r.ptr - buf.data()));
}

std::string format_pca_value(double x) {
  char buf[32];
  return std::string(format_pca_value(x, buf));
}

std::string format_eigenval(const std::vector<double>& eigenvalues) {
  std::string out;
  char buf[32];
  for (double x : eigenvalues) {
    out += format_pca_value(x, buf);
    out += '\n';
  }
  return out;
}

}  // namespace strata::genomics
