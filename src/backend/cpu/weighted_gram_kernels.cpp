// Weighted Gram kernels (see weighted_gram_kernels.hpp). The AVX-512 kernel runs lanes along the
// observations: lane l of an accumulator is partial sum l (observations s ≡ l mod 8), exactly the
// portable kernel's partials. Rows go in blocks of 4: a tile of 4 × 4 row pairs keeps its 16
// sums in registers over a chunk of observations, so each load of a row serves 4 products.
#include "backend/cpu/weighted_gram_kernels.hpp"

// A product and a sum stay two roundings (the vector kernel uses separate mul and add).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <algorithm>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_WGRAM_X86 1
#endif

#include "backend/cpu/lane_sum.hpp"
#include "backend/cpu/linear_predictor_kernels.hpp"

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

void logistic_gram_portable(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c, const double* y,
                            double* h, int64_t ldh, double* g) {
  std::vector<double> w(static_cast<size_t>(n)), r(static_cast<size_t>(n));
  linear_predictor_portable(x, ldx, p, n, c, true, w.data());
  for (int64_t s = 0; s < n; ++s) {
    const double pi = w[s];
    w[s] = pi * (1.0 - pi);
    r[s] = pi - y[s];
  }
  weighted_gram_portable(x, ldx, p, n, w.data(), r.data(), h, ldh, g);
}

// Tiles of 4 rows of h × 8 columns with their sums in locals over all n observations (what a
// compiler keeps in vector registers at any level), w·x rounded once per element into q first.
void weighted_gram_rows_portable(const double* x, int64_t ldx, int64_t n, int64_t p, const double* w, double* h,
                                 int64_t ldh) {
  std::vector<double> q(static_cast<size_t>(n * p));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < p; ++i) q[static_cast<size_t>(s * p + i)] = w[s] * x[s * ldx + i];
  for (int64_t i0 = 0; i0 < p; i0 += 4) {
    const int64_t a_n = std::min<int64_t>(4, p - i0);
    for (int64_t j0 = 0; j0 < i0 + a_n; j0 += 8) {
      const int64_t b_n = std::min<int64_t>(8, p - j0);
      double acc[4][8] = {};
      for (int64_t a = 0; a < a_n; ++a)
        for (int64_t b = 0; b < b_n; ++b) acc[a][b] = h[(i0 + a) * ldh + j0 + b];
      for (int64_t s = 0; s < n; ++s) {
        const double* xs = x + s * ldx + j0;
        double y[8] = {};
        for (int64_t b = 0; b < b_n; ++b) y[b] = xs[b];
        for (int a = 0; a < 4; ++a) {
          const double qa = a < a_n ? q[static_cast<size_t>(s * p + i0 + a)] : 0.0;
          for (int b = 0; b < 8; ++b) acc[a][b] = acc[a][b] + qa * y[b];
        }
      }
      for (int64_t a = 0; a < a_n; ++a)
        for (int64_t b = 0; b < b_n && j0 + b <= i0 + a; ++b) h[(i0 + a) * ldh + j0 + b] = acc[a][b];
    }
  }
}

