#pragma once
/// \file
/// Multiple-testing corrections of an association scan as plink2 2.00a3.5 `--adjust` writes
/// them (`PREFIX.<PHENO>.glm.linear.adjusted`, `.glm.logistic.hybrid.adjusted`, ...), and the
/// genomic-control λ it logs.
///
/// Every valid test (ERRCODE '.' or UNFINISHED) enters with its natural-log P value. Tests are
/// sorted by P (std::sort on ln P: ties keep the order plink2's sort gives them); the 1-df χ²
/// of each is the inverse of its P (plink2's conversion, asymptotic below P ≈ 5.6e-29); λ is the
/// median χ² / 0.456, at least 1; GC = P of χ²/λ; BONF, HOLM, SIDAK_SS, SIDAK_SD, FDR_BH and
/// FDR_BY follow plink2's formulas in log space.
///
/// \code
/// genomics::AdjustTests t;  // ln P and the leading columns of each valid test, in variant order
/// STRATA_ASSIGN_OR_RETURN(auto o, genomics::parse_adjust_options({"gc", "cols=+qq"}));
/// STRATA_RETURN_NOT_OK(genomics::write_adjusted(o, t, write, &lambda));
/// \endcode

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/result.hpp"

namespace strata {
class ThreadPool;
}

namespace strata::genomics {

/// \brief Columns of the `.adjusted` file, in file order (plink2's `cols=` names).
enum AdjustColumn : uint32_t {
  kAdjustChrom = 1u << 0,
  kAdjustPos = 1u << 1,
  kAdjustRef = 1u << 2,
  kAdjustAlt1 = 1u << 3,
  kAdjustAlt = 1u << 4,
  kAdjustA1 = 1u << 5,
  kAdjustUnadj = 1u << 6,
  kAdjustGc = 1u << 7,
  kAdjustQq = 1u << 8,
  kAdjustBonf = 1u << 9,
  kAdjustHolm = 1u << 10,
  kAdjustSidakSs = 1u << 11,
  kAdjustSidakSd = 1u << 12,
  kAdjustFdrBh = 1u << 13,
  kAdjustFdrBy = 1u << 14,
};
/// plink2's default: chrom, a1, unadj, gc, bonf, holm, sidakss, sidaksd, fdrbh, fdrby.
constexpr uint32_t kAdjustDefaultColumns = kAdjustChrom | kAdjustA1 | kAdjustUnadj | kAdjustGc | kAdjustBonf |
                                           kAdjustHolm | kAdjustSidakSs | kAdjustSidakSd | kAdjustFdrBh |
                                           kAdjustFdrBy;

/// \brief What `--adjust` writes.
struct AdjustOptions {
  bool enabled = false;  ///< write the `.adjusted` file of each phenotype
  bool gc = false;       ///< corrections from the genomic-control P values (plink2 `gc`)
  bool log10 = false;    ///< −log10 P values under `LOG10_` headers (plink2 `log10`)
  uint32_t columns = kAdjustDefaultColumns;
};

/// \brief plink2's `--adjust` modifiers: `gc`, `log10`, `cols=LIST` (LIST: column names, or
/// +name/−name changes of the default set; names as plink2's: chrom, pos, ref, alt1, alt, a1,
/// unadj, gc, qq, bonf, holm, sidakss, sidaksd, fdrbh, fdrby). Invalid for anything else.
Result<AdjustOptions> parse_adjust_options(const std::vector<std::string>& modifiers);

/// \brief The 1-df χ² whose upper tail is exp(ln_p), as plink2 converts it: exact down to
/// ln P = −65.0447, plink2's asymptotic expansion below (its GC column depends on it).
double ln_p_to_chisq(double ln_p);
/// \brief ln of the upper tail of a 1-df χ² (≤ 0; finite where P underflows).
double chisq_to_ln_p(double chisq);
/// \brief A P value given by its natural log, printed as plink2 prints P values (6 significant
/// digits, `%g`-style; values below DBL_MIN keep their mantissa and exponent).
std::string format_plink_ln(double ln_p);

/// \brief Genomic control of one phenotype's tests.
struct GcLambda {
  int64_t tests = 0;                     ///< valid tests
  double median_chisq = std::nan("");    ///< median 1-df χ² of their P values
  double lambda = std::nan("");          ///< median_chisq / 0.456, at least 1 (plink2's estimate)
};
/// \brief plink2's λ of the tests with these natural-log P values (NaN ones are left out).
GcLambda genomic_control_lambda(const std::vector<double>& ln_p);

/// \brief One phenotype's valid tests, in variant order.
struct AdjustTests {
  std::vector<double> ln_p;
  std::vector<std::string> labels;  ///< each test's leading columns (adjust_label())
};
/// \brief The leading columns of a test's row under `o.columns` (CHROM POS ID REF ALT1 ALT A1,
/// those asked), tab-separated.
std::string adjust_label(const AdjustOptions& o, std::string_view chrom, std::string_view pos, std::string_view id,
                         std::string_view ref, std::string_view alt, std::string_view a1);
/// \brief The `.adjusted` header line (with its newline).
std::string adjusted_header(const AdjustOptions& o);
/// \brief The sorted, corrected rows of `tests` (header excluded) through `write`, in pieces of
/// 8,192 rows (computed and formatted on `pool` when given; the bytes do not depend on it);
/// `lambda` (optional) gets the genomic control. No rows when there are no tests.
Status write_adjusted_rows(const AdjustOptions& o, const AdjustTests& tests,
                           const std::function<Status(const std::string&)>& write, GcLambda* lambda = nullptr,
                           ThreadPool* pool = nullptr);

}  // namespace strata::genomics
