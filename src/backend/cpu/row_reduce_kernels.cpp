// Row-pair reductions (see row_reduce_kernels.hpp). The AVX-512 kernel runs lanes along the
// coordinates: lane l of an accumulator holds partial sum l (coordinates k ≡ l mod 8), exactly
// the portable kernel's partials, and a block of 4 × 2 row pairs shares each load.
#include "backend/cpu/row_reduce_kernels.hpp"

// A product and a sum must stay two roundings (as the vector kernel's masked add keeps them).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <cmath>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_ROW_REDUCE_X86 1
#endif

#include "backend/cpu/lane_sum.hpp"

namespace strata::backend::cpu {
namespace {

constexpr int kLanes = kSumLanes;

template <RowReduce Op>
inline double term(double x, double y, double p) {
  const double d = x - y;
  if constexpr (Op == RowReduce::Cityblock || Op == RowReduce::Chebyshev) return std::fabs(d);
  if constexpr (Op == RowReduce::SqEuclidean) return d * d;
  if constexpr (Op == RowReduce::Minkowski) return std::pow(std::fabs(d), p);
  if constexpr (Op == RowReduce::Mismatch) return x != y ? 1.0 : 0.0;
  return 0.0;
}

// A pair's result from its lane partials: their max (Chebyshev) or their tree sum.
template <RowReduce Op>
inline double combine_lanes(const double (&s)[kLanes]) {
  if constexpr (Op == RowReduce::Chebyshev) {
    double m = 0.0;
    for (double v : s) m = v > m ? v : m;
    return m;
  } else {
    return lane_tree_sum(s);
  }
}

template <RowReduce Op>
void portable_op(double p, const double* a, int64_t lda, int64_t rows, const double* b, int64_t ldb, int64_t cols,
                 int64_t d, double* out, int64_t ldo, int64_t* observed) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const double* x = a + i * lda;
      const double* y = b + j * ldb;
      double s[kLanes] = {};
      int64_t n = 0;
      for (int64_t k = 0; k < d; ++k) {
        if (std::isnan(x[k]) || std::isnan(y[k])) continue;
        const double t = term<Op>(x[k], y[k], p);
        double& acc = s[k % kLanes];
        if constexpr (Op == RowReduce::Chebyshev) {
          acc = t > acc ? t : acc;
        } else {
          acc = acc + t;
        }
        ++n;
      }
      out[i * ldo + j] = combine_lanes<Op>(s);
      if (observed) observed[i * ldo + j] = n;
    }
}

}  // namespace

