#include "strata/genomics/genotype_gram.hpp"

#include <cmath>
#include <optional>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/genomics/qc.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

struct Fixture {
  io::GenotypeViewPtr view;
  std::vector<genomics::VariantCounts> counts;
  std::vector<int64_t> kept;
  linalg::DenseMatrix a;  // standardized kept variants × samples, float64 reference
  genomics::Standardization scale = genomics::Standardization::Binom2;
};

// Shapes chosen to exercise every edge: samples not a multiple of 16 (or of the 192-sample
// slice), variants not a multiple of the 96-row tile or the 3,072-row group.
Fixture make_fixture(int64_t m, int64_t n, uint64_t seed, genomics::Standardization scale = genomics::Standardization::Binom2) {
  Fixture f;
  f.scale = scale;
  f.view = cohort(m, n, seed);
  f.counts = *genomics::compute_variant_counts(test_ctx(), *f.view);
  for (int64_t v = 0; v < m; ++v)
    if (!f.counts[static_cast<size_t>(v)].monomorphic()) f.kept.push_back(v);
  auto block = *io::read_genotype_block(*f.view, 0, m);
  f.a = linalg::DenseMatrix(static_cast<int64_t>(f.kept.size()), n);
  for (size_t i = 0; i < f.kept.size(); ++i) {
    double lut[4];
    genomics::make_standardize_lut(f.counts[static_cast<size_t>(f.kept[i])], scale, lut);
    for (int64_t j = 0; j < n; ++j) f.a(static_cast<int64_t>(i), j) = lut[io::code_at(block.row(f.kept[i]), j)];
  }
  return f;
}

// A context whose backend runs the CPU kernels of `isa` (test_ctx() runs the best this CPU has);
// nullopt when the CPU lacks them.
std::optional<Context> isa_ctx(backend::CpuIsa isa) {
  auto be = backend::make_cpu_backend(isa);
  if (!be.ok()) return std::nullopt;
  ContextOptions o;
  o.backend_impl = *be;
  return *Context::make(o);
}

linalg::DenseMatrix test_block(int64_t n, int64_t w) {
  linalg::DenseMatrix q(n, w);
  for (int64_t j = 0; j < w; ++j)
    for (int64_t i = 0; i < n; ++i) q(i, j) = std::sin(0.37 * static_cast<double>(i + 1) * static_cast<double>(j + 1));
  return q;
}

linalg::GramOperatorPtr make_op(const Fixture& f, const Context& ctx, bool resident,
                                Precision arithmetic = Precision::Int16) {
  GenotypeGramOptions o;
  o.arithmetic = arithmetic;
  o.resident_bytes = resident ? (int64_t{1} << 30) : 0;
  auto op = make_genotype_gram_operator(ctx, f.view, f.counts, f.kept, f.scale, o);
  EXPECT_TRUE(op.ok()) << op.status().to_string();
  EXPECT_EQ(genotype_gram_is_resident(**op), resident);
  return *op;
}

double max_rel_diff(const linalg::DenseMatrix& x, const linalg::DenseMatrix& ref) {
  double scale = 0, diff = 0;
  for (size_t i = 0; i < ref.data.size(); ++i) {
    scale = std::max(scale, std::abs(ref.data[i]));
    diff = std::max(diff, std::abs(x.data[i] - ref.data[i]));
  }
  return diff / scale;
}

// Float32 products agree with float64 to float32 rounding; int16 products (operands rounded
// to 15 bits) to ~1e-5 of the largest entry; mixed products of the block they report as their
// operand to float32 rounding.
TEST(GenotypeGram, ProductsMatchFloat64Reference) {
  for (auto arithmetic : {Precision::Float32, Precision::Int16, Precision::Mixed}) {
    const double tol = arithmetic == Precision::Int16 ? 1e-4 : 1e-5;
    for (bool portable : {false, true}) {
      const Context ctx = portable ? *isa_ctx(backend::CpuIsa::Portable) : test_ctx();
      for (int64_t w : {3, 16, 21}) {
        const Fixture f = make_fixture(3200, w == 16 ? 517 : 203, 7);
        auto op = make_op(f, ctx, true, arithmetic);
        const linalg::DenseMatrix q = op->operand(test_block(f.a.cols, w));
        linalg::DenseMatrix y;
        STRATA_ASSERT_OK(op->gram(q, y));
        const linalg::DenseMatrix ref = *linalg::matmul(test_ctx(), f.a, *linalg::matmul(test_ctx(), f.a, q), true, false);
        EXPECT_LT(max_rel_diff(y, ref), tol) << "w " << w << " portable " << portable;
        linalg::DenseMatrix u(f.a.rows, w);
        STRATA_ASSERT_OK(op->project(q, [&](int64_t r0, int64_t rows, int64_t k, const double* b) -> Status {
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < k; ++j) u(r0 + i, j) = b[i * k + j];
          return Status::OK();
        }));
        EXPECT_LT(max_rel_diff(u, *linalg::matmul(test_ctx(), f.a, q)), 1e-5) << "w " << w << " portable " << portable;
      }
    }
  }
}

