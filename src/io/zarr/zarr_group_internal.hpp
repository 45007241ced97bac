#pragma once
// Hierarchy helpers shared by arrays, groups and consolidated metadata.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/io/zarr.hpp"

namespace strata::io::detail {

/// \brief Create groups at every missing ancestor of `path`; an array ancestor is Invalid.
Status ensure_parent_groups(const std::shared_ptr<Store>& store, const std::string& path, ZarrFormat format);

/// \brief A node found by walk_tree(), or the error reading its metadata (then `info.kind` is
/// Missing and its subtree was not walked).
struct ListedNode {
  ZarrNodeInfo info;
  Status error;
};

/// \brief Every node under `path` (inclusive) found by listing the store's directories (not
/// consolidated metadata), depth-first, sorted. Nodes whose metadata cannot be read are
/// returned with their error instead of failing the walk.
Result<std::vector<ListedNode>> walk_tree(const std::shared_ptr<Store>& store, const std::string& path);

/// \brief Nodes under `path` (inclusive) found by listing the store, depth-first, sorted; the
/// first node whose metadata cannot be read fails the walk.
Result<std::vector<ZarrNodeInfo>> walk_by_listing(const std::shared_ptr<Store>& store, const std::string& path);

/// \brief Nodes under `path` according to consolidated metadata at `path` (.zmetadata or inline
/// v3), or nullopt when there is none (or it cannot be used).
Result<std::optional<std::vector<ZarrNodeInfo>>> walk_consolidated(const std::shared_ptr<Store>& store,
                                                                   const std::string& path);

/// \brief Sort nodes depth-first: by path component, so parents precede their children.
void sort_depth_first(std::vector<ZarrNodeInfo>& nodes);

}  // namespace strata::io::detail
