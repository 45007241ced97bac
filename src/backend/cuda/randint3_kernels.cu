// Products with a RandInt3 matrix generated in shared memory (Backend::randint3_product): the
// matrix A is never written to global memory. Each tile of A comes from Philox blocks the way
// random::byte_at reads them (element e = byte e mod 4 of word e / 4 = byte e mod 16 of Philox
// block e / 16), through random.hpp's shared philox_block and randint3: the CPU's values.
//
// Exactness: a(i, j) ∈ {0, 1, 2}, so a·x is exact in float64 and fma(a, x, acc) rounds once,
// exactly like acc + a·x; only the additions round. Every output is one thread's sequential sum
// in a fixed order (no atomics, no reduction across threads): A·x over j = 0, 1, …; Aᵀ·x over
// each of kRandInt3Slices fixed row slices in row order, the slice partials then added in slice
// order by a second kernel. The order depends on the shape alone, not on the device.
#include <vector>

#include "backend/checks.hpp"
#include "backend/cuda/cuda_backend.cuh"

namespace strata::backend::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kL = 32;       // columns of x per block (grid.y covers wider x)
constexpr int kGroups = kThreads / kL;  // 8 warps; each thread keeps kPer outputs
constexpr int kPer = 8;

// tile[i][j] = a(row0 + i, col0 + j) for i < TR, j < TC; 0 past the block's rows (row_end) or
// the matrix's columns. Row i's elements e0 … e0 + TC − 1 lie in at most TC/16 + 1 Philox
// blocks; each (row, block) pair is one task, so a block shared by neighbouring tiles is
// generated once per tile (≤ (TC + 16)/TC times the minimum work).
template <int TR, int TC>
__device__ void generate_tile(uint64_t seed, int64_t cols, int64_t row0, int64_t row_end, int64_t col0,
                              double (*tile)[TC]) {
  constexpr int kSpan = TC / 16 + 1;
  const int64_t width = cols - col0 < TC ? cols - col0 : TC;
  for (int t = threadIdx.x; t < TR * TC; t += blockDim.x) {
    const int i = t / TC, j = t % TC;
    if (row0 + i >= row_end || j >= width) tile[i][j] = 0.0;
  }
  for (int t = threadIdx.x; t < TR * kSpan; t += blockDim.x) {
    const int i = t / kSpan, s = t % kSpan;
    if (row0 + i >= row_end || width <= 0) continue;
    const uint64_t e0 = static_cast<uint64_t>((row0 + i) * cols + col0);
    const uint64_t e1 = e0 + static_cast<uint64_t>(width);  // one past the last
    const uint64_t b = (e0 >> 4) + static_cast<uint64_t>(s);
    if (b * 16 >= e1) continue;
    const random::Words w = random::philox_block(seed, 0, b);
    for (int q = 0; q < 16; ++q) {
      const uint64_t e = b * 16 + static_cast<uint64_t>(q);
      if (e < e0 || e >= e1) continue;
      const auto byte = static_cast<uint8_t>(w[q >> 2] >> (8 * (q & 3)));
      tile[i][e - e0] = static_cast<double>(random::randint3(byte));
    }
  }
}

// y(i, c) = Σ_j a(r0 + i, j)·x(j, c), j ascending: block (bx, by) makes rows [64bx, 64bx + 64)
// × columns [32by, 32by + 32) of y; thread (g, c) rows g, g + 8, …, g + 56 of column c.
// x: cols × l column-major (ld cols); y: rows × l column-major (ld rows).
constexpr int kTimesRows = kGroups * kPer;  // 64
constexpr int kTimesK = 32;
__global__ void times_kernel(uint64_t seed, int64_t cols, int64_t r0, int64_t rows, const double* x, int64_t l,
                             double* y) {
  __shared__ double as[kTimesRows][kTimesK];
  __shared__ double xs[kTimesK][kL];
  const int c = threadIdx.x % kL, g = threadIdx.x / kL;
  const int64_t i0 = static_cast<int64_t>(blockIdx.x) * kTimesRows, c0 = static_cast<int64_t>(blockIdx.y) * kL;
  double acc[kPer];
  for (double& v : acc) v = 0.0;
  for (int64_t k0 = 0; k0 < cols; k0 += kTimesK) {
    generate_tile<kTimesRows, kTimesK>(seed, cols, r0 + i0, r0 + rows, k0, as);
    for (int t = threadIdx.x; t < kTimesK * kL; t += blockDim.x) {
      const int kk = t / kL, cc = t % kL;
      xs[kk][cc] = k0 + kk < cols && c0 + cc < l ? x[(c0 + cc) * cols + k0 + kk] : 0.0;
    }
    __syncthreads();
    for (int kk = 0; kk < kTimesK; ++kk) {
      const double xv = xs[kk][c];
      for (int r = 0; r < kPer; ++r) acc[r] = fma(as[g + kGroups * r][kk], xv, acc[r]);
    }
    __syncthreads();  // before the next tile overwrites as / xs
  }
  if (c0 + c >= l) return;
  for (int r = 0; r < kPer; ++r) {
    const int64_t i = i0 + g + kGroups * r;
    if (i < rows) y[(c0 + c) * rows + i] = acc[r];
  }
}

