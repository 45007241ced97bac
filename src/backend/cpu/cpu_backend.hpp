#pragma once
// The CPU backend (strata/backend/backend.hpp): OpenBLAS/LAPACKE for dense operations and the
// genotype kernels of this folder, through a dispatch table chosen once per instance.

#include <string>

#include "backend/cpu/decode_kernels.hpp"
#include "backend/cpu/gram_int_kernels.hpp"
#include "backend/cpu/gram_kernels.hpp"
#include "backend/cpu/gram_panel_kernels.hpp"
#include "backend/cpu/gram_vnni_kernels.hpp"
#include "backend/cpu/linear_predictor_kernels.hpp"
#include "backend/cpu/pair_count_kernels.hpp"
#include "backend/cpu/row_reduce_kernels.hpp"
#include "backend/cpu/weighted_gram_kernels.hpp"
#include "backend/cpu/skinny_gemm.hpp"
#include "strata/backend/backend.hpp"

namespace strata::backend::cpu {

/// o[i] = a[i] + y for i < n (float64 array + scalar).
using AddScalarF64Fn = void (*)(const double* a, double y, double* o, int64_t n);
/// The add of `isa` (not Best): the same bits on every level.
AddScalarF64Fn add_scalar_f64_for(CpuIsa isa);

/// The kernels of one instruction-set level: plain function pointers, so a tile costs one
/// indirect call and nothing is looked up per element.
struct KernelTable {
  CpuIsa isa = CpuIsa::Portable;
  const DecodeKernels* decode = nullptr;
  GramF32Kernels f32{};
  GramI16Kernels i16{};
  const PairCountKernels* pairs = nullptr;
  RowReduceFn row_reduce = nullptr;
  WeightedGramFn weighted_gram = nullptr;
  WeightedGramRowsFn weighted_gram_rows = nullptr;
  LinearPredictorFn linear_predictor = nullptr;
  LogisticGramFn logistic_gram = nullptr;
  SkinnyGemmFn skinny = nullptr;  ///< float64 gemm with ≤ 8 columns (null: BLAS)
  GramPanelsFn gram_panels = nullptr;
  GramPanelsF64Fn gram_panels_f64 = nullptr;
  GramSparseF64Fn gram_sparse_f64 = nullptr;
  GramU8S8Fn gram_u8s8 = nullptr;
  PackU8S8Fn pack_u8s8 = nullptr;
  AddScalarF64Fn add_scalar_f64 = nullptr;
  bool fast_i16 = false;  ///< int16 Gram products vectorized (AVX2 vpmaddwd, VNNI, AMX or NEON dot products)
  random::Isa random = random::Isa::Portable;
};

/// The table for `isa` (not Best), or nullptr when the CPU lacks it.
const KernelTable* kernel_table(CpuIsa isa);
/// The highest level whose table this CPU can fill, STRATA_CPU aside.
CpuIsa detected_isa();

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const KernelTable& k);

  std::string name() const override;

  Status gemm(Trans ta, Trans tb, double alpha, MatrixView<const double> a, MatrixView<const double> b, double beta,
              MatrixView<double> c) const override;
  Status gemm(Trans ta, Trans tb, float alpha, MatrixView<const float> a, MatrixView<const float> b, float beta,
              MatrixView<float> c) const override;
  Status syrk(Uplo uplo, Trans ta, double alpha, MatrixView<const double> a, double beta,
              MatrixView<double> c) const override;
  Status trsm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
              MatrixView<double> b) const override;
  Status trmm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
              MatrixView<double> b) const override;
  Status potrf(Uplo uplo, MatrixView<double> a) const override;
  Status qr(MatrixView<const double> a, MatrixView<double> q, MatrixView<double> r) const override;
  Status syev(MatrixView<double> a, double* w, bool vectors) const override;
  Status syev_top(MatrixView<double> a, int64_t count, double* w, MatrixView<double> z) const override;
  Result<double> trcon(Uplo uplo, MatrixView<const double> a) const override;
  Status svd(MatrixView<const double> a, MatrixView<double> u, double* s, MatrixView<double> vt) const override;

  Status decode(CodesView codes, const float* luts, MatrixView<float> out) const override;
  Status decode(CodesView codes, const double* luts, MatrixView<double> out) const override;
  Status count_codes(CodesView codes, int64_t* counts) const override;
  Status codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                     float* y) const override;
  Status codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y, int64_t w,
                       float* zt, int64_t ldz) const override;
  Status codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p,
                         const uint8_t* packed) const override;
  Result<std::vector<uint8_t>> pack_times_i16(const int16_t* qt, int64_t ldq, int64_t w, int64_t n32) const override;
  Status codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz,
                           const uint8_t* packed) const override;
  Result<std::vector<uint8_t>> pack_t_times_i16(const int16_t* wpairs, int64_t rows, int64_t w) const override;
  bool fast_int16() const override { return k_.fast_i16; }
  Status ew_binary(EwOp op, ScalarType t, const void* a, bool a_scalar, const void* b, bool b_scalar, void* out,
                 int64_t n) const override;
  Status ew_unary(EwOp op, ScalarType t, const void* a, void* out, int64_t n) const override;
  Status ew_cast(ScalarType from, ScalarType to, const void* a, void* out, int64_t n) const override;
  Status accumulate_f32(const float* x, double* acc, int64_t n) const override;
  Status gram_panels_f32(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode, double* acc,
                         int64_t ldacc) const override {
    k_.gram_panels(a, b, kk, rows, cols, mode, acc, ldacc);
    return Status::OK();
  }
  Status gram_panels_f64(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                         double* acc, int64_t ldacc) const override {
    k_.gram_panels_f64(a, b, kk, rows, cols, mode, acc, ldacc);
    return Status::OK();
  }
  Status gram_sparse_f64(const SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                         int64_t cols, int mode, double* acc, int64_t ldacc) const override {
    k_.gram_sparse_f64(l, y, u, kk, rows, cols, mode, acc, ldacc);
    return Status::OK();
  }
  Status gram_panels_u8s8(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows, int64_t cols,
                          int mode, double scale, double* acc, int64_t ldacc) const override {
    k_.gram_u8s8(codes, limbs, quads, rows, cols, mode, scale, acc, ldacc);
    return Status::OK();
  }
  Status pack_u8s8(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n, uint8_t* codes,
                 int8_t* limbs, int64_t* rsum) const override {
    k_.pack_u8s8(rows, tables, quads, n, codes, limbs, rsum);
    return Status::OK();
  }
  bool fast_u8s8() const override { return k_.gram_u8s8 != gram_u8s8_portable; }
  Status ew_where(ScalarType t, const void* cond, bool c_scalar, const void* a, bool a_scalar, const void* b,
                bool b_scalar, void* out, int64_t n) const override;
  Status reduce_tile(ReduceKind kind, const ReduceTile& tile, void* state) const override;
  Status code_planes(CodesView codes, uint64_t* planes, int64_t words, int64_t word) const override;
  Status pair_code_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override;
  Status pair_king_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override;
  Status row_pair_reduce(RowReduce op, double p, MatrixView<const double> a, MatrixView<const double> b,
                         MatrixView<double> out, int64_t* observed) const override;
  Status weighted_gram(MatrixView<const double> x, const double* w, const double* v, MatrixView<double> h,
                       double* g) const override;
  Status weighted_gram_rows(MatrixView<const double> x, const double* w, MatrixView<double> h) const override;
  Status linear_predictor(MatrixView<const double> x, const double* c, bool logistic, double* out) const override;
  Status logistic_gram(MatrixView<const double> x, const double* c, const double* y, MatrixView<double> h,
                       double* g) const override;
  Status random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) const override;

 private:
  KernelTable k_;
};

}  // namespace strata::backend::cpu
