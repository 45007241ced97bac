// `strata glm`: a thin wrapper over strata/linalg/glm.hpp.
#include <cctype>
#include <cstdlib>
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "strata/linalg/glm.hpp"

namespace strata::cli {
namespace {

struct GlmArgs {
  std::string x, y, out;
  linalg::GlmParams params;  // the options bind to the library's struct
  bool lambda_given = false, alpha_given = false;
};

// A number checked by the library (`check`: the check Python's strata.glm gets, one message).
template <class Check>
CLI::Validator glm_number(Check check, std::string what) {
  return CLI::Validator(
      [check, what](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0])))
          return "must be " + what + ", got '" + s + "'";
        const Status st = check(v);
        return st.ok() ? std::string() : st.message();
      },
      what, "");
}

Status run_glm(GlmArgs& a, CliState& state) {
  linalg::GlmParams& p = a.params;
  if (p.penalty == linalg::GlmPenalty::None && (a.lambda_given || a.alpha_given))
    return Status::Invalid("--lambda and --alpha apply to penalized fits: add --penalty l1|l2|elastic-net");
  if (a.alpha_given && p.penalty != linalg::GlmPenalty::ElasticNet)
    return Status::Invalid("--alpha is the elastic net's l1 weight: it needs --penalty elastic-net");
  STRATA_ASSIGN_OR_RETURN(linalg::GlmRunSummary s, linalg::run_glm_to_files(state.ctx(), a.x, a.y, a.out, p));
  const linalg::GlmResult& f = s.fit;
  const double wall = wall_seconds(s.report);
  for (const auto& w : f.warnings) std::fprintf(stderr, "strata: warning: %s\n", w.c_str());
  if (!state.quiet)
    std::printf("%s %s%s: %lld rows x %zu coefficients, %lld iterations (%s), %lld passes over X (%s), objective "
                "%.10g, %.2f s -> %s\n",
                linalg::glm_family_name(p.family), linalg::glm_solver_name(p.solver),
                p.penalty == linalg::GlmPenalty::None ? "" : (std::string(", ") + linalg::glm_penalty_name(p.penalty)).c_str(),
                static_cast<long long>(f.rows), f.coef.size(), static_cast<long long>(f.iterations),
                f.converged ? "converged" : "not converged", static_cast<long long>(f.passes),
                f.resident ? "resident" : "streamed", f.objective, wall, s.files[0].c_str());
  set_report(state, s.report);
  return Status::OK();
}

}  // namespace

void register_glm_commands(CLI::App& app, CliState& state) {
  auto a = std::make_shared<GlmArgs>();
  auto* cmd = app.add_subcommand(
      "glm",
      "Generalized linear model y ~ X on a chunked numeric array, dask-glm's families, solvers and penalties, out of "
      "core: PREFIX.coef.tsv (#TERM COEF SE STAT P; Wald statistics for unpenalized fits)");
  cmd->add_option("--x", a->x, "X: a 2-D numeric Zarr array (path or URL), rows = observations")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("--y", a->y, "y: a .npy vector with one value per row of X")->required()->check(non_empty_path());
  add_enum_option(cmd, "--family", a->params.family, linalg::parse_glm_family, "normal, logistic or poisson",
                  library_check(linalg::parse_glm_family, "normal|logistic|poisson"))
      ->required();
  add_enum_option(cmd, "--solver", a->params.solver, linalg::parse_glm_solver,
                  "newton, lbfgs, admm, gradient-descent or proximal-gradient",
                  library_check(linalg::parse_glm_solver, "newton|lbfgs|admm|gradient-descent|proximal-gradient"))
      ->required();
  add_enum_option(cmd, "--penalty", a->params.penalty, linalg::parse_glm_penalty,
                  "none (default), l1, l2 or elastic-net: lambda·R(beta) added to the loss",
                  library_check(linalg::parse_glm_penalty, "none|l1|l2|elastic-net"));
  cmd->add_option("--lambda", a->params.lambda, "Penalty weight (default 1)")
      ->check(real_in([](double v) { return v >= 0; }, "a number ≥ 0"))
      ->each([a](const std::string&) { a->lambda_given = true; });
  cmd->add_option("--alpha", a->params.alpha, "Elastic net: weight of the l1 part, in [0, 1] (default 0.5)")
      ->check(real_in([](double v) { return v >= 0 && v <= 1; }, "a number in [0, 1]"))
      ->each([a](const std::string&) { a->alpha_given = true; });
  cmd->add_flag("--intercept", a->params.intercept, "Append a column of ones (its coefficient is the last row)");
  cmd->add_option("--max-iter", a->params.max_iter,
                  "Iteration limit (default: newton 50, admm 250, the others 100 — dask-glm's)")
      ->check(integer_in(1, 1000000000, "an integer of at least 1"));
  cmd->add_option("--tol", a->params.tol,
                  "Convergence tolerance (default: newton 1e-8 on max |step|, lbfgs 1e-4 on max |gradient|, "
                  "gradient-descent 1e-14 and proximal-gradient 1e-8 on the relative decrease)")
      ->check(glm_number([](double v) { return linalg::check_glm_tol(v); }, "a number > 0"));
  cmd->add_option("--ftol", a->params.ftol,
                  "lbfgs: also stop when the relative decrease is at most this (default 2.22e-9, scipy's factr 1e7; "
                  "0 = gradient test only)")
      ->check(real_in([](double v) { return v >= 0; }, "a number ≥ 0"));
  cmd->add_option("--rho", a->params.rho, "admm: augmented Lagrangian parameter (default 1)")
      ->check(real_in([](double v) { return v > 0; }, "a number > 0"));
  cmd->add_option("--abstol", a->params.abstol, "admm: absolute tolerance (default 1e-4)")
      ->check(real_in([](double v) { return v > 0; }, "a number > 0"));
  cmd->add_option("--reltol", a->params.reltol, "admm: relative tolerance (default 1e-2)")
      ->check(real_in([](double v) { return v > 0; }, "a number > 0"));
  add_memory_option(cmd, state, "decoded X stays in memory across passes when it fits half");
  cmd->add_option("--out", a->out, "Output prefix")->required()->check(non_empty_path());
  add_common_options(cmd, state);
  cmd->callback([a, &state] {
    state.run = [a, &state] { return run_glm(*a, state); };
  });
}

}  // namespace strata::cli
