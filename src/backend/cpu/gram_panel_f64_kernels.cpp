// Float64 GRM tile kernels (Backend::gram_panels_f64): gram_panel_kernels.cpp's scheme on
// panels of doubles. Each entry is one float64 fused multiply-add chain over the run, in
// variant order, then one rounded add to its accumulator: the same bits at every level (the
// portable kernel without an FMA unit: a rounded product and sum per variant instead).
// Register blocks: AVX-512 6 rows × 32 columns (24 accumulators), AVX2 6 × 8 (12), portable
// 4 × 4. A block's rows may span two sample groups (6 does not divide 32), so each row has its
// own pointer; rows past the tile repeat its last row and are not flushed.
#include <algorithm>
#include <cmath>

#include "backend/cpu/gram_panel_kernels.hpp"
#include "backend/cpu/flush_f64_internal.hpp"
#include "backend/cpu/x86_intrinsics_internal.hpp"

namespace strata::backend::cpu {
namespace {

constexpr int64_t kGroup = 32;  // samples per packed group

// Columns of row i (tile coordinates) the mode asks for: the whole tile, j ≤ i or j < i.
inline int64_t column_limit(int mode, int64_t i, int64_t cols) {
  return mode == 0 ? cols : std::min(cols, mode == 1 ? i + 1 : i);
}

// Row i's values of the panel: group i / 32, lane i % 32 (stride kGroup per variant).
inline const double* row_of(const double* a, int64_t kk, int64_t i) {
  return a + (i / kGroup) * kk * kGroup + i % kGroup;
}

inline double panel_madd(double x, double y, double c) {
  if constexpr (kPortablePanelsFused) return std::fma(x, y, c);
  return c + x * y;
}

constexpr int64_t kPortableRows = 4, kPortableCols = 4;

}  // namespace

void gram_panels_f64_portable(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                              double* acc, int64_t ldacc) {
  for (int64_t j0 = 0; j0 < cols; j0 += kPortableCols) {
    const double* bp = row_of(b, kk, j0);  // 4 | 32: a column block stays in one group
    for (int64_t i0 = mode == 0 ? 0 : j0 / kPortableRows * kPortableRows; i0 < rows; i0 += kPortableRows) {
      const int64_t nr = std::min(kPortableRows, rows - i0);
      const double* ap = row_of(a, kk, i0);
      double c[kPortableRows][kPortableCols] = {};
      for (int64_t k = 0; k < kk; ++k) {
        const double* ak = ap + k * kGroup;
        const double* bk = bp + k * kGroup;
        for (int64_t r = 0; r < kPortableRows; ++r)
          for (int64_t j = 0; j < kPortableCols; ++j) c[r][j] = panel_madd(ak[r], bk[j], c[r][j]);
      }
      for (int64_t r = 0; r < nr; ++r) {
        const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, kPortableCols);
        double* out = acc + (i0 + r) * ldacc + j0;
        for (int64_t j = 0; j < lim; ++j) out[j] += c[r][j];
      }
    }
  }
}

