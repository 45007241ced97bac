// PCA parameters and results shared by strata.pca's local and distributed calls: the library's
// structs bound as classes (their defaults are the library's), the result as a dict.
#pragma once

#include "common.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::python {

/// _core.PcaParams (genomics::PcaParams) and _core.SelectionOptions (its --maf/--geno).
void bind_pca_params(nb::module_& m);
nb::dict pca_dict(genomics::PcaResult r);

}  // namespace strata::python
