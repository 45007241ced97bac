// Genotype kernels of the CUDA backend: decoding and counting codes, the int16 Gram products (PCA's int16 route), the GRM
// tile kernels (float32 fma chains, u8 × s8 limb products) and the pair counts of KING and the
// distances. Integer sums are exact, so any order
// gives the CPU's bits; each kernel is the CPU's portable loop with one thread per output entry
// (clearly the same arithmetic, not yet fast: the int8 tensor-core (IMMA) products and codes
// resident on the device across passes are the next step). Operands are host buffers copied in
// per call; results are computed from zero on the device and added to the caller's on the host.
#include <algorithm>
#include <vector>

#include "backend/checks.hpp"
#include "backend/cuda/cuda_backend.cuh"

namespace strata::backend::cuda {
namespace {

constexpr int kThreads = 256;

__device__ inline int code_at(const uint8_t* row, int64_t n) { return (row[n >> 2] >> (2 * (n & 3))) & 3; }

// p[i·w + c] = Σ_{n < n32} code(i, n)·qt[c·ldq + n] (int64).
__global__ void times_i16_kernel(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt,
                                 int64_t ldq, int64_t w, int64_t* p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * w) return;
  const int64_t i = t / w, c = t - i * w;
  const uint8_t* row = codes + i * stride;
  int64_t s = 0;
  for (int64_t n = 0; n < n32; ++n) s += code_at(row, n) * int64_t{qt[c * ldq + n]};
  p[t] = s;
}

// z[c·len + n] = Σ_{i < rows} code(i, n)·y(i, c), y(i, c) = wpairs[(i/2)·2w + 2c + i%2] (int32:
// rows ≤ 10,000 keeps it exact, as on the CPU).
__global__ void t_times_i16_kernel(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len,
                                   const int16_t* wpairs, int64_t w, int32_t* z) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= w * len) return;
  const int64_t c = t / len, n = t - c * len;
  int32_t s = 0;
  for (int64_t i = 0; i < rows; ++i) s += code_at(codes + i * stride, n) * int32_t{wpairs[(i / 2) * 2 * w + 2 * c + i % 2]};
  z[t] = s;
}

// out[i·samples + j] = luts[4i + code(i, j)] (a table lookup: exact).
template <class T>
__global__ void decode_kernel(const uint8_t* codes, int64_t stride, int64_t rows, int64_t samples, const T* luts,
                              T* out) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * samples) return;
  const int64_t i = t / samples, j = t - i * samples;
  out[t] = luts[4 * i + code_at(codes + i * stride, j)];
}

// counts[4i + c] = samples of row i with code c (one thread per row).
__global__ void count_kernel(const uint8_t* codes, int64_t stride, int64_t rows, int64_t samples, int64_t* counts) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  int64_t c[4] = {0, 0, 0, 0};
  for (int64_t j = 0; j < samples; ++j) ++c[code_at(codes + i * stride, j)];
  for (int k = 0; k < 4; ++k) counts[4 * i + k] = c[k];
}

// Float products of decoded codes, a(i, n) = luts[4i + code(i, n)] (float32 fma chains in sample
// or row order: within the conformance bound; not the CPU's bits, whose order is its own).
// y[i·w + c] = Σ_{n < n16} a(i, n)·qt[c·ldq + n].
__global__ void times_f32_kernel(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n16,
                                 const float* qt, int64_t ldq, int64_t w, float* y) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * w) return;
  const int64_t i = t / w, c = t - i * w;
  const uint8_t* row = codes + i * stride;
  float s = 0.0f;
  for (int64_t n = 0; n < n16; ++n) s = fmaf(luts[4 * i + code_at(row, n)], qt[c * ldq + n], s);
  y[t] = s;
}

// z[c·len + m] = Σ_i a(i, n0 + m)·y[i·w + c].
__global__ void t_times_f32_kernel(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n0,
                                   int64_t len, const float* y, int64_t w, float* z) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= w * len) return;
  const int64_t c = t / len, n = n0 + (t - c * len);
  float s = 0.0f;
  for (int64_t i = 0; i < rows; ++i) s = fmaf(luts[4 * i + code_at(codes + i * stride, n)], y[i * w + c], s);
  z[t] = s;
}

