#pragma once
// The one entry point for reading stored metadata documents (.zarray, .zgroup, .zattrs,
// .zmetadata, zarr.json, and any other JSON a store holds): bounded in size before it is read
// and in nesting depth before it is parsed, so hostile documents cannot exhaust memory or the
// stack (nlohmann::json copies, compares and dumps recursively).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"
#include "strata/io/store.hpp"

namespace strata::io::detail {

/// Metadata documents larger than this are refused (Corrupt) before they are read.
inline constexpr int64_t kMaxMetadataBytes = int64_t{64} << 20;
/// Arrays and objects nested deeper than this are refused (Corrupt) before parsing.
inline constexpr int kMaxMetadataDepth = 64;

/// \brief Check `bytes` stays within kMaxMetadataBytes and kMaxMetadataDepth (a byte scan
/// that skips string contents). `what` names the document in errors.
Status check_metadata_bounds(std::span<const uint8_t> bytes, std::string_view what);

/// \brief Parse a stored metadata document (any JSON value) after check_metadata_bounds.
/// Malformed JSON, oversize and over-deep documents are Corrupt. Never throws.
Result<nlohmann::json> parse_metadata_json(std::span<const uint8_t> bytes, std::string_view what);

/// \brief Read the metadata document `key` from `store` (nullopt when missing), refusing
/// objects larger than kMaxMetadataBytes before reading them.
Result<std::optional<Bytes>> read_metadata_bytes(const Store& store, const std::string& key);

/// \brief Store `doc` at `key` as zarr-python writes metadata (dump_metadata's text).
Status write_metadata(Store& store, const std::string& key, const nlohmann::json& doc);

/// \brief One-line JSON text of `doc` for the public API, which passes JSON as text (invalid
/// UTF-8 replaced, never throws).
std::string dump_compact(const nlohmann::json& doc);

/// \brief read_metadata_bytes + parse_metadata_json; the document must be a JSON object.
/// Errors name "store/key".
Result<std::optional<nlohmann::json>> read_metadata_object(const Store& store, const std::string& key);

/// \brief Set axis 0 of the v2 array at `path` to `length`: arrays created while streaming,
/// whose length is known only at the end.
Status set_v2_length(Store& store, const std::string& path, int64_t length);

}  // namespace strata::io::detail
