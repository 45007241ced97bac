#pragma once
// The BGEN genotype source, for open_genotypes (bgen_reader.cpp).

#include <string>

#include "strata/io/genotype.hpp"

namespace strata::io::detail {

/// Whether `path` names a BGEN file (ends in ".bgen").
bool is_bgen_path(const std::string& path);
/// `x.sample` beside `x.bgen` when that file exists, else "".
std::string bgen_sample_path(const std::string& bgen_path);
/// Open a BGEN file; sample IDs from `sample_path` (an Oxford .sample; "" = the IDs in the
/// file, else 0..n−1).
Result<GenotypeViewPtr> open_bgen_genotypes(const std::string& path, const std::string& sample_path,
                                            const GenotypeOpenOptions& options);

}  // namespace strata::io::detail