// Plane p, word w of sample s, in a copy holding the sample groups from `g0` on.
__device__ inline uint64_t plane(const uint64_t* planes, int64_t g0, int64_t words, int64_t s, int64_t w, int p) {
  return planes[(((s / 8 - g0) * words + w) * kCodePlaneCount + p) * kCodePlaneLanes + s % 8];
}

// The nine (king: five) counts of pair (row0 + i, col0 + j), i < rows, j < ldc, into
// out[(f·rows + i)·ldc + j] (zero first: the host adds). On a diagonal KING tile only j ≤ i.
template <bool King>
__global__ void pair_kernel(const uint64_t* a, int64_t ga0, const uint64_t* b, int64_t gb0, int64_t words, int64_t row0,
                            int64_t rows, int64_t col0, int64_t ldc, int64_t* out) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * ldc) return;
  const int64_t i = t / ldc, j = t - i * ldc;
  if (King && row0 == col0 && j > i) return;
  constexpr int F = King ? kKingCountFields : kPairCountFields;
  int64_t c[F] = {};
  const int64_t sa = row0 + i, sb = col0 + j;
  for (int64_t w = 0; w < words; ++w) {
    const uint64_t ah = plane(a, ga0, words, sa, w, 0), at = plane(a, ga0, words, sa, w, 1),
                   ao = plane(a, ga0, words, sa, w, 2);
    const uint64_t bh = plane(b, gb0, words, sb, w, 0), bt = plane(b, gb0, words, sb, w, 1),
                   bo = plane(b, gb0, words, sb, w, 2);
    if constexpr (King) {
      const uint64_t ar = ao & ~(ah | at), br = bo & ~(bh | bt);
      c[kKingBoth] += __popcll(ao & bo);
      c[kKingHetHet] += __popcll(ah & bh);
      c[kKingHetObs] += __popcll(ah & bo);
      c[kKingObsHet] += __popcll(ao & bh);
      c[kKingIbs0] += __popcll((ar & bt) | (at & br));
    } else {
      c[kPairBoth] += __popcll(ao & bo);
      c[kPairHetHet] += __popcll(ah & bh);
      c[kPairHetAlt] += __popcll(ah & bt);
      c[kPairAltHet] += __popcll(at & bh);
      c[kPairAltAlt] += __popcll(at & bt);
      c[kPairHetObs] += __popcll(ah & bo);
      c[kPairAltObs] += __popcll(at & bo);
      c[kPairObsHet] += __popcll(ao & bh);
      c[kPairObsAlt] += __popcll(ao & bt);
    }
  }
  for (int f = 0; f < F; ++f) out[(f * rows + i) * ldc + j] = c[f];
}

// The GRM tile kernels' panels: samples in groups of 32, group g a kk × 32 (float) block, or
// quads of 4 variants (u8 codes: [quad][sample][variant]; s8 limbs: [quad][limb][sample][variant]).
constexpr int64_t kGroup = 32;
constexpr int64_t kLimbs = 3;
constexpr int64_t kCodeQuad = kGroup * 4, kLimbQuad = kLimbs * kCodeQuad;

// Columns of tile row i the mode asks for: every one, j ≤ i, or j < i.
__host__ __device__ inline int64_t column_limit(int mode, int64_t i, int64_t cols) {
  return mode == 0 ? cols : std::min(cols, mode == 1 ? i + 1 : i);
}

// out[i·cols + j] = the fma chain Σ_k a(k, i)·b(k, j) in T (float32 or float64) in k order from
// 0 — the CPU's exact sequence of roundings (gram_panel_kernels.cpp, gram_panel_f64_kernels.cpp),
// so the same value.
__device__ inline float fused_madd(float x, float y, float c) { return fmaf(x, y, c); }
__device__ inline double fused_madd(double x, double y, double c) { return fma(x, y, c); }

