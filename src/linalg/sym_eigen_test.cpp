// top_eigenpairs against LAPACK's full eigendecomposition: separated, clustered and
// low-rank spectra; same bits for any thread count; bad k.
#include "strata/linalg/sym_eigen.hpp"

#include <cmath>
#include <random>

#include "core/test_context.hpp"
#include "testing/testing.hpp"

namespace strata::linalg {
namespace {

// Q·diag(w)·Qᵀ with a random orthogonal Q, row-major.
std::vector<double> with_spectrum(const std::vector<double>& w, uint64_t seed) {
  const auto n = static_cast<int64_t>(w.size());
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z;
  DenseMatrix q(n, n);
  for (auto& v : q.data) v = z(g);
  EXPECT_TRUE(orthonormalize(strata::testing::test_ctx(), q).ok());
  std::vector<double> a(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += q(i, k) * w[static_cast<size_t>(k)] * q(j, k);
      a[static_cast<size_t>(i * n + j)] = s;
    }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) a[static_cast<size_t>(j * n + i)] = a[static_cast<size_t>(i * n + j)];
  return a;
}

void expect_matches_lapack(const std::vector<double>& a, int64_t n, int64_t k, double vec_tol) {
  const Context ctx = testing::make_test_context(2);
  TopEigenParams p;
  p.k = k;
  STRATA_ASSERT_OK_AND_ASSIGN(auto r, top_eigenpairs(ctx, a.data(), n, p));
  STRATA_ASSERT_OK_AND_ASSIGN(auto ref, eigh(strata::testing::test_ctx(), DenseMatrix::from_row_major(a.data(), n, n)));
  ASSERT_EQ(r.values.size(), static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    EXPECT_NEAR(r.values[static_cast<size_t>(j)], ref.w[static_cast<size_t>(j)], 1e-10 * ref.w[0]) << j;
    double dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += r.vectors(i, j) * ref.z(i, j);
    EXPECT_NEAR(std::fabs(dot), 1.0, vec_tol) << "pair " << j;
  }
}

TEST(TopEigenpairs, MatchesLapackOnASeparatedSpectrum) {
  std::vector<double> w;
  for (int i = 0; i < 900; ++i) w.push_back(100.0 / (1 + i));
  expect_matches_lapack(with_spectrum(w, 1), 900, 10, 1e-12);
  w.resize(300);  // the direct (dsyevr) order
  expect_matches_lapack(with_spectrum(w, 1), 300, 10, 1e-12);
}

TEST(TopEigenpairs, MatchesLapackOnAFlatBulkWithGaps) {
  // Two large values, then a bulk whose top eigenvalues are 1e-3 apart (a genotype spectrum).
  std::vector<double> w = {60.0, 55.0};
  for (int i = 0; i < 898; ++i) w.push_back(1.7 - 0.002 * i - 0.3 * i / 898.0);
  expect_matches_lapack(with_spectrum(w, 2), 900, 10, 1e-9);
}

TEST(TopEigenpairs, LowRankReachesAnInvariantSpace) {
  std::vector<double> w(820, 0.0);
  for (int i = 0; i < 5; ++i) w[static_cast<size_t>(i)] = 5.0 - i;
  const auto a = with_spectrum(w, 3);
  const Context ctx = testing::make_test_context(1);
  TopEigenParams p;
  p.k = 4;
  STRATA_ASSERT_OK_AND_ASSIGN(auto r, top_eigenpairs(ctx, a.data(), 820, p));
  EXPECT_FALSE(r.complete);
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(r.values[static_cast<size_t>(j)], 5.0 - j, 1e-12);
}

TEST(TopEigenpairs, AToleranceOutOfReachFallsBackToTheDenseSolve) {
  // Residuals of 1e-17 are below float64 rounding: the iteration stops after n products.
  std::vector<double> w;
  for (int i = 0; i < 600; ++i) w.push_back(1.0 - 1e-5 * i);
  const auto a = with_spectrum(w, 5);
  TopEigenParams p;
  p.k = 5;
  p.tolerance = 1e-17;
  STRATA_ASSERT_OK_AND_ASSIGN(auto r, top_eigenpairs(testing::make_test_context(2), a.data(), 600, p));
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.basis_columns, 600);
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(r.values[static_cast<size_t>(j)], w[static_cast<size_t>(j)], 1e-12);
}

TEST(TopEigenpairs, SameBitsForAnyThreadCountAndRefusesBadK) {
  std::vector<double> w;
  for (int i = 0; i < 900; ++i) w.push_back(3.0 / (1 + 0.1 * i));
  const auto a = with_spectrum(w, 4);
  TopEigenParams p;
  p.k = 6;
  STRATA_ASSERT_OK_AND_ASSIGN(auto one, top_eigenpairs(testing::make_test_context(1), a.data(), 900, p));
  STRATA_ASSERT_OK_AND_ASSIGN(auto three, top_eigenpairs(testing::make_test_context(3), a.data(), 900, p));
  EXPECT_EQ(one.values, three.values);
  EXPECT_EQ(one.vectors.data, three.vectors.data);
  p.k = 900;
  STRATA_EXPECT_STATUS(top_eigenpairs(testing::make_test_context(1), a.data(), 900, p).status(), StatusCode::Invalid,
                       "k = 900 must be in \\[1, n\\) with n = 900");
}

}  // namespace
}  // namespace strata::linalg
