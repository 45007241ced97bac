// strata gwas, logistic model: plink2's per-variant Newton iteration (start at 0, its stopping
// and failure rules) and its Firth fallback, in double precision.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "gwas_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/linalg/design_checks.hpp"

namespace strata::genomics::gwas_detail {
namespace {

// Solve L·Lᵀ·x = b in place.
void chol_solve(const std::vector<double>& l, int64_t p, double* b) {
  for (int64_t i = 0; i < p; ++i) {
    double v = b[i];
    for (int64_t t = 0; t < i; ++t) v -= l[i * p + t] * b[t];
    b[i] = v / l[i * p + i];
  }
  for (int64_t i = p - 1; i >= 0; --i) {
    double v = b[i];
    for (int64_t t = i + 1; t < p; ++t) v -= l[t * p + i] * b[t];
    b[i] = v / l[i * p + i];
  }
}

// The inverse of L·Lᵀ (full, row-major).
std::vector<double> chol_inverse(const std::vector<double>& l, int64_t p) {
  std::vector<double> inv(static_cast<size_t>(p * p)), e(static_cast<size_t>(p));
  for (int64_t c = 0; c < p; ++c) {
    for (int64_t i = 0; i < p; ++i) e[i] = i == c ? 1.0 : 0.0;
    chol_solve(l, p, e.data());
    for (int64_t i = 0; i < p; ++i) inv[i * p + c] = e[i];
  }
  return inv;
}

// The regression of one variant: X predictor-major (p rows of n: row 0 the intercept, row 1
// the A1 dosage, then the covariates), y (0/1). Products run on the backend's weighted Gram
// kernel (fixed summation order: the same bits on every CPU level and thread count).
struct Problem {
  const backend::Backend* be = nullptr;
  int64_t n = 0, p = 0, ld = 0;
  const double* x = nullptr;  // p × n, rows ld apart
  const double* y = nullptr;  // n
};

// h = X·diag(w)·Xᵀ (both triangles) and, with v, g = X·v.
bool weighted_gram(const Problem& pr, const std::vector<double>& w, const double* v, std::vector<double>& h,
                   double* g) {
  const int64_t p = pr.p;
  h.assign(static_cast<size_t>(p * p), 0.0);
  if (!pr.be->weighted_gram(backend::row_major<const double>(pr.x, p, pr.n, pr.ld), w.data(), v,
                            backend::row_major(h.data(), p, p), g)
           .ok())
    return false;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < i; ++j) h[j * p + i] = h[i * p + j];
  return true;
}

// out = X·v (p sums over the observations).
void x_times_obs(const Problem& pr, const double* v, double* out) {
  for (int64_t i = 0; i < pr.p; ++i) {
    const double* xi = pr.x + i * pr.ld;
    double s = 0.0;
    for (int64_t t = 0; t < pr.n; ++t) s += xi[t] * v[t];
    out[i] = s;
  }
}

// prob = 1 / (1 + exp(−Xᵀ·coef)) on the backend (same bits on every CPU level).
bool probabilities(const Problem& pr, const std::vector<double>& coef, std::vector<double>& prob) {
  prob.resize(static_cast<size_t>(pr.n));
  const auto x = backend::row_major<const double>(pr.x, pr.p, pr.n, pr.ld);
  return pr.be->linear_predictor(x, coef.data(), true, prob.data()).ok();
}

// plink2's LogisticRegression: Newton from 0; false on failure. `cov` = inverse Hessian of the
// last iteration (evaluated before its update, as plink2 reports it).
// `gram` = X·Xᵀ and `xy` = X·y (over the observations): the first iteration (β = 0: π = ½,
// w = ¼) needs no pass over X.
bool newton(const Problem& pr, const std::vector<double>& gram, const std::vector<double>& xy,
            std::vector<double>& coef, std::vector<double>& cov, bool* unfinished, LogisticScratch& w) {
  const int64_t p = pr.p;
  coef.assign(static_cast<size_t>(p), 0.0);
  std::vector<double>&h = w.h, &grad = w.grad;
  grad.resize(static_cast<size_t>(p));
  double min_delta = 1e9;
  for (int iteration = 0;; ++iteration) {
    if (iteration == 0) {
      // H = ¼·X·Xᵀ, g = X·(½ − y) = ½·X·1 − X·y (row 0 of X is the intercept).
      h.resize(static_cast<size_t>(p * p));
      for (int64_t i = 0; i < p * p; ++i) h[i] = 0.25 * gram[i];
      for (int64_t i = 0; i < p; ++i) grad[i] = 0.5 * gram[i * p] - xy[i];
    } else {
      // π, w = π(1 − π), r = π − y and H = X·diag(w)·Xᵀ, g = X·r in one backend step.
      h.assign(static_cast<size_t>(p * p), 0.0);
      if (!pr.be->logistic_gram(backend::row_major<const double>(pr.x, p, pr.n, pr.ld), coef.data(), pr.y,
                                backend::row_major(h.data(), p, p), grad.data())
               .ok())
        return false;
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < i; ++j) h[j * p + i] = h[i * p + j];
    }
    if (!cholesky(h, p)) return false;
    chol_solve(h, p, grad.data());
    double delta = 0.0;
    for (int64_t i = 0; i < p; ++i) {
      delta += std::fabs(grad[i]);
      coef[i] -= grad[i];
    }
    if (delta < min_delta) min_delta = delta;
    if (std::isnan(delta)) return false;
    if (iteration > 3) {
      if ((delta > 20.0 && delta > 2 * min_delta) || (iteration > 6 && std::fabs(1.0 - delta) < 1e-3)) return false;
      if (iteration > 13) {
        for (double c : coef)
          if (std::fabs(c) > 8e3) return false;
        cov = chol_inverse(h, p);
        *unfinished = true;
        return true;
      }
    }
    if (delta < 1e-4) {
      for (double c : coef)
        if (std::fabs(c) > 6e4) return false;
      cov = chol_inverse(h, p);
      return true;
    }
  }
}