// The integer path rewrites centring, scaling and missing calls as per-variant terms: every
// standardization (missing → 0, or → 2f for `none`) must come out right, with missing calls.
TEST(GenotypeGram, Int16EveryStandardization) {
  for (auto scale : {genomics::Standardization::Binom2, genomics::Standardization::Binom, genomics::Standardization::Center,
                     genomics::Standardization::None}) {
    const Fixture f = make_fixture(700, 333, 3, scale);
    const linalg::DenseMatrix q = test_block(f.a.cols, 8);
    linalg::DenseMatrix y;
    STRATA_ASSERT_OK(make_op(f, test_ctx(), true)->gram(q, y));
    const linalg::DenseMatrix ref = *linalg::matmul(test_ctx(), f.a, *linalg::matmul(test_ctx(), f.a, q), true, false);
    EXPECT_LT(max_rel_diff(y, ref), 1e-4) << static_cast<int>(scale);
  }
}

// The mixed operand is the block rounded to 15 bits per column, and rounding it again changes
// nothing; its products are float32-accurate for every standardization, with missing calls.
TEST(GenotypeGram, MixedOperandAndStandardizations) {
  const Fixture f0 = make_fixture(700, 333, 3);
  auto op = make_op(f0, test_ctx(), true, Precision::Mixed);
  EXPECT_TRUE(op->rounds_operand());
  EXPECT_FALSE(make_op(f0, test_ctx(), true, Precision::Int16)->rounds_operand());
  const linalg::DenseMatrix q = test_block(f0.a.cols, 8);
  const linalg::DenseMatrix qr = op->operand(q);
  EXPECT_EQ(op->operand(qr).data, qr.data);
  for (int64_t j = 0; j < q.cols; ++j) {
    double mx = 0, err = 0;
    for (int64_t i = 0; i < q.rows; ++i) {
      mx = std::max(mx, std::abs(q(i, j)));
      err = std::max(err, std::abs(q(i, j) - qr(i, j)));
    }
    EXPECT_GT(err, 0.0);
    EXPECT_LE(err, 0.5 * mx / 32767 * (1 + 1e-9)) << j;
  }
  for (auto scale : {genomics::Standardization::Binom2, genomics::Standardization::Binom, genomics::Standardization::Center,
                     genomics::Standardization::None}) {
    const Fixture f = make_fixture(700, 333, 3, scale);
    linalg::DenseMatrix y;
    STRATA_ASSERT_OK(make_op(f, test_ctx(), true, Precision::Mixed)->gram(qr, y));
    const linalg::DenseMatrix ref = *linalg::matmul(test_ctx(), f.a, *linalg::matmul(test_ctx(), f.a, qr), true, false);
    EXPECT_LT(max_rel_diff(y, ref), 1e-5) << static_cast<int>(scale);
  }
}

// Exact integer sums: the VNNI, AMX and portable kernels give the same bits.
TEST(GenotypeGram, Int16SameBitsVectorizedAndPortable) {
  const Fixture f = make_fixture(3300, 205, 13);
  const linalg::DenseMatrix q = test_block(f.a.cols, 24);
  linalg::DenseMatrix portable;
  STRATA_ASSERT_OK(make_op(f, *isa_ctx(backend::CpuIsa::Portable), true)->gram(q, portable));
  int compared = 0;
  for (auto isa : {backend::CpuIsa::Avx2, backend::CpuIsa::Avx2Vnni, backend::CpuIsa::Avx512Vnni,
                   backend::CpuIsa::Avx512Amx}) {
    const auto ctx = isa_ctx(isa);
    if (!ctx) continue;
    linalg::DenseMatrix fast;
    STRATA_ASSERT_OK(make_op(f, *ctx, true)->gram(q, fast));
    EXPECT_EQ(fast.data, portable.data) << backend::cpu_isa_name(isa);
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "this CPU lacks AVX2, AVX-VNNI, AVX-512 VNNI/VBMI and AMX: no vectorized int16 kernels to compare";
}

TEST(GenotypeGram, SameBitsForAnyThreadCountResidentOrStreamed) {
  const Fixture f = make_fixture(3500, 517, 11);
  const linalg::DenseMatrix q = test_block(f.a.cols, 16);
  for (auto arithmetic : {Precision::Float32, Precision::Int16, Precision::Mixed}) {
    linalg::DenseMatrix ref;
    STRATA_ASSERT_OK(make_op(f, test_ctx(), true, arithmetic)->gram(q, ref));
    for (int threads : {1, 2, 3}) {
      const Context ctx = strata::testing::make_test_context(threads);
      for (bool resident : {true, false}) {
        linalg::DenseMatrix y;
        STRATA_ASSERT_OK(make_op(f, ctx, resident, arithmetic)->gram(q, y));
        EXPECT_EQ(y.data, ref.data) << threads << " threads, resident " << resident;
      }
    }
  }
}

TEST(GenotypeGram, RandomizedPcaSameBitsForThreadsAndMemoryBudgets) {
  auto view = cohort(4000, 300, 5);
  PcaParams base;
  base.k = 5;
  base.method = linalg::SvdMethod::Randomized;
  base.iterations = 6;
  const Context one = strata::testing::make_test_context(1);
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult ref, pca(one, view, base));
  EXPECT_TRUE(ref.resident);
  // Out of core: a budget too small to hold the codes, so they are re-read every pass.
  const Context two = strata::testing::make_test_context(2, int64_t{1} << 20);
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(two, view, base));
  EXPECT_FALSE(r.resident);
  EXPECT_EQ(r.eigenvalues, ref.eigenvalues);
  EXPECT_EQ(r.eigenvectors.data, ref.eigenvectors.data);
  EXPECT_EQ(r.loadings.data, ref.loadings.data);
}

}  // namespace
}  // namespace strata::genomics
