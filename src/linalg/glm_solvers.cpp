// strata glm: dask-glm's solvers on GlmData's passes (dask_glm/algorithms.py, 0.4.0).
#include <algorithm>
#include <cmath>

#include "linalg/glm_internal.hpp"
#include "strata/backend/backend.hpp"

namespace strata::linalg::glm_detail {
namespace {

double norm2(const std::vector<double>& a) {
  double s = 0;
  for (double v : a) s += v * v;
  return std::sqrt(s);
}

// Loss of the family at linear predictors eta (no pass over X: eta is held).
double loss_at(const GlmData& d, const std::vector<double>& eta) {
  std::vector<double> r(4096);
  double loss = 0;
  const int64_t n = d.rows();
  for (int64_t i0 = 0; i0 < n; i0 += 4096) {
    const int64_t m = std::min<int64_t>(4096, n - i0);
    loss += row_terms(d.family(), eta.data() + i0, d.y() + i0, m, r.data(), nullptr);
  }
  return loss;
}

// The end of a gradient-descent or proximal-gradient iteration (dask-glm's rules): log it, stop
// when the step vanished or the relative decrease df is below tol, else grow the step by 1.25
// and backtrack by halves from now on. True = stop.
bool end_iteration(GlmResult* res, int64_t k, double obj, double df, double tol, int64_t passes, double& step,
                   double& backtrack) {
  res->iterations = k + 1;
  res->log.push_back(GlmIteration{k + 1, obj, df, step, passes});
  if (step == 0) return true;
  if (df < tol) {
    res->converged = true;
    return true;
  }
  step *= 1.25;
  backtrack = 0.5;
  return false;
}

}  // namespace

// Newton from β = 0: step = H⁻¹g (lstsq when H is singular), stop when max |Δβ| ≤ tol.
// One pass per iteration (loss, gradient and Hessian together). The statistics want the Hessian
// at the returned β = β_k − s; the last pass gave it at β_k. Between them every linear predictor
// moves by |Δη| ≤ ‖s‖₁·max|x| = δ, so each weight w (logistic π(1 − π), Poisson e^η) changes by
// a factor within e^{±δ}(1 + O(δ)) and so does H in the positive-definite order: the standard
// errors move by at most ~δ/2 relative. When δ ≤ 1e-6 (SE within 5e-7, the contract with
// statsmodels is 1e-5; the normal family's H does not depend on β at all) the last Hessian is
// kept, with the loss moved to β_k − s by its quadratic model, and no statistics pass is needed.
Status solve_newton(GlmData& d, const GlmParams& p, GlmResult* res, Eval* at_final) {
  std::vector<double> beta(static_cast<size_t>(d.p()), 0.0);
  at_final->hess.clear();
  Eval e;
  std::vector<double> step;
  for (int64_t it = 1; it <= p.max_iter; ++it) {
    STRATA_RETURN_NOT_OK(d.evaluate(beta, kLoss | kGrad | kHess, &e));
    if (!std::isfinite(e.loss)) return Status::InvalidData("newton: the loss is not finite at iteration ", it);
    STRATA_ASSIGN_OR_RETURN(step, solve_symmetric(d.ctx(), e.hess, e.grad, d.p()));
    for (size_t i = 0; i < beta.size(); ++i) beta[i] -= step[i];
    const double change = max_abs(step);
    res->log.push_back(GlmIteration{it, e.loss, change, 1.0, 1});
    res->iterations = it;
    if (!(change > p.tol)) {
      res->converged = std::isfinite(change);
      break;
    }
  }
  res->coef = beta;
  if (!res->converged) return Status::OK();
  double s1 = 0;
  for (double v : step) s1 += std::fabs(v);
  const double delta = d.family() == GlmFamily::Normal ? 0.0 : s1 * d.x_abs_max();
  if (!(delta <= 1e-6) || d.x_abs_max() < 0) return Status::OK();
  // loss(β − s) ≈ loss(β) − gᵀs + ½ sᵀHs (exact for the normal family's quadratic).
  const int64_t np = d.p();
  double gs = 0, shs = 0;
  for (int64_t i = 0; i < np; ++i) {
    gs += e.grad[i] * step[i];
    double hi = 0;
    for (int64_t j = 0; j < np; ++j) hi += e.hess[static_cast<size_t>(i * np + j)] * step[j];
    shs += step[i] * hi;
  }
  at_final->loss = e.loss - gs + 0.5 * shs;
  at_final->hess = std::move(e.hess);
  return Status::OK();
}

// scipy-style L-BFGS on loss + λ‖β‖²/2 (l2) from β = 0: one pass per function+gradient
// evaluation.
Status solve_lbfgs(GlmData& d, const GlmParams& p, GlmResult* res) {
  std::vector<double> beta(static_cast<size_t>(d.p()), 0.0);
  LbfgsOptions o;
  o.pgtol = p.tol;
  o.ftol = p.ftol;
  o.max_iter = p.max_iter;
  Objective fg = [&](const std::vector<double>& x, double* f, std::vector<double>* g) -> Status {
    Eval e;
    STRATA_RETURN_NOT_OK(d.evaluate(x, kLoss | kGrad, &e));
    *f = e.loss + penalty_value(p, x);
    *g = std::move(e.grad);
    if (p.penalty == GlmPenalty::L2)
      for (size_t i = 0; i < x.size(); ++i) (*g)[i] += p.lambda * x[i];
    return Status::OK();
  };
  STRATA_ASSIGN_OR_RETURN(LbfgsOutcome out, lbfgs_minimize(fg, beta, o, [&](const GlmIteration& it) {
                            res->log.push_back(it);
                          }));
  res->iterations = out.iterations;
  res->converged = out.converged;
  res->coef = beta;
  return Status::OK();
}

// Michael Grant's gradient descent as dask-glm has it: Armijo backtracking on the held X·β
// and X·g (so the line search reads no X), step growth 1.25, stop when the relative decrease
// is below tol. Two passes per iteration (the gradient, X·g); X·β is recomputed exactly every
// 10 iterations inside the gradient pass.
Status solve_gradient_descent(GlmData& d, const GlmParams& p, GlmResult* res) {
  const int64_t np = d.p();
  std::vector<double> beta(static_cast<size_t>(np), 0.0), eta(static_cast<size_t>(d.rows()), 0.0), xg, obeta, oeta;
  double step = 1.0, backtrack = 0.1, func = 0;
  for (int64_t k = 0; k < p.max_iter; ++k) {
    const int64_t passes0 = d.passes();
    Eval e;
    if (k % 10 == 0) {
      STRATA_RETURN_NOT_OK(d.evaluate(beta, kLoss | kGrad, &e, nullptr, &eta));
      func = e.loss;
    } else {
      STRATA_RETURN_NOT_OK(d.evaluate(beta, kGrad, &e, &eta));
    }
    STRATA_RETURN_NOT_OK(d.multiply(e.grad, &xg));
    const double steplen = norm2(e.grad) * norm2(e.grad), lf = func;
    obeta = beta, oeta = eta;
    for (int ii = 0; ii < 100; ++ii) {
      for (int64_t i = 0; i < np; ++i) beta[i] = obeta[i] - step * e.grad[i];
      if (ii && beta == obeta) {
        step = 0;
        break;
      }
      for (size_t i = 0; i < eta.size(); ++i) eta[i] = oeta[i] - step * xg[i];
      func = loss_at(d, eta);
      if (lf - func >= 0.1 * step * steplen) break;
      step *= backtrack;
    }
    for (int64_t i = 0; i < np; ++i) beta[i] = obeta[i] - step * e.grad[i];
    for (size_t i = 0; i < eta.size(); ++i) eta[i] = oeta[i] - step * xg[i];
    const double df = (lf - func) / std::max(func, lf);
    if (end_iteration(res, k, func, df, p.tol, d.passes() - passes0, step, backtrack)) break;
  }
  res->coef = beta;
  return Status::OK();
}

// Proximal gradient (ISTA) with dask-glm's step rules (start 1, backtrack 0.1 then 0.5, growth
// 1.25, stop when the relative decrease of the objective is below tol); a step is accepted on
// the composite sufficient-decrease condition f(β⁺) ≤ f(β) + gᵀ(β⁺ − β) + ‖β⁺ − β‖²/(2t)
// (dask-glm compares the smooth loss only, which need not descend on the penalized
// objective). One pass per trial: the loss and gradient at the candidate together.
Status solve_proximal_gradient(GlmData& d, const GlmParams& p, GlmResult* res) {
  const int64_t np = d.p();
  std::vector<double> beta(static_cast<size_t>(np), 0.0), obeta;
  double step = 1.0, backtrack = 0.1;
  Eval cur;
  STRATA_RETURN_NOT_OK(d.evaluate(beta, kLoss | kGrad, &cur));
  double obj = cur.loss + penalty_value(p, beta);
  for (int64_t k = 0; k < p.max_iter; ++k) {
    const int64_t passes0 = d.passes();
    obeta = beta;
    Eval cand;
    double cand_obj = obj;
    for (int ii = 0; ii < 100; ++ii) {
      for (int64_t i = 0; i < np; ++i) beta[i] = obeta[i] - step * cur.grad[i];
      penalty_prox(p, step * p.lambda, beta);
      STRATA_RETURN_NOT_OK(d.evaluate(beta, kLoss | kGrad, &cand));
      double lin = 0, sq = 0;
      for (int64_t i = 0; i < np; ++i) {
        const double db = beta[i] - obeta[i];
        lin += cur.grad[i] * db;
        sq += db * db;
      }
      if (std::isfinite(cand.loss) && cand.loss <= cur.loss + lin + sq / (2 * step)) break;
      step *= backtrack;
    }
    cand_obj = cand.loss + penalty_value(p, beta);
    const double df = (obj - cand_obj) / std::max({std::fabs(obj), std::fabs(cand_obj), 1e-300});
    cur = std::move(cand);
    obj = cand_obj;
    if (end_iteration(res, k, obj, df, p.tol, d.passes() - passes0, step, backtrack)) break;
  }
  res->coef = beta;
  return Status::OK();
}

// Consensus ADMM as dask-glm has it: the "chunks" are X's fixed row blocks; each iteration is
// one pass in which every block solves its local problem (loss_i(β) + ρ/2‖β − z + u_i‖², L-BFGS
// from its last β_i, scipy's maxiter 200 / maxfun 250) on its resident rows; then z = prox of
// the mean of β̂_i + u_i with λ/(ρ·N), u_i += β̂_i − z, and dask-glm's abstol/reltol test.
Status solve_admm(GlmData& d, const GlmParams& p, GlmResult* res) {
  const int64_t np = d.p(), nb = d.plan().num_blocks;
  std::vector<double> z(static_cast<size_t>(np), 0.0), zold;
  std::vector<std::vector<double>> u(static_cast<size_t>(nb), std::vector<double>(static_cast<size_t>(np), 0.0));
  std::vector<std::vector<double>> betas(static_cast<size_t>(nb), std::vector<double>(static_cast<size_t>(np), 1.0));
  std::vector<double> flat_u, flat_betas;  // the blocks' u_b and β_b, nb × p, as the pass takes them
  auto flatten = [&](const std::vector<std::vector<double>>& rows, std::vector<double>& out) {
    out.clear();
    for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
  };
  const double rho = p.rho, nbd = static_cast<double>(nb);
  for (int64_t k = 0; k < p.max_iter; ++k) {
    GlmBlockTask task;
    task.op = GlmBlockOp::Admm;
    task.family = d.family();
    task.rho = rho;
    task.beta = z;
    flatten(u, flat_u);
    flatten(betas, flat_betas);
    STRATA_RETURN_NOT_OK(d.run("glm admm", task, {}, flat_u, flat_betas, nullptr,
                               [&](int64_t b, GlmBlockOutput& o) -> Status {
                                 betas[static_cast<size_t>(b)] = std::move(o.beta);
                                 return Status::OK();
                               }));
    std::vector<std::vector<double>> hat = betas;
    std::vector<double> ztilde(static_cast<size_t>(np), 0.0);
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t i = 0; i < np; ++i) {
        double& h = hat[static_cast<size_t>(b)][static_cast<size_t>(i)];
        h = p.over_relax * h + (1 - p.over_relax) * z[i];
        ztilde[i] += h + u[static_cast<size_t>(b)][static_cast<size_t>(i)];
      }
    for (double& v : ztilde) v /= nbd;
    zold = z;
    z = ztilde;
    penalty_prox(p, p.lambda / (rho * nbd), z);
    double primal = 0, bnorm = 0, unorm = 0, dual = 0;
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t i = 0; i < np; ++i) {
        double& ui = u[static_cast<size_t>(b)][static_cast<size_t>(i)];
        ui += hat[static_cast<size_t>(b)][static_cast<size_t>(i)] - z[i];
        const double bi = betas[static_cast<size_t>(b)][static_cast<size_t>(i)];
        primal += (bi - z[i]) * (bi - z[i]);
        bnorm += bi * bi;
        unorm += rho * ui * rho * ui;
      }
    for (int64_t i = 0; i < np; ++i) dual += rho * (z[i] - zold[i]) * rho * (z[i] - zold[i]);
    primal = std::sqrt(primal), dual = std::sqrt(dual);
    const double scale = std::sqrt(static_cast<double>(np) * nbd) * p.abstol;
    const double eps_pri = scale + p.reltol * std::max(std::sqrt(bnorm), std::sqrt(nbd) * norm2(z));
    const double eps_dual = scale + p.reltol * std::sqrt(unorm);
    res->iterations = k + 1;
    res->log.push_back(GlmIteration{k + 1, std::nan(""), primal, dual, 1});
    if (primal < eps_pri && dual < eps_dual) {
      res->converged = true;
      break;
    }
  }
  res->coef = z;
  return Status::OK();
}

}  // namespace strata::linalg::glm_detail
