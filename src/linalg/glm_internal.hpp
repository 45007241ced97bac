#pragma once
// Internals of strata glm: the family's row terms, the block kernel, the data (X's fixed row
// blocks, resident or streamed, and y) with its passes, the L-BFGS core and the solvers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "linalg/pass_internal.hpp"
#include "strata/core/buffer.hpp"
#include "strata/linalg/glm.hpp"
#include "strata/linalg/glm_remote.hpp"

namespace strata::backend {
class Backend;
}

namespace strata::linalg::glm_detail {

/// Largest |a[i]| (0 for an empty vector): the solvers' step and gradient tests.
inline double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

/// What a block evaluation sums.
enum Want : unsigned { kLoss = 1, kGrad = 2, kHess = 4 };

/// Sum of the family's loss over n rows at linear predictors eta; r[i] = ∂loss/∂η and, when
/// w is not null, w[i] = ∂²loss/∂η² (dask-glm's scaling: normal (y − η)², so r = 2(η − y), w = 2).
double row_terms(GlmFamily f, const double* eta, const double* y, int64_t n, double* r, double* w);

/// Over the rows of one block (row-major rows × p at x, responses y): adds the loss to *loss,
/// Xᵀr to grad (p) and XᵀWX to the lower triangle of hess (p × p row-major) as asked.
/// The linear predictor is X·beta, or eta_in when given; eta_out (rows) receives it. Rows run
/// in fixed sub-blocks in order, so the sums do not depend on anything but the block. xmax, when
/// given, receives max |x| over the block.
Status block_eval(const backend::Backend& be, GlmFamily f, const double* x, const double* y, int64_t rows, int64_t p,
                  const double* beta, unsigned want, double* loss, double* grad, double* hess,
                  const double* eta_in = nullptr, double* eta_out = nullptr, double* xmax = nullptr);

/// Totals of one evaluation.
struct Eval {
  double loss = 0;
  std::vector<double> grad;  // p
  std::vector<double> hess;  // p × p, both triangles
};

/// X (with the intercept column appended when asked) in a fixed grid of row blocks, and y:
/// the blocks read here (a RowBlockSource) or held elsewhere (a GlmBlockRunner). Every pass runs
/// one GlmBlockTask on each block through glm_block_partial(), here or where the block is.
class GlmData {
 public:
  static Result<std::unique_ptr<GlmData>> make(const Context& ctx, const RowBlockSource& x, std::span<const double> y,
                                               bool intercept, GlmFamily family);
  static Result<std::unique_ptr<GlmData>> make_remote(const Context& ctx, int64_t rows, int64_t cols,
                                                      std::shared_ptr<GlmBlockRunner> runner,
                                                      std::span<const double> y, bool intercept, GlmFamily family);
  int64_t rows() const { return plan_.rows; }
  int64_t p() const { return p_; }
  const BlockPlan& plan() const { return plan_; }
  bool resident() const { return resident_; }
  int64_t passes() const { return passes_; }
  const double* y() const { return y_.data(); }
  const Context& ctx() const { return ctx_; }
  /// max |x| over X (the intercept's ones included), found by the first Hessian pass; −1 before.
  double x_abs_max() const { return x_abs_max_; }
  GlmFamily family() const { return family_; }
  bool has_intercept() const { return intercept_; }

  /// One pass of `task` over every block (per-block inputs sliced from eta, u, betas as
  /// GlmBlockRunner::run says): each block's output goes to each(b, output) in block order (may be
  /// empty), its partial is summed in the fixed tree into *total (null: not summed).
  using EachFn = std::function<Status(int64_t b, GlmBlockOutput& out)>;
  Status run(const std::string& label, const GlmBlockTask& task, std::span<const double> eta, std::span<const double> u,
             std::span<const double> betas, std::vector<double>* total, const EachFn& each);