// plink2's FirthRegression (a port of logistf without profile likelihood); false on failure.
bool firth(const Problem& pr, std::vector<double>& beta, std::vector<double>& cov, bool* unfinished) {
  const int64_t p = pr.p, n = pr.n;
  beta.assign(static_cast<size_t>(p), 0.0);
  // plink2 stops at 25 iterations, a limit its single-precision arithmetic usually meets first;
  // in double precision the fixed-point iteration of separated rare variants converges slowly
  // (linearly, factor ~0.7) but steadily, so strata allows more before reporting UNFINISHED.
  constexpr int kMaxIter = 100;
  constexpr double kGconv = 1e-4, kXconv = 1e-4, kLconv = 1e-4, kMaxStep = 5.0;
  std::vector<double> prob, v(static_cast<size_t>(n)), h0, h, hdiag(static_cast<size_t>(n)),
      ww(static_cast<size_t>(n)), ustar(static_cast<size_t>(p)), tmp(static_cast<size_t>(p)), z;
  double delta_max = 0.0, loglik_old = 0.0;
  for (int iter = 0;; ++iter) {
    if (!probabilities(pr, beta, prob)) return false;
    double loglik = 0.0;
    for (int64_t s = 0; s < n; ++s) {
      const double pi = prob[s];
      if (pi <= 0.0 || pi >= 1.0) return false;
      loglik += pr.y[s] > 0.5 ? std::log(pi) : std::log1p(-pi);
      v[s] = pi * (1.0 - pi);
    }
    if (!weighted_gram(pr, v, nullptr, h0, nullptr) || !cholesky(h0, p)) return false;
    double logdet = 0.0;
    for (int64_t i = 0; i < p; ++i) logdet += 2.0 * std::log(h0[i * p + i]);
    loglik += 0.5 * logdet;
    const std::vector<double> h0inv = chol_inverse(h0, p);
    // hᵢ = vᵢ·xᵢᵀH⁻¹xᵢ = vᵢ·‖L⁻¹xᵢ‖² with H = L·Lᵀ: Z = X·L⁻ᵀ by one triangular solve.
    // (X is predictor-major: the n × p observation-major matrix read column-major.)
    z.resize(static_cast<size_t>(p * n));
    for (int64_t i = 0; i < p; ++i) std::copy(pr.x + i * pr.ld, pr.x + i * pr.ld + n, &z[i * n]);
    for (int64_t i = 0; i < p; ++i)
      for (int64_t j = i + 1; j < p; ++j) h0[i * p + j] = 0.0;
    if (!pr.be->trsm(backend::Side::Right, backend::Uplo::Lower, backend::Trans::Yes, 1.0,
                     backend::row_major<const double>(h0.data(), p, p), backend::col_major(z.data(), n, p))
             .ok())
      return false;
    for (int64_t s = 0; s < n; ++s) hdiag[s] = 0.0;
    for (int64_t i = 0; i < p; ++i)
      for (int64_t s = 0; s < n; ++s) hdiag[s] += z[i * n + s] * z[i * n + s];
    for (int64_t s = 0; s < n; ++s) {
      hdiag[s] *= v[s];
      ww[s] = (pr.y[s] - prob[s]) + hdiag[s] * (0.5 - prob[s]);
    }
    x_times_obs(pr, ww.data(), ustar.data());
    if (iter > 0) {
      double umax = 0.0;
      for (double u : ustar) umax = std::fmax(umax, std::fabs(u));
      if (delta_max <= kXconv && umax < kGconv && loglik - loglik_old < kLconv) {
        cov = h0inv;
        return true;
      }
      if (iter > kMaxIter) {
        cov = h0inv;
        *unfinished = true;
        return true;
      }
    }
    loglik_old = loglik;
    for (int64_t s = 0; s < n; ++s) ww[s] = (1.0 + hdiag[s]) * v[s];
    if (!weighted_gram(pr, ww, nullptr, h, nullptr) || !cholesky(h, p)) return false;
    tmp = ustar;
    chol_solve(h, p, tmp.data());
    delta_max = 0.0;
    for (double d : tmp) delta_max = std::fmax(delta_max, std::fabs(d));
    const double scale = delta_max > kMaxStep ? kMaxStep / delta_max : 1.0;
    if (delta_max > kMaxStep) delta_max = kMaxStep;
    for (int64_t i = 0; i < p; ++i) beta[i] += tmp[i] * scale;
  }
}

