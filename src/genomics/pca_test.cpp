#include "core/test_context.hpp"
#include "strata/genomics/pca.hpp"

#include "strata/core/thread_pool.hpp"
#include "strata/genomics/qc.hpp"
#include "genomics/test_cohort.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

TEST(Pca, MatchesDenseStandardizedSvd) {
  const int64_t m = 500, n = 80;
  auto view = cohort(m, n, 1);
  ASSERT_TRUE(view);
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, genomics::compute_variant_counts(test_ctx(), *view));
  // Dense reference: standardized matrix of the non-monomorphic variants.
  std::vector<int64_t> kept;
  for (int64_t v = 0; v < m; ++v)
    if (!counts[static_cast<size_t>(v)].monomorphic()) kept.push_back(v);
  STRATA_ASSERT_OK_AND_ASSIGN(auto block, io::read_genotype_block(*view, 0, m));
  linalg::DenseMatrix x(static_cast<int64_t>(kept.size()), n);
  for (size_t i = 0; i < kept.size(); ++i) {
    double lut[4];
    genomics::make_standardize_lut(counts[static_cast<size_t>(kept[i])], genomics::Standardization::Binom2, lut);
    for (int64_t j = 0; j < n; ++j) x(static_cast<int64_t>(i), j) = lut[io::code_at(block.row(kept[i]), j)];
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto ref, linalg::svd_dense(x));
  // plink2's scale: every variant passing the (absent) filters, the monomorphic one included.
  const double mm = static_cast<double>(m);
  for (auto method : {linalg::SvdMethod::Exact, linalg::SvdMethod::Randomized}) {
    PcaParams o;
    o.k = 4;
    o.method = method;
    o.iterations = 10;  // 10 blocks of 8 span all 80 samples: Rayleigh–Ritz is then exact
    STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
    ASSERT_EQ(r.variants_used.size(), kept.size());
    EXPECT_EQ(r.filter.dropped_monomorphic, 1);
    const double tol = method == linalg::SvdMethod::Exact ? 1e-10 : 1e-4;
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.eigenvalues[i] / (ref.s[i] * ref.s[i] / mm), 1.0, tol) << i;
    for (int c = 0; c < 1; ++c) {
      double dot = 0;
      for (int64_t j = 0; j < n; ++j) dot += r.eigenvectors(j, c) * ref.vt(c, j);
      EXPECT_NEAR(std::abs(dot), 1.0, method == linalg::SvdMethod::Exact ? 1e-10 : 1e-5);
    }
    EXPECT_EQ(r.loadings.rows, static_cast<int64_t>(kept.size()));
  }
}

TEST(Pca, EveryVariantFilteredOut) {
  auto view = cohort(50, 20, 2);
  PcaParams o;
  o.k = 2;
  o.filter.min_maf = 0.5;
  STRATA_EXPECT_STATUS(pca(test_ctx(), view, o), StatusCode::InvalidData, "every variant was filtered out");
}

}  // namespace
}  // namespace strata::genomics
