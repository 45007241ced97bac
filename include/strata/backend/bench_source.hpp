#pragma once
/// \file
/// strata::backend::BenchSource: the generated data sources of `strata bench` and of the
/// randomized SVD of a RandInt3 random matrix, kept out of the Backend interface: a sum over a
/// slice of a random matrix that never materializes it (random_slice_sum) and products with a
/// generated RandInt3 matrix (randint3_product). On a backend that generates them on its device
/// (Backend::bench_device_ops: the CUDA backend) they run there; on any other the host runs
/// them through that backend's own random_fill and gemm — the reference.
///
/// \code
/// const strata::backend::BenchSource source(strata::backend::of(ctx));
/// STRATA_ASSIGN_OR_RETURN(double total, source.random_slice_sum(p, cols, 0, 2, rows, 0, 2, cols, 1.0));
/// \endcode

#include <cstdint>

#include "strata/backend/backend.hpp"
#include "strata/core/random.hpp"
#include "strata/core/result.hpp"

namespace strata::backend {

/// \brief Rows [r0, r0 + rows) of the RandInt3 matrix with `cols` columns of `seed`: element
/// (i, j) = random::randint3(random::byte_at(seed, 0, i·cols + j)) (linalg's RandInt3 random
/// source).
struct RandInt3Rows {
  uint64_t seed = 0;
  int64_t cols = 0, r0 = 0, rows = 0;
};
enum class RandInt3Op : uint8_t { Times, TransTimes, Gram };
/// \brief Row slices of the CUDA backend's Aᵀ·x (part of its summation order).
inline constexpr int64_t kRandInt3Slices = 8;

/// \brief What a device backend implements to run BenchSource's operations itself; the
/// contracts are BenchSource's (the arguments arrive unchecked).
class BenchDeviceOps {
 public:
  virtual ~BenchDeviceOps() = default;
  virtual Result<double> random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep,
                                          int64_t rows, int64_t c0, int64_t cstep, int64_t cols,
                                          double add) const = 0;
  virtual Status randint3_product(const RandInt3Rows& a, RandInt3Op op, MatrixView<const double> x,
                                  MatrixView<double> out) const = 0;
};

/// \brief The benchmark data sources on one backend (which must outlive this).
class BenchSource {
 public:
  explicit BenchSource(const Backend& be) : be_(be), device_(be.bench_device_ops()) {}

  /// Σ (v(i, j) + add) over i < rows, j < cols, where v(i, j) = element (r0 + i·rstep)·ld + c0 +
  /// j·cstep of `p` (a strided slice of a random matrix with ld columns, plus a constant), never
  /// materializing the matrix: only the kept elements are generated. Float64 Normal or Uniform
  /// runs; indices ≥ 0. The values are the same bits on every backend; the association of the
  /// sum is the runner's own, fixed by the shape (host: each row summed in order, the row sums
  /// added in order; deterministic; a device agrees to rounding, ~1e-15 relative for positive
  /// terms). Invalid for other params.
  Result<double> random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                  int64_t c0, int64_t cstep, int64_t cols, double add) const;

  /// out = A·x (Times: x a.cols × l, out a.rows × l), Aᵀ·x (TransTimes: x a.rows × l, out
  /// a.cols × l) or Aᵀ·(A·x) (Gram: x and out a.cols × l; A·x rounded to float64 in between)
  /// for the block A of RandInt3Rows. Float64, any layouts. Every a(i, j)·x is exact
  /// (a ∈ {0, 1, 2}), so only the sums round. Summation order: host — the backend's gemm on the
  /// generated block (so Gram is the bits of read_block + gemm(No, No) + gemm(Yes, No), the
  /// float64 gram pass's); CUDA — A generated inside the call, never stored: A·x sums j = 0, 1, …
  /// in order; Aᵀ·x sums the block's rows in kRandInt3Slices contiguous slices (slice s = rows
  /// [s·rows/S, (s+1)·rows/S)), each in row order, the slices added in order. Both fixed by the
  /// shape (deterministic) and within (inner + 2)·2⁻⁵³·Σ|a·x| of the exact sum per entry and per
  /// product. Invalid for shapes that do not fit or indices past 2⁶³.
  Status randint3_product(const RandInt3Rows& a, RandInt3Op op, MatrixView<const double> x,
                          MatrixView<double> out) const;

  /// Whether randint3_product generates A where it multiplies (a device): linalg then calls it
  /// per block instead of generating rows on the host.
  bool fused_randint3() const { return device_ != nullptr; }

 private:
  const Backend& be_;
  const BenchDeviceOps* device_;  // null: on the host
};

}  // namespace strata::backend
