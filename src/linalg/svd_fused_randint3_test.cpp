// The randomized SVD of a RandInt3 source: on the CPU, bench svd is the dense route's bits (the
// fused products are not used there); on a backend with fused_randint3() the gram passes call
// randint3_product per block instead of generating rows, which a CPU-backed stand-in runs here.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "array/array_test_util.hpp"
#include "linalg/bench_svd.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"
#include "strata/core/random.hpp"
#include "strata/linalg/svd.hpp"
#include "testing/testing.hpp"

namespace strata::linalg {
namespace {

using namespace strata::backend;  // NOLINT: the stand-in spells out the interface

// The CPU backend claiming fused_randint3(), counting randint3_product calls: the route the
// CUDA backend takes, with the CPU's reference products.
class FusedCpu final : public Backend {
 public:
  explicit FusedCpu(BackendPtr b) : b_(std::move(b)) {}
  int64_t calls(Backend::RandInt3Op op) const { return calls_[static_cast<int>(op)].load(); }
  std::string name() const override { return "cpu, fused_randint3"; }
  Status gemm(Trans ta, Trans tb, double alpha, MatrixView<const double> a, MatrixView<const double> b, double beta,
              MatrixView<double> c) const override {
    return b_->gemm(ta, tb, alpha, a, b, beta, c);
  }
  Status gemm(Trans ta, Trans tb, float alpha, MatrixView<const float> a, MatrixView<const float> b, float beta,
              MatrixView<float> c) const override {
    return b_->gemm(ta, tb, alpha, a, b, beta, c);
  }
  Status syrk(Uplo uplo, Trans ta, double alpha, MatrixView<const double> a, double beta,
              MatrixView<double> c) const override {
    return b_->syrk(uplo, ta, alpha, a, beta, c);
  }
  Status trsm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
              MatrixView<double> b) const override {
    return b_->trsm(side, uplo, ta, alpha, a, b);
  }
  Status trmm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
              MatrixView<double> b) const override {
    return b_->trmm(side, uplo, ta, alpha, a, b);
  }
  Status potrf(Uplo uplo, MatrixView<double> a) const override { return b_->potrf(uplo, a); }
  Status qr(MatrixView<const double> a, MatrixView<double> q, MatrixView<double> r) const override {
    return b_->qr(a, q, r);
  }
  Status syev(MatrixView<double> a, double* w, bool vectors) const override { return b_->syev(a, w, vectors); }
  Status syev_top(MatrixView<double> a, int64_t count, double* w, MatrixView<double> z) const override {
    return b_->syev_top(a, count, w, z);
  }
  Result<double> trcon(Uplo uplo, MatrixView<const double> a) const override { return b_->trcon(uplo, a); }
  Status svd(MatrixView<const double> a, MatrixView<double> u, double* s, MatrixView<double> vt) const override {
    return b_->svd(a, u, s, vt);
  }
  Status decode(CodesView codes, const float* luts, MatrixView<float> out) const override {
    return b_->decode(codes, luts, out);
  }
  Status decode(CodesView codes, const double* luts, MatrixView<double> out) const override {
    return b_->decode(codes, luts, out);
  }
  void count_codes(CodesView codes, int64_t* counts) const override { b_->count_codes(codes, counts); }
  void codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                   float* y) const override {
    b_->codes_times(codes, luts, qt, ldq, w, y);
  }
  void codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y, int64_t w, float* zt,
                     int64_t ldz) const override {
    b_->codes_t_times(codes, luts, n0, len, y, w, zt, ldz);
  }
  void codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p) const override {
    b_->codes_times_i16(codes, qt, ldq, w, p);
  }
  void codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz) const override {
    b_->codes_t_times_i16(codes, wpairs, w, zt, ldz);
  }
  bool fast_int16() const override { return b_->fast_int16(); }
  void ew_binary(EwOp op, ScalarType t, const void* a, bool a_scalar, const void* b, bool b_scalar, void* out,
                 int64_t n) const override {
    b_->ew_binary(op, t, a, a_scalar, b, b_scalar, out, n);
  }
  void ew_unary(EwOp op, ScalarType t, const void* a, void* out, int64_t n) const override {
    b_->ew_unary(op, t, a, out, n);
  }
  void ew_cast(ScalarType from, ScalarType to, const void* a, void* out, int64_t n) const override {
    b_->ew_cast(from, to, a, out, n);
  }
  void accumulate_f32(const float* x, double* acc, int64_t n) const override { b_->accumulate_f32(x, acc, n); }
  void gram_panels_f32(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode, double* acc,
                       int64_t ldacc) const override {
    b_->gram_panels_f32(a, b, kk, rows, cols, mode, acc, ldacc);
  }
  void gram_panels_u8s8(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows, int64_t cols, int mode,
                        double scale, double* acc, int64_t ldacc) const override {
    b_->gram_panels_u8s8(codes, limbs, quads, rows, cols, mode, scale, acc, ldacc);
  }
  void pack_u8s8(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n, uint8_t* codes,
                 int8_t* limbs, int64_t* rsum) const override {
    b_->pack_u8s8(rows, tables, quads, n, codes, limbs, rsum);
  }
  bool fast_u8s8() const override { return b_->fast_u8s8(); }
  void ew_where(ScalarType t, const void* cond, bool c_scalar, const void* a, bool a_scalar, const void* b,
                bool b_scalar, void* out, int64_t n) const override {
    b_->ew_where(t, cond, c_scalar, a, a_scalar, b, b_scalar, out, n);
  }
  void reduce_tile(ReduceKind kind, const ReduceTile& tile, void* state) const override {
    b_->reduce_tile(kind, tile, state);
  }
  void code_planes(CodesView codes, uint64_t* planes, int64_t words, int64_t word) const override {
    b_->code_planes(codes, planes, words, word);
  }
  Status pair_code_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override {
    return b_->pair_code_counts(planes, row0, rows, col0, cols, counts);
  }
  Status pair_king_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override {
    return b_->pair_king_counts(planes, row0, rows, col0, cols, counts);
  }
  Status row_pair_reduce(RowReduce op, double p, MatrixView<const double> a, MatrixView<const double> b,
                         MatrixView<double> out, int64_t* observed) const override {
    return b_->row_pair_reduce(op, p, a, b, out, observed);
  }
  Status weighted_gram(MatrixView<const double> x, const double* w, const double* v, MatrixView<double> h,
                       double* g) const override {
    return b_->weighted_gram(x, w, v, h, g);
  }
  Status weighted_gram_rows(MatrixView<const double> x, const double* w, MatrixView<double> h) const override {
    return b_->weighted_gram_rows(x, w, h);
  }
  Status linear_predictor(MatrixView<const double> x, const double* c, bool logistic, double* out) const override {
    return b_->linear_predictor(x, c, logistic, out);
  }
  Status logistic_gram(MatrixView<const double> x, const double* c, const double* y, MatrixView<double> h,
                       double* g) const override {
    return b_->logistic_gram(x, c, y, h, g);
  }
  void random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) const override {
    b_->random_fill(p, e0, step, n, out);
  }
  Result<double> random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                  int64_t c0, int64_t cstep, int64_t cols, double add) const override {
    return b_->random_slice_sum(p, ld, r0, rstep, rows, c0, cstep, cols, add);
  }
  Status randint3_product(const Backend::RandInt3Rows& a, Backend::RandInt3Op op, MatrixView<const double> x,
                          MatrixView<double> out) const override {
    return (++calls_[static_cast<int>(op)], b_->randint3_product(a, op, x, out));
  }
  bool fused_randint3() const override { return true; }

 private:
  BackendPtr b_;
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
  ASSERT_FALSE(backend::of(ctx).fused_randint3());
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
  EXPECT_EQ(fused->calls(Backend::RandInt3Op::Gram), rep.result.passes);  // 3000 rows: one block per pass
  EXPECT_EQ(fused->calls(Backend::RandInt3Op::Times), 0);
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
  EXPECT_EQ(fused->calls(Backend::RandInt3Op::Gram), rep.result.passes - 1);
  EXPECT_GE(fused->calls(Backend::RandInt3Op::Times), 1);
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult want,
                              svd(context_on(nullptr), dense_copy(), bench_params(Precision::Float64, true)));
  ASSERT_EQ(rep.result.u.data.size(), want.u.data.size());
  for (size_t i = 0; i < want.u.data.size(); ++i) ASSERT_NEAR(rep.result.u.data[i], want.u.data[i], 1e-8) << i;
}

}  // namespace
}  // namespace strata::linalg
