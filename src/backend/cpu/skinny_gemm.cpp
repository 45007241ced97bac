// Skinny float64 gemm kernels (see skinny_gemm.hpp). B (k × w, w ≤ 8) is copied once into a
// k × L row-major table, zero-padded, so each of its rows is one register: L = 4 lanes (256
// bits) for w ≤ 4, else 8 (512 bits). Both run one FMA per element of A per cycle-pair, so
// 4 columns cost half of 8.
// - Rows of A contiguous (A·B as dot products): 12 rows of A at a time, each accumulator holds
//   one row of C; every step broadcasts A(i, p) against B's row p.
// - Columns of A contiguous (A·B as a sum of outer products): 16 rows of C at a time, the same
//   broadcasts read down A's columns.
// Each C entry sums its k terms in order p = 0, 1, …: the same bits for any row split, at
// either level (AVX-512 or AVX2 + FMA: the loops of skinny_gemm_loops.inc, once per level).
#include "backend/cpu/skinny_gemm.hpp"

#include <cstdint>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_SKINNY_X86 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_SKINNY_X86
namespace avx512 {
namespace {

#define STRATA_SKINNY_TARGET __attribute__((target("avx512f,avx512vl,fma")))

constexpr int kAlign = 64;
template <int L>
struct Blocks {
  static constexpr int kDot = 12, kAxpy = 16, kMid = 4;
};

// Rows of 8 or 4 float64 lanes: one zmm or ymm register.
#define STRATA_SKINNY_ROWS STRATA_SKINNY_ROW(8, __m512d, _mm512) STRATA_SKINNY_ROW(4, __m256d, _mm256)

#include "backend/cpu/skinny_gemm_loops.inc"

#undef STRATA_SKINNY_ROWS
#undef STRATA_SKINNY_TARGET

}  // namespace
}  // namespace avx512

// AVX2 + FMA: the same loops with 16 ymm registers. B's rows are 4-lane registers for w ≤ 4
// (12 rows of A at a time) or pairs of them for w ≤ 8 (6 rows at a time).
namespace avx2 {
namespace {

#define STRATA_SKINNY_TARGET __attribute__((target("avx2,fma")))

constexpr int kAlign = 32;
// Rows per block: the accumulators plus B's row and a broadcast fill the 16 registers.
template <int L>
struct Blocks {
  static constexpr int kDot = L == 4 ? 12 : 6, kAxpy = kDot, kMid = 2;
};

// One row of B (or of C's accumulators): 4 lanes, or 8 as two registers.
template <int L>
struct Row;
template <>
struct Row<8> {
  __m256d lo, hi;
  STRATA_SKINNY_TARGET static Row zero() { return {_mm256_setzero_pd(), _mm256_setzero_pd()}; }
  STRATA_SKINNY_TARGET static Row load(const double* p) { return {_mm256_load_pd(p), _mm256_load_pd(p + 4)}; }
  STRATA_SKINNY_TARGET static Row fma(double x, Row b, Row c) {
    const __m256d s = _mm256_set1_pd(x);
    return {_mm256_fmadd_pd(s, b.lo, c.lo), _mm256_fmadd_pd(s, b.hi, c.hi)};
  }
  STRATA_SKINNY_TARGET void store(double* p) const { _mm256_store_pd(p, lo), _mm256_store_pd(p + 4, hi); }
};
#define STRATA_SKINNY_ROWS STRATA_SKINNY_ROW(4, __m256d, _mm256)

#include "backend/cpu/skinny_gemm_loops.inc"

#undef STRATA_SKINNY_ROWS
#undef STRATA_SKINNY_TARGET

}  // namespace
}  // namespace avx2

SkinnyGemmFn skinny_gemm_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? avx512::skinny : nullptr;
}
SkinnyGemmFn skinny_gemm_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? avx2::skinny : nullptr;
}
#else
SkinnyGemmFn skinny_gemm_avx512() { return nullptr; }
SkinnyGemmFn skinny_gemm_avx2() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
