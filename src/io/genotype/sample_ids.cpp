// Sample ID checks shared by every genotype reader.
#include <string_view>
#include <unordered_map>

#include "io/genotype/sample_ids_internal.hpp"

namespace strata::io::detail {

std::optional<std::pair<size_t, size_t>> first_duplicate(const std::vector<std::string>& keys) {
  std::unordered_map<std::string_view, size_t> first;
  first.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, inserted] = first.emplace(keys[i], i);
    if (!inserted) return std::make_pair(it->second, i);
  }
  return std::nullopt;
}

Status check_unique_sample_ids(const std::vector<std::string>& ids, const std::string& where) {
  if (const auto d = first_duplicate(ids))
    return Status::InvalidData(where, ": duplicate sample ID '", ids[d->second], "' (samples ", d->first + 1, " and ",
                               d->second + 1, "); sample IDs must be unique");
  return Status::OK();
}

}  // namespace strata::io::detail
