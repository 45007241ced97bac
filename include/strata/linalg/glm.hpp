#pragma once
/// \file
/// Generalized linear models on a chunked matrix (`strata glm`): dask-glm's families (normal,
/// logistic, Poisson), regularizers (l1, l2, elastic net) and solvers (Newton, L-BFGS, ADMM,
/// gradient descent, proximal gradient), run out of core. X is read through a RowBlockSource in
/// a fixed grid of row blocks (kRowBlockBytes of decoded rows: the grid depends on the shape
/// only), every evaluation is one pass of the pass engine, and per-block partials are summed
/// in a fixed binary tree (strata/core/tree_sum.hpp): the coefficients are the same bits for
/// any thread count and any storage chunking. Decoded blocks stay resident when X fits half
/// the memory budget (GlmResult::resident), else every pass re-reads them.
///
/// Definitions follow dask-glm 0.4.0 (docs/architecture.md, "GLM"): the loss is a sum over
/// rows (normal Σ(y − η)², logistic Σ log(1 + e^η) − yη, Poisson Σ e^η − yη), a penalty adds
/// λ·R(β) with R = ‖β‖₁, ‖β‖²/2 or α‖β‖₁ + (1 − α)‖β‖²/2, every coefficient (the intercept
/// too) is penalized, and X is used as given (dask-glm's `normalize=False`). Unpenalized fits
/// get statsmodels' Wald statistics: z for logistic and Poisson, t with σ² = RSS/(n − p) for
/// normal.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto x, linalg::open_zarr_source("X.zarr"));
/// linalg::GlmParams p;
/// p.family = linalg::GlmFamily::Logistic;
/// p.solver = linalg::GlmSolver::Newton;
/// STRATA_ASSIGN_OR_RETURN(linalg::GlmResult fit, linalg::fit_glm(ctx, *x, y, p));
/// \endcode

#include <limits>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/linalg/row_blocks.hpp"