#ifdef STRATA_WGRAM_X86
namespace {

#define STRATA_AVX512F __attribute__((target("avx512f")))

STRATA_AVX512F inline __mmask8 live_mask(int64_t left) {
  return left >= kLanes ? __mmask8(0xFF) : __mmask8((1u << left) - 1);
}

// Observations per chunk: a chunk of the (at most 8) rows of a tile stays in L1 while the tile's
// 16 sums run over it; the sums live in `acc` between chunks (8 lanes per pair), so each lane
// still adds its observations in order.
constexpr int64_t kChunk = 256;

// Rows i0..i0+A−1 against rows j0..j0+B−1 over observations [s0, s1): acc[(a·4 + b)·8 + lane]
// += (w·x_i)·x_j. The caller keeps only the pairs with j ≤ i.
template <int A, int B>
STRATA_AVX512F void tile(const double* x, int64_t ldx, int64_t i0, int64_t j0, int64_t s0, int64_t s1, int64_t n,
                         const double* w, double* acc) {
  __m512d a[A][B];
  for (int r = 0; r < A; ++r)
    for (int c = 0; c < B; ++c) a[r][c] = _mm512_loadu_pd(acc + (r * 4 + c) * kLanes);
  const double* xi = x + i0 * ldx;
  const double* xj = x + j0 * ldx;
  for (int64_t s = s0; s < s1; s += kLanes) {
    const __mmask8 m = live_mask(n - s);
    const __m512d ws = _mm512_maskz_loadu_pd(m, w + s);
    __m512d q[A], y[B];
    for (int r = 0; r < A; ++r) q[r] = _mm512_mul_pd(ws, _mm512_maskz_loadu_pd(m, xi + r * ldx + s));
    for (int c = 0; c < B; ++c) y[c] = _mm512_maskz_loadu_pd(m, xj + c * ldx + s);
    for (int r = 0; r < A; ++r)
      for (int c = 0; c < B; ++c) a[r][c] = _mm512_add_pd(a[r][c], _mm512_mul_pd(q[r], y[c]));
  }
  for (int r = 0; r < A; ++r)
    for (int c = 0; c < B; ++c) _mm512_storeu_pd(acc + (r * 4 + c) * kLanes, a[r][c]);
}

// The full 4 × 4 tile with its 16 sums in named registers (an array of 16 vectors is kept in
// memory by GCC), unmasked over whole vectors and masked on the last partial one.
STRATA_AVX512F void tile44(const double* x, int64_t ldx, int64_t i0, int64_t j0, int64_t s0, int64_t s1, int64_t n,
                           const double* w, double* acc) {
#define STRATA_WG_LOAD(r, c) __m512d a##r##c = _mm512_loadu_pd(acc + (r * 4 + c) * kLanes);
#define STRATA_WG_ROW(r)                                                                                      \
  a##r##0 = _mm512_add_pd(a##r##0, _mm512_mul_pd(q##r, y0));                                                  \
  a##r##1 = _mm512_add_pd(a##r##1, _mm512_mul_pd(q##r, y1));                                                  \
  a##r##2 = _mm512_add_pd(a##r##2, _mm512_mul_pd(q##r, y2));                                                  \
  a##r##3 = _mm512_add_pd(a##r##3, _mm512_mul_pd(q##r, y3));
#define STRATA_WG_STEP(LOAD)                                                                                  \
  {                                                                                                           \
    const __m512d ws = LOAD(w + s);                                                                           \
    const __m512d q0 = _mm512_mul_pd(ws, LOAD(xi + s)), q1 = _mm512_mul_pd(ws, LOAD(xi + ldx + s));           \
    const __m512d q2 = _mm512_mul_pd(ws, LOAD(xi + 2 * ldx + s));                                             \
    const __m512d q3 = _mm512_mul_pd(ws, LOAD(xi + 3 * ldx + s));                                             \
    const __m512d y0 = LOAD(xj + s), y1 = LOAD(xj + ldx + s), y2 = LOAD(xj + 2 * ldx + s);                    \
    const __m512d y3 = LOAD(xj + 3 * ldx + s);                                                                \
    STRATA_WG_ROW(0) STRATA_WG_ROW(1) STRATA_WG_ROW(2) STRATA_WG_ROW(3)                                       \
  }
#define STRATA_WG_STORE(r, c) _mm512_storeu_pd(acc + (r * 4 + c) * kLanes, a##r##c);
  STRATA_WG_LOAD(0, 0) STRATA_WG_LOAD(0, 1) STRATA_WG_LOAD(0, 2) STRATA_WG_LOAD(0, 3)
  STRATA_WG_LOAD(1, 0) STRATA_WG_LOAD(1, 1) STRATA_WG_LOAD(1, 2) STRATA_WG_LOAD(1, 3)
  STRATA_WG_LOAD(2, 0) STRATA_WG_LOAD(2, 1) STRATA_WG_LOAD(2, 2) STRATA_WG_LOAD(2, 3)
  STRATA_WG_LOAD(3, 0) STRATA_WG_LOAD(3, 1) STRATA_WG_LOAD(3, 2) STRATA_WG_LOAD(3, 3)
  const double* xi = x + i0 * ldx;
  const double* xj = x + j0 * ldx;
  const int64_t full = std::min(s1, n - n % kLanes);
  int64_t s = s0;
#define STRATA_WG_U(ptr) _mm512_loadu_pd(ptr)
  for (; s < full; s += kLanes) STRATA_WG_STEP(STRATA_WG_U)
  if (s < s1) {
    const __mmask8 m = live_mask(n - s);
#define STRATA_WG_M(ptr) _mm512_maskz_loadu_pd(m, ptr)
    STRATA_WG_STEP(STRATA_WG_M)
  }
  STRATA_WG_STORE(0, 0) STRATA_WG_STORE(0, 1) STRATA_WG_STORE(0, 2) STRATA_WG_STORE(0, 3)
  STRATA_WG_STORE(1, 0) STRATA_WG_STORE(1, 1) STRATA_WG_STORE(1, 2) STRATA_WG_STORE(1, 3)
  STRATA_WG_STORE(2, 0) STRATA_WG_STORE(2, 1) STRATA_WG_STORE(2, 2) STRATA_WG_STORE(2, 3)
  STRATA_WG_STORE(3, 0) STRATA_WG_STORE(3, 1) STRATA_WG_STORE(3, 2) STRATA_WG_STORE(3, 3)
#undef STRATA_WG_LOAD
#undef STRATA_WG_ROW
#undef STRATA_WG_STEP
#undef STRATA_WG_STORE
#undef STRATA_WG_U
#undef STRATA_WG_M
}

using TileFn = void (*)(const double*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, const double*, double*);

template <int A>
constexpr TileFn kTileRow[4] = {tile<A, 1>, tile<A, 2>, tile<A, 3>, A == 4 ? tile44 : tile<A, 4>};
constexpr const TileFn* kTiles[4] = {kTileRow<1>, kTileRow<2>, kTileRow<3>, kTileRow<4>};

// g[i] partials: acc[r·8 + lane] += v·x_i for rows i0..i0+A−1.
template <int A>
STRATA_AVX512F void grad_rows(const double* x, int64_t ldx, int64_t i0, int64_t s0, int64_t s1, int64_t n,
                              const double* v, double* acc) {
  __m512d a[A];
  for (int r = 0; r < A; ++r) a[r] = _mm512_loadu_pd(acc + r * kLanes);
  for (int64_t s = s0; s < s1; s += kLanes) {
    const __mmask8 m = live_mask(n - s);
    const __m512d vs = _mm512_maskz_loadu_pd(m, v + s);
    for (int r = 0; r < A; ++r)
      a[r] = _mm512_add_pd(a[r], _mm512_mul_pd(vs, _mm512_maskz_loadu_pd(m, x + (i0 + r) * ldx + s)));
  }
  for (int r = 0; r < A; ++r) _mm512_storeu_pd(acc + r * kLanes, a[r]);
}

using GradFn = void (*)(const double*, int64_t, int64_t, int64_t, int64_t, int64_t, const double*, double*);
constexpr GradFn kGrads[4] = {grad_rows<1>, grad_rows<2>, grad_rows<3>, grad_rows<4>};

// The sums of weighted_gram: 16 pairs × 8 lanes per tile of 4-row blocks (I, J ≤ I), 8 lanes
// per row of g.
struct GramSums {
  int64_t p, nb;
  std::vector<double> acc, gacc;
  GramSums(int64_t rows, bool grad)
      : p(rows), nb((rows + 3) / 4), acc(static_cast<size_t>(nb * (nb + 1) / 2 * 16 * kLanes), 0.0),
        gacc(static_cast<size_t>(grad ? rows * kLanes : 0), 0.0) {}

