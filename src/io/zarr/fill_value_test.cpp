#include <bit>
#include <cmath>
#include <cstring>

#include "io/zarr/fill_value_internal.hpp"
#include "testing/testing.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

template <class T>
T parse_as(const json& j, ZarrFormat f = ZarrFormat::V3) {
  auto r = parse_fill_value(j, dtype_of<T>(), f);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  T v{};
  if (r.ok() && r->size() == sizeof(T)) std::memcpy(&v, r->data(), sizeof(T));
  return v;
}

TEST(ZarrFillValue, Integers) {
  EXPECT_EQ(parse_as<int8_t>(-1), -1);
  EXPECT_EQ(parse_as<int8_t>(-128), -128);
  EXPECT_EQ(parse_as<uint8_t>(255), 255);
  EXPECT_EQ(parse_as<int64_t>(json(INT64_MIN)), INT64_MIN);
  EXPECT_EQ(parse_as<uint64_t>(json(UINT64_MAX)), UINT64_MAX);
  EXPECT_EQ(parse_as<int32_t>(json(7.0)), 7);  // integral floats are accepted
  EXPECT_EQ(parse_as<int16_t>(nullptr, ZarrFormat::V2), 0);
  STRATA_EXPECT_STATUS(parse_fill_value(128, DType(ScalarType::Int8), ZarrFormat::V2), StatusCode::Invalid,
                       "fill_value 128 is not valid for data type int8: out of range");
  STRATA_EXPECT_STATUS(parse_fill_value(-1, DType(ScalarType::UInt32), ZarrFormat::V2), StatusCode::Invalid,
                       "out of range");
  STRATA_EXPECT_STATUS(parse_fill_value(1.5, DType(ScalarType::Int32), ZarrFormat::V2), StatusCode::Invalid,
                       "not an integer");
  STRATA_EXPECT_STATUS(parse_fill_value("x", DType(ScalarType::Int32), ZarrFormat::V2), StatusCode::Invalid,
                       "expected an integer");
}

TEST(ZarrFillValue, BoolAndFloats) {
  EXPECT_EQ(parse_as<bool>(true), true);
  EXPECT_EQ(parse_as<bool>(0), false);
  STRATA_EXPECT_STATUS(parse_fill_value(2, DType(ScalarType::Bool), ZarrFormat::V3), StatusCode::Invalid, "true or false");
  EXPECT_TRUE(std::isnan(parse_as<double>("NaN")));
  EXPECT_EQ(std::bit_cast<uint32_t>(parse_as<float>("NaN")), 0x7fc00000u);
  EXPECT_EQ(std::bit_cast<uint64_t>(parse_as<double>("NaN")), 0x7ff8000000000000ull);
  EXPECT_EQ(parse_as<float>("Infinity"), INFINITY);
  EXPECT_EQ(parse_as<double>("-Infinity"), -INFINITY);
  EXPECT_EQ(parse_as<double>(0.25), 0.25);
  EXPECT_EQ(parse_as<float>(3), 3.0f);
  // Hex bit patterns keep NaN payloads (the VCF Zarr sentinels).
  EXPECT_EQ(std::bit_cast<uint32_t>(parse_as<float>("0x7f800001")), 0x7f800001u);
  EXPECT_EQ(std::bit_cast<uint64_t>(parse_as<double>("0x7FF0000000000002")), 0x7ff0000000000002ull);
  STRATA_EXPECT_STATUS(parse_fill_value("0x7f8000011", DType(ScalarType::Float32), ZarrFormat::V3),
                       StatusCode::Invalid, "wrong number of digits");
  STRATA_EXPECT_STATUS(parse_fill_value("0xzz", DType(ScalarType::Float32), ZarrFormat::V3), StatusCode::Invalid,
                       "non-hex");
  STRATA_EXPECT_STATUS(parse_fill_value("nan", DType(ScalarType::Float64), ZarrFormat::V2), StatusCode::Invalid,
                       "float64");
  STRATA_EXPECT_STATUS(parse_fill_value(json::array(), DType(ScalarType::Float64), ZarrFormat::V2),
                       StatusCode::Invalid, "expected a number");
}

