#include "core/test_context.hpp"
#include "strata/genomics/pca.hpp"
#include <memory>
#include <string>
#include <utility>

#include "strata/core/thread_pool.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype_dosage.hpp"
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
// the codes are read through the selection's subset view; without, the counts pass and every
// product pass read the input. Both must give the same bits, here with a --maf selection
// dropping rows across groups.
TEST(Pca, CodesReadWithTheCountsGiveTheStreamedBits) {
  const int64_t m = 7000, n = 96;  // three groups of 3,072 variants
  SelectionOptions maf;
  maf.maf = 0.2;
  STRATA_ASSERT_OK_AND_ASSIGN(Selection sel, select_genotypes(test_ctx(), cohort(m, n, 5), maf));
  ASSERT_GT(sel.report.removed_maf, 1000);  // kept rows move down across group boundaries
  const io::GenotypeViewPtr view = sel.view;
  PcaParams o;
  o.k = 3;
  o.method = linalg::SvdMethod::Randomized;
  o.iterations = 3;
  ContextOptions small;
  small.memory_budget = 1 << 20;  // smaller than the 168 KB of codes plus the Krylov state
  STRATA_ASSERT_OK_AND_ASSIGN(Context streamed_ctx, Context::make(small));
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult resident, pca(test_ctx(), view, o));
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult streamed, pca(streamed_ctx, view, o));
  EXPECT_TRUE(resident.resident);
  EXPECT_FALSE(streamed.resident);
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
  std::vector<int64_t> polymorphic;  // every variant but the monomorphic one (3), which pca() leaves out
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

TEST(Pca, EveryVariantMonomorphic) {
  const std::vector<int8_t> zeros(50 * 20, 0);
  io::DosageMatrix d;
  d.data = zeros.data();
  d.type = io::DosageType::Int8;
  d.rows = 50;
  d.cols = 20;
  d.row_stride = 20;
  d.col_stride = 1;
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, io::make_dosage_genotypes(d));
  PcaParams o;
  o.k = 2;
  STRATA_EXPECT_STATUS(pca(test_ctx(), view, o), StatusCode::InvalidData,
                       "every variant was filtered out \\(0 by missingness, 50 monomorphic, 0 by MAF\\)");
}

// The distributed PCA's selection on counts keeps what select_genotypes keeps (--geno, --maf).
TEST(Pca, SelectionByCountsMatchesTheViewSelection) {
  auto view = cohort(400, 30, 7);
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, compute_variant_counts(test_ctx(), *view));
  for (auto [maf, geno] : {std::pair{0.1, 1.0}, std::pair{0.0, 0.0}, std::pair{0.3, 0.05}}) {
    SelectionOptions s;
    if (maf > 0) s.maf = maf;
    if (geno < 1) s.geno = geno;
    auto by_counts = select_variants_by_counts(s, counts);
    auto by_view = select_genotypes(test_ctx(), view, s);
    ASSERT_EQ(by_counts.ok(), by_view.ok()) << maf << " " << geno;
    if (by_view.ok()) {
      EXPECT_EQ(*by_counts, by_view->variants) << maf << " " << geno;
      EXPECT_LT(by_counts->size(), 400u);
    }
  }
  SelectionOptions chr;
  chr.chr = "1";
  STRATA_EXPECT_STATUS(select_variants_by_counts(chr, counts), StatusCode::Unsupported, "--geno and --maf alone");
  SelectionOptions rare;
  rare.maf = 0.01;
  const std::vector<VariantCounts> monomorphic(5, VariantCounts{30, 0, 0, 0});
  STRATA_EXPECT_STATUS(select_variants_by_counts(rare, monomorphic), StatusCode::InvalidData,
                       "no variants left after --maf \\(of 5\\)");
}

}  // namespace
}  // namespace strata::genomics
