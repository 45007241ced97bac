#pragma once
// PCA's exact routes beside TSQR (pca.cpp picks one): the GRM tile pass + a partial
// eigensolve of the dense GRM.

#include <vector>

#include "strata/genomics/pca.hpp"

namespace strata::genomics {

/// \brief The cheaper exact route for n samples × m variants used under ctx's budget
/// (p.exact_route when set).
PcaRoute choose_exact_route(const Context& ctx, const PcaParams& p, int64_t n, int64_t m);

/// \brief The GRM route's work in progress units (one unit: a variant of the counts pass,
/// which decodes n codes): a variant of the GRM pass weighs `per_variant` units (n² / 2
/// products), the eigensolve and the loadings pass their own, in the proportions measured at
/// 5,000 × 50,000 on the development VM.
struct GrmRouteWork {
  int64_t per_variant = 1, eigensolve = 0, loadings = 0;
};
GrmRouteWork grm_route_work(int64_t n, int64_t m, int64_t k, bool loadings);

/// \brief Whether the GRM route sums float64 products and runs a tight float64 eigensolve
/// (plink2's digits) rather than the integer/float32 products.
bool grm_float64(const PcaParams& p);

/// \brief Fill `out`'s eigenvalues, eigenvectors, loadings (if asked), passes and estimates
/// from the GRM of the used variants (out.variants_used, out.grm_variants already set).
Status pca_by_grm(const Context& ctx, const io::GenotypeViewPtr& view, const std::vector<VariantCounts>& counts,
                  const PcaParams& options, PcaResult& out);

}  // namespace strata::genomics
