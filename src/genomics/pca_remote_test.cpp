// pca_remote(): group partials computed apart (as Dask workers do) and added in order give the
// same bits as pca() of the same genotypes.
#include <cmath>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/genomics/genotype_gram.hpp"
#include "strata/genomics/pca.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

// A runner computing each group from the view's codes with genotype_gram_group(), on its own
// single-threaded context, handing groups back in order: what python/strata/_dask.py does.
class ApartRunner final : public GenotypeGroupRunner {
 public:
  explicit ApartRunner(io::GenotypeViewPtr view) : view_(std::move(view)), counts_(*compute_variant_counts(test_ctx(), *view_)) {}
  Status plan(const std::vector<int64_t>& kept, Standardization scale, Precision arithmetic) override {
    kept_ = kept;
    scale_ = scale;
    arithmetic_ = arithmetic;
    ++plans;
    return Status::OK();
  }
  Status gram(const linalg::DenseMatrix& q, const std::function<Status(int64_t, GenotypeGramPartial&&)>& add) override {
    for (int64_t g = 0; g * kGenotypeGramGroupVariants < static_cast<int64_t>(kept_.size()); ++g) {
      STRATA_ASSIGN_OR_RETURN(GenotypeGroup grp, group(g));
      STRATA_ASSIGN_OR_RETURN(GenotypeGramPartial p, genotype_gram_group(worker_, grp, scale_, arithmetic_, q));
      STRATA_RETURN_NOT_OK(add(g, std::move(p)));
      ++gram_groups;
    }
    return Status::OK();
  }
  Status project(const linalg::DenseMatrix& x, const std::function<Status(int64_t, std::vector<double>&&)>& add) override {
    for (int64_t g = 0; g * kGenotypeGramGroupVariants < static_cast<int64_t>(kept_.size()); ++g) {
      STRATA_ASSIGN_OR_RETURN(GenotypeGroup grp, group(g));
      STRATA_ASSIGN_OR_RETURN(std::vector<double> rows, genotype_project_group(worker_, grp, scale_, x));
      STRATA_RETURN_NOT_OK(add(g, std::move(rows)));
    }
    return Status::OK();
  }
  const std::vector<VariantCounts>& counts() const { return counts_; }
  int plans = 0;
  int64_t gram_groups = 0;

 private:
  Result<GenotypeGroup> group(int64_t g) {
    const int64_t n = view_->num_samples(), stride = io::packed_row_bytes(n);
    const int64_t g0 = g * kGenotypeGramGroupVariants;
    const int64_t rows = std::min<int64_t>(kGenotypeGramGroupVariants, static_cast<int64_t>(kept_.size()) - g0);
    codes_.assign(static_cast<size_t>(rows * stride), 0);
    GenotypeGroup grp;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t v = kept_[static_cast<size_t>(g0 + i)];
      STRATA_RETURN_NOT_OK(view_->read_codes(v, 1, 0, n, codes_.data() + i * stride, stride));
      grp.counts.push_back(counts_[static_cast<size_t>(v)]);
    }
    grp.codes = codes_.data();
    grp.rows = rows;
    grp.samples = n;
    return grp;
  }
  io::GenotypeViewPtr view_;
  std::vector<VariantCounts> counts_;
  std::vector<int64_t> kept_;
  Standardization scale_ = Standardization::Binom2;
  Precision arithmetic_ = Precision::Int16;
  std::vector<uint8_t> codes_;
  Context worker_ = single_thread();
  static Context single_thread() {
    ContextOptions o;
    o.threads = 1;
    return *Context::make(o);
  }
};

TEST(PcaRemote, SameBitsAsLocalForEveryArithmetic) {
  // More than one 3,072-variant group, samples not a multiple of 16, missing calls.
  const io::GenotypeViewPtr view = cohort(7000, 203, 11);
  for (const char* arith : {"int16", "mixed", "float32"}) {
    PcaParams p;
    p.k = 3;
    p.method = linalg::SvdMethod::Randomized;
    p.precision = *parse_precision(arith);
    p.iterations = 6;
    p.check_errors = false;  // pca_remote has no float64 check pass (its codes are elsewhere)
    auto local = pca(test_ctx(), view, p);
    ASSERT_TRUE(local.ok()) << local.status().message();
    auto runner = std::make_shared<ApartRunner>(view);
    RemoteGenotypes g;
    g.num_samples = view->num_samples();
    g.description = "apart";
    g.counts = runner->counts();
    g.runner = runner;
    g.fetch = [] () -> Result<io::GenotypeViewPtr> { return Status::Invalid("the randomized route fetches nothing"); };
    auto remote = pca_remote(test_ctx(), g, p);
    ASSERT_TRUE(remote.ok()) << arith << ": " << remote.status().message();
    EXPECT_EQ(runner->plans, 1);
    EXPECT_TRUE(runner->gram_groups >= 3 * 6 && runner->gram_groups % 3 == 0) << arith;  // 3 groups a pass
    EXPECT_EQ(remote->eigenvalues, local->eigenvalues) << arith;
    EXPECT_EQ(remote->eigenvectors.data, local->eigenvectors.data) << arith;
    EXPECT_EQ(remote->loadings.data, local->loadings.data) << arith;
    EXPECT_EQ(remote->variants_used, local->variants_used);
  }
}

