// The variant-split passes a cluster runs (grm_partial, pair_count_partial) against the
// one-shot ones: partials of consecutive variant ranges, combined as the driver combines them
// (block sums added in block order, counts summed) and finished, are the same bits.
#include <cstring>
#include <numeric>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/backend/backend.hpp"
#include "strata/genomics/distance.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/genomics/king.hpp"
#include "strata/genomics/qc.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

// Variants [v0, v1) of `view`.
io::GenotypeViewPtr range_of(const io::GenotypeViewPtr& view, int64_t v0, int64_t v1) {
  std::vector<int64_t> idx(static_cast<size_t>(v1 - v0));
  std::iota(idx.begin(), idx.end(), v0);
  return io::make_variant_subset(view, idx);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(PairPartial, GrmBlockSumsAddedInOrderAreTheOneShotBits) {
  const int64_t n = 45;
  const int64_t bv = grm_block_variants(n), m = 2 * bv + 300;  // two whole blocks and a partial one
  const auto view = cohort(m, n, 21);
  ASSERT_NE(view, nullptr);
  const Context ctx = testing::make_test_context(2);
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, compute_variant_counts(ctx, *view));
  const int64_t pairs = n * (n + 1) / 2;
  for (bool meanimpute : {false, true}) {
    GrmParams p;
    p.meanimpute = meanimpute;
    STRATA_ASSERT_OK_AND_ASSIGN(auto ref, compute_grm_dense(ctx, view, p));
    // Ranges starting at block boundaries, as the cluster's tasks take them.
    for (const std::vector<int64_t>& cuts : {std::vector<int64_t>{0, m}, {0, bv, m}, {0, bv, 2 * bv, m}}) {
      std::vector<double> sums(static_cast<size_t>(pairs), 0.0), both;
      int64_t blocks = 0;
      for (size_t r = 0; r + 1 < cuts.size(); ++r) {
        const std::vector<VariantCounts> c(counts.begin() + cuts[r], counts.begin() + cuts[r + 1]);
        STRATA_ASSERT_OK_AND_ASSIGN(GrmPartial part,
                                    grm_partial(testing::make_test_context(1 + static_cast<int>(r)),
                                                range_of(view, cuts[r], cuts[r + 1]), c, p));
        for (int64_t b = 0; b < part.blocks; ++b, ++blocks)
          for (int64_t e = 0; e < pairs; ++e)
            sums[static_cast<size_t>(e)] += part.block_sums[static_cast<size_t>(b * pairs + e)];
        if (part.both_missing.empty()) continue;
        both.resize(static_cast<size_t>(pairs), 0.0);
        for (int64_t e = 0; e < pairs; ++e) both[static_cast<size_t>(e)] += part.both_missing[static_cast<size_t>(e)];
      }
      EXPECT_EQ(blocks, 3);
      EXPECT_EQ(both.empty(), meanimpute);  // the cohort has missing calls
      STRATA_ASSERT_OK_AND_ASSIGN(auto g, grm_from_sums(n, m, sums, both));
      EXPECT_TRUE(same_bits(g, ref)) << cuts.size() - 1 << " ranges, meanimpute " << meanimpute;
    }
  }
}

TEST(PairPartial, GrmPartialRefusesOtherRoutesAndFinishChecksItsSizes) {
  const auto view = cohort(200, 10, 3);
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, compute_variant_counts(testing::test_ctx(), *view));
  GrmParams p;
  p.float64 = false;
  auto r = grm_partial(testing::test_ctx(), view, counts, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::Invalid);
  EXPECT_NE(r.status().message().find("float64 route"), std::string::npos) << r.status().message();
  auto f = grm_from_sums(10, 200, std::vector<double>(54), {});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("expected n(n+1)/2 = 55"), std::string::npos) << f.status().message();
}

// Summed partial counts of consecutive ranges (any cut: counts add exactly).
std::vector<int32_t> summed_counts(const io::GenotypeViewPtr& view, const std::vector<int64_t>& cuts, bool king_only) {
  std::vector<int32_t> sum;
  for (size_t r = 0; r + 1 < cuts.size(); ++r) {
    auto part = pair_count_partial(testing::make_test_context(1 + static_cast<int>(r)),
                                   *range_of(view, cuts[r], cuts[r + 1]), king_only);
    EXPECT_TRUE(part.ok()) << part.status().to_string();
    if (sum.empty()) sum.assign(part->size(), 0);
    for (size_t k = 0; k < sum.size(); ++k) sum[k] += (*part)[k];
  }
  return sum;
}

TEST(PairPartial, KingAndDistancesFromSummedCountsAreTheOneShotBits) {
  const int64_t m = 1500, n = 300;  // two tile rows of the pair pass (tile 256)
  const auto view = cohort(m, n, 17);
  ASSERT_NE(view, nullptr);
  const Context ctx = testing::make_test_context(2);
  STRATA_ASSERT_OK_AND_ASSIGN(auto king, king_matrix(ctx, *view));
  const std::vector<int64_t> cuts{0, 1, 700, 701, m};
  const std::vector<int32_t> kc = summed_counts(view, cuts, true);
  ASSERT_EQ(kc.size(), static_cast<size_t>(backend::kKingCountFields * n * (n + 1) / 2));
  EXPECT_TRUE(same_bits(king_matrix_from_counts(n, kc.data()), king));
  const std::vector<int32_t> pc = summed_counts(view, cuts, false);
  for (const char* metric : {"euclidean", "ibs", "correlation", "minkowski:3"}) {
    STRATA_ASSERT_OK_AND_ASSIGN(auto spec, parse_distance_metric(metric));
    STRATA_ASSERT_OK_AND_ASSIGN(auto d, distance_matrix(ctx, *view, spec));
    EXPECT_TRUE(same_bits(distance_matrix_from_counts(n, pc.data(), spec), d)) << metric;
  }
  // One range's counts are not the whole pass's: the check can fail.
  const std::vector<int32_t> half = summed_counts(view, {0, 700}, true);
  EXPECT_FALSE(same_bits(king_matrix_from_counts(n, half.data()), king));
}

}  // namespace
}  // namespace strata::genomics
