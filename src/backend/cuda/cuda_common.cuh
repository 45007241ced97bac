#pragma once
// Shared by the CUDA module's files: error text, the per-thread working set ("lane": streams,
// library handles, pinned staging) and stream-ordered device buffers.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/core/random.hpp"
#include "strata/core/result.hpp"

namespace strata::backend::cuda {

/// "cudaMemcpyAsync: an illegal memory access was encountered".
inline std::string cuda_error(const char* call, cudaError_t e) {
  return std::string(call) + ": " + cudaGetErrorString(e);
}

// Status-returning code: an error becomes IOError naming the call.
#define STRATA_CUDA_RETURN(call)                                                        \
  do {                                                                                  \
    const cudaError_t strata_cuda_e_ = (call);                                          \
    if (strata_cuda_e_ != cudaSuccess) return Status::IOError("CUDA: ", cuda_error(#call, strata_cuda_e_)); \
  } while (0)
#define STRATA_CUBLAS_RETURN(call)                                                                \
  do {                                                                                            \
    const cublasStatus_t strata_blas_e_ = (call);                                                 \
    if (strata_blas_e_ != CUBLAS_STATUS_SUCCESS)                                                  \
      return Status::IOError("cuBLAS: ", #call, ": ", cublasGetStatusString(strata_blas_e_));    \
  } while (0)
#define STRATA_CUSOLVER_RETURN(call)                                                      \
  do {                                                                                    \
    const cusolverStatus_t strata_solver_e_ = (call);                                     \
    if (strata_solver_e_ != CUSOLVER_STATUS_SUCCESS)                                      \
      return Status::IOError("cuSOLVER: ", #call, " failed (status ", int(strata_solver_e_), ")"); \
  } while (0)

/// Staging buffers of a lane: pinned host memory, so copies run asynchronously (DMA) while the
/// device computes the next piece.
inline constexpr size_t kStagingBytes = size_t{8} << 20;

/// What one host thread needs for one backend call: two streams (compute of piece k + 1
/// overlaps the copy of piece k), cuBLAS/cuSOLVER handles and two pinned staging buffers.
/// Lanes are pooled per backend; a call takes one for its duration (so calls from several
/// worker threads run concurrently, each on its own streams).
struct Lane {
  cudaStream_t stream[2] = {nullptr, nullptr};
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  void* pinned[2] = {nullptr, nullptr};
  ~Lane();
};

class LanePool {
 public:
  explicit LanePool(int device) : device_(device) {}
  /// A free lane (made on first need), with this thread's current device set.
  Result<Lane*> acquire();
  void release(Lane* lane);
  int device() const { return device_; }

 private:
  int device_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Lane>> all_;
  std::vector<Lane*> free_;
};

/// A lane for the scope of a call.
class LaneGuard {
 public:
  LaneGuard(LanePool& pool, Lane* lane) : pool_(pool), lane_(lane) {}
  ~LaneGuard() { pool_.release(lane_); }
  LaneGuard(const LaneGuard&) = delete;
  LaneGuard& operator=(const LaneGuard&) = delete;
  Lane* operator->() const { return lane_; }
  Lane& operator*() const { return *lane_; }

 private:
  LanePool& pool_;
  Lane* lane_;
};

/// f(lane) on a lane of `pool` for the duration of a call.
template <class F>
Status run_on(LanePool& pool, F&& f) {
  STRATA_ASSIGN_OR_RETURN(Lane * lane, pool.acquire());
  LaneGuard guard(pool, lane);
  return f(*guard);
}

/// Device memory from the device's stream-ordered pool (cudaMallocAsync; no managed memory),
/// freed in order on the same stream.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  Status allocate(size_t bytes, cudaStream_t stream) {
    reset();
    stream_ = stream;
    if (bytes == 0) return Status::OK();
    STRATA_CUDA_RETURN(cudaMallocAsync(&ptr_, bytes, stream));
    return Status::OK();
  }
  void reset() {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
    ptr_ = nullptr;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

// ---- host views to and from the device --------------------------------------------------------

/// A view's elements packed column-major (ld = rows; one element for an empty view).
template <class T>
inline std::vector<T> pack(MatrixView<const T> v) {
  std::vector<T> h(static_cast<size_t>(std::max<int64_t>(1, v.rows * v.cols)));
  for (int64_t j = 0; j < v.cols; ++j)
    for (int64_t i = 0; i < v.rows; ++i) h[static_cast<size_t>(i + j * v.rows)] = v(i, j);
  return h;
}
/// The packed column-major h written back into the view.
template <class T>
inline void unpack(const std::vector<T>& h, MatrixView<T> v) {
  for (int64_t j = 0; j < v.cols; ++j)
    for (int64_t i = 0; i < v.rows; ++i) v(i, j) = h[static_cast<size_t>(i + j * v.rows)];
}

/// d = a new device copy of h (stream-ordered on s).
template <class T>
inline Status upload(cudaStream_t s, DeviceBuffer& d, const std::vector<T>& h) {
  STRATA_RETURN_NOT_OK(d.allocate(sizeof(T) * h.size(), s));
  STRATA_CUDA_RETURN(cudaMemcpyAsync(d.as<T>(), h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice, s));
  return Status::OK();
}
/// h = d's first h.size() elements, waiting for s.
template <class T>
inline Status download(cudaStream_t s, const DeviceBuffer& d, std::vector<T>& h) {
  STRATA_CUDA_RETURN(cudaMemcpyAsync(h.data(), d.as<T>(), sizeof(T) * h.size(), cudaMemcpyDeviceToHost, s));
  STRATA_CUDA_RETURN(cudaStreamSynchronize(s));
  return Status::OK();
}

// ---- kernels (random_kernels.cu) ------------------------------------------------------------

/// out[k] = element e0 + k·step of p (random::fill's values), k < n, out on the device.
cudaError_t launch_random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out,
                               cudaStream_t stream);

/// Blocks of the fused slice sum: fixed (not the device's size), so the association of the
/// sum, hence its bits, is the same on every device.
inline constexpr int kSliceSumBlocks = 4096;
inline constexpr int kSliceSumThreads = 256;
/// partials[b] = block b's share of Σ (v(i, j) + add) (BenchSource::random_slice_sum), b <
/// kSliceSumBlocks; the caller adds them in order.
cudaError_t launch_random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                    int64_t c0, int64_t cstep, int64_t cols, double add, double* partials,
                                    cudaStream_t stream);

}  // namespace strata::backend::cuda
