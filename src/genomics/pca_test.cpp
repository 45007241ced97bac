#include "strata/genomics/pca.hpp"

#include <random>

#include "strata/core/thread_pool.hpp"
#include "strata/io/genotype_stats.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

// A memory view of M variants × N samples: two populations with different frequencies, a few
// missing calls, and one monomorphic variant.
io::GenotypeViewPtr cohort(int64_t m, int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const int64_t stride = io::packed_row_bytes(n);
  std::vector<uint8_t> codes(static_cast<size_t>(m * stride), 0xFF);
  for (int64_t v = 0; v < m; ++v) {
    const double p0 = 0.05 + 0.9 * u(g), p1 = std::clamp(p0 + 0.3 * (u(g) - 0.5), 0.02, 0.98);
    for (int64_t j = 0; j < n; ++j) {
      const double p = j < n / 2 ? p0 : p1;
      uint8_t c = static_cast<uint8_t>((u(g) < p) + (u(g) < p));
      if (u(g) < 0.01) c = io::kCodeMissing;
      if (v == 3) c = 0;  // monomorphic
      io::set_code(codes.data() + v * stride, j, c);
    }
  }
  io::SampleInfo samples;
  for (int64_t j = 0; j < n; ++j) samples.id.push_back("s" + std::to_string(j));
  io::VariantInfo vi;
  for (int64_t v = 0; v < m; ++v) {
    vi.contig.push_back(0);
    vi.position.push_back(v + 1);
    vi.id.push_back("v" + std::to_string(v));
    vi.ref.push_back("A");
    vi.alt.push_back("C");
    vi.cm.push_back(0);
  }
  auto view = io::make_memory_genotypes(std::move(codes), m, n, std::move(samples), {"1"}, std::move(vi));
  return view.ok() ? *view : nullptr;
}

TEST(Pca, MatchesDenseStandardizedSvd) {
  const int64_t m = 500, n = 80;
  auto view = cohort(m, n, 1);
  ASSERT_TRUE(view);
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, io::compute_variant_counts(*view));
  // Dense reference: standardized matrix of the non-monomorphic variants.
  std::vector<int64_t> kept;
  for (int64_t v = 0; v < m; ++v)
    if (!counts[static_cast<size_t>(v)].monomorphic()) kept.push_back(v);
  STRATA_ASSERT_OK_AND_ASSIGN(auto block, io::read_genotype_block(*view, 0, m));
  linalg::DenseMatrix x(static_cast<int64_t>(kept.size()), n);
  for (size_t i = 0; i < kept.size(); ++i) {
    double lut[4];
    io::make_standardize_lut(counts[static_cast<size_t>(kept[i])], io::Standardization::Binom2, lut);
    for (int64_t j = 0; j < n; ++j) x(static_cast<int64_t>(i), j) = lut[io::code_at(block.row(kept[i]), j)];
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto ref, linalg::svd_dense(x));
  const double mm = static_cast<double>(kept.size());
  for (auto method : {linalg::SvdMethod::Exact, linalg::SvdMethod::Randomized}) {
    PcaOptions o;
    o.k = 4;
    o.method = method;
    o.iterations = 6;
    STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(view, o));
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
  PcaOptions o;
  o.k = 2;
  o.filter.min_maf = 0.5;
  STRATA_EXPECT_STATUS(pca(view, o), StatusCode::Invalid, "every variant was filtered out");
}

}  // namespace
}  // namespace strata::genomics