  // Observations [s0, s1) of every tile (and of g when v).
  STRATA_AVX512F void add(const double* x, int64_t ldx, int64_t n, int64_t s0, int64_t s1, const double* w,
                          const double* v) {
    for (int64_t bi = 0, t = 0; bi < nb; ++bi) {
      const int64_t ra = std::min<int64_t>(4, p - 4 * bi);
      for (int64_t bj = 0; bj <= bi; ++bj, ++t) {
        const int64_t rb = std::min<int64_t>(4, p - 4 * bj);
        kTiles[ra - 1][rb - 1](x, ldx, 4 * bi, 4 * bj, s0, s1, n, w, &acc[t * 16 * kLanes]);
      }
      if (v) kGrads[ra - 1](x, ldx, 4 * bi, s0, s1, n, v, &gacc[4 * bi * kLanes]);
    }
  }

  void finish(double* h, int64_t ldh, double* g) const {
    for (int64_t bi = 0, t = 0; bi < nb; ++bi)
      for (int64_t bj = 0; bj <= bi; ++bj, ++t)
        for (int64_t r = 0; r < 4 && 4 * bi + r < p; ++r)
          for (int64_t c = 0; c < 4 && 4 * bj + c <= 4 * bi + r; ++c)
            h[(4 * bi + r) * ldh + 4 * bj + c] = lane_tree_sum(&acc[(t * 16 + r * 4 + c) * kLanes]);
    if (g)
      for (int64_t i = 0; i < p; ++i) g[i] = lane_tree_sum(&gacc[i * kLanes]);
  }
};

STRATA_AVX512F void weighted_gram_avx512_impl(const double* x, int64_t ldx, int64_t p, int64_t n, const double* w,
                                              const double* v, double* h, int64_t ldh, double* g) {
  GramSums sums(p, v != nullptr);
  for (int64_t s0 = 0; s0 < n; s0 += kChunk) sums.add(x, ldx, n, s0, std::min(n, s0 + kChunk), w, v);
  sums.finish(h, ldh, v ? g : nullptr);
}

// The fused step: per chunk the probabilities (the AVX-512 linear predictor on the chunk's
// columns), w and r, then the chunk's products while its rows are still in L1.
STRATA_AVX512F void logistic_gram_avx512_impl(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c,
                                              const double* y, double* h, int64_t ldh, double* g) {
  static const LinearPredictorFn lp = linear_predictor_avx512();
  GramSums sums(p, true);
  std::vector<double> w(static_cast<size_t>(n)), r(static_cast<size_t>(n));
  for (int64_t s0 = 0; s0 < n; s0 += kChunk) {
    const int64_t s1 = std::min(n, s0 + kChunk);
    lp(x + s0, ldx, p, s1 - s0, c, true, &w[s0]);
    for (int64_t s = s0; s < s1; ++s) {
      const double pi = w[s];
      w[s] = pi * (1.0 - pi);
      r[s] = pi - y[s];
    }
    sums.add(x, ldx, n, s0, s1, w.data(), r.data());
  }
  sums.finish(h, ldh, g);
}

// weighted_gram_rows: rows i0..i0+A−1 of h against B vectors of 8 columns from j0, over all n
// observations with the sums in registers (24 at most: A = 8, B = 3). q holds w[s]·x(s, i)
// (rounded once, as the portable kernel's q); each lane adds its products in observation order
// onto h's value, so the bits are the portable kernel's. Lanes past the diagonal or past p are
// computed from zeros and not stored.
template <int A, int B>
STRATA_AVX512F void rows_tile(const double* x, int64_t ldx, const double* q, int64_t ldq, int64_t n, int64_t p,
                              int64_t i0, int64_t j0, double* h, int64_t ldh) {
  __m512d acc[A][B];
  __mmask8 keep[A][B];
  const __mmask8 in_p = live_mask(p - (j0 + 8 * (B - 1)));  // the last vector's columns < p
#pragma GCC unroll 8
  for (int a = 0; a < A; ++a)
#pragma GCC unroll 3
    for (int b = 0; b < B; ++b) {
      const int64_t first = j0 + 8 * b, upto = std::min(i0 + a + 1, p);  // columns [first, upto)
      keep[a][b] = upto <= first ? __mmask8(0) : live_mask(upto - first);
      acc[a][b] = _mm512_maskz_loadu_pd(keep[a][b], h + (i0 + a) * ldh + first);
    }
  for (int64_t s = 0; s < n; ++s) {
    const double* xs = x + s * ldx + j0;
    const double* qs = q + s * ldq + i0;
    __m512d y[B];
#pragma GCC unroll 3
    for (int b = 0; b < B; ++b) y[b] = b + 1 < B ? _mm512_loadu_pd(xs + 8 * b) : _mm512_maskz_loadu_pd(in_p, xs + 8 * b);
#pragma GCC unroll 8
    for (int a = 0; a < A; ++a) {
      const __m512d qa = _mm512_set1_pd(qs[a]);
#pragma GCC unroll 3
      for (int b = 0; b < B; ++b) acc[a][b] = _mm512_add_pd(acc[a][b], _mm512_mul_pd(qa, y[b]));
    }
  }
#pragma GCC unroll 8
  for (int a = 0; a < A; ++a)
#pragma GCC unroll 3
    for (int b = 0; b < B; ++b) _mm512_mask_storeu_pd(h + (i0 + a) * ldh + j0 + 8 * b, keep[a][b], acc[a][b]);
}

using RowsTileFn = void (*)(const double*, int64_t, const double*, int64_t, int64_t, int64_t, int64_t, int64_t,
                            double*, int64_t);
template <int A>
constexpr RowsTileFn kRowsTileRow[3] = {rows_tile<A, 1>, rows_tile<A, 2>, rows_tile<A, 3>};
constexpr const RowsTileFn* kRowsTiles[8] = {kRowsTileRow<1>, kRowsTileRow<2>, kRowsTileRow<3>, kRowsTileRow<4>,
                                             kRowsTileRow<5>, kRowsTileRow<6>, kRowsTileRow<7>, kRowsTileRow<8>};

STRATA_AVX512F void weighted_gram_rows_avx512_impl(const double* x, int64_t ldx, int64_t n, int64_t p,
                                                   const double* w, double* h, int64_t ldh) {
  thread_local std::vector<double> qbuf;
  const int64_t ldq = (p + 7) / 8 * 8;
  if (qbuf.size() < static_cast<size_t>(n * ldq)) qbuf.resize(static_cast<size_t>(n * ldq));
  double* q = qbuf.data();
  for (int64_t s = 0; s < n; ++s) {
    const __m512d ws = _mm512_set1_pd(w[s]);
    for (int64_t i = 0; i < p; i += kLanes) {
      const __mmask8 m = live_mask(p - i);
      _mm512_storeu_pd(q + s * ldq + i, _mm512_mul_pd(ws, _mm512_maskz_loadu_pd(m, x + s * ldx + i)));
    }
  }
  for (int64_t i0 = 0; i0 < p; i0 += 8) {
    const int64_t a = std::min<int64_t>(8, p - i0), end = std::min(i0 + a, p);  // columns [0, end)
    for (int64_t j0 = 0; j0 < end; j0 += 24) {
      const int64_t b = std::min<int64_t>(3, (end - j0 + 7) / 8);
      kRowsTiles[a - 1][b - 1](x, ldx, q, ldq, n, p, i0, j0, h, ldh);
    }
  }
}

// weighted_gram_rows for AVX2 (16 registers): 4 rows of h × 2 vectors of 4 columns, the same
// order of operations as the portable and AVX-512 kernels.
#define STRATA_AVX2 __attribute__((target("avx2")))

STRATA_AVX2 inline __m256i live4(int64_t left) {
  const int64_t k = std::clamp<int64_t>(left, 0, 4);
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), _mm256_setr_epi64x(0, 1, 2, 3));
}

