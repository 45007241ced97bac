#include "strata/core/dtype.hpp"

#include <algorithm>
#include <cstring>

namespace strata {
namespace {

struct TypeInfo {
  ScalarType type;
  char kind;          // numpy kind letter
  int size;           // bytes
  const char* v3;     // v3 name
};

constexpr TypeInfo kTypes[] = {
    {ScalarType::Bool, 'b', 1, "bool"},       {ScalarType::Int8, 'i', 1, "int8"},
    {ScalarType::Int16, 'i', 2, "int16"},     {ScalarType::Int32, 'i', 4, "int32"},
    {ScalarType::Int64, 'i', 8, "int64"},     {ScalarType::UInt8, 'u', 1, "uint8"},
    {ScalarType::UInt16, 'u', 2, "uint16"},   {ScalarType::UInt32, 'u', 4, "uint32"},
    {ScalarType::UInt64, 'u', 8, "uint64"},   {ScalarType::Float16, 'f', 2, "float16"},
    {ScalarType::Float32, 'f', 4, "float32"}, {ScalarType::Float64, 'f', 8, "float64"},
};

const TypeInfo& info(ScalarType t) {
  for (const auto& ti : kTypes)
    if (ti.type == t) return ti;
  return kTypes[0];
}

}  // namespace

std::string DType::numpy_str() const {
  const TypeInfo& ti = info(type);
  char order_char = '|';
  if (ti.size > 1) order_char = order == ByteOrder::Big ? '>' : '<';
  return str_cat(order_char, ti.kind, ti.size);
}

std::string DType::v3_name() const { return info(type).v3; }

Result<DType> DType::from_numpy(std::string_view s) {
  if (s.size() < 3) return Status::Unsupported("unsupported dtype '", s, "'");
  ByteOrder order;
  switch (s[0]) {
    case '<': order = ByteOrder::Little; break;
    case '>': order = ByteOrder::Big; break;
    case '|': case '=': order = ByteOrder::NotApplicable; break;
    default: return Status::Invalid("dtype '", s, "' does not start with a byte order (<, >, |)");
  }
  char kind = s[1];
  std::string_view size_str = s.substr(2);
  int size = 0;
  for (char c : size_str) {
    if (c < '0' || c > '9') return Status::Unsupported("unsupported dtype '", s, "'");
    size = size * 10 + (c - '0');
    if (size > 64) return Status::Unsupported("unsupported dtype '", s, "'");
  }
  for (const auto& ti : kTypes) {
    if (ti.kind == kind && ti.size == size) {
      if (order == ByteOrder::NotApplicable && size > 1) order = ByteOrder::Little;
      return DType(ti.type, order);
    }
  }
  return Status::Unsupported("unsupported dtype '", s,
                             "' (strata reads bool, signed/unsigned integers and floats)");
}

Result<DType> DType::from_v3(std::string_view s) {
  for (const auto& ti : kTypes)
    if (s == ti.v3) return DType(ti.type, ByteOrder::Little);
  return Status::Unsupported("unsupported data_type '", s, "'");
}

Result<DType> DType::parse(std::string_view s) {
  if (auto r = from_v3(s); r.ok()) return r;
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|')) return from_numpy(s);
  if (s.size() >= 2) return from_numpy(str_cat('<', s));
  return Status::Invalid("unknown dtype '", s, "'");
}

void byteswap_inplace(void* data, int64_t count, int64_t itemsize) {
  auto* p = static_cast<uint8_t*>(data);
  switch (itemsize) {
    case 1: return;
    case 2:
      for (int64_t i = 0; i < count; ++i) {
        uint16_t v; std::memcpy(&v, p + 2 * i, 2); v = __builtin_bswap16(v); std::memcpy(p + 2 * i, &v, 2);
      }
      return;
    case 4:
      for (int64_t i = 0; i < count; ++i) {
        uint32_t v; std::memcpy(&v, p + 4 * i, 4); v = __builtin_bswap32(v); std::memcpy(p + 4 * i, &v, 4);
      }
      return;
    case 8:
      for (int64_t i = 0; i < count; ++i) {
        uint64_t v; std::memcpy(&v, p + 8 * i, 8); v = __builtin_bswap64(v); std::memcpy(p + 8 * i, &v, 8);
      }
      return;
    default:
      for (int64_t i = 0; i < count; ++i) std::reverse(p + itemsize * i, p + itemsize * (i + 1));
  }
}

}  // namespace strata
