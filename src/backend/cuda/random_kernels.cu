// Random kernels of the CUDA backend: fill and the fused generate + add + sliced sum. Every
// value comes from random_hd.hpp's element code, the same source the CPU's portable kernels
// run, compiled with -fmad=false: the same IEEE operations in the same order, hence the same
// bits as the CPU for the same (seed, stream, element). Simple grid-stride loops: one thread
// per element, no sharing of a Philox block between neighbours (up to 4 normals could share
// one, 2 on a step-2 slice; left for when this can be measured).
#include "backend/cuda/cuda_common.cuh"
#include "core/random_hd.hpp"

namespace strata::backend::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void fill_kernel(random::FillParams p, int64_t e0, int64_t step, int64_t n, void* out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    random::detail::store_element(p, static_cast<uint64_t>(e0 + k * step), out, k);
}

// The value the array engine computes for (x + add) with x = fma(z, sd, mean) (normal) or the
// uniform: the same two roundings in the same order.
__device__ double slice_value(const random::FillParams& p, uint64_t e, double add) {
  const double x = p.dist == random::Dist::Normal ? std::fma(random::detail::normal_elem(p.seed, p.stream, e), p.sd, p.mean)
                                                  : random::uniform_at(p.seed, p.stream, e);
  return x + add;
}

// Thread t of the grid sums items t, t + T, t + 2T, … (item = i·cols + j) in that order; the
// block adds its threads' sums in a fixed tree. With the grid fixed, the association is a
// function of the shape alone.
__global__ void slice_sum_kernel(random::FillParams p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows, int64_t c0,
                                 int64_t cstep, int64_t cols, double add, double* partials) {
  __shared__ double part[kSliceSumThreads];
  const int64_t total = rows * cols;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  double acc = 0;
  // (i, j) of item t, advanced by stride = qs rows + rs columns without a division per item.
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t qs = stride / cols, rs = stride % cols;
  int64_t i = t0 / cols, j = t0 % cols;
  for (int64_t t = t0; t < total; t += stride) {
    acc += slice_value(p, static_cast<uint64_t>((r0 + i * rstep) * ld + c0 + j * cstep), add);
    i += qs;
    j += rs;
    if (j >= cols) j -= cols, ++i;
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