template <int A, int B>
STRATA_AVX2 void rows_tile_avx2(const double* x, int64_t ldx, const double* q, int64_t ldq, int64_t n, int64_t p,
                                int64_t i0, int64_t j0, double* h, int64_t ldh) {
  __m256d acc[A][B];
  __m256i keep[A][B];
  const __m256i in_p = live4(p - (j0 + 4 * (B - 1)));
#pragma GCC unroll 4
  for (int a = 0; a < A; ++a)
#pragma GCC unroll 2
    for (int b = 0; b < B; ++b) {
      const int64_t first = j0 + 4 * b, upto = std::min(i0 + a + 1, p);
      keep[a][b] = live4(upto - first);
      acc[a][b] = _mm256_maskload_pd(h + (i0 + a) * ldh + first, keep[a][b]);
    }
  for (int64_t s = 0; s < n; ++s) {
    const double* xs = x + s * ldx + j0;
    const double* qs = q + s * ldq + i0;
    __m256d y[B];
#pragma GCC unroll 2
    for (int b = 0; b < B; ++b) y[b] = b + 1 < B ? _mm256_loadu_pd(xs + 4 * b) : _mm256_maskload_pd(xs + 4 * b, in_p);
#pragma GCC unroll 4
    for (int a = 0; a < A; ++a) {
      const __m256d qa = _mm256_broadcast_sd(qs + a);
#pragma GCC unroll 2
      for (int b = 0; b < B; ++b) acc[a][b] = _mm256_add_pd(acc[a][b], _mm256_mul_pd(qa, y[b]));
    }
  }
#pragma GCC unroll 4
  for (int a = 0; a < A; ++a)
#pragma GCC unroll 2
    for (int b = 0; b < B; ++b) _mm256_maskstore_pd(h + (i0 + a) * ldh + j0 + 4 * b, keep[a][b], acc[a][b]);
}

