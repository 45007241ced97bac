// strata glm: parameters, the fit (solver + Wald statistics), y from .npy, the coefficient
// table and the command's files.
#include "strata/linalg/glm.hpp"

#include "strata/core/job.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "linalg/glm_internal.hpp"
#include "strata/core/output.hpp"
#include "strata/io/npy.hpp"
#include "strata/linalg/design_checks.hpp"
#include "strata/linalg/stats.hpp"

namespace strata::linalg {
namespace {

constexpr const char* kFamilies[] = {"normal", "logistic", "poisson"};
constexpr const char* kSolvers[] = {"newton", "lbfgs", "admm", "gradient-descent", "proximal-gradient"};
constexpr const char* kPenalties[] = {"none", "l1", "l2", "elastic-net"};

template <class E, size_t N>
Result<E> parse_name(std::string_view name, const char* const (&names)[N], const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<E>(i);
  std::string all;
  for (size_t i = 0; i < N; ++i) all += (i ? ", " : "") + std::string(names[i]);
  return Status::Invalid("unknown ", what, " '", std::string(name), "' (expected one of: ", all, ")");
}

// dask-glm's defaults per solver (algorithms.py).
int64_t default_max_iter(GlmSolver s) {
  switch (s) {
    case GlmSolver::Newton: return 50;
    case GlmSolver::Admm: return 250;
    default: return 100;
  }
}
double default_tol(GlmSolver s) {
  switch (s) {
    case GlmSolver::Newton: return 1e-8;
    case GlmSolver::Lbfgs: return 1e-4;
    case GlmSolver::GradientDescent: return 1e-14;
    case GlmSolver::ProximalGradient: return 1e-8;
    case GlmSolver::Admm: return 1e-4;  // unused: admm stops on abstol / reltol
  }
  return 1e-8;
}

// Wald statistics at the fitted coefficients, as statsmodels reports them: cov = (XᵀWX)⁻¹,
// times σ² = RSS/(n − p) for the normal family. The loss and Hessian at the final β come from
// the solver when it has them (newton, see solve_newton), else from one more pass.
Status wald_statistics(glm_detail::GlmData& d, glm_detail::Eval e, GlmResult* res) {
  const int64_t p = d.p();
  if (e.hess.empty()) STRATA_RETURN_NOT_OK(d.evaluate(res->coef, glm_detail::kLoss | glm_detail::kHess, &e));
  const bool normal = d.family() == GlmFamily::Normal;
  res->objective = e.loss;
  res->t_stat = normal;
  res->df_resid = static_cast<double>(d.rows() - p);
  const double nan = std::nan("");
  res->se.assign(static_cast<size_t>(p), nan);
  res->stat.assign(static_cast<size_t>(p), nan);
  res->p.assign(static_cast<size_t>(p), nan);
  res->has_stats = true;
  std::vector<double> h = e.hess;
  if (normal)
    for (double& v : h) v /= 2;  // the loss Σ(y − η)² has Hessian 2XᵀX
  const double scale = normal ? (res->df_resid > 0 ? e.loss / res->df_resid : nan) : 1.0;
  if (!cholesky(h, p)) {
    res->warnings.push_back("the information matrix XᵀWX is singular or not finite: SE, STAT and P are NA");
    res->design_check = "INVALID_RESULT";
    return Status::OK();
  }
  const std::vector<double> var = cholesky_inverse_diagonal(h, p);
  {
    // plink2's validParameters() on the covariance (the intercept, when present, last here).
    // plink2's validParameters() reads index 0 as the intercept: put the intercept (last
    // here) there, or a stand-in uncorrelated with everything when the model has none.
    const int64_t icpt = d.has_intercept() ? p - 1 : -1;
    const int64_t q = icpt >= 0 ? p : p + 1;
    auto at = [&](int64_t j) { return j == icpt ? int64_t{0} : j + 1; };  // coefficient → position
    std::vector<double> cov, perm(static_cast<size_t>(q * q), 0.0);
    const bool ok = spd_inverse(e.hess, p, &cov);
    perm[0] = 1.0;
    for (int64_t i = 0; ok && i < p; ++i)
      for (int64_t j = 0; j < p; ++j) perm[at(i) * q + at(j)] = cov[i * p + j] * (normal ? 2.0 : 1.0) * scale;
    if (!ok || !valid_covariance(perm, q)) {
      res->warnings.push_back("the covariance of the estimates is degenerate (plink2's INVALID_RESULT: a variance "
                              "below 1e-20 or two estimates correlated above 0.99999): SE, STAT and P are NA");
      res->design_check = "INVALID_RESULT";
      return Status::OK();
    }
  }
  for (int64_t j = 0; j < p; ++j) {
    const double v = var[j];
    const double se = std::sqrt(v * scale);
    res->se[j] = se;
    res->stat[j] = res->coef[j] / se;
    res->p[j] = normal ? p_from_t(res->stat[j], res->df_resid) : p_from_z(res->stat[j]);
  }
  return Status::OK();
}

}  // namespace

Result<GlmFamily> parse_glm_family(std::string_view name) { return parse_name<GlmFamily>(name, kFamilies, "family"); }
Result<GlmSolver> parse_glm_solver(std::string_view name) { return parse_name<GlmSolver>(name, kSolvers, "solver"); }
Result<GlmPenalty> parse_glm_penalty(std::string_view name) {
  return parse_name<GlmPenalty>(name, kPenalties, "penalty");
}
const char* glm_family_name(GlmFamily f) { return kFamilies[static_cast<int>(f)]; }
const char* glm_solver_name(GlmSolver s) { return kSolvers[static_cast<int>(s)]; }
const char* glm_penalty_name(GlmPenalty p) { return kPenalties[static_cast<int>(p)]; }

Status check_glm_tol(double tol) {
  if (!(tol > 0 && std::isfinite(tol))) return Status::Invalid("tol must be a finite number > 0, got ", tol);
  return Status::OK();
}

Status check_glm_max_iter(int64_t max_iter) {
  if (max_iter < 1) return Status::Invalid("max-iter must be at least 1, got ", max_iter);
  return Status::OK();
}

Status validate_glm_params(const GlmParams& p) {
  const char* solver = glm_solver_name(p.solver);
  if (p.penalty != GlmPenalty::None &&
      (p.solver == GlmSolver::Newton || p.solver == GlmSolver::GradientDescent))
    return Status::Invalid("solver ", solver, " fits unpenalized models only (dask-glm's ", solver,
                           " takes no regularizer): use lbfgs (l2), admm or proximal-gradient for penalty ",
                           glm_penalty_name(p.penalty));
  if (p.solver == GlmSolver::Lbfgs && (p.penalty == GlmPenalty::L1 || p.penalty == GlmPenalty::ElasticNet))
    return Status::Invalid("solver lbfgs needs a differentiable penalty (none or l2); ", glm_penalty_name(p.penalty),
                           " is not differentiable at 0: use admm or proximal-gradient");
  if (!(p.lambda >= 0) || !std::isfinite(p.lambda)) return Status::Invalid("lambda must be ≥ 0, got ", p.lambda);
  if (!(p.alpha >= 0 && p.alpha <= 1)) return Status::Invalid("alpha must be in [0, 1], got ", p.alpha);
  if (p.max_iter != kGlmDefaultMaxIter) STRATA_RETURN_NOT_OK(check_glm_max_iter(p.max_iter));
  if (!std::isnan(p.tol)) STRATA_RETURN_NOT_OK(check_glm_tol(p.tol));
  if (!(p.ftol >= 0 && std::isfinite(p.ftol))) return Status::Invalid("ftol must be ≥ 0, got ", p.ftol);
  if (!(p.rho > 0 && std::isfinite(p.rho))) return Status::Invalid("rho must be > 0, got ", p.rho);
  if (!(p.over_relax > 0 && p.over_relax < 2)) return Status::Invalid("over_relax must be in (0, 2), got ", p.over_relax);
  if (!(p.abstol > 0) || !(p.reltol > 0)) return Status::Invalid("abstol and reltol must be > 0");
  return Status::OK();
}

namespace {

// The parameters with the solver's defaults filled in, once y is known to suit the family.
Result<GlmParams> checked_params(const GlmParams& params, std::span<const double> y) {
  STRATA_RETURN_NOT_OK(validate_glm_params(params));
  GlmParams p = params;
  if (p.max_iter == kGlmDefaultMaxIter) p.max_iter = default_max_iter(p.solver);
  if (std::isnan(p.tol)) p.tol = default_tol(p.solver);
  for (size_t i = 0; i < y.size(); ++i) {
    const double v = y[i];
    if (!std::isfinite(v)) return Status::InvalidData("y: non-finite value ", v, " at row ", i);
    if (p.family == GlmFamily::Logistic && v != 0.0 && v != 1.0)
      return Status::InvalidData("y: the logistic family needs 0/1 responses, found ", v, " at row ", i);
    if (p.family == GlmFamily::Poisson && v < 0.0)
      return Status::InvalidData("y: the poisson family needs responses ≥ 0, found ", v, " at row ", i);
  }
  return p;
}

// The solver, the statistics and the design checks on X's blocks, wherever they are.
Result<GlmResult> fit_data(const Context& ctx, glm_detail::GlmData& data, int64_t cols, const GlmParams& p,
                           std::chrono::steady_clock::time_point t0) {
  auto phase = [&](const char* name) {  // seconds since the last phase, to the report
    const auto t1 = std::chrono::steady_clock::now();
    ctx.report().add_phase(name, std::chrono::duration<double>(t1 - t0).count());
    t0 = t1;
  };
  glm_detail::GlmData* d = &data;
  phase("glm load");
  GlmResult res;
  res.rows = d->rows();
  res.block_rows = d->plan().block_rows;
  res.blocks = d->plan().num_blocks;
  res.resident = d->resident();
  for (int64_t j = 0; j < cols; ++j) res.terms.push_back("x" + std::to_string(j));
  if (p.intercept) res.terms.push_back("intercept");
  glm_detail::Eval at_final;  // newton: loss and Hessian at the final β when it has them
  switch (p.solver) {
    case GlmSolver::Newton: STRATA_RETURN_NOT_OK(glm_detail::solve_newton(*d, p, &res, &at_final)); break;
    case GlmSolver::Lbfgs: STRATA_RETURN_NOT_OK(glm_detail::solve_lbfgs(*d, p, &res)); break;
    case GlmSolver::GradientDescent: STRATA_RETURN_NOT_OK(glm_detail::solve_gradient_descent(*d, p, &res)); break;
    case GlmSolver::ProximalGradient: STRATA_RETURN_NOT_OK(glm_detail::solve_proximal_gradient(*d, p, &res)); break;
    case GlmSolver::Admm: STRATA_RETURN_NOT_OK(glm_detail::solve_admm(*d, p, &res)); break;
  }
  phase("glm solver");
  for (double c : res.coef)
    if (!std::isfinite(c))
      return Status::InvalidData(glm_solver_name(p.solver), " diverged (non-finite coefficients after ",
                                 res.iterations, " iterations)");
  if (p.penalty == GlmPenalty::None) {
    STRATA_RETURN_NOT_OK(wald_statistics(*d, std::move(at_final), &res));  // sets the objective (the loss) too
  } else {
    glm_detail::Eval e;
    STRATA_RETURN_NOT_OK(d->evaluate(res.coef, glm_detail::kLoss, &e));
    res.objective = e.loss + glm_detail::penalty_value(p, res.coef);
  }
  STRATA_RETURN_NOT_OK(glm_detail::check_design(*d, p, &res));
  phase("glm statistics");
  if (!res.converged)
    res.warnings.push_back(std::string(glm_solver_name(p.solver)) + " stopped after " +
                           std::to_string(res.iterations) + " iterations without meeting its tolerance");
  res.passes = d->passes();
  return res;
}

}  // namespace

Result<GlmResult> fit_glm(const Context& ctx, const RowBlockSource& x, std::span<const double> y,
                          const GlmParams& params) {
  STRATA_ASSIGN_OR_RETURN(GlmParams p, checked_params(params, y));
  const auto t0 = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(auto d, glm_detail::GlmData::make(ctx, x, y, p.intercept, p.family));
  return fit_data(ctx, *d, x.cols(), p, t0);
}

Result<GlmResult> fit_glm_remote(const Context& ctx, int64_t rows, int64_t cols, std::shared_ptr<GlmBlockRunner> runner,
                                 std::span<const double> y, const GlmParams& params) {
  STRATA_ASSIGN_OR_RETURN(GlmParams p, checked_params(params, y));
  const auto t0 = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(auto d,
                          glm_detail::GlmData::make_remote(ctx, rows, cols, std::move(runner), y, p.intercept, p.family));
  return fit_data(ctx, *d, cols, p, t0);
}

Result<std::vector<double>> read_npy_vector(const std::string& path) {
  auto opened = io::NpyReader::open(path);
  if (!opened.ok()) return opened.status().with_context("y");
  io::NpyReader r = std::move(*opened);
  const io::NpyHeader& h = r.header();
  const Shape& s = h.shape;
  if (!(s.size() == 1 || (s.size() == 2 && s[1] == 1)))
    return Status::InvalidData(path, ": y must have shape (n,) or (n, 1), found ", s.size(), "-D");
  if (h.dtype.is_bool() || !(h.dtype.is_float() || h.dtype.is_integer()))
    return Status::InvalidData(path, ": y must be numeric, found dtype ", h.dtype.name());
  const int64_t n = s[0];
  std::vector<double> y(static_cast<size_t>(n));
  std::vector<uint8_t> raw(static_cast<size_t>(n * h.dtype.itemsize()));
  STRATA_RETURN_NOT_OK(r.read(raw.data(), n));
  const uint8_t* b = raw.data();
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* e = b + i * h.dtype.itemsize();
    double v = 0;
    switch (h.dtype.type) {
#define STRATA_NPY_CASE(T, C) \
  case ScalarType::T: {       \
    C c;                      \
    std::memcpy(&c, e, sizeof c); \
    v = static_cast<double>(c);  \
    break;                    \
  }
      STRATA_NPY_CASE(Int8, int8_t)
      STRATA_NPY_CASE(Int16, int16_t)
      STRATA_NPY_CASE(Int32, int32_t)
      STRATA_NPY_CASE(Int64, int64_t)
      STRATA_NPY_CASE(UInt8, uint8_t)
      STRATA_NPY_CASE(UInt16, uint16_t)
      STRATA_NPY_CASE(UInt32, uint32_t)
      STRATA_NPY_CASE(UInt64, uint64_t)
      STRATA_NPY_CASE(Float32, float)
      STRATA_NPY_CASE(Float64, double)
#undef STRATA_NPY_CASE
      default:
        return Status::InvalidData(path, ": y dtype ", h.dtype.name(), " is not supported (use float64)");
    }
    y[static_cast<size_t>(i)] = v;
  }
  return y;
}

