// strata glm's design checks (every solver) and the shared plink2 design checks
// (strata/linalg/design_checks.hpp) on designs whose answer is known by construction: a
// duplicated column, a second constant column, separable classes, an exact normal fit; and a
// well-posed fit that must pass untouched.
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "core/test_context.hpp"
#include "strata/linalg/design_checks.hpp"
#include "strata/linalg/glm.hpp"
#include "testing/testing.hpp"

namespace strata::linalg {
namespace {

using testing::test_ctx;

constexpr GlmSolver kSolvers[] = {GlmSolver::Newton, GlmSolver::Lbfgs, GlmSolver::Admm, GlmSolver::GradientDescent,
                                GlmSolver::ProximalGradient};

struct Design {
  int64_t n = 0, p = 0;
  std::vector<double> x, y;
};

// n × 3 standard normal columns (fixed seed), y logistic in x0; `extra` appends a column.
Design design(int64_t n, int extra, bool separable) {
  std::mt19937_64 rng(41);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u;
  Design d;
  d.n = n;
  d.p = 3 + (extra ? 1 : 0);
  for (int64_t i = 0; i < n; ++i) {
    double row[3] = {g(rng), g(rng), g(rng)};
    for (double v : row) d.x.push_back(v);
    if (extra == 1) d.x.push_back(row[1]);  // x3 = x1
    if (extra == 2) d.x.push_back(5.0);     // x3 constant beside the intercept
    d.y.push_back(separable ? (row[0] > 0 ? 1.0 : 0.0) : (u(rng) < 1 / (1 + std::exp(-row[0])) ? 1.0 : 0.0));
  }
  return d;
}

Result<GlmResult> fit(const Design& d, GlmFamily f, GlmSolver s) {
  GlmParams p;
  p.family = f;
  p.solver = s;
  p.intercept = true;
  return fit_glm(test_ctx(), *make_dense_source(d.x.data(), d.n, d.p), d.y, p);
}

// `check` on the logistic fit of d by every solver (each under a trace naming it).
void for_each_solver(const Design& d, const std::function<void(const GlmResult&)>& check) {
  for (GlmSolver s : kSolvers) {
    SCOPED_TRACE(glm_solver_name(s));
    auto r = fit(d, GlmFamily::Logistic, s);
    STRATA_ASSERT_OK(r.status());
    check(*r);
  }
}

bool has_warning(const GlmResult& r, const std::string& text) {
  for (const auto& w : r.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

TEST(GlmDesignChecks, DuplicatedColumnIsCollinearForEverySolver) {
  const Design d = design(400, 1, false);
  for_each_solver(d, [](const GlmResult& r) {
    EXPECT_EQ(r.design_check, "CORR_TOO_HIGH");
    EXPECT_TRUE(has_warning(r, "x1 and x3 correlate above 0.999")) << ::testing::PrintToString(r.warnings);
    for (double v : r.se) EXPECT_TRUE(std::isnan(v)) << "SE of a collinear design";
  });
}

TEST(GlmDesignChecks, SecondConstantColumnIsCollinearWithTheIntercept) {
  const Design d = design(300, 2, false);
  for_each_solver(d, [](const GlmResult& r) {
    EXPECT_TRUE(has_warning(r, "x3 is constant, collinear with intercept")) << ::testing::PrintToString(r.warnings);
  });
}

TEST(GlmDesignChecks, SeparableClassesAreReportedForEverySolver) {
  // y = [x0 > 0]: the likelihood has no maximum; every solver's coefficients run off (lbfgs
  // used to report convergence with a coefficient in the thousands, no warning).
  const Design d = design(400, 0, true);
  for_each_solver(d, [](const GlmResult& r) {
    EXPECT_TRUE(r.separation);
    EXPECT_TRUE(has_warning(r, "separation suspected")) << ::testing::PrintToString(r.warnings);
    for (double v : r.p) EXPECT_TRUE(std::isnan(v));
  });
}

TEST(GlmDesignChecks, ExactNormalFitIsInvalidResult) {
  Design d = design(200, 0, false);
  for (int64_t i = 0; i < d.n; ++i) d.y[i] = 1.0 + 2.0 * d.x[i * 3] - d.x[i * 3 + 2];  // no noise
  auto r = fit(d, GlmFamily::Normal, GlmSolver::Newton);
  STRATA_ASSERT_OK(r.status());
  EXPECT_EQ(r->design_check, "INVALID_RESULT");
  EXPECT_NEAR(r->coef[0], 2.0, 1e-9);
  for (double v : r->se) EXPECT_TRUE(std::isnan(v));
}

TEST(GlmDesignChecks, WellPosedFitsPassUntouched) {
  const Design d = design(500, 0, false);
  for_each_solver(d, [](const GlmResult& r) {
    EXPECT_EQ(r.design_check, ".");
    EXPECT_FALSE(r.separation);
    EXPECT_FALSE(has_warning(r, "collinear")) << ::testing::PrintToString(r.warnings);
    for (double v : r.se) EXPECT_TRUE(std::isfinite(v));
  });
}

// Gram of [1, columns] over n rows.
std::vector<double> gram_of(const std::vector<std::vector<double>>& cols) {
  const size_t p = cols.size() + 1, n = cols[0].size();
  std::vector<double> g(p * p, 0.0);
  for (size_t s = 0; s < n; ++s)
    for (size_t i = 0; i < p; ++i)
    for (size_t j = 0; j < p; ++j)
      g[i * p + j] += (i ? cols[i - 1][s] : 1.0) * (j ? cols[j - 1][s] : 1.0);
  return g;
}

TEST(DesignChecks, CorrVifAndValidParametersAsPlink2) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  std::vector<double> a(300), b(300), c(300);
  for (size_t i = 0; i < a.size(); ++i) a[i] = g(rng), b[i] = g(rng), c[i] = 2 * a[i] - b[i];
  EXPECT_EQ(check_corr_and_vif(gram_of({a, b}), 3).check, DesignCheck::Ok);
  const auto dup = check_corr_and_vif(gram_of({a, b, a}), 4);
  EXPECT_EQ(dup.check, DesignCheck::CorrTooHigh);
  EXPECT_EQ(dup.a, 1);
  EXPECT_EQ(dup.b, 3);
  EXPECT_EQ(check_corr_and_vif(gram_of({a, b, c}), 4).check, DesignCheck::VifInfinite);  // exact combination
  std::vector<double> k(300, 4.0);
  EXPECT_EQ(check_corr_and_vif(gram_of({a, k}), 3).check, DesignCheck::VifInfinite);  // constant
  // validParameters: a variance under 1e-20, or two estimates correlated above 0.99999.
  EXPECT_TRUE(valid_covariance({1, 0.5, 0.5, 1}, 2));
  EXPECT_FALSE(valid_covariance({1, 0, 0, 1e-21}, 2));
  EXPECT_FALSE(valid_covariance({1, 0.999995, 0.999995, 1}, 2));
  EXPECT_TRUE(valid_covariance({1, -0.999995, -0.999995, 1}, 2));  // plink2 reads positive ones only
  EXPECT_TRUE(valid_least_squares(gram_of({a, b}), 3, 1.0));
  EXPECT_FALSE(valid_least_squares(gram_of({a, b}), 3, 1e-30));
  // plink2's scale check: 1e15 + 1e12·z beside genotypes fails, a unit-variance covariate passes.
  std::vector<double> sums{1e15 * 300}, ssqs{1e30 * 300 + 1e24 * 300};
  EXPECT_TRUE(covariate_scales_unstable(sums, ssqs, 300));
  EXPECT_FALSE(covariate_scales_unstable({0.0}, {300.0}, 300));
}

}  // namespace
}  // namespace strata::linalg
