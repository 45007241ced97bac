#include <cmath>

#include "core/test_context.hpp"
#include "linalg/test_util.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/linalg/gram_operator.hpp"
#include "strata/linalg/svd.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::linalg {
namespace {

using testutil::column_mismatch;
using testutil::with_spectrum;

// A structured top (10 values) over a flat, Marchenko–Pastur-like bulk of `bulk` values.
std::vector<double> flat_tail_spectrum(int64_t bulk, uint64_t seed) {
  std::vector<double> s = {40, 30, 22, 16, 12, 9.5, 8, 7, 6.4, 6.0};
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t i = 0; i < bulk; ++i) s.push_back(5.0 * std::sqrt(1.0 - 0.9 * u(g)));
  std::sort(s.begin(), s.end(), std::greater<>());
  return s;
}

struct Fixture {
  int64_t rows, cols;
  std::vector<double> s_true;
  std::vector<double> a;
  RowBlockSourcePtr src;
};

Fixture make_fixture(int64_t rows, int64_t cols, std::vector<double> s, uint64_t seed) {
  Fixture f{rows, cols, std::move(s), {}, nullptr};
  f.a = with_spectrum(rows, cols, f.s_true, seed);
  f.src = make_dense_source(f.a.data(), rows, cols);
  return f;
}

SvdParams randomized(int64_t k, RandomizedScheme scheme, int iterations) {
  SvdParams o;
  o.k = k;
  o.method = SvdMethod::Randomized;
  o.scheme = scheme;
  o.iterations = iterations;
  o.precision = Precision::Float64;
  return o;
}

TEST(RandomizedSvd, DecayingSpectrumToHighAccuracy) {
  std::vector<double> s;
  for (int i = 0; i < 120; ++i) s.push_back(100.0 * std::pow(0.8, i));
  Fixture f = make_fixture(2000, 300, s, 3);
  for (auto scheme : {RandomizedScheme::BlockKrylov, RandomizedScheme::SubspaceIteration}) {
    STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), f.src, randomized(10, scheme, 6)));
    ASSERT_EQ(r.s.size(), 10u);
    for (int i = 0; i < 10; ++i) EXPECT_NEAR(r.s[i] / s[i], 1.0, 1e-9) << i;
    EXPECT_LT(orthogonality_error(r.v), 1e-12);
    EXPECT_LT(orthogonality_error(r.u), 1e-9);
    // A·v = s·u.
    DenseMatrix av = *matmul(test_ctx(), DenseMatrix::from_row_major(f.a.data(), f.rows, f.cols), r.v);
    for (int64_t j = 0; j < 10; ++j)
      for (int64_t i = 0; i < f.rows; ++i) ASSERT_NEAR(av(i, j), r.s[j] * r.u(i, j), 1e-9 * r.s[0]);
    EXPECT_EQ(r.passes, 7);
  }
}

TEST(RandomizedSvd, KrylovBeatsSubspaceOnFlatTailAndEstimateBoundsError) {
  Fixture f = make_fixture(3000, 400, flat_tail_spectrum(390, 5), 8);
  const testutil::LapackSvd exact = testutil::lapack_svd(DenseMatrix::from_row_major(f.a.data(), f.rows, f.cols));
  ASSERT_EQ(exact.info, 0);
  double worst_krylov = 0, worst_subspace = 0;
  for (auto scheme : {RandomizedScheme::BlockKrylov, RandomizedScheme::SubspaceIteration}) {
    for (int iters : {2, 4, 8}) {
      SvdParams o = randomized(10, scheme, iters);
      o.compute_u = false;
      STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), f.src, o));
      double worst = 0;
      for (int i = 0; i < 10; ++i) {
        const double truth = exact.s[i] * exact.s[i];
        const double err = (truth - r.s[i] * r.s[i]) / truth;
        EXPECT_GT(err, -1e-12) << "Nyström values never exceed the truth";
        // Where the estimate claims convergence (< 0.1) it must bound the error; larger
        // estimates flag an unconverged component.
        EXPECT_TRUE(err <= r.error_estimate[i] * 1.0001 + 1e-14 || r.error_estimate[i] >= 0.1)
            << err << " vs " << r.error_estimate[i] << ": component " << i << " iterations " << iters << " krylov " << (scheme == RandomizedScheme::BlockKrylov);
        worst = std::max(worst, err);
      }
      if (iters == 8) (scheme == RandomizedScheme::BlockKrylov ? worst_krylov : worst_subspace) = worst;
    }
  }
  EXPECT_LT(worst_krylov, 1e-6);
  EXPECT_LT(worst_krylov * 10, worst_subspace);
}

