// svd(): method selection and argument checks shared by the exact and randomized paths.
#include "strata/linalg/svd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "linalg/svd_internal.hpp"

namespace strata::linalg {

namespace {

class ScaledSource final : public RowBlockSource {
 public:
  ScaledSource(RowBlockSourcePtr base, int exponent) : base_(std::move(base)), exponent_(exponent) {}
  int64_t rows() const override { return base_->rows(); }
  int64_t cols() const override { return base_->cols(); }
  int64_t preferred_block_rows() const override { return base_->preferred_block_rows(); }
  ScalarType natural_type() const override { return base_->natural_type(); }
  std::string describe() const override { return base_->describe(); }
  Status read_block(int64_t row0, int64_t nrows, double* out) const override {
    STRATA_RETURN_NOT_OK(base_->read_block(row0, nrows, out));
    // Two factors: 2⁻ᵉ alone may not be representable (e ≈ −1030 for subnormal data); each
    // step is exact since no intermediate leaves the normal range.
    const int half = -exponent_ / 2;
    const double f1 = std::ldexp(1.0, half), f2 = std::ldexp(1.0, -exponent_ - half);
    for (int64_t i = 0, e = nrows * cols(); i < e; ++i) out[i] = out[i] * f1 * f2;
    return Status::OK();
  }
  Status read_block(int64_t row0, int64_t nrows, float* out) const override {
    std::vector<double> tmp(static_cast<size_t>(nrows * cols()));
    STRATA_RETURN_NOT_OK(read_block(row0, nrows, tmp.data()));
    for (size_t i = 0; i < tmp.size(); ++i) out[i] = static_cast<float>(tmp[i]);
    return Status::OK();
  }
  Result<RowBlockSourcePtr> transposed() const override {
    STRATA_ASSIGN_OR_RETURN(RowBlockSourcePtr t, base_->transposed());
    return RowBlockSourcePtr(std::make_shared<ScaledSource>(std::move(t), exponent_));
  }

 private:
  RowBlockSourcePtr base_;
  int exponent_;
};

}  // namespace

double max_abs_or_nan(const DenseMatrix& a) {
  double m = 0;
  for (double x : a.data) {
    if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
    m = std::max(m, std::abs(x));
  }
  return m;
}

bool needs_rescaling(double max_abs) { return !(max_abs >= 0x1p-256 && max_abs <= 0x1p256); }

Result<int> scaling_exponent(const RowBlockSource& source, const PassEnv& options) {
  const int64_t rows = source.rows(), cols = source.cols();
  const int64_t pref = std::max<int64_t>(1, source.preferred_block_rows());
  const int64_t want = std::max<int64_t>(1, (options.block_bytes / 8) / std::max<int64_t>(1, cols));
  const int64_t step = std::max<int64_t>(1, want / pref) * pref;
  std::vector<double> buf;
  double mx = 0;
  for (int64_t r0 = 0; r0 < rows; r0 += step) {
    const int64_t nr = std::min(step, rows - r0);
    buf.resize(static_cast<size_t>(nr * cols));
    STRATA_RETURN_NOT_OK(source.read_block(r0, nr, buf.data()));
    for (int64_t i = 0; i < nr * cols; ++i) {
      const double x = buf[static_cast<size_t>(i)];
      if (!std::isfinite(x)) {
        return Status::InvalidData(source.describe(), ": non-finite value ", x, " at row ", r0 + i / cols,
                                   ", column ", i % cols);
      }
      mx = std::max(mx, std::abs(x));
    }
  }
  if (!(mx > 0)) {
    return Status::InvalidData(source.describe(), ": the matrix is zero (constant data): every singular value is 0");
  }
  int e = 0;
  std::frexp(mx, &e);
  return e;
}

RowBlockSourcePtr make_scaled_source(RowBlockSourcePtr source, int exponent) {
  return std::make_shared<ScaledSource>(std::move(source), exponent);
}

Result<int64_t> validate_k(const RowBlockSource& source, int64_t k, bool allow_full) {
  return validate_k(source.rows(), source.cols(), source.describe(), k, allow_full);
}

Result<int64_t> validate_k(int64_t m, int64_t n, const std::string& what, int64_t k, bool allow_full) {
  const int64_t p = std::min(m, n);
  if (m <= 0 || n <= 0) {
    return Status::InvalidData(what, ": cannot decompose an empty ", m, " x ", n, " matrix");
  }
  if (k < 0) return Status::Invalid("k must be positive, got ", k);
  if (k == 0) {
    if (allow_full) return p;
    return Status::Invalid("k must be at least 1 for randomized SVD");
  }
  if (allow_full ? k > p : k >= p) {
    return Status::InvalidData("k = ", k, " must be ", allow_full ? "at most" : "less than", " min(rows, cols) = ", p,
                           " for the ", m, " x ", n, " matrix ", what);
  }
  return k;
}

Status check_spectrum(const RowBlockSource& source, const std::vector<double>& s, int64_t k) {
  if (s.empty() || !(s[0] > 0)) {
    return Status::InvalidData(source.describe(), ": the matrix is zero (constant data): every singular value is 0");
  }
  return Status::OK();
}

Result<SvdMethod> parse_svd_method(const std::string& name) {
  if (name == "auto") return SvdMethod::Auto;
  if (name == "exact") return SvdMethod::Exact;
  if (name == "randomized") return SvdMethod::Randomized;
  return Status::Invalid("unknown SVD method '", name, "' (expected auto, exact or randomized)");
}

const char* svd_method_name(SvdMethod method) {
  switch (method) {
    case SvdMethod::Exact: return "exact";
    case SvdMethod::Randomized: return "randomized";
    default: return "auto";
  }
}

Result<RandomizedScheme> parse_randomized_scheme(const std::string& name) {
  if (name == "krylov") return RandomizedScheme::BlockKrylov;
  if (name == "subspace") return RandomizedScheme::SubspaceIteration;
  return Status::Invalid("scheme must be krylov or subspace, got '", name, "'");
}

const char* randomized_scheme_name(RandomizedScheme scheme) {
  return scheme == RandomizedScheme::SubspaceIteration ? "subspace" : "krylov";
}

Result<SvdResult> svd(const Context& ctx, const RowBlockSourcePtr& source, const SvdParams& options) {
  if (!source) return Status::Invalid("svd: no source");
  if (options.precision == Precision::Int16 || options.precision == Precision::Mixed) {
    return Status::Invalid("precision ", precision_name(options.precision), " is for genotype codes (pca); ",
                           source->describe(), " takes auto, float32 or float64");
  }
  SvdMethod method = options.method;
  if (method == SvdMethod::Auto) {
    const int64_t p = std::min(source->rows(), source->cols());
    method = p <= options.exact_max_dim ? SvdMethod::Exact : SvdMethod::Randomized;
  }
  // One progress task in rows over the passes (randomized: the most it may run).
  const int64_t passes = method == SvdMethod::Exact ? 2 : (options.iterations >= 0 ? options.iterations : 8) + 1;
  ProgressScope progress(ctx, "svd", source->rows() * passes, "rows");
  if (method == SvdMethod::Exact) return svd_exact(ctx, source, options);
  return svd_randomized(ctx, source, options);
}

}  // namespace strata::linalg
