#pragma once
// Linear predictor kernels of the CPU backend (strata/backend/backend.hpp, linear_predictor):
// η = Σ_i c_i·x_i over predictor-major rows, optionally through the logistic function with
// strata's own exp (a fixed sequence of IEEE operations), so every implementation returns the
// same bits.

#include <cstdint>

namespace strata::backend::cpu {

/// out[s] = η_s = Σ_i c[i]·x[i·ldx + s] (from 0, i ascending, each product rounded before its
/// add); with `logistic`, out[s] = 1 / (1 + exp_det(−η_s)).
using LinearPredictorFn = void (*)(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c,
                                   bool logistic, double* out);

void linear_predictor_portable(const double* x, int64_t ldx, int64_t p, int64_t n, const double* c, bool logistic,
                               double* out);
/// AVX-512 F kernel; nullptr when the CPU lacks AVX-512 F.
LinearPredictorFn linear_predictor_avx512();

/// The exp of the kernels: e^x within ~2 ulp for x in [−708, 709.78], +inf above; inputs below
/// −708 give e^−708 (a logistic argument that far out gives exactly 1 or 0 either way); NaN
/// stays NaN.
double exp_det(double x);

}  // namespace strata::backend::cpu