// Partial zp[s](j, c) = Σ_{i in slice s} a(r0 + i, j)·w(i, c), i ascending: block (bx, by, s)
// makes columns [64bx, 64bx + 64) of A × columns [32by, 32by + 32) of w over slice s.
// w: rows × l column-major (ld rows); zp: kRandInt3Slices × (cols × l) column-major.
constexpr int kTransCols = kGroups * kPer;  // 64
constexpr int kTransRows = 32;
__global__ void trans_times_kernel(uint64_t seed, int64_t cols, int64_t r0, int64_t rows, const double* w, int64_t l,
                                   double* zp) {
  __shared__ double as[kTransRows][kTransCols];
  __shared__ double ws[kTransRows][kL];
  const int c = threadIdx.x % kL, g = threadIdx.x / kL;
  const int64_t j0 = static_cast<int64_t>(blockIdx.x) * kTransCols, c0 = static_cast<int64_t>(blockIdx.y) * kL;
  const int64_t s = blockIdx.z;
  const int64_t lo = s * rows / kRandInt3Slices, hi = (s + 1) * rows / kRandInt3Slices;
  double acc[kPer];
  for (double& v : acc) v = 0.0;
  for (int64_t i0 = lo; i0 < hi; i0 += kTransRows) {
    generate_tile<kTransRows, kTransCols>(seed, cols, r0 + i0, r0 + hi, j0, as);
    for (int t = threadIdx.x; t < kTransRows * kL; t += blockDim.x) {
      const int ii = t / kL, cc = t % kL;
      ws[ii][cc] = i0 + ii < hi && c0 + cc < l ? w[(c0 + cc) * rows + i0 + ii] : 0.0;
    }
    __syncthreads();
    // Rows past the slice are zero in both tiles: fma(0, 0, acc) = acc, the order unchanged.
    for (int ii = 0; ii < kTransRows; ++ii) {
      const double wv = ws[ii][c];
      for (int r = 0; r < kPer; ++r) acc[r] = fma(as[ii][g + kGroups * r], wv, acc[r]);
    }
    __syncthreads();
  }
  if (c0 + c >= l) return;
  double* z = zp + s * cols * l;
  for (int r = 0; r < kPer; ++r) {
    const int64_t j = j0 + g + kGroups * r;
    if (j < cols) z[(c0 + c) * cols + j] = acc[r];
  }
}

// z[k] = ((zp[0][k] + zp[1][k]) + zp[2][k]) + …: the slices in order.
__global__ void add_slices_kernel(const double* zp, int64_t n, double* z) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    double v = zp[k];
    for (int64_t s = 1; s < kRandInt3Slices; ++s) v += zp[s * n + k];
    z[k] = v;
  }
}

unsigned blocks_of(int64_t n, int64_t per) { return static_cast<unsigned>((n + per - 1) / per); }

// y = A·x on the device (x cols × l, y rows × l).
cudaError_t launch_times(const RandInt3Rows& a, const double* x, int64_t l, double* y, cudaStream_t s) {
  const dim3 grid(blocks_of(a.rows, kTimesRows), blocks_of(l, kL));
  times_kernel<<<grid, kThreads, 0, s>>>(a.seed, a.cols, a.r0, a.rows, x, l, y);
  return cudaGetLastError();
}

// z = Aᵀ·w on the device (w rows × l, z cols × l), through slice partials zp.
cudaError_t launch_trans_times(const RandInt3Rows& a, const double* w, int64_t l, double* zp, double* z,
                               cudaStream_t s) {
  const dim3 grid(blocks_of(a.cols, kTransCols), blocks_of(l, kL), static_cast<unsigned>(kRandInt3Slices));
  trans_times_kernel<<<grid, kThreads, 0, s>>>(a.seed, a.cols, a.r0, a.rows, w, l, zp);
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
  int64_t inner = 0, l = 0;
  STRATA_RETURN_NOT_OK(detail::check_randint3(a, op, x, out, &inner, &l));
  if (detail::randint3_trivial(a, op, inner, l, out)) return Status::OK();
  return run_on(pool_, [&](Lane& lane) { return randint3_on(lane, a, op, x, out, l); });
}

}  // namespace strata::backend::cuda
