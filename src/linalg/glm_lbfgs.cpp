// strata glm: L-BFGS for smooth objectives (the lbfgs solver and admm's local solves).
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "linalg/glm_internal.hpp"

namespace strata::linalg::glm_detail {
namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

Result<LbfgsOutcome> lbfgs_minimize(const Objective& fg, std::vector<double>& x, const LbfgsOptions& o,
                                    const std::function<void(const GlmIteration&)>& on_iteration) {
  constexpr double kC1 = 1e-4, kC2 = 0.9;  // sufficient decrease, curvature (weak Wolfe)
  const size_t p = x.size();
  LbfgsOutcome out;
  double f = 0;
  std::vector<double> g(p);
  STRATA_RETURN_NOT_OK(fg(x, &f, &g));
  out.evals = 1;
  if (!std::isfinite(f)) return Status::InvalidData("L-BFGS: the objective is not finite at the start");
  std::deque<std::vector<double>> ss, ys;
  std::deque<double> rhos;
  std::vector<double> d(p), xt(p), gt(p), alpha;
  while (true) {
    if (max_abs(g) <= o.pgtol) {
      out.converged = true;
      break;
    }
    if (out.iterations >= o.max_iter || out.evals >= o.max_evals) break;
    // Two-loop recursion: d = −H·g.
    for (size_t i = 0; i < p; ++i) d[i] = -g[i];
    alpha.assign(ss.size(), 0.0);
    for (size_t k = ss.size(); k-- > 0;) {
      alpha[k] = rhos[k] * dot(ss[k], d);
      for (size_t i = 0; i < p; ++i) d[i] -= alpha[k] * ys[k][i];
    }
    double t = 1.0;
    if (!ss.empty()) {
      const double gamma = dot(ss.back(), ys.back()) / dot(ys.back(), ys.back());
      for (double& v : d) v *= gamma;
    } else {
      t = std::min(1.0, 1.0 / std::sqrt(dot(g, g)));  // scipy's first step: 1/‖g‖
    }
    for (size_t k = 0; k < ss.size(); ++k) {
      const double b = rhos[k] * dot(ys[k], d);
      for (size_t i = 0; i < p; ++i) d[i] += ss[k][i] * (alpha[k] - b);
    }
    double dg = dot(d, g);
    if (!(dg < 0)) {  // not a descent direction: forget the curvature pairs
      ss.clear(), ys.clear(), rhos.clear();
      for (size_t i = 0; i < p; ++i) d[i] = -g[i];
      dg = dot(d, g);
      t = std::min(1.0, 1.0 / std::sqrt(dot(g, g)));
    }
    // Weak Wolfe line search: bisection between a too-long and a too-short step, doubling
    // while no too-long step is known.
    double lo = 0, hi = std::numeric_limits<double>::infinity(), ft = 0;
    bool accepted = false;
    int64_t evals_here = 0;
    for (int ls = 0; ls < 20 && out.evals < o.max_evals; ++ls) {
      for (size_t i = 0; i < p; ++i) xt[i] = x[i] + t * d[i];
      STRATA_RETURN_NOT_OK(fg(xt, &ft, &gt));
      ++out.evals, ++evals_here;
      // Near the optimum f changes by less than its rounding: there the approximate Wolfe
      // conditions of Hager and Zhang (f within rounding, slope between (2c1 − 1)·dg and c2·dg)
      // accept the step, so the gradient can still be driven down.
      const double gtd = dot(gt, d);
      if (std::isfinite(ft) && ft <= f + 1e-12 * std::fabs(f) && gtd >= kC2 * dg && gtd <= (2 * kC1 - 1) * dg) {
        accepted = true;
        break;
      }
      if (!std::isfinite(ft) || ft > f + kC1 * t * dg) {
        hi = t;
        t = 0.5 * (lo + hi);
      } else if (gtd < kC2 * dg) {
        lo = t;
        if (std::isinf(hi)) {
          t *= 2;
        } else {
          t = 0.5 * (lo + hi);
        }
      } else {
        accepted = true;
        break;
      }
      if (!(t > 0) || (hi - lo) <= 1e-16 * std::max(1.0, hi)) break;
    }
    if (!accepted) {
      // Take a step that decreased f if the search ended on one (lo > 0), else stop.
      if (!(lo > 0)) break;
      for (size_t i = 0; i < p; ++i) xt[i] = x[i] + lo * d[i];
      STRATA_RETURN_NOT_OK(fg(xt, &ft, &gt));
      ++out.evals, ++evals_here;
      t = lo;
    }
    std::vector<double> s(p), y(p);
    for (size_t i = 0; i < p; ++i) s[i] = xt[i] - x[i], y[i] = gt[i] - g[i];
    const double sy = dot(s, y);
    if (sy > 2.220446049250313e-16 * dot(y, y)) {
      ss.push_back(std::move(s)), ys.push_back(std::move(y)), rhos.push_back(1.0 / sy);
      if (static_cast<int64_t>(ss.size()) > o.memory) ss.pop_front(), ys.pop_front(), rhos.pop_front();
    }
    const double rel = (f - ft) / std::max({std::fabs(f), std::fabs(ft), 1.0});
    x = xt, g = gt, f = ft;
    ++out.iterations;
    if (on_iteration) on_iteration(GlmIteration{out.iterations, f, max_abs(g), t, evals_here});
    if (o.ftol > 0 && rel <= o.ftol) {
      out.converged = true;
      break;
    }
  }
  out.f = f;
  return out;
}

}  // namespace strata::linalg::glm_detail