// Σ_t a[t]·b[t] in 8 partial sums (t mod 8, in order) added in a fixed tree.
double dot8(const double* a, const double* b, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t t = 0;
  for (; t + 8 <= n; t += 8)
    for (int l = 0; l < 8; ++l) acc[l] += a[t + l] * b[t + l];
  for (int l = 0; t < n; ++t, ++l) acc[l] += a[t] * b[t];
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

}  // namespace

void logistic_fit(const Context* ctx, const Group& g, int pheno_in_group, const std::vector<double>& x, bool flip,
                  const GwasOptions& o, LogisticScratch& scratch, Fit* out) {
  const int64_t k = g.k, P = static_cast<int64_t>(g.phenos.size()), n_s = static_cast<int64_t>(g.samples.size());
  Problem pr;
  pr.be = &backend::of(*ctx);
  pr.p = k + 1;
  // Observations T (S less missing calls); X rows: intercept, A1 dosage, covariates (plink2's
  // predictor order).
  int64_t n_t = 0;
  double x_min = HUGE_VAL, x_max = -HUGE_VAL;  // a constant A1 dosage (hard calls or dosages)
  double a1_sum = 0, a1_case_sum = 0, cases = 0;
  for (int64_t s = 0; s < n_s; ++s) n_t += std::isnan(x[s]) ? 0 : 1;
  // Rows a multiple of 8 doubles apart from a 64-byte boundary: the kernels' vector loads never
  // straddle two cache lines.
  const int64_t ld = (n_t + 7) / 8 * 8;
  scratch.x.resize(static_cast<size_t>(pr.p * ld + 8));
  scratch.y.resize(static_cast<size_t>(n_t));
  double* px = scratch.x.data();
  px += (64 - reinterpret_cast<uintptr_t>(px) % 64) % 64 / sizeof(double);
  double* py = scratch.y.data();
  pr.x = px;
  pr.y = py;
  std::fill(px, px + n_t, 1.0);
  // The covariate rows: g.ct's rows less the missing calls, copied in runs.
  scratch.missing.clear();
  for (int64_t s0 = 0, t0 = 0; s0 < n_s;) {
    int64_t s1 = s0;
    while (s1 < n_s && !std::isnan(x[s1])) ++s1;
    if (s1 < n_s) scratch.missing.push_back(s1);
    if (s1 > s0)
      for (int64_t i = 1; i < k; ++i)
        std::memcpy(px + (i + 1) * ld + t0, &g.ct[i * n_s + s0], static_cast<size_t>(s1 - s0) * sizeof(double));
    t0 += s1 - s0;
    s0 = s1 + 1;
  }
  for (int64_t s = 0, t = 0; s < n_s; ++s) {
    if (std::isnan(x[s])) continue;
    const double y = g.y[s * P + pheno_in_group];
    py[t] = y;
    px[1 * ld + t] = x[s];
    x_min = std::fmin(x_min, x[s]);
    x_max = std::fmax(x_max, x[s]);
    a1_sum += x[s];
    const double is_case = y > 0.5 ? 1.0 : 0.0;  // adds 0 for a control: the sums over cases
    a1_case_sum += x[s] * is_case;
    cases += is_case;
    ++t;
  }
  pr.n = n_t;
  pr.ld = ld;
  Fit& f = *out;
  f = Fit{};
  f.obs = n_t;
  if (n_t <= pr.p) {
    f.err = Err::SampleCtLtePredictorCt;
    return;
  }
  if (x_min == x_max) {
    f.err = Err::ConstOmittedAllele;
    return;
  }
  // Gram of [intercept, x, covariates] over T from the covariates' Gram over S less the
  // samples with a missing call, and the sums Cᵀx, Σx² (the VIF check and Newton's first step);
  // X·y likewise from Cᵀy over S.
  std::vector<double> gram(static_cast<size_t>(pr.p * pr.p)), xy(static_cast<size_t>(pr.p));
  {
    const int64_t p = pr.p;
    std::vector<double> cc(g.cc), cx(static_cast<size_t>(k), 0.0);
    const double* cy = &g.cy[static_cast<size_t>(pheno_in_group * k)];
    for (int64_t i = 0; i < k; ++i) xy[i == 0 ? 0 : i + 1] = cy[i];
    xy[1] = a1_case_sum;
    for (int64_t s : scratch.missing) {
      const double* c = &g.c[s * k];
      for (int64_t i = 0; i < k; ++i)
        for (int64_t t = 0; t < k; ++t) cc[i * k + t] -= c[i] * c[t];
      const double y = g.y[s * P + pheno_in_group];
      for (int64_t i = 0; i < k; ++i) xy[i == 0 ? 0 : i + 1] -= c[i] * y;
    }
    // Cᵀx and Σx² over T from the rows of X (intercept, x, covariates).
    const double* xrow = px + ld;
    cx[0] = dot8(px, xrow, n_t);
    for (int64_t i = 1; i < k; ++i) cx[i] = dot8(px + (i + 1) * ld, xrow, n_t);
    const double xx = dot8(xrow, xrow, n_t);
    auto idx = [](int64_t c) { return c == 0 ? int64_t{0} : c + 1; };
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = 0; j < k; ++j) gram[idx(i) * p + idx(j)] = cc[i * k + j];
      gram[idx(i) * p + 1] = gram[1 * p + idx(i)] = cx[i];
    }
    gram[1 * p + 1] = xx;
    const Err e = check_corr_and_vif(gram, pr.p, o.max_corr, o.max_vif);
    if (e != Err::Ok) {
      f.err = e;
      return;
    }
  }
  std::vector<double> coef, cov;
  bool use_firth = o.firth == FirthMode::Always;
  if (!use_firth) {
    // An allele seen only in cases or only in controls: plink2 skips straight to Firth (or
    // reports SEPARATION without it). Alleles in order: the other allele, then A1.
    // x is the A1 dosage; plink2 checks the alleles in file order, REF then ALT1.
    const double a1_total = a1_sum, a1_case = a1_case_sum;
    const double other_total = 2.0 * static_cast<double>(n_t) - a1_total, other_case = 2.0 * cases - a1_case;
    const double ref_total = flip ? a1_total : other_total, ref_case = flip ? a1_case : other_case;
    const double alt_tot = flip ? other_total : a1_total, alt_cas = flip ? other_case : a1_case;
    const double tot[2] = {ref_total, alt_tot}, cas[2] = {ref_case, alt_cas};
    for (int a = 0; a < 2 && !use_firth; ++a) {
      if (cas[a] == 0.0 || cas[a] == tot[a]) {
        if (o.firth == FirthMode::Never) {
          f.err = Err::Separation;
          f.separation_allele = a == 0 ? 'R' : 'A';
          return;
        }
        use_firth = true;
      }
    }
    if (!use_firth && !newton(pr, gram, xy, coef, cov, &f.unfinished, scratch)) {
      if (o.firth == FirthMode::Never) {
        f.err = Err::LogisticConvergeFail;
        return;
      }
      use_firth = true;
    }
    // Newton at its iteration limit: the likelihood has no finite maximum (separation or
    // quasi-separation, e.g. by a covariate). plink2's single-precision iteration fails there
    // and falls back to Firth; in double precision the steps may stay small enough to reach
    // the limit instead, so the limit falls back too.
    if (!use_firth && f.unfinished && o.firth == FirthMode::Auto) use_firth = true;
  }
  if (use_firth) {
    f.firth = true;
    f.unfinished = false;
    if (!firth(pr, coef, cov, &f.unfinished)) {
      f.err = Err::FirthConvergeFail;
      return;
    }
  }
  if (!linalg::valid_covariance(cov, pr.p)) {
    f.err = Err::InvalidResult;
    return;
  }
  f.beta = coef[1];
  f.se = std::sqrt(cov[1 * pr.p + 1]);
  f.stat = f.beta / f.se;
  f.p = p_from_z(f.stat);
  f.ln_p = f.p > 1e-300 ? std::log(f.p) : linalg::ln_p_from_z(f.stat);
}

}  // namespace strata::genomics::gwas_detail
