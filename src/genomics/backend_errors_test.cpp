// A backend's failure in a genotype tile kernel ends the computation with its Status: every
// caller of the counts, Gram-operator and GRM-panel kernels passes it on (a device reports its
// errors there rather than throwing).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "backend/forwarding_backend.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/genotype_dosage.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using namespace strata::backend;  // NOLINT: the stand-in names the interface's types

// The CPU backend with one genotype operation failing as a lost device would.
class FailingOp final : public ForwardingBackend {
 public:
  FailingOp(BackendPtr inner, std::string op) : ForwardingBackend(std::move(inner)), op_(std::move(op)) {}
  std::string name() const override { return "cpu, failing " + op_; }

  Status count_codes(CodesView codes, int64_t* counts) const override {
    return fails("count_codes") ? lost() : ForwardingBackend::count_codes(codes, counts);
  }
  Status codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                     float* y) const override {
    return fails("codes_times") ? lost() : ForwardingBackend::codes_times(codes, luts, qt, ldq, w, y);
  }
  Status codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y, int64_t w,
                       float* zt, int64_t ldz) const override {
    return fails("codes_t_times") ? lost() : ForwardingBackend::codes_t_times(codes, luts, n0, len, y, w, zt, ldz);
  }
  Status codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p,
                         const uint8_t* packed) const override {
    return fails("codes_times_i16") ? lost() : ForwardingBackend::codes_times_i16(codes, qt, ldq, w, p, packed);
  }
  Result<std::vector<uint8_t>> pack_times_i16(const int16_t* qt, int64_t ldq, int64_t w, int64_t n32) const override {
    if (fails("pack_times_i16")) return lost();
    return ForwardingBackend::pack_times_i16(qt, ldq, w, n32);
  }
  Status codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz,
                           const uint8_t* packed) const override {
    return fails("codes_t_times_i16") ? lost()
                                      : ForwardingBackend::codes_t_times_i16(codes, wpairs, w, zt, ldz, packed);
  }
  Result<std::vector<uint8_t>> pack_t_times_i16(const int16_t* wpairs, int64_t rows, int64_t w) const override {
    if (fails("pack_t_times_i16")) return lost();
    return ForwardingBackend::pack_t_times_i16(wpairs, rows, w);
  }
  Status gram_panels_f32(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                         double* acc, int64_t ldacc) const override {
    return fails("gram_panels_f32") ? lost()
                                    : ForwardingBackend::gram_panels_f32(a, b, kk, rows, cols, mode, acc, ldacc);
  }
  Status gram_panels_f64(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                         double* acc, int64_t ldacc) const override {
    return fails("gram_panels_f64") ? lost()
                                    : ForwardingBackend::gram_panels_f64(a, b, kk, rows, cols, mode, acc, ldacc);
  }
  Status gram_sparse_f64(const backend::SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                         int64_t cols, int mode, double* acc, int64_t ldacc) const override {
    return fails("gram_sparse_f64") ? lost()
                                    : ForwardingBackend::gram_sparse_f64(l, y, u, kk, rows, cols, mode, acc, ldacc);
  }
  Status gram_panels_u8s8(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows, int64_t cols,
                          int mode, double scale, double* acc, int64_t ldacc) const override {
    if (fails("gram_panels_u8s8")) return lost();
    return ForwardingBackend::gram_panels_u8s8(codes, limbs, quads, rows, cols, mode, scale, acc, ldacc);
  }

 private:
  bool fails(const char* op) const { return op_ == op; }
  Status lost() const { return Status::IOError("test device: ", op_, " lost the device"); }
  std::string op_;
};

Context failing_context(const std::string& op) {
  ContextOptions o;
  o.threads = 2;
  o.backend_impl = std::make_shared<FailingOp>(cpu_backend(), op);
  auto ctx = Context::make(o);
  EXPECT_TRUE(ctx.ok()) << ctx.status().to_string();
  return std::move(ctx).value();
}