#ifdef STRATA_X86
namespace {

constexpr int64_t kRows = 6;

#define STRATA_AVX2_TARGET __attribute__((target("avx2,fma")))

STRATA_AVX2_TARGET void gram_panels_f64_avx2_impl(const double* a, const double* b, int64_t kk, int64_t rows,
                                                  int64_t cols, int mode, double* acc, int64_t ldacc) {
  constexpr int64_t kCols = 8;
  for (int64_t j0 = 0; j0 < cols; j0 += kCols) {
    const double* bp = row_of(b, kk, j0);
    for (int64_t i0 = mode == 0 ? 0 : j0 / kRows * kRows; i0 < rows; i0 += kRows) {
      const double* ar[kRows];
      for (int64_t r = 0; r < kRows; ++r) ar[r] = row_of(a, kk, std::min(i0 + r, rows - 1));
      const double *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
      __m256d c0 = _mm256_setzero_pd(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
      __m256d d0 = c0, d1 = c0, d2 = c0, d3 = c0, d4 = c0, d5 = c0;
      for (int64_t o = 0; o < kk * kGroup; o += kGroup) {
        const __m256d b0 = _mm256_loadu_pd(bp + o), b1 = _mm256_loadu_pd(bp + o + 4);
        __m256d x = _mm256_broadcast_sd(a0 + o);
        c0 = _mm256_fmadd_pd(x, b0, c0), d0 = _mm256_fmadd_pd(x, b1, d0);
        x = _mm256_broadcast_sd(a1 + o);
        c1 = _mm256_fmadd_pd(x, b0, c1), d1 = _mm256_fmadd_pd(x, b1, d1);
        x = _mm256_broadcast_sd(a2 + o);
        c2 = _mm256_fmadd_pd(x, b0, c2), d2 = _mm256_fmadd_pd(x, b1, d2);
        x = _mm256_broadcast_sd(a3 + o);
        c3 = _mm256_fmadd_pd(x, b0, c3), d3 = _mm256_fmadd_pd(x, b1, d3);
        x = _mm256_broadcast_sd(a4 + o);
        c4 = _mm256_fmadd_pd(x, b0, c4), d4 = _mm256_fmadd_pd(x, b1, d4);
        x = _mm256_broadcast_sd(a5 + o);
        c5 = _mm256_fmadd_pd(x, b0, c5), d5 = _mm256_fmadd_pd(x, b1, d5);
      }
      const __m256d cs[kRows] = {c0, c1, c2, c3, c4, c5}, ds[kRows] = {d0, d1, d2, d3, d4, d5};
      for (int64_t r = 0; r < kRows && i0 + r < rows; ++r) {
        const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, kCols);
        double* out = acc + (i0 + r) * ldacc + j0;
        flush4(cs[r], out, lim);
        flush4(ds[r], out + 4, lim - 4);
      }
    }
  }
}

#undef STRATA_AVX2_TARGET

__attribute__((target("avx512f"))) void gram_panels_f64_avx512_impl(const double* a, const double* b, int64_t kk,
                                                                      int64_t rows, int64_t cols, int mode,
                                                                      double* acc, int64_t ldacc) {
  for (int64_t j0 = 0; j0 < cols; j0 += kGroup) {
    const double* bp = b + (j0 / kGroup) * kk * kGroup;
    for (int64_t i0 = mode == 0 ? 0 : j0 / kRows * kRows; i0 < rows; i0 += kRows) {
      const double* ar[kRows];
      for (int64_t r = 0; r < kRows; ++r) ar[r] = row_of(a, kk, std::min(i0 + r, rows - 1));
      __m512d c[kRows][4];
#pragma GCC unroll 6
      for (int r = 0; r < kRows; ++r) c[r][0] = c[r][1] = c[r][2] = c[r][3] = _mm512_setzero_pd();
      for (int64_t o = 0; o < kk * kGroup; o += kGroup) {
        const __m512d b0 = _mm512_loadu_pd(bp + o), b1 = _mm512_loadu_pd(bp + o + 8);
        const __m512d b2 = _mm512_loadu_pd(bp + o + 16), b3 = _mm512_loadu_pd(bp + o + 24);
#pragma GCC unroll 6
        for (int r = 0; r < kRows; ++r) {
          const __m512d x = _mm512_set1_pd(ar[r][o]);
          c[r][0] = _mm512_fmadd_pd(x, b0, c[r][0]), c[r][1] = _mm512_fmadd_pd(x, b1, c[r][1]);
          c[r][2] = _mm512_fmadd_pd(x, b2, c[r][2]), c[r][3] = _mm512_fmadd_pd(x, b3, c[r][3]);
        }
      }
      for (int64_t r = 0; r < kRows && i0 + r < rows; ++r) {
        const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, kGroup);
        double* out = acc + (i0 + r) * ldacc + j0;
        for (int q = 0; q < 4; ++q) flush8(c[r][q], out + 8 * q, lim - 8 * q);
      }
    }
  }
}

}  // namespace

GramPanelsF64Fn gram_panels_f64_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok ? gram_panels_f64_avx2_impl : nullptr;
}
GramPanelsF64Fn gram_panels_f64_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok ? gram_panels_f64_avx512_impl : nullptr;
}
#else
GramPanelsF64Fn gram_panels_f64_avx2() { return nullptr; }
GramPanelsF64Fn gram_panels_f64_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
