#pragma once
// Sample ID checks shared by every genotype reader (.fam, VCF header, VCF Zarr sample_id).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/status.hpp"

namespace strata::io::detail {

/// Positions (i, j), i < j, of the first repeated key, or nullopt when all keys differ.
std::optional<std::pair<size_t, size_t>> first_duplicate(const std::vector<std::string>& keys);

/// InvalidData naming `where`, the first repeated ID and both (1-based) sample positions when
/// `ids` holds a duplicate (plink2 rejects duplicate sample IDs too); OK otherwise.
Status check_unique_sample_ids(const std::vector<std::string>& ids, const std::string& where);

}  // namespace strata::io::detail
