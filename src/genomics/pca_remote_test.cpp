// pca_remote(): group partials computed apart (as Dask workers do) and added in order, and the
// float64 check pass's block partials in the local check operator's tree, give the same bits
// as pca() of the same genotypes.
#include <cmath>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/genomics/genotype_gram.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/linalg/gram_operator.hpp"
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
  // The check blocks in three ranges, as Dask batches: each range's rows in pieces cut where
  // the 3,072-variant groups end (so blocks straddle pieces), computed on a one-thread context.
  Status check_gram(int64_t block_rows, const linalg::DenseMatrix& q,
                    const std::function<Status(std::vector<TreeSum::Node>&&)>& add) override {
    const auto m = static_cast<int64_t>(kept_.size());
    const int64_t blocks = (m + block_rows - 1) / block_rows, n = view_->num_samples(), stride = io::packed_row_bytes(n);
    codes_.resize(static_cast<size_t>(m * stride));
    for (int64_t i = 0; i < m; ++i)
      STRATA_RETURN_NOT_OK(view_->read_codes(kept_[static_cast<size_t>(i)], 1, 0, n, codes_.data() + i * stride, stride));
    for (int64_t r = 0; r < 3; ++r) {
      const int64_t b0 = blocks * r / 3, b1 = blocks * (r + 1) / 3;
      if (b0 == b1) continue;
      GenotypeRowRange range;
      range.row0 = b0 * block_rows;
      const int64_t end = std::min(m, b1 * block_rows);
      for (int64_t lo = range.row0; lo < end;) {
        const int64_t hi = std::min(end, (lo / kGenotypeGramGroupVariants + 1) * kGenotypeGramGroupVariants);
        GenotypeGroup piece;
        piece.codes = codes_.data() + lo * stride;
        piece.rows = hi - lo;
        piece.samples = n;
        for (int64_t i = lo; i < hi; ++i) piece.counts.push_back(counts_[static_cast<size_t>(kept_[static_cast<size_t>(i)])]);
        range.pieces.push_back(std::move(piece));
        lo = hi;
      }
      pieces += static_cast<int64_t>(range.pieces.size());
      STRATA_ASSIGN_OR_RETURN(std::vector<TreeSum::Node> nodes,
                              genotype_check_blocks(worker_, range, m, scale_, block_rows, q));
      STRATA_RETURN_NOT_OK(add(std::move(nodes)));
    }
    ++checks;
    return Status::OK();
  }
  const std::vector<VariantCounts>& counts() const { return counts_; }
  int plans = 0, checks = 0;
  int64_t gram_groups = 0, pieces = 0;

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

RemoteGenotypes remote_of(const std::shared_ptr<ApartRunner>& runner, int64_t samples) {
  RemoteGenotypes g;
  g.num_samples = samples;
  g.description = "apart";
  g.counts = runner->counts();
  g.runner = runner;
  g.fetch = []() -> Result<io::GenotypeViewPtr> { return Status::Invalid("the randomized route fetches nothing"); };
  return g;
}

void expect_same_bits(const PcaResult& remote, const PcaResult& local, const std::string& what) {
  EXPECT_EQ(remote.eigenvalues, local.eigenvalues) << what;
  EXPECT_EQ(remote.eigenvectors.data, local.eigenvectors.data) << what;
  EXPECT_EQ(remote.loadings.data, local.loadings.data) << what;
  EXPECT_EQ(remote.error_estimate, local.error_estimate) << what;
  EXPECT_EQ(remote.eigenvector_error_bound, local.eigenvector_error_bound) << what;
  EXPECT_EQ(remote.errors_bounded, local.errors_bounded) << what;
  EXPECT_EQ(remote.passes, local.passes) << what;
  EXPECT_EQ(remote.variants_used, local.variants_used) << what;
}

TEST(PcaRemote, SameBitsAsLocalForEveryArithmetic) {
  // More than one 3,072-variant group, samples not a multiple of 16, missing calls; the float64
  // check pass (on by default) in blocks of 1,000 variants, which straddle the groups.
  const io::GenotypeViewPtr view = cohort(7000, 203, 11);
  for (const char* arith : {"int16", "mixed", "float32"}) {
    PcaParams p;
    p.k = 3;
    p.method = linalg::SvdMethod::Randomized;
    p.precision = *parse_precision(arith);
    p.iterations = 6;
    p.pass.block_rows = 1000;
    auto local = pca(test_ctx(), view, p);
    ASSERT_TRUE(local.ok()) << local.status().message();
    ASSERT_TRUE(local->errors_bounded);
    auto runner = std::make_shared<ApartRunner>(view);
    auto remote = pca_remote(test_ctx(), remote_of(runner, view->num_samples()), p);
    ASSERT_TRUE(remote.ok()) << arith << ": " << remote.status().message();
    EXPECT_EQ(runner->plans, 1);
    EXPECT_TRUE(runner->gram_groups >= 3 * 6 && runner->gram_groups % 3 == 0) << arith;  // 3 groups a pass
    EXPECT_EQ(runner->checks, 1) << arith;
    EXPECT_GT(runner->pieces, 3) << arith;  // ranges made of more than one piece
    expect_same_bits(*remote, *local, arith);
  }
}

