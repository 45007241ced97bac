#pragma once
/// \file
/// Element types: numpy-style type strings (Zarr v2) and Zarr v3 data type names.

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "strata/core/result.hpp"

namespace strata {

static_assert(std::endian::native == std::endian::little, "strata assumes a little-endian host");

/// \brief Scalar element types strata computes on.
enum class ScalarType : uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float16, Float32, Float64,
};

/// \brief Byte order of stored elements. In memory strata always uses the host's (little).
enum class ByteOrder : uint8_t { Little, Big, NotApplicable };

/// \brief An element type with its stored byte order.
struct DType {
  ScalarType type = ScalarType::Float64;
  ByteOrder order = ByteOrder::Little;

  constexpr DType() = default;
  constexpr DType(ScalarType t, ByteOrder o = ByteOrder::Little) : type(t), order(o) {  // NOLINT
    if (itemsize() == 1) order = ByteOrder::NotApplicable;
  }

  /// \brief Bytes per element.
  constexpr int64_t itemsize() const {
    switch (type) {
      case ScalarType::Bool: case ScalarType::Int8: case ScalarType::UInt8: return 1;
      case ScalarType::Int16: case ScalarType::UInt16: case ScalarType::Float16: return 2;
      case ScalarType::Int32: case ScalarType::UInt32: case ScalarType::Float32: return 4;
      default: return 8;
    }
  }
  constexpr bool is_float() const {
    return type == ScalarType::Float16 || type == ScalarType::Float32 || type == ScalarType::Float64;
  }
  constexpr bool is_bool() const { return type == ScalarType::Bool; }
  constexpr bool is_signed_int() const {
    return type == ScalarType::Int8 || type == ScalarType::Int16 || type == ScalarType::Int32 ||
           type == ScalarType::Int64;
  }
  constexpr bool is_unsigned_int() const {
    return type == ScalarType::UInt8 || type == ScalarType::UInt16 || type == ScalarType::UInt32 ||
           type == ScalarType::UInt64;
  }
  constexpr bool is_integer() const { return is_signed_int() || is_unsigned_int(); }
  /// True when stored bytes must be swapped to reach host order.
  constexpr bool needs_swap() const { return order == ByteOrder::Big && itemsize() > 1; }
  /// The same type in host byte order.
  constexpr DType native() const { return DType(type, ByteOrder::Little); }

  /// \brief numpy type string, e.g. "<f8", "|u1", ">i4".
  std::string numpy_str() const;
  /// \brief Zarr v3 data_type name, e.g. "float64", "uint8", "bool".
  std::string v3_name() const;
  /// \brief Short name, e.g. "float64" (same as v3_name, order-independent).
  std::string name() const { return v3_name(); }

  /// \brief Parse a numpy type string ("<f8", "|i1", ">u2", "|b1"). Unsupported strings fail.
  static Result<DType> from_numpy(std::string_view s);
  /// \brief Parse a v3 data_type name ("int8", "float32", ...), little endian.
  static Result<DType> from_v3(std::string_view s);
  /// \brief Parse a user-facing name: numpy string, v3 name, or numpy alias ("f8", "i1", "u1").
  static Result<DType> parse(std::string_view s);

  friend constexpr bool operator==(const DType& a, const DType& b) {
    return a.type == b.type && a.order == b.order;
  }
};

/// \brief The ScalarType of a C++ arithmetic type.
template <class T> constexpr ScalarType scalar_type_of();
template <> constexpr ScalarType scalar_type_of<bool>() { return ScalarType::Bool; }
template <> constexpr ScalarType scalar_type_of<int8_t>() { return ScalarType::Int8; }
template <> constexpr ScalarType scalar_type_of<int16_t>() { return ScalarType::Int16; }
template <> constexpr ScalarType scalar_type_of<int32_t>() { return ScalarType::Int32; }
template <> constexpr ScalarType scalar_type_of<int64_t>() { return ScalarType::Int64; }
template <> constexpr ScalarType scalar_type_of<uint8_t>() { return ScalarType::UInt8; }
template <> constexpr ScalarType scalar_type_of<uint16_t>() { return ScalarType::UInt16; }
template <> constexpr ScalarType scalar_type_of<uint32_t>() { return ScalarType::UInt32; }
template <> constexpr ScalarType scalar_type_of<uint64_t>() { return ScalarType::UInt64; }
template <> constexpr ScalarType scalar_type_of<float>() { return ScalarType::Float32; }
template <> constexpr ScalarType scalar_type_of<double>() { return ScalarType::Float64; }

template <class T> constexpr DType dtype_of() { return DType(scalar_type_of<T>()); }

/// \brief Call `f(T{})` with T the C++ type of `t` (Float16 is not dispatchable: Unsupported).
/// \code
/// visit_scalar(dt.type, [&](auto tag) { using T = decltype(tag); ... });
/// \endcode
template <class F>
Status visit_scalar(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool: f(bool{}); return Status::OK();
    case ScalarType::Int8: f(int8_t{}); return Status::OK();
    case ScalarType::Int16: f(int16_t{}); return Status::OK();
    case ScalarType::Int32: f(int32_t{}); return Status::OK();
    case ScalarType::Int64: f(int64_t{}); return Status::OK();
    case ScalarType::UInt8: f(uint8_t{}); return Status::OK();
    case ScalarType::UInt16: f(uint16_t{}); return Status::OK();
    case ScalarType::UInt32: f(uint32_t{}); return Status::OK();
    case ScalarType::UInt64: f(uint64_t{}); return Status::OK();
    case ScalarType::Float32: f(float{}); return Status::OK();
    case ScalarType::Float64: f(double{}); return Status::OK();
    case ScalarType::Float16: break;
  }
  return Status::Unsupported("float16 arrays cannot be computed on");
}

/// \brief Reverse the bytes of each of `count` elements of `itemsize` bytes, in place.
void byteswap_inplace(void* data, int64_t count, int64_t itemsize);

}  // namespace strata