template <class T>
__global__ void panels_kernel(const T* a, const T* b, int64_t kk, int64_t rows, int64_t cols, int mode, T* out) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * cols) return;
  const int64_t i = t / cols, j = t - i * cols;
  if (j >= column_limit(mode, i, cols)) return;
  const T* ap = a + (i / kGroup) * kk * kGroup + i % kGroup;
  const T* bp = b + (j / kGroup) * kk * kGroup + j % kGroup;
  T c = T(0);
  for (int64_t k = 0; k < kk; ++k) c = fused_madd(ap[k * kGroup], bp[k * kGroup], c);
  out[t] = c;
}

// gram_sparse_f64: entry (i, j) is u[j] and then row i's list in order (the CPU's steps).
__global__ void sparse_f64_kernel(const uint8_t* entries, const uint8_t* counts, int64_t stride, const double* coef,
                                  const double* y, const double* u, int64_t kk, int64_t rows, int64_t cols, int mode,
                                  double* out) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * cols) return;
  const int64_t i = t / cols, j = t - i * cols;
  if (j >= column_limit(mode, i, cols)) return;
  const double* yp = y + (j / kGroup) * kk * kGroup + j % kGroup;
  const uint8_t* e = entries + i * stride;
  const int64_t ones = counts[3 * i], twos = ones + counts[3 * i + 1], all = twos + counts[3 * i + 2];
  double c = u[j];
  for (int64_t k = 0; k < ones; ++k) c = __dadd_rn(c, yp[e[k] * kGroup]);
  for (int64_t k = ones; k < twos; ++k) c = fma(2.0, yp[e[k] * kGroup], c);
  for (int64_t k = twos; k < all; ++k) c = fma(coef[e[k]], yp[e[k] * kGroup], c);
  out[t] = c;
}

