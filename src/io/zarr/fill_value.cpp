// Fill values as Zarr v2 / v3 metadata spell them.
#include "io/zarr/fill_value_internal.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <variant>

namespace strata::io::detail {
namespace {

using nlohmann::json;

Status bad_fill(const json& value, DType dtype, std::string_view why) {
  return Status::Invalid("fill_value ", value.dump(-1, ' ', true, json::error_handler_t::replace),
                         " is not valid for data type ", dtype.name(), ": ", why);
}

template <class T>
std::vector<uint8_t> bytes_of(T v) {
  std::vector<uint8_t> out(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

// "0x7fc00000" → bits; exactly the element's width may be given with fewer leading digits.
Result<uint64_t> parse_hex(const std::string& s, int64_t itemsize) {
  if (s.size() < 3 || s.size() > 2 + 2 * static_cast<size_t>(itemsize))
    return Status::Invalid("hex fill value '", s, "' has the wrong number of digits");
  uint64_t v = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    char c = s[i];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return Status::Invalid("hex fill value '", s, "' has a non-hex digit");
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

// An integral JSON value as int64/uint64 with range checks done by the caller.
struct IntValue {
  bool negative = false;
  uint64_t magnitude = 0;  // |value|
};

Result<IntValue> int_value(const json& v) {
  IntValue out;
  if (v.is_number_unsigned()) {
    out.magnitude = v.get<uint64_t>();
  } else if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    out.negative = i < 0;
    out.magnitude = i < 0 ? static_cast<uint64_t>(-(i + 1)) + 1 : static_cast<uint64_t>(i);
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) >= 18446744073709551616.0)
      return Status::Invalid("not an integer");
    out.negative = d < 0;
    out.magnitude = static_cast<uint64_t>(std::fabs(d));
  } else if (v.is_boolean()) {
    out.magnitude = v.get<bool>() ? 1 : 0;
  } else {
    return Status::Invalid("expected an integer");
  }
  return out;
}

template <class T>
Result<std::vector<uint8_t>> integer_fill(const json& value, DType dtype) {
  auto r = int_value(value);
  if (!r.ok()) return bad_fill(value, dtype, r.status().message());
  IntValue iv = *r;
  if constexpr (std::is_signed_v<T>) {
    const uint64_t max_pos = static_cast<uint64_t>(std::numeric_limits<T>::max());
    if ((!iv.negative && iv.magnitude > max_pos) || (iv.negative && iv.magnitude > max_pos + 1))
      return bad_fill(value, dtype, "out of range");
    T v = iv.negative ? static_cast<T>(-static_cast<int64_t>(iv.magnitude - 1) - 1)
                      : static_cast<T>(iv.magnitude);
    return bytes_of<T>(v);
  } else {
    if ((iv.negative && iv.magnitude != 0) || iv.magnitude > std::numeric_limits<T>::max())
      return bad_fill(value, dtype, "out of range");
    return bytes_of<T>(static_cast<T>(iv.magnitude));
  }
}

// A float fill as a double, or as raw bits when given in hex.
Result<std::vector<uint8_t>> float_fill(const json& value, DType dtype) {
  const int64_t size = dtype.itemsize();
  double d;
  if (value.is_number()) {
    d = value.get<double>();
  } else if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s == "NaN") {
      // Canonical quiet NaNs, as numpy writes them.
      if (size == 2) return bytes_of<uint16_t>(0x7e00);
      if (size == 4) return bytes_of<uint32_t>(0x7fc00000u);
      return bytes_of<uint64_t>(0x7ff8000000000000ull);
    }
    if (s == "Infinity") d = std::numeric_limits<double>::infinity();
    else if (s == "-Infinity") d = -std::numeric_limits<double>::infinity();
    else if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      auto bits = parse_hex(s, size);
      if (!bits.ok()) return bad_fill(value, dtype, bits.status().message());
      if (size == 2) return bytes_of<uint16_t>(static_cast<uint16_t>(*bits));
      if (size == 4) return bytes_of<uint32_t>(static_cast<uint32_t>(*bits));
      return bytes_of<uint64_t>(*bits);
    } else {
      return bad_fill(value, dtype, "expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or hex bits");
    }
  } else {
    return bad_fill(value, dtype, "expected a number");
  }
  if (size == 2) return bytes_of<uint16_t>(float_to_half(d));
  if (size == 4) return bytes_of<float>(static_cast<float>(d));
  return bytes_of<double>(d);
}

