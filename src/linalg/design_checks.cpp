// Design checks shared by strata gwas and strata glm (plink2's --glm rules; see the header).
#include "strata/linalg/design_checks.hpp"

#include <algorithm>
#include <cmath>

#include "strata/linalg/stats.hpp"

namespace strata::linalg {

const char* design_check_name(DesignCheck c) {
  switch (c) {
    case DesignCheck::Ok: return ".";
    case DesignCheck::CorrTooHigh: return "CORR_TOO_HIGH";
    case DesignCheck::VifInfinite: return "VIF_INFINITE";
    case DesignCheck::VifTooHigh: return "VIF_TOO_HIGH";
  }
  return "?";
}

CorrVifResult check_corr_and_vif(const std::vector<double>& gram, int64_t p, double max_corr, double max_vif) {
  CorrVifResult out;
  const int64_t m = p - 1;  // predictors without the intercept
  if (m <= 0) return out;
  const double n = gram[0];
  std::vector<double> corr(static_cast<size_t>(m * m)), inv_sd(static_cast<size_t>(m));
  auto cov = [&](int64_t i, int64_t j) {  // predictor indices ≥ 1
    return (gram[i * p + j] - gram[i] * gram[j] / n) / (n - 1.0);
  };
  for (int64_t i = 0; i < m; ++i) {
    const double v = cov(i + 1, i + 1);
    // A constant predictor (variance zero to rounding) is collinear with the intercept.
    if (!(v > 1e-14 * (gram[(i + 1) * p + i + 1] / n))) {
      out.check = DesignCheck::VifInfinite;
      out.a = i + 1;
      return out;
    }
    inv_sd[i] = 1.0 / std::sqrt(v);
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < i; ++j) {
      const double r = cov(i + 1, j + 1) * inv_sd[i] * inv_sd[j];
      if (std::fabs(r) > max_corr) {
        out.check = DesignCheck::CorrTooHigh;
        out.a = j + 1;
        out.b = i + 1;
        return out;
      }
      out.worst_corr = std::fmax(out.worst_corr, std::fabs(r));
      corr[i * m + j] = corr[j * m + i] = r;
    }
    corr[i * m + i] = 1.0;
  }
  // Cholesky, then the diagonal of the inverse (the VIFs).
  std::vector<double> l(corr);
  if (!cholesky(l, m)) {
    out.check = DesignCheck::VifInfinite;
    return out;
  }
  const std::vector<double> vifs = cholesky_inverse_diagonal(l, m);
  for (int64_t i = 0; i < m; ++i) {
    const double vif = vifs[i];
    if (!std::isfinite(vif) || vif > max_vif) {
      out.check = std::isfinite(vif) ? DesignCheck::VifTooHigh : DesignCheck::VifInfinite;
      out.a = i + 1;
      return out;
    }
    out.worst_vif = std::fmax(out.worst_vif, vif);
  }
  return out;
}

bool valid_covariance(const std::vector<double>& cov, int64_t p, bool skip_intercept, double min_variance) {
  std::vector<double> sd(static_cast<size_t>(p));
  for (int64_t i = 0; i < p; ++i) {
    const double d = cov[i * p + i];
    if (i > 0 && (d < min_variance || !std::isfinite(d))) return false;
    sd[i] = std::sqrt(d);
  }
  for (int64_t i = 1; i < p; ++i)
    for (int64_t j = skip_intercept ? 1 : 0; j < i; ++j)
      if (cov[i * p + j] > 0.99999 * sd[i] * sd[j]) return false;
  return true;
}

bool covariate_scales_unstable(const std::vector<double>& sums, const std::vector<double>& ssqs, int64_t n) {
  const double nd = static_cast<double>(n);
  double max_ssq = 1.5 * nd, min_centred = 0.0198 * (nd - 1.0);
  for (size_t c = 0; c < sums.size(); ++c) {
    max_ssq = std::max(max_ssq, ssqs[c]);
    min_centred = std::min(min_centred, ssqs[c] - sums[c] * sums[c] / nd);
  }
  return min_centred * 1048576.0 < max_ssq;
}

}  // namespace strata::linalg

namespace strata::linalg {

bool spd_inverse(const std::vector<double>& a, int64_t p, std::vector<double>* inv) {
  std::vector<double> l(a);
  if (!cholesky(l, p)) return false;
  // Columns of L⁻¹ by forward substitution, then (L·Lᵀ)⁻¹ = L⁻ᵀ·L⁻¹.
  std::vector<double> li(static_cast<size_t>(p * p), 0.0);
  for (int64_t c = 0; c < p; ++c)
    for (int64_t i = c; i < p; ++i) {
      double v = i == c ? 1.0 : 0.0;
      for (int64_t t = c; t < i; ++t) v -= l[i * p + t] * li[t * p + c];
      li[i * p + c] = v / l[i * p + i];
    }
  inv->assign(static_cast<size_t>(p * p), 0.0);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double s = 0.0;
      for (int64_t t = i; t < p; ++t) s += li[t * p + i] * li[t * p + j];
      (*inv)[i * p + j] = (*inv)[j * p + i] = s;
    }
  for (double v : *inv)
    if (!std::isfinite(v)) return false;
  return true;
}

bool valid_least_squares(const std::vector<double>& gram, int64_t p, double sigma2) {
  std::vector<double> cov;
  if (!spd_inverse(gram, p, &cov)) return false;
  for (double& v : cov) v *= sigma2;
  return valid_covariance(cov, p);
}

double max_estimate_correlation(const std::vector<double>& gram, int64_t p) {
  std::vector<double> cov;
  if (!spd_inverse(gram, p, &cov)) return INFINITY;
  double worst = 0.0;
  for (int64_t i = 1; i < p; ++i)
    for (int64_t j = 0; j < i; ++j)
      worst = std::fmax(worst, cov[i * p + j] / std::sqrt(cov[i * p + i] * cov[j * p + j]));
  return worst;
}

}  // namespace strata::linalg