  /// Loss, gradient and Hessian at beta (one pass); eta (n) is used instead of X·beta when given
  /// and receives X·beta when eta_out is given.
  Status evaluate(const std::vector<double>& beta, unsigned want, Eval* out, const std::vector<double>* eta_in = nullptr,
                  std::vector<double>* eta_out = nullptr);
  /// out = X·v (n values; one pass).
  Status multiply(const std::vector<double>& v, std::vector<double>* out);

 private:
  GlmData(const Context& ctx, const RowBlockSource* x) : ctx_(ctx), x_(x) {}
  Status load_resident();
  Status run_here(const std::string& label, const GlmBlockTask& task, std::span<const double> eta,
                  std::span<const double> u, std::span<const double> betas,
                  const std::function<Status(int64_t, GlmBlockOutput&&)>& accept);

  Context ctx_;
  const RowBlockSource* x_ = nullptr;        // blocks read here, or
  std::shared_ptr<GlmBlockRunner> runner_;  // blocks held elsewhere
  std::vector<double> y_;
  int64_t cols_ = 0, p_ = 0;
  bool intercept_ = false, resident_ = false;
  int64_t group_ = 1;  // blocks per work item (streamed: per read)
  GlmFamily family_ = GlmFamily::Logistic;
  BlockPlan plan_;
  Buffer resident_rows_;            // resident: all rows, row-major n × p
  const double* resident_base_ = nullptr;  // resident_rows_, or the source's own memory
  ScratchPool scratch_;
  int64_t passes_ = 0;
  double x_abs_max_ = -1;
  std::unique_ptr<ProgressScope> progress_;
};

/// The penalty λ·R(β) and its proximal operator prox_{t·R} (t already includes λ).
double penalty_value(const GlmParams& p, const std::vector<double>& beta);
void penalty_prox(const GlmParams& p, double t, std::vector<double>& beta);

/// L-BFGS (two-loop recursion, weak Wolfe line search) for smooth objectives: scipy's
/// fmin_l_bfgs_b stopping rules without bounds (max |g| ≤ pgtol, relative decrease ≤ ftol).
struct LbfgsOptions {
  int64_t memory = 10;
  double pgtol = 1e-5, ftol = 1e7 * 2.220446049250313e-16;
  int64_t max_iter = 15000, max_evals = 15000;
};
struct LbfgsOutcome {
  int64_t iterations = 0, evals = 0;
  bool converged = false;
  double f = 0;
};
using Objective = std::function<Status(const std::vector<double>& x, double* f, std::vector<double>* g)>;
Result<LbfgsOutcome> lbfgs_minimize(const Objective& fg, std::vector<double>& x, const LbfgsOptions& o,
                                    const std::function<void(const GlmIteration&)>& on_iteration = {});

/// Solve h·s = g (h p × p symmetric, both triangles): Cholesky, or the minimum-norm least-squares
/// solution (dask-glm's np.linalg.lstsq) when h is not positive definite.
Result<std::vector<double>> solve_symmetric(const Context& ctx, std::vector<double> h, const std::vector<double>& g,
                                            int64_t p);

/// The solvers: fill res->coef, iterations, converged, log. Newton also fills *at_final with the
/// loss and Hessian at the returned β when its last pass's Hessian stands for them (see
/// solve_newton), else leaves at_final->hess empty.
Status solve_newton(GlmData& d, const GlmParams& p, GlmResult* res, Eval* at_final);
Status solve_lbfgs(GlmData& d, const GlmParams& p, GlmResult* res);
Status solve_gradient_descent(GlmData& d, const GlmParams& p, GlmResult* res);
Status solve_proximal_gradient(GlmData& d, const GlmParams& p, GlmResult* res);
Status solve_admm(GlmData& d, const GlmParams& p, GlmResult* res);

/// After any solver (one pass): collinearity of the columns (plink2's max-corr and VIF checks;
/// a constant column besides the intercept, an all-zero column), and for the logistic family
/// separation (rows fitted with certainty). Each adds a warning and sets design_check /
/// separation; collinear (not merely VIF_TOO_HIGH) or separated fits get NA statistics.
Status check_design(GlmData& d, const GlmParams& params, GlmResult* res);

}  // namespace strata::linalg::glm_detail
