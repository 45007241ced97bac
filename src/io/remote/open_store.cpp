// One way from a path or URL to a Store: local directories, http(s)://, s3://, gs://.
#include <algorithm>
#include <cctype>

#include "io/remote/metadata_cache_store_internal.hpp"
#include "io/remote/object_store_internal.hpp"
#include "strata/io/remote.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io {
namespace {

std::string scheme_of(std::string_view path) {
  const size_t colon = path.find("://");
  if (colon == std::string_view::npos || colon == 0) return "";
  std::string s(path.substr(0, colon));
  // RFC 3986: a letter, then letters, digits, '+', '-', '.' ("s3", "gs", "https").
  if (!std::isalpha(static_cast<unsigned char>(s[0]))) return "";
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '+' && c != '-' && c != '.') return "";
    c = static_cast<char>(std::tolower(u));
  }
  return s;
}

Result<std::shared_ptr<Store>> open_remote(const std::string& url) {
  const std::string scheme = scheme_of(url);
  if (scheme == "http" || scheme == "https") return remote::open_http_store(url);
  if (scheme == "s3") return remote::open_s3_store(url);
  if (scheme == "gs" || scheme == "gcs") return remote::open_gcs_store(url);
  return Status::Unsupported("'", url, "': unknown URL scheme '", scheme, "' (strata reads http(s)://, s3:// and gs://)");
}

// The URL one level up, and the last component; nullopt at the bucket or host root.
std::optional<std::pair<std::string, std::string>> parent_url(const std::string& url) {
  const size_t start = url.find("://") + 3;
  const size_t first_slash = url.find('/', start);
  if (first_slash == std::string::npos) return std::nullopt;
  std::string u = url;
  while (u.size() > first_slash + 1 && u.back() == '/') u.pop_back();
  const size_t slash = u.rfind('/');
  if (slash < first_slash || slash + 1 >= u.size()) return std::nullopt;
  return std::make_pair(u.substr(0, slash), u.substr(slash + 1));
}

}  // namespace

bool is_remote_url(std::string_view path) { return !scheme_of(path).empty(); }

Result<std::shared_ptr<Store>> open_store(const std::string& path_or_url, bool create) {
  if (!is_remote_url(path_or_url)) {
    STRATA_ASSIGN_OR_RETURN(auto local, LocalStore::open(path_or_url, create));
    return std::shared_ptr<Store>(local);
  }
  return open_remote(path_or_url);
}

Result<StoreLocation> open_zarr_location(const std::string& path_or_url) {
  if (!is_remote_url(path_or_url)) {
    STRATA_ASSIGN_OR_RETURN(ZarrLocation loc, resolve_zarr_location(path_or_url));
    STRATA_ASSIGN_OR_RETURN(auto local, LocalStore::open(loc.store_root));
    return StoreLocation{local, loc.node_path};
  }
  std::string url = path_or_url;
  while (url.size() > 1 && url.back() == '/') url.pop_back();
  STRATA_ASSIGN_OR_RETURN(auto raw, open_remote(url));
  STRATA_ASSIGN_OR_RETURN(auto store, remote::make_metadata_cache_store(raw));
  StoreLocation loc{store, ""};
  if (remote::has_consolidated_metadata(*store)) return loc;
  STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo info, zarr_node_info(store, ""));
  if (info.kind == NodeKind::Missing) return loc;
  // A node: climb while the parent is a node of the same hierarchy (as for local paths),
  // stopping at a root with consolidated metadata.
  for (int depth = 0; depth < 64; ++depth) {
    auto up = parent_url(url);
    if (!up) break;
    auto parent_raw = open_remote(up->first);
    if (!parent_raw.ok()) break;
    STRATA_ASSIGN_OR_RETURN(auto parent, remote::make_metadata_cache_store(*parent_raw));
    const bool consolidated = remote::has_consolidated_metadata(*parent);
    if (!consolidated) {
      STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo pinfo, zarr_node_info(parent, ""));
      if (pinfo.kind != NodeKind::Group) break;
    }
    url = up->first;
    loc = StoreLocation{parent, loc.node_path.empty() ? up->second : up->second + "/" + loc.node_path};
    if (consolidated) break;
  }
  return loc;
}

}  // namespace strata::io
