// Randomized PCA's error bounds against a float64 LAPACK eigendecomposition of the float64 GRM
// built in the test (test_grm_reference.hpp), for every product arithmetic; and the pairwise
// missing-call GRM (plink2's --pca without meanimpute) against its own float64 reference.
#include <cmath>
#include <limits>
#include <lapacke.h>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "genomics/test_grm_reference.hpp"
#include "strata/genomics/pca.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

// 400 samples: the default search (27 passes of 8 columns for k = 6) does not span them, so the
// result is a real approximation; two populations, so all but the first PC sit in the flat bulk.
constexpr int64_t kM = 3000, kN = 400;

// sin of the angle between column c of v and the unit reference vector z[c·n ..].
double sin_angle(const linalg::DenseMatrix& v, int64_t c, const std::vector<double>& z, int64_t n) {
  double dot = 0, vv = 0;
  for (int64_t j = 0; j < n; ++j) {
    dot += v(j, c) * z[static_cast<size_t>(c * n + j)];
    vv += v(j, c) * v(j, c);
  }
  const double cos = std::abs(dot) / std::sqrt(vv);
  return std::sqrt(std::max(0.0, 1.0 - cos * cos));
}

TEST(PcaBounds, EveryBoundHoldsAgainstFloat64Exact) {
  auto view = cohort(kM, kN, 11);
  ASSERT_TRUE(view);
  const GrmEig ref = reference_grm(cohort_dosages(kM, kN, 11), kM, kN, static_cast<double>(kM));
  // The reference's own rounding (dsyev: ~n·ε·λ₁), which a comparison cannot resolve.
  const double ref_noise = double(kN) * std::numeric_limits<double>::epsilon() * ref.w[0];
  for (Precision arithmetic : {Precision::Int16, Precision::Mixed, Precision::Float32}) {
    for (double tolerance : {0.0, 1e-6}) {
      PcaParams o;
      o.k = 6;
      o.method = linalg::SvdMethod::Randomized;
      o.precision = arithmetic;
      o.tolerance = tolerance;
      STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
      const std::string what = std::string(precision_name(arithmetic)) + " tolerance " + std::to_string(tolerance);
      ASSERT_TRUE(r.errors_bounded) << what;
      ASSERT_NE(r.stop, "complete") << what << ": the search spanned every sample, nothing to bound";
      ASSERT_EQ(r.error_estimate.size(), 6u);
      ASSERT_EQ(r.eigenvector_error_bound.size(), 6u);
      double worst = 0;
      for (size_t i = 0; i < 6; ++i) {
        const double lambda = r.eigenvalues[i], exact = ref.w[i];
        // Rayleigh–Ritz values never exceed the exact ones; the bound covers the rest.
        EXPECT_LE(lambda, exact + ref_noise) << what << " PC" << i + 1;
        EXPECT_GE(r.error_estimate[i] * lambda + ref_noise, exact - lambda) << what << " PC" << i + 1;
        EXPECT_GE(r.eigenvector_error_bound[i] + 1e-9, sin_angle(r.eigenvectors, static_cast<int64_t>(i), ref.z, kN))
            << what << " PC" << i + 1;
        worst = std::max(worst, r.error_estimate[i]);
      }
      EXPECT_DOUBLE_EQ(r.max_error_estimate, worst) << what;
      EXPECT_EQ(r.converged, tolerance == 0 || worst <= tolerance) << what;
    }
  }
}

// A tolerance the passes cannot reach is reported as missed, and the bound says by how much.
TEST(PcaBounds, UnreachedToleranceIsNotConverged) {
  auto view = cohort(kM, kN, 11);
  ASSERT_TRUE(view);
  PcaParams o;
  o.k = 6;
  o.method = linalg::SvdMethod::Randomized;
  o.iterations = 3;
  o.tolerance = 1e-9;
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
  EXPECT_TRUE(r.errors_bounded);
  EXPECT_FALSE(r.converged);
  EXPECT_GT(r.max_error_estimate, 1e-9);
}

// Without the check pass the estimates are the solver's own and are not called bounds.
TEST(PcaBounds, WithoutCheckPassEstimatesAreNotBounds) {
  auto view = cohort(kM, kN, 11);
  ASSERT_TRUE(view);
  PcaParams o;
  o.k = 4;
  o.method = linalg::SvdMethod::Randomized;
  o.check_errors = false;
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
  EXPECT_FALSE(r.errors_bounded);
  EXPECT_TRUE(r.eigenvector_error_bound.empty());
  o.check_errors = true;
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult c, pca(test_ctx(), view, o));
  EXPECT_EQ(c.passes, r.passes + 1);  // the check costs one pass
}

// plink2's default --pca: G_ab = Σ x_a·x_b / (variants both observe), over observed calls only;
// its eigenvalues differ from the mean-imputed GRM's where calls are missing.
TEST(PcaBounds, PairwiseMissingMatchesItsGrm) {
  constexpr int64_t m = 800, n = 120;
  const std::vector<int8_t> d = cohort_dosages(m, n, 5);
  std::vector<double> g(static_cast<size_t>(n * n), 0.0), cnt(static_cast<size_t>(n * n), 0.0);
  int64_t missing = 0;
  for (int64_t v = 0; v < m; ++v) {
    const RefFreq rf = reference_freq(d, n, v);
    for (int64_t a = 0; a < n; ++a) {
      const int8_t ga = d[static_cast<size_t>(v * n + a)];
      missing += ga < 0;
      if (ga < 0) continue;
      const double xa = rf.polymorphic ? (ga - 2 * rf.f) / std::sqrt(2 * rf.f * (1 - rf.f)) : 0.0;
      for (int64_t b = 0; b < n; ++b) {
        const int8_t gb = d[static_cast<size_t>(v * n + b)];
        if (gb < 0) continue;
        const double xb = rf.polymorphic ? (gb - 2 * rf.f) / std::sqrt(2 * rf.f * (1 - rf.f)) : 0.0;
        g[static_cast<size_t>(a + b * n)] += xa * xb;
        cnt[static_cast<size_t>(a + b * n)] += 1;
      }
    }
  }
  ASSERT_GT(missing, 0);
  for (size_t e = 0; e < g.size(); ++e) g[e] /= cnt[e];
  std::vector<double> w(static_cast<size_t>(n));
  ASSERT_EQ(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', static_cast<int>(n), g.data(), static_cast<int>(n), w.data()), 0);
  const GrmEig imputed = reference_grm(d, m, n, static_cast<double>(m));
  auto view = cohort(m, n, 5);
  ASSERT_TRUE(view);
  PcaParams o;
  o.k = 4;
  o.meanimpute = false;
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
  EXPECT_EQ(r.route, "grm");
  for (int i = 0; i < 4; ++i) {
    const double want = w[static_cast<size_t>(n - 1 - i)];
    EXPECT_NEAR(r.eigenvalues[static_cast<size_t>(i)] / want, 1.0, 1e-6) << i;
    // The two GRMs differ by more than that, so the test tells them apart.
    EXPECT_GT(std::abs(imputed.w[static_cast<size_t>(i)] / want - 1.0), 1e-5) << i;
  }
  o.method = linalg::SvdMethod::Randomized;
  STRATA_EXPECT_STATUS(pca(test_ctx(), view, o).status(), StatusCode::Invalid, "only the exact GRM route");
}

}  // namespace
}  // namespace strata::genomics
