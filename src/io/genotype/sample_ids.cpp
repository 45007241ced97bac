// Sample ID checks shared by every genotype reader.
#include <string_view>
#include <unordered_map>

#include "io/genotype/sample_ids_internal.hpp"

namespace strata::io::detail {

Status check_unique_sample_ids(const std::vector<std::string>& ids, const std::string& where) {
  std::unordered_map<std::string_view, size_t> first;
  first.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    auto [it, inserted] = first.emplace(ids[i], i);
    if (!inserted)
      return Status::InvalidData(where, ": duplicate sample ID '", ids[i], "' (samples ", it->second + 1, " and ", i + 1,
                                 "); sample IDs must be unique");
  }
  return Status::OK();
}

}  // namespace strata::io::detail
