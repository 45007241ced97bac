// Fused GRM tile kernels: register blocks of rows × columns of the tile (AVX-512 and the
// reference 8 × 32, AVX2 6 × 16), one float32 FMA chain per entry over the run, flushed once
// into the float64 accumulators. The panels
// are packed by sample groups of 32 (group g: kk × 32 floats, row-major), so every step reads
// 32 contiguous column values and 8 row values of one variant, and a tile needs no copies.
#include "backend/cpu/gram_panel_kernels.hpp"
#include "backend/cpu/x86_intrinsics_internal.hpp"

#include <algorithm>
#include <cmath>

namespace strata::backend::cpu {
namespace {

constexpr int64_t kGroup = 32;  // samples per packed group = columns per register block
constexpr int64_t kRows = 8;    // rows per register block

// Columns of row i (tile coordinates) the mode asks for: the whole tile, j ≤ i or j < i.
inline int64_t column_limit(int mode, int64_t i, int64_t cols) {
  return mode == 0 ? cols : std::min(cols, mode == 1 ? i + 1 : i);
}

// The blocks of the tile: column groups outside, row blocks inside (the column group's
// kk × 32 panel stays in L1 while the row blocks stream past it). On diagonal tiles blocks
// wholly above the diagonal are skipped: row blocks start at the column group's first row.
// (Plain loops, not a lambda: lambdas do not inherit a function's target attribute.)
inline int64_t first_row_block(int mode, int64_t j0) { return mode == 0 ? 0 : j0 / kRows * kRows; }

inline const float* row_block(const float* a, int64_t kk, int64_t i0) {
  return a + (i0 / kGroup) * kk * kGroup + i0 % kGroup;
}

}  // namespace

namespace {

// One multiply-add of the portable kernel: fused where the compiler targets an FMA unit (then
// the same bits as every other level), else a rounded product and a rounded sum: without FMA
// hardware std::fma is a library call per element (53× slower than the AVX2 level), and an
// exact emulation costs ~30×. kPortablePanelsFused says which (conformance tests it exactly).
inline float panel_madd(float x, float y, float c) {
  if constexpr (kPortablePanelsFused) return std::fma(x, y, c);
  return c + x * y;
}

// A 4-row × 8-column block over the run in plain loops the compiler keeps in vector registers
// (SSE2 on x86-64's baseline, NEON on aarch64: 8 accumulators of 4 lanes).
constexpr int64_t kPortableRows = 4, kPortableCols = 8;

inline void portable_block(const float* ap, const float* bp, int64_t kk, int64_t nr, float (&c)[kPortableRows][kPortableCols]) {
  for (int64_t r = 0; r < kPortableRows; ++r)
    for (int64_t j = 0; j < kPortableCols; ++j) c[r][j] = 0.0f;
  if (nr == kPortableRows) {
    for (int64_t k = 0; k < kk; ++k) {
      const float* ak = ap + k * kGroup;
      const float* bk = bp + k * kGroup;
      for (int64_t r = 0; r < kPortableRows; ++r)
        for (int64_t j = 0; j < kPortableCols; ++j) c[r][j] = panel_madd(ak[r], bk[j], c[r][j]);
    }
    return;
  }
  for (int64_t k = 0; k < kk; ++k)
    for (int64_t r = 0; r < nr; ++r)
      for (int64_t j = 0; j < kPortableCols; ++j) c[r][j] = panel_madd(ap[k * kGroup + r], bp[k * kGroup + j], c[r][j]);
}

}  // namespace

void gram_panels_portable(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                          double* acc, int64_t ldacc) {
  for (int64_t j0 = 0; j0 < cols; j0 += kPortableCols) {
    // Diagonal modes: row blocks from the first one holding a row with j0 ≤ its index.
    for (int64_t i0 = mode == 0 ? 0 : j0 / kPortableRows * kPortableRows; i0 < rows; i0 += kPortableRows) {
      const int64_t nr = std::min(kPortableRows, rows - i0);
      const float* ap = a + (i0 / kGroup) * kk * kGroup + i0 % kGroup;  // 4 | 32: a block stays in one group
      const float* bp = b + (j0 / kGroup) * kk * kGroup + j0 % kGroup;
      float c[kPortableRows][kPortableCols];
      portable_block(ap, bp, kk, nr, c);
      for (int64_t r = 0; r < nr; ++r) {
        const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, kPortableCols);
        double* out = acc + (i0 + r) * ldacc + j0;
        for (int64_t j = 0; j < lim; ++j) out[j] += static_cast<double>(c[r][j]);
      }
    }
  }
}

