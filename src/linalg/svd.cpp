// svd(): method selection and argument checks shared by the exact and randomized paths.
#include "strata/linalg/svd.hpp"

#include <algorithm>

#include "linalg/svd_internal.hpp"

namespace strata::linalg {

Result<int64_t> validate_k(const RowBlockSource& source, int64_t k, bool allow_full) {
  return validate_k(source.rows(), source.cols(), source.describe(), k, allow_full);
}

Result<int64_t> validate_k(int64_t m, int64_t n, const std::string& what, int64_t k, bool allow_full) {
  const int64_t p = std::min(m, n);
  if (m <= 0 || n <= 0) {
    return Status::Invalid(what, ": cannot decompose an empty ", m, " x ", n, " matrix");
  }
  if (k < 0) return Status::Invalid("k must be positive, got ", k);
  if (k == 0) {
    if (allow_full) return p;
    return Status::Invalid("k must be at least 1 for randomized SVD");
  }
  if (allow_full ? k > p : k >= p) {
    return Status::Invalid("k = ", k, " must be ", allow_full ? "at most" : "less than", " min(rows, cols) = ", p,
                           " for the ", m, " x ", n, " matrix ", what);
  }
  return k;
}

Status check_spectrum(const RowBlockSource& source, const std::vector<double>& s, int64_t k) {
  if (s.empty() || !(s[0] > 0)) {
    return Status::Invalid(source.describe(), ": the matrix is zero (constant data): every singular value is 0");
  }
  return Status::OK();
}

Result<SvdMethod> parse_svd_method(const std::string& name) {
  if (name == "auto") return SvdMethod::Auto;
  if (name == "exact") return SvdMethod::Exact;
  if (name == "randomized") return SvdMethod::Randomized;
  return Status::Invalid("unknown SVD method '", name, "' (expected auto, exact or randomized)");
}

Result<SvdResult> svd(const RowBlockSourcePtr& source, const SvdOptions& options) {
  if (!source) return Status::Invalid("svd: no source");
  SvdMethod method = options.method;
  if (method == SvdMethod::Auto) {
    const int64_t p = std::min(source->rows(), source->cols());
    method = p <= options.exact_max_dim ? SvdMethod::Exact : SvdMethod::Randomized;
  }
  if (method == SvdMethod::Exact) return svd_exact(source, options);
  return svd_randomized(source, options);
}

}  // namespace strata::linalg
