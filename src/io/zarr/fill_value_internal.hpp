#pragma once
// Zarr fill values: JSON <-> one element in host byte order.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "strata/core/dtype.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io::detail {

/// \brief Parse a `fill_value` for `dtype` into itemsize bytes in host byte order.
/// Accepts numbers, booleans, "NaN", "Infinity", "-Infinity", hex bit patterns ("0x7fc00000")
/// and null (zeros: zarr-python reads unwritten chunks of a null-fill array as 0).
Result<std::vector<uint8_t>> parse_fill_value(const nlohmann::json& value, DType dtype,
                                              ZarrFormat format);

/// \brief The canonical JSON for a fill element (host byte order): numbers, true/false,
/// "NaN"/"Infinity"/"-Infinity"; v3 writes NaNs with a payload as hex bit patterns.
nlohmann::json fill_value_to_json(std::span<const uint8_t> element, DType dtype, ZarrFormat format);

/// \brief The public fill value as JSON, and back (integers that fit become int64_t).
nlohmann::json fill_value_json(const ZarrFillValue& value);
ZarrFillValue fill_value_from_json(const nlohmann::json& value);

/// \brief IEEE binary16 conversions (round to nearest even).
uint16_t float_to_half(double value);
double half_to_double(uint16_t bits);

}  // namespace strata::io::detail
