#pragma once
// Constructors of the Zarr-backed genotype sources (VCF Zarr, scikit-allel, dosage arrays).

#include <string>

#include "strata/io/genotype.hpp"

namespace strata::io::detail {

/// Open the genotype array of the Zarr store at `path` (detecting the layout unless
/// options.array names it).
Result<GenotypeViewPtr> open_zarr_genotypes(const std::string& path, const GenotypeOpenOptions& options);

}  // namespace strata::io::detail
