#pragma once
/// \file
/// Small numeric helpers of the statistical fits (strata gwas, strata glm): two-sided tail
/// probabilities of Student t and normal statistics, the normal quantile, and a Cholesky
/// factorization for the small p × p systems of a fit.

#include <cstdint>
#include <vector>

namespace strata::linalg {

/// \brief Two-sided P of a Student t statistic with `df` degrees of freedom (regularized
/// incomplete beta in log space, so tiny tails keep their relative accuracy); NaN for NaN.
double p_from_t(double t, double df);
/// \brief Two-sided P of a standard normal statistic z.
double p_from_z(double z);
/// \brief ln of p_from_t(), kept finite where P itself underflows (the tail's continued
/// fraction in log space); −inf only for an infinite statistic.
double ln_p_from_t(double t, double df);
/// \brief ln of p_from_z(), kept finite where P itself underflows (asymptotic expansion of
/// erfc beyond |z| = 37).
double ln_p_from_z(double z);
/// \brief The standard normal quantile of p (−inf at 0, +inf at 1).
double normal_quantile(double p);
/// \brief Cholesky (lower) of the p × p symmetric `a` (row-major, lower triangle read) in
/// place; false if it is not positive definite or not finite.
bool cholesky(std::vector<double>& a, int64_t p);
/// \brief The diagonal of (L·Lᵀ)⁻¹ from the factor cholesky() left in `l`: entry j = ‖L⁻¹e_j‖²
/// (variances of a fit, VIFs of a correlation matrix).
std::vector<double> cholesky_inverse_diagonal(const std::vector<double>& l, int64_t p);

}  // namespace strata::linalg
