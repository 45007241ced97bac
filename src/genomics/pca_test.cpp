#include "core/test_context.hpp"
#include "strata/genomics/pca.hpp"
#include <memory>
#include <string>
#include <utility>

#include "strata/core/thread_pool.hpp"
#include "strata/genomics/qc.hpp"
#include "genomics/test_cohort.hpp"
#include "genomics/test_grm_reference.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

TEST(Pca, MatchesDenseStandardizedSvd) {
  const int64_t m = 500, n = 80;
  auto view = cohort(m, n, 1);
  ASSERT_TRUE(view);
  // Reference: eigenpairs of XᵀX/M with X the non-monomorphic variants standardized in the test
  // from the generator's dosages (not through the library's counts, tables or SVD).
  const std::vector<int8_t> dosages = cohort_dosages(m, n, 1);
  int64_t polymorphic = 0;
  for (int64_t v = 0; v < m; ++v) polymorphic += reference_freq(dosages, n, v).polymorphic ? 1 : 0;
  ASSERT_EQ(polymorphic, m - 1);
  // plink2's scale: every variant passing the (absent) filters, the monomorphic one included.
  const GrmEig ref = reference_grm(dosages, m, n, static_cast<double>(m));
  // Exact by TSQR (1e-10), exact by the GRM pass (float32 products: 1e-7), randomized (1e-4).
  for (auto [method, route] : {std::pair{linalg::SvdMethod::Exact, PcaRoute::Tsqr},
                               std::pair{linalg::SvdMethod::Exact, PcaRoute::Grm},
                               std::pair{linalg::SvdMethod::Exact, PcaRoute::Krylov},
                               std::pair{linalg::SvdMethod::Randomized, PcaRoute::Auto}}) {
    PcaParams o;
    o.k = 4;
    o.method = method;
    o.exact_route = route;
    o.iterations = 10;  // 10 blocks of 8 span all 80 samples: Rayleigh–Ritz is then exact
    STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
    ASSERT_EQ(static_cast<int64_t>(r.variants_used.size()), polymorphic);
    if (route != PcaRoute::Auto) EXPECT_EQ(r.route, pca_route_name(route));
    EXPECT_EQ(r.filter.dropped_monomorphic, 1);
    const double tol = route == PcaRoute::Tsqr     ? 1e-10
                       : route == PcaRoute::Grm    ? 1e-7
                       : route == PcaRoute::Krylov ? 1e-6
                                                   : 1e-4;
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.eigenvalues[i] / ref.w[static_cast<size_t>(i)], 1.0, tol) << i;
    for (int c = 0; c < 1; ++c) {
      double dot = 0;
      for (int64_t j = 0; j < n; ++j) dot += r.eigenvectors(j, c) * ref.z[static_cast<size_t>(c * n + j)];
      EXPECT_NEAR(std::abs(dot), 1.0, route == PcaRoute::Tsqr ? 1e-10 : 1e-5);
    }
    EXPECT_EQ(r.loadings.rows, polymorphic);
  }
}

// With room for every variant's codes, one read gives the counts and the resident codes, and
// the filters move the kept rows down in place; without, the counts pass and every product pass
// read the input. Both must give the same bits, here with a filter dropping rows across groups.
TEST(Pca, CodesReadWithTheCountsGiveTheStreamedBits) {
  const int64_t m = 7000, n = 96;  // three groups of 3,072 variants
  auto view = cohort(m, n, 5);
  ASSERT_TRUE(view);
  PcaParams o;
  o.k = 3;
  o.method = linalg::SvdMethod::Randomized;
  o.iterations = 3;
  o.filter.min_maf = 0.2;
  ContextOptions small;
  small.memory_budget = 1 << 20;  // smaller than the 168 KB of codes plus the Krylov state
  STRATA_ASSERT_OK_AND_ASSIGN(Context streamed_ctx, Context::make(small));
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult resident, pca(test_ctx(), view, o));
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult streamed, pca(streamed_ctx, view, o));
  EXPECT_TRUE(resident.resident);
  EXPECT_FALSE(streamed.resident);
  ASSERT_GT(resident.filter.dropped_maf, 1000);  // kept rows move down across group boundaries
  EXPECT_EQ(resident.variants_used, streamed.variants_used);
  EXPECT_EQ(resident.eigenvalues, streamed.eigenvalues);
  EXPECT_EQ(resident.eigenvectors.data, streamed.eigenvectors.data);
  EXPECT_EQ(resident.loadings.data, streamed.loadings.data);
}

// Records one progress task: its first total and where it ended.
struct TaskRecord final : ProgressSink {
  void begin(std::string_view, int64_t total, std::string_view) override { first_total = total; }
  void update(int64_t, int64_t) override {}
  void end(int64_t d, int64_t total) override {
    done = d;
    last_total = total;
  }
  int64_t first_total = -1, done = -1, last_total = -1;
};

// The task's total is the work the route's passes do: a run ends at 100 % on every route,
// and, where the filters keep every variant, its total was known when it began.
TEST(Pca, ProgressEndsAtItsTotalOnEveryRoute) {
  const int64_t m = 900, n = 60;
  const io::GenotypeViewPtr view = cohort(m, n, 7);
  std::vector<int64_t> polymorphic;  // every variant but the monomorphic one (3)
  for (int64_t v = 0; v < m; ++v)
    if (v != 3) polymorphic.push_back(v);
  const io::GenotypeViewPtr all_kept = io::make_variant_subset(view, polymorphic);
  for (auto [method, route] : {std::pair{linalg::SvdMethod::Exact, PcaRoute::Tsqr},
                               std::pair{linalg::SvdMethod::Exact, PcaRoute::Grm},
                               std::pair{linalg::SvdMethod::Randomized, PcaRoute::Auto}}) {
    for (bool dropping : {true, false}) {
      auto sink = std::make_shared<TaskRecord>();
      ContextOptions co;
      co.threads = 2;
      co.progress = sink;
      STRATA_ASSERT_OK_AND_ASSIGN(Context ctx, Context::make(co));
      PcaParams o;
      o.k = 3;
      o.method = method;
      o.exact_route = route;
      o.iterations = 4;
      if (dropping) o.filter.min_maf = 0.1;
      STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(ctx, dropping ? view : all_kept, o));
      const std::string what = std::string(r.route) + (dropping ? " dropping" : " keeping");
      const int64_t input = dropping ? m : m - 1, used = static_cast<int64_t>(r.variants_used.size());
      EXPECT_EQ(used < input, dropping) << what;
      EXPECT_GE(sink->done, input + used) << what;  // the counts pass and at least one pass over the used
      EXPECT_GT(sink->first_total, input) << what;  // the bar does not fill on the counts pass
      EXPECT_EQ(sink->done, sink->last_total) << what;
      if (!dropping) EXPECT_EQ(sink->first_total, sink->last_total) << what;  // the GRM pass: one band here
    }
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
