#pragma once
// Byte layouts of Zarr v2 string chunks: the numcodecs vlen layout (u32 count, then u32 length
// + bytes per item, little-endian) and numpy's fixed-width `S` (NUL-padded bytes) and `U`
// (NUL-padded UCS-4). Errors are bare messages; callers add the chunk's name.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"

namespace strata::io::detail {

/// `items` in the vlen layout.
Bytes encode_vlen(const std::vector<std::string>& items);
/// Exactly `expected` items from the vlen layout.
Result<std::vector<std::string>> decode_vlen(std::span<const uint8_t> data, int64_t expected);

/// `items` as fixed-width `S<width>` (ucs4 = false) or `U<width>` in host byte order.
/// Values longer than the width are Invalid; `U` values must be valid UTF-8.
Result<Bytes> encode_fixed(const std::vector<std::string>& items, int64_t width, bool ucs4);
/// `expected` fixed-width items (`U` values in `big_endian` byte order, converted to UTF-8).
Result<std::vector<std::string>> decode_fixed(std::span<const uint8_t> data, int64_t expected,
                                              int64_t width, bool ucs4, bool big_endian);

}  // namespace strata::io::detail
