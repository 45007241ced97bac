#pragma once
/// \file
/// Checks of a regression design shared by `strata gwas` (linear and logistic) and `strata glm`
/// (every solver), after plink2's --glm (plink2_glm*.cc): the max-corr and VIF check of the
/// predictors (--max-corr 0.999, --vif 50), its validParameters() check of a fitted covariance
/// matrix, and its covariate scale check. A fit that fails one gets plink2's ERRCODE
/// (CORR_TOO_HIGH, VIF_INFINITE, VIF_TOO_HIGH, INVALID_RESULT) instead of numbers.

#include <cstdint>
#include <string>
#include <vector>

namespace strata::linalg {

enum class DesignCheck : uint8_t { Ok, CorrTooHigh, VifInfinite, VifTooHigh };
/// plink2's ERRCODE for a failed check ("." for Ok).
const char* design_check_name(DesignCheck c);

/// \brief The outcome of check_corr_and_vif() with where it failed or its worst values.
struct CorrVifResult {
  DesignCheck check = DesignCheck::Ok;
  int64_t a = -1, b = -1;   ///< predictors (indices into the Gram, ≥ 1) behind a failure
  double worst_corr = 0;    ///< largest |correlation| between two predictors (when it passes)
  double worst_vif = 1;     ///< largest VIF (when it passes)
};

/// \brief plink2's max-corr and VIF check of the predictors 1..p−1 from the Gram matrix of
/// [intercept, predictors] (`gram` p × p row-major over the regression samples, column 0 the
/// intercept: gram[0] = n, gram[i] = Σ predictor i). Correlations are centred (the intercept
/// is not a predictor); a constant predictor has an undefined correlation and fails as
/// VIF_INFINITE.
CorrVifResult check_corr_and_vif(const std::vector<double>& gram, int64_t p, double max_corr = 0.999,
                                 double max_vif = 50.0);

/// \brief plink2's validParameters(): `cov` (p × p row-major, both triangles; index 0 the
/// intercept) is usable when every variance but the intercept's is finite and ≥ 1e-20 and no
/// two estimates correlate above 0.99999. `skip_intercept`: the intercept's row is not read.
/// `min_variance` is the floor (1e-20; (XᵀX)⁻¹ against 1e-20/σ² checks σ²·(XᵀX)⁻¹).
bool valid_covariance(const std::vector<double>& cov, int64_t p, bool skip_intercept = false,
                      double min_variance = 1e-20);

/// \brief plink2's covariate scale check (plink2_glm_shared.cc, "scales vary too widely"):
/// over n samples, with each covariate's Σx and Σx² (`sums`, `ssqs`), the largest Σx² (at
/// least 1.5·n, a genotype's) exceeds 2²⁰ times the smallest centred sum of squares (at most
/// 0.0198·(n − 1), a genotype with MAF 0.01). plink2 refuses such a design; strata rescales.
bool covariate_scales_unstable(const std::vector<double>& sums, const std::vector<double>& ssqs, int64_t n);

/// \brief Whether the residual sum of squares `rss` of a least-squares fit is zero to rounding
/// relative to the response's centred sum of squares `sst` (the predictors reproduce y: a
/// covariate equal to the phenotype). Statistics of such a fit are INVALID_RESULT.
inline bool exact_fit(double rss, double sst) { return !(rss > 1e-20 * sst); }

}  // namespace strata::linalg

namespace strata::linalg {

/// \brief The inverse of the symmetric positive definite p × p `a` (row-major, both
/// triangles); false when it is not positive definite.
bool spd_inverse(const std::vector<double>& a, int64_t p, std::vector<double>* inv);

/// \brief plink2's validParameters() for a least-squares fit with Gram `gram` (p × p, [intercept,
/// predictors]) and residual variance `sigma2`: the covariance σ²·(XᵀX)⁻¹ must pass
/// valid_covariance(). False also when the Gram is singular.
bool valid_least_squares(const std::vector<double>& gram, int64_t p, double sigma2);

/// \brief The largest correlation between two estimates of a fit with information matrix
/// `gram` (positive values only, as validParameters() reads them); +inf when it is singular.
double max_estimate_correlation(const std::vector<double>& gram, int64_t p);

}  // namespace strata::linalg
