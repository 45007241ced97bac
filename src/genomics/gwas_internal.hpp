#pragma once
// Internals of strata gwas shared by its files: the per-phenotype-group model data, per-variant
// results and ERRCODEs, the statistics and the per-variant fits.
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/genomics/gwas.hpp"
#include "strata/linalg/stats.hpp"

namespace strata {
class Context;
}
namespace strata::backend {
class Backend;
}

namespace strata::genomics::gwas_detail {

// plink2's ERRCODE values (plink2_glm_shared: kGlmErrcodeStrs order).
enum class Err : uint8_t {
  Ok = 0,
  SampleCtLtePredictorCt,
  ConstOmittedAllele,
  ConstAllele,
  CorrTooHigh,
  VifInfinite,
  VifTooHigh,
  Separation,
  RankDeficient,
  LogisticConvergeFail,
  FirthConvergeFail,
  InvalidResult,
};
const char* err_text(Err e);

// Phenotypes that share one sample set S and one model kind.
struct Group {
  bool logistic = false;
  std::vector<int64_t> samples;  // input sample indices of S, ascending
  int64_t k = 0;                 // covariate columns including the intercept (column 0)
  std::vector<double> c;         // |S| × k covariates, row-major (values as plink2 holds them: float)
  std::vector<double> ct;        // k × |S|: c transposed (logistic groups)
  std::vector<double> cy;        // P × k: Σ_S c_i·y per phenotype (logistic groups)
  std::vector<double> q;         // |S| × k, C = Q·R, QᵀQ = I (linear groups)
  std::vector<double> r;         // k × k upper triangle of R, row-major (linear groups)
  std::vector<double> cc;        // k × k CᵀC over S (the VIF check)
  std::vector<int64_t> pos;      // position in S of each input sample, −1 outside (linear groups)
  double cov_corr = 0, cov_vif = 1;  // largest |correlation| and VIF among the covariates over S
  std::vector<int> phenos;       // indices into the run's phenotype list
  std::vector<double> y;         // |S| × P row-major: residualized (linear) or 0/1 (logistic)
  std::vector<double> yy;        // linear: y_rᵀy_r per phenotype
  std::vector<double> sst;       // linear: Σ(y − ȳ)² over S per phenotype (exact-fit test)
  double cc_diag_max = 0;        // linear: largest diagonal element of cc
  bool est_corr_risk = false;    // linear: covariate estimates correlate near plink2's 0.99999
  int64_t col0 = 0;              // linear: first column of [Q | Y_r] in the block product
  // Columns in the block product: Q, Y_r, the indicator of S (gives Σ_S g).
  int64_t width() const { return k + static_cast<int64_t>(phenos.size()) + 1; }
};

// One variant × phenotype result.
struct Fit {
  Err err = Err::Ok;
  char separation_allele = 0;  // 'R' (REF) or 'A' (ALT1) for Err::Separation
  bool firth = false;
  bool unfinished = false;  // hit the iteration limit: values printed, ERRCODE UNFINISHED (plink2)
  int64_t obs = 0;
  double beta = 0, se = 0, stat = 0, p = 1;
  double ln_p = 0;  // ln p, finite where p underflows (--adjust and λ use it, as plink2 does)
};

// Per-variant facts shared by the fits of a group.
struct VariantData {
  bool flip = false;            // A1 = REF: the predictor is 2 − ALT dosage
  int64_t counts[4] = {0, 0, 0, 0};  // ALT dosage codes over S (3 = missing)
  std::vector<int64_t> missing; // positions in S with a missing call
  // A dosage source: counts stay 0; the ALT dosage sum over S \ missing and whether it is constant.
  bool dosage = false;
  double sum_g = 0.0;
  bool constant = false;
};

// P-values, the normal quantile and the small Cholesky live in linalg (shared with strata glm).
using linalg::cholesky;
using linalg::normal_quantile;
using linalg::p_from_t;
using linalg::p_from_z;

// plink2's max-corr and VIF check of the non-intercept predictors from their Gram matrix
// (intercept first; `gram` p × p row-major over the regression samples). When it passes, the
// largest |correlation| and VIF are returned through the optional pointers.
Err check_corr_and_vif(const std::vector<double>& gram, int64_t p, double max_corr, double max_vif,
                       double* worst_corr = nullptr, double* worst_vif = nullptr);

// Scratch buffers of linear_fits(), reused across variants by one worker; `be` sums the missing
// samples' products (weighted_gram_rows: the same bits on every backend) from their rows of the
// block product's right-hand side (qy: input sample s's row at s · qy_stride, a group's
// [Q | Y_r] from its col0).
struct LinearScratch {
  const backend::Backend* be = nullptr;
  const double* qy = nullptr;
  int64_t qy_stride = 0;
  std::vector<double> a, by, yy_miss, zg, zy, dots, cc, gram, inv;
  std::vector<double> rows, ones, hm, hr;  // the missing samples' rows, their Gram, H·R
};

// Linear statistics of one group and variant from the block product row `prod` (Qᵀg then
// gᵀY_r; g = ALT dosage, 0 for missing calls), the sum of squared dosages over S, and the
// missing samples' correction.
Status linear_fits(const Group& g, const VariantData& v, const double* prod, double sum_g2, const GwasOptions& o,
                   LinearScratch& scratch, Fit* out);

// Scratch buffers of logistic_fit(), reused across variants by one worker.
struct LogisticScratch {
  std::vector<double> x, y, h, grad;
  std::vector<int64_t> missing;  // positions in S of the variant's missing calls
};

// Logistic (with plink2's Firth fallback) of one phenotype of a logistic group; `x` holds the
// A1 dosage of each sample of S (NaN for missing calls); `flip`: A1 is REF.
void logistic_fit(const Context* ctx, const Group& g, int pheno_in_group, const std::vector<double>& x, bool flip,
                  const GwasOptions& o, LogisticScratch& scratch, Fit* out);

}  // namespace strata::genomics::gwas_detail
