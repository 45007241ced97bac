// Groups and hierarchy: node kinds, group creation, attributes, walking a store.
#include <algorithm>

#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/zarr_group_internal.hpp"
#include "io/zarr/zarr_metadata_internal.hpp"

namespace strata::io {

using nlohmann::json;

namespace {

// Deeper than this the walk stops (guards against symlink loops).
constexpr int kMaxWalkDepth = 64;

json v3_group_doc(const json& attributes) {
  return json{{"zarr_format", 3}, {"node_type", "group"}, {"attributes", attributes}};
}

Status write_new_group(Store& store, const std::string& path, ZarrFormat format, const json& attributes) {
  if (format == ZarrFormat::V3) return detail::write_metadata(store, detail::join_key(path, detail::kZarrJson), v3_group_doc(attributes));
  if (!attributes.empty()) STRATA_RETURN_NOT_OK(detail::write_metadata(store, detail::join_key(path, detail::kZattrs), attributes));
  return detail::write_metadata(store, detail::join_key(path, detail::kZgroup), json{{"zarr_format", 2}});
}

// Paths visited by one walk at most (symlink loops could otherwise multiply them).
constexpr int64_t kMaxWalkVisits = int64_t{1} << 20;

Status walk_listing(const std::shared_ptr<Store>& store, const std::string& path, int depth, int64_t& visits,
                    std::vector<detail::ListedNode>& out) {
  if (++visits > kMaxWalkVisits)
    return Status::InvalidData(detail::describe_node(*store, ""), ": more than ", kMaxWalkVisits,
                               " paths below the store root (a symlink loop?)");
  auto info = zarr_node_info(store, path);
  if (!info.ok()) {  // unreadable metadata: reported for this node, its subtree is not walked
    out.push_back({ZarrNodeInfo{path, NodeKind::Missing, ZarrFormat::V2}, info.status()});
    return Status::OK();
  }
  if (info->kind != NodeKind::Missing) out.push_back({*info, Status::OK()});
  if (info->kind == NodeKind::Array || depth >= kMaxWalkDepth) return Status::OK();
  STRATA_ASSIGN_OR_RETURN(auto children, store->list_dir(path));
  for (const auto& c : children) {
    if (c.empty() || c[0] == '.' || c == detail::kZarrJson) continue;  // metadata and hidden files
    STRATA_RETURN_NOT_OK(walk_listing(store, detail::join_key(path, c), depth + 1, visits, out));
  }
  return Status::OK();
}

std::vector<std::string_view> components(const std::string& p) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < p.size()) {
    size_t slash = p.find('/', pos);
    if (slash == std::string::npos) slash = p.size();
    out.emplace_back(p.data() + pos, slash - pos);
    pos = slash + 1;
  }
  return out;
}

}  // namespace

namespace detail {

Status ensure_parent_groups(const std::shared_ptr<Store>& store, const std::string& path, ZarrFormat format) {
  if (path.empty()) return Status::OK();
  std::vector<std::string> ancestors;
  for (std::string p = parent_path(path);; p = parent_path(p)) {
    ancestors.push_back(p);
    if (p.empty()) break;
  }
  for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
    STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo info, zarr_node_info(store, *it));
    if (info.kind == NodeKind::Array)
      return Status::Invalid(describe_node(*store, path), ": cannot create a node inside the array '",
                             describe_node(*store, *it), "'");
    if (info.kind == NodeKind::Missing) STRATA_RETURN_NOT_OK(write_new_group(*store, *it, format, json::object()));
  }
  return Status::OK();
}

Result<std::vector<ListedNode>> walk_tree(const std::shared_ptr<Store>& store, const std::string& path) {
  std::vector<ListedNode> out;
  int64_t visits = 0;
  STRATA_RETURN_NOT_OK(walk_listing(store, path, 0, visits, out));
  std::stable_sort(out.begin(), out.end(), [](const ListedNode& a, const ListedNode& b) {
    return components(a.info.path) < components(b.info.path);
  });
  return out;
}

Result<std::vector<ZarrNodeInfo>> walk_by_listing(const std::shared_ptr<Store>& store, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(auto listed, walk_tree(store, path));
  std::vector<ZarrNodeInfo> out;
  for (auto& n : listed) {
    if (!n.error.ok()) return n.error;
    out.push_back(std::move(n.info));
  }
  return out;
}

void sort_depth_first(std::vector<ZarrNodeInfo>& nodes) {
  std::sort(nodes.begin(), nodes.end(), [](const ZarrNodeInfo& a, const ZarrNodeInfo& b) {
    return components(a.path) < components(b.path);
  });
}

}  // namespace detail

