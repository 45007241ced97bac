// fit_glm_remote(): every block computed apart (its own copy of the rows, ones appended, on a
// single-threaded context, as a Dask worker does) and handed back in order gives the same bits
// as fit_glm of the same X and y, for every family and solver; a runner that breaks the
// contract is an error, never a wrong answer.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/test_context.hpp"
#include "linalg/glm_test_data.hpp"
#include "strata/linalg/glm.hpp"
#include "strata/linalg/glm_remote.hpp"
#include "testing/testing.hpp"

namespace strata::linalg {
namespace {

using testing::make_test_context;

using Data = testing_data::GlmData;

// Several row blocks: 63 columns + the intercept = 512 bytes a row, 32,768 rows a block.
Data make_data(GlmFamily f, int64_t n, int64_t p, uint64_t seed) {
  return testing_data::make_glm_data(f, n, p, seed, [](int64_t j) { return 0.05 * static_cast<double>(j % 5 - 2); });
}

enum class Fault { None, DropLast, Repeat, Swap, ShortPartial, ShortRows };

// Blocks copied out of X with the intercept's ones appended (what the workers hold), each
// computed alone by glm_block_partial on one thread.
class ApartRunner final : public GlmBlockRunner {
 public:
  ApartRunner(const Data& d, bool intercept, Fault fault = Fault::None) : d_(d), intercept_(intercept), fault_(fault) {}
  Status plan(const GlmBlockGrid& grid) override {
    grid_ = grid;
    blocks_.clear();
    for (int64_t b = 0; b < grid.num_blocks; ++b) {
      std::vector<double> rows;
      for (int64_t i = grid.start(b); i < grid.start(b) + grid.count(b); ++i) {
        rows.insert(rows.end(), d_.x.begin() + i * d_.p, d_.x.begin() + (i + 1) * d_.p);
        if (intercept_) rows.push_back(1.0);
      }
      blocks_.push_back(std::move(rows));
    }
    return Status::OK();
  }
  Status run(const GlmBlockTask& task, std::span<const double> eta, std::span<const double> u,
             std::span<const double> betas, const std::function<Status(int64_t, GlmBlockOutput&&)>& add) override {
    std::vector<GlmBlockOutput> outs;
    for (int64_t b = 0; b < grid_.num_blocks; ++b) {
      GlmBlockInput in;
      if (!eta.empty()) in.eta = eta.subspan(grid_.start(b), grid_.count(b));
      if (!u.empty()) in.u = u.subspan(b * grid_.p, grid_.p);
      if (!betas.empty()) in.beta = betas.subspan(b * grid_.p, grid_.p);
      STRATA_ASSIGN_OR_RETURN(GlmBlockOutput o, glm_block_partial(worker_, blocks_[b].data(), d_.y.data() + grid_.start(b),
                                                                  grid_.count(b), grid_.p, task, in));
      outs.push_back(std::move(o));
    }
    ++passes;
    if (fault_ == Fault::DropLast) outs.pop_back();
    if (fault_ == Fault::ShortPartial && !outs.back().partial.empty()) outs.back().partial.pop_back();
    if (fault_ == Fault::ShortRows && !outs.back().rows.empty()) outs.back().rows.pop_back();
    for (size_t b = 0; b < outs.size(); ++b) {
      const size_t i = fault_ == Fault::Swap && b < 2 ? 1 - b : b;
      STRATA_RETURN_NOT_OK(add(static_cast<int64_t>(i), std::move(outs[i])));
      if (fault_ == Fault::Repeat && b == 0) STRATA_RETURN_NOT_OK(add(0, GlmBlockOutput(outs[1])));
    }
    return Status::OK();
  }
  int64_t passes = 0;
  GlmBlockGrid grid_;

