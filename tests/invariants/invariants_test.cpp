// Every algorithm held to the invariants (invariant_fixture.hpp): PCA (randomized and exact),
// SVD (exact and randomized), variant counts (freq) and array reductions; and two PCAs run at
// once from two threads on two contexts.
#include <cmath>
#include <thread>

#include "invariants/invariant_fixture.hpp"
#include "strata/array/ops.hpp"
#include "strata/exec/run.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/io/zarr.hpp"
#include "strata/linalg/svd.hpp"

namespace strata {
namespace {

using testing::expect_invariants;
using testing::InvariantCase;
using testing::ResultBits;

void append(ResultBits& out, const std::vector<double>& v) { out.insert(out.end(), v.begin(), v.end()); }

// One simulated cohort, stored three ways: PLINK .bed and VCF Zarr in two chunkings.
struct Cohort {
  testing::TempDir dir;
  std::vector<std::string> inputs;
};

const Cohort& cohort() {
  static const Cohort* c = [] {
    auto* made = new Cohort;
    const Context ctx;
    genomics::SimulateOptions o;
    o.num_samples = 700;
    o.num_variants = 4000;
    o.num_pops = 3;
    o.fst = 0.05;
    o.missing = 0.01;
    o.seed = 5;
    const std::string bed = made->dir.str("c");
    EXPECT_TRUE(genomics::simulate_to_files(ctx, o, bed, genomics::SimulateFormat::Bed).ok());
    made->inputs.push_back(bed);
    for (auto [vc, sc] : {std::pair<int64_t, int64_t>{100, 128}, {37, 1000}}) {
      io::ConvertOptions co;
      co.variants_chunk = vc;
      co.samples_chunk = sc;
      const std::string out = made->dir.str("c" + std::to_string(vc) + ".vcz");
      auto r = io::convert_genotypes(ctx, bed + ".bed", out, co);
      EXPECT_TRUE(r.ok()) << r.status().to_string();
      made->inputs.push_back(out);
    }
    return made;
  }();
  return *c;
}

Result<ResultBits> run_pca(const Context& ctx, int layout, linalg::SvdMethod method) {
  STRATA_ASSIGN_OR_RETURN(auto view, io::open_genotypes(cohort().inputs[static_cast<size_t>(layout)]));
  genomics::PcaParams p;
  p.k = 4;
  p.method = method;
  p.iterations = 8;
  STRATA_ASSIGN_OR_RETURN(genomics::PcaResult r, genomics::pca(ctx, view, p));
  ResultBits out;
  append(out, r.eigenvalues);
  append(out, r.eigenvectors.data);
  append(out, r.loadings.data);
  return out;
}

TEST(Invariants, RandomizedPca) {
  InvariantCase c;
  c.name = "randomized PCA";
  c.layouts = 3;
  c.run = [](const Context& ctx, int layout) { return run_pca(ctx, layout, linalg::SvdMethod::Randomized); };
  c.small_budget = int64_t{48} << 20;  // below the resident threshold: the codes are re-read every pass
  expect_invariants(c);
}

TEST(Invariants, ExactPca) {
  InvariantCase c;
  c.name = "exact PCA";
  c.layouts = 3;
  c.run = [](const Context& ctx, int layout) { return run_pca(ctx, layout, linalg::SvdMethod::Exact); };
  c.small_budget = int64_t{48} << 20;
  expect_invariants(c);
}

TEST(Invariants, VariantCounts) {
  InvariantCase c;
  c.name = "variant counts (freq)";
  c.layouts = 3;
  c.run = [](const Context& ctx, int layout) -> Result<ResultBits> {
    STRATA_ASSIGN_OR_RETURN(auto view, io::open_genotypes(cohort().inputs[static_cast<size_t>(layout)]));
    STRATA_ASSIGN_OR_RETURN(auto counts, genomics::compute_variant_counts(ctx, *view));
    ResultBits out;
    for (const auto& v : counts) {
      out.push_back(double(v.hom_ref));
      out.push_back(double(v.het));
      out.push_back(double(v.hom_alt));
      out.push_back(double(v.missing));
    }
    return out;
  };
  c.small_budget = int64_t{8} << 20;
  expect_invariants(c);
}

// A 3000 × 240 normal matrix stored as Zarr in two chunkings, and held in memory.
struct Dense {
  testing::TempDir dir;
  std::vector<std::string> paths;
  std::vector<double> values;
  int64_t rows = 3000, cols = 240;
};

const Dense& dense() {
  static const Dense* d = [] {
    auto* made = new Dense;
    const Context ctx;
    const Array x = Array::random_normal({made->rows, made->cols}, {500, 240}, 0.0, 1.0, 11);
    for (Shape chunks : {Shape{250, 240}, Shape{97, 50}}) {
      auto store = io::LocalStore::open(made->dir.str("m" + std::to_string(chunks[0]) + ".zarr"), true);
      EXPECT_TRUE(store.ok());
      io::ZarrCreateOptions zo;
      zo.chunks = chunks;
      EXPECT_TRUE(to_zarr(ctx, x, *store, "", zo).ok());
      made->paths.push_back((*store)->root());
    }
    auto h = compute(ctx, x);
    EXPECT_TRUE(h.ok());
    made->values = h->to_vector<double>();
    return made;
  }();
  return *d;
}

Result<ResultBits> run_svd(const Context& ctx, int layout, linalg::SvdMethod method) {
  const Dense& d = dense();
  linalg::RowBlockSourcePtr src;
  if (layout < 2) {
    STRATA_ASSIGN_OR_RETURN(src, linalg::open_zarr_source(d.paths[static_cast<size_t>(layout)]));
  } else {
    src = linalg::make_dense_source(d.values.data(), d.rows, d.cols);
  }
  linalg::SvdParams p;
  p.k = 5;
  p.method = method;
  p.iterations = 4;
  STRATA_ASSIGN_OR_RETURN(linalg::SvdResult r, linalg::svd(ctx, src, p));
  ResultBits out;
  append(out, r.s);
  append(out, r.u.data);
  append(out, r.v.data);
  return out;
}

TEST(Invariants, ExactSvd) {
  InvariantCase c;
  c.name = "exact SVD";
  c.layouts = 3;
  c.run = [](const Context& ctx, int layout) { return run_svd(ctx, layout, linalg::SvdMethod::Exact); };
  c.small_budget = int64_t{32} << 20;
  expect_invariants(c);
}

TEST(Invariants, RandomizedSvd) {
  InvariantCase c;
  c.name = "randomized SVD";
  c.layouts = 3;
  c.run = [](const Context& ctx, int layout) { return run_svd(ctx, layout, linalg::SvdMethod::Randomized); };
  c.small_budget = int64_t{32} << 20;
  expect_invariants(c);
}

// Float reductions associate along a block grid fixed by the shape: bit-identical for any
// thread count, budget and chunking.
TEST(Invariants, ArrayReductions) {
  InvariantCase c;
  c.name = "array reductions";
  c.layouts = 2;
  c.run = [](const Context& ctx, int layout) -> Result<ResultBits> {
    const Shape chunks = layout == 0 ? Shape{512, 512} : Shape{300, 700};
    const Array x = Array::random_normal({3000, 2000}, chunks, 1.0, 2.0, 3);
    ResultBits out;
    STRATA_ASSIGN_OR_RETURN(HostArray total, compute(ctx, sum(x * x)));
    append(out, total.to_vector<double>());
    STRATA_ASSIGN_OR_RETURN(HostArray cols, compute(ctx, mean(x, {0})));
    append(out, cols.to_vector<double>());
    return out;
  };
  c.small_budget = int64_t{16} << 20;  // the 48 MB array never exists in memory
  expect_invariants(c);
}

// The same 3000 × 240 matrix as two Zarr chunkings and in memory: sums, means and variances
// over each axis and over everything are the same bits.
TEST(Invariants, ZarrArrayReductions) {
  InvariantCase c;
  c.name = "Zarr array reductions";
  c.layouts = 3;
  c.run = [](const Context& ctx, int layout) -> Result<ResultBits> {
    const Dense& d = dense();
    Array x;
    if (layout < 2) {
      STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open(d.paths[static_cast<size_t>(layout)], false));
      STRATA_ASSIGN_OR_RETURN(io::ZarrArray z, io::ZarrArray::open(store, ""));
      x = Array::from_zarr(z);
    } else {
      STRATA_ASSIGN_OR_RETURN(HostArray h, HostArray::from_vector<double>(d.values, {d.rows, d.cols}));
      x = Array::from_host(std::move(h), {64, 64});
    }
    ResultBits out;
    for (const Array& e : {sum(x), mean(x, {0}), var(x, {1}), sum(x * x, {0})}) {
      STRATA_ASSIGN_OR_RETURN(HostArray h, compute(ctx, e));
      append(out, h.to_vector<double>());
    }
    return out;
  };
  c.small_budget = int64_t{16} << 20;
  expect_invariants(c);
}

// Two PCAs at once, from two threads, each on its own context: the same bits as one at a time.
TEST(Invariants, TwoPcasAtOnceOnTwoContexts) {
  auto alone0 = run_pca(testing::invariant_context(2, 0), 0, linalg::SvdMethod::Randomized);
  auto alone1 = run_pca(testing::invariant_context(2, 0), 1, linalg::SvdMethod::Exact);
  ASSERT_TRUE(alone0.ok() && alone1.ok());
  Result<ResultBits> r0 = Status::Internal("not run"), r1 = Status::Internal("not run");
  const Context c0 = testing::invariant_context(2, 0), c1 = testing::invariant_context(2, 0);
  std::thread t0([&] { r0 = run_pca(c0, 0, linalg::SvdMethod::Randomized); });
  std::thread t1([&] { r1 = run_pca(c1, 1, linalg::SvdMethod::Exact); });
  t0.join();
  t1.join();
  ASSERT_TRUE(r0.ok()) << r0.status().to_string();
  ASSERT_TRUE(r1.ok()) << r1.status().to_string();
  EXPECT_TRUE(testing::same_bits(*r0, *alone0));
  EXPECT_TRUE(testing::same_bits(*r1, *alone1));
  // Each context's report has its own run only.
  EXPECT_GT(c0.report().snapshot().passes, 0);
  EXPECT_GT(c1.report().snapshot().passes, 0);
}

// A cancelled context stops the next pass with Cancelled; the run leaves nothing half done.
TEST(Invariants, CancelledContextStops) {
  const Context ctx = testing::invariant_context(2, 0);
  ctx.cancel();
  auto r = run_pca(ctx, 0, linalg::SvdMethod::Randomized);
  STRATA_EXPECT_STATUS(r.status(), StatusCode::Cancelled, "cancelled");
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// Records what a sink is told, checking the protocol: begin, updates, end, never overlapping.
class RecordingSink final : public ProgressSink {
 public:
  void begin(std::string_view label, int64_t total, std::string_view unit) override {
    EXPECT_FALSE(open_);
    open_ = true;
    ++tasks;
    labels.emplace_back(label);
    units.emplace_back(unit);
    last_total = total;
  }
  void update(int64_t done, int64_t total) override {
    EXPECT_TRUE(open_);
    EXPECT_GE(done, last_done);
    last_done = done;
    last_total = total;
    ++updates;
  }
  void end(int64_t done, int64_t total) override {
    EXPECT_TRUE(open_);
    open_ = false;
    last_done = done;
    last_total = total;
  }
  int tasks = 0, updates = 0;
  int64_t last_done = 0, last_total = 0;
  std::vector<std::string> labels, units;

 private:
  bool open_ = false;
};

// A PCA is one task over all its passes (the counts pass and the SVD passes nest in it),
// counted in variants.
TEST(Progress, PcaIsOneTaskOverItsPasses) {
  auto sink = std::make_shared<RecordingSink>();
  ContextOptions o;
  o.threads = 2;
  o.progress = sink;
  const Context ctx = *Context::make(o);
  auto r = run_pca(ctx, 0, linalg::SvdMethod::Randomized);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(sink->tasks, 1);
  EXPECT_EQ(sink->labels, std::vector<std::string>{"pca"});
  EXPECT_EQ(sink->units, std::vector<std::string>{"variants"});
  // Counts pass + 8 Krylov passes + the loadings pass, 4,000 variants each (none filtered here
  // would be 40,000; monomorphic ones are not re-read by the SVD passes).
  EXPECT_GT(sink->last_done, 4000);
  EXPECT_LE(sink->last_done, sink->last_total);
}

// A scope opened inside another (a nested algorithm) adds its work to the outer task instead
// of beginning a second one.
TEST(Progress, NestedScopesAreOneTask) {
  auto sink = std::make_shared<RecordingSink>();
  ContextOptions o;
  o.threads = 1;
  o.progress = sink;
  const Context ctx = *Context::make(o);
  {
    ProgressScope outer(ctx, "outer", 10, "blocks");
    {
      ProgressScope inner(ctx, "inner", 5, "rows");
      ctx.advance_progress(5);
    }
    ctx.advance_progress(10);
  }
  EXPECT_EQ(sink->tasks, 1);
  EXPECT_EQ(sink->labels, std::vector<std::string>{"outer"});
  EXPECT_EQ(sink->last_done, 15);
  EXPECT_EQ(sink->last_total, 15);
}

}  // namespace
}  // namespace strata