template <int A>
constexpr RowsTileFn kRowsTileRowAvx2[2] = {rows_tile_avx2<A, 1>, rows_tile_avx2<A, 2>};
constexpr const RowsTileFn* kRowsTilesAvx2[4] = {kRowsTileRowAvx2<1>, kRowsTileRowAvx2<2>, kRowsTileRowAvx2<3>,
                                                 kRowsTileRowAvx2<4>};

STRATA_AVX2 void weighted_gram_rows_avx2_impl(const double* x, int64_t ldx, int64_t n, int64_t p, const double* w,
                                              double* h, int64_t ldh) {
  thread_local std::vector<double> qbuf;
  const int64_t ldq = (p + 3) / 4 * 4;
  if (qbuf.size() < static_cast<size_t>(n * ldq)) qbuf.resize(static_cast<size_t>(n * ldq));
  double* q = qbuf.data();
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < p; ++i) q[s * ldq + i] = w[s] * x[s * ldx + i];
  for (int64_t i0 = 0; i0 < p; i0 += 4) {
    const int64_t a = std::min<int64_t>(4, p - i0), end = i0 + a;
    for (int64_t j0 = 0; j0 < end; j0 += 8) {
      const int64_t b = std::min<int64_t>(2, (end - j0 + 3) / 4);
      kRowsTilesAvx2[a - 1][b - 1](x, ldx, q, ldq, n, p, i0, j0, h, ldh);
    }
  }
}

}  // namespace

WeightedGramFn weighted_gram_avx512() {
  return __builtin_cpu_supports("avx512f") ? weighted_gram_avx512_impl : nullptr;
}
LogisticGramFn logistic_gram_avx512() {
  return linear_predictor_avx512() ? logistic_gram_avx512_impl : nullptr;
}
WeightedGramRowsFn weighted_gram_rows_avx512() {
  return __builtin_cpu_supports("avx512f") ? weighted_gram_rows_avx512_impl : nullptr;
}
WeightedGramRowsFn weighted_gram_rows_avx2() {
  return __builtin_cpu_supports("avx2") ? weighted_gram_rows_avx2_impl : nullptr;
}
#else
WeightedGramFn weighted_gram_avx512() { return nullptr; }
LogisticGramFn logistic_gram_avx512() { return nullptr; }
WeightedGramRowsFn weighted_gram_rows_avx512() { return nullptr; }
WeightedGramRowsFn weighted_gram_rows_avx2() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