#ifdef STRATA_X86
namespace {

#define STRATA_AVX2_TARGET __attribute__((target("avx2,fma")))

// Adds the 8 floats of v (columns j, j + 1, …) to out as doubles, columns below lim only.
STRATA_AVX2_TARGET inline void flush8(__m256 v, double* out, int64_t lim) {
  if (lim <= 0) return;
  const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
  if (lim >= 8) {
    _mm256_storeu_pd(out, _mm256_add_pd(_mm256_loadu_pd(out), lo));
    _mm256_storeu_pd(out + 4, _mm256_add_pd(_mm256_loadu_pd(out + 4), hi));
    return;
  }
  alignas(32) double d[8];
  _mm256_store_pd(d, lo);
  _mm256_store_pd(d + 4, hi);
  for (int64_t j = 0; j < lim; ++j) out[j] += d[j];
}

// AVX2 has 16 vector registers: register blocks of 6 rows × 16 columns (12 accumulators, two
// column vectors, one broadcast), each 16-column half of a group in turn. A block's rows may
// span two groups (6 does not divide 32), so each row has its own pointer; rows past the tile
// repeat its last row and are not flushed.
STRATA_AVX2_TARGET void gram_panels_avx2_impl(const float* a, const float* b, int64_t kk, int64_t rows,
                                              int64_t cols, int mode, double* acc, int64_t ldacc) {
  constexpr int64_t kR = 6, kHalf = 16;
  for (int64_t j0 = 0; j0 < cols; j0 += kHalf) {
    const float* bp = b + (j0 / kGroup) * kk * kGroup + j0 % kGroup;
    for (int64_t i0 = mode == 0 ? 0 : j0 / kR * kR; i0 < rows; i0 += kR) {
      const float* ar[kR];
      for (int64_t r = 0; r < kR; ++r) ar[r] = row_block(a, kk, std::min(i0 + r, rows - 1));
      const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
      __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
      __m256 d0 = c0, d1 = c0, d2 = c0, d3 = c0, d4 = c0, d5 = c0;
      for (int64_t o = 0; o < kk * kGroup; o += kGroup) {
        const __m256 b0 = _mm256_loadu_ps(bp + o), b1 = _mm256_loadu_ps(bp + o + 8);
        __m256 x = _mm256_broadcast_ss(a0 + o);
        c0 = _mm256_fmadd_ps(x, b0, c0), d0 = _mm256_fmadd_ps(x, b1, d0);
        x = _mm256_broadcast_ss(a1 + o);
        c1 = _mm256_fmadd_ps(x, b0, c1), d1 = _mm256_fmadd_ps(x, b1, d1);
        x = _mm256_broadcast_ss(a2 + o);
        c2 = _mm256_fmadd_ps(x, b0, c2), d2 = _mm256_fmadd_ps(x, b1, d2);
        x = _mm256_broadcast_ss(a3 + o);
        c3 = _mm256_fmadd_ps(x, b0, c3), d3 = _mm256_fmadd_ps(x, b1, d3);
        x = _mm256_broadcast_ss(a4 + o);
        c4 = _mm256_fmadd_ps(x, b0, c4), d4 = _mm256_fmadd_ps(x, b1, d4);
        x = _mm256_broadcast_ss(a5 + o);
        c5 = _mm256_fmadd_ps(x, b0, c5), d5 = _mm256_fmadd_ps(x, b1, d5);
      }
      const __m256 cs[kR] = {c0, c1, c2, c3, c4, c5}, ds[kR] = {d0, d1, d2, d3, d4, d5};
      for (int64_t r = 0; r < kR && i0 + r < rows; ++r) {
        const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, kHalf);
        double* out = acc + (i0 + r) * ldacc + j0;
        flush8(cs[r], out, lim);
        flush8(ds[r], out + 8, lim - 8);
      }
    }
  }
}

#undef STRATA_AVX2_TARGET

// Adds the 16 floats of v (columns j0 + h·16 …) to out as doubles, columns below lim only.
__attribute__((target("avx512f"))) inline void flush16(__m512 v, double* out, int64_t lim) {
  if (lim <= 0) return;
  const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
  const __m512d hi = _mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(3, 2, 3, 2))));
  const __mmask8 mlo = lim >= 8 ? __mmask8(0xFF) : __mmask8((1u << lim) - 1);
  _mm512_mask_storeu_pd(out, mlo, _mm512_add_pd(_mm512_maskz_loadu_pd(mlo, out), lo));
  if (lim <= 8) return;
  const int64_t l2 = lim - 8;
  const __mmask8 mhi = l2 >= 8 ? __mmask8(0xFF) : __mmask8((1u << l2) - 1);
  _mm512_mask_storeu_pd(out + 8, mhi, _mm512_add_pd(_mm512_maskz_loadu_pd(mhi, out + 8), hi));
}

__attribute__((target("avx512f"))) void gram_panels_avx512_impl(const float* a, const float* b, int64_t kk,
                                                                  int64_t rows, int64_t cols, int mode, double* acc,
                                                                  int64_t ldacc) {
  for (int64_t j0 = 0; j0 < cols; j0 += kGroup)
    for (int64_t i0 = first_row_block(mode, j0); i0 < rows; i0 += kRows) {
    const float* ap = row_block(a, kk, i0);
    const float* bp = b + (j0 / kGroup) * kk * kGroup;
    __m512 cs[kRows], ds[kRows];  // columns j0 .. j0 + 15 and j0 + 16 .. j0 + 31 of each row
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) cs[r] = ds[r] = _mm512_setzero_ps();
    for (int64_t k = 0; k < kk; ++k) {
      const float* ak = ap + k * kGroup;
      const __m512 b0 = _mm512_loadu_ps(bp + k * kGroup), b1 = _mm512_loadu_ps(bp + k * kGroup + 16);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const __m512 x = _mm512_set1_ps(ak[r]);
        cs[r] = _mm512_fmadd_ps(x, b0, cs[r]), ds[r] = _mm512_fmadd_ps(x, b1, ds[r]);
      }
    }
    for (int64_t r = 0; r < kRows && i0 + r < rows; ++r) {
      const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, kGroup);
      double* out = acc + (i0 + r) * ldacc + j0;
      flush16(cs[r], out, lim);
      flush16(ds[r], out + 16, lim - 16);
    }
  }
}
}  // namespace

GramPanelsFn gram_panels_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok ? gram_panels_avx2_impl : nullptr;
}
GramPanelsFn gram_panels_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok ? gram_panels_avx512_impl : nullptr;
}
#else
GramPanelsFn gram_panels_avx2() { return nullptr; }
GramPanelsFn gram_panels_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
