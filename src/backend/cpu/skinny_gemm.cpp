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

#include <cstdint>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_SKINNY_X86 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_SKINNY_X86
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

SkinnyGemmFn skinny_gemm_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? skinny : nullptr;
}
#else
SkinnyGemmFn skinny_gemm_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
