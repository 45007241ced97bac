// PCA parameters and results shared by strata.pca's local and distributed calls: the library's
// structs bound as classes (their defaults are the library's), the result as a dict.
#pragma once

#include "common.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/genomics/pca_output.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::python {

/// _core.PcaParams (genomics::PcaParams) and _core.SelectionOptions (its --maf/--geno).
void bind_pca_params(nb::module_& m);
/// The result as a dict; "summary" is `summary` (genomics::pca_result_summary and what the call
/// adds, as `strata pca --report`) as a dict (summary_dict).
nb::dict pca_dict(genomics::PcaResult r, const Summary& summary);

}  // namespace strata::python
