// Skinny float64 gemm kernels (see skinny_gemm.hpp). B (k × w, w ≤ 8) is copied once into a
// k × L row-major table, zero-padded, so each of its rows is one register: L = 4 lanes (256
// bits) for w ≤ 4, else 8 (512 bits). Both run one FMA per element of A per cycle-pair, so
// 4 columns cost half of 8.
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

#define STRATA_AVX512F __attribute__((target("avx512f,avx512vl,fma")))

// Shapes worth it: a long inner dimension (the table copy is k·8 doubles) and at most 8 columns.
constexpr int64_t kMinInner = 64;
constexpr int kMaxColumns = 8;

// Registers of 8 or 4 float64 lanes.
template <int L>
struct Lanes;
template <>
struct Lanes<8> {
  using V = __m512d;
  STRATA_AVX512F static V zero() { return _mm512_setzero_pd(); }
  STRATA_AVX512F static V load(const double* p) { return _mm512_load_pd(p); }
  STRATA_AVX512F static V splat(double x) { return _mm512_set1_pd(x); }
  STRATA_AVX512F static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  STRATA_AVX512F static void store(double* p, V a) { _mm512_store_pd(p, a); }
};
template <>
struct Lanes<4> {
  using V = __m256d;
  STRATA_AVX512F static V zero() { return _mm256_setzero_pd(); }
  STRATA_AVX512F static V load(const double* p) { return _mm256_load_pd(p); }
  STRATA_AVX512F static V splat(double x) { return _mm256_set1_pd(x); }
  STRATA_AVX512F static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  STRATA_AVX512F static void store(double* p, V a) { _mm256_store_pd(p, a); }
};

// C(i, 0..w) = α·acc + β·C(i, 0..w) from one accumulator of L lanes.
template <int L>
STRATA_AVX512F inline void store_row(typename Lanes<L>::V acc, int64_t i, int64_t w, double alpha, double beta,
                                     double* c, int64_t ldc) {
  alignas(64) double t[8] = {};
  Lanes<L>::store(t, acc);
  if (beta == 0.0) {
    for (int64_t j = 0; j < w; ++j) c[i + j * ldc] = alpha * t[j];
  } else {
    for (int64_t j = 0; j < w; ++j) c[i + j * ldc] = alpha * t[j] + beta * c[i + j * ldc];
  }
}

// R rows of A (rows contiguous) starting at row i.
template <int L, int R>
STRATA_AVX512F void dot_rows(const double* a, int64_t lda, int64_t k, const double* bt, int64_t i, int64_t w,
                             double alpha, double beta, double* c, int64_t ldc) {
  using X = Lanes<L>;
  typename X::V acc[R];
  for (int r = 0; r < R; ++r) acc[r] = X::zero();
  const double* ai = a + i * lda;
  for (int64_t p = 0; p < k; ++p) {
    const auto bv = X::load(bt + p * L);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = X::fma(X::splat(ai[r * lda + p]), bv, acc[r]);
  }
  for (int r = 0; r < R; ++r) store_row<L>(acc[r], i + r, w, alpha, beta, c, ldc);
}

// R rows of C from A with contiguous columns, starting at row i.
template <int L, int R>
STRATA_AVX512F void axpy_rows(const double* a, int64_t lda, int64_t k, const double* bt, int64_t i, int64_t w,
                              double alpha, double beta, double* c, int64_t ldc) {
  using X = Lanes<L>;
  typename X::V acc[R];
  for (int r = 0; r < R; ++r) acc[r] = X::zero();
  for (int64_t p = 0; p < k; ++p) {
    const auto bv = X::load(bt + p * L);
    const double* ap = a + i + p * lda;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = X::fma(X::splat(ap[r]), bv, acc[r]);
  }
  for (int r = 0; r < R; ++r) store_row<L>(acc[r], i + r, w, alpha, beta, c, ldc);
}

template <int L>
STRATA_AVX512F void skinny_lanes(bool a_rows_contiguous, int64_t m, int64_t w, int64_t k, double alpha,
                                 const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                                 int64_t ldc) {
  // B's rows as L-lane registers (64-byte aligned, zero past column w).
  thread_local std::vector<double> table;
  table.assign(static_cast<size_t>(k * L + 8), 0.0);
  double* bt = table.data();
  while (reinterpret_cast<uintptr_t>(bt) % 64 != 0) ++bt;
  for (int64_t j = 0; j < w; ++j)
    for (int64_t p = 0; p < k; ++p) bt[p * L + j] = b[p + j * ldb];
  int64_t i = 0;
  if (a_rows_contiguous) {
    for (; i + 12 <= m; i += 12) dot_rows<L, 12>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i + 4 <= m; i += 4) dot_rows<L, 4>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i < m; ++i) dot_rows<L, 1>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
  } else {
    for (; i + 16 <= m; i += 16) axpy_rows<L, 16>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i + 4 <= m; i += 4) axpy_rows<L, 4>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
    for (; i < m; ++i) axpy_rows<L, 1>(a, lda, k, bt, i, w, alpha, beta, c, ldc);
  }
}

bool skinny_avx512(bool a_rows_contiguous, int64_t m, int64_t w, int64_t k, double alpha, const double* a,
                   int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (w < 1 || w > kMaxColumns || k < kMinInner || m < 1) return false;
  if (w <= 4) {
    skinny_lanes<4>(a_rows_contiguous, m, w, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    skinny_lanes<8>(a_rows_contiguous, m, w, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  return true;
}

}  // namespace

SkinnyGemmFn skinny_gemm_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? skinny_avx512 : nullptr;
}
#else
SkinnyGemmFn skinny_gemm_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