std::string format_glm_coefficients(const GlmResult& fit) {
  std::string out = "#TERM\tCOEF\tSE\tSTAT\tP\n";
  char buf[64];
  auto num = [&](double v) {
    if (!std::isfinite(v)) return std::string("NA");
    std::snprintf(buf, sizeof buf, "%.12g", v);
    return std::string(buf);
  };
  for (size_t j = 0; j < fit.coef.size(); ++j) {
    out += fit.terms[j] + "\t" + num(fit.coef[j]);
    for (const auto* v : {&fit.se, &fit.stat, &fit.p}) out += "\t" + (fit.has_stats ? num((*v)[j]) : "NA");
    out += "\n";
  }
  return out;
}

Summary glm_result_summary(const GlmResult& f, const GlmParams& params) {
  Summary r;
  r.set("family", glm_family_name(params.family)).set("solver", glm_solver_name(params.solver));
  r.set("penalty", glm_penalty_name(params.penalty)).set("lambda", params.lambda).set("alpha", params.alpha);
  r.set("intercept", params.intercept).set("rows", f.rows).set("coefficients", f.coef.size());
  r.set("iterations", f.iterations).set("converged", f.converged).set("objective", f.objective);
  r.set("passes_over_x", f.passes).set("resident", f.resident).set("block_rows", f.block_rows).set("blocks", f.blocks);
  std::vector<Summary> log;
  for (const GlmIteration& it : f.log) {
    Summary e;
    e.set("iteration", it.iteration).set("objective", it.objective).set("change", it.change);
    e.set("step", it.step).set("passes", it.passes);
    log.push_back(std::move(e));
  }
  r.set("iteration_log", std::move(log)).set("warnings", f.warnings);
  r.set("design_check", f.design_check).set("separation", f.separation);
  return r;
}

