#include "strata/linalg/dense.hpp"

#include <random>

#include "core/test_context.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::linalg {
namespace {

DenseMatrix random_matrix(int64_t r, int64_t c, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d;
  DenseMatrix m(r, c);
  for (double& x : m.data) x = d(g);
  return m;
}

TEST(Dense, QrReconstructs) {
  DenseMatrix a = random_matrix(30, 7, 1);
  STRATA_ASSERT_OK_AND_ASSIGN(QrResult f, qr(test_ctx(), a));
  EXPECT_LT(orthogonality_error(f.q), 1e-14);
  DenseMatrix b = *matmul(test_ctx(), f.q, f.r);
  for (size_t i = 0; i < a.data.size(); ++i) EXPECT_NEAR(a.data[i], b.data[i], 1e-13);
}

TEST(Dense, OrthonormalizeUsesCholeskyQr2AndFallsBack) {
  DenseMatrix a = random_matrix(200, 10, 2);
  DenseMatrix r;
  DenseMatrix q = a;
  STRATA_ASSERT_OK_AND_ASSIGN(bool fell_back, orthonormalize(test_ctx(), q, &r));
  EXPECT_FALSE(fell_back);
  EXPECT_LT(orthogonality_error(q), 1e-14);
  DenseMatrix b = *matmul(test_ctx(), q, r);
  for (size_t i = 0; i < a.data.size(); ++i) EXPECT_NEAR(a.data[i], b.data[i], 1e-12);
  // Rank deficient: two equal columns. Householder keeps Q orthonormal.
  for (int64_t i = 0; i < a.rows; ++i) a(i, 3) = a(i, 1);
  q = a;
  STRATA_ASSERT_OK_AND_ASSIGN(fell_back, orthonormalize(test_ctx(), q, &r));
  EXPECT_TRUE(fell_back);
  EXPECT_LT(orthogonality_error(q), 1e-14);
  DenseMatrix wide(3, 5);
  STRATA_EXPECT_STATUS(orthonormalize(test_ctx(), wide), StatusCode::Invalid, "more columns");
}

TEST(Dense, SvdAndEigh) {
  DenseMatrix a = random_matrix(12, 9, 3);
  STRATA_ASSERT_OK_AND_ASSIGN(SvdDense f, svd_dense(test_ctx(), a));
  ASSERT_EQ(f.s.size(), 9u);
  for (size_t i = 1; i < f.s.size(); ++i) EXPECT_GE(f.s[i - 1], f.s[i]);
  DenseMatrix g = *matmul(test_ctx(), a, a, true, false);
  STRATA_ASSERT_OK_AND_ASSIGN(EighResult e, eigh(test_ctx(), g));
  for (size_t i = 0; i < f.s.size(); ++i) EXPECT_NEAR(e.w[i], f.s[i] * f.s[i], 1e-12 * e.w[0]);
  DenseMatrix nan(2, 2);
  nan(0, 0) = std::nan("");
  STRATA_EXPECT_STATUS(svd_dense(test_ctx(), nan), StatusCode::InvalidData, "NaN");
  STRATA_EXPECT_STATUS(eigh(test_ctx(), DenseMatrix(2, 3)), StatusCode::Invalid, "not square");
}

TEST(Dense, EighTopMatchesFullEigh) {
  const DenseMatrix a = random_matrix(60, 40, 4);
  const DenseMatrix g = *matmul(test_ctx(), a, a, true, false);
  STRATA_ASSERT_OK_AND_ASSIGN(EighResult full, eigh(test_ctx(), g));
  STRATA_ASSERT_OK_AND_ASSIGN(EighResult top, eigh_top(test_ctx(), g, 5));
  ASSERT_EQ(top.w.size(), 5u);
  ASSERT_EQ(top.z.rows, 40);
  ASSERT_EQ(top.z.cols, 5);
  for (int64_t j = 0; j < 5; ++j) {
    EXPECT_NEAR(top.w[static_cast<size_t>(j)], full.w[static_cast<size_t>(j)], 1e-12 * full.w[0]);
    // Same eigenvector up to sign, and each pair satisfies g·z = w·z.
    double dot = 0;
    for (int64_t i = 0; i < 40; ++i) dot += top.z(i, j) * full.z(i, j);
    EXPECT_NEAR(std::abs(dot), 1.0, 1e-10);
    for (int64_t i = 0; i < 40; ++i) {
      double gz = 0;
      for (int64_t l = 0; l < 40; ++l) gz += g(i, l) * top.z(l, j);
      EXPECT_NEAR(gz, top.w[static_cast<size_t>(j)] * top.z(i, j), 1e-10 * full.w[0]);
    }
  }
  STRATA_ASSERT_OK_AND_ASSIGN(EighResult none, eigh_top(test_ctx(), g, 0));
  EXPECT_TRUE(none.w.empty());
  STRATA_EXPECT_STATUS(eigh_top(test_ctx(), g, 41), StatusCode::Invalid, "count");
  STRATA_EXPECT_STATUS(eigh_top(test_ctx(), DenseMatrix(2, 3), 1), StatusCode::Invalid, "not square");
}

TEST(Dense, SignConvention) {
  DenseMatrix v(3, 2);
  v(0, 0) = 0.1; v(1, 0) = -0.9; v(2, 0) = 0.2;
  v(0, 1) = 0.5; v(1, 1) = 0.1; v(2, 1) = -0.3;
  auto signs = fix_signs_max_abs_positive(v);
  EXPECT_EQ(signs[0], -1.0);
  EXPECT_EQ(signs[1], 1.0);
  EXPECT_GT(v(1, 0), 0);
}

}  // namespace
}  // namespace strata::linalg