namespace strata::linalg {

enum class GlmFamily : uint8_t { Normal, Logistic, Poisson };
enum class GlmSolver : uint8_t { Newton, Lbfgs, Admm, GradientDescent, ProximalGradient };
enum class GlmPenalty : uint8_t { None, L1, L2, ElasticNet };

/// Parse the CLI spellings ("normal", "lbfgs", "proximal-gradient", "elastic-net", …):
/// Invalid listing the accepted names otherwise. `*_name` gives the spelling back.
Result<GlmFamily> parse_glm_family(std::string_view name);
Result<GlmSolver> parse_glm_solver(std::string_view name);
Result<GlmPenalty> parse_glm_penalty(std::string_view name);
const char* glm_family_name(GlmFamily f);
const char* glm_solver_name(GlmSolver s);
const char* glm_penalty_name(GlmPenalty p);

/// max_iter / tol left at these take the solver's default: values no caller passes by accident
/// (a negative tol or max_iter is an error, as in the CLI, not "the default").
inline constexpr int64_t kGlmDefaultMaxIter = std::numeric_limits<int64_t>::min();
inline constexpr double kGlmDefaultTol = std::numeric_limits<double>::quiet_NaN();

/// \brief What to fit. max_iter / tol at kGlmDefaultMaxIter / kGlmDefaultTol mean the solver's dask-glm default
/// (max_iter: newton 50, lbfgs 100, gradient-descent 100, proximal-gradient 100, admm 250;
/// tol: newton 1e-8 (max |Δβ|), lbfgs 1e-4 (max |gradient|), gradient-descent 1e-14 and
/// proximal-gradient 1e-8 (relative decrease of the objective); admm stops on abstol/reltol).
struct GlmParams {
  GlmFamily family = GlmFamily::Logistic;
  GlmSolver solver = GlmSolver::Newton;
  GlmPenalty penalty = GlmPenalty::None;
  double lambda = 1.0;   ///< penalty weight λ (dask-glm's lamduh)
  double alpha = 0.5;    ///< elastic net: weight of the l1 part (dask-glm's ElasticNet weight)
  bool intercept = false;  ///< append a column of ones (its coefficient comes last)
  int64_t max_iter = kGlmDefaultMaxIter;
  double tol = kGlmDefaultTol;  ///< NaN: the default (Python's tol=None)
  /// lbfgs: stop when the relative decrease of the objective is at most ftol (scipy's
  /// factr·eps; dask-glm runs scipy's default factr 1e7 = 2.22e-9). 0 = only the gradient test.
  double ftol = 1e7 * 2.220446049250313e-16;
  double rho = 1.0, over_relax = 1.0, abstol = 1e-4, reltol = 1e-2;  ///< admm (dask-glm defaults)
};

/// \brief A tolerance or iteration limit a user gave (the CLI's --tol/--max-iter, Python's
/// tol=/max_iter=): Invalid unless a finite tol > 0 / max_iter ≥ 1. validate_glm_params applies
/// them to every value other than the defaults; the front ends call them on what the user gave.
Status check_glm_tol(double tol);
Status check_glm_max_iter(int64_t max_iter);

/// \brief Invalid when the combination cannot be fitted: a penalty with newton or
/// gradient-descent (dask-glm's take none), l1/elastic-net with lbfgs (not differentiable),
/// λ < 0, α outside [0, 1], max_iter < 1, tol ≤ 0, rho ≤ 0.
Status validate_glm_params(const GlmParams& p);

/// \brief One iteration of a solver, for the report.
struct GlmIteration {
  int64_t iteration = 0;
  double objective = 0;   ///< loss + penalty at the iterate the iteration ends on
  double change = 0;      ///< the solver's convergence measure (see GlmParams::tol)
  double step = 0;        ///< step size taken (1 for newton)
  int64_t passes = 0;     ///< passes over X this iteration
};

struct GlmResult {
  std::vector<std::string> terms;  ///< x0, x1, …, then "intercept"
  std::vector<double> coef;
  bool has_stats = false;          ///< unpenalized: se/stat/p filled (NaN where not defined)
  std::vector<double> se, stat, p;
  bool t_stat = false;             ///< normal family: t with df = n − p, else z
  double df_resid = 0;
  double objective = 0;            ///< loss + penalty at coef
  int64_t iterations = 0;
  int64_t passes = 0;              ///< passes over X, the statistics pass included
  bool converged = false;
  bool resident = false;           ///< decoded X kept in memory across passes
  int64_t rows = 0, block_rows = 0, blocks = 0;
  std::vector<GlmIteration> log;
  std::vector<std::string> warnings;
  /// The design checks (every solver): "." or plink2's ERRCODE of the predictors
  /// (CORR_TOO_HIGH, VIF_INFINITE, VIF_TOO_HIGH; INVALID_RESULT for an unusable covariance),
  /// and whether the logistic fit separates the classes. Collinear, invalid or separated
  /// unpenalized fits have NA statistics; each adds a warning.
  std::string design_check = ".";
  bool separation = false;
};

/// \brief Fit y ~ X. y has x.rows() finite values (0/1 for logistic, ≥ 0 for Poisson:
/// InvalidData otherwise, naming the first bad row); non-finite X is InvalidData from the
/// source. Runs on ctx's threads and budget (rank 0's work alone under MPI).
Result<GlmResult> fit_glm(const Context& ctx, const RowBlockSource& x, std::span<const double> y,
                          const GlmParams& params);

/// \brief Read a response vector from a `.npy` file: shape (n,) or (n, 1), any numeric dtype
/// (bool is refused), converted to float64. Errors name the file.
Result<std::vector<double>> read_npy_vector(const std::string& path);

/// \brief `P.coef.tsv`: `#TERM COEF SE STAT P`, tab-separated, a row per coefficient; SE,
/// STAT and P are NA for penalized fits (and where a statistic is not defined).
std::string format_glm_coefficients(const GlmResult& fit);

/// \brief The report fields of a fit (family, solver, ..., iterations, objective, the iteration
/// log, warnings): the CLI's `--report` and Python's result carry the same.
Summary glm_result_summary(const GlmResult& fit, const GlmParams& params);

struct GlmRunSummary {
  GlmResult fit;
  std::vector<std::string> files;
  Summary report;  ///< the report fields (the CLI's --report)
};
/// \brief `strata glm`: open X (a Zarr array path or URL), read y (.npy), check both, fit,
/// write `out_prefix.coef.tsv` atomically. Nothing is written on failure.
Result<GlmRunSummary> run_glm_to_files(const Context& ctx, const std::string& x_path, const std::string& y_path,
                                       const std::string& out_prefix, const GlmParams& params);

}  // namespace strata::linalg