TEST(RandomizedSvd, SameBitsForAnyThreadCountAndPrecision) {
  Fixture f = make_fixture(5000, 600, flat_tail_spectrum(200, 2), 4);
  for (Precision p : {Precision::Float32, Precision::Float64}) {
    std::vector<SvdResult> rs;
    for (int threads : {1, 2, 3}) {
      const Context ctx = testing::make_test_context(threads);
      SvdParams o = randomized(5, RandomizedScheme::BlockKrylov, 4);
      o.precision = p;
      o.pass.block_rows = 700;
      STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(ctx, f.src, o));
      rs.push_back(std::move(r));
    }
    for (int t = 1; t < 3; ++t) {
      EXPECT_EQ(rs[0].s, rs[t].s);
      EXPECT_EQ(rs[0].v.data, rs[t].v.data);
      EXPECT_EQ(rs[0].u.data, rs[t].u.data);
      EXPECT_EQ(rs[0].error_estimate, rs[t].error_estimate);
    }
  }
}

TEST(RandomizedSvd, ChunkingChangesOnlyRounding) {
  Fixture f = make_fixture(2000, 300, flat_tail_spectrum(100, 9), 6);
  std::vector<SvdResult> rs;
  for (int64_t br : {1, 37, 512, 2000}) {
    SvdParams o = randomized(6, RandomizedScheme::BlockKrylov, 5);
    o.pass.block_rows = br;
    STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), f.src, o));
    rs.push_back(std::move(r));
  }
  for (size_t t = 1; t < rs.size(); ++t) {
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(rs[t].s[i] / rs[0].s[i], 1.0, 1e-12);
    EXPECT_LT(column_mismatch(rs[t].v, rs[0].v), 1e-10);
    for (size_t i = 0; i < rs[0].v.data.size(); ++i) ASSERT_NEAR(rs[t].v.data[i], rs[0].v.data[i], 1e-8) << "signs";
  }
}

TEST(RandomizedSvd, Float32OnGenotypeLikeData) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, make_random_source(3000, 500, RandomDistribution::RandInt3, 7));
  SvdParams o;
  o.k = 5;
  o.method = SvdMethod::Randomized;
  o.iterations = 10;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), src, o));  // auto precision: float32 for uint8 data
  STRATA_ASSERT_OK_AND_ASSIGN(auto all, read_all(*src));
  const testutil::LapackSvd exact = testutil::lapack_svd(DenseMatrix::from_row_major(all.data(), 3000, 500));
  ASSERT_EQ(exact.info, 0);
  EXPECT_NEAR(r.s[0] / exact.s[0], 1.0, 1e-6);
  for (int i = 1; i < 5; ++i) EXPECT_NEAR(r.s[i] / exact.s[i], 1.0, 2e-3) << i;
  for (int i = 0; i < 5; ++i) EXPECT_GE(r.error_estimate[i], 0.0);
}

TEST(RandomizedSvd, BadInputs) {
  std::vector<double> zeros(100 * 30, 0.0);
  auto src = make_dense_source(zeros.data(), 100, 30);
  SvdParams o = randomized(3, RandomizedScheme::BlockKrylov, 3);
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, o), StatusCode::InvalidData, "zero");
  std::vector<double> ones(100 * 30, 1.0);
  src = make_dense_source(ones.data(), 100, 30);
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, o), StatusCode::InvalidData, "numerical rank");
  o.k = 30;
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, o), StatusCode::InvalidData, "less than min");
  o.k = 3;
  o.iterations = 0;
  STRATA_EXPECT_STATUS(svd(test_ctx(), src, o), StatusCode::Invalid, "at least 1 iteration");
}

TEST(RandomizedSvd, AutoPicksByShape) {
  Fixture f = make_fixture(400, 50, flat_tail_spectrum(40, 1), 2);
  SvdParams o;
  o.k = 3;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), f.src, o));
  EXPECT_EQ(r.method, SvdMethod::Exact);
  o.exact_max_dim = 10;
  STRATA_ASSERT_OK_AND_ASSIGN(r, svd(test_ctx(), f.src, o));
  EXPECT_EQ(r.method, SvdMethod::Randomized);
}

