// strata gwas, linear model: one variant's statistics for every phenotype of a group from the
// block product [Qᵀg | gᵀY_r], corrected exactly for the variant's missing calls.
//
// With C = Q·R over the group's samples S, Q spans the covariates (intercept included), so the
// fit over T = S \ M (M = samples with a missing call, coded 0 in the product) is a Schur
// complement in Q coordinates:
//   A = QᵀQ over T = I − Σ_{i∈M} qᵢqᵢᵀ,  b_g = Qᵀg (g is 0 on M),  b_y = −Σ_{i∈M} qᵢ y_r,i
//   gg = Σg² − b_gᵀA⁻¹b_g,  gy = gᵀy_r − b_gᵀA⁻¹b_y,  yy = y_rᵀy_r − Σ_M y_r,i² − b_yᵀA⁻¹b_y
//   β = gy/gg,  SE² = (yy − β·gy) / (|T| − k − 1) / gg
// which is the least-squares fit plink2 makes on T.
#include <cmath>

#include "gwas_internal.hpp"

namespace strata::genomics::gwas_detail {
namespace {

// Cholesky of the k × k symmetric positive definite `a` in place (lower); false if not PD.
bool cholesky(std::vector<double>& a, int64_t k) {
  for (int64_t j = 0; j < k; ++j) {
    double s = a[j * k + j];
    for (int64_t t = 0; t < j; ++t) s -= a[j * k + t] * a[j * k + t];
    if (!(s > 0.0)) return false;
    const double d = std::sqrt(s);
    a[j * k + j] = d;
    for (int64_t i = j + 1; i < k; ++i) {
      double v = a[i * k + j];
      for (int64_t t = 0; t < j; ++t) v -= a[i * k + t] * a[j * k + t];
      a[i * k + j] = v / d;
    }
  }
  return true;
}

// z = L⁻¹ b (forward substitution).
void forward(const std::vector<double>& l, int64_t k, const double* b, double* z) {
  for (int64_t i = 0; i < k; ++i) {
    double v = b[i];
    for (int64_t t = 0; t < i; ++t) v -= l[i * k + t] * z[t];
    z[i] = v / l[i * k + i];
  }
}

double dot(const double* a, const double* b, int64_t k) {
  double s = 0.0;
  for (int64_t i = 0; i < k; ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

void linear_fits(const Group& g, const VariantData& v, const double* prod, double sum_g2, const GwasOptions& o,
                 Fit* out) {
  const int64_t k = g.k, P = static_cast<int64_t>(g.phenos.size());
  const int64_t n_s = static_cast<int64_t>(g.samples.size());
  const int64_t miss = static_cast<int64_t>(v.missing.size());
  const int64_t n_t = n_s - miss;
  for (int64_t j = 0; j < P; ++j) {
    out[j] = Fit{};
    out[j].obs = n_t;
  }
  auto fail = [&](Err e) {
    for (int64_t j = 0; j < P; ++j) out[j].err = e;
  };
  // plink2's order: too few samples, then a constant genotype column.
  if (n_t <= k + 1) return fail(Err::SampleCtLtePredictorCt);
  if (v.counts[0] == n_t || v.counts[1] == n_t || v.counts[2] == n_t) return fail(Err::ConstOmittedAllele);

  const double* bg = prod;        // Qᵀg
  const double* gy_raw = prod + k;// gᵀy_r per phenotype
  // A = I − Σ_M qᵢqᵢᵀ (identity when nothing is missing).
  std::vector<double> a(static_cast<size_t>(k * k), 0.0);
  for (int64_t i = 0; i < k; ++i) a[i * k + i] = 1.0;
  std::vector<double> by(static_cast<size_t>(k * P), 0.0), yy_miss(static_cast<size_t>(P), 0.0);
  for (int64_t s : v.missing) {
    const double* q = &g.q[s * k];
    for (int64_t i = 0; i < k; ++i)
      for (int64_t t = 0; t <= i; ++t) a[i * k + t] -= q[i] * q[t];
    for (int64_t j = 0; j < P; ++j) {
      const double y = g.y[s * P + j];
      for (int64_t i = 0; i < k; ++i) by[j * k + i] -= q[i] * y;
      yy_miss[j] += y * y;
    }
  }
  for (int64_t i = 0; i < k; ++i)
    for (int64_t t = 0; t < i; ++t) a[t * k + i] = a[i * k + t];
  std::vector<double> gram_a(a);  // A before factoring, for the VIF check
  if (!cholesky(a, k)) return fail(Err::VifInfinite);
  std::vector<double> zg(static_cast<size_t>(k)), zy(static_cast<size_t>(k));
  forward(a, k, bg, zg.data());
  const double gg = sum_g2 - dot(zg.data(), zg.data(), k);

  // max-corr / VIF of [g, covariates] over T: the Gram in covariate coordinates is
  // [[RᵀAR, Rᵀb_g], [b_gᵀR, Σg²]] (intercept = covariate column 0).
  {
    const int64_t p = k + 1;
    std::vector<double> gram(static_cast<size_t>(p * p));
    std::vector<double> ar(static_cast<size_t>(k * k), 0.0);  // A·R
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) {
        double s = 0.0;
        for (int64_t t = 0; t <= j; ++t) s += gram_a[i * k + t] * g.r[t * k + j];
        ar[i * k + j] = s;
      }
    // Order as plink2: intercept, genotype, covariates.
    auto idx = [&](int64_t c) { return c == 0 ? 0 : c + 1; };  // covariate column → predictor
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) {
        double s = 0.0;
        for (int64_t t = 0; t <= i; ++t) s += g.r[t * k + i] * ar[t * k + j];
        gram[idx(i) * p + idx(j)] = s;
      }
    for (int64_t i = 0; i < k; ++i) {
      double s = 0.0;
      for (int64_t t = 0; t <= i; ++t) s += g.r[t * k + i] * bg[t];
      gram[idx(i) * p + 1] = gram[1 * p + idx(i)] = s;
    }
    gram[1 * p + 1] = sum_g2;
    const Err e = check_corr_and_vif(gram, p, o.max_corr, o.max_vif);
    if (e != Err::Ok) return fail(e);
  }
  if (!(gg > 0.0)) return fail(Err::VifInfinite);

  const double df = static_cast<double>(n_t - k - 1);
  for (int64_t j = 0; j < P; ++j) {
    double gy = gy_raw[j], yy = g.yy[j] - yy_miss[j];
    if (miss > 0) {
      forward(a, k, &by[j * k], zy.data());
      gy -= dot(zg.data(), zy.data(), k);
      yy -= dot(zy.data(), zy.data(), k);
    }
    const double beta = gy / gg;
    double rss = yy - beta * gy;
    if (rss < 0.0) rss = 0.0;
    const double se = std::sqrt(rss / df / gg);
    Fit& f = out[j];
    f.beta = v.flip ? -beta : beta;
    f.se = se;
    f.stat = f.beta / se;
    f.p = p_from_t(f.stat, df);
    if (!std::isfinite(f.se) || !(se > 0.0)) f.err = Err::InvalidResult;
  }
}

}  // namespace strata::genomics::gwas_detail
