#include "core/test_context.hpp"
#include "strata/linalg/tsqr.hpp"

#include <mutex>

#include "linalg/test_util.hpp"
#include "strata/core/thread_pool.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::linalg {
namespace {

using testutil::gaussian;

struct TsqrCase {
  int64_t rows, cols, block_rows;
};

class TsqrChunkings : public ::testing::TestWithParam<TsqrCase> {};

TEST_P(TsqrChunkings, MatchesHouseholderQr) {
  const auto c = GetParam();
  std::vector<double> a = gaussian(c.rows, c.cols, 7).to_row_major();
  auto src = make_dense_source(a.data(), c.rows, c.cols);
  PassOptions opt;
  opt.block_rows = c.block_rows;
  DenseMatrix q(c.rows, c.cols);
  std::mutex mu;
  TsqrStats stats;
  STRATA_ASSERT_OK_AND_ASSIGN(DenseMatrix r, tsqr(test_ctx(), *src, [&](int64_t r0, int64_t n, int64_t k, const double* blk) {
    std::lock_guard<std::mutex> lk(mu);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j) q(r0 + i, j) = blk[i * k + j];
    return Status::OK();
  }, opt, &stats));
  EXPECT_EQ(stats.passes, 2);
  EXPECT_LT(orthogonality_error(q), 1e-13);
  DenseMatrix qr = *matmul(test_ctx(), q, r);
  const DenseMatrix dense = DenseMatrix::from_row_major(a.data(), c.rows, c.cols);
  double err = 0;
  for (size_t i = 0; i < qr.data.size(); ++i) err = std::max(err, std::abs(qr.data[i] - dense.data[i]));
  EXPECT_LT(err, 1e-12);
  // |R| agrees with LAPACK's R (dgeqrf called here, not strata's QR helper) up to the signs of its rows.
  const DenseMatrix ref_r = testutil::lapack_r(dense);
  for (int64_t i = 0; i < c.cols; ++i)
    for (int64_t j = i; j < c.cols; ++j) EXPECT_NEAR(std::abs(r(i, j)), std::abs(ref_r(i, j)), 1e-11) << i << "," << j;
}

INSTANTIATE_TEST_SUITE_P(Shapes, TsqrChunkings,
                         ::testing::Values(TsqrCase{300, 20, 0}, TsqrCase{300, 20, 1}, TsqrCase{300, 20, 7},
                                           TsqrCase{300, 20, 64}, TsqrCase{300, 20, 299}, TsqrCase{20, 20, 3},
                                           TsqrCase{10000, 5, 1000}, TsqrCase{9000, 13, 4100}, TsqrCase{50, 1, 8}));

TEST(Tsqr, SameBitsForAnyThreadCount) {
  std::vector<double> a = gaussian(40000, 12, 3).to_row_major();
  auto src = make_dense_source(a.data(), 40000, 12);
  std::vector<DenseMatrix> rs;
  for (int threads : {1, 2, 3}) {
    const Context ctx = testing::make_test_context(threads);
    PassOptions opt;
    opt.block_rows = 5000;
    STRATA_ASSERT_OK_AND_ASSIGN(DenseMatrix r, tsqr_r(ctx, *src, opt));
    rs.push_back(std::move(r));
  }
  EXPECT_EQ(rs[0].data, rs[1].data);
  EXPECT_EQ(rs[0].data, rs[2].data);
}

TEST(Tsqr, IllConditionedLeavesFallBackToHouseholder) {
  // Columns scaled over 14 orders of magnitude: CholeskyQR2 would lose everything.
  DenseMatrix d = gaussian(5000, 6, 5);
  for (int64_t j = 0; j < 6; ++j)
    for (int64_t i = 0; i < 5000; ++i) d(i, j) *= std::pow(10.0, -2.8 * j);
  std::vector<double> a = d.to_row_major();
  auto src = make_dense_source(a.data(), 5000, 6);
  TsqrStats stats;
  STRATA_ASSERT_OK_AND_ASSIGN(DenseMatrix r, tsqr_r(test_ctx(), *src, {}, &stats));
  EXPECT_GT(stats.householder_leaves, 0);
  const DenseMatrix ref_r = testutil::lapack_r(d);  // LAPACK directly: the leaves fall back to strata's QR
  for (int64_t i = 0; i < 6; ++i) EXPECT_NEAR(std::abs(r(i, i)) / std::abs(ref_r(i, i)), 1.0, 1e-9);
}

TEST(Tsqr, RejectsShortFat) {
  std::vector<double> a(20, 1.0);
  auto src = make_dense_source(a.data(), 2, 10);
  STRATA_EXPECT_STATUS(tsqr(test_ctx(), *src, [](int64_t, int64_t, int64_t, const double*) { return Status::OK(); }),
                       StatusCode::Invalid, "rows >= cols");
}

}  // namespace
}  // namespace strata::linalg
