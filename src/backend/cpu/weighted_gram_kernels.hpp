#pragma once
// Weighted Gram kernels of the CPU backend (strata/backend/backend.hpp, weighted_gram): the
// products of one reweighted least-squares step on predictor-major rows. Every implementation
// sums observation s into partial s mod 8, in order, and adds the eight partials in one fixed
// tree, so they all return the same bits.

#include <cstdint>

namespace strata::backend::cpu {

/// h[i·ldh + j] (j ≤ i) = Σ_s w[s]·x[i·ldx + s]·x[j·ldx + s]; g[i] = Σ_s v[s]·x[i·ldx + s] when v.
using WeightedGramFn = void (*)(const double* x, int64_t ldx, int64_t p, int64_t n, const double* w, const double* v,
                                double* h, int64_t ldh, double* g);

void weighted_gram_portable(const double* x, int64_t ldx, int64_t p, int64_t n, const double* w, const double* v,
                            double* h, int64_t ldh, double* g);
/// AVX-512 F kernel; nullptr when the CPU lacks AVX-512 F.
WeightedGramFn weighted_gram_avx512();

/// One logistic Newton step: π = 1 / (1 + exp(−Σ_i c[i]·x_i)) (linear_predictor), w = π·(1 − π),
/// r = π − y, then weighted_gram(x, w, r): the same bits as those steps one after the other.
using LogisticGramFn = void (*)(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c, const double* y,
                                double* h, int64_t ldh, double* g);

void logistic_gram_portable(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c, const double* y,
                            double* h, int64_t ldh, double* g);
/// AVX-512 F kernel (chunks of observations through both steps); nullptr without AVX-512 F.
LogisticGramFn logistic_gram_avx512();

/// Observation-major rows (backend.hpp, weighted_gram_rows): h[i·ldh + j] (j ≤ i) +=
/// Σ_s (w[s]·x[s·ldx + i])·x[s·ldx + j], each element's sum continuing from h over s in order.
using WeightedGramRowsFn = void (*)(const double* x, int64_t ldx, int64_t n, int64_t p, const double* w, double* h,
                                    int64_t ldh);

void weighted_gram_rows_portable(const double* x, int64_t ldx, int64_t n, int64_t p, const double* w, double* h,
                                 int64_t ldh);
/// AVX-512 F kernel (8 × 24 register tiles); nullptr when the CPU lacks AVX-512 F.
WeightedGramRowsFn weighted_gram_rows_avx512();
/// AVX2 kernel (4 × 8 tiles); nullptr when the CPU lacks AVX2.
WeightedGramRowsFn weighted_gram_rows_avx2();

}  // namespace strata::backend::cpu
