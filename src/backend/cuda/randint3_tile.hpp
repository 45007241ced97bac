#pragma once
// The phases of the CUDA backend's RandInt3 product kernels (randint3_kernels.cu), written once
// for the device and the host: the kernels call them between __syncthreads(); the host test
// (randint3_tile_test.cpp) runs the same phases over every thread of a block in turn, which is
// what the kernel computes (within a phase each thread writes only its own entries). So the
// indexing and the summation order are tested without a GPU.
//
// Exactness: a(i, j) ∈ {0, 1, 2}, so a·x is exact in float64 and fma(a, x, acc) rounds once,
// exactly like acc + a·x; only the additions round. Every output is one thread's sequential sum:
// A·x over j = 0, 1, …; Aᵀ·x over each of kRandInt3Slices row slices in row order.
#include <cmath>
#include <cstdint>

#include "strata/backend/bench_source.hpp"
#include "strata/core/random.hpp"

namespace strata::backend::cuda::tile {

using Rows = RandInt3Rows;
inline constexpr int kThreads = 256;
inline constexpr int kL = 32;                  // columns of x per block (grid.y covers wider x)
inline constexpr int kGroups = kThreads / kL;  // thread t: column t mod 32, group t / 32
inline constexpr int kPer = 8;                 // outputs per thread: group g, g + 8, …, g + 56
inline constexpr int kOut = kGroups * kPer;    // 64 outputs (rows of y / columns of A) per block
inline constexpr int kStep = 32;               // inner-dimension step per tile

// tile[i][j] = a(row0 + i, col0 + j) for i < TR, j < TC; 0 past row_end or the matrix's
// columns. Row i's elements e0 … e0 + TC − 1 lie in at most TC/16 + 1 Philox blocks (16 bytes,
// byte q = byte q mod 4 of word q / 4 — random::byte_at's order); each (row, block) pair is one
// task of thread `tid` of `nthreads`.
template <int TR, int TC>
STRATA_HD void generate_tile(uint64_t seed, int64_t cols, int64_t row0, int64_t row_end, int64_t col0,
                             double (*tile)[TC], int tid, int nthreads) {
  constexpr int kSpan = TC / 16 + 1;
  const int64_t width = cols - col0 < TC ? cols - col0 : TC;
  for (int t = tid; t < TR * TC; t += nthreads) {
    const int i = t / TC, j = t % TC;
    if (row0 + i >= row_end || j >= width) tile[i][j] = 0.0;
  }
  for (int t = tid; t < TR * kSpan; t += nthreads) {
    const int i = t / kSpan, s = t % kSpan;
    if (row0 + i >= row_end || width <= 0) continue;
    const auto e0 = static_cast<uint64_t>((row0 + i) * cols + col0);
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

// ---- y = A·x: block (bx, by) makes rows [64bx, +64) × columns [32by, +32) of y. x: cols × l
// column-major (ld cols); y: rows × l column-major (ld rows).
struct TimesShared {
  double as[kOut][kStep];
  double xs[kStep][kL];
};
// Phase 1 of inner step k0: A's tile and x's tile.
STRATA_HD inline void times_load(const Rows& a, const double* x, int64_t l, int64_t bx, int64_t by, int64_t k0,
                                 TimesShared& sh, int tid) {
  const int64_t i0 = bx * kOut, c0 = by * kL;
  generate_tile<kOut, kStep>(a.seed, a.cols, a.r0 + i0, a.r0 + a.rows, k0, sh.as, tid, kThreads);
  for (int t = tid; t < kStep * kL; t += kThreads) {
    const int kk = t / kL, cc = t % kL;
    sh.xs[kk][cc] = k0 + kk < a.cols && c0 + cc < l ? x[(c0 + cc) * a.cols + k0 + kk] : 0.0;
  }
}
// Phase 2: thread tid's sums over the tile's inner indices in order (entries past the matrix
// are 0 in both tiles: fma(0, 0, acc) = acc).
STRATA_HD inline void times_accumulate(const TimesShared& sh, int tid, double* acc) {
  const int c = tid % kL, g = tid / kL;
  for (int kk = 0; kk < kStep; ++kk) {
    const double xv = sh.xs[kk][c];
    for (int r = 0; r < kPer; ++r) acc[r] = std::fma(sh.as[g + kGroups * r][kk], xv, acc[r]);
  }
}
STRATA_HD inline void times_store(const Rows& a, int64_t l, int64_t bx, int64_t by, int tid, const double* acc,
                                  double* y) {
  const int c = tid % kL, g = tid / kL;
  const int64_t i0 = bx * kOut, c0 = by * kL;
  if (c0 + c >= l) return;
  for (int r = 0; r < kPer; ++r) {
    const int64_t i = i0 + g + kGroups * r;
    if (i < a.rows) y[(c0 + c) * a.rows + i] = acc[r];
  }
}

// ---- zp[s] = (Aᵀ·w over slice s): block (bx, by, s) makes columns [64bx, +64) of A × columns
// [32by, +32) of w. w: rows × l column-major (ld rows); zp: kRandInt3Slices × (cols × l).
struct TransShared {
  double as[kStep][kOut];
  double ws[kStep][kL];
};
/// Rows [lo, hi) of the block (relative to a.r0) that slice s sums.
STRATA_HD inline void slice_rows(int64_t rows, int64_t s, int64_t* lo, int64_t* hi) {
  *lo = s * rows / kRandInt3Slices;
  *hi = (s + 1) * rows / kRandInt3Slices;
}
STRATA_HD inline void trans_load(const Rows& a, const double* w, int64_t l, int64_t bx, int64_t by, int64_t hi,
                                 int64_t i0, TransShared& sh, int tid) {
  const int64_t j0 = bx * kOut, c0 = by * kL;
  generate_tile<kStep, kOut>(a.seed, a.cols, a.r0 + i0, a.r0 + hi, j0, sh.as, tid, kThreads);
  for (int t = tid; t < kStep * kL; t += kThreads) {
    const int ii = t / kL, cc = t % kL;
    sh.ws[ii][cc] = i0 + ii < hi && c0 + cc < l ? w[(c0 + cc) * a.rows + i0 + ii] : 0.0;
  }
}
STRATA_HD inline void trans_accumulate(const TransShared& sh, int tid, double* acc) {
  const int c = tid % kL, g = tid / kL;
  for (int ii = 0; ii < kStep; ++ii) {
    const double wv = sh.ws[ii][c];
    for (int r = 0; r < kPer; ++r) acc[r] = std::fma(sh.as[ii][g + kGroups * r], wv, acc[r]);
  }
}
STRATA_HD inline void trans_store(const Rows& a, int64_t l, int64_t bx, int64_t by, int64_t s, int tid,
                                  const double* acc, double* zp) {
  const int c = tid % kL, g = tid / kL;
  const int64_t j0 = bx * kOut, c0 = by * kL;
  if (c0 + c >= l) return;
  double* z = zp + s * a.cols * l;
  for (int r = 0; r < kPer; ++r) {
    const int64_t j = j0 + g + kGroups * r;
    if (j < a.cols) z[(c0 + c) * a.cols + j] = acc[r];
  }
}

/// z[k] = ((zp[0][k] + zp[1][k]) + zp[2][k]) + …: the slices in order.
STRATA_HD inline double add_slices(const double* zp, int64_t n, int64_t k) {
  double v = zp[k];
  for (int64_t s = 1; s < kRandInt3Slices; ++s) v += zp[s * n + k];
  return v;
}

}  // namespace strata::backend::cuda::tile
