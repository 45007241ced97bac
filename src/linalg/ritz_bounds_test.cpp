// ritz_error_bounds: Kato–Temple and Davis–Kahan arithmetic on hand-made numbers, and
// check_pairs on a diagonal matrix whose eigenpairs are known.
#include "linalg/ritz_bounds_internal.hpp"

#include <cmath>

#include "core/test_context.hpp"
#include "strata/linalg/gram_operator.hpp"
#include "testing/testing.hpp"

namespace strata::linalg {
namespace {

TEST(RitzBounds, GapBoundsFromTheNeighbourBelow) {
  std::vector<double> vb, eb;
  ritz_error_bounds({10.0, 5.0}, {0.1, 0.2}, 0.0, eb, vb);
  ASSERT_EQ(eb.size(), 2u);
  EXPECT_DOUBLE_EQ(eb[1], 0.2);  // last pair: the residual alone
  EXPECT_DOUBLE_EQ(vb[1], 1.0);  // its gap below is unknown
  // λ₂ ≤ 5.2, so λ₁ − 10 ≤ 0.1² / 4.8 and sin ≤ 0.1 / 4.8.
  EXPECT_DOUBLE_EQ(eb[0], 0.01 / 4.8);
  EXPECT_DOUBLE_EQ(vb[0], 0.1 / 4.8);
  // Overlapping neighbours: no gap, the residual bound stays.
  ritz_error_bounds({1.0, 0.95}, {0.1, 0.1}, 0.0, eb, vb);
  EXPECT_DOUBLE_EQ(eb[0], 0.1);
  EXPECT_DOUBLE_EQ(vb[0], 1.0);
}

// A = diag(√d) (rows × cols = 6 × 6): AᵀA = diag(d). Perturbed unit vectors around e₁, e₂, e₃
// give Ritz values below d and bounds that must cover the true errors.
TEST(RitzBounds, CheckPairsCoversTheTrueErrors) {
  const std::vector<double> d = {9.0, 4.0, 2.0, 1.0, 0.5, 0.25};
  const int64_t n = 6;
  std::vector<double> a(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i * n + i)] = std::sqrt(d[static_cast<size_t>(i)]);
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, make_dense_source(std::move(a), n, n));
  STRATA_ASSERT_OK_AND_ASSIGN(auto op, make_gram_operator(testing::test_ctx(), src, Precision::Float64));
  DenseMatrix w(n, 3);
  for (int64_t c = 0; c < 3; ++c) {
    w(c, c) = 1.0;
    for (int64_t i = 3; i < n; ++i) w(i, c) = 1e-3 * double(i + c);
  }
  STRATA_ASSERT_OK_AND_ASSIGN(CheckedPairs cp, check_pairs(testing::test_ctx(), *op, w));
  EXPECT_EQ(cp.passes, 1);
  for (int64_t c = 0; c < 3; ++c) {
    const auto u = static_cast<size_t>(c);
    EXPECT_LE(cp.values[u], d[u] + 1e-15);
    EXPECT_GE(cp.value_bound[u], d[u] - cp.values[u]) << c;
    const double sin = std::sqrt(std::max(0.0, 1.0 - cp.vectors(c, c) * cp.vectors(c, c)));
    EXPECT_GE(cp.vector_bound[u], sin - 1e-15) << c;
  }
  EXPECT_GT(cp.value_bound[0], 0.0);
}

}  // namespace
}  // namespace strata::linalg
