// Weighted Gram kernels (see weighted_gram_kernels.hpp). The AVX-512 kernel runs lanes along the
// observations: lane l of an accumulator is partial sum l (observations s ≡ l mod 8), exactly the
// portable kernel's partials; one row i is paired with 4 rows j per sweep so each load of w·x_i
// serves 4 products.
#include "backend/cpu/weighted_gram_kernels.hpp"

// A product and a sum stay two roundings (the vector kernel uses separate mul and add).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_WGRAM_X86 1
#endif

#include "backend/cpu/lane_sum.hpp"

namespace strata::backend::cpu {
namespace {

constexpr int kLanes = kSumLanes;

}  // namespace

void weighted_gram_portable(const double* x, int64_t ldx, int64_t p, int64_t n, const double* w, const double* v,
                            double* h, int64_t ldh, double* g) {
  std::vector<double> xw(static_cast<size_t>(n));
  for (int64_t i = 0; i < p; ++i) {
    const double* xi = x + i * ldx;
    for (int64_t s = 0; s < n; ++s) xw[s] = w[s] * xi[s];
    for (int64_t j = 0; j <= i; ++j) {
      const double* xj = x + j * ldx;
      double acc[kLanes] = {};
      for (int64_t s = 0; s < n; ++s) {
        const double t = xw[s] * xj[s];
        acc[s % kLanes] = acc[s % kLanes] + t;
      }
      h[i * ldh + j] = lane_tree_sum(acc);
    }
    if (v) {
      double acc[kLanes] = {};
      for (int64_t s = 0; s < n; ++s) {
        const double t = v[s] * xi[s];
        acc[s % kLanes] = acc[s % kLanes] + t;
      }
      g[i] = lane_tree_sum(acc);
    }
  }
}

#ifdef STRATA_WGRAM_X86
namespace {

#define STRATA_AVX512F __attribute__((target("avx512f")))

STRATA_AVX512F inline double vtree(__m512d a) {
  alignas(64) double s[kLanes];
  _mm512_store_pd(s, a);
  return lane_tree_sum(s);
}

STRATA_AVX512F inline __mmask8 live_mask(int64_t left) {
  return left >= kLanes ? __mmask8(0xFF) : __mmask8((1u << left) - 1);
}

STRATA_AVX512F void weighted_gram_avx512_impl(const double* x, int64_t ldx, int64_t p, int64_t n, const double* w,
                                              const double* v, double* h, int64_t ldh, double* g) {
  std::vector<double> xw(static_cast<size_t>(n));
  for (int64_t i = 0; i < p; ++i) {
    const double* xi = x + i * ldx;
    for (int64_t s = 0; s < n; s += kLanes) {
      const __mmask8 m = live_mask(n - s);
      _mm512_mask_storeu_pd(&xw[s], m, _mm512_mul_pd(_mm512_maskz_loadu_pd(m, w + s), _mm512_maskz_loadu_pd(m, xi + s)));
    }
    int64_t j = 0;
    for (; j + 4 <= i + 1; j += 4) {
      const double* x0 = x + j * ldx;
      __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
      for (int64_t s = 0; s < n; s += kLanes) {
        const __mmask8 m = live_mask(n - s);
        const __m512d q = _mm512_maskz_loadu_pd(m, &xw[s]);
        a0 = _mm512_add_pd(a0, _mm512_mul_pd(q, _mm512_maskz_loadu_pd(m, x0 + s)));
        a1 = _mm512_add_pd(a1, _mm512_mul_pd(q, _mm512_maskz_loadu_pd(m, x0 + ldx + s)));
        a2 = _mm512_add_pd(a2, _mm512_mul_pd(q, _mm512_maskz_loadu_pd(m, x0 + 2 * ldx + s)));
        a3 = _mm512_add_pd(a3, _mm512_mul_pd(q, _mm512_maskz_loadu_pd(m, x0 + 3 * ldx + s)));
      }
      h[i * ldh + j] = vtree(a0);
      h[i * ldh + j + 1] = vtree(a1);
      h[i * ldh + j + 2] = vtree(a2);
      h[i * ldh + j + 3] = vtree(a3);
    }
    for (; j <= i; ++j) {
      const double* xj = x + j * ldx;
      __m512d a = _mm512_setzero_pd();
      for (int64_t s = 0; s < n; s += kLanes) {
        const __mmask8 m = live_mask(n - s);
        a = _mm512_add_pd(a, _mm512_mul_pd(_mm512_maskz_loadu_pd(m, &xw[s]), _mm512_maskz_loadu_pd(m, xj + s)));
      }
      h[i * ldh + j] = vtree(a);
    }
    if (v) {
      __m512d a = _mm512_setzero_pd();
      for (int64_t s = 0; s < n; s += kLanes) {
        const __mmask8 m = live_mask(n - s);
        a = _mm512_add_pd(a, _mm512_mul_pd(_mm512_maskz_loadu_pd(m, v + s), _mm512_maskz_loadu_pd(m, xi + s)));
      }
      g[i] = vtree(a);
    }
  }
}

}  // namespace

WeightedGramFn weighted_gram_avx512() {
  return __builtin_cpu_supports("avx512f") ? weighted_gram_avx512_impl : nullptr;
}
#else
WeightedGramFn weighted_gram_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
