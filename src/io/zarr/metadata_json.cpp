// Bounded reading and parsing of stored metadata documents (see metadata_json_internal.hpp).
#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/zarr_metadata_internal.hpp"

namespace strata::io::detail {

Status check_metadata_bounds(std::span<const uint8_t> bytes, std::string_view what) {
  if (static_cast<int64_t>(bytes.size()) > kMaxMetadataBytes)
    return Status::Corrupt(what, ": metadata document of ", bytes.size(), " bytes exceeds the limit of ",
                           kMaxMetadataBytes, " bytes");
  int depth = 0;
  bool in_string = false, escaped = false;
  for (uint8_t c : bytes) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxMetadataDepth)
        return Status::Corrupt(what, ": nested deeper than ", kMaxMetadataDepth, " levels");
    } else if (c == ']' || c == '}') {
      if (--depth < 0) return Status::Corrupt(what, ": malformed JSON (unbalanced '", static_cast<char>(c), "')");
    }
  }
  return Status::OK();
}

Result<nlohmann::json> parse_metadata_json(std::span<const uint8_t> bytes, std::string_view what) {
  STRATA_RETURN_NOT_OK(check_metadata_bounds(bytes, what));
  nlohmann::json doc = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Corrupt(what, ": malformed JSON");
  return doc;
}

Status write_metadata(Store& store, const std::string& key, const nlohmann::json& doc) {
  const std::string s = dump_metadata(doc);
  return store.set(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

Result<std::optional<Bytes>> read_metadata_bytes(const Store& store, const std::string& key) {
  return store.get_at_most(key, kMaxMetadataBytes);
}

Result<std::optional<nlohmann::json>> read_metadata_object(const Store& store, const std::string& key) {
  STRATA_ASSIGN_OR_RETURN(auto bytes, read_metadata_bytes(store, key));
  if (!bytes) return std::optional<nlohmann::json>();
  const std::string what = store.describe() + "/" + key;
  STRATA_ASSIGN_OR_RETURN(nlohmann::json doc, parse_metadata_json(*bytes, what));
  if (!doc.is_object()) return Status::Corrupt(what, ": expected a JSON object");
  return std::optional<nlohmann::json>(std::move(doc));
}

std::string dump_compact(const nlohmann::json& doc) {
  return doc.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

Status set_v2_length(Store& store, const std::string& path, int64_t length) {
  const std::string key = path.empty() ? ".zarray" : path + "/.zarray";
  STRATA_ASSIGN_OR_RETURN(auto doc, read_metadata_object(store, key));
  if (!doc) return Status::NotFound(store.describe(), "/", key, ": missing");
  auto shape = doc->find("shape");
  if (shape == doc->end() || !shape->is_array() || shape->empty())
    return Status::Corrupt(store.describe(), "/", key, ": no shape");
  (*shape)[0] = length;
  const std::string s = doc->dump();
  return store.set(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

}  // namespace strata::io::detail
