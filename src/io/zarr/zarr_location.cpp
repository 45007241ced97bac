// resolve_zarr_location: split "store.zarr/a/b" into the hierarchy's root directory and a node path.
#include <sys/stat.h>

#include <filesystem>

#include "strata/io/zarr.hpp"

namespace strata::io {
namespace {

bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A directory holding Zarr metadata of its own.
bool is_node_dir(const std::string& dir) {
  const std::string base = dir.empty() ? "." : dir;
  return is_file(base + "/.zarray") || is_file(base + "/.zgroup") || is_file(base + "/zarr.json");
}

std::string parent_of(const std::string& p) {
  const size_t slash = p.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

}  // namespace

Result<ZarrLocation> resolve_zarr_location(const std::string& path) {
  if (path.empty()) return Status::Invalid("empty Zarr path");
  std::string full = std::filesystem::path(path).lexically_normal().string();
  while (full.size() > 1 && full.back() == '/') full.pop_back();
  if (full.empty() || full == ".") full = ".";

  // The chain of directories from `full` up to the file-system root (or the relative top).
  std::vector<std::string> chain;
  for (std::string p = full; !p.empty();) {
    chain.push_back(p);
    if (p == "/" || p == ".") break;
    p = parent_of(p);
  }
  size_t deepest = chain.size();
  for (size_t i = 0; i < chain.size(); ++i) {
    if (is_node_dir(chain[i])) {
      deepest = i;
      break;
    }
  }
  if (deepest == chain.size()) return ZarrLocation{full, ""};
  // Climb while the parent is still part of the same hierarchy.
  size_t top = deepest;
  while (top + 1 < chain.size() && is_node_dir(chain[top + 1])) ++top;
  const std::string& root = chain[top];
  std::string node;
  if (full.size() > root.size()) node = full.substr(root == "/" ? 1 : root.size() + 1);
  return ZarrLocation{root, node};
}

}  // namespace strata::io
