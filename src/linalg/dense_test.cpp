#include "strata/linalg/dense.hpp"

#include <random>

#include "testing/testing.hpp"

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
  STRATA_ASSERT_OK_AND_ASSIGN(QrResult f, qr(a));
  EXPECT_LT(orthogonality_error(f.q), 1e-14);
  DenseMatrix b = matmul(f.q, f.r);
  for (size_t i = 0; i < a.data.size(); ++i) EXPECT_NEAR(a.data[i], b.data[i], 1e-13);
}

TEST(Dense, OrthonormalizeUsesCholeskyQr2AndFallsBack) {
  DenseMatrix a = random_matrix(200, 10, 2);
  DenseMatrix r;
  DenseMatrix q = a;
  STRATA_ASSERT_OK_AND_ASSIGN(bool fell_back, orthonormalize(q, &r));
  EXPECT_FALSE(fell_back);
  EXPECT_LT(orthogonality_error(q), 1e-14);
  DenseMatrix b = matmul(q, r);
  for (size_t i = 0; i < a.data.size(); ++i) EXPECT_NEAR(a.data[i], b.data[i], 1e-12);
  // Rank deficient: two equal columns. Householder keeps Q orthonormal.
  for (int64_t i = 0; i < a.rows; ++i) a(i, 3) = a(i, 1);
  q = a;
  STRATA_ASSERT_OK_AND_ASSIGN(fell_back, orthonormalize(q, &r));
  EXPECT_TRUE(fell_back);
  EXPECT_LT(orthogonality_error(q), 1e-14);
  DenseMatrix wide(3, 5);
  STRATA_EXPECT_STATUS(orthonormalize(wide), StatusCode::Invalid, "more columns");
}

TEST(Dense, SvdAndEigh) {
  DenseMatrix a = random_matrix(12, 9, 3);
  STRATA_ASSERT_OK_AND_ASSIGN(SvdDense f, svd_dense(a));
  ASSERT_EQ(f.s.size(), 9u);
  for (size_t i = 1; i < f.s.size(); ++i) EXPECT_GE(f.s[i - 1], f.s[i]);
  DenseMatrix g = matmul(a, a, true, false);
  STRATA_ASSERT_OK_AND_ASSIGN(EighResult e, eigh(g));
  for (size_t i = 0; i < f.s.size(); ++i) EXPECT_NEAR(e.w[i], f.s[i] * f.s[i], 1e-12 * e.w[0]);
  DenseMatrix nan(2, 2);
  nan(0, 0) = std::nan("");
  STRATA_EXPECT_STATUS(svd_dense(nan), StatusCode::Invalid, "NaN");
  STRATA_EXPECT_STATUS(eigh(DenseMatrix(2, 3)), StatusCode::Invalid, "not square");
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