// out[i·cols + j] = Σ_v c_jv·l_iv with the limbs joined (l⁰ + 128 l¹ + 16384 l²): exact int64.
__global__ void panels_u8s8_kernel(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows,
                                   int64_t cols, int mode, int64_t* out) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * cols) return;
  const int64_t i = t / cols, j = t - i * cols;
  if (j >= column_limit(mode, i, cols)) return;
  const int8_t* bg = limbs + (i / kGroup) * quads * kLimbQuad + (i % kGroup) * 4;
  const uint8_t* ag = codes + (j / kGroup) * quads * kCodeQuad + (j % kGroup) * 4;
  int64_t limb[kLimbs] = {0, 0, 0};
  for (int64_t q = 0; q < quads; ++q)
    for (int64_t l = 0; l < kLimbs; ++l)
      for (int v = 0; v < 4; ++v) limb[l] += int64_t{ag[q * kCodeQuad + v]} * bg[q * kLimbQuad + l * kCodeQuad + v];
  out[t] = limb[0] + limb[1] * 128 + limb[2] * 16384;
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <class T>
Status to_device(cudaStream_t s, DeviceBuffer& d, const T* h, int64_t n) {
  STRATA_RETURN_NOT_OK(d.allocate(sizeof(T) * static_cast<size_t>(std::max<int64_t>(1, n)), s));
  if (n > 0) STRATA_CUDA_RETURN(cudaMemcpyAsync(d.as<T>(), h, sizeof(T) * n, cudaMemcpyHostToDevice, s));
  return Status::OK();
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// The bytes a kernel reading codes [0, n) of every row touches (n: the rounded sample count, read
// within the slack the contract guarantees past the last row) — what the CPU kernels read.
int64_t code_bytes(const CodesView& codes, int64_t n) { return (codes.rows - 1) * codes.stride + n / 4; }

Status times_i16(Lane& lane, CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p) {
  if (codes.rows <= 0 || w <= 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  const int64_t n32 = round_up(codes.samples, 32);
  DeviceBuffer dc, dq, dp;
  STRATA_RETURN_NOT_OK(to_device(s, dc, codes.data, code_bytes(codes, n32)));
  STRATA_RETURN_NOT_OK(to_device(s, dq, qt, (w - 1) * ldq + n32));
  STRATA_RETURN_NOT_OK(dp.allocate(sizeof(int64_t) * codes.rows * w, s));
  times_i16_kernel<<<blocks_for(codes.rows * w), kThreads, 0, s>>>(dc.as<uint8_t>(), codes.stride, codes.rows, n32,
                                                                    dq.as<int16_t>(), ldq, w, dp.as<int64_t>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<int64_t> h(static_cast<size_t>(codes.rows * w));
  STRATA_RETURN_NOT_OK(download(s, dp, h));
  for (size_t k = 0; k < h.size(); ++k) p[k] += h[k];
  return Status::OK();
}

Status t_times_i16(Lane& lane, CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz) {
  const int64_t len = round_up(codes.samples, 16);
  if (w <= 0 || len <= 0 || codes.rows <= 0) return Status::OK();  // no rows: zt gains 0
  const cudaStream_t s = lane.stream[0];
  DeviceBuffer dc, dw, dz;
  STRATA_RETURN_NOT_OK(to_device(s, dc, codes.data, code_bytes(codes, len)));
  STRATA_RETURN_NOT_OK(to_device(s, dw, wpairs, (codes.rows + 1) / 2 * 2 * w));
  STRATA_RETURN_NOT_OK(dz.allocate(sizeof(int32_t) * w * len, s));
  t_times_i16_kernel<<<blocks_for(w * len), kThreads, 0, s>>>(dc.as<uint8_t>(), codes.stride, codes.rows, len,
                                                               dw.as<int16_t>(), w, dz.as<int32_t>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<int32_t> h(static_cast<size_t>(w * len));
  STRATA_RETURN_NOT_OK(download(s, dz, h));
  for (int64_t c = 0; c < w; ++c)
    for (int64_t n = 0; n < len; ++n) zt[c * ldz + n] += h[static_cast<size_t>(c * len + n)];
  return Status::OK();
}

template <class T>
Status decode_on(Lane& lane, CodesView codes, const T* luts, MatrixView<T> out) {
  if (out.rows != codes.rows || out.cols != codes.samples || codes.rows < 0 || codes.samples < 0)
    return Status::Invalid("decode: output ", out.rows, " x ", out.cols, " for ", codes.rows, " x ", codes.samples,
                           " codes");
  if (codes.rows == 0 || codes.samples == 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  const int64_t n = codes.rows * codes.samples;
  DeviceBuffer dc, dl, dout;
  STRATA_RETURN_NOT_OK(to_device(s, dc, codes.data, code_bytes(codes, round_up(codes.samples, 4))));
  STRATA_RETURN_NOT_OK(to_device(s, dl, luts, 4 * codes.rows));
  STRATA_RETURN_NOT_OK(dout.allocate(sizeof(T) * n, s));
  decode_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(dc.as<uint8_t>(), codes.stride, codes.rows, codes.samples,
                                                       dl.as<T>(), dout.as<T>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<T> h(static_cast<size_t>(n));
  STRATA_RETURN_NOT_OK(download(s, dout, h));
  for (int64_t i = 0; i < codes.rows; ++i)
    for (int64_t j = 0; j < codes.samples; ++j) out(i, j) = h[static_cast<size_t>(i * codes.samples + j)];
  return Status::OK();
}

Status count_on(Lane& lane, CodesView codes, int64_t* counts) {
  if (codes.rows <= 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  DeviceBuffer dc, dcounts;
  STRATA_RETURN_NOT_OK(to_device(s, dc, codes.data, code_bytes(codes, round_up(codes.samples, 4))));
  STRATA_RETURN_NOT_OK(dcounts.allocate(sizeof(int64_t) * 4 * codes.rows, s));
  count_kernel<<<blocks_for(codes.rows), kThreads, 0, s>>>(dc.as<uint8_t>(), codes.stride, codes.rows, codes.samples,
                                                            dcounts.as<int64_t>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<int64_t> h(static_cast<size_t>(4 * codes.rows));
  STRATA_RETURN_NOT_OK(download(s, dcounts, h));
  std::copy(h.begin(), h.end(), counts);
  return Status::OK();
}

Status times_f32(Lane& lane, CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w, float* y) {
  if (codes.rows <= 0 || w <= 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  const int64_t n16 = round_up(codes.samples, 16);
  DeviceBuffer dc, dl, dq, dy;
  STRATA_RETURN_NOT_OK(to_device(s, dc, codes.data, code_bytes(codes, n16)));
  STRATA_RETURN_NOT_OK(to_device(s, dl, luts, 4 * codes.rows));
  STRATA_RETURN_NOT_OK(to_device(s, dq, qt, (w - 1) * ldq + n16));
  STRATA_RETURN_NOT_OK(dy.allocate(sizeof(float) * codes.rows * w, s));
  times_f32_kernel<<<blocks_for(codes.rows * w), kThreads, 0, s>>>(dc.as<uint8_t>(), codes.stride, dl.as<float>(),
                                                                    codes.rows, n16, dq.as<float>(), ldq, w,
                                                                    dy.as<float>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<float> h(static_cast<size_t>(codes.rows * w));
  STRATA_RETURN_NOT_OK(download(s, dy, h));
  for (size_t k = 0; k < h.size(); ++k) y[k] += h[k];
  return Status::OK();
}

Status t_times_f32(Lane& lane, CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y, int64_t w,
                   float* zt, int64_t ldz) {
  if (codes.rows <= 0 || w <= 0 || len <= 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  DeviceBuffer dc, dl, dy, dz;
  STRATA_RETURN_NOT_OK(to_device(s, dc, codes.data, code_bytes(codes, n0 + len)));
  STRATA_RETURN_NOT_OK(to_device(s, dl, luts, 4 * codes.rows));
  STRATA_RETURN_NOT_OK(to_device(s, dy, y, codes.rows * w));
  STRATA_RETURN_NOT_OK(dz.allocate(sizeof(float) * w * len, s));
  t_times_f32_kernel<<<blocks_for(w * len), kThreads, 0, s>>>(dc.as<uint8_t>(), codes.stride, dl.as<float>(),
                                                               codes.rows, n0, len, dy.as<float>(), w, dz.as<float>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<float> h(static_cast<size_t>(w * len));
  STRATA_RETURN_NOT_OK(download(s, dz, h));
  for (int64_t c = 0; c < w; ++c)
    for (int64_t m = 0; m < len; ++m) zt[c * ldz + n0 + m] += h[static_cast<size_t>(c * len + m)];
  return Status::OK();
}

// The sample groups [g0, g1) of the planes, copied to the device.
Status planes_to_device(cudaStream_t s, DeviceBuffer& d, const CodePlanesView& planes, int64_t g0, int64_t g1) {
  const int64_t group = planes.words * kCodePlaneCount * kCodePlaneLanes;
  return to_device(s, d, planes.data + g0 * group, (g1 - g0) * group);
}

template <bool King>
Status pair_counts(Lane& lane, CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                   int64_t* counts) {
  const int64_t ldc = round_up(cols, 8);
  const int64_t ga0 = row0 / 8, ga1 = (row0 + rows + 7) / 8, gb0 = col0 / 8, gb1 = (col0 + ldc) / 8;
  const cudaStream_t s = lane.stream[0];
  DeviceBuffer da, db, dout;
  STRATA_RETURN_NOT_OK(planes_to_device(s, da, planes, ga0, ga1));
  STRATA_RETURN_NOT_OK(planes_to_device(s, db, planes, gb0, gb1));
  constexpr int F = King ? kKingCountFields : kPairCountFields;
  const size_t n = static_cast<size_t>(F * rows * ldc);
  STRATA_RETURN_NOT_OK(dout.allocate(sizeof(int64_t) * n, s));
  STRATA_CUDA_RETURN(cudaMemsetAsync(dout.as<int64_t>(), 0, sizeof(int64_t) * n, s));  // skipped pairs add 0
  pair_kernel<King><<<blocks_for(rows * ldc), kThreads, 0, s>>>(da.as<uint64_t>(), ga0, db.as<uint64_t>(), gb0,
                                                                 planes.words, row0, rows, col0, ldc,
                                                                 dout.as<int64_t>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<int64_t> h(n);
  STRATA_RETURN_NOT_OK(download(s, dout, h));
  for (size_t k = 0; k < n; ++k) counts[k] += h[k];
  return Status::OK();
}

int64_t groups(int64_t n) { return (n + kGroup - 1) / kGroup; }

// A panel product on the device: `launch(s, in, out)` uploads the inputs into `in` and starts
// the kernel, which writes rows × cols values of T into `out` (allocated here); each is added to
// its entry of acc (columns below column_limit) as to_double(value).
template <class T, class Launch, class ToDouble>
Status device_panels(Lane& lane, int64_t rows, int64_t cols, int mode, double* acc, int64_t ldacc, Launch launch,
                     ToDouble to_double) {
  const cudaStream_t s = lane.stream[0];
  DeviceBuffer in[2], out;
  STRATA_RETURN_NOT_OK(out.allocate(sizeof(T) * rows * cols, s));
  STRATA_RETURN_NOT_OK(launch(s, in, out));
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<T> h(static_cast<size_t>(rows * cols));
  STRATA_RETURN_NOT_OK(download(s, out, h));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < column_limit(mode, i, cols); ++j)
      acc[i * ldacc + j] += to_double(h[static_cast<size_t>(i * cols + j)]);
  return Status::OK();
}

// gram_panels_f32 / _f64: each entry's chain in T on the device, one add on the host.
template <class T>
Status gram_panels_on(Lane& lane, const T* a, const T* b, int64_t kk, int64_t rows, int64_t cols, int mode, double* acc,
                      int64_t ldacc) {
  if (rows <= 0 || cols <= 0 || kk <= 0) return Status::OK();
  auto launch = [&](cudaStream_t s, DeviceBuffer (&in)[2], DeviceBuffer& out) -> Status {
    STRATA_RETURN_NOT_OK(to_device(s, in[0], a, groups(rows) * kk * kGroup));
    STRATA_RETURN_NOT_OK(to_device(s, in[1], b, groups(cols) * kk * kGroup));
    panels_kernel<T><<<blocks_for(rows * cols), kThreads, 0, s>>>(in[0].as<T>(), in[1].as<T>(), kk, rows, cols, mode,
                                                                 out.as<T>());
    return Status::OK();
  };
  return device_panels<T>(lane, rows, cols, mode, acc, ldacc, launch, [](T x) { return static_cast<double>(x); });
}

Status sparse_f64(Lane& lane, const SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                  int64_t cols, int mode, double* acc, int64_t ldacc) {
  if (rows <= 0 || cols <= 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  DeviceBuffer de, dc, dw, dy, du, out;
  STRATA_RETURN_NOT_OK(to_device(s, de, l.entries, (rows - 1) * l.stride + kSparseRun));
  STRATA_RETURN_NOT_OK(to_device(s, dc, l.counts, 3 * rows));
  STRATA_RETURN_NOT_OK(to_device(s, dw, l.coef, kSparseRun));
  STRATA_RETURN_NOT_OK(to_device(s, dy, y, groups(cols) * kk * kGroup));
  STRATA_RETURN_NOT_OK(to_device(s, du, u, groups(cols) * kGroup));
  STRATA_RETURN_NOT_OK(out.allocate(sizeof(double) * rows * cols, s));
  sparse_f64_kernel<<<blocks_for(rows * cols), kThreads, 0, s>>>(de.as<uint8_t>(), dc.as<uint8_t>(), l.stride,
                                                                  dw.as<double>(), dy.as<double>(), du.as<double>(), kk,
                                                                  rows, cols, mode, out.as<double>());
  STRATA_CUDA_RETURN(cudaGetLastError());
  std::vector<double> h(static_cast<size_t>(rows * cols));
  STRATA_RETURN_NOT_OK(download(s, out, h));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < column_limit(mode, i, cols); ++j) acc[i * ldacc + j] += h[static_cast<size_t>(i * cols + j)];
  return Status::OK();
}

Status panels_u8s8(Lane& lane, const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows, int64_t cols,
                   int mode, double scale, double* acc, int64_t ldacc) {
  if (rows <= 0 || cols <= 0 || quads <= 0) return Status::OK();
  auto launch = [&](cudaStream_t s, DeviceBuffer (&in)[2], DeviceBuffer& out) -> Status {
    STRATA_RETURN_NOT_OK(to_device(s, in[0], codes, groups(cols) * quads * kCodeQuad));
    STRATA_RETURN_NOT_OK(to_device(s, in[1], limbs, groups(rows) * quads * kLimbQuad));
    panels_u8s8_kernel<<<blocks_for(rows * cols), kThreads, 0, s>>>(in[0].as<uint8_t>(), in[1].as<int8_t>(), quads,
                                                                     rows, cols, mode, out.as<int64_t>());
    return Status::OK();
  };
  // As the CPU: scale · the exact sum (< 2⁴⁶, exact as a double), one rounded add.
  return device_panels<int64_t>(lane, rows, cols, mode, acc, ldacc, launch,
                                [scale](int64_t x) { return scale * static_cast<double>(x); });
}

}  // namespace

Status CudaBackend::codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p,
                                    const uint8_t* /*packed: always empty here*/) const {
  return run_on(pool_, [&](Lane& lane) { return times_i16(lane, codes, qt, ldq, w, p); });
}

Status CudaBackend::codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz,
                                      const uint8_t* /*packed: always empty here*/) const {
  return run_on(pool_, [&](Lane& lane) { return t_times_i16(lane, codes, wpairs, w, zt, ldz); });
}

Status CudaBackend::pair_code_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                                     int64_t* counts) const {
  STRATA_RETURN_NOT_OK(detail::check_pair_tile("pair_code_counts", planes, row0, rows, col0, cols));
  if (rows == 0 || cols == 0 || planes.words == 0) return Status::OK();
  return run_on(pool_, [&](Lane& lane) { return pair_counts<false>(lane, planes, row0, rows, col0, cols, counts); });
}

Status CudaBackend::pair_king_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                                     int64_t* counts) const {
  STRATA_RETURN_NOT_OK(detail::check_pair_tile("pair_king_counts", planes, row0, rows, col0, cols));
  if (rows == 0 || cols == 0 || planes.words == 0) return Status::OK();
  return run_on(pool_, [&](Lane& lane) { return pair_counts<true>(lane, planes, row0, rows, col0, cols, counts); });
}

Status CudaBackend::decode(CodesView codes, const float* luts, MatrixView<float> out) const {
  return run_on(pool_, [&](Lane& lane) { return decode_on(lane, codes, luts, out); });
}

Status CudaBackend::decode(CodesView codes, const double* luts, MatrixView<double> out) const {
  return run_on(pool_, [&](Lane& lane) { return decode_on(lane, codes, luts, out); });
}

Status CudaBackend::count_codes(CodesView codes, int64_t* counts) const {
  return run_on(pool_, [&](Lane& lane) { return count_on(lane, codes, counts); });
}

Status CudaBackend::codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                                float* y) const {
  return run_on(pool_, [&](Lane& lane) { return times_f32(lane, codes, luts, qt, ldq, w, y); });
}

Status CudaBackend::codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y,
                                  int64_t w, float* zt, int64_t ldz) const {
  return run_on(pool_, [&](Lane& lane) { return t_times_f32(lane, codes, luts, n0, len, y, w, zt, ldz); });
}

Status CudaBackend::gram_panels_f32(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                                    double* acc, int64_t ldacc) const {
  return run_on(pool_, [&](Lane& lane) { return gram_panels_on<float>(lane, a, b, kk, rows, cols, mode, acc, ldacc); });
}

Status CudaBackend::gram_panels_f64(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols,
                                    int mode, double* acc, int64_t ldacc) const {
  return run_on(pool_, [&](Lane& lane) { return gram_panels_on<double>(lane, a, b, kk, rows, cols, mode, acc, ldacc); });
}

Status CudaBackend::gram_sparse_f64(const SparseRowLists& l, const double* y, const double* u, int64_t kk,
                                    int64_t rows, int64_t cols, int mode, double* acc, int64_t ldacc) const {
  return run_on(pool_, [&](Lane& lane) { return sparse_f64(lane, l, y, u, kk, rows, cols, mode, acc, ldacc); });
}

Status CudaBackend::gram_panels_u8s8(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows,
                                     int64_t cols, int mode, double scale, double* acc, int64_t ldacc) const {
  return run_on(pool_, [&](Lane& lane) {
    return panels_u8s8(lane, codes, limbs, quads, rows, cols, mode, scale, acc, ldacc);
  });
}

}  // namespace strata::backend::cuda
