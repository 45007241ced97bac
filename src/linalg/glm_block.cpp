// strata glm: one block's part of a pass (glm_block_partial), the same function wherever the
// block is — on fit_glm's threads or on a Dask worker — so a remote fit is the same bits.
#include <algorithm>
#include <cmath>

#include "linalg/glm_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/linalg/glm_remote.hpp"

namespace strata::linalg {
namespace {

using glm_detail::kGrad;
using glm_detail::kHess;
using glm_detail::kLoss;

// |η| beyond which a row's fitted probability is within 1e-10 of 0 or 1 (the separation check).
constexpr double kCertain = 23.0;

Status evaluate_block(const backend::Backend& be, const double* x, const double* y, int64_t n, int64_t p,
                      const GlmBlockTask& t, const GlmBlockInput& in, GlmBlockOutput* out) {
  const int64_t gw = (t.want & kGrad) ? p : 0, hw = (t.want & kHess) ? p * p : 0;
  double* part = out->partial.data();
  if (t.eta_out) out->rows.assign(static_cast<size_t>(n), 0.0);
  if (t.x_abs_max) out->x_abs_max = 0;
  return glm_detail::block_eval(be, t.family, x, y, n, p, t.beta.data(), t.want | kLoss, part, gw ? part + 1 : nullptr,
                                hw ? part + 1 + gw : nullptr, t.eta_in ? in.eta.data() : nullptr,
                                t.eta_out ? out->rows.data() : nullptr, t.x_abs_max ? &out->x_abs_max : nullptr);
}

// The block's local ADMM problem loss_b(β) + ρ/2‖β − z + u_b‖², L-BFGS from β_b (scipy's
// maxiter 200 / maxfun 250, as dask-glm's local solver).
Status admm_block(const backend::Backend& be, const double* x, const double* y, int64_t n, int64_t p,
                  const GlmBlockTask& t, const GlmBlockInput& in, GlmBlockOutput* out) {
  const std::vector<double>& z = t.beta;
  const double rho = t.rho;
  glm_detail::Objective fg = [&](const std::vector<double>& beta, double* f, std::vector<double>* g) -> Status {
    double loss = 0;
    g->assign(static_cast<size_t>(p), 0.0);
    STRATA_RETURN_NOT_OK(glm_detail::block_eval(be, t.family, x, y, n, p, beta.data(), kLoss | kGrad, &loss, g->data(),
                                                nullptr));
    double q = 0;
    for (int64_t i = 0; i < p; ++i) {
      const double r = beta[i] - z[i] + in.u[static_cast<size_t>(i)];
      q += r * r;
      (*g)[i] += rho * r;
    }
    *f = loss + rho / 2 * q;
    return Status::OK();
  };
  glm_detail::LbfgsOptions o;
  o.max_iter = 200;
  o.max_evals = 250;
  out->beta.assign(in.beta.begin(), in.beta.end());
  return glm_detail::lbfgs_minimize(fg, out->beta, o).status();
}

// XᵀX (lower triangle), Σx, then the rows fitted with certainty on their own outcome (logistic).
Status design_block(const backend::Backend& be, const double* x, const double* y, int64_t n, int64_t p,
                    const GlmBlockTask& t, GlmBlockOutput* out) {
  double* partial = out->partial.data();
  std::vector<double> ones(static_cast<size_t>(n), 1.0);
  std::vector<double> g(static_cast<size_t>(p * p), 0.0);
  STRATA_RETURN_NOT_OK(be.weighted_gram_rows(backend::row_major<const double>(x, n, p), ones.data(),
                                             backend::row_major(g.data(), p, p)));
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j <= i; ++j) partial[i * p + j] += g[i * p + j];
  const bool logistic = t.family == GlmFamily::Logistic;
  for (int64_t r = 0; r < n; ++r) {
    const double* xr = x + r * p;
    double eta = 0.0;
    for (int64_t j = 0; j < p; ++j) {
      partial[p * p + j] += xr[j];
      eta += xr[j] * t.beta[j];
    }
    if (logistic && ((y[r] > 0.5 && eta > kCertain) || (y[r] < 0.5 && eta < -kCertain))) partial[p * p + p] += 1;
  }
  return Status::OK();
}

}  // namespace

int64_t glm_partial_width(const GlmBlockTask& task, int64_t p) {
  switch (task.op) {
    case GlmBlockOp::Evaluate: return 1 + ((task.want & kGrad) ? p : 0) + ((task.want & kHess) ? p * p : 0);
    case GlmBlockOp::Design: return p * p + p + 1;
    case GlmBlockOp::Multiply:
    case GlmBlockOp::Admm: return 0;
  }
  return 0;
}

Result<GlmBlockOutput> glm_block_partial(const Context& ctx, const double* x, const double* y, int64_t rows, int64_t p,
                                         const GlmBlockTask& task, const GlmBlockInput& in) {
  if (rows < 1 || p < 1) return Status::Invalid("glm block: ", rows, " rows × ", p, " columns");
  if (static_cast<int64_t>(task.beta.size()) != p)
    return Status::Invalid("glm block: β has ", task.beta.size(), " values for ", p, " columns");
  if (task.op == GlmBlockOp::Evaluate && task.eta_in && static_cast<int64_t>(in.eta.size()) != rows)
    return Status::Invalid("glm block: η has ", in.eta.size(), " rows for a block of ", rows);
  if (task.op == GlmBlockOp::Admm &&
      (static_cast<int64_t>(in.u.size()) != p || static_cast<int64_t>(in.beta.size()) != p))
    return Status::Invalid("glm block: admm needs u_b and β_b of ", p, " values, got ", in.u.size(), " and ",
                           in.beta.size());
  const backend::Backend& be = backend::of(ctx);
  GlmBlockOutput out;
  out.partial.assign(static_cast<size_t>(glm_partial_width(task, p)), 0.0);
  switch (task.op) {
    case GlmBlockOp::Evaluate: STRATA_RETURN_NOT_OK(evaluate_block(be, x, y, rows, p, task, in, &out)); break;
    case GlmBlockOp::Multiply:
      out.rows.assign(static_cast<size_t>(rows), 0.0);
      STRATA_RETURN_NOT_OK(be.gemm(backend::Trans::No, backend::Trans::No, 1.0,
                                   backend::row_major<const double>(x, rows, p),
                                   backend::col_major<const double>(task.beta.data(), p, 1), 0.0,
                                   backend::col_major(out.rows.data(), rows, 1)));
      break;
    case GlmBlockOp::Admm: STRATA_RETURN_NOT_OK(admm_block(be, x, y, rows, p, task, in, &out)); break;
    case GlmBlockOp::Design: STRATA_RETURN_NOT_OK(design_block(be, x, y, rows, p, task, &out)); break;
  }
  return out;
}

}  // namespace strata::linalg