// Blocks narrower than k: the Ritz space spans several blocks and still resolves the top k
// (the genotype PCA default is 8 columns per pass for any k).
// An operator that multiplies exactly but rounds its operand coarsely (9 bits per column), as
// the mixed genotype arithmetic does at 15 bits: the basis is then far from orthonormal
// (~1e-3), and only Ritz pairs taken against KᵀK keep the exact answer.
class CoarseOperandOperator final : public GramOperator {
 public:
  explicit CoarseOperandOperator(GramOperatorPtr inner) : inner_(std::move(inner)) {}
  int64_t rows() const override { return inner_->rows(); }
  int64_t cols() const override { return inner_->cols(); }
  std::string describe() const override { return "coarse operand"; }
  bool single_precision() const override { return false; }
  Status gram(const DenseMatrix& q, DenseMatrix& y) const override { return inner_->gram(q, y); }
  Status project(const DenseMatrix& x, const FactorSink& sink) const override { return inner_->project(x, sink); }
  bool rounds_operand() const override { return true; }
  DenseMatrix operand(const DenseMatrix& q) const override {
    DenseMatrix out = q;
    for (int64_t j = 0; j < q.cols; ++j) {
      double mx = 0;
      for (int64_t i = 0; i < q.rows; ++i) mx = std::max(mx, std::abs(q(i, j)));
      const double step = mx / 255.0;
      for (int64_t i = 0; i < q.rows; ++i) out(i, j) = step > 0 ? std::nearbyint(q(i, j) / step) * step : 0.0;
    }
    return out;
  }

 private:
  GramOperatorPtr inner_;
};

TEST(RandomizedSvd, RoundedOperandsKeepExactAnswers) {
  std::vector<double> s;
  for (int i = 0; i < 120; ++i) s.push_back(100.0 * std::pow(0.8, i));
  Fixture f = make_fixture(2000, 300, s, 3);
  STRATA_ASSERT_OK_AND_ASSIGN(GramOperatorPtr exact, make_gram_operator(test_ctx(), f.src, Precision::Float64, PassOptions{}));
  const CoarseOperandOperator coarse(exact);
  const DenseMatrix a = DenseMatrix::from_row_major(f.a.data(), f.rows, f.cols);
  for (auto scheme : {RandomizedScheme::BlockKrylov, RandomizedScheme::SubspaceIteration}) {
    SvdParams o = randomized(10, scheme, scheme == RandomizedScheme::BlockKrylov ? 6 : 12);
    o.tolerance = 1e-12;
    STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd_randomized(test_ctx(), coarse, o));
    ASSERT_EQ(r.s.size(), 10u);
    for (int i = 0; i < 10; ++i) EXPECT_NEAR(r.s[i] / s[i], 1.0, 1e-9) << i;
    EXPECT_LT(orthogonality_error(r.v), 1e-12);
    DenseMatrix av = *matmul(test_ctx(), a, r.v);
    for (int64_t j = 0; j < 10; ++j)
      for (int64_t i = 0; i < f.rows; ++i) ASSERT_NEAR(av(i, j), r.s[j] * r.u(i, j), 1e-9 * r.s[0]);
    // The error estimates come from true residuals, so they still bound the error.
    for (int i = 0; i < 10; ++i) EXPECT_LE(1.0 - r.s[i] * r.s[i] / (s[i] * s[i]), r.error_estimate[i] + 1e-13) << i;
  }
}

TEST(RandomizedSvd, BlocksNarrowerThanK) {
  std::vector<double> s;
  for (int i = 0; i < 120; ++i) s.push_back(100.0 * std::pow(0.8, i));
  Fixture f = make_fixture(2000, 300, s, 5);
  SvdParams o = randomized(10, RandomizedScheme::BlockKrylov, 12);
  o.block_columns = 4;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), f.src, o));
  ASSERT_EQ(r.s.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(r.s[i] / s[i], 1.0, 1e-8) << i;
  EXPECT_LT(orthogonality_error(r.v), 1e-12);
  EXPECT_EQ(r.krylov_width, 48);

  // Too few columns in all, negative blocks, and subspace iteration with b < k are refused.
  o.iterations = 2;
  STRATA_EXPECT_STATUS(svd(test_ctx(), f.src, o), StatusCode::Invalid,
                       "^randomized SVD: 2 passes of 4 columns cannot resolve k = 10 \\(need at least k columns in all\\)$");
  o.iterations = 12;
  o.block_columns = -1;
  STRATA_EXPECT_STATUS(svd(test_ctx(), f.src, o), StatusCode::Invalid, "^block_columns must be >= 0, got -1$");
  SvdParams sub = randomized(10, RandomizedScheme::SubspaceIteration, 12);
  sub.block_columns = 4;
  STRATA_EXPECT_STATUS(svd(test_ctx(), f.src, sub), StatusCode::Invalid,
                       "^subspace iteration needs blocks of at least k = 10 columns, got 4$");
}

}  // namespace
}  // namespace strata::linalg
