#pragma once
// Parsed array metadata (.zarray / zarr.json), metadata writers, and store key helpers.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/zarr/chunk_pipeline_internal.hpp"
#include "io/zarr/sharding_internal.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io::detail {

/// Metadata file names.
inline constexpr std::string_view kZarray = ".zarray";
inline constexpr std::string_view kZgroup = ".zgroup";
inline constexpr std::string_view kZattrs = ".zattrs";
inline constexpr std::string_view kZmetadata = ".zmetadata";
inline constexpr std::string_view kZarrJson = "zarr.json";

/// \brief How chunk indices become store keys.
enum class KeyEncoding { V2, Default };

/// \brief Everything strata needs from an array's metadata.
struct ArrayMetadata {
  ZarrFormat format = ZarrFormat::V2;
  Shape shape;
  Shape chunks;         ///< read/write chunk shape (inner chunks when sharded)
  Shape outer_chunks;   ///< shape of one stored object (the shard shape when sharded)
  DType dtype;          ///< stored element type (byte order as stored)
  nlohmann::json fill_json;
  std::vector<uint8_t> fill;  ///< one element, host byte order
  KeyEncoding key_encoding = KeyEncoding::V2;
  char separator = '.';
  char order = 'C';     ///< v2 only
  std::shared_ptr<const ChunkPipeline> pipeline;   ///< per read/write chunk (inner when sharded)
  std::shared_ptr<const ShardingSpec> sharding;    ///< null unless sharded
  nlohmann::json attributes = nlohmann::json::object();
  std::vector<std::string> dimension_names;
  nlohmann::json document;  ///< the metadata document as read
};

/// \brief Parse bytes as a JSON object; `what` names the source in errors. Never throws.
Result<nlohmann::json> parse_json_object(std::span<const uint8_t> bytes, std::string_view what);

/// \brief Attributes given as JSON text through the public API: "" = {}; anything but an
/// object is Invalid.
Result<nlohmann::json> parse_attributes_json(std::string_view text);

/// \brief Parse a v2 `.zarray` document (attributes are attached by the caller).
Result<ArrayMetadata> parse_v2_array(const nlohmann::json& zarray);
/// \brief Parse a v3 `zarr.json` array document.
Result<ArrayMetadata> parse_v3_array(const nlohmann::json& doc);
/// \brief Take `_ARRAY_DIMENSIONS` from v2 attributes.
void attach_v2_attributes(ArrayMetadata& meta, const nlohmann::json& zattrs);

/// \brief The `.zarray` (and `.zattrs`, possibly empty) for new array options.
Result<nlohmann::json> build_v2_zarray(const ZarrCreateOptions& options);
Result<nlohmann::json> build_v2_zattrs(const ZarrCreateOptions& options);
/// \brief The zarr.json document for new array options.
Result<nlohmann::json> build_v3_array(const ZarrCreateOptions& options);

/// \brief Serialize metadata as zarr-python does: indent 4, sorted keys, ASCII only.
std::string dump_metadata(const nlohmann::json& doc);

/// \brief Key suffix of the stored object at `index` of the outer grid ("0.1", "c/0/1", "0", "c").
std::string chunk_key_suffix(const ArrayMetadata& meta, const Shape& index);

/// \brief "a/b" + "name" → "a/b/name"; "" + "name" → "name".
std::string join_key(std::string_view path, std::string_view name);
/// \brief Strip leading/trailing '/', collapse "//"; refuse "." and ".." components.
Result<std::string> normalize_node_path(std::string_view path);
/// \brief Parent of a node path ("a/b" → "a", "a" → ""); "" for the root.
std::string parent_path(std::string_view path);
/// \brief "store/path" for messages.
std::string describe_node(const Store& store, std::string_view path);

}  // namespace strata::io::detail
