// The skinny float64 gemm (skinny_gemm.hpp) for AVX2 + FMA: the AVX-512 kernels' loops with
// 16 ymm registers. B's rows are 4-lane registers for w ≤ 4 (12 rows of A at a time) or pairs
// of them for w ≤ 8 (6 rows at a time). Each C entry sums its k terms in order p = 0, 1, … with
// one FMA each, as the AVX-512 kernels do: the same bits.
#include "backend/cpu/skinny_gemm.hpp"

#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_SKINNY_X86 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_SKINNY_X86
namespace {

#define STRATA_AVX2_FMA __attribute__((target("avx2,fma")))

constexpr int64_t kMinInner = 64;  // as the AVX-512 kernels
constexpr int kMaxColumns = 8;

// One row of B (or of C's accumulators): 4 lanes, or 8 as two registers.
template <int L>
struct Row;
template <>
struct Row<4> {
  __m256d v;
  STRATA_AVX2_FMA static Row zero() { return {_mm256_setzero_pd()}; }
  STRATA_AVX2_FMA static Row load(const double* p) { return {_mm256_load_pd(p)}; }
  STRATA_AVX2_FMA static Row fma(double x, Row b, Row c) { return {_mm256_fmadd_pd(_mm256_set1_pd(x), b.v, c.v)}; }
  STRATA_AVX2_FMA void store(double* p) const { _mm256_store_pd(p, v); }
};
template <>
struct Row<8> {
  __m256d lo, hi;
  STRATA_AVX2_FMA static Row zero() { return {_mm256_setzero_pd(), _mm256_setzero_pd()}; }
  STRATA_AVX2_FMA static Row load(const double* p) { return {_mm256_load_pd(p), _mm256_load_pd(p + 4)}; }
  STRATA_AVX2_FMA static Row fma(double x, Row b, Row c) {
    const __m256d s = _mm256_set1_pd(x);
    return {_mm256_fmadd_pd(s, b.lo, c.lo), _mm256_fmadd_pd(s, b.hi, c.hi)};
  }
  STRATA_AVX2_FMA void store(double* p) const { _mm256_store_pd(p, lo), _mm256_store_pd(p + 4, hi); }
};

// C(i, 0..w) = α·acc + β·C(i, 0..w).
template <int L>
STRATA_AVX2_FMA inline void store_row(const Row<L>& acc, int64_t i, int64_t w, double alpha, double beta, double* c,
                                      int64_t ldc) {
  alignas(32) double t[8] = {};
  acc.store(t);
  if (beta == 0.0) {
    for (int64_t j = 0; j < w; ++j) c[i + j * ldc] = alpha * t[j];
  } else {
    for (int64_t j = 0; j < w; ++j) c[i + j * ldc] = alpha * t[j] + beta * c[i + j * ldc];
  }
}

// R rows of A (rows contiguous) starting at row i.
template <int L, int R>
STRATA_AVX2_FMA void dot_rows(const double* a, int64_t lda, int64_t k, const double* bt, int64_t i, int64_t w,
                              double alpha, double beta, double* c, int64_t ldc) {
  Row<L> acc[R];
  for (int r = 0; r < R; ++r) acc[r] = Row<L>::zero();
  const double* ai = a + i * lda;
  for (int64_t p = 0; p < k; ++p) {
    const Row<L> bv = Row<L>::load(bt + p * L);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = Row<L>::fma(ai[r * lda + p], bv, acc[r]);
  }
  for (int r = 0; r < R; ++r) store_row<L>(acc[r], i + r, w, alpha, beta, c, ldc);
}

// R rows of C from A with contiguous columns, starting at row i.
template <int L, int R>
STRATA_AVX2_FMA void axpy_rows(const double* a, int64_t lda, int64_t k, const double* bt, int64_t i, int64_t w,
                               double alpha, double beta, double* c, int64_t ldc) {
  Row<L> acc[R];
  for (int r = 0; r < R; ++r) acc[r] = Row<L>::zero();
  for (int64_t p = 0; p < k; ++p) {
    const Row<L> bv = Row<L>::load(bt + p * L);
    const double* ap = a + i + p * lda;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = Row<L>::fma(ap[r], bv, acc[r]);
  }
  for (int r = 0; r < R; ++r) store_row<L>(acc[r], i + r, w, alpha, beta, c, ldc);
}

// Rows per block: the accumulators plus B's row and a broadcast fill the 16 registers.
template <int L>
STRATA_AVX2_FMA void skinny_lanes(bool a_rows_contiguous, int64_t m, int64_t w, int64_t k, double alpha,
                                  const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                                  int64_t ldc) {
  constexpr int kBlock = L == 4 ? 12 : 6;
  thread_local std::vector<double> table;
  table.assign(static_cast<size_t>(k * L + 4), 0.0);
  double* bt = table.data();
  while (reinterpret_cast<uintptr_t>(bt) % 32 != 0) ++bt;
  for (int64_t j = 0; j < w; ++j)
    for (int64_t p = 0; p < k; ++p) bt[p * L + j] = b[p + j * ldb];
  int64_t i = 0;
  if (a_rows_contiguous) {
    for (; i + kBlock <= m; i += kBlock) dot_rows<L, kBlock>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i + 2 <= m; i += 2) dot_rows<L, 2>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i < m; ++i) dot_rows<L, 1>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
  } else {
    for (; i + kBlock <= m; i += kBlock) axpy_rows<L, kBlock>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i + 2 <= m; i += 2) axpy_rows<L, 2>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i < m; ++i) axpy_rows<L, 1>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
  }
}

bool skinny_avx2(bool a_rows_contiguous, int64_t m, int64_t w, int64_t k, double alpha, const double* a, int64_t lda,
                 const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (w < 1 || w > kMaxColumns || k < kMinInner || m < 1) return false;
  if (w <= 4) {
    skinny_lanes<4>(a_rows_contiguous, m, w, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    skinny_lanes<8>(a_rows_contiguous, m, w, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  return true;
}

#undef STRATA_AVX2_FMA

}  // namespace

SkinnyGemmFn skinny_gemm_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? skinny_avx2 : nullptr;
}
#else
SkinnyGemmFn skinny_gemm_avx2() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