void row_reduce_portable(RowReduce op, double p, const double* a, int64_t lda, int64_t rows, const double* b,
                         int64_t ldb, int64_t cols, int64_t d, double* out, int64_t ldo, int64_t* observed) {
  switch (op) {
    case RowReduce::Cityblock: return portable_op<RowReduce::Cityblock>(p, a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::SqEuclidean: return portable_op<RowReduce::SqEuclidean>(p, a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::Chebyshev: return portable_op<RowReduce::Chebyshev>(p, a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::Minkowski: return portable_op<RowReduce::Minkowski>(p, a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::Mismatch: return portable_op<RowReduce::Mismatch>(p, a, lda, rows, b, ldb, cols, d, out, ldo, observed);
  }
}

#ifdef STRATA_ROW_REDUCE_X86
namespace {

#define STRATA_AVX512F __attribute__((target("avx512f")))

// Masked adds and max (builtins, never contracted into an fma), so every lane does the
// portable kernel's operations in its order.
template <RowReduce Op>
STRATA_AVX512F inline __m512d vterm(__m512d x, __m512d y) {
  const __m512d d = _mm512_sub_pd(x, y);
  if constexpr (Op == RowReduce::SqEuclidean) return _mm512_mul_pd(d, d);
  if constexpr (Op == RowReduce::Mismatch) {
    const __mmask8 ne = _mm512_cmp_pd_mask(x, y, _CMP_NEQ_UQ);
    return _mm512_maskz_mov_pd(ne, _mm512_set1_pd(1.0));
  }
  return _mm512_abs_pd(d);
}

template <RowReduce Op, int RA, int RB, bool Count>
STRATA_AVX512F void block(const double* a, int64_t lda, const double* b, int64_t ldb, int64_t d, double* out,
                          int64_t ldo, int64_t* observed) {
  __m512d acc[RA][RB];
  __m512i cnt[RA][RB];
  for (int r = 0; r < RA; ++r)
    for (int c = 0; c < RB; ++c) acc[r][c] = _mm512_setzero_pd(), cnt[r][c] = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi64(1);
  for (int64_t k = 0; k < d; k += kLanes) {
    const __mmask8 live = d - k >= kLanes ? __mmask8(0xFF) : __mmask8((1u << (d - k)) - 1);
    __m512d x[RA], y[RB];
    for (int r = 0; r < RA; ++r) x[r] = _mm512_maskz_loadu_pd(live, a + r * lda + k);
    for (int c = 0; c < RB; ++c) y[c] = _mm512_maskz_loadu_pd(live, b + c * ldb + k);
    for (int r = 0; r < RA; ++r)
      for (int c = 0; c < RB; ++c) {
        const __mmask8 m = _mm512_mask_cmp_pd_mask(live, x[r], y[c], _CMP_ORD_Q);
        const __m512d t = vterm<Op>(x[r], y[c]);
        if constexpr (Op == RowReduce::Chebyshev) {
          acc[r][c] = _mm512_mask_max_pd(acc[r][c], m, acc[r][c], t);
        } else {
          acc[r][c] = _mm512_mask_add_pd(acc[r][c], m, acc[r][c], t);
        }
        if constexpr (Count) cnt[r][c] = _mm512_mask_add_epi64(cnt[r][c], m, cnt[r][c], one);
      }
  }
  for (int r = 0; r < RA; ++r)
    for (int c = 0; c < RB; ++c) {
      alignas(64) double s[kLanes];
      _mm512_store_pd(s, acc[r][c]);
      out[r * ldo + c] = combine_lanes<Op>(s);
      if constexpr (Count) {
        alignas(64) int64_t n[kLanes];
        _mm512_store_si512(n, cnt[r][c]);
        observed[r * ldo + c] = ((n[0] + n[4]) + (n[2] + n[6])) + ((n[1] + n[5]) + (n[3] + n[7]));
      }
    }
}

template <RowReduce Op, bool Count>
STRATA_AVX512F void avx512_op(const double* a, int64_t lda, int64_t rows, const double* b, int64_t ldb, int64_t cols,
                              int64_t d, double* out, int64_t ldo, int64_t* observed) {
  int64_t i = 0;
  for (; i + 4 <= rows; i += 4) {
    int64_t j = 0;
    for (; j + 2 <= cols; j += 2)
      block<Op, 4, 2, Count>(a + i * lda, lda, b + j * ldb, ldb, d, out + i * ldo + j, ldo,
                             Count ? observed + i * ldo + j : nullptr);
    for (; j < cols; ++j)
      block<Op, 4, 1, Count>(a + i * lda, lda, b + j * ldb, ldb, d, out + i * ldo + j, ldo,
                             Count ? observed + i * ldo + j : nullptr);
  }
  for (; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      block<Op, 1, 1, Count>(a + i * lda, lda, b + j * ldb, ldb, d, out + i * ldo + j, ldo,
                             Count ? observed + i * ldo + j : nullptr);
}

template <RowReduce Op>
void avx512_dispatch(const double* a, int64_t lda, int64_t rows, const double* b, int64_t ldb, int64_t cols, int64_t d,
                     double* out, int64_t ldo, int64_t* observed) {
  if (observed) return avx512_op<Op, true>(a, lda, rows, b, ldb, cols, d, out, ldo, observed);
  avx512_op<Op, false>(a, lda, rows, b, ldb, cols, d, out, ldo, observed);
}

void row_reduce_avx512_impl(RowReduce op, double p, const double* a, int64_t lda, int64_t rows, const double* b,
                            int64_t ldb, int64_t cols, int64_t d, double* out, int64_t ldo, int64_t* observed) {
  switch (op) {
    case RowReduce::Cityblock: return avx512_dispatch<RowReduce::Cityblock>(a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::SqEuclidean: return avx512_dispatch<RowReduce::SqEuclidean>(a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::Chebyshev: return avx512_dispatch<RowReduce::Chebyshev>(a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::Mismatch: return avx512_dispatch<RowReduce::Mismatch>(a, lda, rows, b, ldb, cols, d, out, ldo, observed);
    case RowReduce::Minkowski: return row_reduce_portable(op, p, a, lda, rows, b, ldb, cols, d, out, ldo, observed);
  }
}

}  // namespace

RowReduceFn row_reduce_avx512() {
  return __builtin_cpu_supports("avx512f") ? row_reduce_avx512_impl : nullptr;
}
#else
RowReduceFn row_reduce_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
