// The float64 GRM's sparse tile step (Backend::gram_sparse_f64). A row sample's standardized
// value is x_ref + c·d per variant (c the copies of the minor allele, so c = 0 for most calls),
// so a tile entry is u[j] (the x_ref part, summed once per column) plus c·y over the row's
// non-zero calls only: under half the multiply-adds of the dense panels, each taking its y
// straight from memory (the kernels are bound by those loads). A row's list comes in three
// parts: c = 1 (a plain add), c = 2 (an exact product and an add: one FMA by 2) and missing
// calls (an FMA by the variant's coefficient), so each step rounds once at every level.
// Register blocks: AVX2 one row × 32 columns (8 accumulators); AVX-512 two rows × 32 columns
// (their c = 1 parts side by side: 8 chains).
#include <algorithm>
#include <cmath>

#include "backend/cpu/gram_panel_kernels.hpp"
#include "backend/cpu/flush_f64_internal.hpp"
#include "backend/cpu/x86_intrinsics_internal.hpp"

namespace strata::backend::cpu {
namespace {

constexpr int64_t kGroup = 32;  // samples per packed group

// Columns of row i (tile coordinates) the mode asks for: the whole tile or j ≤ i.
inline int64_t column_limit(int mode, int64_t i, int64_t cols) { return mode == 0 ? cols : std::min(cols, i + 1); }


}  // namespace

void gram_sparse_f64_portable(const SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                              int64_t cols, int mode, double* acc, int64_t ldacc) {
  for (int64_t j0 = 0; j0 < cols; j0 += kGroup) {
    const double* yg = y + (j0 / kGroup) * kk * kGroup;
    for (int64_t i = mode == 0 ? 0 : j0; i < rows; ++i) {
      const int64_t lim = std::min(column_limit(mode, i, cols) - j0, kGroup);
      if (lim <= 0) continue;
      double c[kGroup];
      std::copy(u + j0, u + j0 + kGroup, c);
      const uint8_t* e = l.entries + i * l.stride;
      const int64_t ones = l.counts[3 * i], twos = ones + l.counts[3 * i + 1], all = twos + l.counts[3 * i + 2];
      for (int64_t t = 0; t < ones; ++t) {
        const double* yk = yg + e[t] * kGroup;
        for (int64_t q = 0; q < kGroup; ++q) c[q] += yk[q];
      }
      for (int64_t t = ones; t < twos; ++t) {
        const double* yk = yg + e[t] * kGroup;
        for (int64_t q = 0; q < kGroup; ++q) c[q] += 2.0 * yk[q];  // exact product: the fused bits
      }
      for (int64_t t = twos; t < all; ++t) {
        const double w = l.coef[e[t]], *yk = yg + e[t] * kGroup;
        for (int64_t q = 0; q < kGroup; ++q) c[q] = std::fma(w, yk[q], c[q]);
      }
      double* out = acc + i * ldacc + j0;
      for (int64_t q = 0; q < lim; ++q) out[q] += c[q];
    }
  }
}

#ifdef STRATA_X86
namespace {

#define STRATA_AVX2_TARGET __attribute__((target("avx2,fma")))

STRATA_AVX2_TARGET void gram_sparse_f64_avx2_impl(const SparseRowLists& l, const double* y, const double* u,
                                                  int64_t kk, int64_t rows, int64_t cols, int mode, double* acc,
                                                  int64_t ldacc) {
  for (int64_t j0 = 0; j0 < cols; j0 += kGroup) {
    const double* yg = y + (j0 / kGroup) * kk * kGroup;
    for (int64_t i = mode == 0 ? 0 : j0; i < rows; ++i) {
      const int64_t lim = std::min(column_limit(mode, i, cols) - j0, kGroup);
      if (lim <= 0) continue;
      __m256d c0 = _mm256_loadu_pd(u + j0), c1 = _mm256_loadu_pd(u + j0 + 4), c2 = _mm256_loadu_pd(u + j0 + 8),
              c3 = _mm256_loadu_pd(u + j0 + 12), c4 = _mm256_loadu_pd(u + j0 + 16),
              c5 = _mm256_loadu_pd(u + j0 + 20), c6 = _mm256_loadu_pd(u + j0 + 24),
              c7 = _mm256_loadu_pd(u + j0 + 28);
      const uint8_t* e = l.entries + i * l.stride;
      const int64_t ones = l.counts[3 * i], twos = ones + l.counts[3 * i + 1], all = twos + l.counts[3 * i + 2];
      int64_t t = 0;
      for (; t < ones; ++t) {
        const double* p = yg + e[t] * kGroup;
        c0 = _mm256_add_pd(c0, _mm256_loadu_pd(p));
        c1 = _mm256_add_pd(c1, _mm256_loadu_pd(p + 4));
        c2 = _mm256_add_pd(c2, _mm256_loadu_pd(p + 8));
        c3 = _mm256_add_pd(c3, _mm256_loadu_pd(p + 12));
        c4 = _mm256_add_pd(c4, _mm256_loadu_pd(p + 16));
        c5 = _mm256_add_pd(c5, _mm256_loadu_pd(p + 20));
        c6 = _mm256_add_pd(c6, _mm256_loadu_pd(p + 24));
        c7 = _mm256_add_pd(c7, _mm256_loadu_pd(p + 28));
      }
      for (; t < all; ++t) {
        const __m256d w = t < twos ? _mm256_set1_pd(2.0) : _mm256_broadcast_sd(l.coef + e[t]);
        const double* p = yg + e[t] * kGroup;
        c0 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p), c0);
        c1 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p + 4), c1);
        c2 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p + 8), c2);
        c3 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p + 12), c3);
        c4 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p + 16), c4);
        c5 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p + 20), c5);
        c6 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p + 24), c6);
        c7 = _mm256_fmadd_pd(w, _mm256_loadu_pd(p + 28), c7);
      }
      double* out = acc + i * ldacc + j0;
      const __m256d cs[8] = {c0, c1, c2, c3, c4, c5, c6, c7};
      for (int q = 0; q < 8; ++q) flush4(cs[q], out + 4 * q, lim - 4 * q);
    }
  }
}

