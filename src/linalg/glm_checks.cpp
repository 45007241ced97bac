// strata glm: the design checks after a fit, the same for every solver (one pass over X): the
// predictors' collinearity (plink2's max-corr and VIF checks, strata/linalg/design_checks.hpp),
// validParameters() of the Wald covariance, and, for the logistic family, separation (rows the
// fit predicts with certainty: the likelihood has no finite maximum there).
#include <cmath>
#include <string>

#include "linalg/glm_internal.hpp"
#include "strata/linalg/design_checks.hpp"

namespace strata::linalg::glm_detail {
namespace {

std::string term(const GlmResult& res, int64_t j) { return res.terms[static_cast<size_t>(j)]; }

}  // namespace

Status check_design(GlmData& d, const GlmParams& params, GlmResult* res) {
  const int64_t p = d.p();
  const bool logistic = d.family() == GlmFamily::Logistic;
  // Partial per block (glm_block_partial's Design task): XᵀX (p × p), Σx (p), then rows fitted
  // with certainty on their own outcome (logistic).
  GlmBlockTask task;
  task.op = GlmBlockOp::Design;
  task.family = d.family();
  task.beta = res->coef;
  std::vector<double> total;
  STRATA_RETURN_NOT_OK(d.run("glm design checks", task, {}, {}, {}, &total, nullptr));
  std::vector<double> xtx(static_cast<size_t>(p * p));
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j <= i; ++j) xtx[i * p + j] = xtx[j * p + i] = total[i * p + j];
  const double* sums = &total[p * p];
  const double n = static_cast<double>(d.rows());

  // The intercept: --intercept's column, else the first constant column of X. Other constant
  // columns are collinear with it.
  std::vector<int64_t> constant;
  for (int64_t j = 0; j < p; ++j)
    if (!(xtx[j * p + j] - sums[j] * sums[j] / n > 1e-14 * xtx[j * p + j]) && xtx[j * p + j] > 0) constant.push_back(j);
  int64_t icpt = params.intercept ? p - 1 : (constant.empty() ? -1 : constant[0]);
  bool collinear = false, reported = false;
  std::string why;
  for (int64_t j = 0; j < p; ++j)
    if (xtx[j * p + j] == 0) {
      collinear = true;
      why = term(*res, j) + " is all zeros";
    }
  for (int64_t j : constant)
    if (j != icpt && !collinear) {
      collinear = true;
      why = term(*res, j) + " is constant, collinear with " + term(*res, icpt);
    }
  if (!collinear) {
    // Gram of [intercept, the other columns]: plink2's centred checks when the model has an
    // intercept; without one, the columns' own Gram with the first column standing in for it
    // is not meaningful, so only exact collinearity (a singular XᵀX) is checked.
    std::vector<int64_t> order;
    if (icpt >= 0) order.push_back(icpt);
    for (int64_t j = 0; j < p; ++j)
      if (j != icpt) order.push_back(j);
    if (icpt >= 0) {
      std::vector<double> gram(static_cast<size_t>(p * p));
      for (int64_t a = 0; a < p; ++a)
        for (int64_t b = 0; b < p; ++b) gram[a * p + b] = xtx[order[a] * p + order[b]];
      // The intercept's column of ones: gram[0] = n and gram[i] = Σ column i.
      const CorrVifResult c = check_corr_and_vif(gram, p);
      if (c.check != DesignCheck::Ok) {
        const bool fatal = c.check != DesignCheck::VifTooHigh;
        const std::string what =
            c.check == DesignCheck::CorrTooHigh
                ? term(*res, order[c.a]) + " and " + term(*res, order[c.b]) + " correlate above 0.999"
                : c.a > 0 ? term(*res, order[c.a]) + "'s VIF is " + (fatal ? "infinite" : "above 50")
                          : std::string("the columns are linearly dependent");
        res->design_check = design_check_name(c.check);
        res->warnings.push_back(std::string("collinear design (") + design_check_name(c.check) + ", plink2's checks): " +
                                what + (fatal && res->has_stats ? "; SE, STAT and P are NA" : ""));
        collinear = fatal;
        reported = true;
      }
    } else {
      std::vector<double> inv;
      if (!spd_inverse(xtx, p, &inv)) {
        collinear = true;
        why = "XᵀX is singular (a column is a linear combination of the others)";
      }
    }
  }
  if (collinear && !reported) {
    res->design_check = "VIF_INFINITE";
    res->warnings.push_back("collinear design (VIF_INFINITE): " + why + (res->has_stats ? "; SE, STAT and P are NA" : ""));
  }
  const double certain = total[p * p + p];
  if (logistic && certain > 0) {
    res->separation = true;
    res->warnings.push_back(
        "separation suspected: " + std::to_string(static_cast<int64_t>(certain)) + " of " +
        std::to_string(d.rows()) +
        " rows are fitted with probability within 1e-10 of their outcome, so the likelihood has no finite "
        "maximum and the coefficients grow without bound" +
        (res->has_stats ? "; SE, STAT and P are NA" : "") + " (Firth regression, strata gwas --firth, is the remedy)");
  }
  if (res->has_stats && (collinear || res->separation)) {
    const double nan = std::nan("");
    for (int64_t j = 0; j < p; ++j) res->se[j] = res->stat[j] = res->p[j] = nan;
  }
  return Status::OK();
}

}  // namespace strata::linalg::glm_detail
