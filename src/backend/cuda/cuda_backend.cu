// The CUDA module's entry point, the lane pool and the random operations. Nothing here runs
// at load time: the CUDA runtime (linked statically) starts at the first call.
#include <algorithm>
#include <cstring>
#include <thread>

#include "backend/cuda/cuda_backend.cuh"
#include "backend/cuda_module.hpp"
#include "backend/checks.hpp"

namespace strata::backend::cuda {

Lane::~Lane() {
  for (void* p : pinned)
    if (p) cudaFreeHost(p);
  if (solver) cusolverDnDestroy(solver);
  if (blas) cublasDestroy(blas);
  for (cudaStream_t s : stream)
    if (s) cudaStreamDestroy(s);
}

Result<Lane*> LanePool::acquire() {
  STRATA_CUDA_RETURN(cudaSetDevice(device_));  // this thread's current device, for the call
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      Lane* l = free_.back();
      free_.pop_back();
      return l;
    }
  }
  auto lane = std::make_unique<Lane>();
  for (cudaStream_t& s : lane->stream) STRATA_CUDA_RETURN(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (void*& p : lane->pinned) STRATA_CUDA_RETURN(cudaMallocHost(&p, kStagingBytes));
  STRATA_CUBLAS_RETURN(cublasCreate(&lane->blas));
  STRATA_CUBLAS_RETURN(cublasSetStream(lane->blas, lane->stream[0]));
  STRATA_CUSOLVER_RETURN(cusolverDnCreate(&lane->solver));
  STRATA_CUSOLVER_RETURN(cusolverDnSetStream(lane->solver, lane->stream[0]));
  std::lock_guard<std::mutex> lock(mu_);
  all_.push_back(std::move(lane));
  return all_.back().get();
}

void LanePool::release(Lane* lane) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(lane);
}

namespace {

// Pieces of random_fill: one staging buffer's worth, generated on one stream while the other
// stream's piece is copied out.
Status fill_staged(Lane& lane, const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) {
  const int64_t item = DType(p.out).itemsize();
  const int64_t piece = static_cast<int64_t>(kStagingBytes) / item;
  const int64_t pieces = (n + piece - 1) / piece;
  DeviceBuffer dev[2];
  for (int s = 0; s < 2; ++s) STRATA_RETURN_NOT_OK(dev[s].allocate(static_cast<size_t>(std::min(n, piece) * item), lane.stream[s]));
  // Hands piece q (staged in lane.pinned[q % 2]) to the caller's buffer once its copy is done.
  const auto drain = [&](int64_t q) -> Status {
    const int s = static_cast<int>(q & 1);
    STRATA_CUDA_RETURN(cudaStreamSynchronize(lane.stream[s]));
    const int64_t len = std::min(piece, n - q * piece);
    std::memcpy(static_cast<uint8_t*>(out) + q * piece * item, lane.pinned[s], static_cast<size_t>(len * item));
    return Status::OK();
  };
  for (int64_t q = 0; q < pieces; ++q) {
    const int s = static_cast<int>(q & 1);
    if (q >= 2) STRATA_RETURN_NOT_OK(drain(q - 2));
    const int64_t len = std::min(piece, n - q * piece);
    STRATA_CUDA_RETURN(launch_random_fill(p, e0 + q * piece * step, step, len, dev[s].as<void>(), lane.stream[s]));
    STRATA_CUDA_RETURN(cudaMemcpyAsync(lane.pinned[s], dev[s].as<void>(), static_cast<size_t>(len * item),
                                       cudaMemcpyDeviceToHost, lane.stream[s]));
  }
  for (int64_t q = std::max<int64_t>(0, pieces - 2); q < pieces; ++q) STRATA_RETURN_NOT_OK(drain(q));
  return Status::OK();
}

}  // namespace

Status CudaBackend::random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) const {
  if (n <= 0) return Status::OK();
  return run_on(pool_, [&](Lane& lane) { return fill_staged(lane, p, e0, step, n, out); });
}

