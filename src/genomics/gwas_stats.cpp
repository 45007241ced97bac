// strata gwas: plink2's ERRCODE names and its max-corr/VIF check (P-values: strata/linalg/stats.hpp).
#include <cmath>

#include "gwas_internal.hpp"
#include "strata/linalg/design_checks.hpp"

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
  const linalg::CorrVifResult r = linalg::check_corr_and_vif(gram, p, max_corr, max_vif);
  if (worst_corr) *worst_corr = r.worst_corr;
  if (worst_vif) *worst_vif = r.worst_vif;
  switch (r.check) {
    case linalg::DesignCheck::Ok: return Err::Ok;
    case linalg::DesignCheck::CorrTooHigh: return Err::CorrTooHigh;
    case linalg::DesignCheck::VifInfinite: return Err::VifInfinite;
    case linalg::DesignCheck::VifTooHigh: return Err::VifTooHigh;
  }
  return Err::Ok;
}

}  // namespace strata::genomics::gwas_detail
