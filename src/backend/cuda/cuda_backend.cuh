#pragma once
// The CUDA backend (one device). Operations with device code here: gemm (float64/float32),
// syrk, trsm, trmm, potrf, qr, syev, syev_top (cuBLAS/cuSOLVER; small ones stay on the host
// unless the backend was made without small_dense_on_host), random_fill, the benchmark sources
// (BenchDeviceOps: random_slice_sum and the products with a generated RandInt3 matrix),
// the int16 Gram products, the GRM tiles and the pair counts (own kernels, the CPU's bits). Every other operation runs on the CPU backend
// it was given, so the whole interface keeps its contracts while kernels move over one by one.
// Operands are host views: each device operation copies them in and out per call (the
// conformance suite checks exactly that path). Keeping operands resident across calls is the
// next step the performance goals need (the genotype products especially).
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_common.cuh"
#include "backend/forwarding_backend.hpp"
#include "strata/backend/backend.hpp"
#include "strata/backend/bench_source.hpp"

namespace strata::backend::cuda {

class CudaBackend final : public ForwardingBackend, public BenchDeviceOps {
 public:
  /// Operations run on devices[0]; random_slice_sum splits its rows across all of them.
  CudaBackend(const std::vector<int>& devices, std::string name, BackendPtr cpu, bool small_dense_on_host)
      : ForwardingBackend(std::move(cpu)),
        pool_(devices.at(0)),
        name_(std::move(name)),
        small_on_host_(small_dense_on_host) {
    for (size_t d = 1; d < devices.size(); ++d) others_.push_back(std::make_unique<LanePool>(devices[d]));
  }
  std::string name() const override { return name_; }

  // ---- on the device (cuda_dense.cu) ----
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
  // ---- on the device (genotype_kernels.cu): exact table lookups and counts ----
  Status decode(CodesView codes, const float* luts, MatrixView<float> out) const override;
  Status decode(CodesView codes, const double* luts, MatrixView<double> out) const override;
  Status count_codes(CodesView codes, int64_t* counts) const override;
  // ---- on the device (genotype_kernels.cu): float products within the suite's bounds ----
  Status codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                     float* y) const override;
  Status codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y, int64_t w,
                       float* zt, int64_t ldz) const override;
  // ---- on the device (genotype_kernels.cu): the CPU's bits (exact integers, the same fma chain) ----
  Status gram_panels_f32(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode, double* acc,
                         int64_t ldacc) const override;
  Status gram_panels_f64(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                         double* acc, int64_t ldacc) const override;
  Status gram_sparse_f64(const SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                         int64_t cols, int mode, double* acc, int64_t ldacc) const override;
  Status gram_panels_u8s8(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows, int64_t cols,
                          int mode, double scale, double* acc, int64_t ldacc) const override;
  Status codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p,
                         const uint8_t* packed) const override;
  /// The device kernels read qt and wpairs as they are.
  Result<std::vector<uint8_t>> pack_times_i16(const int16_t*, int64_t, int64_t, int64_t) const override {
    return std::vector<uint8_t>{};
  }
  Status codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz,
                           const uint8_t* packed) const override;
  Result<std::vector<uint8_t>> pack_t_times_i16(const int16_t*, int64_t, int64_t) const override {
    return std::vector<uint8_t>{};
  }
  Status pair_code_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override;
  Status pair_king_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override;
  // ---- on the device (cuda_backend.cu) ----
  Status random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) const override;
  // ---- the benchmark sources (BenchSource checks the arguments) ----
  const BenchDeviceOps* bench_device_ops() const override { return this; }
  Result<double> random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                  int64_t c0, int64_t cstep, int64_t cols, double add) const override;
  // ---- on the device (randint3_kernels.cu): A generated in shared memory, never stored ----
  Status randint3_product(const RandInt3Rows& a, RandInt3Op op, MatrixView<const double> x,
                          MatrixView<double> out) const override;

  // Every other operation: on the CPU backend (ForwardingBackend), for now.

 private:
  Result<Lane*> lane() const { return pool_.acquire(); }
  // Dense work small enough to stay on the host (Backend::make_cuda_backend): flops of a
  // product, order of a factorization.
  bool host_product(double flops) const { return small_on_host_ && flops < 1e8; }
  bool host_factor(int64_t n) const { return small_on_host_ && n < 512; }
  mutable LanePool pool_;
  std::vector<std::unique_ptr<LanePool>> others_;  // cuda:all's other devices
  std::string name_;
  bool small_on_host_;
};

}  // namespace strata::backend::cuda