namespace {

// The slice sum of rows [r0, r0 + rows·rstep) on one device.
Result<double> slice_sum_on(LanePool& pool, const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep,
                            int64_t rows, int64_t c0, int64_t cstep, int64_t cols, double add) {
  if (rows == 0 || cols == 0) return 0.0;
  STRATA_ASSIGN_OR_RETURN(Lane * l, pool.acquire());
  LaneGuard guard(pool, l);
  const cudaStream_t s = guard->stream[0];
  DeviceBuffer partials;
  STRATA_RETURN_NOT_OK(partials.allocate(sizeof(double) * kSliceSumBlocks, s));
  STRATA_CUDA_RETURN(launch_random_slice_sum(p, ld, r0, rstep, rows, c0, cstep, cols, add, partials.as<double>(), s));
  std::vector<double> host(kSliceSumBlocks);
  STRATA_RETURN_NOT_OK(download(s, partials, host));
  double total = 0;
  for (double x : host) total += x;  // block order: fixed
  return total;
}

}  // namespace

Result<double> CudaBackend::random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep,
                                             int64_t rows, int64_t c0, int64_t cstep, int64_t cols,
                                             double add) const {
  if (others_.empty()) return slice_sum_on(pool_, p, ld, r0, rstep, rows, c0, cstep, cols, add);
  // Several devices (cuda:all): contiguous row ranges, one host thread per device, the partial
  // sums added in device order — deterministic for a given device count. Not yet run on a
  // machine with more than one GPU.
  const int64_t nd = 1 + static_cast<int64_t>(others_.size());
  std::vector<double> part(static_cast<size_t>(nd), 0.0);
  std::vector<Status> error(static_cast<size_t>(nd));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t lo = rows * d / nd, hi = rows * (d + 1) / nd;
    LanePool* pool = d == 0 ? &pool_ : others_[static_cast<size_t>(d - 1)].get();
    threads.emplace_back([&, d, lo, hi, pool] {
      Result<double> r = slice_sum_on(*pool, p, ld, r0 + lo * rstep, rstep, hi - lo, c0, cstep, cols, add);
      if (r.ok()) {
        part[static_cast<size_t>(d)] = *r;
      } else {
        (void)(error[static_cast<size_t>(d)] = r.status());  // (nvcc flags the assignment's Status&)
      }
    });
  }
  for (std::thread& t : threads) t.join();
  double total = 0;
  for (int64_t d = 0; d < nd; ++d) {
    STRATA_RETURN_NOT_OK(error[static_cast<size_t>(d)]);
    total += part[static_cast<size_t>(d)];
  }
  return total;
}

namespace {

Result<int> device_count() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return Status::Unsupported("no CUDA device (cudaGetDeviceCount: ", cudaGetErrorString(e), ")");
  if (n == 0) return Status::Unsupported("no CUDA device (cudaGetDeviceCount: 0 devices)");
  return n;
}

// Device `device` ready for a backend: its stream-ordered pool keeps what it was given (no
// release at each synchronization), so per-call buffers come from it without cudaMalloc's
// device-wide synchronization.
Result<std::string> prepare(int device) {
  cudaDeviceProp prop{};
  STRATA_CUDA_RETURN(cudaGetDeviceProperties(&prop, device));
  STRATA_CUDA_RETURN(cudaSetDevice(device));
  cudaMemPool_t pool = nullptr;
  STRATA_CUDA_RETURN(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t keep = UINT64_MAX;
  STRATA_CUDA_RETURN(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return str_cat(prop.name, ", sm_", prop.major, prop.minor, ", ", static_cast<int64_t>(prop.totalGlobalMem >> 30),
                 " GiB");
}

Result<BackendPtr> make(const std::vector<int>& devices, BackendPtr cpu, bool small_dense_on_host) {
  if (devices.empty()) return Status::Invalid("CUDA backend: no devices given");
  std::string name;
  for (int d : devices) {
    STRATA_ASSIGN_OR_RETURN(std::string what, prepare(d));
    if (name.empty()) name = devices.size() == 1 ? str_cat("cuda:", d, " (", what, ")")
                                                 : str_cat("cuda:all (", devices.size(), " devices; cuda:", d, ": ", what);
  }
  if (devices.size() > 1) name += ")";
  return BackendPtr(std::make_shared<CudaBackend>(devices, name, std::move(cpu), small_dense_on_host));
}

}  // namespace

}  // namespace strata::backend::cuda

extern "C" __attribute__((visibility("default"))) const strata::backend::cuda_module::Api* strata_cuda_module_api() {
  static const strata::backend::cuda_module::Api api{strata::backend::cuda_module::kApiVersion,
                                                     &strata::backend::cuda::device_count,
                                                     &strata::backend::cuda::make, STRATA_CUDA_BUILD_INFO};
  return &api;
}