TEST(PcaRemote, ExactRoutesFetchTheCodes) {
  const io::GenotypeViewPtr view = cohort(500, 60, 4);
  PcaParams p;
  p.k = 2;
  auto local = pca(test_ctx(), view, p);
  ASSERT_TRUE(local.ok());
  auto runner = std::make_shared<ApartRunner>(view);
  RemoteGenotypes g;
  g.num_samples = 60;
  g.counts = runner->counts();
  g.runner = runner;
  int fetched = 0;
  g.fetch = [&]() -> Result<io::GenotypeViewPtr> { ++fetched; return view; };
  auto remote = pca_remote(test_ctx(), g, p);
  ASSERT_TRUE(remote.ok()) << remote.status().message();
  EXPECT_EQ(fetched, 1);
  EXPECT_EQ(remote->eigenvalues, local->eigenvalues);
  EXPECT_EQ(remote->eigenvectors.data, local->eigenvectors.data);
}

// A runner whose results come back wrong: groups swapped, or the last one missing.
class MisorderedRunner final : public GenotypeGroupRunner {
 public:
  MisorderedRunner(io::GenotypeViewPtr view, bool drop_last) : inner_(std::move(view)), drop_last_(drop_last) {}
  Status plan(const std::vector<int64_t>& kept, Standardization scale, Precision arithmetic) override {
    return inner_.plan(kept, scale, arithmetic);
  }
  Status gram(const linalg::DenseMatrix& q, const std::function<Status(int64_t, GenotypeGramPartial&&)>& add) override {
    std::vector<std::pair<int64_t, GenotypeGramPartial>> got;
    STRATA_RETURN_NOT_OK(inner_.gram(q, [&](int64_t g, GenotypeGramPartial&& p) -> Status {
      got.emplace_back(g, std::move(p));
      return Status::OK();
    }));
    return hand_back(got, add);
  }
  Status project(const linalg::DenseMatrix& x, const std::function<Status(int64_t, std::vector<double>&&)>& add) override {
    std::vector<std::pair<int64_t, std::vector<double>>> got;
    STRATA_RETURN_NOT_OK(inner_.project(x, [&](int64_t g, std::vector<double>&& rows) -> Status {
      got.emplace_back(g, std::move(rows));
      return Status::OK();
    }));
    return hand_back(got, add);
  }
  const std::vector<VariantCounts>& counts() const { return inner_.counts(); }

 private:
  template <class T, class Add>
  Status hand_back(std::vector<std::pair<int64_t, T>>& got, const Add& add) {
    if (drop_last_) got.pop_back();
    else std::swap(got[0], got[1]);
    for (auto& [g, r] : got) STRATA_RETURN_NOT_OK(add(g, std::move(r)));
    return Status::OK();
  }
  ApartRunner inner_;
  bool drop_last_;
};

TEST(PcaRemote, RefusesGroupsOutOfOrderOrMissing) {
  const io::GenotypeViewPtr view = cohort(7000, 40, 5);  // three groups
  for (bool drop_last : {false, true}) {
    auto runner = std::make_shared<MisorderedRunner>(view, drop_last);
    std::vector<int64_t> kept(7000);
    for (int64_t v = 0; v < 7000; ++v) kept[static_cast<size_t>(v)] = v;
    GenotypeGramOptions go;
    auto op = make_remote_genotype_gram_operator(test_ctx(), 40, runner->counts(), kept, Standardization::Binom2, go,
                                                 runner);
    ASSERT_TRUE(op.ok()) << op.status().message();
    linalg::DenseMatrix q(40, 8), y;
    for (int64_t j = 0; j < 8; ++j)
      for (int64_t i = 0; i < 40; ++i) q(i, j) = std::sin(double(i + 40 * j));
    STRATA_EXPECT_STATUS((*op)->gram(q, y), StatusCode::Invalid, drop_last ? "2 groups came back" : "out of order");
    const Status projected = (*op)->project(q, [](int64_t, int64_t, int64_t, const double*) { return Status::OK(); });
    STRATA_EXPECT_STATUS(projected, StatusCode::Invalid, drop_last ? "2 groups came back" : "out of order");
  }
}

TEST(PcaRemote, RefusesMismatchedPartials) {
  const io::GenotypeViewPtr view = cohort(400, 50, 2);
  auto c = *compute_variant_counts(test_ctx(), *view);
  GenotypeGroup grp;
  std::vector<uint8_t> codes(static_cast<size_t>(400 * io::packed_row_bytes(50)));
  ASSERT_TRUE(view->read_codes(0, 400, 0, 50, codes.data(), io::packed_row_bytes(50)).ok());
  grp.codes = codes.data();
  grp.rows = 400;
  grp.samples = 50;
  STRATA_EXPECT_STATUS(genotype_gram_group(test_ctx(), grp, Standardization::Binom2, Precision::Int16,
                                           linalg::DenseMatrix(50, 8)).status(),
                       StatusCode::Invalid, "counts");
  grp.counts = c;
  STRATA_EXPECT_STATUS(genotype_gram_group(test_ctx(), grp, Standardization::Binom2, Precision::Int16,
                                           linalg::DenseMatrix(49, 8)).status(),
                       StatusCode::Invalid, "rows");
}

}  // namespace
}  // namespace strata::genomics