TEST(PcaRemote, CheckPassInTheDefaultBlocksAndWithout) {
  // 2,100 samples: the default check blocks are 960 variants (16 MiB of float64 rows), 8 of
  // them over 7,000 variants, and the last shorter; with check_errors off there is no check.
  const io::GenotypeViewPtr view = cohort(7000, 2100, 3);
  STRATA_ASSERT_OK_AND_ASSIGN(const linalg::GramBlocks blocks,
                              linalg::gram_operator_blocks(7000, 2100, Precision::Float64));
  EXPECT_EQ(blocks.block_rows, 960);
  EXPECT_EQ(blocks.num_blocks, 8);
  for (bool check : {true, false}) {
    PcaParams p;
    p.k = 2;
    p.method = linalg::SvdMethod::Randomized;
    p.iterations = 3;
    p.check_errors = check;
    auto local = pca(test_ctx(), view, p);
    ASSERT_TRUE(local.ok()) << local.status().message();
    EXPECT_EQ(local->errors_bounded, check);
    auto runner = std::make_shared<ApartRunner>(view);
    auto remote = pca_remote(test_ctx(), remote_of(runner, view->num_samples()), p);
    ASSERT_TRUE(remote.ok()) << remote.status().message();
    EXPECT_EQ(runner->checks, check ? 1 : 0);
    expect_same_bits(*remote, *local, check ? "checked" : "unchecked");
  }
}

TEST(PcaRemote, CheckBlocksSumAsTheLocalPassForAnyThreadCount) {
  // The local check operator's Y is the same bits on 1 and 4 threads, and equals the sum of
  // the block partials computed apart.
  const io::GenotypeViewPtr view = cohort(3000, 70, 8);
  const std::vector<VariantCounts> counts = *compute_variant_counts(test_ctx(), *view);
  std::vector<int64_t> kept(3000);
  for (int64_t v = 0; v < 3000; ++v) kept[static_cast<size_t>(v)] = v;
  PassOptions pass;
  pass.block_rows = 700;
  linalg::DenseMatrix q(70, 5);
  for (int64_t j = 0; j < 5; ++j)
    for (int64_t i = 0; i < 70; ++i) q(i, j) = std::cos(double(3 * i + j));
  std::vector<std::vector<double>> ys;
  for (int threads : {1, 4}) {
    ContextOptions o;
    o.threads = threads;
    const Context ctx = *Context::make(o);
    STRATA_ASSERT_OK_AND_ASSIGN(auto rows, make_standardized_source(ctx, view, counts, kept, Standardization::Binom2, false));
    STRATA_ASSERT_OK_AND_ASSIGN(auto op, linalg::make_gram_operator(ctx, rows, Precision::Float64, pass));
    linalg::DenseMatrix y;
    ASSERT_TRUE(op->gram(q, y).ok());
    ys.push_back(y.data);
  }
  EXPECT_EQ(ys[0], ys[1]);
  auto runner = std::make_shared<ApartRunner>(view);
  ASSERT_TRUE(runner->plan(kept, Standardization::Binom2, Precision::Int16).ok());
  STRATA_ASSERT_OK_AND_ASSIGN(auto op, make_remote_check_operator(test_ctx(), 70, 3000, pass, runner));
  linalg::DenseMatrix y;
  ASSERT_TRUE(op->gram(q, y).ok());
  EXPECT_EQ(y.data, ys[0]);
  // The order of the additions shows in the bits: the five blocks added one after the other
  // (not in the tree) give another Y, so the equalities above test the order too.
  std::vector<uint8_t> codes(static_cast<size_t>(3000 * io::packed_row_bytes(70)));
  ASSERT_TRUE(view->read_codes(0, 3000, 0, 70, codes.data(), io::packed_row_bytes(70)).ok());
  std::vector<double> sequential(ys[0].size(), 0.0);
  for (int64_t b = 0; b < 5; ++b) {
    GenotypeRowRange range;
    range.row0 = 700 * b;
    GenotypeGroup piece;
    piece.rows = std::min<int64_t>(700, 3000 - range.row0);
    piece.codes = codes.data() + range.row0 * io::packed_row_bytes(70);
    piece.samples = 70;
    piece.counts.assign(counts.begin() + range.row0, counts.begin() + range.row0 + piece.rows);
    range.pieces.push_back(piece);
    STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, genotype_check_blocks(test_ctx(), range, 3000, Standardization::Binom2, 700, q));
    ASSERT_EQ(nodes.size(), 1u);
    for (size_t i = 0; i < sequential.size(); ++i) sequential[i] += nodes[0].sum[i];
  }
  EXPECT_NE(sequential, ys[0]);
  // A range that does not start on a block boundary is refused.
  GenotypeRowRange off;
  off.row0 = 100;
  STRATA_EXPECT_STATUS(genotype_check_blocks(test_ctx(), off, 3000, Standardization::Binom2, 700, q).status(),
                       StatusCode::Invalid, "not whole blocks of 700");
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
  Status check_gram(int64_t block_rows, const linalg::DenseMatrix& q,
                    const std::function<Status(std::vector<TreeSum::Node>&&)>& add) override {
    std::vector<std::pair<int64_t, std::vector<TreeSum::Node>>> got;
    STRATA_RETURN_NOT_OK(inner_.check_gram(block_rows, q, [&](std::vector<TreeSum::Node>&& nodes) -> Status {
      got.emplace_back(static_cast<int64_t>(got.size()), std::move(nodes));
      return Status::OK();
    }));
    return hand_back(got, [&](int64_t, std::vector<TreeSum::Node>&& nodes) { return add(std::move(nodes)); });
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
    // The check pass's ranges of blocks (three of 1,000-variant blocks), swapped or one short.
    PassOptions pass;
    pass.block_rows = 1000;
    STRATA_ASSERT_OK_AND_ASSIGN(auto check, make_remote_check_operator(test_ctx(), 40, 7000, pass, runner));
    STRATA_EXPECT_STATUS(check->gram(q, y), StatusCode::Invalid,
                         drop_last ? "4 of 7 blocks came back" : "came back out of order");
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
