// Products with a RandInt3 matrix generated in shared memory (BenchSource::randint3_product): A is
// never written to global memory. The kernels are the phases of randint3_tile.hpp (shared with
// the host test that emulates them) between barriers; the slice partials of Aᵀ·x are added in
// slice order by a second kernel. No atomics, no cross-thread float reductions: the order of
// every sum is fixed by the shape, the same on every device.
#include <vector>

#include "backend/checks.hpp"
#include "backend/cuda/cuda_backend.cuh"
#include "backend/cuda/randint3_tile.hpp"

namespace strata::backend::cuda {
namespace {

using namespace tile;  // NOLINT: the kernels' phases

// y = A·x, rows of y in blocks of 64 (grid.x) and columns in blocks of 32 (grid.y); the inner
// dimension in steps of 32, in order.
__global__ void times_kernel(RandInt3Rows a, const double* x, int64_t l, double* y) {
  __shared__ TimesShared sh;
  double acc[kPer];
  for (double& v : acc) v = 0.0;
  for (int64_t k0 = 0; k0 < a.cols; k0 += kStep) {
    times_load(a, x, l, blockIdx.x, blockIdx.y, k0, sh, threadIdx.x);
    __syncthreads();
    times_accumulate(sh, threadIdx.x, acc);
    __syncthreads();  // before the next step overwrites the tiles
  }
  times_store(a, l, blockIdx.x, blockIdx.y, threadIdx.x, acc, y);
}

// zp[s] = Aᵀ·w over row slice s (grid.z), columns of A in blocks of 64 (grid.x), of w in blocks
// of 32 (grid.y); the slice's rows in steps of 32, in order.
__global__ void trans_times_kernel(RandInt3Rows a, const double* w, int64_t l, double* zp) {
  __shared__ TransShared sh;
  int64_t lo = 0, hi = 0;
  slice_rows(a.rows, blockIdx.z, &lo, &hi);
  double acc[kPer];
  for (double& v : acc) v = 0.0;
  for (int64_t i0 = lo; i0 < hi; i0 += kStep) {
    trans_load(a, w, l, blockIdx.x, blockIdx.y, hi, i0, sh, threadIdx.x);
    __syncthreads();
    trans_accumulate(sh, threadIdx.x, acc);
    __syncthreads();
  }
  trans_store(a, l, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, acc, zp);
}

__global__ void add_slices_kernel(const double* zp, int64_t n, double* z) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    z[k] = add_slices(zp, n, k);
}

unsigned blocks_of(int64_t n, int64_t per) { return static_cast<unsigned>((n + per - 1) / per); }

// y = A·x on the device (x cols × l, y rows × l).
cudaError_t launch_times(const RandInt3Rows& a, const double* x, int64_t l, double* y, cudaStream_t s) {
  const dim3 grid(blocks_of(a.rows, kOut), blocks_of(l, kL));
  times_kernel<<<grid, kThreads, 0, s>>>(a, x, l, y);
  return cudaGetLastError();
}

// z = Aᵀ·w on the device (w rows × l, z cols × l), through slice partials zp.
cudaError_t launch_trans_times(const RandInt3Rows& a, const double* w, int64_t l, double* zp, double* z,
                               cudaStream_t s) {
  const dim3 grid(blocks_of(a.cols, kOut), blocks_of(l, kL), static_cast<unsigned>(kRandInt3Slices));
  trans_times_kernel<<<grid, kThreads, 0, s>>>(a, w, l, zp);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const int64_t n = a.cols * l;
  add_slices_kernel<<<std::min<unsigned>(blocks_of(n, kThreads), 65536u), kThreads, 0, s>>>(zp, n, z);
  return cudaGetLastError();
}

Status randint3_on(Lane& lane, const RandInt3Rows& a, RandInt3Op op, MatrixView<const double> x,
                   MatrixView<double> out, int64_t l) {
  const cudaStream_t s = lane.stream[0];
  const int64_t out_rows = op == RandInt3Op::Times ? a.rows : a.cols;
  DeviceBuffer dx, dy, dzp, dout;
  STRATA_RETURN_NOT_OK(upload(s, dx, pack(x)));  // x once per call
  STRATA_RETURN_NOT_OK(dout.allocate(sizeof(double) * static_cast<size_t>(out_rows * l), s));
  const double* w = dx.as<double>();
  if (op == RandInt3Op::Gram) {  // A·x stays on the device
    STRATA_RETURN_NOT_OK(dy.allocate(sizeof(double) * static_cast<size_t>(a.rows * l), s));
    STRATA_CUDA_RETURN(launch_times(a, dx.as<double>(), l, dy.as<double>(), s));
    w = dy.as<double>();
  }
  if (op == RandInt3Op::Times) {
    STRATA_CUDA_RETURN(launch_times(a, w, l, dout.as<double>(), s));
  } else {
    STRATA_RETURN_NOT_OK(dzp.allocate(sizeof(double) * static_cast<size_t>(kRandInt3Slices * a.cols * l), s));
    STRATA_CUDA_RETURN(launch_trans_times(a, w, l, dzp.as<double>(), dout.as<double>(), s));
  }
  std::vector<double> h(static_cast<size_t>(out_rows * l));
  STRATA_RETURN_NOT_OK(download(s, dout, h));
  unpack(h, out);
  return Status::OK();
}

}  // namespace

Status CudaBackend::randint3_product(const RandInt3Rows& a, RandInt3Op op, MatrixView<const double> x,
                                     MatrixView<double> out) const {
  // BenchSource checked the call and took the empty ones.
  return run_on(pool_, [&](Lane& lane) { return randint3_on(lane, a, op, x, out, x.cols); });
}

}  // namespace strata::backend::cuda
