#pragma once
// Skinny float64 products of the CPU backend's gemm: C (m × w) = α·A·B + β·C with w ≤ 8 and
// a long inner dimension, the shape of a Krylov or projection step against a dense matrix.
// OpenBLAS packs the whole of A on every such call (as much memory traffic as the product
// itself, for 8 columns); these kernels read A once, in place, with B transposed into a small
// k × 8 table that stays in cache.

#include <cstdint>

namespace strata::backend::cpu {

/// A as a matrix whose rows are contiguous (element (i, p) at a[i·lda + p]) or whose columns
/// are (element (i, p) at a[i + p·lda]); B and C column-major. Returns false (nothing done)
/// when the shape is not one these kernels take, so the caller falls back to BLAS.
using SkinnyGemmFn = bool (*)(bool a_rows_contiguous, int64_t m, int64_t w, int64_t k, double alpha, const double* a,
                              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

/// The AVX-512 F kernels, or nullptr when the CPU lacks AVX-512 F.
SkinnyGemmFn skinny_gemm_avx512();
/// The AVX2 + FMA kernels (the same loops and bits), or nullptr without them.
SkinnyGemmFn skinny_gemm_avx2();

}  // namespace strata::backend::cpu
