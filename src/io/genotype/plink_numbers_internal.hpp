#pragma once
// Numbers in plink2's text files (.bim/.pvar cM and position, .fam/.psam sex and phenotype,
// phenotype and covariate tables), read by plink2's rules so that a file plink2 reads is read
// the same way here (R, pandas and spreadsheet exports included):
//
// * A decimal number: [+-] then digits with an optional '.' and fraction ("5.", ".5", "007"),
//   then an optional exponent e/E with an optional sign and *optional* digits ("1e", "1.5e+"
//   read as 1 and 1.5, as plink2 does). No inf/nan, no hex, no spaces, no second sign.
//   Overflow (|x| > ~1.8e308) is refused; underflow reads as 0 or a subnormal. Values are
//   correctly rounded (plink2's own reader may differ in the last two bits).
// * NA/NaN in any case ("na", "nan", "NAN") is a missing phenotype/covariate value.
// * Sex: 1/M/m male, 2/F/f female, anything else unknown ("male", "-9", "01" included).
// * Position: an integer ("+100", "0100", "-0") in [-2^31 + 2, 2^31 - 2]. plink2 reads only the
//   leading digits (atoi-like: "1e+05" is position 1, "100x" is 100); here a number written in
//   decimal or exponent notation is read as its value when that is a whole number (R writes
//   100000 as "1e+05", pandas a column with a gap as "100.0"), and anything else is refused.

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace strata::io::detail {

/// How a token reads as a plink2 decimal number.
enum class NumberScan {
  kNumber,     ///< the whole token is a number (`value` set)
  kNotNumber,  ///< no number at its start (text: "NA", "inf", "abc", "", "-", ".")
  kTrailing,   ///< a number followed by other characters ("1.5x", "0x1p3", "1e5e"): plink2 refuses
  kOverflow,   ///< a number too large for a double ("1e999")
};

struct ScannedNumber {
  NumberScan kind = NumberScan::kNotNumber;
  double value = 0.0;
};

/// The length of the plink2 decimal number at the start of `s` (0: none; see the file comment).
inline size_t plink_number_length(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return 0;  // "", "-", ".", ".e5"
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    digits();  // plink2 takes "1e" and "1e+" as 1
  }
  return i;
}

/// Reads `tok` as plink2 reads a number (see the file comment).
inline ScannedNumber scan_plink_number(std::string_view tok) {
  ScannedNumber r;
  const size_t len = plink_number_length(tok);
  if (len == 0) return r;
  if (len != tok.size()) {
    r.kind = NumberScan::kTrailing;
    return r;
  }
  if (tok == "0") {  // the common cM value
    r.kind = NumberScan::kNumber;
    return r;
  }
  // from_chars takes no '+' and no exponent without digits: drop them.
  std::string_view s = tok;
  if (s.front() == '+') s.remove_prefix(1);
  while (s.back() == '+' || s.back() == '-' || s.back() == 'e' || s.back() == 'E') s.remove_suffix(1);
  double v = 0.0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // Overflow or underflow: strtod tells which (HUGE_VAL vs 0 or a subnormal).
    const std::string copy(s);
    v = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(v)) {
      r.kind = NumberScan::kOverflow;
      return r;
    }
  } else if (ec != std::errc() || p != s.data() + s.size()) {
    return r;  // not reached for a token the grammar accepted
  }
  r.kind = NumberScan::kNumber;
  r.value = v == 0.0 ? 0.0 : v;  // "-0" reads as 0, as plink2 writes it
  return r;
}

/// plink2's missing-value words: "NA" and "NaN" in any case.
inline bool is_plink_nan_word(std::string_view tok) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (tok.size() != 2 && tok.size() != 3) return false;
  return lower(tok[0]) == 'n' && lower(tok[1]) == 'a' && (tok.size() == 2 || lower(tok[2]) == 'n');
}

/// Whether plink2 takes a phenotype token for a category name rather than a number or NA
/// (its test on the first sample decides the column's kind): not after an optional sign a
/// digit or a '.' and a digit, and not NA/NaN. "inf" and "1e999"-like overflows differ: "inf"
/// is a category, "1e999" looks numeric (and plink2 then refuses it).
inline bool is_plink_category_word(std::string_view tok) {
  std::string_view s = tok;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (!s.empty() && s[0] >= '0' && s[0] <= '9') return false;
  if (!s.empty() && s[0] == '.') return !(s.size() > 1 && s[1] >= '0' && s[1] <= '9');
  return !is_plink_nan_word(s);
}

/// plink2's sex code of a .fam/.psam token: 1 male, 2 female, 0 unknown.
inline int plink_sex_code(std::string_view tok) {
  if (tok.size() != 1) return 0;
  switch (tok[0]) {
    case '1': case 'M': case 'm': return 1;
    case '2': case 'F': case 'f': return 2;
    default: return 0;
  }
}

/// The largest |position| plink2 reads (2^31 - 2).
inline constexpr int64_t kMaxPlinkPosition = 2147483646;

/// How a position token reads.
enum class PositionScan {
  kInteger,     ///< plain integer digits, as plink2 reads them
  kNotation,    ///< a whole number in decimal/exponent notation ("1e+05", "100.0")
  kNotWhole,    ///< a number that is not a whole number ("1.5")
  kNotNumber,   ///< not a number ("100x", "0x10", "chr1")
  kOutOfRange,  ///< beyond ±kMaxPlinkPosition (plink2: "Invalid bp coordinate")
};

struct ScannedPosition {
  PositionScan kind = PositionScan::kNotNumber;
  int64_t value = 0;
  int64_t plink2_value = 0;  ///< what plink2 reads: the leading digits (kNotation only)
};

/// Reads a .bim/.pvar position (see the file comment).
inline ScannedPosition scan_plink_position(std::string_view tok) {
  ScannedPosition r;
  size_t i = (!tok.empty() && (tok[0] == '+' || tok[0] == '-')) ? 1 : 0;
  const bool negative = i == 1 && tok[0] == '-';
  const size_t first_digit = i;
  int64_t v = 0;
  bool too_big = false;
  for (; i < tok.size() && tok[i] >= '0' && tok[i] <= '9'; ++i) {
    v = v * 10 + (tok[i] - '0');
    if (v > kMaxPlinkPosition) {
      too_big = true;
      v = kMaxPlinkPosition + 1;  // keep scanning without overflow
    }
  }
  if (i > first_digit && i == tok.size()) {
    r.kind = too_big ? PositionScan::kOutOfRange : PositionScan::kInteger;
    r.value = negative ? -v : v;
    return r;
  }
  const ScannedNumber n = scan_plink_number(tok);
  if (n.kind == NumberScan::kOverflow) {
    r.kind = PositionScan::kOutOfRange;
    return r;
  }
  if (n.kind != NumberScan::kNumber) return r;
  if (std::fabs(n.value) > static_cast<double>(kMaxPlinkPosition)) {
    r.kind = PositionScan::kOutOfRange;
    return r;
  }
  if (n.value != std::floor(n.value)) {
    r.kind = PositionScan::kNotWhole;
    return r;
  }
  r.kind = PositionScan::kNotation;
  r.value = static_cast<int64_t>(n.value);
  r.plink2_value = negative ? -v : v;
  return r;
}

}  // namespace strata::io::detail
