#pragma once
// The GRM's fused tile kernel (strata/backend/backend.hpp, gram_panels_f32): float32 products
// of two group-packed panels summed over one run of variants, joined to float64 accumulators.
// Every implementation forms each entry as one float32 fused multiply-add per variant, in
// variant order, then one exact conversion and one rounded float64 add: the same bits (the
// portable kernel without an FMA unit: a rounded product and sum per variant instead).

#include <cstdint>

#include "strata/backend/backend.hpp"

namespace strata::backend::cpu {

/// Whether the portable kernel fuses its multiply-adds (the compiler targets an FMA unit:
/// aarch64, or x86 built with FMA): then it gives every level's bits; else each step is a
/// rounded product and a rounded sum (x86-64's baseline has no FMA instruction).
#if defined(__FMA__) || defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
inline constexpr bool kPortablePanelsFused = true;
#else
inline constexpr bool kPortablePanelsFused = false;
#endif

/// See Backend::gram_panels_f32 (mode: 0 whole tile, 1 j ≤ i, 2 j < i).
using GramPanelsFn = void (*)(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                              double* acc, int64_t ldacc);

void gram_panels_portable(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                          double* acc, int64_t ldacc);
/// AVX2 + FMA kernel; nullptr when the CPU lacks them.
GramPanelsFn gram_panels_avx2();
/// AVX-512 F kernel; nullptr when the CPU lacks AVX-512 F.
GramPanelsFn gram_panels_avx512();

/// See Backend::gram_panels_f64: the same scheme on float64 panels (gram_panel_f64_kernels.cpp).
using GramPanelsF64Fn = void (*)(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                                 double* acc, int64_t ldacc);
void gram_panels_f64_portable(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                              double* acc, int64_t ldacc);
GramPanelsF64Fn gram_panels_f64_avx2();
GramPanelsF64Fn gram_panels_f64_avx512();

/// See Backend::gram_sparse_f64 (gram_sparse_f64_kernels.cpp).
using GramSparseF64Fn = void (*)(const SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                                 int64_t cols, int mode, double* acc, int64_t ldacc);
void gram_sparse_f64_portable(const SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                              int64_t cols, int mode, double* acc, int64_t ldacc);
GramSparseF64Fn gram_sparse_f64_avx2();
GramSparseF64Fn gram_sparse_f64_avx512();

}  // namespace strata::backend::cpu