TEST(ZarrFillValue, Float16) {
  for (double v : {0.0, 1.0, -2.5, 65504.0, 6.103515625e-05, 5.960464477539063e-08, 0.1}) {
    const uint16_t h = float_to_half(v);
    EXPECT_NEAR(half_to_double(h), v, std::fabs(v) * 1e-3 + 1e-12) << v;
  }
  EXPECT_EQ(float_to_half(1.0), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0), 0xc000);
  EXPECT_EQ(float_to_half(1e6), 0x7c00);  // overflow to infinity
  auto nan = parse_fill_value("NaN", DType(ScalarType::Float16), ZarrFormat::V3);
  ASSERT_TRUE(nan.ok());
  EXPECT_EQ((*nan)[0] | ((*nan)[1] << 8), 0x7e00);
}

TEST(ZarrFillValue, CanonicalJson) {
  auto round = [](const json& in, DType dt, ZarrFormat f) {
    auto b = parse_fill_value(in, dt, f);
    EXPECT_TRUE(b.ok()) << b.status().to_string();
    return b.ok() ? fill_value_to_json(*b, dt, f) : json();
  };
  EXPECT_EQ(round("NaN", DType(ScalarType::Float64), ZarrFormat::V2), json("NaN"));
  EXPECT_EQ(round("0x7fc00000", DType(ScalarType::Float32), ZarrFormat::V3), json("NaN"));
  EXPECT_EQ(round("0x7f800001", DType(ScalarType::Float32), ZarrFormat::V3), json("0x7f800001"));
  EXPECT_EQ(round("0x7f800001", DType(ScalarType::Float32), ZarrFormat::V2), json("NaN"));
  EXPECT_EQ(round("-Infinity", DType(ScalarType::Float32), ZarrFormat::V2), json("-Infinity"));
  EXPECT_EQ(round(std::nan(""), DType(ScalarType::Float64), ZarrFormat::V2), json("NaN"));
  EXPECT_EQ(round(-3, DType(ScalarType::Int16), ZarrFormat::V2), json(-3));
  EXPECT_EQ(round(true, DType(ScalarType::Bool), ZarrFormat::V2), json(true));
  EXPECT_EQ(round(1.5, DType(ScalarType::Float64), ZarrFormat::V3), json(1.5));
}

// The public ZarrFillValue and the JSON the metadata holds.
TEST(ZarrFillValue, PublicValueToAndFromJson) {
  EXPECT_EQ(fill_value_json(ZarrFillValue()), json(nullptr));
  EXPECT_EQ(fill_value_json(ZarrFillValue(int8_t{-1})), json(-1));
  EXPECT_EQ(fill_value_json(ZarrFillValue(uint8_t{255})), json(255));
  EXPECT_EQ(fill_value_json(ZarrFillValue(UINT64_MAX)), json(UINT64_MAX));
  EXPECT_EQ(ZarrFillValue(uint8_t{7}), ZarrFillValue(7));
  EXPECT_EQ(fill_value_json(ZarrFillValue(0.5f)), json(0.5));
  EXPECT_EQ(fill_value_json(ZarrFillValue(false)), json(false));
  EXPECT_EQ(fill_value_json(ZarrFillValue("NaN")), json("NaN"));
  // Parsed integers are int64_t when they fit, though nlohmann stores 7 as unsigned.
  EXPECT_EQ(fill_value_from_json(json::parse("7")), ZarrFillValue(7));
  EXPECT_EQ(fill_value_from_json(json::parse("-7")), ZarrFillValue(-7));
  EXPECT_EQ(fill_value_from_json(json::parse("18446744073709551615")), ZarrFillValue(UINT64_MAX));
  EXPECT_EQ(fill_value_from_json(json::parse("1.5")), ZarrFillValue(1.5));
  EXPECT_EQ(fill_value_from_json(json::parse("true")), ZarrFillValue(true));
  EXPECT_EQ(fill_value_from_json(json::parse("\"Infinity\"")), ZarrFillValue("Infinity"));
  EXPECT_TRUE(fill_value_from_json(json(nullptr)).is_null());
}

}  // namespace
}  // namespace strata::io::detail