template <class T>
T load(std::span<const uint8_t> b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

json float_json(double d, uint64_t bits, uint64_t canonical_nan, int64_t size, ZarrFormat format) {
  if (std::isnan(d)) {
    if (format == ZarrFormat::V2 || bits == canonical_nan) return "NaN";
    static const char* kHex = "0123456789abcdef";
    std::string s = "0x";
    for (int64_t i = 2 * size - 1; i >= 0; --i) s += kHex[(bits >> (4 * i)) & 0xf];
    return s;
  }
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

}  // namespace

uint16_t float_to_half(double value) {
  const float f = static_cast<float>(value);
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow → infinity
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);  // underflow → signed zero
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into the exponent
  return static_cast<uint16_t>(sign | half);
}

double half_to_double(uint16_t bits) {
  const int sign = bits >> 15;
  const int exp = (bits >> 10) & 0x1f;
  const int mant = bits & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(mant, -24);
  else if (exp == 31) v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}

Result<std::vector<uint8_t>> parse_fill_value(const json& value, DType dtype, ZarrFormat format) {
  const int64_t size = dtype.itemsize();
  if (value.is_null()) return std::vector<uint8_t>(static_cast<size_t>(size), 0);
  if (dtype.is_float()) return float_fill(value, dtype);
  switch (dtype.type) {
    case ScalarType::Bool: {
      if (value.is_boolean()) return std::vector<uint8_t>{static_cast<uint8_t>(value.get<bool>() ? 1 : 0)};
      auto r = int_value(value);
      if (!r.ok() || r->negative || r->magnitude > 1) return bad_fill(value, dtype, "expected true or false");
      return std::vector<uint8_t>{static_cast<uint8_t>(r->magnitude)};
    }
    case ScalarType::Int8: return integer_fill<int8_t>(value, dtype);
    case ScalarType::Int16: return integer_fill<int16_t>(value, dtype);
    case ScalarType::Int32: return integer_fill<int32_t>(value, dtype);
    case ScalarType::Int64: return integer_fill<int64_t>(value, dtype);
    case ScalarType::UInt8: return integer_fill<uint8_t>(value, dtype);
    case ScalarType::UInt16: return integer_fill<uint16_t>(value, dtype);
    case ScalarType::UInt32: return integer_fill<uint32_t>(value, dtype);
    case ScalarType::UInt64: return integer_fill<uint64_t>(value, dtype);
    default: break;
  }
  return bad_fill(value, dtype, "unsupported data type");
}

json fill_value_json(const ZarrFillValue& value) {
  return std::visit([](const auto& v) { return json(v); }, value.value);
}

ZarrFillValue fill_value_from_json(const json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_unsigned()) return value.get<uint64_t>();  // int64_t when it fits
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  return nullptr;  // null; parse_fill_value refuses every other kind
}

json fill_value_to_json(std::span<const uint8_t> e, DType dtype, ZarrFormat format) {
  switch (dtype.type) {
    case ScalarType::Bool: return e[0] != 0;
    case ScalarType::Int8: return load<int8_t>(e);
    case ScalarType::Int16: return load<int16_t>(e);
    case ScalarType::Int32: return load<int32_t>(e);
    case ScalarType::Int64: return load<int64_t>(e);
    case ScalarType::UInt8: return load<uint8_t>(e);
    case ScalarType::UInt16: return load<uint16_t>(e);
    case ScalarType::UInt32: return load<uint32_t>(e);
    case ScalarType::UInt64: return load<uint64_t>(e);
    case ScalarType::Float16: {
      uint16_t b = load<uint16_t>(e);
      return float_json(half_to_double(b), b, 0x7e00, 2, format);
    }
    case ScalarType::Float32: {
      uint32_t b = load<uint32_t>(e);
      return float_json(static_cast<double>(std::bit_cast<float>(b)), b, 0x7fc00000u, 4, format);
    }
    case ScalarType::Float64: {
      uint64_t b = load<uint64_t>(e);
      return float_json(std::bit_cast<double>(b), b, 0x7ff8000000000000ull, 8, format);
    }
  }
  return nullptr;
}

}  // namespace strata::io::detail
