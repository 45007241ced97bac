// The randomized SVD of a RandInt3 source: on the CPU, bench svd is the dense route's bits (the
// fused products are not used there); on a backend whose BenchSource is fused_randint3() the gram
// passes call randint3_product per block instead of generating rows, which a CPU-backed stand-in
// runs here.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "array/array_test_util.hpp"
#include "backend/forwarding_backend.hpp"
#include "linalg/bench_svd.hpp"
#include "strata/backend/backend.hpp"
#include "strata/backend/bench_source.hpp"
#include "strata/core/context.hpp"
#include "strata/core/random.hpp"
#include "strata/linalg/svd.hpp"
#include "testing/testing.hpp"

namespace strata::linalg {
namespace {

using namespace strata::backend;  // NOLINT: the stand-in names the interface's types

// The CPU backend offering device benchmark sources (so BenchSource is fused_randint3()),
// counting randint3_product calls: the route the CUDA backend takes, with the host's reference
// products.
class FusedCpu final : public ForwardingBackend, public BenchDeviceOps {
 public:
  explicit FusedCpu(BackendPtr b) : ForwardingBackend(std::move(b)) {}
  int64_t calls(RandInt3Op op) const { return calls_[static_cast<int>(op)].load(); }
  std::string name() const override { return "cpu, fused_randint3"; }
  const BenchDeviceOps* bench_device_ops() const override { return this; }
  Result<double> random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                  int64_t c0, int64_t cstep, int64_t cols, double add) const override {
    return BenchSource(*inner()).random_slice_sum(p, ld, r0, rstep, rows, c0, cstep, cols, add);
  }
  Status randint3_product(const RandInt3Rows& a, RandInt3Op op, MatrixView<const double> x,
                          MatrixView<double> out) const override {
    ++calls_[static_cast<int>(op)];
    return BenchSource(*inner()).randint3_product(a, op, x, out);
  }

 private:
  mutable std::atomic<int64_t> calls_[3] = {0, 0, 0};
};

constexpr int64_t kRows = 3000, kCols = 150;

BenchSvdOptions bench_options() {
  BenchSvdOptions o;
  o.rows = kRows;
  o.cols = kCols;
  o.k = 5;
  o.seed = 11;
  return o;
}

// The bench's matrix as a dense source, generated here by the scalar element code, with the
// bench's algorithm settings (with another precision).
RowBlockSourcePtr dense_copy() {
  std::vector<double> a(static_cast<size_t>(kRows * kCols));
  for (int64_t e = 0; e < kRows * kCols; ++e) a[static_cast<size_t>(e)] = random::randint3(random::byte_at(11, 0, e));
  return *make_dense_source(std::move(a), kRows, kCols);
}
SvdParams bench_params(Precision precision, bool compute_u = false) {
  BenchSvdOptions o = bench_options();
  o.compute_u = compute_u;
  SvdParams p = bench_svd_params(o);
  p.precision = precision;
  return p;
}

// A context on the stand-in, and a plain CPU one.
Context context_on(BackendPtr be) {
  ContextOptions co;
  co.threads = 2;
  co.backend_impl = std::move(be);
  return *Context::make(co);
}

TEST(SvdFusedRandInt3, CpuBenchIsTheDenseRoute) {
  const Context ctx = context_on(nullptr);
  ASSERT_FALSE(BenchSource(backend::of(ctx)).fused_randint3());
  STRATA_ASSERT_OK_AND_ASSIGN(BenchSvdReport rep, bench_svd(ctx, bench_options()));
  // RandInt3 data is 8-bit: the bench runs float32 products, as a float32 SVD of the same
  // values from memory does, bit for bit.
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult want, svd(ctx, dense_copy(), bench_params(Precision::Float32)));
  ASSERT_EQ(rep.result.s.size(), want.s.size());
  EXPECT_TRUE(strata::testing::same_bits(rep.result.s, want.s));
  EXPECT_TRUE(strata::testing::same_bits(rep.result.v.data, want.v.data));
  EXPECT_EQ(rep.result.passes, want.passes);
}

TEST(SvdFusedRandInt3, FusedRouteMatchesFloat64) {
  auto fused = std::make_shared<FusedCpu>(cpu_backend());
  const Context ctx = context_on(fused);
  STRATA_ASSERT_OK_AND_ASSIGN(BenchSvdReport rep, bench_svd(ctx, bench_options()));
  // One Gram product per block of rows per pass; no rows were generated on the host for them.
  EXPECT_EQ(fused->calls(RandInt3Op::Gram), rep.result.passes);  // 3000 rows: one block per pass
  EXPECT_EQ(fused->calls(RandInt3Op::Times), 0);
  // The fused products are float64: the float64 SVD of the same values, to rounding.
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult want, svd(context_on(nullptr), dense_copy(), bench_params(Precision::Float64)));
  ASSERT_EQ(rep.result.s.size(), want.s.size());
  for (size_t j = 0; j < want.s.size(); ++j) EXPECT_NEAR(rep.result.s[j], want.s[j], 1e-10 * want.s[0]) << j;
  // Deterministic: a second run gives the same bits.
  STRATA_ASSERT_OK_AND_ASSIGN(BenchSvdReport again, bench_svd(ctx, bench_options()));
  EXPECT_TRUE(strata::testing::same_bits(rep.result.s, again.result.s));
}

TEST(SvdFusedRandInt3, FusedProjectionForU) {
  auto fused = std::make_shared<FusedCpu>(cpu_backend());
  const Context ctx = context_on(fused);
  BenchSvdOptions o = bench_options();
  o.compute_u = true;
  STRATA_ASSERT_OK_AND_ASSIGN(BenchSvdReport rep, bench_svd(ctx, o));
  // The U pass multiplies through randint3_product too (A·X per block of its plan).
  EXPECT_EQ(fused->calls(RandInt3Op::Gram), rep.result.passes - 1);
  EXPECT_GE(fused->calls(RandInt3Op::Times), 1);
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult want,
                              svd(context_on(nullptr), dense_copy(), bench_params(Precision::Float64, true)));
  ASSERT_EQ(rep.result.u.data.size(), want.u.data.size());
  for (size_t i = 0; i < want.u.data.size(); ++i) ASSERT_NEAR(rep.result.u.data[i], want.u.data[i], 1e-8) << i;
}

}  // namespace
}  // namespace strata::linalg
