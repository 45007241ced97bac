// genomics::pca: variant statistics pass, filters, then the SVD of the standardized matrix.
#include "strata/genomics/pca.hpp"

namespace strata::genomics {

Result<PcaResult> pca(const io::GenotypeViewPtr& view, const PcaOptions& options) {
  if (!view) return Status::Invalid("pca: no genotype view");
  STRATA_RETURN_NOT_OK(io::validate_variant_filter(options.filter));
  if (options.k < 1) return Status::Invalid("pca: k must be at least 1, got ", options.k);
  STRATA_ASSIGN_OR_RETURN(auto counts, io::compute_variant_counts(*view, options.pass.pool, nullptr));
  PcaResult out;
  io::VariantFilter filter = options.filter;
  // Zero-variance variants carry no information and would only change M.
  filter.drop_monomorphic = true;
  out.filter = io::apply_variant_filter(counts, filter);
  if (out.filter.kept.empty()) {
    return Status::Invalid(view->describe(), ": every variant was filtered out (", out.filter.dropped_missing,
                           " by missingness, ", out.filter.dropped_monomorphic, " monomorphic, ",
                           out.filter.dropped_maf, " by MAF)");
  }
  out.variants_used = out.filter.kept;
  const auto m = static_cast<int64_t>(out.variants_used.size());
  STRATA_ASSIGN_OR_RETURN(auto src, make_standardized_source(view, counts, out.variants_used, options.scale));
  linalg::SvdOptions so;
  so.k = options.k;
  so.method = options.method;
  so.scheme = options.scheme;
  so.iterations = options.iterations;
  so.oversampling = options.oversampling;
  so.seed = options.seed;
  so.compute_u = options.compute_loadings;
  so.pass = options.pass;
  if (options.k >= std::min(m, view->num_samples())) {
    return Status::Invalid("pca: k = ", options.k, " must be less than min(variants used, samples) = ",
                           std::min(m, view->num_samples()));
  }
  STRATA_ASSIGN_OR_RETURN(linalg::SvdResult r, linalg::svd(src, so));
  out.method = r.method;
  out.passes = r.passes + 1;
  for (double s : r.s) out.eigenvalues.push_back(s * s / static_cast<double>(m));
  out.eigenvectors = std::move(r.v);
  out.loadings = std::move(r.u);
  out.error_estimate = std::move(r.error_estimate);
  return out;
}

}  // namespace strata::genomics