Result<ZarrNodeInfo> zarr_node_info(const std::shared_ptr<Store>& store, const std::string& path) {
  if (!store) return Status::Invalid("zarr_node_info: no store");
  STRATA_ASSIGN_OR_RETURN(std::string p, detail::normalize_node_path(path));
  ZarrNodeInfo info;
  info.path = p;
  STRATA_ASSIGN_OR_RETURN(bool is_array, store->exists(detail::join_key(p, detail::kZarray)));
  if (is_array) {
    info.kind = NodeKind::Array;
    return info;
  }
  STRATA_ASSIGN_OR_RETURN(bool is_group, store->exists(detail::join_key(p, detail::kZgroup)));
  if (is_group) {
    info.kind = NodeKind::Group;
    return info;
  }
  const std::string key = detail::join_key(p, detail::kZarrJson);
  STRATA_ASSIGN_OR_RETURN(auto zj, detail::read_metadata_bytes(*store, key));
  if (!zj) return info;
  STRATA_ASSIGN_OR_RETURN(json doc, detail::parse_json_object(*zj, detail::join_key(store->describe(), key)));
  auto nt = doc.find("node_type");
  info.format = ZarrFormat::V3;
  if (nt != doc.end() && *nt == "array") info.kind = NodeKind::Array;
  else if (nt != doc.end() && *nt == "group") info.kind = NodeKind::Group;
  else return Status::Corrupt(detail::join_key(store->describe(), key), ": node_type must be \"array\" or \"group\"");
  return info;
}

Status zarr_create_group(const std::shared_ptr<Store>& store, const std::string& path, ZarrFormat format,
                         std::string_view attributes_json) {
  if (!store) return Status::Invalid("zarr_create_group: no store");
  STRATA_ASSIGN_OR_RETURN(std::string p, detail::normalize_node_path(path));
  const std::string desc = detail::describe_node(*store, p);
  auto parsed = detail::parse_attributes_json(attributes_json);
  if (!parsed.ok()) return Status::Invalid(desc, ": group ", parsed.status().message());
  const json& attributes = *parsed;
  STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo info, zarr_node_info(store, p));
  if (info.kind == NodeKind::Array) return Status::AlreadyExists(desc, ": an array exists here");
  if (info.kind == NodeKind::Group && info.format != format)
    return Status::AlreadyExists(desc, ": a Zarr v", static_cast<int>(info.format), " group exists here");
  STRATA_RETURN_NOT_OK(detail::ensure_parent_groups(store, p, format));
  if (info.kind == NodeKind::Missing) return write_new_group(*store, p, format, attributes);
  // An existing group keeps its attributes unless new ones are given.
  if (attributes.empty()) return Status::OK();
  if (format == ZarrFormat::V2) return detail::write_metadata(*store, detail::join_key(p, detail::kZattrs), attributes);
  const std::string key = detail::join_key(p, detail::kZarrJson);
  STRATA_ASSIGN_OR_RETURN(auto zj, detail::read_metadata_bytes(*store, key));
  json doc = v3_group_doc(attributes);
  if (zj) {
    STRATA_ASSIGN_OR_RETURN(doc, detail::parse_json_object(*zj, detail::join_key(store->describe(), key)));
    doc["attributes"] = attributes;
  }
  return detail::write_metadata(*store, key, doc);
}

namespace {

Result<json> group_attributes(const std::shared_ptr<Store>& store, const std::string& path) {
  if (!store) return Status::Invalid("zarr_group_attributes_json: no store");
  STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo info, zarr_node_info(store, path));
  const std::string desc = detail::describe_node(*store, info.path);
  if (info.kind == NodeKind::Missing) return Status::NotFound(desc, ": no Zarr group here");
  const std::string key = detail::join_key(info.path, info.format == ZarrFormat::V2 ? detail::kZattrs : detail::kZarrJson);
  STRATA_ASSIGN_OR_RETURN(auto bytes, detail::read_metadata_bytes(*store, key));
  if (!bytes) return json::object();
  STRATA_ASSIGN_OR_RETURN(json doc, detail::parse_json_object(*bytes, detail::join_key(store->describe(), key)));
  if (info.format == ZarrFormat::V2) return doc;
  auto a = doc.find("attributes");
  if (a == doc.end() || a->is_null()) return json::object();
  if (!a->is_object()) return Status::Corrupt(detail::join_key(store->describe(), key), ": \"attributes\" must be an object");
  return *a;
}

}  // namespace

Result<std::string> zarr_group_attributes_json(const std::shared_ptr<Store>& store, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(json attributes, group_attributes(store, path));
  return detail::dump_compact(attributes);
}

Result<std::vector<ZarrNodeInfo>> zarr_walk(const std::shared_ptr<Store>& store, const std::string& path) {
  if (!store) return Status::Invalid("zarr_walk: no store");
  STRATA_ASSIGN_OR_RETURN(std::string p, detail::normalize_node_path(path));
  STRATA_ASSIGN_OR_RETURN(auto consolidated, detail::walk_consolidated(store, p));
  if (consolidated) return std::move(*consolidated);
  STRATA_ASSIGN_OR_RETURN(auto nodes, detail::walk_by_listing(store, p));
  if (nodes.empty()) return Status::NotFound(detail::describe_node(*store, p), ": no Zarr arrays or groups here");
  return nodes;
}

}  // namespace strata::io
