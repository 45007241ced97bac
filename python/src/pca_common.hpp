// PCA parameters from the Python arguments and the result as a dict: shared by strata.pca's
// local and distributed calls.
#pragma once

#include <string>

#include "common.hpp"
#include "strata/genomics/pca.hpp"

namespace strata::python {

genomics::PcaParams pca_params(int64_t k, const std::string& method, const std::string& scale, double tolerance,
                               int iterations, int64_t block, const std::string& precision, uint64_t seed, double maf,
                               double geno, bool loadings);
nb::dict pca_dict(genomics::PcaResult r);

}  // namespace strata::python
