#pragma once
// Sample ID checks shared by every genotype reader (.fam, VCF header, VCF Zarr sample_id).

#include <string>
#include <vector>

#include "strata/core/status.hpp"

namespace strata::io::detail {

/// InvalidData naming `where`, the first repeated ID and both (1-based) sample positions when
/// `ids` holds a duplicate (plink2 rejects duplicate sample IDs too); OK otherwise.
Status check_unique_sample_ids(const std::vector<std::string>& ids, const std::string& where);

}  // namespace strata::io::detail