 private:
  const Data& d_;
  bool intercept_;
  Fault fault_;
  std::vector<std::vector<double>> blocks_;
  Context worker_ = make_test_context(1);
};

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_same_fit(const GlmResult& a, const GlmResult& b) {
  EXPECT_TRUE(same_bits(a.coef, b.coef));
  EXPECT_TRUE(same_bits(a.se, b.se));
  EXPECT_TRUE(same_bits(a.stat, b.stat));
  EXPECT_TRUE(same_bits(a.p, b.p));
  EXPECT_TRUE(same_bits({a.objective}, {b.objective}));
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.passes, b.passes);
  EXPECT_EQ(a.converged, b.converged);
  EXPECT_EQ(a.blocks, b.blocks);
  EXPECT_EQ(a.block_rows, b.block_rows);
  EXPECT_EQ(a.design_check, b.design_check);
  EXPECT_EQ(a.warnings, b.warnings);
  ASSERT_EQ(a.log.size(), b.log.size());
  for (size_t i = 0; i < a.log.size(); ++i)
    EXPECT_TRUE(same_bits({a.log[i].objective, a.log[i].change, a.log[i].step},
                          {b.log[i].objective, b.log[i].change, b.log[i].step}));
}

TEST(GlmRemote, SameBitsAsFitGlmForEveryFamilyAndSolver) {
  struct Case {
    GlmSolver solver;
    GlmPenalty penalty;
    int64_t max_iter;
  };
  const Case cases[] = {{GlmSolver::Newton, GlmPenalty::None, kGlmDefaultMaxIter},
                        {GlmSolver::Lbfgs, GlmPenalty::L2, kGlmDefaultMaxIter},
                        {GlmSolver::GradientDescent, GlmPenalty::None, 4},
                        {GlmSolver::ProximalGradient, GlmPenalty::L1, 6},
                        {GlmSolver::Admm, GlmPenalty::ElasticNet, 2}};
  for (GlmFamily f : {GlmFamily::Normal, GlmFamily::Logistic, GlmFamily::Poisson}) {
    const Data d = make_data(f, 80000, 63, 7);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(glm_family_name(f)) + " " + glm_solver_name(c.solver));
      GlmParams p;
      p.family = f;
      p.solver = c.solver;
      p.penalty = c.penalty;
      p.lambda = 0.5;
      p.intercept = true;
      p.max_iter = c.max_iter;
      auto local = fit_glm(make_test_context(2), *make_dense_source(d.x.data(), d.n, d.p), d.y, p);
      STRATA_ASSERT_OK(local.status());
      auto runner = std::make_shared<ApartRunner>(d, true);
      auto remote = fit_glm_remote(make_test_context(2), d.n, d.p, runner, d.y, p);
      STRATA_ASSERT_OK(remote.status());
      EXPECT_EQ(runner->grid_.num_blocks, 3);
      EXPECT_EQ(runner->passes, remote->passes);
      expect_same_fit(*local, *remote);
    }
  }
}

TEST(GlmRemote, TheGridIsTheShapesAlone) {
  auto g = glm_block_grid(make_test_context(1, int64_t{8} << 20), 80000, 63, true);
  STRATA_ASSERT_OK(g.status());
  EXPECT_EQ(g->p, 64);
  EXPECT_EQ(g->block_rows, 32768);  // 16 MiB of 512-byte rows
  EXPECT_EQ(g->num_blocks, 3);
  EXPECT_EQ(g->count(2), 80000 - 2 * 32768);
  auto h = glm_block_grid(make_test_context(3), 80000, 63, true);
  EXPECT_EQ(h->block_rows, g->block_rows);
  EXPECT_EQ(glm_block_grid(make_test_context(1), 0, 3, false).status().code(), StatusCode::Invalid);
  EXPECT_EQ(glm_block_grid(make_test_context(1), 10, 0, false).status().code(), StatusCode::Invalid);
}

TEST(GlmRemote, AMisbehavingRunnerIsAnErrorNotAWrongAnswer) {
  const Data d = make_data(GlmFamily::Logistic, 80000, 63, 3);
  const struct {
    Fault fault;
    GlmSolver solver;
    const char* message;
  } cases[] = {{Fault::DropLast, GlmSolver::Newton, "2 of 3 blocks handed back"},
               {Fault::Repeat, GlmSolver::Newton, "block 0 handed back where block 1 of 3 was due"},
               {Fault::Swap, GlmSolver::Lbfgs, "block 1 handed back where block 0 of 3 was due"},
               {Fault::ShortPartial, GlmSolver::Newton, "block 2's partial has 4160 values, expected 4161"},
               {Fault::ShortRows, GlmSolver::GradientDescent, "block 2 handed back 14463 rows, expected 14464"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    GlmParams p;
    p.solver = c.solver;
    p.intercept = true;
    auto r = fit_glm_remote(make_test_context(1), d.n, d.p, std::make_shared<ApartRunner>(d, true, c.fault), d.y, p);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::Internal);
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
  }
  // Bad y is refused before any pass, naming the row.
  GlmParams p;
  std::vector<double> y = d.y;
  y[5] = 2;
  auto runner = std::make_shared<ApartRunner>(d, false);
  auto r = fit_glm_remote(make_test_context(1), d.n, d.p, runner, y, p);
  EXPECT_EQ(r.status().code(), StatusCode::InvalidData);
  EXPECT_NE(r.status().message().find("found 2 at row 5"), std::string::npos) << r.status().message();
  EXPECT_EQ(runner->passes, 0);
  auto short_y = fit_glm_remote(make_test_context(1), d.n + 1, d.p, runner, d.y, p);
  EXPECT_EQ(short_y.status().code(), StatusCode::InvalidData);
  EXPECT_EQ(fit_glm_remote(make_test_context(1), d.n, d.p, nullptr, d.y, p).status().code(), StatusCode::Invalid);
}

}  // namespace
}  // namespace strata::linalg
