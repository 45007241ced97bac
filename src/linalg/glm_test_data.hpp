#pragma once
// Simulated GLM data for the GLM tests: x row-major n × p of standard normals, y drawn from the
// family with linear predictor 0.2 + Σ x_j · coef(j).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "strata/linalg/glm.hpp"

namespace strata::linalg::testing_data {

struct GlmData {
  int64_t n = 0, p = 0;
  std::vector<double> x, y;  // x row-major n × p
};

template <class Coef>
GlmData make_glm_data(GlmFamily f, int64_t n, int64_t p, uint64_t seed, Coef coef) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u;
  GlmData d{n, p, std::vector<double>(static_cast<size_t>(n * p)), std::vector<double>(static_cast<size_t>(n))};
  for (double& v : d.x) v = g(rng);
  for (int64_t i = 0; i < n; ++i) {
    double eta = 0.2;
    for (int64_t j = 0; j < p; ++j) eta += d.x[static_cast<size_t>(i * p + j)] * coef(j);
    if (f == GlmFamily::Normal) d.y[static_cast<size_t>(i)] = eta + g(rng);
    if (f == GlmFamily::Logistic) d.y[static_cast<size_t>(i)] = u(rng) < 1 / (1 + std::exp(-eta)) ? 1.0 : 0.0;
    if (f == GlmFamily::Poisson)
      d.y[static_cast<size_t>(i)] = std::poisson_distribution<int>(std::exp(0.5 * eta))(rng);
  }
  return d;
}

}  // namespace strata::linalg::testing_data