Result<GlmRunSummary> run_glm_to_files(const Context& ctx, const std::string& x_path, const std::string& y_path,
                                       const std::string& out_prefix, const GlmParams& params) {
  STRATA_RETURN_NOT_OK(validate_glm_params(params));
  Job job(ctx, "glm", x_path, out_prefix);
  OutputRules rules;
  rules.inputs.push_back(y_path);
  const std::string path = out_prefix + ".coef.tsv";
  std::string staged;
  STRATA_RETURN_NOT_OK(job.declare(path, std::move(rules), [&](OutputSet& out) -> Status {
    STRATA_ASSIGN_OR_RETURN(staged, out.add_file(path));
    return Status::OK();
  }));
  STRATA_ASSIGN_OR_RETURN(RowBlockSourcePtr x, open_zarr_source(x_path));
  STRATA_ASSIGN_OR_RETURN(std::vector<double> y, read_npy_vector(y_path));
  GlmRunSummary s;
  STRATA_ASSIGN_OR_RETURN(s.fit, fit_glm(ctx, *x, y, params));
  PhaseTimer write = job.phase("write");
  auto write_text = [&]() -> Status {
    const std::string text = format_glm_coefficients(s.fit);
    std::FILE* f = std::fopen(staged.c_str(), "wb");
    if (!f) return Status::IOError(path, ": cannot create: ", std::strerror(errno));
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) return Status::IOError(path, ": write failed: ", std::strerror(errno));
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.commit(job.writer() ? write_text() : Status::OK()));
  write.stop();
  s.files = job.files();
  Summary& r = job.summary();
  r.set("x", x_path).set("y", y_path);
  r.merge(glm_result_summary(s.fit, params));
  s.report = r;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::linalg
