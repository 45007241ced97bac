// Random kernels of the CUDA backend: fill and the fused generate + add + sliced sum. Every
// value comes from random_hd.hpp's element code, the same source the CPU's portable kernels
// run, compiled with -fmad=false: the same IEEE operations in the same order, hence the same
// bits as the CPU for the same (seed, stream, element). fill: one thread per element. The slice
// sum: runs of consecutive items per thread, so one Philox block serves every kept element it
// holds (4 normals, 2 on a step-2 slice; 2 uniforms).
#include "backend/cuda/cuda_common.cuh"
#include "backend/cuda/slice_values.hpp"
#include "core/random_hd.hpp"

namespace strata::backend::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void fill_kernel(random::FillParams p, int64_t e0, int64_t step, int64_t n, void* out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    random::detail::store_element(p, static_cast<uint64_t>(e0 + k * step), out, k);
}

// Items (item = i·cols + j) in chunks of kSliceChunk consecutive ones; thread t of the grid
// sums chunks t, t + T, t + 2T, … and each chunk's items in order into one sum (neighbouring
// kept elements share Philox blocks within a chunk); the block adds its threads' sums in a
// fixed tree. With the grid and the chunk fixed, the association is a function of the shape.
constexpr int64_t kSliceChunk = 16;
__global__ void slice_sum_kernel(random::FillParams p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows, int64_t c0,
                                 int64_t cstep, int64_t cols, double add, double* partials) {
  __shared__ double part[kSliceSumThreads];
  const int64_t total = rows * cols;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  SliceValues value(p, add);
  double acc = 0;
  for (int64_t q = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q * kSliceChunk < total; q += stride) {
    const int64_t first = q * kSliceChunk, last = first + kSliceChunk < total ? first + kSliceChunk : total;
    int64_t i = first / cols, j = first % cols;
    for (int64_t t = first; t < last; ++t) {
      acc += value(static_cast<uint64_t>((r0 + i * rstep) * ld + c0 + j * cstep));
      if (++j == cols) j = 0, ++i;
    }
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int half = kSliceSumThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = part[0];
}

}  // namespace

cudaError_t launch_random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out,
                               cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 65536);
  fill_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(p, e0, step, n, out);
  return cudaGetLastError();
}

cudaError_t launch_random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                    int64_t c0, int64_t cstep, int64_t cols, double add, double* partials,
                                    cudaStream_t stream) {
  slice_sum_kernel<<<kSliceSumBlocks, kSliceSumThreads, 0, stream>>>(p, ld, r0, rstep, rows, c0, cstep, cols, add,
                                                                      partials);
  return cudaGetLastError();
}

}  // namespace strata::backend::cuda