io::GenotypeViewPtr genotypes(double missing) {
  SimulateOptions o;
  o.num_samples = 150, o.num_variants = 600, o.num_pops = 2, o.fst = 0.1, o.missing = missing, o.seed = 7;
  auto view = make_simulated_genotypes(o);
  EXPECT_TRUE(view.ok()) << view.status().to_string();
  return std::move(view).value();
}

void expect_lost(const Status& st, const std::string& op) {
  EXPECT_EQ(st.code(), StatusCode::IOError) << op << ": " << st.to_string();
  EXPECT_NE(st.message().find(op + " lost the device"), std::string::npos) << st.to_string();
}

Status randomized_pca(const Context& ctx, const io::GenotypeViewPtr& view, Precision precision) {
  PcaParams p;
  p.k = 3;
  p.method = linalg::SvdMethod::Randomized;
  p.precision = precision;
  return pca(ctx, view, p).status();
}

TEST(BackendErrors, FromTheCountsPass) {
  const auto view = genotypes(0.02);
  STRATA_ASSERT_OK(compute_variant_counts(Context(), *view));  // the same pass on the CPU succeeds
  expect_lost(compute_variant_counts(failing_context("count_codes"), *view).status(), "count_codes");
}

TEST(BackendErrors, FromTheGrmPanels) {
  const auto view = genotypes(0.02);  // missing calls: the pairwise counts run too
  STRATA_ASSERT_OK(compute_grm_dense(Context(), view, GrmParams{}));
  expect_lost(compute_grm_dense(failing_context("gram_sparse_f64"), view, GrmParams{}).status(), "gram_sparse_f64");
  GrmParams float32;  // the float32 route: its values and the missing indicators' panels
  float32.float64 = false;
  expect_lost(compute_grm_dense(failing_context("gram_panels_f32"), view, float32).status(), "gram_panels_f32");
  // Fractional dosages take the dense float64 panels.
  std::vector<float> d(static_cast<size_t>(40 * 30));
  for (size_t e = 0; e < d.size(); ++e) d[e] = static_cast<float>((e * 7 % 9) * 0.25);
  io::DosageMatrix dm;
  dm.data = d.data();
  dm.type = io::DosageType::Float32;
  dm.rows = 40;
  dm.cols = 30;
  dm.row_stride = 30;
  STRATA_ASSERT_OK_AND_ASSIGN(auto dosages, io::make_dosage_genotypes(dm));
  ASSERT_TRUE(dosages->has_dosages());
  STRATA_ASSERT_OK(compute_grm_dense(Context(), dosages, GrmParams{}));
  expect_lost(compute_grm_dense(failing_context("gram_panels_f64"), dosages, GrmParams{}).status(), "gram_panels_f64");
  if (!cpu_backend()->fast_u8s8()) GTEST_SKIP() << "no integer GRM kernel on this CPU: gram_panels_u8s8 unused";
  GrmParams integer;
  integer.integer_products = true;
  const auto complete = genotypes(0.0);  // integer products take the variants without missing calls
  STRATA_ASSERT_OK(compute_grm_dense(Context(), complete, integer));
  expect_lost(compute_grm_dense(failing_context("gram_panels_u8s8"), complete, integer).status(), "gram_panels_u8s8");
}

TEST(BackendErrors, FromTheGramOperatorFloat32) {
  const auto view = genotypes(0.02);
  STRATA_ASSERT_OK(randomized_pca(Context(), view, Precision::Float32));
  for (const char* op : {"codes_times", "codes_t_times"})
    expect_lost(randomized_pca(failing_context(op), view, Precision::Float32), op);
}

TEST(BackendErrors, FromTheGramOperatorInt16) {
  const auto view = genotypes(0.02);
  STRATA_ASSERT_OK(randomized_pca(Context(), view, Precision::Int16));
  for (const char* op : {"codes_times_i16", "pack_times_i16", "codes_t_times_i16", "pack_t_times_i16"})
    expect_lost(randomized_pca(failing_context(op), view, Precision::Int16), op);
}

}  // namespace
}  // namespace strata::genomics
