// strata glm against independent references written here (long-double normal equations and
// IRLS, the lasso's optimality conditions), bit-identity across threads, budgets and block
// heights, and the bad-input errors.
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "core/test_context.hpp"
#include "strata/io/npy.hpp"
#include "linalg/glm_test_data.hpp"
#include "strata/linalg/glm.hpp"
#include "testing/testing.hpp"

namespace strata::linalg {
namespace {

using testing::make_test_context;
using testing::test_ctx;

using Data = testing_data::GlmData;

Data make_data(GlmFamily f, int64_t n, int64_t p, uint64_t seed) {
  return testing_data::make_glm_data(f, n, p, seed, [](int64_t j) { return 0.3 - 0.1 * static_cast<double>(j); });
}

// Solve the symmetric positive definite a·x = b (Gaussian elimination in long double) and return
// the inverse's diagonal through *inv_diag.
std::vector<long double> solve_ld(std::vector<long double> a, std::vector<long double> b, int64_t p,
                                  std::vector<long double>* inv_diag = nullptr) {
  std::vector<long double> inv(static_cast<size_t>(p * p), 0.0L);
  for (int64_t i = 0; i < p; ++i) inv[i * p + i] = 1;
  for (int64_t k = 0; k < p; ++k) {
    for (int64_t i = k + 1; i < p; ++i) {
      const long double m = a[i * p + k] / a[k * p + k];
      for (int64_t j = 0; j < p; ++j) a[i * p + j] -= m * a[k * p + j], inv[i * p + j] -= m * inv[k * p + j];
      b[i] -= m * b[k];
    }
  }
  for (int64_t k = p - 1; k >= 0; --k) {
    for (int64_t j = k + 1; j < p; ++j) {
      b[k] -= a[k * p + j] * b[j];
      for (int64_t c = 0; c < p; ++c) inv[k * p + c] -= a[k * p + j] * inv[j * p + c];
    }
    b[k] /= a[k * p + k];
    for (int64_t c = 0; c < p; ++c) inv[k * p + c] /= a[k * p + k];
  }
  if (inv_diag)
    for (int64_t i = 0; i < p; ++i) inv_diag->push_back(inv[i * p + i]);
  return b;
}

// The unpenalized MLE by IRLS in long double (normal: one step) with its Wald SEs.
void reference_fit(GlmFamily f, const Data& d, std::vector<double>* coef, std::vector<double>* se) {
  const int64_t n = d.n, p = d.p;
  std::vector<long double> beta(static_cast<size_t>(p), 0.0L), diag;
  for (int it = 0; it < 50; ++it) {
    std::vector<long double> h(static_cast<size_t>(p * p), 0.0L), g(static_cast<size_t>(p), 0.0L);
    for (int64_t i = 0; i < n; ++i) {
      long double eta = 0;
      for (int64_t j = 0; j < p; ++j) eta += d.x[i * p + j] * beta[j];
      long double mu = eta, w = 1;
      if (f == GlmFamily::Logistic) mu = 1 / (1 + std::exp(-eta)), w = mu * (1 - mu);
      if (f == GlmFamily::Poisson) mu = std::exp(eta), w = mu;
      for (int64_t j = 0; j < p; ++j) {
        g[j] += d.x[i * p + j] * (d.y[i] - mu);
        for (int64_t k = 0; k < p; ++k) h[j * p + k] += w * d.x[i * p + j] * d.x[i * p + k];
      }
    }
    diag.clear();
    const auto step = solve_ld(h, g, p, &diag);
    long double m = 0;
    for (int64_t j = 0; j < p; ++j) beta[j] += step[j], m = std::max(m, std::fabs(step[j]));
    if (m < 1e-15L) break;
  }
  long double scale = 1;
  if (f == GlmFamily::Normal) {
    long double rss = 0;
    for (int64_t i = 0; i < n; ++i) {
      long double eta = 0;
      for (int64_t j = 0; j < p; ++j) eta += d.x[i * p + j] * beta[j];
      rss += (d.y[i] - eta) * (d.y[i] - eta);
    }
    scale = rss / (n - p);
  }
  // SE from the information matrix at the final beta (one more accumulation).
  std::vector<long double> h(static_cast<size_t>(p * p), 0.0L);
  for (int64_t i = 0; i < n; ++i) {
    long double eta = 0;
    for (int64_t j = 0; j < p; ++j) eta += d.x[i * p + j] * beta[j];
    long double w = 1;
    if (f == GlmFamily::Logistic) w = 1 / (1 + std::exp(-eta)) * (1 - 1 / (1 + std::exp(-eta)));
    if (f == GlmFamily::Poisson) w = std::exp(eta);
    for (int64_t j = 0; j < p; ++j)
      for (int64_t k = 0; k < p; ++k) h[j * p + k] += w * d.x[i * p + j] * d.x[i * p + k];
  }
  diag.clear();
  solve_ld(h, std::vector<long double>(static_cast<size_t>(p), 0.0L), p, &diag);
  coef->clear(), se->clear();
  for (int64_t j = 0; j < p; ++j) coef->push_back(static_cast<double>(beta[j]));
  for (int64_t j = 0; j < p; ++j) se->push_back(static_cast<double>(std::sqrt(diag[j] * scale)));
}

Result<GlmResult> fit(const Context& ctx, const Data& d, const GlmParams& p, int64_t block_rows = 0) {
  return fit_glm(ctx, *make_dense_source(d.x.data(), d.n, d.p, block_rows), d.y, p);
}

TEST(Glm, UnpenalizedSolversMatchReferenceFit) {
  for (GlmFamily f : {GlmFamily::Normal, GlmFamily::Logistic, GlmFamily::Poisson}) {
    const Data d = make_data(f, 700, 4, 11);
    std::vector<double> coef, se;
    reference_fit(f, d, &coef, &se);
    for (GlmSolver s : {GlmSolver::Newton, GlmSolver::Lbfgs}) {
      GlmParams p;
      p.family = f;
      p.solver = s;
      if (s == GlmSolver::Lbfgs) p.tol = 1e-9, p.ftol = 0;
      auto r = fit(test_ctx(), d, p);
      STRATA_ASSERT_OK(r.status());
      SCOPED_TRACE(std::string(glm_family_name(f)) + " " + glm_solver_name(s));
      EXPECT_TRUE(r->converged);
      ASSERT_TRUE(r->has_stats);
      EXPECT_EQ(r->t_stat, f == GlmFamily::Normal);
      for (int64_t j = 0; j < d.p; ++j) {
        EXPECT_NEAR(r->coef[j], coef[j], 1e-9);
        EXPECT_NEAR(r->se[j] / se[j], 1.0, 1e-8);
        EXPECT_NEAR(r->stat[j], r->coef[j] / r->se[j], 1e-12);
      }
      // Newton's last Hessian stands for the final β's (its step is tiny): no statistics pass,
      // only the design checks' pass.
      if (s == GlmSolver::Newton) EXPECT_EQ(r->passes, r->iterations + 1);
      EXPECT_EQ(r->design_check, ".");
      EXPECT_FALSE(r->separation);
      EXPECT_TRUE(r->warnings.empty());
    }
  }
}

// A loose newton tolerance leaves a last step too large for its Hessian to stand for the final
// β's: the statistics take one more pass, and the SEs are still those at the returned β.
TEST(Glm, NewtonStatisticsPassWhenTheLastStepIsLarge) {
  for (GlmFamily f : {GlmFamily::Logistic, GlmFamily::Poisson}) {
    const Data d = make_data(f, 700, 4, 11);
    GlmParams p;
    p.family = f;
    p.solver = GlmSolver::Newton;
    p.tol = 0.05;
    auto r = fit(test_ctx(), d, p);
    STRATA_ASSERT_OK(r.status());
    SCOPED_TRACE(glm_family_name(f));
    EXPECT_TRUE(r->converged);  // the step-size rule declined, not the early return of a non-converged fit
    EXPECT_EQ(r->passes, r->iterations + 2);  // the statistics pass and the design checks' pass
    // SE at the returned β, recomputed in long double from strata's coefficients.
    const int64_t n = d.n, np = d.p;
    std::vector<long double> h(static_cast<size_t>(np * np), 0.0L);
    for (int64_t i = 0; i < n; ++i) {
      long double eta = 0;
      for (int64_t j = 0; j < np; ++j) eta += d.x[i * np + j] * static_cast<long double>(r->coef[j]);
      const long double pr = 1 / (1 + std::exp(-eta));
      const long double w = f == GlmFamily::Logistic ? pr * (1 - pr) : std::exp(eta);
      for (int64_t j = 0; j < np; ++j)
        for (int64_t k = 0; k < np; ++k) h[j * np + k] += w * d.x[i * np + j] * d.x[i * np + k];
    }
    std::vector<long double> diag;
    solve_ld(h, std::vector<long double>(static_cast<size_t>(np), 0.0L), np, &diag);
    for (int64_t j = 0; j < np; ++j)
      EXPECT_NEAR(r->se[j] / static_cast<double>(std::sqrt(diag[j])), 1.0, 1e-10);
  }
}

TEST(Glm, SameBitsForAnyThreadsBudgetAndSourceBlocks) {
  GlmParams p;
  p.solver = GlmSolver::Lbfgs;
  p.intercept = true;
  // Tall enough for several row blocks (16 MiB / 64 bytes per row = 262,144 rows); the
  // source's preferred block heights (1000, 77777) must not change the grid.
  const Data tall = make_data(GlmFamily::Logistic, 600000, 7, 5);
  auto a = fit(make_test_context(1), tall, p, 1000);
  auto b = fit(make_test_context(2), tall, p, 77777);
  auto c = fit(make_test_context(2, int64_t{8} << 20), tall, p);  // X does not fit: streamed
  // Streamed in units of two blocks (the budget holds two per worker; 300,000-row "chunks").
  auto e = fit(make_test_context(1, int64_t{64} << 20), tall, p, 300000);
  STRATA_ASSERT_OK(e.status());
  EXPECT_FALSE(e->resident);
  EXPECT_EQ(a->coef, e->coef);
  EXPECT_EQ(a->se, e->se);
  STRATA_ASSERT_OK(a.status());
  STRATA_ASSERT_OK(b.status());
  STRATA_ASSERT_OK(c.status());
  EXPECT_GT(a->blocks, 1);
  EXPECT_TRUE(a->resident);
  EXPECT_FALSE(c->resident);
  EXPECT_EQ(a->coef, b->coef);
  EXPECT_EQ(a->coef, c->coef);
  EXPECT_EQ(a->se, c->se);
  EXPECT_EQ(a->passes, c->passes);
}

TEST(Glm, LassoMeetsItsOptimalityConditions) {
  // Proximal gradient and ADMM with l1 and elastic net: at the optimum of loss + λR, every
  // zero coefficient has |∂loss/∂β_j| ≤ λα and every other ∂loss/∂β_j = −λ(α·sign β_j + (1 − α)β_j).
  const Data d = make_data(GlmFamily::Normal, 400, 6, 9);
  for (GlmSolver s : {GlmSolver::ProximalGradient, GlmSolver::Admm}) {
    for (GlmPenalty pen : {GlmPenalty::L1, GlmPenalty::ElasticNet}) {
      GlmParams p;
      p.family = GlmFamily::Normal;
      p.solver = s;
      p.penalty = pen;
      p.lambda = 120;
      p.alpha = pen == GlmPenalty::L1 ? 1.0 : 0.6;
      p.max_iter = 5000;
      p.tol = 1e-15;
      p.abstol = 1e-9, p.reltol = 1e-9;
      auto r = fit(test_ctx(), d, p);
      STRATA_ASSERT_OK(r.status());
      SCOPED_TRACE(std::string(glm_solver_name(s)) + " " + glm_penalty_name(pen));
      EXPECT_FALSE(r->has_stats);
      int zeros = 0;
      for (int64_t j = 0; j < d.p; ++j) {
        double g = 0;  // ∂/∂β_j Σ(y − Xβ)²
        for (int64_t i = 0; i < d.n; ++i) {
          double eta = 0;
          for (int64_t k = 0; k < d.p; ++k) eta += d.x[i * d.p + k] * r->coef[k];
          g += 2 * (eta - d.y[i]) * d.x[i * d.p + j];
        }
        const double b = r->coef[j], l1 = p.lambda * p.alpha, l2 = p.lambda * (1 - p.alpha);
        if (b == 0) {
          ++zeros;
          EXPECT_LE(std::fabs(g), l1 * (1 + 1e-6));
        } else {
          EXPECT_NEAR(g, -(l1 * (b > 0 ? 1 : -1) + l2 * b), s == GlmSolver::Admm ? 1e-3 * p.lambda : 1e-6 * p.lambda);  // admm: scipy's local tolerances (dask-glm's)
        }
      }
      EXPECT_GT(zeros, 0);
    }
  }
}

TEST(Glm, L2LbfgsMatchesRidgeNormalEquations) {
  const Data d = make_data(GlmFamily::Normal, 300, 5, 4);
  GlmParams p;
  p.family = GlmFamily::Normal;
  p.solver = GlmSolver::Lbfgs;
  p.penalty = GlmPenalty::L2;
  p.lambda = 50;
  p.tol = 1e-9, p.ftol = 0;
  auto r = fit(test_ctx(), d, p);
  STRATA_ASSERT_OK(r.status());
  // minimize Σ(y − Xβ)² + λ‖β‖²/2  ⇔  (2XᵀX + λI)β = 2Xᵀy.
  std::vector<long double> a(25, 0.0L), b(5, 0.0L);
  for (int64_t i = 0; i < d.n; ++i)
    for (int j = 0; j < 5; ++j) {
      b[j] += 2.0L * d.x[i * 5 + j] * d.y[i];
      for (int k = 0; k < 5; ++k) a[j * 5 + k] += 2.0L * d.x[i * 5 + j] * d.x[i * 5 + k];
    }
  for (int j = 0; j < 5; ++j) a[j * 5 + j] += p.lambda;
  const auto beta = solve_ld(a, b, 5);
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(r->coef[j], static_cast<double>(beta[j]), 1e-9);
}

TEST(Glm, BadInputIsRefusedClearly) {
  Data d = make_data(GlmFamily::Logistic, 50, 2, 1);
  GlmParams p;
  p.penalty = GlmPenalty::L1;
  auto r = fit(test_ctx(), d, p);  // newton + l1
  EXPECT_EQ(r.status().code(), StatusCode::Invalid);
  EXPECT_NE(r.status().message().find("unpenalized"), std::string::npos) << r.status().message();
  p.solver = GlmSolver::Lbfgs;
  EXPECT_EQ(fit(test_ctx(), d, p).status().code(), StatusCode::Invalid);
  EXPECT_EQ(parse_glm_solver("sgd").status().code(), StatusCode::Invalid);
  EXPECT_EQ(parse_glm_family("gamma").status().code(), StatusCode::Invalid);
  EXPECT_EQ(parse_glm_penalty("l3").status().code(), StatusCode::Invalid);
  p = GlmParams{};
  d.y[7] = 2;
  r = fit(test_ctx(), d, p);
  EXPECT_EQ(r.status().code(), StatusCode::InvalidData);
  EXPECT_NE(r.status().message().find("row 7"), std::string::npos) << r.status().message();
  d.y[7] = std::nan("");
  EXPECT_NE(fit(test_ctx(), d, p).status().message().find("non-finite"), std::string::npos);
  d.y[7] = -1;
  p.family = GlmFamily::Poisson;
  EXPECT_EQ(fit(test_ctx(), d, p).status().code(), StatusCode::InvalidData);
  d.y.pop_back();
  d.y[7] = 0;
  r = fit_glm(test_ctx(), *make_dense_source(d.x.data(), 50, 2), d.y, p);
  EXPECT_NE(r.status().message().find("49 values"), std::string::npos) << r.status().message();
}

TEST(Glm, OnlyTheDefaultsMeanTheDefaults) {
  // Before: tol = -1 (and max_iter = -1) silently meant "the solver's default" in the library
  // (so in Python) while the CLI refused them.
  GlmParams p;
  STRATA_EXPECT_OK(validate_glm_params(p));
  for (double tol : {-1.0, 0.0, std::numeric_limits<double>::infinity()}) {
    p.tol = tol;
    STRATA_EXPECT_STATUS(validate_glm_params(p), StatusCode::Invalid, "tol must be a finite number > 0");
  }
  // NaN marks the default inside GlmParams; from a user it is refused (Python's tol=nan).
  STRATA_EXPECT_STATUS(check_glm_tol(std::nan("")), StatusCode::Invalid, "tol must be a finite number > 0, got nan");
  STRATA_EXPECT_OK(check_glm_tol(1e-6));
  p = GlmParams{};
  p.max_iter = -1;
  STRATA_EXPECT_STATUS(validate_glm_params(p), StatusCode::Invalid, "max-iter must be at least 1, got -1");
}

TEST(Glm, AnOverflowingInformationMatrixNamesX) {
  // Before: LAPACK's "syev: argument 5 rejected" (exit 2) for X near 1e200.
  Data d = make_data(GlmFamily::Normal, 50, 2, 1);
  for (double& v : d.x) v *= 1e200;
  GlmParams p;
  p.family = GlmFamily::Normal;
  auto r = fit(test_ctx(), d, p);
  STRATA_EXPECT_STATUS(r, StatusCode::InvalidData, "^X: the information matrix XᵀWX is not finite");
}

TEST(Glm, ReadsNpyVectors) {
  const std::string path = ::testing::TempDir() + "glm_y.npy";
  std::vector<int32_t> v = {0, 1, 1, 0, 5};
  {
    auto w = io::NpyWriter::create(path, DType(ScalarType::Int32), Shape{5, 1});
    STRATA_ASSERT_OK(w.status());
    STRATA_ASSERT_OK(w->write(v.data(), 5));
    STRATA_ASSERT_OK(w->finish());
  }
  auto y = read_npy_vector(path);
  STRATA_ASSERT_OK(y.status());
  EXPECT_EQ(*y, (std::vector<double>{0, 1, 1, 0, 5}));
  {
    auto w = io::NpyWriter::create(path, DType(ScalarType::Float64), Shape{2, 2});
    STRATA_ASSERT_OK(w.status());
    std::vector<double> m = {1, 2, 3, 4};
    STRATA_ASSERT_OK(w->write(m.data(), 4));
    STRATA_ASSERT_OK(w->finish());
  }
  EXPECT_NE(read_npy_vector(path).status().message().find("shape (n,)"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace strata::linalg
