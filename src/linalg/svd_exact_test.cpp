#include <mutex>

#include "core/test_context.hpp"
#include "linalg/test_util.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/linalg/svd.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::linalg {
namespace {

using testutil::column_mismatch;
using testutil::gaussian;
using testutil::min_cos_angle;

struct ExactCase {
  int64_t rows, cols, k, block_rows;
};

class ExactSvd : public ::testing::TestWithParam<ExactCase> {};

TEST_P(ExactSvd, MatchesLapack) {
  const auto c = GetParam();
  std::vector<double> a = gaussian(c.rows, c.cols, 11).to_row_major();
  // A dominant direction, as real data has (a mean), so U is not the trivial case.
  for (int64_t i = 0; i < c.rows; ++i) a[static_cast<size_t>(i * c.cols)] += 5.0;
  auto src = make_dense_source(a.data(), c.rows, c.cols);
  SvdParams opt;
  opt.k = c.k;
  opt.method = SvdMethod::Exact;
  opt.pass.block_rows = c.block_rows;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), src, opt));
  const testutil::LapackSvd ref = testutil::lapack_svd(DenseMatrix::from_row_major(a.data(), c.rows, c.cols));
  ASSERT_EQ(ref.info, 0);
  const int64_t k = c.k == 0 ? std::min(c.rows, c.cols) : c.k;
  ASSERT_EQ(static_cast<int64_t>(r.s.size()), k);
  for (int64_t i = 0; i < k; ++i) EXPECT_NEAR(r.s[i] / ref.s[i], 1.0, 1e-10) << i;
  ASSERT_EQ(r.u.rows, c.rows);
  ASSERT_EQ(r.v.rows, c.cols);
  EXPECT_LT(orthogonality_error(r.u), 1e-12);
  EXPECT_LT(orthogonality_error(r.v), 1e-12);
  EXPECT_GT(min_cos_angle(r.u, ref.u.leading_cols(k)), 1 - 1e-10);
  EXPECT_LT(column_mismatch(r.v, ref.v.leading_cols(k)), 1e-10);
  // A·v_i = s_i·u_i.
  DenseMatrix av = *matmul(test_ctx(), DenseMatrix::from_row_major(a.data(), c.rows, c.cols), r.v);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < c.rows; ++i) ASSERT_NEAR(av(i, j), r.s[j] * r.u(i, j), 1e-10 * r.s[0]);
  EXPECT_EQ(r.transposed, c.rows < c.cols);
}

INSTANTIATE_TEST_SUITE_P(Chunkings, ExactSvd,
                         ::testing::Values(ExactCase{500, 20, 0, 0}, ExactCase{500, 20, 5, 1}, ExactCase{500, 20, 20, 13},
                                           ExactCase{500, 20, 3, 250}, ExactCase{2000, 40, 10, 333},
                                           ExactCase{20, 500, 0, 0}, ExactCase{20, 500, 7, 9}, ExactCase{33, 33, 0, 4},
                                           ExactCase{9000, 3, 2, 4097}));

TEST(ExactSvd, SignsMakeLargestEntryOfVPositive) {
  std::vector<double> a = gaussian(300, 8, 2).to_row_major();
  auto src = make_dense_source(a.data(), 300, 8);
  SvdParams opt;
  opt.method = SvdMethod::Exact;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), src, opt));
  for (int64_t j = 0; j < r.v.cols; ++j) {
    int64_t arg = 0;
    for (int64_t i = 0; i < r.v.rows; ++i)
      if (std::abs(r.v(i, j)) > std::abs(r.v(arg, j))) arg = i;
    EXPECT_GT(r.v(arg, j), 0);
  }
}

TEST(ExactSvd, IllConditionedUsesQrRoute) {
  std::vector<double> s = {1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10};
  std::vector<double> a = testutil::with_spectrum(3000, 6, s, 4);
  auto src = make_dense_source(a.data(), 3000, 6);
  SvdParams opt;
  opt.method = SvdMethod::Exact;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), src, opt));
  EXPECT_EQ(r.u_route, "qr");
  EXPECT_LT(orthogonality_error(r.u), 1e-13);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(r.s[i] / s[i], 1.0, 1e-5 + 1e-15 / s[i]) << i;
  opt.k = 2;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r2, svd(test_ctx(), src, opt));
  EXPECT_EQ(r2.u_route, "projection");
}

TEST(ExactSvd, SameBitsForAnyThreadCount) {
  std::vector<double> a = gaussian(30000, 16, 9).to_row_major();
  auto src = make_dense_source(a.data(), 30000, 16);
  std::vector<SvdResult> rs;
  for (int threads : {1, 2}) {
    const Context ctx = testing::make_test_context(threads);
    SvdParams opt;
    opt.k = 5;
    opt.method = SvdMethod::Exact;
    opt.pass.block_rows = 4000;
    STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(ctx, src, opt));
    rs.push_back(std::move(r));
  }
  EXPECT_EQ(rs[0].s, rs[1].s);
  EXPECT_EQ(rs[0].u.data, rs[1].u.data);
  EXPECT_EQ(rs[0].v.data, rs[1].v.data);
}

TEST(ExactSvd, StreamsUThroughSink) {
  std::vector<double> a = gaussian(1000, 10, 6).to_row_major();
  auto src = make_dense_source(a.data(), 1000, 10);
  SvdParams opt;
  opt.k = 4;
  opt.method = SvdMethod::Exact;
  opt.pass.block_rows = 100;
  std::mutex mu;
  int64_t rows_seen = 0;
  opt.u_sink = [&](int64_t, int64_t n, int64_t k, const double*) {
    std::lock_guard<std::mutex> lk(mu);
    rows_seen += n;
    EXPECT_EQ(k, 4);
    return Status::OK();
  };
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), src, opt));
  EXPECT_EQ(rows_seen, 1000);
  EXPECT_TRUE(r.u.empty());
  EXPECT_EQ(r.passes, 2);
  opt.u_sink = [](int64_t, int64_t, int64_t, const double*) { return Status::IOError("disk full"); };
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, opt), StatusCode::IOError, "disk full");
}

TEST(ExactSvd, BadInputs) {
  std::vector<double> zeros(200, 0.0);
  auto src = make_dense_source(zeros.data(), 20, 10);
  SvdParams opt;
  opt.method = SvdMethod::Exact;
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, opt), StatusCode::InvalidData, "zero");
  std::vector<double> a = gaussian(20, 10, 1).to_row_major();
  src = make_dense_source(a.data(), 20, 10);
  opt.k = 11;
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, opt), StatusCode::InvalidData, "at most min");
  opt.k = -1;
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, opt), StatusCode::Invalid, "positive");
  auto empty = make_dense_source(a.data(), 0, 10);
  opt.k = 1;
  STRATA_EXPECT_STATUS(svd(test_ctx(), empty, opt), StatusCode::InvalidData, "empty");
}

}  // namespace
}  // namespace strata::linalg
