// Linear predictor kernels (see linear_predictor_kernels.hpp). exp_det: k = round(x·log2 e) by
// the 1.5·2⁵² shifter, r = x − k·ln2 in two parts (k·ln2_hi is exact), e^r by its Taylor
// polynomial of degree 13 in Horner form (|r| ≤ 0.35: truncation below 2e-16), times 2^(k−1)
// built from the shifter's bits, times 2. Every step is one IEEE operation, the same in the
// scalar and the vector code.
#include "backend/cpu/linear_predictor_kernels.hpp"

// A product and a sum stay two roundings (the vector kernel uses separate mul and add).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_LP_X86 1
#endif

namespace strata::backend::cpu {
namespace {

constexpr double kLo = -708.0, kHi = 710.0;
constexpr double kLog2e = 1.4426950408889634;
constexpr double kShifter = 6755399441055744.0;  // 1.5 · 2^52
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000: k·kLn2Hi is exact
constexpr double kLn2Lo = 1.90821492927058770002e-10;
// 1/j!, j = 13 down to 0.
constexpr double kPoly[14] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                              1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,
                              1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,        0.5,
                              1.0,                1.0};

}  // namespace

double exp_det(double x) {
  x = kLo > x ? kLo : x;  // NaN stays
  x = kHi < x ? kHi : x;
  const double t = x * kLog2e + kShifter;
  const double k = t - kShifter;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = kPoly[0];
  for (int j = 1; j < 14; ++j) p = p * r + kPoly[j];
  uint64_t bits;
  std::memcpy(&bits, &t, sizeof bits);
  bits = (bits + 1022) << 52;  // 2^(k−1): the shifter's low bits hold k
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale * 2.0;
}

void linear_predictor_portable(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c, bool logistic,
                               double* out) {
  for (int64_t s = 0; s < n; ++s) out[s] = 0.0;
  for (int64_t i = 0; i < p; ++i) {
    const double* xi = x + i * ldx;
    const double ci = c[i];
    for (int64_t s = 0; s < n; ++s) out[s] = out[s] + ci * xi[s];
  }
  if (logistic)
    for (int64_t s = 0; s < n; ++s) out[s] = 1.0 / (1.0 + exp_det(-out[s]));
}

#ifdef STRATA_LP_X86
namespace {

#define STRATA_AVX512F __attribute__((target("avx512f")))

STRATA_AVX512F inline __m512d exp_det_avx512(__m512d x) {
  x = _mm512_max_pd(_mm512_set1_pd(kLo), x);  // kLo > x ? kLo : x
  x = _mm512_min_pd(_mm512_set1_pd(kHi), x);  // kHi < x ? kHi : x
  const __m512d shifter = _mm512_set1_pd(kShifter);
  const __m512d t = _mm512_add_pd(_mm512_mul_pd(x, _mm512_set1_pd(kLog2e)), shifter);
  const __m512d k = _mm512_sub_pd(t, shifter);
  const __m512d r = _mm512_sub_pd(_mm512_sub_pd(x, _mm512_mul_pd(k, _mm512_set1_pd(kLn2Hi))),
                                  _mm512_mul_pd(k, _mm512_set1_pd(kLn2Lo)));
  __m512d p = _mm512_set1_pd(kPoly[0]);
  for (int j = 1; j < 14; ++j) p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(kPoly[j]));
  const __m512i bits = _mm512_slli_epi64(_mm512_add_epi64(_mm512_castpd_si512(t), _mm512_set1_epi64(1022)), 52);
  return _mm512_mul_pd(_mm512_mul_pd(p, _mm512_castsi512_pd(bits)), _mm512_set1_pd(2.0));
}

STRATA_AVX512F inline __m512d neg(__m512d e) {
  return _mm512_castsi512_pd(
      _mm512_xor_si512(_mm512_castpd_si512(e), _mm512_set1_epi64(static_cast<int64_t>(0x8000000000000000ull))));
}

// Four vectors of observations at a time (independent chains for the sums and the exp), then
// single masked vectors for the rest.
STRATA_AVX512F void linear_predictor_avx512_impl(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c,
                                                 bool logistic, double* out) {
  const __m512d one = _mm512_set1_pd(1.0);
  auto finish = [&](__m512d e) STRATA_AVX512F {
    return logistic ? _mm512_div_pd(one, _mm512_add_pd(one, exp_det_avx512(neg(e)))) : e;
  };
  int64_t s = 0;
  for (; s + 32 <= n; s += 32) {
    __m512d e0 = _mm512_setzero_pd(), e1 = e0, e2 = e0, e3 = e0;
    for (int64_t i = 0; i < p; ++i) {
      const __m512d ci = _mm512_set1_pd(c[i]);
      const double* xi = x + i * ldx + s;
      e0 = _mm512_add_pd(e0, _mm512_mul_pd(ci, _mm512_loadu_pd(xi)));
      e1 = _mm512_add_pd(e1, _mm512_mul_pd(ci, _mm512_loadu_pd(xi + 8)));
      e2 = _mm512_add_pd(e2, _mm512_mul_pd(ci, _mm512_loadu_pd(xi + 16)));
      e3 = _mm512_add_pd(e3, _mm512_mul_pd(ci, _mm512_loadu_pd(xi + 24)));
    }
    _mm512_storeu_pd(out + s, finish(e0));
    _mm512_storeu_pd(out + s + 8, finish(e1));
    _mm512_storeu_pd(out + s + 16, finish(e2));
    _mm512_storeu_pd(out + s + 24, finish(e3));
  }
  for (; s < n; s += 8) {
    const __mmask8 m = n - s >= 8 ? __mmask8(0xFF) : __mmask8((1u << (n - s)) - 1);
    __m512d e = _mm512_setzero_pd();
    for (int64_t i = 0; i < p; ++i)
      e = _mm512_add_pd(e, _mm512_mul_pd(_mm512_set1_pd(c[i]), _mm512_maskz_loadu_pd(m, x + i * ldx + s)));
    _mm512_mask_storeu_pd(out + s, m, finish(e));
  }
}

}  // namespace

LinearPredictorFn linear_predictor_avx512() {
  return __builtin_cpu_supports("avx512f") ? linear_predictor_avx512_impl : nullptr;
}
#else
LinearPredictorFn linear_predictor_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