#undef STRATA_AVX2_TARGET

#define STRATA_AVX512_TARGET __attribute__((target("avx512f")))

// Row list parts: c = 1 entries [0, ones), c = 2 [ones, twos), missing [twos, all).
struct RowList {
  const uint8_t* e;
  int64_t ones, twos, all;
};

STRATA_AVX512_TARGET inline RowList row_list(const SparseRowLists& l, int64_t i) {
  const uint8_t* c = l.counts + 3 * i;
  const int64_t ones = c[0], twos = ones + c[1];
  return {l.entries + i * l.stride, ones, twos, twos + c[2]};
}

STRATA_AVX512_TARGET inline void add_entry(__m512d (&c)[4], const double* p) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) c[q] = _mm512_add_pd(c[q], _mm512_loadu_pd(p + 8 * q));
}

// Row list entries [t, all) into the 4 accumulators (one column group).
STRATA_AVX512_TARGET inline void finish_row(__m512d (&c)[4], const RowList& r, int64_t t, const double* coef,
                                           const double* yg) {
  for (; t < r.ones; ++t) add_entry(c, yg + r.e[t] * kGroup);
  for (; t < r.all; ++t) {
    const __m512d w = t < r.twos ? _mm512_set1_pd(2.0) : _mm512_set1_pd(coef[r.e[t]]);
    const double* p = yg + r.e[t] * kGroup;
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) c[q] = _mm512_fmadd_pd(w, _mm512_loadu_pd(p + 8 * q), c[q]);
  }
}

STRATA_AVX512_TARGET inline void load_u(__m512d (&c)[4], const double* u) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) c[q] = _mm512_loadu_pd(u + 8 * q);
}

STRATA_AVX512_TARGET inline void flush_row(const __m512d (&c)[4], double* out, int64_t lim) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) flush8(c[q], out + 8 * q, lim - 8 * q);
}

// One column group (4 accumulators a row) for two rows at once: their c = 1 parts side by
// side (8 independent chains), then each row's rest in its own order.
STRATA_AVX512_TARGET void gram_sparse_f64_avx512_impl(const SparseRowLists& l, const double* y, const double* u,
                                                      int64_t kk, int64_t rows, int64_t cols, int mode, double* acc,
                                                      int64_t ldacc) {
  for (int64_t j0 = 0; j0 < cols; j0 += kGroup) {
    const double* yg = y + (j0 / kGroup) * kk * kGroup;
    int64_t i = mode == 0 ? 0 : j0;
    for (; i + 1 < rows; i += 2) {
      const RowList a = row_list(l, i), b = row_list(l, i + 1);
      __m512d ca[4], cb[4];
      load_u(ca, u + j0);
      load_u(cb, u + j0);
      const int64_t both = std::min(a.ones, b.ones);
      for (int64_t t = 0; t < both; ++t) {
        add_entry(ca, yg + a.e[t] * kGroup);
        add_entry(cb, yg + b.e[t] * kGroup);
      }
      finish_row(ca, a, both, l.coef, yg);
      finish_row(cb, b, both, l.coef, yg);
      flush_row(ca, acc + i * ldacc + j0, std::min(column_limit(mode, i, cols) - j0, kGroup));
      flush_row(cb, acc + (i + 1) * ldacc + j0, std::min(column_limit(mode, i + 1, cols) - j0, kGroup));
    }
    if (i < rows) {
      __m512d c[4];
      load_u(c, u + j0);
      finish_row(c, row_list(l, i), 0, l.coef, yg);
      flush_row(c, acc + i * ldacc + j0, std::min(column_limit(mode, i, cols) - j0, kGroup));
    }
  }
}

#undef STRATA_AVX512_TARGET

}  // namespace

GramSparseF64Fn gram_sparse_f64_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok ? gram_sparse_f64_avx2_impl : nullptr;
}
GramSparseF64Fn gram_sparse_f64_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok ? gram_sparse_f64_avx512_impl : nullptr;
}
#else
GramSparseF64Fn gram_sparse_f64_avx2() { return nullptr; }
GramSparseF64Fn gram_sparse_f64_avx512() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
