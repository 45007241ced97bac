#pragma once
/// \file
/// strata glm with X held elsewhere (Dask workers): every pass of every solver and of the
/// statistics and design checks is one GlmBlockTask run on each of X's fixed row blocks by
/// glm_block_partial() where the block is; the driver sums the blocks' partials in the same
/// fixed tree as fit_glm. fit_glm_remote() shares fit_glm's solvers, checks and statistics (one
/// code path: fit_glm runs the same tasks on its own threads), so the fit is the same bits as
/// fit_glm of the same X and y.
///
/// The grid of blocks (glm_block_grid) depends on the shape alone: block_rows is about
/// kRowBlockBytes (16 MiB) of float64 rows of p = cols (+1 with the intercept) values, rounded
/// down to a multiple of 64 rows — never the threads, the memory budget or the storage chunks.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(linalg::GlmBlockGrid grid, linalg::glm_block_grid(ctx, n, cols, p.intercept));
/// auto runner = std::make_shared<MyRunner>(...);  // holds X's blocks (ones appended) and y's
/// STRATA_ASSIGN_OR_RETURN(linalg::GlmResult fit, linalg::fit_glm_remote(ctx, n, cols, runner, y, p));
/// \endcode

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"
#include "strata/linalg/glm.hpp"

namespace strata::linalg {

/// \brief X's fixed row blocks: block b is rows [b·block_rows, …), at most block_rows of them.
struct GlmBlockGrid {
  int64_t rows = 0, cols = 0;
  int64_t p = 0;  ///< coefficients: cols, +1 with the intercept (its column of ones last)
  int64_t block_rows = 1, num_blocks = 0;
  int64_t start(int64_t b) const { return b * block_rows; }
  int64_t count(int64_t b) const { return std::min(block_rows, rows - b * block_rows); }
};

/// \brief The grid fit_glm uses for a rows × cols X: from the shape only (ctx's threads and
/// budget play no part; it is the pass engine's setting). Invalid for rows < 1 or p < 1.
Result<GlmBlockGrid> glm_block_grid(const Context& ctx, int64_t rows, int64_t cols, bool intercept);

/// \brief What every block computes in one pass.
enum class GlmBlockOp : uint8_t {
  Evaluate,  ///< loss (+ gradient Xᵀr, + Hessian lower triangle XᵀWX) at beta
  Multiply,  ///< the block's rows of X·beta
  Admm,      ///< the block's local ADMM problem from its own β_b, u_b (L-BFGS)
  Design,    ///< XᵀX lower triangle, column sums, rows fitted with certainty (logistic) at beta
};

/// \brief One pass's task, the same for every block (small: travels to every worker).
struct GlmBlockTask {
  GlmBlockOp op = GlmBlockOp::Evaluate;
  GlmFamily family = GlmFamily::Logistic;
  unsigned want = 1;        ///< Evaluate: 1 loss | 2 gradient | 4 Hessian (loss is always summed)
  bool eta_in = false;      ///< Evaluate: use the block's η rows (GlmBlockInput::eta) for X·β
  bool eta_out = false;     ///< Evaluate: hand back the block's X·β rows
  bool x_abs_max = false;   ///< Evaluate: hand back max |x| over the block
  double rho = 1.0;         ///< Admm
  std::vector<double> beta; ///< Evaluate, Multiply, Design: β (p); Admm: z (p)
};

/// \brief What one block takes besides the task (views; empty when the task needs none).
struct GlmBlockInput {
  std::span<const double> eta;    ///< Evaluate with eta_in: the block's rows of η
  std::span<const double> u, beta;  ///< Admm: the block's u_b and starting β_b (p each)
};

/// \brief What one block hands back.
struct GlmBlockOutput {
  std::vector<double> partial;  ///< summed over blocks: Evaluate 1 + p (gradient) + p² (Hessian); Design p² + p + 1
  std::vector<double> rows;     ///< Evaluate with eta_out, Multiply: the block's rows of X·β
  std::vector<double> beta;     ///< Admm: β_b after the local solve (p)
  double x_abs_max = -1;        ///< Evaluate with x_abs_max
};

/// \brief Width of a task's partial for p coefficients (what glm_block_partial hands back).
int64_t glm_partial_width(const GlmBlockTask& task, int64_t p);

/// \brief One block's part of a pass: x is the block's rows (row-major rows × p, the intercept's
/// ones already appended), y its responses. Runs on ctx's backend (single-threaded work).
Result<GlmBlockOutput> glm_block_partial(const Context& ctx, const double* x, const double* y, int64_t rows, int64_t p,
                                         const GlmBlockTask& task, const GlmBlockInput& in);

/// \brief Runs each pass's task on every block where the blocks are and hands the outputs back
/// in ascending block order, one per block.
class GlmBlockRunner {
 public:
  virtual ~GlmBlockRunner() = default;
  /// Once, before the passes: the grid the blocks must follow.
  virtual Status plan(const GlmBlockGrid& grid) = 0;
  /// One pass. Per-block inputs come from whole arrays: eta (rows values, block b's slice is
  /// [start(b), start(b) + count(b))), u and betas (num_blocks × p, row b); empty when unused.
  virtual Status run(const GlmBlockTask& task, std::span<const double> eta, std::span<const double> u,
                     std::span<const double> betas,
                     const std::function<Status(int64_t block, GlmBlockOutput&&)>& add) = 0;
};

/// \brief fit_glm of a rows × cols X whose blocks the runner holds (plan() is called here) and
/// responses y (rows values, also held by the runner's blocks). Runs the same solvers, checks
/// and statistics; a runner that hands back blocks out of order, too few or too many, or
/// partials of the wrong size is an error (Internal), never a wrong answer.
Result<GlmResult> fit_glm_remote(const Context& ctx, int64_t rows, int64_t cols, std::shared_ptr<GlmBlockRunner> runner,
                                 std::span<const double> y, const GlmParams& params);

}  // namespace strata::linalg
