// Consolidated metadata: v2 `.zmetadata` (zarr-python's convention) and v3 inline
// `consolidated_metadata` in the group's zarr.json.
#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/zarr_group_internal.hpp"
#include "io/zarr/zarr_metadata_internal.hpp"
#include "strata/core/log.hpp"

namespace strata::io {

using nlohmann::json;

namespace {

bool ends_with_name(std::string_view key, std::string_view name, std::string_view& prefix) {
  if (key == name) {
    prefix = "";
    return true;
  }
  if (key.size() > name.size() + 1 && key.ends_with(name) && key[key.size() - name.size() - 1] == '/') {
    prefix = key.substr(0, key.size() - name.size() - 1);
    return true;
  }
  return false;
}

std::string relative_to(const std::string& root, const std::string& path) {
  if (root.empty()) return path;
  return path.size() > root.size() ? path.substr(root.size() + 1) : std::string();
}

std::optional<std::vector<ZarrNodeInfo>> nodes_from_zmetadata(const json& doc, const std::string& root) {
  auto meta = doc.find("metadata");
  if (meta == doc.end() || !meta->is_object()) return std::nullopt;
  std::vector<ZarrNodeInfo> nodes;
  for (auto it = meta->begin(); it != meta->end(); ++it) {
    std::string_view prefix;
    NodeKind kind;
    if (ends_with_name(it.key(), detail::kZarray, prefix)) kind = NodeKind::Array;
    else if (ends_with_name(it.key(), detail::kZgroup, prefix)) kind = NodeKind::Group;
    else continue;
    auto p = detail::normalize_node_path(prefix);
    if (!p.ok()) return std::nullopt;
    nodes.push_back({detail::join_key(root, *p), kind, ZarrFormat::V2});
  }
  return nodes;
}

std::optional<std::vector<ZarrNodeInfo>> nodes_from_inline(const json& doc, const std::string& root) {
  if (doc.value("node_type", json()) != "group") return std::nullopt;
  auto cm = doc.find("consolidated_metadata");
  if (cm == doc.end() || !cm->is_object() || cm->value("kind", json()) != "inline") return std::nullopt;
  auto meta = cm->find("metadata");
  if (meta == cm->end() || !meta->is_object()) return std::nullopt;
  std::vector<ZarrNodeInfo> nodes{{root, NodeKind::Group, ZarrFormat::V3}};
  for (auto it = meta->begin(); it != meta->end(); ++it) {
    if (!it->is_object()) return std::nullopt;
    const json nt = it->value("node_type", json());
    auto p = detail::normalize_node_path(it.key());
    if (!p.ok() || p->empty()) return std::nullopt;
    if (nt == "array") nodes.push_back({detail::join_key(root, *p), NodeKind::Array, ZarrFormat::V3});
    else if (nt == "group") nodes.push_back({detail::join_key(root, *p), NodeKind::Group, ZarrFormat::V3});
    else return std::nullopt;
  }
  return nodes;
}

Result<std::optional<json>> load_json(const Store& store, const std::string& key) {
  STRATA_ASSIGN_OR_RETURN(auto bytes, detail::read_metadata_bytes(store, key));
  if (!bytes) return std::optional<json>();
  STRATA_ASSIGN_OR_RETURN(json doc, detail::parse_json_object(*bytes, detail::join_key(store.describe(), key)));
  return std::optional<json>(std::move(doc));
}

Status consolidate_v2(const std::shared_ptr<Store>& store, const std::string& root,
                      const std::vector<ZarrNodeInfo>& nodes) {
  json metadata = json::object();
  for (const auto& n : nodes) {
    if (n.format != ZarrFormat::V2) continue;
    for (std::string_view name : {detail::kZarray, detail::kZgroup, detail::kZattrs}) {
      STRATA_ASSIGN_OR_RETURN(auto doc, load_json(*store, detail::join_key(n.path, name)));
      if (doc) metadata[detail::join_key(relative_to(root, n.path), name)] = std::move(*doc);
    }
  }
  if (metadata.empty()) return Status::NotFound(detail::describe_node(*store, root), ": no Zarr v2 nodes to consolidate");
  json out = {{"metadata", std::move(metadata)}, {"zarr_consolidated_format", 1}};
  return detail::write_metadata(*store, detail::join_key(root, detail::kZmetadata), out);
}

Status consolidate_v3(const std::shared_ptr<Store>& store, const std::string& root,
                      const std::vector<ZarrNodeInfo>& nodes) {
  const std::string root_key = detail::join_key(root, detail::kZarrJson);
  STRATA_ASSIGN_OR_RETURN(auto root_doc, load_json(*store, root_key));
  if (!root_doc) return Status::NotFound(detail::describe_node(*store, root), ": no zarr.json");
  json metadata = json::object();
  for (const auto& n : nodes) {
    if (n.format != ZarrFormat::V3 || n.path == root) continue;
    STRATA_ASSIGN_OR_RETURN(auto doc, load_json(*store, detail::join_key(n.path, detail::kZarrJson)));
    if (!doc) continue;
    doc->erase("consolidated_metadata");  // only the root carries the consolidated view
    metadata[relative_to(root, n.path)] = std::move(*doc);
  }
  (*root_doc)["consolidated_metadata"] = {{"kind", "inline"}, {"must_understand", false}, {"metadata", metadata}};
  return detail::write_metadata(*store, root_key, *root_doc);
}

}  // namespace

namespace detail {

Result<std::optional<std::vector<ZarrNodeInfo>>> walk_consolidated(const std::shared_ptr<Store>& store,
                                                                   const std::string& path) {
  using Out = std::optional<std::vector<ZarrNodeInfo>>;
  // Unusable consolidated metadata is not an error: the walk falls back to listing.
  // An unreadable one (oversize, a FIFO, over-deep JSON) is refused unread and ignored too.
  auto zm = read_metadata_bytes(*store, join_key(path, kZmetadata));
  if (!zm.ok()) {
    log_warning(describe_node(*store, path), ": ignoring unusable .zmetadata: ", zm.status().message());
  } else if (*zm) {
    auto doc = parse_json_object(**zm, join_key(describe_node(*store, path), kZmetadata));
    if (doc.ok()) {
      if (auto nodes = nodes_from_zmetadata(*doc, path); nodes && !nodes->empty()) {
        sort_depth_first(*nodes);
        return Out(std::move(*nodes));
      }
    }
    log_warning(describe_node(*store, path), ": ignoring unusable .zmetadata",
                doc.ok() ? std::string() : ": " + doc.status().message());
  }
  STRATA_ASSIGN_OR_RETURN(auto zj, read_metadata_bytes(*store, join_key(path, kZarrJson)));
  if (zj) {
    auto doc = parse_json_object(*zj, join_key(describe_node(*store, path), kZarrJson));
    if (doc.ok()) {
      if (auto nodes = nodes_from_inline(*doc, path)) {
        sort_depth_first(*nodes);
        return Out(std::move(*nodes));
      }
    }
  }
  return Out();
}

}  // namespace detail

Status zarr_consolidate(const std::shared_ptr<Store>& store, const std::string& path) {
  if (!store) return Status::Invalid("zarr_consolidate: no store");
  STRATA_ASSIGN_OR_RETURN(std::string p, detail::normalize_node_path(path));
  STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo root, zarr_node_info(store, p));
  STRATA_ASSIGN_OR_RETURN(auto nodes, detail::walk_by_listing(store, p));
  if (root.kind == NodeKind::Group && root.format == ZarrFormat::V3) return consolidate_v3(store, p, nodes);
  if (root.kind == NodeKind::Array)
    return Status::Invalid(detail::describe_node(*store, p), ": consolidated metadata belongs to a group, not an array");
  return consolidate_v2(store, p, nodes);
}

}  // namespace strata::io
