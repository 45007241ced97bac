// strata gwas: plink2's ERRCODE names and its max-corr/VIF check (P-values: strata/linalg/stats.hpp).
#include <cmath>

#include "gwas_internal.hpp"

namespace strata::genomics::gwas_detail {

const char* err_text(Err e) {
  static const char* const kNames[] = {".",
                                       "SAMPLE_CT<=PREDICTOR_CT",
                                       "CONST_OMITTED_ALLELE",
                                       "CONST_ALLELE",
                                       "CORR_TOO_HIGH",
                                       "VIF_INFINITE",
                                       "VIF_TOO_HIGH",
                                       "SEPARATION",
                                       "RANK_DEFICIENT",
                                       "LOGISTIC_CONVERGE_FAIL",
                                       "FIRTH_CONVERGE_FAIL",
                                       "INVALID_RESULT"};
  return kNames[static_cast<int>(e)];
}

Err check_corr_and_vif(const std::vector<double>& gram, int64_t p, double max_corr, double max_vif,
                       double* worst_corr, double* worst_vif) {
  const int64_t m = p - 1;  // predictors without the intercept
  if (worst_corr) *worst_corr = 0.0;
  if (worst_vif) *worst_vif = 1.0;
  if (m <= 0) return Err::Ok;
  const double n = gram[0];
  std::vector<double> corr(static_cast<size_t>(m * m)), inv_sd(static_cast<size_t>(m));
  auto cov = [&](int64_t i, int64_t j) {  // predictor indices ≥ 1
    return (gram[i * p + j] - gram[i] * gram[j] / n) / (n - 1.0);
  };
  for (int64_t i = 0; i < m; ++i) inv_sd[i] = 1.0 / std::sqrt(cov(i + 1, i + 1));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < i; ++j) {
      const double r = cov(i + 1, j + 1) * inv_sd[i] * inv_sd[j];
      if (std::fabs(r) > max_corr) return Err::CorrTooHigh;
      if (worst_corr) *worst_corr = std::fmax(*worst_corr, std::fabs(r));
      corr[i * m + j] = corr[j * m + i] = r;
    }
    corr[i * m + i] = 1.0;
  }
  // Cholesky, then the diagonal of the inverse (the VIFs).
  std::vector<double> l(corr);
  if (!cholesky(l, m)) return Err::VifInfinite;
  const std::vector<double> vifs = linalg::cholesky_inverse_diagonal(l, m);
  for (int64_t i = 0; i < m; ++i) {
    const double vif = vifs[i];
    if (!std::isfinite(vif)) return Err::VifInfinite;
    if (vif > max_vif) return Err::VifTooHigh;
    if (worst_vif) *worst_vif = std::fmax(*worst_vif, vif);
  }
  return Err::Ok;
}

}  // namespace strata::genomics::gwas_detail
