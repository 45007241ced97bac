#pragma once
// Codecs to and from Zarr metadata JSON. Internal: the public BytesCodec speaks JSON text only,
// so no installed header needs a JSON library.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>

#include "strata/core/result.hpp"
#include "strata/io/codec.hpp"

namespace strata::io {

/// \brief Build a codec from a v2 `compressor` or `filters` entry. `itemsize` is the array's
/// element size (blosc typesize). Unknown ids are Unsupported naming the id.
Result<std::unique_ptr<BytesCodec>> make_codec_v2(const nlohmann::json& config, int64_t itemsize);

/// \brief Build a bytes→bytes codec from a v3 `codecs` entry (object or short-hand string).
Result<std::unique_ptr<BytesCodec>> make_codec_v3(const nlohmann::json& config, int64_t itemsize);

namespace detail {

/// \brief `codec.config_json_v2()` parsed; text that is not a JSON object is Invalid.
Result<nlohmann::json> codec_json_v2(const BytesCodec& codec);
/// \brief `codec.config_json_v3()` parsed, same rules.
Result<nlohmann::json> codec_json_v3(const BytesCodec& codec);

}  // namespace detail
}  // namespace strata::io
