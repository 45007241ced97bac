#pragma once
// Store keys are relative '/'-separated paths; every store refuses the ones that could leave
// its root or prefix.
#include <string>
#include <string_view>

#include "strata/core/status.hpp"

namespace strata::io::detail {

inline Status check_key(const std::string& key, bool allow_empty) {
  if (key.empty()) {
    if (allow_empty) return Status::OK();
    return Status::Invalid("empty store key");
  }
  if (key.front() == '/') return Status::Invalid("store key '", key, "' is absolute");
  if (key.find('\0') != std::string::npos) return Status::Invalid("store key contains a NUL byte");
  size_t pos = 0;
  while (pos <= key.size()) {
    size_t slash = key.find('/', pos);
    if (slash == std::string::npos) slash = key.size();
    std::string_view part(key.data() + pos, slash - pos);
    if (part.empty() && slash != key.size())
      return Status::Invalid("store key '", key, "' has an empty path component");
    if (part == "." || part == "..")
      return Status::Invalid("store key '", key, "' contains '", part, "'");
    pos = slash + 1;
  }
  return Status::OK();
}

}  // namespace strata::io::detail
