// Skinny float64 gemm kernels (see skinny_gemm.hpp). B (k × w, w ≤ 8) is copied once into a
// k × 8 row-major table, zero-padded, so each of its rows is one 512-bit register.
// - Rows of A contiguous (A·B as dot products): 12 rows of A at a time, each accumulator holds
//   one row of C; every step broadcasts A(i, p) against B's row p.
// - Columns of A contiguous (A·B as a sum of outer products): 16 rows of C at a time, the same
//   broadcasts read down A's columns.
// Each C entry sums its k terms in order p = 0, 1, …: the same bits for any row split.
#include "backend/cpu/skinny_gemm.hpp"

#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_SKINNY_X86 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_SKINNY_X86
namespace {

#define STRATA_AVX512F __attribute__((target("avx512f")))

// Shapes worth it: a long inner dimension (the table copy is k·8 doubles) and at most 8 columns.
constexpr int64_t kMinInner = 64;
constexpr int kMaxColumns = 8;

// C(i, 0..w) = α·acc + β·C(i, 0..w) from one accumulator of 8 lanes.
STRATA_AVX512F inline void store_row(__m512d acc, int64_t i, int64_t w, double alpha, double beta, double* c,
                                     int64_t ldc) {
  alignas(64) double t[8];
  _mm512_store_pd(t, _mm512_mul_pd(_mm512_set1_pd(alpha), acc));
  if (beta == 0.0) {
    for (int64_t j = 0; j < w; ++j) c[i + j * ldc] = t[j];
  } else {
    for (int64_t j = 0; j < w; ++j) c[i + j * ldc] = t[j] + beta * c[i + j * ldc];
  }
}

// R rows of A (rows contiguous) starting at row i.
template <int R>
STRATA_AVX512F void dot_rows(const double* a, int64_t lda, int64_t k, const double* bt, int64_t i, int64_t w,
                             double alpha, double beta, double* c, int64_t ldc) {
  __m512d acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_pd();
  const double* ai = a + i * lda;
  for (int64_t p = 0; p < k; ++p) {
    const __m512d bv = _mm512_load_pd(bt + p * 8);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_pd(_mm512_set1_pd(ai[r * lda + p]), bv, acc[r]);
  }
  for (int r = 0; r < R; ++r) store_row(acc[r], i + r, w, alpha, beta, c, ldc);
}

// R rows of C from A with contiguous columns, starting at row i.
template <int R>
STRATA_AVX512F void axpy_rows(const double* a, int64_t lda, int64_t k, const double* bt, int64_t i, int64_t w,
                              double alpha, double beta, double* c, int64_t ldc) {
  __m512d acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_pd();
  for (int64_t p = 0; p < k; ++p) {
    const __m512d bv = _mm512_load_pd(bt + p * 8);
    const double* ap = a + i + p * lda;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_pd(_mm512_set1_pd(ap[r]), bv, acc[r]);
  }
  for (int r = 0; r < R; ++r) store_row(acc[r], i + r, w, alpha, beta, c, ldc);
}

bool skinny_avx512(bool a_rows_contiguous, int64_t m, int64_t w, int64_t k, double alpha, const double* a,
                   int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (w < 1 || w > kMaxColumns || k < kMinInner || m < 1) return false;
  // B's rows as 8-lane registers (64-byte aligned, zero past column w).
  thread_local std::vector<double> table;
  table.assign(static_cast<size_t>(k * 8 + 8), 0.0);
  double* bt = table.data();
  while (reinterpret_cast<uintptr_t>(bt) % 64 != 0) ++bt;
  for (int64_t j = 0; j < w; ++j)
    for (int64_t p = 0; p < k; ++p) bt[p * 8 + j] = b[p + j * ldb];
  int64_t i = 0;
  if (a_rows_contiguous) {
    for (; i + 12 <= m; i += 12) dot_rows<12>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i + 4 <= m; i += 4) dot_rows<4>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i < m; ++i) dot_rows<1>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
  } else {
    for (; i + 16 <= m; i += 16) axpy_rows<16>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i + 4 <= m; i += 4) axpy_rows<4>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i < m; ++i) axpy_rows<1>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
  }
  return true;
}

}  // namespace

SkinnyGemmFn skinny_gemm_avx512() { return __builtin_cpu_supports("avx512f") ? skinny_avx512 : nullptr; }
#else
SkinnyGemmFn skinny_gemm_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
